#!/bin/sh
# tests/cli/run-test.sh SHELL SCRIPT: how make check runs a shell test (it
# is SH_LOG_COMPILER). Runs SCRIPT with SHELL and judges its output as well as its exit
# status, so that a script which replaced lib.sh's EXIT trap, or exits early,
# still cannot turn a failure into a pass or a skip:
#   - any "not ok" line fails it, whatever its exit status;
#   - exit 0 needs a plan ("1..N", N > 0) matching its "ok"/"not ok" lines;
#   - exit 77 (SKIP) must say why ("SKIP: reason") and come before any check.
# The output is kept in a file and shown afterwards (a pipe would wait for
# any daemon the test left holding it).
out=$(mktemp "${TMPDIR:-/tmp}/imc-run-test.XXXXXX") || exit 99
# the hygiene test (t9999) must not count this file, which it runs within
IMC_RUN_TEST_OUT=$out
export IMC_RUN_TEST_OUT
shown=0
show() { [ "$shown" = 1 ] || cat "$out"; shown=1; }
# timeout(1) signals the whole process group, the test with us: once it
# is gone, show what it printed
trap 'show; rm -f "$out"; exit 124' TERM INT
"$1" "$2" >"$out" 2>&1
rc=$?
show
nok=$(grep -c '^not ok' "$out")
nchecks=$(grep -cE '^(not )?ok [0-9]+' "$out")
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out" | tail -1)
skip=$(grep -c '^SKIP: ..*' "$out")
rm -f "$out"
fail() { echo "# run-test: $*: FAIL"; exit 1; }
case $rc in
0)
	[ "$nok" -eq 0 ] || fail "exit 0 after $nok failed check(s)"
	[ -n "$plan" ] || fail "exit 0 without a plan (done_testing not reached)"
	[ "$plan" -gt 0 ] || fail "no check ran"
	[ "$plan" -eq "$nchecks" ] || fail "plan 1..$plan but $nchecks check lines"
	exit 0 ;;
77)
	[ "$nok" -eq 0 ] || fail "skipped after $nok failed check(s)"
	[ "$nchecks" -eq 0 ] || fail "skipped after $nchecks check(s) had run"
	[ "$skip" -gt 0 ] || fail "skipped without saying why (SKIP: reason)"
	exit 77 ;;
*)
	exit "$rc" ;;
esac
