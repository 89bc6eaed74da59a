#!/bin/sh
# ps_exchange-equivalence.sh: does synchronous data-parallel training with 2
# workers reach the same test accuracy as single-process training after the
# same number of examples? (issue 8; a recorded run, not a test.)
#
#   bench/ps_exchange-equivalence.sh [IMC_TRAIN] [MODEL] [EPOCHS] [SEEDS...]
#   (defaults: ./imc-train, mlp, 1, seeds 1 2 3)
#
# For each seed it runs, on loopback:
#   local   imc-train --local, --batch 64
#   sync-gb 1 PS + chief + 1 worker, --sync --global-batch --batch 64: each
#           worker 32 examples, the PS averages: the same 64-example steps
#   sync    1 PS + chief + 1 worker, --sync --batch 64: 128 examples a step,
#           half the steps, same lr (the default; documented)
# all for EPOCHS epochs (the same examples), and prints test accuracies and
# their mean and standard deviation per configuration.
set -u
T=${1:-./imc-train}
MODEL=${2:-mlp}
EPOCHS=${3:-1}
shift 3 2>/dev/null || shift $#
SEEDS=${*:-1 2 3}
PY=${PYTHON3:-python3}
TMP=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$TMP"' EXIT

ports() { "$PY" -c '
import socket
ss=[socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1",0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'; }
acc() { "$PY" -c 'import json,sys; j=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(j["test_accuracy"], j["steps"], j["wall_seconds"])' "$1"; }

dist() { # SEED EXTRA...
	seed=$1; shift
	set -- $(ports) "$@"
	printf '{"cluster": {"ps": ["127.0.0.1:%s"], "chief": ["127.0.0.1:%s"], "worker": ["127.0.0.1:%s"]}}\n' $1 $2 $3 >"$TMP/c.json"
	shift 3
	common="--cluster $TMP/c.json --model $MODEL --epochs $EPOCHS --seed $seed --threads 1 --log-seconds 0 --insecure $*"
	$T --role ps $common 2>"$TMP/ps.log" & p1=$!
	$T --role worker --index 0 $common 2>"$TMP/w.log" & p2=$!
	PIDS="$p1 $p2"
	$T --role chief $common --json >"$TMP/out" 2>"$TMP/chief.log"
	wait $p2 $p1
	acc "$TMP/out"
}

printf '%-8s %-5s %-8s %-6s %s\n' config seed test_acc steps wall_s
for seed in $SEEDS; do
	$T --local --model $MODEL --epochs $EPOCHS --seed $seed --threads 1 --json >"$TMP/out" 2>/dev/null
	set -- $(acc "$TMP/out"); printf '%-8s %-5s %-8s %-6s %s\n' local $seed $1 $2 $3
	echo "local $1" >>"$TMP/all"
	set -- $(dist $seed --global-batch --batch 64); printf '%-8s %-5s %-8s %-6s %s\n' sync-gb $seed $1 $2 $3
	echo "sync-gb $1" >>"$TMP/all"
	set -- $(dist $seed --batch 64); printf '%-8s %-5s %-8s %-6s %s\n' sync $seed $1 $2 $3
	echo "sync $1" >>"$TMP/all"
done
"$PY" - "$TMP/all" <<'PYEOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    rows.setdefault(k, []).append(float(v))
for k, v in rows.items():
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    print(f"{k:8s} mean test accuracy {statistics.mean(v):.4f} (sd {sd:.4f}, n={len(v)})")
PYEOF
