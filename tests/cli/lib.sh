# tests/cli/lib.sh: helpers for shell tests (sourced). Each test is a
# sequence of checks; the script exits 0 when all pass, 1 otherwise, and
# 77 (automake's SKIP) only when a prerequisite that a supported machine
# (Debian 12, root, scripts/install-deps run) cannot have is absent.
# Strict on purpose, so that a failure is never hidden: once a check failed
# the script fails whatever it does next (skip_all, exit 0, an early exit);
# a script that ran no check fails. tests/cli/run-test.sh, through which
# make check runs every script, enforces the same from outside, for scripts
# that replace the EXIT trap below.
set -u
: "${IMC:=$top_builddir/imc}"
TEST_NAME=$(basename "$0" .sh)
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/imc-$TEST_NAME.XXXXXX")
export IMC_HOME="$TMPD/home"
# imc's own executor is what the tests check: nothing may quietly run under
# ansible-playbook instead (tests of the fallback itself set it to 0)
export IMC_NO_FALLBACK=1
failures=0
checks=0
# at_exit COMMAND: run COMMAND (a string for eval) at exit, before $TMPD is
# removed, latest first; use it instead of replacing the EXIT trap.
lib_at_exit=""
at_exit() { lib_at_exit="$1; $lib_at_exit"; }
# stop_child [-SIGNAL] PID: SIGNAL (TERM by default) to PID and wait for
# it, only while PID is still a child of this shell. A child that ended was
# reaped at once, and PIDs wrap (pid_max is often 32768), so by exit time
# its PID may name a process of another test, which a bare `kill $PID`
# would hit.
stop_child() {
	_sc_sig=-TERM
	case $1 in -*) _sc_sig=$1; shift ;; esac
	_sc_stat=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	# shellcheck disable=SC2086 # fields of /proc/PID/stat after "(comm) "
	set -- "$1" $_sc_stat
	[ "${3:-}" = "$$" ] || return 0
	kill "$_sc_sig" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}
# lib_exit [STATUS]: the EXIT trap. Runs the at_exit commands, removes
# $TMPD and turns the exit status into a failure when a check failed, so an
# early `exit 0` or `exit 77` cannot hide it. A script that sets its own
# EXIT trap should save $? first and end the trap with lib_exit STATUS.
lib_exit() {
	_lib_st=${1:-$?}
	eval "$lib_at_exit"
	rm -rf "$TMPD"
	if [ "$failures" -gt 0 ] && { [ "$_lib_st" -eq 0 ] || [ "$_lib_st" -eq 77 ]; }; then
		echo "# $failures check(s) failed before exit $_lib_st: FAIL"
		exit 1
	fi
	# a non-zero exit after passing checks would otherwise show no cause
	case $_lib_st in 0 | 77) ;; *) [ "$failures" -gt 0 ] || echo "# exit status $_lib_st after $checks check(s), none failed" ;; esac
	exit "$_lib_st"
}
trap lib_exit EXIT
# killed (timeout(1) sends TERM): exit through lib_exit, so cleanups run
trap 'exit 143' TERM
trap 'exit 130' INT

ok() { checks=$((checks + 1)); echo "ok $checks - $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok $checks - $*"; }
# skip_all REASON: the whole script is skipped (exit 77), unless a check
# already failed: then it fails.
skip_all() {
	if [ "$failures" -gt 0 ]; then
		echo "# skip_all after $failures failed check(s) ($*): FAIL"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

# expect_exit CODE DESCRIPTION -- COMMAND...: runs COMMAND, output in $TMPD/out and $TMPD/err
expect_exit() {
	local want=$1 desc=$2
	shift 3
	"$@" >"$TMPD/out" 2>"$TMPD/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then ok "$desc"; else
		not_ok "$desc (exit $got, want $want)"; sed 's/^/#   /' "$TMPD/err" | head -20
	fi
}
# expect_grep PATTERN FILE DESCRIPTION
expect_grep() {
	if grep -qE -- "$1" "$2"; then ok "$3"; else not_ok "$3 ('$1' not in $(basename "$2"))"; sed 's/^/#   /' "$2" | head -20; fi
}
expect_no_grep() {
	if grep -qE -- "$1" "$2"; then not_ok "$3 ('$1' found in $(basename "$2"))"; else ok "$3"; fi
}
# done_testing: prints the plan; fails when a check failed or none ran.
done_testing() {
	if [ "$checks" -eq 0 ]; then
		echo "not ok 1 - the script ran no check"
		failures=1
		echo "1..1"
		return 1
	fi
	echo "1..$checks"
	[ "$failures" -eq 0 ]
}
# Live comparisons with ansible-playbook (which scripts/install-deps
# installs): require_ansible_playbook fails the test without it;
# expect_same_as_ansible MSG GUARD...: ok when the command GUARD succeeds
# (ansible-playbook's side, $TMPD/ans, holds what the test compares) and
# $TMPD/imc is the same text, else not ok with the difference.
require_ansible_playbook() {
	command -v ansible-playbook >/dev/null && return 0
	not_ok "needs ansible-playbook (scripts/install-deps)"
	done_testing
	exit 1
}
expect_same_as_ansible() {
	lib_msg=$1
	shift
	rm -f "$TMPD/diff"
	if "$@" && diff -u "$TMPD/ans" "$TMPD/imc" >"$TMPD/diff"; then
		ok "$lib_msg"
	else
		not_ok "$lib_msg"
		sed 's/^/#   /' "$TMPD/diff" 2>/dev/null | head -40
	fi
}
# Long integration tests (real VMs, training) run only once in scripts/test:
# the sanitizer pass sets IMC_TEST_LONG=0.
require_long() { [ "${IMC_TEST_LONG:-1}" = 1 ] || skip_all "long test skipped (IMC_TEST_LONG=0)"; }
# Needs root and network namespaces.
require_netns() {
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	ip netns list >/dev/null 2>&1 || skip_all "no network namespaces"
}
