#!/bin/sh
# t5001: imc-train's command line: help, version, usage errors, and clear
# errors (naming the file) for missing, truncated or malformed datasets and
# model specs, never a crash.
. "$top_srcdir/tests/cli/lib.sh"
T=${IMC_TRAIN:-$top_builddir/imc-train}

expect_exit 0 "imc-train --help exits 0" -- "$T" --help
expect_grep '^usage: imc-train' "$TMPD/out" "--help prints usage on stdout"
expect_grep '[-]-checkpoint-dir' "$TMPD/out" "--help lists --checkpoint-dir"
expect_exit 0 "imc-train --version exits 0" -- "$T" --version
expect_grep '^imc-train [0-9]+\.[0-9]+' "$TMPD/out" "--version prints the version"
expect_exit 0 "--version with --role" -- "$T" --role worker --version
expect_grep '^imc-train [0-9]+\.[0-9]+' "$TMPD/out" "... prints the version too"
expect_exit 64 "unknown option is a usage error" -- "$T" --local --frobnicate
expect_grep "unknown option '--frobnicate'" "$TMPD/err" "unknown option is named"
expect_exit 64 "bad --batch is a usage error" -- "$T" --local --batch 0
expect_grep "[-]-batch: expected an integer" "$TMPD/err" "bad --batch explained"
expect_exit 64 "bad --lr is a usage error" -- "$T" --lr abc
expect_exit 64 "missing option value is a usage error" -- "$T" --epochs
expect_exit 64 "unknown dataset is a usage error" -- "$T" --dataset imagenet
expect_exit 64 "--resume without --checkpoint-dir" -- "$T" --resume
expect_exit 64 "stray argument" -- "$T" --local extra
# the training options mean the same in every mode (one parser)
for mode in --local "--role ps"; do
	expect_exit 64 "$mode: --lr 0 is refused" -- "$T" $mode --lr 0
	expect_grep "[-]-lr: expected a number in \[1e-09, 100\], got '0'" "$TMPD/err" "$mode: --lr's range named"
	expect_exit 64 "$mode: --resume without --checkpoint-dir" -- "$T" $mode --resume
	expect_grep "[-]-resume needs --checkpoint-dir" "$TMPD/err" "$mode: --resume's need named"
done

# datasets: missing, truncated, malformed
mkdir -p "$TMPD/empty" "$TMPD/bad"
expect_exit 66 "missing dataset files" -- "$T" --local --model mlp --data "$TMPD/empty"
expect_grep "train-images-idx3-ubyte\[\.gz\] not found in '$TMPD/empty'" "$TMPD/err" "missing file named"
printf '\000\000\010\003\000\000\000\002\000\000\000\034\000\000\000\034abc' >"$TMPD/bad/train-images-idx3-ubyte"
printf '\000\000\010\001\000\000\000\002\001\002' >"$TMPD/bad/train-labels-idx1-ubyte"
expect_exit 65 "truncated IDX file" -- "$T" --local --model mlp --data "$TMPD/bad"
expect_grep "train-images-idx3-ubyte: truncated: the IDX data needs 1568 bytes, only 3 present" "$TMPD/err" "truncation explained with the file name"
printf 'GIF89a not an idx file at all' >"$TMPD/bad/train-images-idx3-ubyte"
expect_exit 65 "not an IDX file" -- "$T" --local --model mlp --data "$TMPD/bad"
expect_grep "train-images-idx3-ubyte: not an IDX file" "$TMPD/err" "bad magic explained"
rm "$TMPD/bad/train-images-idx3-ubyte"
if command -v gzip >/dev/null; then
	printf '\000\000\010\003\000\000\000\002\000\000\000\034\000\000\000\034' >"$TMPD/hdr"
	head -c 1568 /dev/urandom >>"$TMPD/hdr"
	gzip -c "$TMPD/hdr" | head -c 400 >"$TMPD/bad/train-images-idx3-ubyte.gz"
	expect_exit 65 "truncated gzip IDX file" -- "$T" --local --model mlp --data "$TMPD/bad"
	expect_grep "train-images-idx3-ubyte.gz: (truncated|corrupt)" "$TMPD/err" "truncated gzip explained"
fi
expect_exit 66 "missing CIFAR-10 batches" -- "$T" --local --dataset cifar10 --data "$TMPD/empty"
expect_grep "data_batch_1.bin" "$TMPD/err" "missing CIFAR-10 file named"
head -c 3000 /dev/zero >"$TMPD/bad/data_batch_1.bin"
expect_exit 65 "truncated CIFAR-10 batch" -- "$T" --local --dataset cifar10 --data "$TMPD/bad"
expect_grep "data_batch_1.bin: 3000 bytes is not a whole number" "$TMPD/err" "CIFAR-10 truncation explained"

# model specs
printf 'input 1 28 28\nflatten\ndense 64\nrelu\nsoftmax 10\n' >"$TMPD/bad.spec"
expect_exit 65 "unknown layer in a model spec" -- "$T" --local --model "$TMPD/bad.spec" --data "$TMPD/empty"
expect_grep "bad.spec:5:1: error: unknown layer type 'softmax'" "$TMPD/err" "spec error carries file:line:col"
printf 'input 1 28 28\nconv 8 5 pad x\n' >"$TMPD/bad.spec"
expect_exit 65 "bad number in a model spec" -- "$T" --local --model "$TMPD/bad.spec" --data "$TMPD/empty"
expect_grep "bad.spec:2:14: error: expected an integer" "$TMPD/err" "spec number error located"
expect_exit 66 "missing model spec" -- "$T" --local --model "$TMPD/nope.spec" --data "$TMPD/empty"
printf 'input 1 28 28\nflatten\ndense 65536\nrelu\ndense 65536\ndense 10\n' >"$TMPD/huge.spec"
expect_exit 65 "a model with billions of parameters is refused, not allocated" -- \
	"$T" --local --model "$TMPD/huge.spec" --data "$TMPD/empty"
expect_grep "model '.*huge.spec' has 4347133962 parameters; imc-train takes at most 268435456" \
	"$TMPD/err" "... naming the count and the limit"
# activations: 64x256x256 floats per example at batch 65536 are 1 TiB
printf 'input 3 256 256\nconv 64 3 pad 1\nflatten\ndense 10\n' >"$TMPD/wide.spec"
expect_exit 65 "a model that cannot fit in memory at its batch is refused" -- \
	"$T" --local --model "$TMPD/wide.spec" --batch 65536 --data "$TMPD/empty"
expect_grep "at batch 65536 needs [0-9.]+ GiB .*this machine has" "$TMPD/err" "... saying what it needs"
if [ -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
	printf 'input 3 32 32\nflatten\ndense 10\n' >"$TMPD/cifar.spec"
	expect_exit 64 "a model whose input is not the dataset's" -- "$T" --local --model "$TMPD/cifar.spec" --steps 1
	expect_grep "model '.*cifar.spec' takes 3x32x32 inputs and 10 classes; dataset 'fashion-mnist' has 1x28x28 and 10 classes" \
		"$TMPD/err" "the mismatch names both shapes"
fi
# A TF_CONFIG naming a task selects the distributed role, as in TensorFlow;
# --local overrides it.
expect_exit 65 "TF_CONFIG's task picks the role" -- env TF_CONFIG='{"cluster":{"ps":["127.0.0.1:1"],"chief":["127.0.0.1:2"]},"task":{"type":"bogus","index":0}}' "$T" --steps 1
expect_grep "TF_CONFIG: unknown role 'bogus'" "$TMPD/err" "the role came from TF_CONFIG"
expect_exit 66 "--local ignores TF_CONFIG" -- env TF_CONFIG='{"cluster":{"ps":["127.0.0.1:1"],"chief":["127.0.0.1:2"]},"task":{"type":"bogus","index":0}}' "$T" --local --model "$TMPD/nope.spec" --data "$TMPD/empty"
# without --data each dataset has its own directory: --dataset mnist must
# never read the Fashion-MNIST files, which have the same names
if [ ! -e /usr/share/datasets/mnist ]; then
	expect_exit 66 "--dataset mnist looks in /usr/share/datasets/mnist" -- "$T" --local --dataset mnist --steps 1
	expect_grep "not found in '/usr/share/datasets/mnist'" "$TMPD/err" "... and says so"
fi
done_testing
