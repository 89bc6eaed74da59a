#!/bin/sh
# t8003: a client of imc serve that goes away in the middle of a create.
# Halfway through its body: nothing is created, nothing is left (no
# infrastructure, no directory, no auth file). Once the create has begun
# (its infrastructure is listed) and before the answer: the create goes
# on to the end, the infrastructure is listed and configured, its auth
# file kept, the request's other files gone, and the server serves on.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8003\ntype = dummy'

IMC_LOG=info
export IMC_LOG
serve_start s1
HOSTPORT=${URL#http://}

# raw MODE: one POST /infrastructures over a socket of our own; MODE half:
# half the body sent, then the socket closed; MODE listed: the whole
# request sent, the socket closed as soon as the infrastructure is listed
raw() {
	"$PYTHON3" - "$HOSTPORT" "$ALICE" "$R/t2-cluster.radl" "$1" <<'PY'
import socket, sys, time, requests
hp, auth, radl, mode = sys.argv[1:5]
host, port = hp.split(":")
body = open(radl, "rb").read()
head = ("POST /infrastructures HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nContent-Type: text/plain\r\n"
        "Content-Length: %d\r\n\r\n" % (hp, auth, len(body))).encode()
s = socket.create_connection((host, int(port)))
if mode == "half":
    s.sendall(head + body[: len(body) // 2])
else:
    s.sendall(head + body)
    deadline = time.time() + 60
    while time.time() < deadline:
        r = requests.get("http://%s/infrastructures" % hp, headers={"Authorization": auth})
        if r.text.strip():
            break
        time.sleep(0.05)  # polling the list for the create's infrastructure
    print(r.text.strip().rsplit("/", 1)[-1])
s.close()
PY
}
list() { curl -sS -H "Authorization: $ALICE" "$URL/infrastructures" | sed 's|.*/||'; }

raw half >"$TMPD/half.out" 2>"$TMPD/half.err" || not_ok "the half client failed: $(cat "$TMPD/half.err")"
curl -sS "$URL/version" >/dev/null && ok "the server serves after a client left halfway through a body" ||
	not_ok "the server does not answer"
[ -z "$(list)" ] && ok "nothing is created from half a body" || not_ok "list after half a body: $(list)"
[ ! -d "$IMC_HOME/infra" ] || [ -z "$(ls "$IMC_HOME/infra")" ] && ok "no infrastructure directory is left" ||
	not_ok "infra dirs: $(ls "$IMC_HOME/infra")"
[ -z "$(ls "$IMC_HOME/serve" 2>/dev/null)" ] && ok "no auth file is left" || not_ok "serve: $(ls "$IMC_HOME/serve")"

raw listed >"$TMPD/listed.out" 2>"$TMPD/listed.err" || not_ok "the listed client failed: $(cat "$TMPD/listed.err")"
ID=$(cat "$TMPD/listed.out")
[ -n "$ID" ] && ok "the create had begun when its client left ($ID)" || not_ok "no infrastructure was listed"
deadline=$(($(date +%s) + 60))
while :; do
	curl -sS -H "Authorization: $ALICE" "$URL/infrastructures/$ID/state" >"$TMPD/st.body"
	grep -q '"state":"configured"' "$TMPD/st.body" && break
	[ "$(date +%s)" -lt "$deadline" ] || break
	sleep 0.2 # polling the state, as IM's client does
done
grep -q '"state":"configured","vm_states":{"0":"configured","1":"configured","2":"configured"}' "$TMPD/st.body" &&
	ok "the create went on to the end: every VM configured" || not_ok "state: $(cat "$TMPD/st.body")"
[ "$(list)" = "$ID" ] && ok "it is listed, alone" || not_ok "list: $(list)"
# the server's log line for the POST is written once its handler is done
deadline=$(($(date +%s) + 60))
while ! grep -q 'POST /infrastructures: 200' "$TMPD/s1.log" && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 0.1 # polling the server's log for the end of the create's request
done
grep -q 'POST /infrastructures: 200' "$TMPD/s1.log" && ok "the server finished the request as answered" ||
	not_ok "no POST line: $(cat "$TMPD/s1.log")"
f=$(sqlite3 "$IMC_HOME/imc.db" "SELECT auth_path FROM infra WHERE id = '$ID'")
[ -f "$f" ] && [ "$(ls "$IMC_HOME/serve" | wc -l)" = 1 ] && ok "its auth file is kept, no other is left" ||
	not_ok "serve: $(ls "$IMC_HOME/serve"), stored '$f'"
[ "$(sqlite3 "$IMC_HOME/imc.db" 'PRAGMA integrity_check')" = ok ] && ok "the store passes SQLite's integrity check" ||
	not_ok "integrity_check failed"
expect_exit 0 "the CLI destroys it" -- "$IMC" destroy "$ID"
done_testing
