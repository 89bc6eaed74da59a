#!/bin/sh
# t8009: GET /stats of imc serve (IM's REST.rst): the user's
# infrastructures, one row each in IM's keys and order, as {"stats": [...]}
# or CSV (Accept: text/csv) with Python's csv quoting; another user sees
# none of them; init_date/end_date filter by creation day and a malformed
# date is IM's 400; a destroyed infrastructure stays with deleted true and
# the figures it had. GET and POST /oai answer IM's 400 for a server
# without an OAI-PMH repository, without credentials.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8009\nid = dm; type = Dummy; host = https://dummy.example.org:8443/v3'
BOB='type = InfrastructureManager; username = bob; password = bob-Pw-8009\ntype = dummy'

serve_start s1

req na GET /stats
answer na "401 text/plain" "GET /stats needs credentials"
req o GET /oai
answer o "400 text/plain" "GET /oai without credentials"
expect_same "$(cat "$TMPD/o.body")" "OAI-PMH not enabled." "IM's text for a server without OAI-PMH"
req o POST /oai -H 'Accept: application/json'
answer o "400 application/json" "POST /oai, JSON asked"

req e GET /stats -H "Authorization: $ALICE"
answer e "200 application/json" "GET /stats before any infrastructure"
expect_same "$(cat "$TMPD/e.body")" '{"stats":[]}' "no infrastructure: an empty list"

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

KEYS="['creation_date', 'tosca_name', 'vm_count', 'cpu_count', 'memory_size', 'cloud_type', 'cloud_host', 'hybrid', 'deleted', 'im_user', 'inf_id', 'last_date']"
req s GET /stats -H "Authorization: $ALICE"
answer s "200 application/json" "GET /stats"
expect_same "$(jget s "len(d['stats'])")" 1 "one row: alice's infrastructure"
expect_same "$(jget s "list(d['stats'][0])")" "$KEYS" "IM's keys in IM's order"
# t2-cluster.radl: front (1 CPU, 512m: 512.0 in IM's M, a float as IM sums
# it) and two wn (1 CPU each), all on the
# auth line 'dm', whose host names the server
expect_same "$(jget s "[d['stats'][0][k] for k in ('vm_count', 'cpu_count', 'memory_size', 'cloud_type', 'cloud_host', 'hybrid', 'deleted', 'im_user', 'inf_id', 'tosca_name')]")" \
	"[3, 3, 512.0, 'Dummy', 'dummy.example.org', False, False, 'alice', '$ID', '']" "the figures of the cluster"
expect_same "$(jget s "d['stats'][0]['creation_date'][:10]")" "$(date +%Y-%m-%d)" "created today, in the server's time zone"
jget s "d['stats'][0]['creation_date'] <= d['stats'][0]['last_date']" | grep -qx True &&
	ok "last_date is not before creation_date" || not_ok "dates: $(cat "$TMPD/s.body")"
# a rejected dummy line (no host) and a different password: bob is another user
req b GET /stats -H "Authorization: $BOB"
expect_same "$(cat "$TMPD/b.body")" '{"stats":[]}' "another user sees none of alice's"

# ---- CSV ----
req v GET /stats -H "Authorization: $ALICE" -H 'Accept: text/csv'
answer v "200 text/csv" "GET /stats as CSV"
expect_same "$(head -1 "$TMPD/v.body")" "$(printf 'creation_date,tosca_name,vm_count,cpu_count,memory_size,cloud_type,cloud_host,hybrid,deleted,im_user,inf_id,last_date\r')" \
	"the header line, CRLF-terminated as Python's csv writes it"
"$PYTHON3" - "$TMPD/v.body" "$TMPD/s.body" >"$TMPD/csv.out" 2>&1 <<'EOF'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
js = json.load(open(sys.argv[2]))['stats']
want = [[str(v) for v in r.values()] for r in js]
sys.exit(0 if rows[1:] == want else "csv %r\njson %r" % (rows[1:], want))
EOF
[ $? = 0 ] && ok "the CSV rows are the JSON rows, True/False as Python prints them" || not_ok "csv: $(cat "$TMPD/csv.out")"
req v GET /stats -H "Authorization: $BOB" -H 'Accept: text/csv'
expect_same "$(od -c "$TMPD/v.body" | head -1)" "$(printf '\r\n' | od -c | head -1)" "no rows: an empty header line"

# ---- dates ----
TOMORROW=$(date -d tomorrow +%Y/%m/%d) YESTERDAY=$(date -d yesterday +%Y-%m-%d)
req f GET "/stats?init_date=$TOMORROW" -H "Authorization: $ALICE"
expect_same "$(jget f "len(d['stats'])")" 0 "init_date tomorrow: nothing created since"
req f GET "/stats?init_date=$YESTERDAY" -H "Authorization: $ALICE"
expect_same "$(jget f "len(d['stats'])")" 1 "init_date yesterday (YYYY-MM-dd): the row"
req f GET "/stats?end_date=$YESTERDAY" -H "Authorization: $ALICE"
expect_same "$(jget f "len(d['stats'])")" 0 "end_date yesterday: nothing created before"
req f GET "/stats?init_date=2020/01/01&end_date=$TOMORROW" -H "Authorization: $ALICE"
expect_same "$(jget f "len(d['stats'])")" 1 "both dates around today: the row"
for bad in 2024/13/01 2024/02/30 yesterday 2024/1 2024/01/01x; do
	req f GET "/stats?init_date=$bad" -H "Authorization: $ALICE"
	answer f "400 text/plain" "init_date=$bad"
done
expect_same "$(cat "$TMPD/f.body")" "Incorrect format in init_date parameter: YYYY/MM/dd" "IM's message for a malformed date"
req f GET "/stats?end_date=2024-00-10" -H "Authorization: $ALICE" -H 'Accept: application/json'
expect_same "$(jget f "d['code'], d['message']")" "(400, 'Incorrect format in end_date parameter: YYYY/MM/dd')" "the end_date error as JSON"

# ---- destroyed: still counted ----
req dl DELETE "/infrastructures/$ID" -H "Authorization: $ALICE"
answer dl "200 text/plain" "destroyed"
req s GET /stats -H "Authorization: $ALICE"
expect_same "$(jget s "[d['stats'][0][k] for k in ('vm_count', 'cpu_count', 'memory_size', 'cloud_type', 'cloud_host', 'deleted', 'inf_id')]")" \
	"[3, 3, 512.0, 'Dummy', 'dummy.example.org', True, '$ID']" "a destroyed infrastructure keeps its figures, deleted"
req l GET /infrastructures -H "Authorization: $ALICE"
[ ! -s "$TMPD/l.body" ] && ok "and is no longer listed" || not_ok "still listed: $(cat "$TMPD/l.body")"

# ---- the same with Python requests ----
"$PYTHON3" - "$URL" "$ALICE" "$ID" >"$TMPD/py.out" 2>&1 <<'EOF'
import sys, requests
url, auth, inf = sys.argv[1], sys.argv[2].replace('\\n', '\n'), sys.argv[3]
h = {'Authorization': auth.replace('\n', '\\n'), 'Accept': 'application/json'}
r = requests.get(url + '/stats', headers=h, params={'init_date': '1970/01/01'})
assert r.status_code == 200 and r.headers['Content-Type'] == 'application/json', (r.status_code, r.text)
rows = r.json()['stats']
assert [x['inf_id'] for x in rows] == [inf] and rows[0]['deleted'] is True, rows
r = requests.get(url + '/stats', params={'end_date': 'x'}, headers=h)
assert r.status_code == 400 and r.json()['message'].startswith('Incorrect format in end_date'), r.text
print('ok')
EOF
[ "$(cat "$TMPD/py.out")" = ok ] && ok "Python requests reads the same" || not_ok "requests: $(cat "$TMPD/py.out")"

! grep -q 'alice-Pw-8009' "$TMPD/s1.log" "$TMPD/s1.out" && ok "no password in the server's output" || not_ok "a password was printed"
serve_stop
done_testing
