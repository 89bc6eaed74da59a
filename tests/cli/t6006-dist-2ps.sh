#!/bin/sh
# t6006: parameters sharded across two parameter servers (balanced by size:
# each holds half of the flat vector), the chief and two workers, sync: the
# job learns, every PS applies every step, and all five tasks exit 0.
. "$top_srcdir/tests/cli/lib.sh"
require_long
. "$top_srcdir/tests/cli/t6-dist-lib.sh"

make_cluster "$TMPD/cluster.json" 2 2
common="--cluster $TMPD/cluster.json --model mlp --steps 300 --threads 1"
start ps0 --role ps --index 0 $common
start ps1 --role ps --index 1 $common
start chief --role chief $common --json
start w0 --role worker --index 0 $common
start w1 --role worker --index 1 $common
wait_exit chief 180
for t in w0 w1 ps0 ps1; do wait_exit $t 30; done
for t in chief w0 w1 ps0 ps1; do expect_rc $t 0 "$t exits 0"; done
expect_grep 'shard \[0, \+101765\) of 203530' "$TMPD/ps0.log" "ps:0 holds the first half"
expect_grep 'shard \[101765, \+101765\) of 203530' "$TMPD/ps1.log" "ps:1 holds the second half"
expect_grep 'final: step 300,' "$TMPD/ps0.log" "ps:0 applied 300 steps"
expect_grep 'final: step 300,' "$TMPD/ps1.log" "ps:1 applied 300 steps"
py_check "3 workers, 2 PS, global batch 192, test accuracy >= 0.80" \
	'j["workers"] == 3 and j["ps"] == 2 and j["global_batch"] == 192 and j["test_accuracy"] >= 0.80' "$TMPD/chief.out"
done_testing
