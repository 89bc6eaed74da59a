#!/bin/sh
# t0002: the command table is the one source of what imc accepts and shows.
# For every command: each option of its table (as 'imc help --completion'
# lists them) appears in 'imc help CMD' and in its section of imc(1), whose
# header and option lines are those 'imc help --man' generates from the
# table; docs/imc.bash is what 'imc help --completion' prints and completes
# commands and options in bash. One parser for every command: options
# before or after the operands, "--" ends them, an unknown option or a
# missing operand is a usage error (64).
. "$top_srcdir/tests/cli/lib.sh"

MAN=$top_srcdir/docs/imc.1
"$IMC" help --completion >"$TMPD/completion" || not_ok "imc help --completion"
"$IMC" help --man >"$TMPD/man" || not_ok "imc help --man"
# 'imc help --man CMD': only that command's lines (what a new command's
# author pastes into imc.1)
expect_exit 0 "imc help --man destroy" -- "$IMC" help --man destroy
[ "$(grep -c '^\.\\" ' "$TMPD/out")" = 1 ] && expect_grep '^\.B "destroy ' "$TMPD/out" "help --man destroy prints destroy's entry only" ||
	{ not_ok "help --man destroy prints one command"; sed 's/^/#   /' "$TMPD/out" | head; }
expect_exit 64 "imc help --man of an unknown command is a usage error" -- "$IMC" help --man nosuch

# the commands and their option words, from the table
sed -n "s/^	\([a-z]*\)) words='\([^']*\)'.*/\1 \2/p" "$TMPD/completion" >"$TMPD/table"
[ "$(wc -l <"$TMPD/table")" -ge 28 ] && ok "the completion lists every command" ||
	{ not_ok "the completion lists $(wc -l <"$TMPD/table") commands"; cat "$TMPD/completion"; }

# section CMD: the lines of CMD's entry in imc.1, from its header to the
# next command's header (or the next .SH)
section() {
	awk -v hdr="$1" '
		$0 == hdr { on = 1; print; next }
		on && (/^\.SH / || (/^\.B "[a-z]+[ "]/ && !/^\.B "\\-/)) { exit }
		on { print }' "$MAN"
}

bad=""
while read -r cmd words; do
	"$IMC" help "$cmd" >"$TMPD/help" 2>&1 || bad="$bad help-$cmd"
	"$IMC" "$cmd" -h >"$TMPD/h" 2>&1 || bad="$bad $cmd-h"
	cmp -s "$TMPD/help" "$TMPD/h" || bad="$bad $cmd-h-differs"
	# the manual's header line for cmd, as generated from the table
	hdr=$(awk -v c="$cmd" '$0 == ".\\\" " c { getline; print; exit }' "$TMPD/man")
	[ -n "$hdr" ] || bad="$bad $cmd-no-man-block"
	section "$hdr" >"$TMPD/section"
	[ -s "$TMPD/section" ] || bad="$bad $cmd-synopsis-not-in-imc.1"
	# every option line generated for cmd is in its section
	awk -v c="$cmd" '$0 == ".\\\" " c { on = 1; next } /^\.\\" / { on = 0 } on && /^\.B "\\-/' "$TMPD/man" |
	while IFS= read -r line; do
		grep -qxF -- "$line" "$TMPD/section" || echo "$cmd:$line"
	done >"$TMPD/missing"
	[ -s "$TMPD/missing" ] && bad="$bad $(tr '\n' ' ' <"$TMPD/missing")"
	for w in $words; do
		case $w in
		-h|--help) continue ;;
		--*) pat="^ +(-[a-zA-Z], )?$w( |$)"; roff=$(printf '%s' "$w" | sed 's/-/\\-/g') ;;
		*) pat="^ +$w, --"; roff=$(printf '%s, ' "$w" | sed 's/-/\\-/g') ;;
		esac
		grep -qE -- "$pat" "$TMPD/help" || bad="$bad $cmd:$w-not-in-help"
		# --json is a global option (GLOBAL OPTIONS) unless the table has it
		[ "$w" = --json ] && ! grep -q '^\.B "\\-\\-json"$' "$TMPD/section" && continue
		grep -qF -- "$roff" "$TMPD/section" || bad="$bad $cmd:$w-not-in-imc.1"
	done
done <"$TMPD/table"
[ -z "$bad" ] && ok "each command's help, -h and imc.1 section show every option of its table" ||
	not_ok "drift between the table, the help and imc.1:$bad"

# the options the issue found missing are there now
"$IMC" help getinfo >"$TMPD/out"
expect_grep '^ +-s, --system SYSTEM' "$TMPD/out" "help getinfo shows --system"
"$IMC" help destroy >"$TMPD/out"
expect_grep '^ +-y, --yes' "$TMPD/out" "help destroy shows --yes"
section "$(grep -A1 -xF '.\" destroy' "$TMPD/man" | tail -1)" >"$TMPD/section"
expect_grep '^\.B "\\-y, \\-\\-yes"$' "$TMPD/section" "imc.1 documents destroy --yes"

# the completion script is the generated one, and completes
if cmp -s "$TMPD/completion" "$top_srcdir/docs/imc.bash"; then ok "docs/imc.bash is what imc help --completion prints"; else
	not_ok "docs/imc.bash differs from 'imc help --completion' (regenerate it)"
	diff "$TMPD/completion" "$top_srcdir/docs/imc.bash" | head -10 | sed 's/^/#   /'
fi
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _imc; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$top_srcdir/docs/imc.bash" "$@"
}
complete_words imc getst >"$TMPD/out"
expect_grep '^getstate$' "$TMPD/out" "bash completes command names"
complete_words imc getinfo --sy >"$TMPD/out"
expect_grep '^--system$' "$TMPD/out" "bash completes a command's options"
complete_words imc play --tar >"$TMPD/out"
expect_grep '^--target$' "$TMPD/out" "bash completes play's options"

# one parser: unknown options are usage errors everywhere, before or after operands
bad=""
while read -r cmd words; do
	"$IMC" "$cmd" --no-such-option x >/dev/null 2>"$TMPD/err"
	[ $? -eq 64 ] && grep -q "unknown option '--no-such-option'" "$TMPD/err" || bad="$bad $cmd"
	"$IMC" "$cmd" x -Z >/dev/null 2>&1
	[ $? -eq 64 ] || bad="$bad $cmd(-Z)"
done <"$TMPD/table"
[ -z "$bad" ] && ok "an unknown option is 64 for every command" || not_ok "unknown option not 64:$bad"
expect_exit 64 "a missing operand is a usage error" -- "$IMC" getstate
expect_grep '^usage: imc getstate ID$' "$TMPD/err" "a usage error shows the synopsis"
expect_exit 64 "too many operands is a usage error" -- "$IMC" getvmcontmsg a 1 2
expect_exit 64 "a flag given a value is a usage error" -- "$IMC" export --delete=yes ID
expect_exit 64 "an option without its value is a usage error" -- "$IMC" getinfo ID -s

# options after operands
cat >"$TMPD/ok.radl" <<'RADL'
network net ( outbound = 'yes' )
system front ( cpu.count >= 1 and net_interface.0.connection = 'net' )
deploy front 1
RADL
expect_exit 0 "validate FILE --json" -- "$IMC" validate "$TMPD/ok.radl" --json
expect_grep '"format": 1' "$TMPD/out" "validate FILE --json prints JSON"
expect_exit 0 "radl FILE --radl" -- "$IMC" radl "$TMPD/ok.radl" --radl
expect_grep '^system front' "$TMPD/out" "radl FILE --radl prints RADL"
expect_exit 0 "radl --radl FILE --json: the last one wins" -- "$IMC" radl --radl "$TMPD/ok.radl" --json
expect_grep '^\[' "$TMPD/out" "radl --radl FILE --json prints RADL-JSON"
expect_exit 0 "plan FILE --cloud local" -- "$IMC" plan "$TMPD/ok.radl" --cloud dummy
expect_grep 'dummy' "$TMPD/out" "plan FILE --cloud dummy plans for dummy"
expect_exit 0 "list --json after the command" -- "$IMC" list --json
expect_grep '"infrastructures"' "$TMPD/out" "list --json prints JSON"
cat >"$TMPD/touch.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - name: touch
      file: path=$TMPD/touched state=touch
EOY
expect_exit 0 "play PLAYBOOK --syntax-check (option after the playbook)" -- "$IMC" play "$TMPD/touch.yml" --syntax-check
expect_grep "^playbook: $TMPD/touch.yml" "$TMPD/out" "play PLAYBOOK --syntax-check checks"
[ ! -e "$TMPD/touched" ] && ok "play --syntax-check after the playbook runs nothing" || not_ok "--syntax-check ran the play"
expect_exit 0 "play PLAYBOOK -c local -q --no-fallback" -- "$IMC" play "$TMPD/touch.yml" -c local -q --no-fallback
[ -e "$TMPD/touched" ] && ok "options after the playbook are applied" || not_ok "the play did not run"
[ ! -s "$TMPD/out" ] && ok "-q after the playbook silences the log" || not_ok "-q after the playbook ignored"
expect_exit 0 "bundled short options (-qc local)" -- "$IMC" play -qc local --no-fallback "$TMPD/touch.yml"
expect_exit 64 "play with two playbooks is a usage error" -- "$IMC" play "$TMPD/touch.yml" "$TMPD/touch.yml"
expect_exit 0 "a unique prefix of a long option is enough (--syntax)" -- "$IMC" play --syntax "$TMPD/touch.yml"
expect_exit 64 "an ambiguous prefix is a usage error (--k: --key, --known-hosts)" -- "$IMC" play --k x "$TMPD/touch.yml"
# "--" ends the options: what follows is an operand, even with a dash
expect_exit 66 "validate -- -FILE takes -FILE as a file" -- "$IMC" validate -- -no-such.radl
expect_grep "no-such.radl" "$TMPD/err" "the file after -- is named"
done_testing
