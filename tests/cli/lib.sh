# tests/cli/lib.sh: helpers for shell tests (sourced). Each test is a
# sequence of checks; the script exits 0 when all pass, 1 otherwise, and
# 77 (automake's SKIP) when something it needs is absent.
set -u
: "${IMC:=$top_builddir/imc}"
TEST_NAME=$(basename "$0" .sh)
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/imc-$TEST_NAME.XXXXXX")
export IMC_HOME="$TMPD/home"
failures=0
checks=0
trap 'rm -rf "$TMPD"' EXIT

ok() { checks=$((checks + 1)); echo "ok $checks - $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok $checks - $*"; }
skip_all() { echo "SKIP: $*"; exit 77; }

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
done_testing() {
	echo "1..$checks"
	[ "$failures" -eq 0 ]
}
# Long integration tests (real VMs, training) run only once in scripts/test:
# the sanitizer pass sets IMC_TEST_LONG=0.
require_long() { [ "${IMC_TEST_LONG:-1}" = 1 ] || skip_all "long test skipped (IMC_TEST_LONG=0)"; }
# Needs root and network namespaces.
require_netns() {
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	ip netns list >/dev/null 2>&1 || skip_all "no network namespaces"
}
