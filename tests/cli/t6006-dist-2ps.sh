#!/bin/sh
# t6006: parameters sharded across two parameter servers (balanced by size:
# each holds half of the flat vector), the chief and two workers, sync: the
# job learns, every PS applies every step, and all five tasks exit 0. Then
# the same cluster asynchronously, where the three workers' pushes overlap
# on both PSes (each applies one at a time, the one arriving first on the
# fly): the job learns and both PSes applied every push (but for those in
# flight at shutdown).
. "$top_srcdir/tests/cli/lib.sh"
require_long
. "$top_srcdir/tests/cli/t6-dist-lib.sh"

# run_job PREFIX ARGS...: the five tasks (PREFIXps0, PREFIXps1, PREFIXchief,
# PREFIXw0, PREFIXw1) with ARGS, until they all exit.
run_job() {
	local p=$1
	shift
	set -- "$@" $JOB
	start "${p}ps0" --role ps --index 0 "$@"
	start "${p}ps1" --role ps --index 1 "$@"
	start "${p}chief" --role chief "$@" --json
	start "${p}w0" --role worker --index 0 "$@"
	start "${p}w1" --role worker --index 1 "$@"
	wait_exit "${p}chief" 180
	for t in w0 w1 ps0 ps1; do wait_exit "$p$t" 30; done
}

make_cluster "$TMPD/cluster.json" 2 2
run_job "" --cluster "$TMPD/cluster.json" --model mlp --steps 300 --threads 1
for t in chief w0 w1 ps0 ps1; do expect_rc $t 0 "$t exits 0"; done
expect_grep 'shard \[0, \+101765\) of 203530' "$TMPD/ps0.log" "ps:0 holds the first half"
expect_grep 'shard \[101765, \+101765\) of 203530' "$TMPD/ps1.log" "ps:1 holds the second half"
expect_grep 'final: step 300,' "$TMPD/ps0.log" "ps:0 applied 300 steps"
expect_grep 'final: step 300,' "$TMPD/ps1.log" "ps:1 applied 300 steps"
# Sync with seed 1 is deterministic up to the order in which three
# gradients are summed: test accuracy 0.8235 on 3 of 3 runs. Seeds 1-20
# spread over 0.8027-0.8235 (median 0.8174), so the old '>= 0.80' sat just
# under the lowest seed; the band for this seed is +-0.005.
py_check "3 workers, 2 PS, global batch 192, test accuracy 0.8235 +- 0.005" \
	'j["workers"] == 3 and j["ps"] == 2 and j["global_batch"] == 192 and abs(j["test_accuracy"] - 0.8235) <= 0.005' "$TMPD/chief.out"

make_cluster "$TMPD/cluster-async.json" 2 2
run_job a --cluster "$TMPD/cluster-async.json" --model mlp --steps 1500 --async --threads 1
for t in achief aw0 aw1 aps0 aps1; do expect_rc $t 0 "async: $t exits 0"; done
# (three workers pushing with staleness ~2 against momentum 0.9 converge
# noisily: over 20 runs of this job on loopback, seeds 1-20, on a loaded
# 2-core machine: min 0.7386, median 0.7760, max 0.8119, mean 0.780, sd
# 0.019. 0.65 is 7 sd below the mean: a failure means it did not learn.)
py_check "async: 3 workers, 2 PS, >= 1500 updates, the job learns (test accuracy >= 0.65)" \
	'j["mode"] == "async" and j["workers"] == 3 and j["ps"] == 2 and j["global_step"] >= 1500 and j["test_accuracy"] >= 0.65' "$TMPD/achief.out"
s0=$(sed -n 's/.*final: step \([0-9]*\),.*/\1/p' "$TMPD/aps0.log")
s1=$(sed -n 's/.*final: step \([0-9]*\),.*/\1/p' "$TMPD/aps1.log")
# every worker pushes to both PSes; only pushes in flight when the chief
# shuts the PSes down (at most one per worker) may reach one and not the other
if [ -n "$s0" ] && [ -n "$s1" ] && [ "$s0" -ge 1497 ] && [ "$s1" -ge 1497 ] &&
   [ $((s0 - s1)) -le 3 ] && [ $((s1 - s0)) -le 3 ]; then
	ok "async: both PSes applied every push ($s0, $s1)"; else not_ok "async: both PSes applied every push ($s0 vs $s1)"; fi
done_testing
