#!/bin/sh
# t2002: the deployment worker killed with SIGKILL at each point of a create
# (IMC_TEST_PAUSE_AT: the worker waits on a fifo there, no sleeps): getstate
# then tells the truth, destroy completes, a second destroy is a no-op. And
# destroy while the worker runs cancels it first.
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"
command -v mkfifo >/dev/null || skip_all "mkfifo is missing"
P="$TMPD/pause"
mkdir -p "$P"
mkfifo "$P/reached" "$P/resume"

# start_paused POINT: create -d with the worker stopping at POINT; sets ID and WPID
start_paused() {
	IMC_TEST_PAUSE_AT=$1 IMC_TEST_PAUSE_DIR=$P "$IMC" create -d "$R/t2-cluster.radl" >"$TMPD/id" 2>"$TMPD/err" || {
		not_ok "create -d paused at $1"; cat "$TMPD/err"; return 1; }
	ID=$(head -1 "$TMPD/id")
	# blocks until the worker is at the point (timeout only as a safety net)
	line=$(timeout 60 sh -c 'read l <"$1" && echo "$l"' sh "$P/reached")
	WPID=${line#* }
	[ "${line%% *}" = "$1" ] && ok "worker reached '$1'" || { not_ok "worker reached '$1' (got '$line')"; return 1; }
}

# point, expected infrastructure state after the kill, expected state of VM 1
for case in started:failed:failed networks:failed:failed vms-intent:failed:failed \
	    vms:unconfigured:unconfigured done:configured:configured; do
	point=${case%%:*}; rest=${case#*:}; want=${rest%%:*}; vm1=${rest#*:}
	start_paused "$point" || continue
	kill -9 "$WPID"
	expect_exit 0 "getstate after SIGKILL at '$point'" -- "$IMC" getstate "$ID"
	expect_grep "^The infrastructure is in state: $want\$" "$TMPD/out" "after a kill at '$point' the infrastructure is $want"
	expect_grep "^VM ID: 1 is in state: $vm1\.\$" "$TMPD/out" "after a kill at '$point' VM 1 is $vm1"
	expect_exit 0 "getcontmsg after a kill at '$point'" -- "$IMC" getcontmsg "$ID"
	expect_grep "worker \(PID $WPID\) ended" "$TMPD/out" "contmsg says the worker died"
	# wait: exit 0 only when configured (IM's rule), 1 for any other end
	[ "$want" = configured ] && wrc=0 || wrc=1
	expect_exit $wrc "wait returns after a kill at '$point'" -- "$IMC" wait "$ID" 60
	expect_exit 0 "destroy after a kill at '$point'" -- "$IMC" destroy "$ID"
	expect_exit 0 "second destroy after a kill at '$point'" -- "$IMC" destroy "$ID"
	expect_grep 'already destroyed' "$TMPD/out" "second destroy is a no-op"
done

# destroy while the worker is alive (paused): it is cancelled, then everything goes
start_paused vms && {
	expect_exit 0 "destroy with a running worker" -- "$IMC" destroy "$ID"
	# gone, or a zombie nobody reaped (PID 1 of a container may not)
	if [ -e "/proc/$WPID" ] && ! grep -q ') Z' "/proc/$WPID/stat" 2>/dev/null; then
		not_ok "the worker was cancelled"; kill -9 "$WPID"
	else ok "the worker was cancelled"; fi
	expect_exit 66 "nothing left" -- "$IMC" getstate "$ID"
}

# a worker let go on from its pause finishes normally
start_paused networks && {
	: >"$P/resume"
	expect_exit 0 "wait for a resumed worker" -- "$IMC" wait "$ID"
	expect_grep 'configured' "$TMPD/out" "resumed worker configures the infrastructure"
	expect_exit 0 "destroy it" -- "$IMC" destroy "$ID"
}
# Ctrl-C stops following, not the deployment
IMC_TEST_PAUSE_AT=networks IMC_TEST_PAUSE_DIR=$P "$IMC" create "$R/t2-cluster.radl" >"$TMPD/cc.out" 2>"$TMPD/cc.err" &
CPID=$!
line=$(timeout 60 sh -c 'read l <"$1" && echo "$l"' sh "$P/reached")
WPID=${line#* }
kill -INT "$CPID"
wait "$CPID"; crc=$?
[ "$crc" -eq 75 ] && ok "Ctrl-C on create exits 75" || not_ok "Ctrl-C on create exits 75 (got $crc)"
expect_grep 'the deployment goes on' "$TMPD/cc.err" "create says the deployment goes on"
ID=$(head -1 "$TMPD/cc.out")
if [ -e "/proc/$WPID" ] && ! grep -q ') Z' "/proc/$WPID/stat"; then ok "the worker survives Ctrl-C"; else not_ok "the worker survives Ctrl-C"; fi
: >"$P/resume"
expect_exit 0 "the deployment finishes" -- "$IMC" wait "$ID"
expect_exit 0 "destroy it" -- "$IMC" destroy "$ID"
expect_exit 0 "no infrastructure left" -- "$IMC" list
expect_grep '^No Infrastructures\.$' "$TMPD/out" "store is empty"
done_testing
