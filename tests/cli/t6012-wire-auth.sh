#!/bin/sh
# t6012: the authenticated wire from the command line. The secret file must
# be the owner's alone; an unauthenticated wire must be asked for; a peer
# without the secret that connects to a ring rank is refused with a line
# naming its address while the real ring forms and trains; ranks holding
# different secrets refuse each other; and the secret appears in no log or
# output, even at -v.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t6-dist-lib.sh"
unset TF_CONFIG

make_ring_cluster "$TMPD/ring.json" 2
small_dataset "$TMPD/data"
train="--data $TMPD/data --model mlp --batch 24 --global-batch --steps 20 --threads 1 --connect-timeout 20"
base="--cluster $TMPD/ring.json --strategy allreduce"

expect_exit 64 "no --secret and no --insecure" -- "$IMC_TRAIN" --role chief $base
expect_grep 'no secret: pass --secret FILE .* or --insecure' "$TMPD/err" "says how to choose"
expect_exit 64 "--secret and --insecure together" -- "$IMC_TRAIN" --role chief $base $JOB --insecure
cp "$TMPD/secret" "$TMPD/open.secret"
chmod 644 "$TMPD/open.secret"
expect_exit 77 "a secret file others may read is refused" -- "$IMC_TRAIN" --role chief $base --secret "$TMPD/open.secret"
expect_grep "accessible to group or others \(mode 0644\): chmod 600 it" "$TMPD/err" "says why and what to do"
printf 'short\n' >"$TMPD/short.secret"
chmod 600 "$TMPD/short.secret"
expect_exit 65 "a secret shorter than 16 bytes" -- "$IMC_TRAIN" --role chief $base --secret "$TMPD/short.secret"
expect_exit 66 "a missing secret file" -- "$IMC_TRAIN" --role chief $base --secret "$TMPD/none"

# an intruder without the secret connects to rank 1 before rank 0 does
start r1 --role worker --index 0 $base $JOB $train -v
wait_line "$TMPD/r1.log" 'waiting for rank 0' 30 || not_ok "rank 1 started"
r1port=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["worker"][0].rsplit(":",1)[1])' "$TMPD/ring.json")
"$PY" - "$r1port" "$TMPD/intruder" <<'PYEOF' &
import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2] + ".port", "w").write("%d\n" % s.getsockname()[1])
s.sendall(os.urandom(32))          # a nonce
r = b""
while len(r) < 64:
    c = s.recv(64 - len(r))
    if not c:
        break
    r += c
s.sendall(os.urandom(32))          # a proof it cannot compute
s.settimeout(30)
try:
    closed = s.recv(1) == b""
except (ConnectionResetError, socket.timeout):
    closed = True
open(sys.argv[2] + ".result", "w").write("closed\n" if closed else "open\n")
PYEOF
intruder=$!
DIST_PIDS="$DIST_PIDS $intruder"
wait_line "$TMPD/intruder.port" '[0-9]' 10 || not_ok "the intruder connected"
start r0 --role chief $base $JOB $train --json -v
wait_exit r0 60
wait_exit r1 60
wait "$intruder"
expect_rc r0 0 "rank 0 exits 0"
expect_rc r1 0 "rank 1 exits 0"
expect_grep "rank 1: refusing connection from 127\.0\.0\.1:$(cat "$TMPD/intruder.port"): it does not hold the job's secret" \
	"$TMPD/r1.log" "rank 1 refuses the intruder, naming its address"
expect_grep closed "$TMPD/intruder.result" "and closes its connection"
expect_grep 'ring formed .*authenticated' "$TMPD/r0.log" "the real ring forms, authenticated"
py_check "and trains" "j['global_step'] == 20" "$TMPD/r0.out"

# two ranks with different secrets refuse each other
umask 077
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMPD/other.secret"
umask 022
start w0 --role chief $base $JOB $train --connect-timeout 10
start w1 --role worker --index 0 $base --secret "$TMPD/other.secret" $train --connect-timeout 10
wait_exit w0 60
wait_exit w1 60
for t in w0 w1; do
	expect_rc $t 77 "$t: a rank with another secret is refused (exit 77)"
	expect_grep 'failed to prove it holds the job.s secret|does not hold the job.s secret' "$TMPD/$t.log" "$t says why"
done

secret=$(cat "$TMPD/secret")
if grep -rqF -- "$secret" "$TMPD"/*.log "$TMPD"/*.out "$TMPD/err" 2>/dev/null; then
	not_ok "the secret appears in a log or an output"
else
	ok "the secret appears in no log or output"
fi
# and the check can fail: the secret is where it should be
grep -qF -- "$secret" "$TMPD/secret" && ok "the search finds it in the secret file" || not_ok "search"
done_testing
