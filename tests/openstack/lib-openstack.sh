# tests/openstack/lib-openstack.sh: starts the local fake OpenStack
# (tests/openstack/openstack-fake.py) for tests/cli/t71* and t3006 (sourced
# after tests/cli/lib.sh). The credentials are planted fakes; tests grep
# for them in every output. Delays of the backend are scaled to zero.
OS_VEC="$top_srcdir/tests/vectors/openstack"
[ -d "$OS_VEC" ] || skip_all "$OS_VEC absent"
PY=${PYTHON3:-python3}
"$PY" -c 'import http.server, json' 2>/dev/null || skip_all "python3 absent"
CLOUD_DRIVE="$top_builddir/tests/helper/cloud-drive"
[ -x "$CLOUD_DRIVE" ] || skip_all "tests/helper/cloud-drive not built"
OS_USER=imc-tester
OS_PASS='pLaNtEd-OpenStack/Pass+word=0123456789'
OS_PROJECT=imc-project
OS_INFRA=7e57e57e-0000-4000-8000-0000000057a1
OS_PUBKEY='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGZha2Uta2V5LWZvci1pbWMtb3N0LXRlc3Rz imc-test'
# the recorded Glance list's first image
OS_IMAGE_ID=1bea47ed-f6a9-463b-b423-14b9cca9ad27
OS_IMG="ost://127.0.0.1/$OS_IMAGE_ID"
export IMC_OPENSTACK_TIME_SCALE=0
OS_PID=
at_exit stop_fake

# start_fake [fake options...]: sets OS_PORT, OS_LOG, OS_STATE, OS_AUTH
start_fake() {
	stop_fake
	OS_LOG="$TMPD/os.log"; OS_STATE="$TMPD/os.state"
	rm -f "$OS_LOG" "$TMPD/os.fifo"
	mkfifo "$TMPD/os.fifo"
	"$PY" "$top_srcdir/tests/openstack/openstack-fake.py" --vectors "$OS_VEC" --log "$OS_LOG" \
		--state "$OS_STATE" --user "$OS_USER" --password "$OS_PASS" --project "$OS_PROJECT" \
		"$@" >"$TMPD/os.fifo" 2>"$TMPD/os.err" &
	OS_PID=$!
	read -r OS_PORT <"$TMPD/os.fifo"
	[ -n "$OS_PORT" ] || { cat "$TMPD/os.err"; echo "not ok - the fake OpenStack did not start"; exit 1; }
	OS_AUTH="type = OpenStack; host = http://127.0.0.1:$OS_PORT/identity; username = $OS_USER; password = $OS_PASS; tenant = $OS_PROJECT; domain = Default; auth_version = 3.x_password; service_region = RegionOne"
	: >"$OS_LOG"
}
stop_fake() {
	if [ -n "$OS_PID" ]; then kill "$OS_PID" 2>/dev/null; wait "$OS_PID" 2>/dev/null; OS_PID=; fi
}
# os_drive [-a AUTHLINE] ARGS...: the helper on the openstack backend;
# output in $DOUT, $DERR, status in $DRC
DOUT="$TMPD/drv.out"; DERR="$TMPD/drv.err"
os_drive() {
	a="$OS_AUTH"
	if [ "$1" = -a ]; then a=$2; shift 2; fi
	"$CLOUD_DRIVE" -a "$a" -i "$OS_INFRA" -k "$OS_PUBKEY" -H "$TMPD" "$@" >"$DOUT" 2>"$DERR"
	DRC=$?
	cat "$DOUT" "$DERR" >>"$TMPD/all-output"
}
# drive_ok DESCRIPTION: the last drive exited 0 with nothing on stderr
drive_ok() {
	if [ "$DRC" -eq 0 ] && [ ! -s "$DERR" ]; then ok "$1"; else
		not_ok "$1 (exit $DRC)"; sed 's/^/#   /' "$DERR" | head -10; fi
}
expect_eq() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi; }
# os_count METHOD PATHRE [STATUS]: requests in the fake's log (answered STATUS, or 2xx)
os_count() {
	"$PY" - "$OS_LOG" "$1" "$2" "${3:-}" <<'PYEOF'
import json, re, sys
log, method, pat, status = sys.argv[1:5]
n = 0
for line in open(log):
    e = json.loads(line)
    if e["method"] != method or not re.search(pat, e["path"].split("?")[0]):
        continue
    if (e["status"] == int(status)) if status else (200 <= e["status"] < 300):
        n += 1
print(n)
PYEOF
}
# os_left: "SERVERS/FLOATINGIPS/GROUPS/KEYS" the fake still holds
os_left() {
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])); print("%d/%d/%d/%d" % (len(v["servers"]), len(v["floatingips"]), len(v["security_groups"]), len(v["key_pairs"])))' "$OS_STATE"
}
# os_py EXPR: evaluates EXPR with st (the state) and log (the request list)
os_py() {
	"$PY" -c 'import json, sys
st = json.load(open(sys.argv[1]))
log = [json.loads(l) for l in open(sys.argv[2])]
print(eval(sys.argv[3]))' "$OS_STATE" "$OS_LOG" "$1"
}
# os_seed JSON: resources made as a crashed client would have left them
os_seed() {
	"$PY" -c 'import sys, urllib.request
r = urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%s/imc-test/seed" % sys.argv[1], data=sys.argv[2].encode(), method="POST"))
print(r.read().decode())' "$OS_PORT" "$1"
}
# expect_no_secret DESCRIPTION: neither the password nor a token the fake
# handed out is in any output of the tests so far
expect_no_secret() {
	if grep -qF -- "$OS_PASS" "$TMPD/all-output"; then not_ok "$1: the password is in an output"
	elif "$PY" -c 'import json, sys
out = open(sys.argv[2]).read()
sys.exit(0 if any(t in out for t in json.load(open(sys.argv[1]))["tokens"]) else 1)' "$OS_STATE" "$TMPD/all-output"; then
		not_ok "$1: a token is in an output"
	else ok "$1"; fi
}
