#!/bin/sh
# t6010: imc-train --strategy allreduce is synchronous SGD on the global
# batch: after K steps the weights (and momentum) of N = 1, 2, 3, 4 ranks on
# loopback equal single-process training (--local) with the same global
# batch, within float tolerance (only the order of the sums differs); the
# comparison itself tells a different run apart. Usage errors first.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t6-dist-lib.sh"
unset TF_CONFIG

expect_exit 64 "an unknown strategy" -- "$IMC_TRAIN" --role chief --strategy gossip
expect_grep "unknown strategy 'gossip' \(ps or allreduce\)" "$TMPD/err" "names the choices"
make_cluster "$TMPD/ps.json" 1 1
expect_exit 65 "allreduce refuses a cluster with ps tasks" -- "$IMC_TRAIN" --role chief --strategy allreduce --cluster "$TMPD/ps.json" $JOB
expect_grep 'lists 1 ps tasks; an all-reduce job has a chief and workers only' "$TMPD/err" "says why"
make_ring_cluster "$TMPD/ring2.json" 2
expect_exit 64 "allreduce has no ps role" -- "$IMC_TRAIN" --role ps --strategy allreduce --cluster "$TMPD/ring2.json" $JOB
expect_exit 65 "the PS strategy needs a ps" -- "$IMC_TRAIN" --role chief --cluster "$TMPD/ring2.json" $JOB
expect_grep 'at least one parameter server \(or run --strategy allreduce\)' "$TMPD/err" "points at allreduce"
expect_exit 64 "allreduce is synchronous" -- "$IMC_TRAIN" --role chief --strategy allreduce --async --cluster "$TMPD/ring2.json" $JOB

small_dataset "$TMPD/data"
K=25 # 260 examples / 24 = 10 steps per epoch: K crosses two epoch ends
train="--data $TMPD/data --model mlp --batch 24 --steps $K --threads 1 --seed 3"
"$IMC_TRAIN" --local $train -q --checkpoint-dir "$TMPD/local" >/dev/null 2>"$TMPD/local.log" ||
	{ not_ok "the single-process run"; cat "$TMPD/local.log"; }
"$IMC_TRAIN" --local $train -q --lr 0.021 --checkpoint-dir "$TMPD/other" >/dev/null 2>&1
if "$PY" "$top_srcdir/tests/cli/t6-ckpt-diff.py" "$TMPD/local/checkpoint.imcckpt" \
	"$TMPD/other/checkpoint.imcckpt" >"$TMPD/diff" 2>&1; then
	not_ok "the comparison tells --lr 0.02 from 0.021 ($(cat "$TMPD/diff"))"
else
	ok "the comparison tells --lr 0.02 from 0.021"
fi

for n in 1 2 3 4; do
	make_ring_cluster "$TMPD/ring$n.json" $n
	start_ring r $n --cluster "$TMPD/ring$n.json" $train --global-batch --checkpoint-dir "$TMPD/ar$n"
	for i in $(seq 0 $((n - 1))); do wait_exit "r$i" 120; done
	for i in $(seq 0 $((n - 1))); do expect_rc "r$i" 0 "$n ranks: rank $i exits 0"; done
	if "$PY" "$top_srcdir/tests/cli/t6-ckpt-diff.py" "$TMPD/local/checkpoint.imcckpt" \
		"$TMPD/ar$n/checkpoint.imcckpt" 1e-5 >"$TMPD/diff" 2>&1; then
		ok "$n ranks: weights equal --local's after $K steps ($(cat "$TMPD/diff"))"
	else
		not_ok "$n ranks: weights equal --local's after $K steps"; sed 's/^/#   /' "$TMPD/diff"
	fi
	py_check "$n ranks: the summary says allreduce, $n workers, global batch 24, step $K" \
		"j['strategy'] == 'allreduce' and j['workers'] == $n and j['global_batch'] == 24 and j['worker_batch'] == 24 // $n and j['global_step'] == $K" \
		"$TMPD/r0.out"
done
# each rank sends 2(N-1)/N of the gradient per step (plus frame headers and
# the loss): 4 ranks, 203530 floats, K steps
py_check "4 ranks: the chief sent 2(N-1)/N of the model per step" \
	"abs(j['bytes_sent'] - $K * 2 * 3 / 4 * 203530 * 4) < 0.01 * $K * 203530 * 4" "$TMPD/r0.out"
# the chief is found from TF_CONFIG as well (rank and size from its worker list)
TF_CONFIG=$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c["task"]={"type":"worker","index":0}; print(json.dumps(c))' "$TMPD/ring2.json")
export TF_CONFIG
start tf1 --strategy allreduce $train --global-batch $JOB
unset TF_CONFIG
start tf0 --role chief --strategy allreduce --cluster "$TMPD/ring2.json" $JOB $train --global-batch --checkpoint-dir "$TMPD/tf"
wait_exit tf0 120
wait_exit tf1 120
expect_rc tf1 0 "a rank placed by TF_CONFIG exits 0"
"$PY" "$top_srcdir/tests/cli/t6-ckpt-diff.py" "$TMPD/local/checkpoint.imcckpt" "$TMPD/tf/checkpoint.imcckpt" 1e-5 >/dev/null &&
	ok "and trains the same model" || not_ok "and trains the same model"
done_testing
