#!/bin/sh
# t8001: imc serve, IM's REST API, over loopback on the dummy cloud, with
# curl and with Python requests: each endpoint's status, content type and
# body as IM's REST.rst describes them; missing and wrong credentials;
# another user's infrastructure; malformed RADL; an oversized body; the
# CLI on the same IMC_HOME while the server runs; no password in the
# server's output, the store or the files it writes.
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"
[ -n "${PYTHON3:-}" ] || PYTHON3=python3
command -v curl >/dev/null 2>&1 || skip_all "curl is needed (scripts/install-deps)"
"$PYTHON3" -c 'import requests' 2>/dev/null || skip_all "python3-requests is needed (scripts/install-deps)"

# the server (logging at debug level, so that the secrets check covers
# every line it can log): any free port on loopback, known from its first line once
# its pid file exists; killed by that PID at exit
IMC_LOG=debug "$IMC" serve --bind 127.0.0.1 --port 0 --max-body 65536 --pid-file "$TMPD/serve.pid" \
	>"$TMPD/serve.out" 2>"$TMPD/serve.log" &
SPID=$!
at_exit 'stop_child "$SPID"'
deadline=$(($(date +%s) + 30))
while [ ! -s "$TMPD/serve.pid" ] && kill -0 "$SPID" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 0.1 # polling for the pid file, which the server writes once it listens
done
if [ -s "$TMPD/serve.pid" ] && [ "$(cat "$TMPD/serve.pid")" = "$SPID" ]; then ok "the server listens and writes its pid file"; else
	not_ok "the server did not start"; cat "$TMPD/serve.log"; exit 1
fi
PORT=$(sed -n 's|^imc serve: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMPD/serve.log")
URL="http://127.0.0.1:$PORT"
IMPW='alice-Pw-8001'
ALICE="type = InfrastructureManager; username = alice; password = $IMPW\\ntype = dummy"
BOB='type = InfrastructureManager; username = bob; password = bob-Pw-8001\ntype = dummy'

# req NAME METHOD PATH [CURL ARGS...]: the answer's status and media type in
# $TMPD/NAME.meta ("200 text/plain"), its body in $TMPD/NAME.body
req() {
	_n=$1 _m=$2 _p=$3
	shift 3
	curl -sS -o "$TMPD/$_n.body" -w '%{http_code} %{content_type}\n' -X "$_m" "$@" "$URL$_p" >"$TMPD/$_n.meta" 2>"$TMPD/$_n.err" ||
		echo "000 curl-failed" >"$TMPD/$_n.meta"
}
# answer NAME "STATUS TYPE" DESCRIPTION
answer() {
	if [ "$(cat "$TMPD/$1.meta")" = "$2" ]; then ok "$3: $2"; else
		not_ok "$3: got '$(cat "$TMPD/$1.meta")', want '$2'"; sed 's/^/#   /' "$TMPD/$1.body" | head -5
	fi
}
# body NAME PATTERN DESCRIPTION
body() { expect_grep "$2" "$TMPD/$1.body" "$3"; }
jget() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$TMPD/$1.body" "$2"; }

# wait_configured: GET .../state into st until the infrastructure is
# configured, 60 s at most
wait_configured() {
	_deadline=$(($(date +%s) + 60))
	while :; do
		req st GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
		grep -q '"state":"configured"' "$TMPD/st.body" && break
		[ "$(date +%s)" -lt "$_deadline" ] || break
		sleep 0.2 # polling the state, as IM's client does
	done
}

# ---- version and authentication ----
req v GET /version
answer v "200 text/plain" "GET /version needs no credentials"
body v '^[0-9]+\.[0-9]+\.[0-9]+$' "GET /version is the version"
req v GET /version -H 'Accept: application/json'
[ "$(jget v "sorted(d)")" = "['version']" ] && ok "GET /version as JSON is {\"version\"}" || not_ok "GET /version JSON: $(cat "$TMPD/v.body")"

req na GET /infrastructures
answer na "401 text/plain" "no Authorization header"
body na '^No authentication data provided$' "IM's 401 text"
req na GET /infrastructures -H 'Accept: application/json'
answer na "401 application/json" "no Authorization header, JSON asked"
[ "$(jget na "d['code'], d['message']")" = "(401, 'No authentication data provided')" ] &&
	ok "the JSON error is {\"message\", \"code\"}" || not_ok "JSON error body: $(cat "$TMPD/na.body")"
req na GET /infrastructures -H 'Accept: text/html'
answer na "401 text/html" "no Authorization header, HTML asked"
req noim GET /infrastructures -H 'Authorization: type = dummy'
answer noim "401 text/plain" "credentials without an InfrastructureManager line"
req nopw GET /infrastructures -H 'Authorization: type = InfrastructureManager; username = alice\ntype = dummy'
answer nopw "401 text/plain" "an InfrastructureManager line without password"
req bad GET /infrastructures -H 'Authorization: type = InfrastructureManager; username = alice; password = x; password = y'
answer bad "401 text/plain" "an unreadable auth line"
req bearer GET /infrastructures -H 'Authorization: Bearer abc.def.ghi'
answer bearer "401 text/plain" "a bearer token (OIDC: not supported)"
echo 'type = InfrastructureManager; username = mallory; password = fromafile' >"$TMPD/stolen"
req file GET /infrastructures -H "Authorization: type = InfrastructureManager; username = m; password = file($TMPD/stolen)"
answer file "401 text/plain" "a file() value (would read the server's files)"
expect_no_grep 'fromafile' "$TMPD/file.body" "the file named is not read back"

# ---- create, list ----
req l0 GET /infrastructures -H "Authorization: $ALICE"
answer l0 "200 text/uri-list" "GET /infrastructures with no infrastructure"
[ ! -s "$TMPD/l0.body" ] && ok "the empty list is an empty body" || not_ok "empty list: $(cat "$TMPD/l0.body")"

printf 'system front (\n  cpu.count >= 1 and\n  disk.0.image.url = "dummy://"\n)\ndeploy front 1 nowhere\n' >"$TMPD/broken.radl"
req bad POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$TMPD/broken.radl"
answer bad "400 text/plain" "POST /infrastructures with malformed RADL"
body bad '^Error Creating Inf\.: ' "the 400 says what failed, as IM"
body bad 'body:[0-9]+:[0-9]+: ' "and where in the body"
head -c 70000 /dev/zero | tr '\0' '#' >"$TMPD/big.radl"
req big POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$TMPD/big.radl"
answer big "413 text/plain" "a body over --max-body"
head -c 70000 /dev/zero | tr '\0' 'x' >"$TMPD/bighdr"
req bighdr GET /version -H "X-Padding: $(cat "$TMPD/bighdr")"
[ "$(cut -d' ' -f1 "$TMPD/bighdr.meta")" = 431 ] && ok "request headers over 64 KiB: 431" || not_ok "big header: $(cat "$TMPD/bighdr.meta")"
req v GET /version
answer v "200 text/plain" "the server answers the next request"
req yaml POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/yaml' --data-binary "@$R/t2-cluster.radl"
answer yaml "415 text/plain" "TOSCA (text/yaml) is not supported"
req asy POST '/infrastructures?async=maybe' -H "Authorization: $ALICE" --data-binary "@$R/t2-cluster.radl" -H 'Content-Type: text/plain'
answer asy "400 text/plain" "async must be a flag IM knows"
req l1 GET /infrastructures -H "Authorization: $ALICE"
[ ! -s "$TMPD/l1.body" ] && ok "nothing was created by the refused requests" || not_ok "list after refusals: $(cat "$TMPD/l1.body")"

# a RADL with a password in it: the server masks it wherever it answers
sed 's|^    disk.0.image.url = .dummy://ok.$|    disk.0.image.url = '"'"'dummy://ok'"'"' and\n    disk.0.os.credentials.password = '"'"'radl-Pw-8001'"'"'|' "$R/t2-cluster.radl" >"$TMPD/cluster.radl"
grep -q 'radl-Pw-8001' "$TMPD/cluster.radl" || not_ok "the test RADL has its password"
req c POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$TMPD/cluster.radl"
answer c "200 text/uri-list" "POST /infrastructures (synchronous)"
body c "^$URL/infrastructures/[0-9a-f-]{36}\$" "create answers the new infrastructure's URI"
ID=$(sed 's|.*/||' "$TMPD/c.body")

req l2 GET /infrastructures -H "Authorization: $ALICE"
answer l2 "200 text/uri-list" "GET /infrastructures"
body l2 "^$URL/infrastructures/$ID\$" "the list has the URI"
req l2 GET /infrastructures -H "Authorization: $ALICE" -H 'Accept: application/json'
answer l2 "200 application/json" "GET /infrastructures as JSON"
[ "$(jget l2 "[u['uri'] for u in d['uri-list']]")" = "['$URL/infrastructures/$ID']" ] &&
	ok "the JSON list is {\"uri-list\": [{\"uri\"}]}" || not_ok "JSON list: $(cat "$TMPD/l2.body")"
req l3 GET '/infrastructures?filter=wn-%23N%23' -H "Authorization: $ALICE"
body l3 "$ID" "filter matches the RADL"
req l3 GET '/infrastructures?filter=nosuchword' -H "Authorization: $ALICE"
[ ! -s "$TMPD/l3.body" ] && ok "a filter that matches nothing lists nothing" || not_ok "filter: $(cat "$TMPD/l3.body")"

# ---- properties of the infrastructure ----
wait_configured
answer st "200 application/json" "GET /infrastructures/ID/state"
[ "$(jget st "d['state']['state'], sorted(d['state']['vm_states'].items())")" = "('configured', [('0', 'configured'), ('1', 'configured'), ('2', 'configured')])" ] &&
	ok "state is {\"state\": {\"state\", \"vm_states\": {ID: S}}}" || not_ok "state body: $(cat "$TMPD/st.body")"
req cm GET "/infrastructures/$ID/contmsg" -H "Authorization: $ALICE"
answer cm "200 text/plain" "GET /infrastructures/ID/contmsg"
body cm 'VM 2: VM created on cloud .dummy.' "contmsg is the deployment's log"
req cm GET "/infrastructures/$ID/contmsg" -H "Authorization: $ALICE" -H 'Accept: application/json'
answer cm "200 application/json" "contmsg as JSON"
jget cm "d['contmsg']" | grep -q 'VM created' && ok "contmsg JSON is {\"contmsg\"}" || not_ok "contmsg JSON: $(head -c 200 "$TMPD/cm.body")"
req rd GET "/infrastructures/$ID/radl" -H "Authorization: $ALICE"
answer rd "200 text/plain" "GET /infrastructures/ID/radl"
body rd '^deploy wn 2' "radl is the RADL it was created from"
expect_no_grep 'radl-Pw-8001' "$TMPD/rd.body" "radl masks the password written in it"
req rd GET "/infrastructures/$ID/radl" -H "Authorization: $ALICE" -H 'Accept: application/json'
jget rd "d['radl']" | grep -q '^deploy front 1' && ok "radl JSON is {\"radl\"}" || not_ok "radl JSON: $(head -c 200 "$TMPD/rd.body")"
req out GET "/infrastructures/$ID/outputs" -H "Authorization: $ALICE"
answer out "200 application/json" "GET /infrastructures/ID/outputs"
[ "$(jget out "d['outputs']")" = "{}" ] && ok "outputs is {\"outputs\": {}} when nothing was fetched" || not_ok "outputs: $(cat "$TMPD/out.body")"
req np GET "/infrastructures/$ID/nosuch" -H "Authorization: $ALICE"
answer np "404 text/plain" "an unknown property"

# ---- VMs ----
req inf GET "/infrastructures/$ID" -H "Authorization: $ALICE"
answer inf "200 text/uri-list" "GET /infrastructures/ID"
[ "$(cat "$TMPD/inf.body")" = "$(printf '%s\n%s\n%s' "$URL/infrastructures/$ID/vms/0" "$URL/infrastructures/$ID/vms/1" "$URL/infrastructures/$ID/vms/2")" ] &&
	ok "the VMs' URIs, one per line" || not_ok "VM URIs: $(cat "$TMPD/inf.body")"
req inf GET "/infrastructures/$ID" -H "Authorization: $ALICE" -H 'Accept: application/json'
[ "$(jget inf "len(d['uri-list'])")" = 3 ] && ok "the VMs' URIs as JSON" || not_ok "VM URIs JSON: $(cat "$TMPD/inf.body")"
req vm GET "/infrastructures/$ID/vms/0" -H "Authorization: $ALICE"
answer vm "200 text/plain" "GET /infrastructures/ID/vms/0"
body vm "provider.type = 'dummy'" "the VM's RADL has its runtime features"
expect_no_grep 'radl-Pw-8001' "$TMPD/vm.body" "the VM's RADL shows no password"
req vm GET "/infrastructures/$ID/vms/0" -H "Authorization: $ALICE" -H 'Accept: application/json'
answer vm "200 application/json" "the VM as RADL-JSON"
[ "$(jget vm "[s['state'] for s in d['radl'] if s['class'] == 'system'][0]")" = configured ] &&
	ok "the VM's RADL-JSON is {\"radl\": [...]}" || not_ok "VM JSON: $(head -c 300 "$TMPD/vm.body")"
req vs GET "/infrastructures/$ID/vms/1/state" -H "Authorization: $ALICE"
answer vs "200 text/plain" "GET .../vms/1/state"
[ "$(cat "$TMPD/vs.body")" = configured ] && ok "the VM's state" || not_ok "VM state: $(cat "$TMPD/vs.body")"
req vip GET "/infrastructures/$ID/vms/0/net_interface.0.ip" -H "Authorization: $ALICE" -H 'Accept: application/json'
[ "$(jget vip "d['net_interface.0.ip'][:3]")" = "10." ] && ok "a VM property as JSON" || not_ok "VM property: $(cat "$TMPD/vip.body")"
req vc GET "/infrastructures/$ID/vms/2/contmsg" -H "Authorization: $ALICE"
answer vc "200 text/plain" "GET .../vms/2/contmsg"
body vc "VM created on cloud 'dummy' .id dummy-[0-9a-f]*-2" "the VM's own log"
req v9 GET "/infrastructures/$ID/vms/9" -H "Authorization: $ALICE"
answer v9 "404 text/plain" "a VM that does not exist"
req vx GET "/infrastructures/$ID/vms/0/nosuch" -H "Authorization: $ALICE"
answer vx "404 text/plain" "a VM property that is not set"

# ---- another user, unknown ids ----
req b GET "/infrastructures/$ID/state" -H "Authorization: $BOB"
answer b "403 text/plain" "another user's infrastructure"
body b 'Access to this infrastructure not granted' "IM's 403 text"
req b DELETE "/infrastructures/$ID" -H "Authorization: $BOB"
answer b "403 text/plain" "another user cannot destroy it"
req b GET /infrastructures -H "Authorization: $BOB"
[ ! -s "$TMPD/b.body" ] && ok "another user's list does not have it" || not_ok "bob's list: $(cat "$TMPD/b.body")"
req b GET "/infrastructures/$ID/vms/0" -H "Authorization: type = InfrastructureManager; username = alice; password = wrong\\ntype = dummy"
answer b "403 text/plain" "the right user with the wrong password"
req u GET /infrastructures/00000000-0000-4000-8000-000000000000/state -H "Authorization: $ALICE"
answer u "404 text/plain" "an unknown infrastructure"
body u 'Invalid infrastructure ID or access not granted' "IM's 404 text"
req u GET /nosuch -H "Authorization: $ALICE"
answer u "404 text/plain" "an unknown resource"
req u PATCH /infrastructures -H "Authorization: $ALICE"
answer u "405 text/plain" "a method the resource does not have"

# ---- the CLI on the same IMC_HOME meanwhile ----
expect_exit 0 "imc list while the server runs" -- "$IMC" list
expect_grep "^  $ID\$" "$TMPD/out" "the CLI sees what the server created"
expect_exit 0 "imc getstate while the server runs" -- "$IMC" getstate "$ID"
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "the CLI reads its state"

# ---- operations ----
req op PUT "/infrastructures/$ID/stop" -H "Authorization: $ALICE"
answer op "200 text/plain" "PUT /infrastructures/ID/stop"
[ ! -s "$TMPD/op.body" ] && ok "an operation done answers an empty body" || not_ok "stop body: $(cat "$TMPD/op.body")"
req st GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
[ "$(jget st "d['state']['state']")" = stopped ] && ok "the infrastructure is stopped" || not_ok "after stop: $(cat "$TMPD/st.body")"
req op PUT "/infrastructures/$ID/vms/1/start" -H "Authorization: $ALICE"
answer op "200 text/plain" "PUT .../vms/1/start"
req op PUT "/infrastructures/$ID/start" -H "Authorization: $ALICE"
answer op "200 text/plain" "PUT /infrastructures/ID/start"
req op PUT "/infrastructures/$ID/vms/2/reboot" -H "Authorization: $ALICE"
answer op "200 text/plain" "PUT .../vms/2/reboot"
req op PUT "/infrastructures/$ID/vms/2/stop" -H "Authorization: $ALICE"
answer op "200 text/plain" "PUT .../vms/2/stop"
req st GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
[ "$(jget st "d['state']['vm_states']['0'], d['state']['vm_states']['2']")" = "('configured', 'stopped')" ] &&
	ok "started VMs are configured again, the stopped one stopped" || not_ok "after start/stop: $(cat "$TMPD/st.body")"
req op PUT "/infrastructures/$ID/vms/7/reboot" -H "Authorization: $ALICE"
answer op "404 text/plain" "an operation on a VM that does not exist"

# ---- add and remove VMs ----
req add POST "/infrastructures/$ID" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$R/t2-add.radl"
answer add "200 text/uri-list" "POST /infrastructures/ID (addresource)"
[ "$(cat "$TMPD/add.body")" = "$URL/infrastructures/$ID/vms/3" ] && ok "addresource answers the new VM's URI" ||
	not_ok "addresource body: $(cat "$TMPD/add.body")"
req add POST "/infrastructures/$ID?context=no" -H "Authorization: $ALICE" -H 'Accept: application/json' -H 'Content-Type: text/plain' --data-binary "@$R/t2-add.radl"
[ "$(jget add "[u['uri'] for u in d['uri-list']]")" = "['$URL/infrastructures/$ID/vms/4']" ] &&
	ok "addresource as JSON, without contextualization" || not_ok "addresource JSON: $(cat "$TMPD/add.body")"
req add POST "/infrastructures/$ID" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary 'deploy nosuchsystem 1'
answer add "400 text/plain" "addresource of a system that does not exist"
req add POST "/infrastructures/$ID" -H "Authorization: $BOB" -H 'Content-Type: text/plain' --data-binary "@$R/t2-add.radl"
answer add "403 text/plain" "another user cannot add to it"
req inf GET "/infrastructures/$ID" -H "Authorization: $ALICE"
[ "$(wc -l <"$TMPD/inf.body")" = 4 ] && ok "the infrastructure has 5 VMs" || not_ok "VMs after addresource: $(cat "$TMPD/inf.body")"
req rm DELETE "/infrastructures/$ID/vms/3,4" -H "Authorization: $ALICE"
answer rm "200 text/plain" "DELETE /infrastructures/ID/vms/3,4 (removeresource)"
req inf GET "/infrastructures/$ID" -H "Authorization: $ALICE"
[ "$(wc -l <"$TMPD/inf.body")" = 2 ] && ok "the infrastructure has 3 VMs again" || not_ok "VMs after removeresource: $(cat "$TMPD/inf.body")"
req rm DELETE "/infrastructures/$ID/vms/3" -H "Authorization: $ALICE"
answer rm "404 text/plain" "removing a VM that is gone"
req rm DELETE "/infrastructures/$ID/vms/2" -H "Authorization: $BOB"
answer rm "403 text/plain" "another user cannot remove a VM"

# ---- alter and reconfigure ----
printf 'system front (\n    cpu.count >= 4 and\n    memory.size >= 2g\n)\n' >"$TMPD/alter.radl"
req al PUT "/infrastructures/$ID/vms/0" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$TMPD/alter.radl"
answer al "200 text/plain" "PUT /infrastructures/ID/vms/0 (alter)"
body al '^ +cpu\.count = 4 and' "alter answers the VM as it is now"
req al GET "/infrastructures/$ID/vms/0/memory.size" -H "Authorization: $ALICE"
[ "$(cat "$TMPD/al.body")" = 2000000000 ] && ok "the new memory.size is stored" || not_ok "memory.size after alter: $(cat "$TMPD/al.body")"
req al PUT "/infrastructures/$ID/vms/9" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$TMPD/alter.radl"
answer al "404 text/plain" "altering a VM that does not exist"
req al PUT "/infrastructures/$ID/vms/0" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary 'system front ('
answer al "400 text/plain" "altering with malformed RADL"
req al PUT "/infrastructures/$ID/vms/0" -H "Authorization: $BOB" -H 'Content-Type: text/plain' --data-binary "@$TMPD/alter.radl"
answer al "403 text/plain" "another user cannot alter a VM"
req op PUT "/infrastructures/$ID/vms/2/start" -H "Authorization: $ALICE"
answer op "200 text/plain" "VM 2 started again"
req rc PUT "/infrastructures/$ID/reconfigure" -H "Authorization: $ALICE"
answer rc "200 text/plain" "PUT /infrastructures/ID/reconfigure without a body"
printf 'configure front (\n@begin\n- hosts: all\n  tasks:\n    - debug: msg="front again"\n@end\n)\n' >"$TMPD/reconf.radl"
req rc PUT "/infrastructures/$ID/reconfigure?vm_list=0" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$TMPD/reconf.radl"
answer rc "200 text/plain" "reconfigure with new configures, on VM 0"
req rd GET "/infrastructures/$ID/radl" -H "Authorization: $ALICE"
body rd 'front again' "the configure was replaced"
req rc PUT "/infrastructures/$ID/reconfigure?vm_list=zero" -H "Authorization: $ALICE"
answer rc "400 text/plain" "reconfigure with a bad vm_list"
req rc PUT "/infrastructures/$ID/reconfigure" -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary 'configure nosuch ('
answer rc "400 text/plain" "reconfigure with malformed RADL"
req rc PUT "/infrastructures/$ID/reconfigure" -H "Authorization: $BOB"
answer rc "403 text/plain" "another user cannot reconfigure"
wait_configured
[ "$(jget st "d['state']['state']")" = configured ] && ok "configured again after reconfigure" || not_ok "after reconfigure: $(cat "$TMPD/st.body")"

# ---- destroy ----
req d DELETE "/infrastructures/$ID" -H "Authorization: $ALICE"
answer d "200 text/plain" "DELETE /infrastructures/ID"
req d GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
answer d "404 text/plain" "a destroyed infrastructure"
body d 'Deleted infrastructure' "IM's text for it"
req d DELETE "/infrastructures/$ID" -H "Authorization: $ALICE"
answer d "404 text/plain" "destroying it again"

# ---- the same with Python requests (RADL-JSON body, async create) ----
"$IMC" radl --json "$R/t2-cluster.radl" >"$TMPD/cluster.json" || not_ok "imc radl --json"
cat >"$TMPD/client.py" <<'PY'
import json, sys, time
import requests
url, alice, bob, radl_json = sys.argv[1:5]
A = {"Authorization": alice}
def check(cond, desc):
    print(("PASS " if cond else "FAIL ") + desc)
r = requests.get(url + "/version")
check(r.status_code == 200 and r.headers["Content-Type"] == "text/plain", "requests: GET /version")
r = requests.get(url + "/infrastructures", headers={"Accept": "application/json"})
check(r.status_code == 401 and r.json() == {"message": "No authentication data provided", "code": 401},
      "requests: 401 as JSON")
r = requests.post(url + "/infrastructures", params={"async": "yes"}, data=open(radl_json, "rb").read(),
                  headers=dict(A, **{"Content-Type": "application/json", "Accept": "application/json"}))
check(r.status_code == 200 and r.headers["Content-Type"] == "application/json", "requests: async create with RADL-JSON")
inf = r.json()["uri"]
check(inf.startswith(url + "/infrastructures/"), "requests: the answer is {\"uri\": URI}")
deadline = time.time() + 60
while time.time() < deadline:
    st = requests.get(inf + "/state", headers=A).json()["state"]
    if st["state"] not in ("pending", "running"):
        break
    time.sleep(0.2)  # polling the state, as IM's client does
check(st["state"] == "configured" and len(st["vm_states"]) == 3, "requests: the async create ends configured")
r = requests.get(inf, headers=dict(A, Accept="application/json"))
check(r.status_code == 200 and len(r.json()["uri-list"]) == 3, "requests: the VMs as JSON")
r = requests.get(inf + "/vms/0/state", headers={"Authorization": bob})
check(r.status_code == 403, "requests: another user gets 403")
r = requests.post(url + "/infrastructures", data=b"system (", headers=dict(A, **{"Content-Type": "text/plain"}))
check(r.status_code == 400 and r.text.startswith("Error Creating Inf.: "), "requests: malformed RADL is 400")
r = requests.post(url + "/infrastructures", data=b"#" * 70000, headers=dict(A, **{"Content-Type": "text/plain"}))
check(r.status_code == 413, "requests: oversized body is 413")
r = requests.delete(inf, headers=A)
check(r.status_code == 200 and r.text == "", "requests: DELETE")
r = requests.get(url + "/infrastructures", headers=dict(A, Accept="application/json"))
check(r.json() == {"uri-list": []}, "requests: the list is empty again")
PY
"$PYTHON3" "$TMPD/client.py" "$URL" "$(printf '%s' "$ALICE")" "$BOB" "$TMPD/cluster.json" >"$TMPD/py.out" 2>&1
while read -r verdict desc; do
	case $verdict in
	PASS) ok "$desc" ;;
	FAIL) not_ok "$desc" ;;
	*) not_ok "python: $verdict $desc" ;;
	esac
done <"$TMPD/py.out"
grep -c '^PASS' "$TMPD/py.out" | grep -qx 11 && ok "every requests check ran" || not_ok "requests checks: $(cat "$TMPD/py.out")"

# ---- secrets: the IM passwords are nowhere the server writes ----
kill "$SPID"
deadline=$(($(date +%s) + 30))
while kill -0 "$SPID" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 0.1 # polling for the server to be gone after SIGTERM
done
kill -0 "$SPID" 2>/dev/null && not_ok "the server outlives SIGTERM" || ok "the server stops on SIGTERM"
[ ! -e "$TMPD/serve.pid" ] && ok "and removes its pid file" || not_ok "the pid file stays"
if grep -rqa -e "$IMPW" -e 'bob-Pw-8001' -e 'radl-Pw-8001' "$IMC_HOME" "$TMPD/serve.log" "$TMPD/serve.out"; then
	not_ok "a password is in the store, the home or the server's output"; grep -rla -e "$IMPW" -e 'bob-Pw-8001' -e 'radl-Pw-8001' "$IMC_HOME" "$TMPD"/serve.*
else ok "no password in the store, the home or the server's output"; fi
"$PYTHON3" - "$IMC_HOME/imc.db" <<'PY' >"$TMPD/owners" || not_ok "reading the owners"
import sqlite3, sys
for (o,) in sqlite3.connect(sys.argv[1]).execute("select owner from infra"):
    print(o)
PY
[ "$(grep -cE '^[0-9a-f]{16}\$[0-9a-f]{64} (alice|bob)$' "$TMPD/owners")" = 2 ] && ok "owners are stored as SALT\$SHA256 USERNAME" ||
	not_ok "owners: $(cat "$TMPD/owners")"
[ "$(sort -u "$TMPD/owners" | wc -l)" = 2 ] && ok "one salt per infrastructure" || not_ok "owners repeat"
# ---- a store of the imc before the owner column (schema 1) is migrated,
# its infrastructures kept, owned by no REST user ----
OLD="$TMPD/old-home"
expect_exit 0 "a CLI create in another home" -- env IMC_HOME="$OLD" "$IMC" create -d "$R/t2-cluster.radl"
OLDID=$(head -1 "$TMPD/out")
"$PYTHON3" - "$OLD/imc.db" <<'PY' || not_ok "making the store schema 1"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("alter table infra drop column summary")
db.execute("alter table infra drop column owner")
db.execute("pragma user_version = 1")
db.commit()
PY
expect_exit 0 "imc list on the schema-1 store" -- env IMC_HOME="$OLD" "$IMC" list
expect_grep "^  $OLDID\$" "$TMPD/out" "its infrastructure is still there"
"$PYTHON3" - "$OLD/imc.db" >"$TMPD/schema" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("pragma user_version").fetchone()[0], [r[1] for r in db.execute("pragma table_info(infra)")][-2:],
      db.execute("select count(*) from infra where owner is null").fetchone()[0])
PY
[ "$(cat "$TMPD/schema")" = "3 ['owner', 'summary'] 1" ] && ok "migrated to schema 3, the owner column added (NULL: the CLI's), then summary" ||
	not_ok "after migration: $(cat "$TMPD/schema")"

# ---- the server's workers are exec'd, not run in the fork of a threaded
# process: a second server whose workers pause once their VMs exist ----
mkdir "$TMPD/pause" && mkfifo "$TMPD/pause/reached" "$TMPD/pause/resume"
rm -f "$TMPD/serve.pid"
IMC_TEST_PAUSE_AT=vms IMC_TEST_PAUSE_DIR="$TMPD/pause" "$IMC" serve --port 0 --pid-file "$TMPD/serve.pid" \
	>"$TMPD/serve2.out" 2>"$TMPD/serve2.log" &
SPID=$!
deadline=$(($(date +%s) + 30))
while [ ! -s "$TMPD/serve.pid" ] && kill -0 "$SPID" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 0.1 # polling for the pid file, which the server writes once it listens
done
URL="http://127.0.0.1:$(sed -n 's|^imc serve: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMPD/serve2.log")"
req c POST '/infrastructures?async=yes' -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$R/t2-cluster.radl"
answer c "200 text/uri-list" "an async create on the second server"
reached=$(timeout 30 cat "$TMPD/pause/reached")
WPID=${reached#vms }
if tr '\0' ' ' <"/proc/$WPID/cmdline" 2>/dev/null | grep -q "deploy-worker $IMC_HOME "; then
	ok "the worker is 'imc deploy-worker', exec'd"; else not_ok "the worker ($reached): $(tr '\0' ' ' <"/proc/$WPID/cmdline" 2>&1)"; fi
# the server blocks SIGINT and SIGTERM in its threads (sigwait); its worker
# must not inherit that, or destroy's SIGTERM would never reach it
blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$WPID/status")
[ -n "$blk" ] && [ $((0x$blk & 0x4002)) = 0 ] && ok "the worker does not inherit the server's blocked SIGINT/SIGTERM" ||
	not_ok "the worker's SigBlk: '$blk'"
timeout 30 sh -c ': >"$1"' sh "$TMPD/pause/resume" || not_ok "the worker did not wait to be resumed"
ID=$(sed 's|.*/||' "$TMPD/c.body")
wait_configured
[ "$(jget st "d['state']['state']")" = configured ] && ok "and it ends the deployment" || not_ok "after resume: $(cat "$TMPD/st.body")"

done_testing
