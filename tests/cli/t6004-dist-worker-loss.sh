#!/bin/sh
# t6004: a worker killed in the middle of a run. Synchronous with the default
# --on-worker-loss continue: the PS logs the loss and the next rounds average
# the survivors' gradients; the job completes. With --on-worker-loss fail the
# job fails clearly (chief and PS exit 1 naming the lost worker). Async: the
# job carries on. A hung worker (SIGSTOP) is dropped after --sync-timeout.
# Synchronised on the worker's progress lines, not on sleeps.
. "$top_srcdir/tests/cli/lib.sh"
require_long
. "$top_srcdir/tests/cli/t6-dist-lib.sh"

# run_and_kill [-STOP] MODEFLAGS: starts the job, kills (or stops) the
# worker once it has logged progress, waits for the others. For a kill the
# chief is frozen (SIGSTOP) first and thawed only once the PS has logged the
# loss: with one of its two tasks stopped the job cannot reach its last step
# in the meantime, however late the progress line was noticed on a loaded
# machine. The steps leave room for that notice to come late, too.
run_and_kill() {
	sig=-9
	if [ "$1" = -STOP ]; then sig=-STOP; shift; fi
	make_cluster "$TMPD/cluster.json" 1 1
	common="--cluster $TMPD/cluster.json --model mlp --steps 2000 --threads 1 --log-seconds 0.2 $JOB $*"
	start ps --role ps $common
	start chief --role chief $common --json
	start worker --role worker --index 0 $common
	if wait_line "$TMPD/worker.log" 'worker:0: (global )?step [0-9]+, ' 60; then
		[ $sig = -9 ] && kill -STOP "$(pid_of chief)"
		kill $sig "$(pid_of worker)"
		ok "worker killed ($sig) mid-run ($*)"
	else
		not_ok "worker never reported progress ($*)"; sed 's/^/#   /' "$TMPD/worker.log" | tail -5
	fi
	if [ $sig = -9 ]; then
		wait_exit worker 10
		wait_line "$TMPD/ps.log" 'worker:0 lost at step' 30 ||
			sed 's/^/#   ps: /' "$TMPD/ps.log" | tail -5
		kill -CONT "$(pid_of chief)"
	fi
	wait_exit chief 120
	wait_exit ps 30
	[ $sig = -9 ] || { kill -9 "$(pid_of worker)"; wait_exit worker 10; }
}

run_and_kill --sync
expect_rc chief 0 "sync, continue: the chief completes the job"
expect_rc ps 0 "sync, continue: the PS shuts down cleanly"
expect_grep 'worker:0 lost at step [0-9]+; continuing with 1 of 2 workers' "$TMPD/ps.log" \
	"sync, continue: the PS logs the loss and carries on with the survivor"
py_check "sync, continue: summary counts the lost worker and the short rounds" \
	'j["workers_lost"] == 1 and j["rounds_short"] > 0 and j["global_step"] == 2000' "$TMPD/chief.out"

run_and_kill --sync --on-worker-loss fail
expect_rc chief 1 "sync, fail: the chief exits 1"
expect_rc ps 1 "sync, fail: the PS exits 1"
expect_grep 'worker:0 lost at step [0-9]+ \(--on-worker-loss fail\)' "$TMPD/chief.log" \
	"sync, fail: the chief says which worker was lost"
expect_grep 'job failed: worker:0 lost' "$TMPD/ps.log" "sync, fail: the PS says why the job failed"

run_and_kill --async
expect_rc chief 0 "async: the chief completes the job"
expect_rc ps 0 "async: the PS shuts down cleanly"
expect_grep 'worker:0 lost at step [0-9]+; continuing' "$TMPD/ps.log" "async: the PS logs the loss"
# a hung worker: the round waits --sync-timeout, then drops it and goes on
run_and_kill -STOP --sync --sync-timeout 1
expect_rc chief 0 "sync, hung worker: the chief completes the job"
expect_rc ps 0 "sync, hung worker: the PS shuts down cleanly"
expect_grep 'sync round incomplete after 1 s; dropping the laggards' "$TMPD/ps.log" \
	"sync, hung worker: the PS gives up waiting after --sync-timeout"
expect_grep 'worker:0\): no gradient within --sync-timeout' "$TMPD/ps.log" \
	"sync, hung worker: the PS says which worker it dropped"
done_testing
