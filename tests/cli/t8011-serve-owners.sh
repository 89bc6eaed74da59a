#!/bin/sh
# t8011: an infrastructure's owners over imc serve (IM's REST.rst): GET
# .../authorization lists their names; POST .../authorization by an owner
# adds a user (IM's server appends unless overwrite is set) or, with
# overwrite=yes, makes that user the only owner; a non-owner gets 403;
# malformed bodies, tokens, another type, a wrong overwrite value and a
# non-JSON body get IM's 400, 401, 415; the store keeps salted hashes and
# names, never a password. Also IM's answers for what imc does not have:
# the tosca property (403) and disk snapshots (400). The change as IM's
# own client sends it (no Content-Type, the auth file's line as JSON) is
# repeated with Python requests.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8011\ntype = dummy'
BOB='type = InfrastructureManager; username = bob; password = bob-Pw-8011\ntype = dummy'
BOB_WRONG='type = InfrastructureManager; username = bob; password = not-Pw-8011\ntype = dummy'
CAROL='type = InfrastructureManager; username = carol; password = carol-Pw-8011\ntype = dummy'

serve_start s1
status() { cut -d' ' -f1 "$TMPD/$1.meta"; }
# owners: the names GET .../authorization answers, as alice unless $1
owners() {
	req ow GET "/infrastructures/$ID/authorization" -H "Authorization: ${1:-$ALICE}"
	cat "$TMPD/ow.body"
}
J='Content-Type: application/json'

req c POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$R/t2-cluster.radl"
ID=$(sed 's|.*/||' "$TMPD/c.body")
answer c "200 text/uri-list" "created $ID"

req a GET "/infrastructures/$ID/authorization" -H "Authorization: $ALICE"
answer a "200 text/plain" "GET .../authorization"
expect_same "$(cat "$TMPD/a.body")" alice "the creator is the only owner"
req a GET "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H 'Accept: application/json'
expect_same "$(cat "$TMPD/a.body")" '{"authorization":["alice"]}' "as JSON: {\"authorization\": [names]}"
req a GET "/infrastructures/$ID/authorization" -H "Authorization: $BOB"
answer a "403 text/plain" "bob may not read alice's owners"

# ---- adding an owner ----
req p POST "/infrastructures/$ID/authorization" -H "Authorization: $BOB" -H "$J" -d '{"username": "bob", "password": "bob-Pw-8011"}'
answer p "403 text/plain" "bob cannot make himself an owner"
req p POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H "$J" -d '{"username": "bob", "password": "bob-Pw-8011"}'
answer p "200 text/plain" "alice adds bob"
expect_same "$(owners)" "$(printf 'alice\nbob')" "alice and bob own it"
req s GET "/infrastructures/$ID/state" -H "Authorization: $BOB"
expect_same "$(status s)" 200 "bob reads its state"
req s GET "/infrastructures/$ID/state" -H "Authorization: $BOB_WRONG"
expect_same "$(status s)" 403 "bob's name with another password is refused"
req l GET /infrastructures -H "Authorization: $BOB"
grep -qx "$URL/infrastructures/$ID" "$TMPD/l.body" && ok "bob's list shows it" || not_ok "bob's list: $(cat "$TMPD/l.body")"
req p POST "/infrastructures/$ID/authorization" -H "Authorization: $BOB" -H "$J" -d '{"type": "InfrastructureManager", "username": "bob", "password": "bob-Pw-8011"}'
answer p "200 text/plain" "bob adds bob again"
expect_same "$(owners)" "$(printf 'alice\nbob')" "an owner already there is not added twice"

# ---- what is refused ----
req e POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H "$J" -d '{"username": "carol"'
answer e "400 text/plain" "a body that is not JSON"
req e POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H "$J" -d '["carol"]'
answer e "400 text/plain" "a body that is no object"
req e POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H "$J" -d '{"token": "eyJhbGciOi"}'
answer e "401 text/plain" "a token"
req e POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H "$J" -d '{"username": "carol"}'
answer e "401 text/plain" "no password"
req e POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H "$J" -d '{"type": "OpenStack", "username": "c", "password": "p"}'
answer e "401 text/plain" "a line of another type"
req e POST "/infrastructures/$ID/authorization" -H "Authorization: $ALICE" -H 'Content-Type: text/yaml' -d 'username: carol'
answer e "415 text/plain" "a YAML body"
req e POST "/infrastructures/$ID/authorization?overwrite=perhaps" -H "Authorization: $ALICE" -H "$J" -d '{"username": "c", "password": "p"}'
answer e "400 text/plain" "overwrite=perhaps"
req e POST "/infrastructures/nonexistent-8011/authorization" -H "Authorization: $ALICE" -H "$J" -d '{"username": "c", "password": "p"}'
answer e "404 text/plain" "an unknown infrastructure"
expect_same "$(owners)" "$(printf 'alice\nbob')" "nothing refused changed the owners"

# ---- overwrite, as IM's client sends it: no Content-Type, the auth line as JSON ----
"$PYTHON3" - "$URL" "$ID" "$BOB" >"$TMPD/py.out" 2>&1 <<'EOF'
import json, sys, requests
url, inf, auth = sys.argv[1], sys.argv[2], sys.argv[3]
line = {"type": "InfrastructureManager", "username": "carol", "password": "carol-Pw-8011"}
r = requests.post("%s/infrastructures/%s/authorization?overwrite=1" % (url, inf),
                  headers={"Authorization": auth}, data=json.dumps(line))
print(r.status_code, repr(r.text))
EOF
expect_same "$(cat "$TMPD/py.out")" "200 ''" "bob makes carol the only owner (overwrite=1, as im_client sends it)"
expect_same "$(owners "$CAROL")" carol "carol is the only owner"
req s GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
expect_same "$(status s)" 403 "alice no longer reaches it"

# ---- IM's answers for what imc does not have ----
req t GET "/infrastructures/$ID/tosca" -H "Authorization: $CAROL"
answer t "403 text/plain" "the tosca property of a RADL infrastructure"
expect_same "$(cat "$TMPD/t.body")" "'tosca' infrastructure property is not valid in this infrastructure" "IM's text"
req sn PUT "/infrastructures/$ID/vms/0/disks/0/snapshot?image_name=img1" -H "Authorization: $CAROL"
answer sn "400 text/plain" "a disk snapshot"
expect_grep "^Error creating snapshot: the dummy cloud of VM 0 cannot make disk snapshots$" "$TMPD/sn.body" "the error says why"
req sn PUT "/infrastructures/$ID/vms/0/disks/0/snapshot?image_name=img1" -H "Authorization: $ALICE"
answer sn "403 text/plain" "a snapshot by a former owner"
req sn PUT "/infrastructures/$ID/vms/9/disks/0/snapshot?image_name=img1" -H "Authorization: $CAROL"
answer sn "404 text/plain" "a snapshot of an unknown VM"

"$PYTHON3" - "$IMC_HOME/imc.db" >"$TMPD/owners" <<'EOF'
import sqlite3, sys
for (o,) in sqlite3.connect(sys.argv[1]).execute("select owner from infra"):
    print(o)
EOF
[ "$(grep -cE '^[0-9a-f]{16}\$[0-9a-f]{64} carol$' "$TMPD/owners")" = 1 ] && ok "the store holds carol's salted hash and name" ||
	not_ok "owners: $(cat "$TMPD/owners")"
if grep -rqa -e 'alice-Pw-8011' -e 'bob-Pw-8011' -e 'carol-Pw-8011' "$IMC_HOME" "$TMPD/s1.log" "$TMPD/s1.out"; then
	not_ok "a password is in the home or the server's output"
else ok "no password in the home or the server's output"; fi

req x DELETE "/infrastructures/$ID" -H "Authorization: $CAROL"
answer x "200 text/plain" "carol destroys it"
serve_stop
done_testing
