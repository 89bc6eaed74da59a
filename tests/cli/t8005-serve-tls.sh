#!/bin/sh
# t8005: imc serve over HTTPS (--tls-cert/--tls-key, libmicrohttpd's
# GnuTLS) with a self-signed certificate made here by openssl: curl and
# Python requests verify it with --cacert; a client that does not trust
# it, or speaks plain HTTP, gets nothing; the URIs answered are https;
# imc --server https://... works with IMC_SERVER_CACERT; a key that is
# missing, unreadable or not the certificate's is refused at start.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
command -v openssl >/dev/null 2>&1 || skip_all "openssl is needed (scripts/install-deps)"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8005\ntype = dummy'

for n in a b; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=127.0.0.1" \
		-addext "subjectAltName=IP:127.0.0.1" -keyout "$TMPD/$n.key" -out "$TMPD/$n.crt" 2>"$TMPD/openssl.err" ||
		{ not_ok "openssl: $(cat "$TMPD/openssl.err")"; exit 1; }
done

expect_exit 64 "--tls-cert without --tls-key" -- "$IMC" serve --port 0 --tls-cert "$TMPD/a.crt"
expect_exit 66 "an unreadable key file" -- "$IMC" serve --port 0 --tls-cert "$TMPD/a.crt" --tls-key "$TMPD/none.key"
expect_exit 69 "a key that is not the certificate's" -- "$IMC" serve --port 0 --tls-cert "$TMPD/a.crt" --tls-key "$TMPD/b.key"
expect_grep 'certificate and key' "$TMPD/err" "and says so"

serve_start s1 --tls-cert "$TMPD/a.crt" --tls-key "$TMPD/a.key"
case $URL in https://127.0.0.1:*) ok "the server listens on $URL" ;; *) not_ok "URL '$URL'" ;; esac
curl -sS --cacert "$TMPD/a.crt" -o "$TMPD/v.body" -w '%{http_code}' "$URL/version" >"$TMPD/v.code" 2>"$TMPD/v.err"
[ "$(cat "$TMPD/v.code")" = 200 ] && grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' "$TMPD/v.body" &&
	ok "GET /version over HTTPS, the certificate verified" || not_ok "version: $(cat "$TMPD/v.code") $(cat "$TMPD/v.err")"
curl -sS -o /dev/null "$URL/version" 2>"$TMPD/nv.err"
[ $? = 60 ] && ok "a client that does not trust the certificate refuses it" || not_ok "no cacert: $(cat "$TMPD/nv.err")"
curl -sS --cacert "$TMPD/b.crt" -o /dev/null "$URL/version" 2>"$TMPD/bv.err"
[ $? = 60 ] && ok "nor does one trusting another certificate" || not_ok "other cacert: $(cat "$TMPD/bv.err")"
curl -sS -o /dev/null -w '%{http_code}' "http://${URL#https://}/version" >"$TMPD/h.code" 2>/dev/null
[ "$(cat "$TMPD/h.code")" != 200 ] && ok "plain HTTP gets no answer from the HTTPS port" || not_ok "plain HTTP answered 200"

curl -sS --cacert "$TMPD/a.crt" -X POST -H "Authorization: $ALICE" -H 'Content-Type: text/plain' \
	--data-binary "@$R/t2-cluster.radl" "$URL/infrastructures" >"$TMPD/c.body"
grep -Eq "^$URL/infrastructures/[0-9a-f-]{36}\$" "$TMPD/c.body" && ok "create over HTTPS answers an https URI" ||
	not_ok "create: $(cat "$TMPD/c.body")"
ID=$(sed 's|.*/||' "$TMPD/c.body")
# IM's synchronous create answers once the VMs exist; their configure
# steps go on after it, followed here in the store the server shares
expect_exit 0 "the infrastructure ends configured" -- "$IMC" wait "$ID" 120
"$PYTHON3" - "$URL" "$ALICE" "$TMPD/a.crt" "$ID" >"$TMPD/py.out" 2>&1 <<'PY'
import sys, requests
url, auth, ca, i = sys.argv[1:5]
r = requests.get(url + "/infrastructures/" + i + "/state", headers={"Authorization": auth}, verify=ca)
print(r.status_code, r.json()["state"]["state"])
try:
    requests.get(url + "/version", verify=True)
    print("unverified")
except requests.exceptions.SSLError:
    print("refused")
PY
[ "$(cat "$TMPD/py.out")" = "200 configured
refused" ] && ok "Python requests: verified with the CA file, refused without" || not_ok "requests: $(cat "$TMPD/py.out")"
printf '%s\n' 'type = InfrastructureManager; username = alice; password = alice-Pw-8005' 'type = dummy' >"$TMPD/alice.dat"
expect_exit 0 "imc --server https://... with IMC_SERVER_CACERT" -- env IMC_SERVER_CACERT="$TMPD/a.crt" \
	"$IMC" --server "$URL" -a "$TMPD/alice.dat" getstate "$ID"
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "prints the state"
expect_exit 69 "imc --server refuses a certificate it does not trust" -- \
	env IMC_SERVER_CACERT="$TMPD/b.crt" "$IMC" --server "$URL" -a "$TMPD/alice.dat" getstate "$ID"
expect_exit 0 "destroy over HTTPS" -- env IMC_SERVER_CACERT="$TMPD/a.crt" "$IMC" --server "$URL" -a "$TMPD/alice.dat" destroy "$ID"
serve_stop
expect_no_grep 'BEGIN' "$TMPD/s1.log" "no key material in the server's log"
done_testing
