#!/bin/sh
# t1002: imc validate and imc radl: summaries, exit codes (0, 64, 65, 66),
# error format with the source line and a caret, several errors per run,
# nothing on stdout for invalid input, --from, stdin, CRLF input.
. "$top_srcdir/tests/cli/lib.sh"

cat >"$TMPD/ok.radl" <<'RADL'
network net ( outbound = 'yes' )
system front ( cpu.count >= 1 and memory.size >= 1g and memory.size <= 4g and
               net_interface.0.connection = 'net' )
system wn ( cpu.count >= 1 and net_interface.0.connection = 'net' )
configure front (
@begin
- tasks:
  - debug: msg=hi
@end
)
configure wn ()
deploy front 1
deploy wn 2
contextualize ( system front configure front step 1 system wn configure wn step 2 )
RADL

expect_exit 0 "validate accepts a valid file" -- "$IMC" validate "$TMPD/ok.radl"
expect_grep "ok.radl: valid: 2 systems, 1 network, 2 deploys \(3 VMs\), 2 steps" "$TMPD/out" "validate prints a one-line summary"
expect_exit 0 "validate --json" -- "$IMC" validate --json "$TMPD/ok.radl"
expect_grep '"format": 1' "$TMPD/out" "validate --json has a format field"
expect_grep '"systems": 2' "$TMPD/out" "validate --json counts systems"
expect_exit 0 "imc --json validate" -- "$IMC" --json validate "$TMPD/ok.radl"
expect_grep '"steps": 2' "$TMPD/out" "global --json works too"

printf 'system s (\n    cpu.count >= 1 ;\n    memory.size >= 1g\n\ndeploy s 1\nsystem t ( x => 1 )\n' >"$TMPD/bad.radl"
expect_exit 65 "invalid RADL exits 65" -- "$IMC" validate "$TMPD/bad.radl"
if [ -s "$TMPD/out" ]; then not_ok "nothing on stdout for invalid input"; else ok "nothing on stdout for invalid input"; fi
expect_grep "bad.radl:2:20: error: unexpected character ';'" "$TMPD/err" "error names file, line and column"
expect_grep "^      cpu.count >= 1 ;$" "$TMPD/err" "the source line is shown"
expect_grep "^                     \^$" "$TMPD/err" "a caret points at the column"
expect_grep "bad.radl:6:15: error: expected a value" "$TMPD/err" "a later error is reported too"
expect_exit 65 "radl --json of invalid RADL exits 65" -- "$IMC" radl --json "$TMPD/bad.radl"
if [ -s "$TMPD/out" ]; then not_ok "radl prints nothing for invalid input"; else ok "radl prints nothing for invalid input"; fi

printf 'system s (\n    cpu.count >= 1 and\n    memory.size >= 1g\n\ndeploy s 1\n' >"$TMPD/open.radl"
expect_exit 65 "unclosed parenthesis" -- "$IMC" validate "$TMPD/open.radl"
expect_grep "open.radl:5:1: error: expected 'and' or '\)', found reserved word 'deploy'" "$TMPD/err" "unclosed block: error where it was noticed"
expect_grep "open.radl:1:10: note: '\(' opened here" "$TMPD/err" "unclosed block: note where it opened"

expect_exit 66 "missing file exits 66" -- "$IMC" validate "$TMPD/nope.radl"
expect_grep "nope.radl" "$TMPD/err" "missing file is named"
expect_exit 64 "validate without FILE is a usage error" -- "$IMC" validate
expect_exit 64 "radl without FILE is a usage error" -- "$IMC" radl --json
expect_exit 64 "radl --from with a bad format" -- "$IMC" radl --from yaml "$TMPD/ok.radl"
expect_exit 0 "validate -h" -- "$IMC" validate -h
expect_exit 0 "radl -h" -- "$IMC" radl -h

expect_exit 0 "radl --json" -- "$IMC" radl --json "$TMPD/ok.radl"
cp "$TMPD/out" "$TMPD/ok.json"
expect_grep '"memory.size_min": 1000000000' "$TMPD/ok.json" "units applied in RADL-JSON"
expect_exit 0 "radl --radl from JSON" -- "$IMC" radl --radl "$TMPD/ok.json"
cp "$TMPD/out" "$TMPD/back.radl"
expect_grep "^configure front \($" "$TMPD/back.radl" "RADL text has the configure"
expect_grep "^deploy wn 2$" "$TMPD/back.radl" "RADL text has the deploys"
expect_exit 0 "JSON input converts to RADL by default" -- "$IMC" radl "$TMPD/ok.json"
expect_grep "^system front \($" "$TMPD/out" "default output for JSON input is RADL"
expect_exit 0 "RADL from stdin" -- sh -c '"$0" radl --json - <"$1"' "$IMC" "$TMPD/ok.radl"
expect_grep '"class": "deploy"' "$TMPD/out" "stdin input is converted"
expect_exit 65 "--from json on RADL text is an error" -- "$IMC" radl --from json "$TMPD/ok.radl"
expect_grep "invalid JSON" "$TMPD/err" "JSON errors say so"
expect_exit 0 "validate takes RADL-JSON too" -- "$IMC" validate "$TMPD/ok.json"

# CRLF input: physical line numbers
printf 'system s (\r\n    cpu.arch = 64\r\n)\r\n' >"$TMPD/crlf.radl"
expect_exit 65 "check error in a CRLF file" -- "$IMC" validate "$TMPD/crlf.radl"
expect_grep "crlf.radl:2:5: error: 'cpu.arch' must be a string" "$TMPD/err" "CRLF: line and column are physical"

# YAML errors in recipes point at the RADL line of the problem
printf 'system s ()\nconfigure s (\n@begin\n- hosts: all\n  tasks: [a\n   b: c\n@end\n)\n' >"$TMPD/yaml.radl"
expect_exit 65 "invalid YAML recipe" -- "$IMC" validate "$TMPD/yaml.radl"
expect_grep "yaml.radl:2:1: error: the recipe of configure 's' is not valid YAML" "$TMPD/err" "YAML error names the configure"
expect_grep "yaml.radl:6:[0-9]+: note: " "$TMPD/err" "YAML problem shown at its RADL line"

# several files: each is reported, the status is the first failure's
expect_exit 65 "one bad file among good ones" -- "$IMC" validate "$TMPD/ok.radl" "$TMPD/crlf.radl" "$TMPD/ok.json"
expect_grep "ok.json: valid" "$TMPD/out" "files after a bad one are still validated"
done_testing
