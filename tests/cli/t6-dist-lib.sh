# tests/cli/t6-dist-lib.sh: helpers for the distributed imc-train tests
# (sourced after lib.sh): free loopback ports, a cluster file, tasks started
# in the background and always killed by PID at exit, and waiting on log
# lines or files (never on fixed sleeps).
DATA=/usr/share/datasets/fashion-mnist
[ -e "$DATA/train-images-idx3-ubyte.gz" ] || [ -e "$DATA/train-images-idx3-ubyte" ] ||
	skip_all "Fashion-MNIST not installed ($DATA; Debian package dataset-fashion-mnist)"
[ -x "$IMC_TRAIN" ] || skip_all "imc-train not built"
command -v "${PYTHON3:-python3}" >/dev/null 2>&1 || skip_all "python3 is needed to pick free ports"
PY=${PYTHON3:-python3}

# The job's secret (imc-train --secret): 0600, as imc makes it. $JOB is
# the option every task of a test's job gets.
umask 077
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMPD/secret"
umask 022
JOB="--secret $TMPD/secret"

DIST_PIDS=""
dist_stop_all() { for p in $DIST_PIDS; do stop_child -KILL "$p"; done; }
at_exit dist_stop_all

# free_ports N: N distinct free TCP ports on 127.0.0.1, one per line.
free_ports() {
	"$PY" -c '
import socket, sys
ss = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ss.append(s)
print("\n".join(str(s.getsockname()[1]) for s in ss))
' "$1"
}

# small_dataset DIR: a 260-example Fashion-MNIST-shaped dataset (train and
# t10k, uncompressed) in DIR, for jobs whose point is not what is learned:
# it loads in milliseconds, where the real one takes seconds, or tens of
# seconds on a loaded machine.
small_dataset() {
	mkdir -p "$1"
	"$PY" - "$1" <<'PYEOF'
import os, random, struct, sys
d, rng = sys.argv[1], random.Random(7)
for prefix, n in (("train", 260), ("t10k", 40)):
    labels = bytes(rng.randrange(10) for _ in range(n))
    pix = bytes(rng.randrange(256) for _ in range(n * 28 * 28))
    with open(os.path.join(d, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">HBBIII", 0, 8, 3, n, 28, 28) + pix)
    with open(os.path.join(d, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">HBBI", 0, 8, 1, n) + labels)
PYEOF
}

# make_cluster FILE NPS NWORKERS: a chief plus NWORKERS workers.
make_cluster() {
	local file=$1 nps=$2 nw=$3
	set -- $(free_ports $((nps + 1 + nw)))
	local ps="" wk="" i
	for i in $(seq 1 "$nps"); do ps="$ps${ps:+, }\"127.0.0.1:$1\""; shift; done
	local chief="\"127.0.0.1:$1\""; shift
	for i in $(seq 1 "$nw"); do wk="$wk${wk:+, }\"127.0.0.1:$1\""; shift; done
	printf '{"cluster": {"ps": [%s], "chief": [%s], "worker": [%s]}}\n' "$ps" "$chief" "$wk" >"$file"
}

# make_ring_cluster FILE N: an all-reduce job's cluster, a chief plus N-1
# workers and no ps.
make_ring_cluster() {
	local file=$1 n=$2 wk="" i
	set -- $(free_ports "$n")
	local chief="\"127.0.0.1:$1\""; shift
	for i in $(seq 2 "$n"); do wk="$wk${wk:+, }\"127.0.0.1:$1\""; shift; done
	printf '{"cluster": {"chief": [%s], "worker": [%s]}}\n' "$chief" "$wk" >"$file"
}

# start_ring PREFIX N ARGS...: the N ranks of an all-reduce job, named
# PREFIX0 (the chief) .. PREFIX(N-1); the chief gets --json, every rank $JOB.
start_ring() {
	local pre=$1 n=$2 i
	shift 2
	start "${pre}0" --role chief --strategy allreduce $JOB "$@" --json
	for i in $(seq 1 $((n - 1))); do
		start "$pre$i" --role worker --index $((i - 1)) --strategy allreduce $JOB "$@"
	done
}

# start NAME ARGS...: runs imc-train ARGS in the background, stderr in
# $TMPD/NAME.log, stdout in $TMPD/NAME.out; its PID in $TMPD/NAME.pid.
start() {
	local name=$1
	shift
	# truncate now: the background job opens them later, and a wait_line
	# must not see the previous run's lines
	: >"$TMPD/$name.out"
	: >"$TMPD/$name.log"
	"$IMC_TRAIN" "$@" >>"$TMPD/$name.out" 2>>"$TMPD/$name.log" &
	echo $! >"$TMPD/$name.pid"
	DIST_PIDS="$DIST_PIDS $!"
}
pid_of() { cat "$TMPD/$1.pid"; }

# wait_exit NAME TIMEOUT: waits for the task; its status in $TMPD/NAME.rc
# (124 when it had to be killed after TIMEOUT seconds).
wait_exit() {
	local name=$1 limit=$2 pid n=0
	pid=$(pid_of "$name")
	while kill -0 "$pid" 2>/dev/null; do
		if [ -n "$(ps -o stat= -p "$pid" 2>/dev/null | grep Z)" ]; then break; fi
		n=$((n + 1))
		if [ $n -gt $((limit * 20)) ]; then
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			echo 124 >"$TMPD/$name.rc"
			return
		fi
		sleep 0.05
	done
	wait "$pid"
	echo $? >"$TMPD/$name.rc"
}
rc_of() { cat "$TMPD/$1.rc"; }

# wait_line FILE PATTERN TIMEOUT: polls until FILE has a line matching
# PATTERN; returns 1 after TIMEOUT seconds.
wait_line() {
	local n=0
	while ! grep -qE -- "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -gt $(($3 * 20)) ] && return 1
		sleep 0.05
	done
	return 0
}

# expect_rc NAME CODE DESCRIPTION
expect_rc() {
	local got
	got=$(rc_of "$1")
	if [ "$got" = "$2" ]; then ok "$3"; else
		not_ok "$3 (exit $got, want $2)"; tail -15 "$TMPD/$1.log" | sed 's/^/#   /'
	fi
}

# json_field FILE KEY: a top-level value of the JSON summary line.
json_field() {
	"$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])[sys.argv[2]])' "$1" "$2"
}
# py_check DESCRIPTION EXPR FILE: EXPR over j (the summary of FILE).
py_check() {
	if "$PY" -c "import json,sys; j=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); sys.exit(0 if ($2) else 1)" "$3"; then
		ok "$1"; else not_ok "$1 ($2 false in $(cat "$3"))"; fi
}
