#!/bin/sh
# bench/allreduce-vs-ps.sh [STEPS] [MODEL] [auth]: examples/s of the same sync job
# (Fashion-MNIST, global batch 64, 2 workers, one thread each) with a
# parameter server (1 ps + chief + worker) and with the ring all-reduce
# (chief + worker), on this machine's loopback, back to back. Reports the
# summaries' train_examples_per_sec and the median-step figure (global
# batch / median step time, the same definition for both). With 'auth'
# both jobs run on the authenticated wire (--secret, a fresh 0600 file),
# else --insecure. Run from the build directory: IMC_TRAIN defaults to
# ./imc-train.
set -eu
STEPS=${1:-300}
MODEL=${2:-mlp}
WIRE=${3:-insecure}
T=${IMC_TRAIN:-./imc-train}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
ports=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(5)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
printf '{"cluster": {"ps": ["127.0.0.1:%s"], "chief": ["127.0.0.1:%s"], "worker": ["127.0.0.1:%s"]}}\n' "$1" "$2" "$3" >"$D/ps.json"
printf '{"cluster": {"chief": ["127.0.0.1:%s"], "worker": ["127.0.0.1:%s"]}}\n' "$4" "$5" >"$D/ar.json"
case $WIRE in
insecure) wire=--insecure ;;
auth)
	(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$D/secret")
	wire="--secret $D/secret" ;;
*) echo "usage: allreduce-vs-ps.sh [STEPS] [MODEL] [auth]" >&2; exit 64 ;;
esac
args="--model $MODEL --steps $STEPS --batch 64 --global-batch --threads 1 -q $wire"

"$T" --role ps --cluster "$D/ps.json" $args &
p1=$!
"$T" --role worker --index 0 --cluster "$D/ps.json" $args &
p2=$!
"$T" --role chief --cluster "$D/ps.json" $args --json >"$D/ps.out"
wait $p1 $p2

"$T" --role worker --index 0 --strategy allreduce --cluster "$D/ar.json" $args &
p1=$!
"$T" --role chief --strategy allreduce --cluster "$D/ar.json" $args --json >"$D/ar.out"
wait $p1

python3 - "$D/ps.out" "$D/ar.out" "$STEPS" "$MODEL" "$WIRE" <<'PY'
import json, sys
ps, ar = (json.loads(open(f).read().strip().splitlines()[-1]) for f in sys.argv[1:3])
print("sync, %s steps of %s, global batch 64, 2 workers x 1 thread, loopback, %s wire" % (
    sys.argv[3], sys.argv[4], sys.argv[5]))
for name, j in (("ps (1 ps)", ps), ("allreduce", ar)):
    print("  %-10s %8.1f ex/s  (median step: %8.1f ex/s), test acc %.4f" % (
        name, j["train_examples_per_sec"], j["train_examples_per_sec_median_step"], j["test_accuracy"]))
print("  allreduce / ps: %.2f (median step %.2f)" % (
    ar["train_examples_per_sec"] / ps["train_examples_per_sec"],
    ar["train_examples_per_sec_median_step"] / ps["train_examples_per_sec_median_step"]))
PY
