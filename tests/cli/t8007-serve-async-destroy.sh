#!/bin/sh
# t8007: DELETE /infrastructures/ID?async=yes (IM's REST.rst): answered 200
# with an empty body, the destroy goes on after the answer: the
# infrastructure is then deleted (404, "Deleted infrastructure"), the
# dummy cloud's VMs destroyed, and no auth file is left, neither its nor
# the request's. A wrong async value is IM's 400; another user's
# infrastructure is 403 with async too.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8007\ntype = dummy'
BOB='type = InfrastructureManager; username = bob; password = bob-Pw-8007\ntype = dummy'
IMC_DUMMY_LOG="$TMPD/dummy.log"
export IMC_DUMMY_LOG

serve_start s1
req() {
	_n=$1 _m=$2 _p=$3
	shift 3
	curl -sS -o "$TMPD/$_n.body" -w '%{http_code}' -X "$_m" "$@" "$URL$_p" >"$TMPD/$_n.code" 2>"$TMPD/$_n.err" ||
		echo 000 >"$TMPD/$_n.code"
}
req c POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$R/t2-cluster.radl"
ID=$(sed 's|.*/||' "$TMPD/c.body")
[ "$(cat "$TMPD/c.code")" = 200 ] && ok "created $ID" || not_ok "create: $(cat "$TMPD/c.code") $(cat "$TMPD/c.body")"
req bad DELETE "/infrastructures/$ID?async=perhaps" -H "Authorization: $ALICE"
[ "$(cat "$TMPD/bad.code")" = 400 ] && ok "async=perhaps: 400" || not_ok "bad async: $(cat "$TMPD/bad.code")"
req bob DELETE "/infrastructures/$ID?async=yes" -H "Authorization: $BOB"
[ "$(cat "$TMPD/bob.code")" = 403 ] && ok "another user's, async: 403" || not_ok "bob: $(cat "$TMPD/bob.code")"
req d DELETE "/infrastructures/$ID?async=yes" -H "Authorization: $ALICE"
[ "$(cat "$TMPD/d.code")" = 200 ] && [ ! -s "$TMPD/d.body" ] && ok "async destroy: 200, empty body" ||
	not_ok "async destroy: $(cat "$TMPD/d.code") $(cat "$TMPD/d.body")"
deadline=$(($(date +%s) + 60))
while :; do
	req st GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
	[ "$(cat "$TMPD/st.code")" = 404 ] && break
	[ "$(date +%s)" -lt "$deadline" ] || break
	sleep 0.1 # polling the state until the destroy is done, as IM's client does
done
[ "$(cat "$TMPD/st.code")" = 404 ] && grep -q 'Deleted infrastructure' "$TMPD/st.body" &&
	ok "the destroy went on after the answer: deleted" || not_ok "state: $(cat "$TMPD/st.code") $(cat "$TMPD/st.body")"
[ "$(grep -c '^vm_destroy ' "$IMC_DUMMY_LOG")" = 3 ] && ok "the three VMs were destroyed on the cloud" ||
	not_ok "dummy log: $(cat "$IMC_DUMMY_LOG")"
serve_stop
[ -z "$(ls "$IMC_HOME/serve")" ] && ok "no auth file is left" || not_ok "serve: $(ls "$IMC_HOME/serve")"
done_testing
