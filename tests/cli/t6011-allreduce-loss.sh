#!/bin/sh
# t6011: a lost rank ends an all-reduce job cleanly: kill -9 one of four
# ranks and the three others exit 75 naming it (its two neighbours see it
# go, the third hears it from them); a restart with --resume continues from the chief's last
# checkpoint (only the chief has it: the others get it through the ring)
# and ends with the weights single-process training has after the same
# number of steps.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t6-dist-lib.sh"
unset TF_CONFIG

small_dataset "$TMPD/data"
make_ring_cluster "$TMPD/ring.json" 4
train="--data $TMPD/data --model mlp --batch 24 --global-batch --threads 1 --log-seconds 0"
ck="$TMPD/ckpt"
last_ckpt() { sed -n 's/.*checkpoint at step \([0-9]*\) written.*/\1/p' "$TMPD/r0.log" | tail -1; }

start_ring r 4 --cluster "$TMPD/ring.json" $train --steps 1000000 --checkpoint-dir "$ck" --checkpoint-every 40
wait_line "$TMPD/r0.log" 'checkpoint at step [1-9][0-9]* written' 60 || not_ok "no first checkpoint"
kill -9 "$(pid_of r1)"
wait_exit r1 10
wait_exit r0 30
wait_exit r2 30
wait_exit r3 30
expect_rc r0 75 "rank 1 killed: rank 0 (its previous rank) exits 75"
expect_rc r2 75 "rank 1 killed: rank 2 (its next rank) exits 75"
expect_rc r3 75 "rank 1 killed: rank 3 (not a neighbour) exits 75"
expect_grep 'lost rank 1 .*reported by rank [02]' "$TMPD/r3.log" "rank 3 heard it from a neighbour"
for i in 0 2 3; do
	expect_grep 'lost rank 1 \(worker:0 at 127\.0\.0\.1:[0-9]+\).*restart the job with --resume' \
		"$TMPD/r$i.log" "rank $i names the lost rank"
done
s1=$(last_ckpt)
[ -n "$s1" ] && ok "a checkpoint before the loss (step $s1)" || not_ok "a checkpoint before the loss"

final=$((s1 + 30))
start_ring r 4 --cluster "$TMPD/ring.json" $train --steps $final --checkpoint-dir "$ck" --resume
for i in 0 1 2 3; do wait_exit "r$i" 120; done
for i in 0 1 2 3; do expect_rc "r$i" 0 "resumed: rank $i exits 0"; done
r=$(sed -n 's/.*resuming from .* at step \([0-9]*\).*/\1/p' "$TMPD/r0.log" | tail -1)
# >=: rank 0 may have written a newer checkpoint than the one it logged
[ -n "$r" ] && [ "$r" -ge "$s1" ] && ok "resumed from the last checkpoint (step $r)" ||
	{ not_ok "resumed from the last checkpoint ($r vs $s1)"; tail -5 "$TMPD/r0.log" | sed 's/^/#   /'; }
expect_grep "resuming at step $r with rank 0's checkpoint" "$TMPD/r2.log" "rank 2 took rank 0's checkpoint"
py_check "the job ends at step $final" "j['global_step'] == $final" "$TMPD/r0.out"
"$IMC_TRAIN" --local --data "$TMPD/data" --model mlp --batch 24 --threads 1 --steps $final -q \
	--checkpoint-dir "$TMPD/local" >/dev/null 2>&1
if "$PY" "$top_srcdir/tests/cli/t6-ckpt-diff.py" "$TMPD/local/checkpoint.imcckpt" \
	"$ck/checkpoint.imcckpt" 1e-4 >"$TMPD/diff" 2>&1; then
	ok "interrupted and resumed, the weights are --local's ($(cat "$TMPD/diff"))"
else
	not_ok "interrupted and resumed, the weights are --local's"; sed 's/^/#   /' "$TMPD/diff"
fi
done_testing
