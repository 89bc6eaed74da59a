#!/bin/sh
# t8008: export and import over imc serve (IM's REST.rst): GET
# /infrastructures/ID/data answers the record 'imc export' prints, as
# text/plain or {"data": "..."}; another user gets 403; a wrong delete
# value is 400; delete=yes forgets the infrastructure (404 after). PUT
# /infrastructures takes the record back (application/json; another media
# type is 415, a malformed record 400) and answers the new URI: the
# imported infrastructure is the requester's (bob gets 403), lists, and
# reads the same VMs, RADL and state as before the export. Once with curl,
# once more with Python requests; then destroyed. GET /clouds/ID/images and
# .../quotas: IM's 400 naming why (no backend of imc has them).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
[ -n "${PYTHON3:-}" ] || PYTHON3=python3
command -v curl >/dev/null 2>&1 || skip_all "curl is needed (scripts/install-deps)"
"$PYTHON3" -c 'import requests' 2>/dev/null || skip_all "python3-requests is needed (scripts/install-deps)"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8008\ntype = dummy'
BOB='type = InfrastructureManager; username = bob; password = bob-Pw-8008\ntype = dummy'

serve_start s1
# snapshot NAME: what a client reads of $ID (its VM URIs, RADL, state)
snapshot() {
	req s-vms GET "/infrastructures/$ID" -H "Authorization: $ALICE"
	req s-radl GET "/infrastructures/$ID/radl" -H "Authorization: $ALICE"
	req s-state GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
	sed "s|$ID|ID|g" "$TMPD/s-vms.body" "$TMPD/s-radl.body" "$TMPD/s-state.body" >"$TMPD/$1.snap"
}

req c POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$R/t2-cluster.radl"
ID=$(sed 's|.*/||' "$TMPD/c.body")
answer c "200 text/uri-list" "created $ID"
deadline=$(($(date +%s) + 60))
while :; do
	req st GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
	grep -q '"state":"configured"' "$TMPD/st.body" && break
	[ "$(date +%s)" -lt "$deadline" ] || break
	sleep 0.2 # polling the state, as IM's client does
done
grep -q '"state":"configured"' "$TMPD/st.body" && ok "configured" || not_ok "not configured: $(cat "$TMPD/st.body")"
snapshot before

# ---- export ----
req d GET "/infrastructures/$ID/data" -H "Authorization: $ALICE"
answer d "200 text/plain" "GET .../data"
[ "$(jget d "d['kind'], d['format'], d['infrastructure']['id'], len(d['vms'])")" = "('imc-infrastructure', 1, '$ID', 3)" ] &&
	ok "the data is the exported record" || not_ok "data: $(head -c 300 "$TMPD/d.body")"
"$IMC" export "$ID" >"$TMPD/cli.json" 2>"$TMPD/cli.err"
"$PYTHON3" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)' \
	"$TMPD/d.body" "$TMPD/cli.json" && ok "the same record as 'imc export'" || not_ok "differs from imc export"
req dj GET "/infrastructures/$ID/data" -H "Authorization: $ALICE" -H 'Accept: application/json'
answer dj "200 application/json" "GET .../data as JSON"
[ "$(jget dj "sorted(d), json.loads(d['data'])['infrastructure']['id']")" = "(['data'], '$ID')" ] &&
	ok "{\"data\": the record as a string}" || not_ok "JSON data: $(head -c 300 "$TMPD/dj.body")"
req db GET "/infrastructures/$ID/data" -H "Authorization: $BOB"
answer db "403 text/plain" "another user's data"
req dq GET "/infrastructures/$ID/data?delete=perhaps" -H "Authorization: $ALICE"
answer dq "400 text/plain" "delete=perhaps"
req dn GET "/infrastructures/nonexistent-8008/data" -H "Authorization: $ALICE"
answer dn "404 text/plain" "an unknown infrastructure's data"
req dd GET "/infrastructures/$ID/data?delete=yes" -H "Authorization: $ALICE"
answer dd "200 text/plain" "GET .../data?delete=yes"
req gone GET "/infrastructures/$ID" -H "Authorization: $ALICE"
answer gone "404 text/plain" "the exported infrastructure is forgotten"

# ---- import ----
req iy PUT /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/yaml' --data-binary "@$TMPD/dd.body"
answer iy "415 text/plain" "import as text/yaml"
req ib PUT /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: application/json' --data-binary '{"kind": 1'
answer ib "400 text/plain" "import of malformed JSON"
req io PUT /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: application/json' --data-binary '{"format": 1}'
answer io "400 text/plain" "import of a JSON object that is no record"
req is PUT /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: application/json' --data-binary '"{\"format\": 1}"'
answer is "400 text/plain" "import of a JSON string holding no record"
req i PUT /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: application/json' --data-binary "@$TMPD/dd.body"
answer i "200 text/uri-list" "PUT /infrastructures"
[ "$(cat "$TMPD/i.body")" = "$URL/infrastructures/$ID" ] && ok "imported under its id" || not_ok "import: $(cat "$TMPD/i.body")"
req l GET /infrastructures -H "Authorization: $ALICE"
grep -qx "$URL/infrastructures/$ID" "$TMPD/l.body" && ok "the imported infrastructure lists" || not_ok "list: $(cat "$TMPD/l.body")"
snapshot after
cmp -s "$TMPD/before.snap" "$TMPD/after.snap" && ok "the imported infrastructure reads as before" ||
	{ not_ok "read differently after the round trip"; diff "$TMPD/before.snap" "$TMPD/after.snap" | sed 's/^/#   /'; }
req ibob GET "/infrastructures/$ID/state" -H "Authorization: $BOB"
answer ibob "403 text/plain" "the imported infrastructure is not bob's"

# ---- the same round trip with Python requests, the record saved as IM's client saves it ----
ALICE="$ALICE" "$PYTHON3" - "$URL" "$ID" >"$TMPD/py.out" 2>&1 <<'PY'
import json, os, sys, requests
url, iid = sys.argv[1], sys.argv[2]
auth = {"Authorization": os.environ["ALICE"]}
r = requests.get(f"{url}/infrastructures/{iid}/data", params={"delete": "true"},
                 headers=dict(auth, Accept="application/json"))
print("export", r.status_code, r.headers["Content-Type"], json.loads(r.json()["data"])["infrastructure"]["id"])
r2 = requests.get(f"{url}/infrastructures/{iid}/state", headers=auth)
print("gone", r2.status_code)
# as IM's client does it: its export prints json.dumps(data, indent=4),
# which quotes the record once more, and its import PUTs that file's text
# with no Content-Type
r3 = requests.put(f"{url}/infrastructures", data=json.dumps(r.json()["data"], indent=4),
                  headers=dict(auth, Accept="application/json"))
print("import", r3.status_code, r3.headers["Content-Type"], r3.json()["uri"].rsplit("/", 1)[1])
PY
[ "$(cat "$TMPD/py.out")" = "export 200 application/json $ID
gone 404
import 200 application/json $ID" ] && ok "export and import with Python requests" || { not_ok "requests:"; sed 's/^/#   /' "$TMPD/py.out"; }
snapshot again
cmp -s "$TMPD/before.snap" "$TMPD/again.snap" && ok "and it reads as before again" || not_ok "differs after the second round trip"

# ---- clouds: no backend of imc lists images or reads quotas: IM's 400 ----
CLOUD='type = InfrastructureManager; username = alice; password = alice-Pw-8008\nid = one; type = dummy'
req ci GET /clouds/one/images -H "Authorization: $CLOUD"
answer ci "400 text/plain" "GET /clouds/ID/images"
expect_grep "^Error getting cloud images: the dummy cloud 'one' cannot list its images" "$TMPD/ci.body" "images: the error says why"
req cq GET /clouds/one/quotas -H "Authorization: $CLOUD" -H 'Accept: application/json'
answer cq "400 application/json" "GET /clouds/ID/quotas as JSON"
expect_grep "Error getting cloud quotas: the dummy cloud 'one' cannot report its quotas" "$TMPD/cq.body" "quotas: the error says why"
req cu GET /clouds/two/images -H "Authorization: $CLOUD"
answer cu "400 text/plain" "an id the header does not hold"
expect_grep "no cloud with id 'two'" "$TMPD/cu.body" "the error names the id"
req cn GET /clouds/one/images
answer cn "401 text/plain" "clouds without credentials"

req x DELETE "/infrastructures/$ID" -H "Authorization: $ALICE"
answer x "200 text/plain" "the imported infrastructure destroys"
serve_stop
[ -z "$(ls "$IMC_HOME/serve")" ] && ok "no auth file is left" || not_ok "serve: $(ls "$IMC_HOME/serve")"
done_testing
