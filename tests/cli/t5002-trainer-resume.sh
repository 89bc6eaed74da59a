#!/bin/sh
# t5002: imc-train --local on a small generated dataset: training runs and
# reports the reference's summary keys; metrics files are written; and a
# run of N steps equals, bit for bit, N/2 steps + --resume + N/2 steps
# (checkpoints compared byte for byte, for mlp and cnn, 1 and 2 threads).
. "$top_srcdir/tests/cli/lib.sh"
require_long
T=${IMC_TRAIN:-$top_builddir/imc-train}
PY=${PYTHON3:-python3}
command -v "$PY" >/dev/null 2>&1 || skip_all "python3 is needed to generate the test dataset"

D="$TMPD/data"
mkdir -p "$D"
"$PY" - "$D" <<'PYEOF' || skip_all "cannot generate the test dataset"
import struct, sys, random, os
d = sys.argv[1]
rng = random.Random(7)
def write(prefix, n):
    labels = bytes(rng.randrange(10) for _ in range(n))
    pix = bytearray()
    for lab in labels:  # class-dependent blobs so that there is something to learn
        for r in range(28):
            for c in range(28):
                v = 200 if (r // 7 + c // 7) % 4 == lab % 4 and c > lab else rng.randrange(60)
                pix.append(v)
    with open(os.path.join(d, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">HBBIII", 0, 8, 3, n, 28, 28) + bytes(pix))
    with open(os.path.join(d, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">HBBI", 0, 8, 1, n) + labels)
write("train", 260)
write("t10k", 40)
PYEOF

# A summary line with the reference's keys.
expect_exit 0 "mlp trains on the small dataset" -- "$T" --local --model mlp --data "$D" --batch 16 --epochs 2 --threads 1 --json \
	--metrics "$TMPD/m.jsonl" --tensorboard "$TMPD/tb" --log-every 4
cp "$TMPD/out" "$TMPD/summary.json"
if "$PY" - "$TMPD/summary.json" <<'PYEOF'; then ok "summary has torch_reference.py's keys and sane values"; else not_ok "summary keys"; cat "$TMPD/summary.json"; fi
import json, sys
s = json.loads(open(sys.argv[1]).read())
keys = ["model", "params", "batch", "threads", "lr", "momentum", "seed", "steps", "epochs",
        "train_examples_per_sec", "train_examples_per_sec_median_step", "infer_examples_per_sec",
        "infer_examples_per_cpu_sec", "eval_batch", "test_accuracy", "test_loss",
        "epoch_test_accuracy", "train_loss_last_epoch", "diverged", "wall_seconds",
        "data_load_seconds", "train_cpu_util", "train_examples_per_cpu_sec", "peak_rss_mib",
        "torch", "libs"]
missing = [k for k in keys if k not in s]
assert not missing, missing
assert s["model"] == "mlp" and s["params"] == 203530 and s["steps"] == 32 and s["batch"] == 16
assert len(s["epoch_test_accuracy"]) == 2, s["epoch_test_accuracy"]
assert s["diverged"] is False
PYEOF
# The run is deterministic (one process, --threads 1, the default seed 1):
# test accuracy 0.775 (31 of 40) and test loss 0.9893 on each of 20 runs, and
# the same with each OpenBLAS kernel this machine can run (OPENBLAS_CORETYPE
# Haswell, Sandybridge, Prescott). The band allows two test examples and
# rounding noise of another CPU's kernels, not a change in what is learned.
# Across seeds 1-20 the accuracy spreads over 0.525-0.85 (median 0.66),
# and chance is 0.1.
if "$PY" - "$TMPD/summary.json" <<'PYEOF'; then ok "the deterministic run learns what it always learns (accuracy 0.775, loss 0.9893)"; else not_ok "the deterministic run's accuracy and loss"; cat "$TMPD/summary.json"; fi
import json, sys
s = json.loads(open(sys.argv[1]).read())
assert abs(s["test_accuracy"] - 0.775) <= 0.05, s["test_accuracy"]
assert abs(s["epoch_test_accuracy"][0] - 0.525) <= 0.05, s["epoch_test_accuracy"]
assert abs(s["test_loss"] - 0.9893) <= 0.005, s["test_loss"]
PYEOF
expect_grep '"event":"step","step":4,' "$TMPD/m.jsonl" "metrics: step lines"
expect_grep '"event":"eval","step":16,"epoch":1,"test_accuracy":' "$TMPD/m.jsonl" "metrics: per-epoch test accuracy"
if ls "$TMPD"/tb/events.out.tfevents.* >/dev/null 2>&1; then ok "TensorBoard event file written"; else not_ok "TensorBoard event file written"; fi

# Resume: N steps == N/2 + resume + N/2, bitwise.
resume_case() {
	model=$1 threads=$2 n=$3
	half=$((n / 2))
	common="--local --model $model --data $D --batch 16 --epochs 3 --threads $threads --seed 5 -q"
	rm -rf "$TMPD/a" "$TMPD/b"
	expect_exit 0 "$model/$threads: $n steps straight" -- "$T" $common --steps "$n" --checkpoint-dir "$TMPD/a"
	expect_exit 0 "$model/$threads: first $half steps" -- "$T" $common --steps "$half" --checkpoint-dir "$TMPD/b" --checkpoint-every 3
	expect_exit 0 "$model/$threads: resume to $n steps" -- "$T" $common --steps "$n" --checkpoint-dir "$TMPD/b" --resume
	expect_grep "resuming from .* at step $half" "$TMPD/err" "$model/$threads: resumed at step $half"
	if cmp -s "$TMPD/a/checkpoint.imcckpt" "$TMPD/b/checkpoint.imcckpt"; then
		ok "$model/$threads: parameters and momentum bitwise equal after resume"
	else
		not_ok "$model/$threads: parameters and momentum bitwise equal after resume"
	fi
}
resume_case mlp 1 22     # crosses the epoch boundary at step 16
resume_case cnn 1 10
resume_case cnn 2 20

# A different seed cannot resume silently; a corrupt checkpoint is refused.
expect_exit 64 "resume with another seed is refused" -- "$T" --local --model cnn --data "$D" --batch 16 --steps 12 --threads 1 --seed 6 --checkpoint-dir "$TMPD/b" --resume
printf 'garbage' >>"$TMPD/b/checkpoint.imcckpt"
expect_exit 65 "corrupt checkpoint is refused" -- "$T" --local --model cnn --data "$D" --batch 16 --steps 12 --threads 1 --seed 5 --checkpoint-dir "$TMPD/b" --resume
expect_grep "checksum mismatch" "$TMPD/err" "corrupt checkpoint explained"
done_testing
