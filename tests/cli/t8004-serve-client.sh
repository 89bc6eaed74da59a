#!/bin/sh
# t8004: imc --server URL (and IMC_SERVER) against imc serve: create,
# list, getstate, getcontmsg, getvminfo, getvmcontmsg, getradl,
# getoutputs, stopvm/startvm and destroy go over IM's REST API and print
# what the local commands print on the same IMC_HOME; a password with ';'
# and quotes reaches the server intact (the owner check passes); another
# user is refused (77); an unknown id is 66; a command IM's API has not
# is refused, not run on the local store; no password in any output.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"

serve_start s1
printf '%s\n' "type = InfrastructureManager; username = alice; password = \"al;ice'Pw-8004\"" 'type = dummy' >"$TMPD/alice.dat"
printf '%s\n' 'type = InfrastructureManager; username = bob; password = bob-Pw-8004' 'type = dummy' >"$TMPD/bob.dat"
remote() { "$IMC" --server "$URL" -a "$TMPD/alice.dat" "$@"; }

expect_exit 0 "list on the server, nothing yet" -- remote list
expect_grep '^No Infrastructures\.$' "$TMPD/out" "as the local list says it"
expect_exit 0 "create on the server" -- remote create "$R/t2-cluster.radl"
ID=$(head -1 "$TMPD/out")
echo "$ID" | grep -Eq '^[0-9a-f-]{36}$' && ok "create prints the new id first" || not_ok "create: $(cat "$TMPD/out")"
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "then its state"
"$IMC" getstate "$ID" >"$TMPD/local.state" 2>&1
# the local command's contextualization steps are not in IM's API
sed '/^Contextualization steps:$/,$d' "$TMPD/local.state" >"$TMPD/local.state.im"
sed 1d "$TMPD/out" >"$TMPD/create.state"
cmp -s "$TMPD/create.state" "$TMPD/local.state.im" && ok "create's state is the local getstate's" ||
	{ not_ok "create's state differs"; diff "$TMPD/local.state.im" "$TMPD/create.state" | sed 's/^/#   /'; }

# the owner is the user of the whole password: curl, with it quoted as IM's
# clients quote it, reads the infrastructure
curl -sS -o "$TMPD/c.body" -w '%{http_code}' -H "Authorization: type = InfrastructureManager; username = alice; password = \"al;ice'Pw-8004\"\ntype = dummy" \
	"$URL/infrastructures/$ID/state" >"$TMPD/c.code"
[ "$(cat "$TMPD/c.code")" = 200 ] && ok "the password with ';' and a quote reached the server whole" ||
	not_ok "curl as alice: $(cat "$TMPD/c.code") $(cat "$TMPD/c.body")"

# same: NAME ARGS...: the remote and the local command print the same
same() {
	_what=$1
	shift
	remote "$@" >"$TMPD/r.out" 2>"$TMPD/r.err"
	_rrc=$?
	"$IMC" "$@" >"$TMPD/l.out" 2>"$TMPD/l.err"
	sed -i '/^Contextualization steps:$/,$d' "$TMPD/l.out"
	if [ "$_rrc" = 0 ] && cmp -s "$TMPD/r.out" "$TMPD/l.out"; then ok "$_what: as the local command"; else
		not_ok "$_what: exit $_rrc, $(cat "$TMPD/r.err")"
		diff "$TMPD/l.out" "$TMPD/r.out" | sed 's/^/#   /' | head -20
	fi
}
same "list" list
same "getstate" getstate "$ID"
same "getcontmsg" getcontmsg "$ID"
same "getvminfo" getvminfo "$ID" 1
same "getvminfo ATTRIBUTE" getvminfo "$ID" 1 net_interface.0.dns_name
same "getvmcontmsg" getvmcontmsg "$ID" 2
same "getradl" getradl "$ID"
same "getoutputs" getoutputs "$ID"
expect_exit 0 "stopvm on the server" -- remote stopvm "$ID" 1
same "getstate after stopvm" getstate "$ID"
expect_grep '^VM ID: 1 is in state: stopped\.$' "$TMPD/r.out" "the VM is stopped"
expect_exit 0 "startvm through IMC_SERVER" -- env IMC_SERVER="$URL" "$IMC" -a "$TMPD/alice.dat" startvm "$ID" 1
same "getstate after startvm" getstate "$ID"

expect_exit 77 "another user's infrastructure is refused" -- "$IMC" --server "$URL" -a "$TMPD/bob.dat" getstate "$ID"
expect_grep 'Access to this infrastructure not granted' "$TMPD/err" "with IM's message"
expect_exit 66 "an unknown id" -- remote getstate 00000000-0000-0000-0000-000000000000
expect_exit 64 "a command IM's API has not is refused" -- remote wait "$ID"
expect_grep 'cannot run against a server' "$TMPD/err" "and says so"
expect_exit 64 "--server without an auth file" -- "$IMC" --server "$URL" list
expect_exit 69 "a server that does not answer" -- "$IMC" --server http://127.0.0.1:1 -a "$TMPD/alice.dat" list

expect_exit 0 "destroy on the server" -- remote destroy "$ID"
expect_grep '^Infrastructure successfully destroyed$' "$TMPD/out" "as the local destroy says it"
expect_exit 66 "the destroyed infrastructure is gone" -- remote getstate "$ID"
expect_exit 0 "create -d on the server" -- remote create -d "$R/t2-cluster.radl"
[ "$(wc -l <"$TMPD/out")" = 1 ] && ok "create -d prints the id only" || not_ok "create -d: $(cat "$TMPD/out")"
expect_exit 0 "and destroy it" -- remote destroy "$(cat "$TMPD/out")"
serve_stop
expect_no_grep "ice'Pw-8004" "$TMPD/s1.log" "no password in the server's log"
cat "$TMPD"/*.out "$TMPD"/*.err >"$TMPD/all" 2>/dev/null
expect_no_grep "ice'Pw-8004" "$TMPD/all" "no password in any output"
done_testing
