#!/bin/sh
# t5003: PyTorch cross-check. torch_reference_dump.py (a copy of the shared
# reference) dumps its initial weights and one batch; imc-train's first step
# on them must give the same loss, per-tensor gradient norms and updated
# parameter norms within 1e-4 relative, for mlp and cnn, 1 and 2 threads.
. "$top_srcdir/tests/cli/lib.sh"
require_long
PYT=/usr/bin/python3
HELPER="$top_builddir/tests/trainer/torch-step"
[ -x "$HELPER" ] || skip_all "tests/trainer/torch-step not built"
"$PYT" -c 'import torch, numpy' 2>/dev/null || skip_all "$PYT cannot import torch (apt-get install python3-torch)"
DUMP="$top_srcdir/tests/trainer/torch_reference_dump.py"

for model in mlp cnn; do
	expect_exit 0 "torch dumps the first $model step" -- "$PYT" "$DUMP" --model "$model" --synthetic --seed 3 --dump-first-step "$TMPD/$model"
	for threads in 1 2; do
		expect_exit 0 "imc-train's first $model step matches PyTorch ($threads threads)" -- "$HELPER" "$model" "$TMPD/$model" 1e-4 "$threads"
		sed 's/^/#   /' "$TMPD/out"
	done
done
if [ -r /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
	expect_exit 0 "torch dumps a real Fashion-MNIST batch" -- "$PYT" "$DUMP" --model cnn --seed 1 --dump-first-step "$TMPD/real"
	expect_exit 0 "imc-train matches PyTorch on it" -- "$HELPER" cnn "$TMPD/real" 1e-4 2
fi
done_testing
