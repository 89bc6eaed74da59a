#!/bin/sh
# t0001: the imc skeleton: help, version, usage errors and exit codes.
. "$top_srcdir/tests/cli/lib.sh"

expect_exit 0 "imc --help exits 0" -- "$IMC" --help
expect_grep '^usage: imc' "$TMPD/out" "--help prints usage on stdout"
expect_grep 'getstate' "$TMPD/out" "--help lists the commands"
expect_exit 0 "imc --version exits 0" -- "$IMC" --version
expect_grep '^imc [0-9]+\.[0-9]+' "$TMPD/out" "--version prints the version"
expect_exit 0 "imc help create exits 0" -- "$IMC" help create
expect_grep 'usage: imc .*create' "$TMPD/out" "help create shows create's usage"
expect_exit 64 "unknown command is a usage error" -- "$IMC" frobnicate
expect_grep "unknown command 'frobnicate'" "$TMPD/err" "unknown command is named"
expect_exit 64 "no command is a usage error" -- "$IMC"
expect_exit 64 "unknown global option is a usage error" -- "$IMC" --bogus
expect_exit 64 "help of an unknown command is a usage error" -- "$IMC" help frobnicate
expect_exit 0 "every command answers -h" -- sh -c 'for c in validate radl plan create getstate destroy play; do "$0" "$c" -h >/dev/null || exit 1; done' "$IMC"
expect_exit 0 "imc help play" -- "$IMC" help play
expect_grep '^ +-H, --host .*' "$TMPD/out" "help play documents -H"
expect_grep 'implies --connection ssh' "$TMPD/out" "help play says -H implies ssh"

# The test library itself: a failed check is never hidden (lib.sh in the
# script, tests/cli/run-test.sh around it, as make check runs it).
# lib_case NAME WANT-DIRECT WANT-RUNNER BODY: a script sourcing lib.sh
lib_case() {
	printf '. "$top_srcdir/tests/cli/lib.sh"\n%s\n' "$4" >"$TMPD/case-$1.sh"
	bash "$TMPD/case-$1.sh" >"$TMPD/case-$1.out" 2>&1
	got=$?
	[ "$got" = "$2" ] && ok "lib: $1: exit $2 when run alone" ||
		{ not_ok "lib: $1: exit $got when run alone, want $2"; sed 's/^/#   /' "$TMPD/case-$1.out"; }
	bash "$top_srcdir/tests/cli/run-test.sh" bash "$TMPD/case-$1.sh" >"$TMPD/case-$1.out" 2>&1
	got=$?
	[ "$got" = "$3" ] && ok "lib: $1: exit $3 under run-test.sh" ||
		{ not_ok "lib: $1: exit $got under run-test.sh, want $3"; sed 's/^/#   /' "$TMPD/case-$1.out"; }
}
lib_case pass 0 0 'ok a; done_testing'
lib_case fail 1 1 'ok a; not_ok b; done_testing'
lib_case skip 77 77 'skip_all "no such thing"'
lib_case skip-after-not-ok 1 1 'not_ok a; skip_all "late"'
lib_case exit0-after-not-ok 1 1 'not_ok a; exit 0'
lib_case exit77-after-not-ok 1 1 'not_ok a; exit 77'
lib_case own-trap-exit0-after-not-ok 0 1 'trap "rm -rf \"\$TMPD\"" EXIT; not_ok a; exit 0'
lib_case no-check 1 1 'done_testing'
lib_case no-done-testing 0 1 'ok a; exit 0'
lib_case skip-after-ok 77 1 'ok a; skip_all "late"'
lib_case skip-without-reason 77 1 'exit 77'
expect_grep 'skipped after 1 check' "$TMPD/case-skip-after-ok.out" "run-test.sh says why a late skip fails"
lib_case at-exit 0 0 'at_exit "echo cleanup-ran; false"; ok a; done_testing'
expect_grep '^cleanup-ran$' "$TMPD/case-at-exit.out" "at_exit commands run, and their status is not the script's"
done_testing
