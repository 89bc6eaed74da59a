# tests/ec2/lib-ec2.sh: starts the local EC2 test endpoint for tests/cli/t7*
# (sourced after tests/cli/lib.sh). Keys are planted fakes; tests grep for
# them in every output. Delays of the backend are scaled to zero (no sleeps).
VEC="$top_srcdir/tests/vectors/ec2"
[ -d "$VEC" ] || skip_all "$VEC absent"
PY=${PYTHON3:-python3}
"$PY" -c 'import http.server, xml.etree.ElementTree' 2>/dev/null || skip_all "python3 absent"
CLOUD_DRIVE="$top_builddir/tests/helper/cloud-drive"
[ -x "$CLOUD_DRIVE" ] || skip_all "tests/helper/cloud-drive not built"
AK=AKIDPLANTEDTESTKEY77
SK='pLaNtEd/SeCrEt+Key/0123456789abcdefXYZ'
TOKEN='PlantedSessionToken//FwoGZXIvYXdzEXAMPLEtoken+abc='
INFRA=7e57e57e-0000-4000-8000-00000000ec20
PUBKEY='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGZha2Uta2V5LWZvci1pbWMtZWMyLXRlc3Rz imc-test'
IMG=aws://us-east-1/ami-0abc1234
export IMC_EC2_TIME_SCALE=0
EP_PID=
trap 'stop_endpoint; rm -rf "$TMPD"' EXIT

# start_endpoint [endpoint options...]: sets PORT, EP_LOG, EP_STATE, AUTH
start_endpoint() {
	stop_endpoint
	EP_LOG="$TMPD/ep.log"; EP_STATE="$TMPD/ep.state"
	rm -f "$EP_LOG" "$TMPD/ep.fifo"
	mkfifo "$TMPD/ep.fifo"
	"$PY" "$top_srcdir/tests/ec2/ec2-endpoint.py" --vectors "$VEC" --log "$EP_LOG" \
		--state "$EP_STATE" --access-key "$AK" --secret-key "$SK" "$@" \
		>"$TMPD/ep.fifo" 2>"$TMPD/ep.err" &
	EP_PID=$!
	read -r PORT <"$TMPD/ep.fifo"
	[ -n "$PORT" ] || { cat "$TMPD/ep.err"; echo "not ok - endpoint did not start"; exit 1; }
	AUTH="type = EC2; username = $AK; password = $SK; host = http://127.0.0.1:$PORT"
	: >"$EP_LOG"
}
stop_endpoint() {
	if [ -n "$EP_PID" ]; then kill "$EP_PID" 2>/dev/null; wait "$EP_PID" 2>/dev/null; EP_PID=; fi
}
# drive [-a AUTHLINE] ARGS...: runs the helper on the ec2 backend (the auth
# line's type); output in $DOUT, $DERR, status in $DRC
DOUT="$TMPD/drv.out"; DERR="$TMPD/drv.err"
drive() {
	local a="$AUTH"
	if [ "$1" = -a ]; then a=$2; shift 2; fi
	"$CLOUD_DRIVE" -a "$a" -i "$INFRA" -k "$PUBKEY" -H "$TMPD" "$@" >"$DOUT" 2>"$DERR"
	DRC=$?
}
# drive_ok DESCRIPTION: the last drive exited 0 with nothing on stderr
drive_ok() {
	if [ "$DRC" -eq 0 ] && [ ! -s "$DERR" ]; then ok "$1"; else
		not_ok "$1 (exit $DRC)"; sed 's/^/#   /' "$DERR" | head -10; fi
}
# ep_count ACTION [CODE]: requests of ACTION in the endpoint log (answered CODE, or 200)
ep_count() {
	"$PY" - "$EP_LOG" "$1" "${2:-}" <<'PYEOF'
import json, sys
log, action, code = sys.argv[1:4]
n = 0
for line in open(log):
    e = json.loads(line)
    if e["action"] == action and (e.get("code") == code if code else e["status"] == 200):
        n += 1
print(n)
PYEOF
}
# ep_left FIELD: what the endpoint still holds ("instances", "security_groups", "key_pairs", "launched")
ep_left() {
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(v if isinstance(v,int) else len(v))' "$EP_STATE" "$1"
}
# ep_left3: "INSTANCES/GROUPS/KEYS" still held, in one python run
ep_left3() {
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])); print("%d/%d/%d" % (len(v["instances"]), len(v["security_groups"]), len(v["key_pairs"])))' "$EP_STATE"
}
expect_no_violations() {
	if grep -q '"violations"' "$EP_LOG"; then
		not_ok "every request matches the EC2 model and is correctly signed"
		grep '"violations"' "$EP_LOG" | head -5 | sed 's/^/#   /'
	else
		ok "every request matches the EC2 model and is correctly signed"
	fi
}
expect_eq() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi; }
# ep_seed JSON: creates resources in the endpoint (its /imc-test/seed);
# prints the ids made, as JSON
ep_seed() {
	"$PY" -c 'import sys, urllib.request
r = urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%s/imc-test/seed" % sys.argv[1], data=sys.argv[2].encode(), method="POST"))
print(r.read().decode())' "$PORT" "$1"
}
# ep_inject SPEC: adds an --inject SPEC now (from=N counts from now)
ep_inject() {
	"$PY" -c 'import sys, urllib.request
urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%s/imc-test/inject" % sys.argv[1], data=sys.argv[2].encode(), method="POST"))' "$PORT" "$1"
}
# ep_py EXPR: evaluates EXPR with st (the state) and log (the request list)
ep_py() {
	"$PY" -c 'import json, sys
st = json.load(open(sys.argv[1]))
log = [json.loads(l) for l in open(sys.argv[2])]
print(eval(sys.argv[3]))' "$EP_STATE" "$EP_LOG" "$1"
}
