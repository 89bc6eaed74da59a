#!/bin/sh
# t9999: run last (mk/fuzz.mk makes its log wait for every other test's),
# it checks that imc's tests left nothing behind on the machine: no network
# namespace, bridge or veth, cgroup, temporary or run file named by imc
# (tests/cli/hygiene-list.sh) that was not already there when make check
# started (tests/cli/hygiene-before.txt, listed before the first test), and
# no process started by this build's tests. Each leftover is named. It
# removes nothing: a leftover is a bug of the test or code that left it.
#
# Things made by another imc test suite running on this machine at the
# same time look the same as this suite's (processes excepted: they are
# told apart by the build directory in their environment).
. "$top_srcdir/tests/cli/lib.sh"

list="$top_srcdir/tests/cli/hygiene-list.sh"
before="$top_builddir/tests/cli/hygiene-before.txt"
[ -f "$before" ] || before=/dev/null

# leftovers KIND WHAT: one check, naming every new KIND in $TMPD/left
leftovers() {
	if grep "^$1 " "$TMPD/left" >"$TMPD/left-$1"; then
		not_ok "$2 left behind: $(cut -d' ' -f2- "$TMPD/left-$1" | tr '\n' ' ')"
	else
		ok "no $2 left behind"
	fi
}

# The lister must see what it looks for: a planted file and process of
# each kind it reports by environment are found, then removed.
probe=/tmp/imc-t9999-probe.$$
: >"$probe"
top_builddir=$top_builddir sh -c 'exec tail -f /dev/null' &
probe_pid=$!
sh "$list" >"$TMPD/probe-list"
sh "$list" --procs "$top_builddir" >>"$TMPD/probe-list"
rm -f "$probe"
kill "$probe_pid"
wait "$probe_pid" 2>/dev/null
if grep -qxF "file $probe" "$TMPD/probe-list" && grep -q "^proc $probe_pid " "$TMPD/probe-list"; then
	ok "the lister finds a planted file and process"
else
	not_ok "the lister misses a planted file or process"; sed 's/^/#   /' "$TMPD/probe-list"
fi

# what is there now, less what was there before and this test's own $TMPD
sh "$list" | grep -vxF "file $TMPD" >"$TMPD/after"
grep -vxFf "$before" "$TMPD/after" >"$TMPD/left"
sh "$list" --procs "$top_builddir" >>"$TMPD/left"
leftovers netns "network namespace"
leftovers link "bridge or veth"
leftovers cgroup "cgroup"
leftovers docker "infrastructure with Docker objects"
leftovers file "file"
leftovers proc "process"
done_testing
