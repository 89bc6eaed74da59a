#!/bin/sh
# t8002: imc serve under load: 50 concurrent clients list the
# infrastructures and read their state and VMs while two creates and a
# destroy run (dummy cloud): no error, no answer out of shape, the store
# intact and the end state exactly what the writes made; the server's
# memory bounded (its peak RSS after a second round of the same reads no
# higher than after the first, give or take); the auth files of the
# requests gone, the creates' kept until their destroy, a leftover swept
# when the server starts.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
LOAD="$top_srcdir/tests/cli/t8002-serve-load.py"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8002\ntype = dummy'

serve_start s1 --max-connections 128
# kib FIELD: a field of the server's /proc status, in KiB
kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$SPID/status"; }

curl -sS -o "$TMPD/x.body" -w '%{http_code}' -X POST -H "Authorization: $ALICE" -H 'Content-Type: text/plain' \
	--data-binary "@$R/t2-cluster.radl" "$URL/infrastructures" >"$TMPD/x.code"
X=$(sed 's|.*/||' "$TMPD/x.body")
[ "$(cat "$TMPD/x.code")" = 200 ] && ok "the infrastructure to destroy under load is created" ||
	not_ok "create X: $(cat "$TMPD/x.code") $(cat "$TMPD/x.body")"
rss0=$(kib VmRSS)

# round 1: readers, two creates and a destroy
"$PYTHON3" "$LOAD" "$URL" "$ALICE" "$R/t2-cluster.radl" "$X" "$TMPD/r1.json" writers 2>"$TMPD/r1.err" ||
	not_ok "the load client failed: $(tail -3 "$TMPD/r1.err")"
hwm1=$(kib VmHWM)
jq() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
n1=$(jq "$TMPD/r1.json" "d['requests']")
[ "$(jq "$TMPD/r1.json" "len(d['errors'])")" = 0 ] && ok "round 1: $n1 reads beside two creates and a destroy, no error" ||
	{ not_ok "round 1 errors"; jq "$TMPD/r1.json" "'\n'.join(d['errors'][:10])" | sed 's/^/#   /'; }
C1=$(jq "$TMPD/r1.json" "d['created'].get('c1', '')")
C2=$(jq "$TMPD/r1.json" "d['created'].get('c2', '')")
[ -n "$C1" ] && [ -n "$C2" ] && [ "$C1" != "$C2" ] && ok "both creates answered their infrastructure" ||
	not_ok "creates: '$C1' '$C2'"
[ "$(jq "$TMPD/r1.json" "len(set(d['seen']) - {'$X', '$C1', '$C2'})")" = 0 ] &&
	ok "the readers listed no infrastructure but X and the two created" || not_ok "seen: $(jq "$TMPD/r1.json" "d['seen']")"

# the end state: exactly the two creates, X deleted, the store intact
curl -sS -H "Authorization: $ALICE" "$URL/infrastructures" | sed 's|.*/||' | sort >"$TMPD/list"
printf '%s\n%s\n' "$C1" "$C2" | sort >"$TMPD/want"
cmp -s "$TMPD/list" "$TMPD/want" && ok "the list is the two created" || not_ok "list: $(cat "$TMPD/list")"
curl -sS -o "$TMPD/xs.body" -w '%{http_code}' -H "Authorization: $ALICE" "$URL/infrastructures/$X/state" >"$TMPD/xs.code"
[ "$(cat "$TMPD/xs.code")" = 404 ] && grep -q 'Deleted infrastructure' "$TMPD/xs.body" &&
	ok "X is destroyed" || not_ok "X: $(cat "$TMPD/xs.code") $(cat "$TMPD/xs.body")"
for id in "$C1" "$C2"; do
	# the synchronous create answered once the VMs existed; their
	# configure steps may still run: followed in the store the server shares
	"$IMC" wait "$id" 120 >/dev/null 2>&1
	curl -sS -H "Authorization: $ALICE" "$URL/infrastructures/$id/state" >"$TMPD/cs.body"
	grep -q '"state":"configured"' "$TMPD/cs.body" && ok "$id is configured" || not_ok "$id: $(cat "$TMPD/cs.body")"
done
[ "$(sqlite3 "$IMC_HOME/imc.db" 'PRAGMA integrity_check')" = ok ] && ok "the store passes SQLite's integrity check" ||
	not_ok "integrity_check: $(sqlite3 "$IMC_HOME/imc.db" 'PRAGMA integrity_check' | head -3)"
expect_exit 0 "the CLI reads a server's infrastructure on the same IMC_HOME" -- "$IMC" getstate "$C1"

# round 2: the same readers, nothing written: the peak RSS stays put
"$PYTHON3" "$LOAD" "$URL" "$ALICE" "$R/t2-cluster.radl" "$X" "$TMPD/r2.json" 2>"$TMPD/r2.err" ||
	not_ok "the load client failed: $(tail -3 "$TMPD/r2.err")"
hwm2=$(kib VmHWM)
n2=$(jq "$TMPD/r2.json" "d['requests']")
[ "$(jq "$TMPD/r2.json" "len(d['errors'])")" = 0 ] && ok "round 2: $n2 reads, no error" ||
	{ not_ok "round 2 errors"; jq "$TMPD/r2.json" "'\n'.join(d['errors'][:10])" | sed 's/^/#   /'; }
echo "# server RSS: ${rss0} KiB idle, peak ${hwm1} KiB after round 1 ($n1 requests), ${hwm2} KiB after round 2 ($n2)"
# 8 MiB: room for the allocator's arenas, not for a leak per request. An
# AddressSanitizer build holds freed memory in its quarantine (up to 256
# MiB) and shadows the rest: its RSS says nothing of the server's, and LSan
# judges its leaks at exit instead
if grep -qa __asan_init "$IMC"; then
	ok "peak RSS not judged in an AddressSanitizer build (${hwm1} -> ${hwm2} KiB)"
else
	[ "$hwm2" -le $((hwm1 + 8192)) ] && ok "a second round does not raise the peak RSS (${hwm1} -> ${hwm2} KiB)" ||
		not_ok "peak RSS grew from ${hwm1} to ${hwm2} KiB over round 2"
	[ "$hwm2" -le 262144 ] && ok "the peak RSS stays under 256 MiB" || not_ok "peak RSS ${hwm2} KiB"
fi

# the auth files: one per live infrastructure, no request's left
ls "$IMC_HOME/serve" >"$TMPD/files"
[ "$(grep -c '^auth-' "$TMPD/files")" = 2 ] && ok "the auth files left are the two live infrastructures'" ||
	not_ok "auth files: $(cat "$TMPD/files")"
for id in "$C1" "$C2"; do
	f=$(sqlite3 "$IMC_HOME/imc.db" "SELECT auth_path FROM infra WHERE id = '$id'")
	[ -f "$f" ] && ok "the auth file of $id is there" || not_ok "$id's auth file '$f' is missing"
done
serve_stop
printf 'type = dummy\n' >"$IMC_HOME/serve/auth-0123456789abcdef01234567.dat"
serve_start s2
[ ! -e "$IMC_HOME/serve/auth-0123456789abcdef01234567.dat" ] && ok "a leftover auth file is removed at start" ||
	not_ok "the leftover is still there"
[ "$(grep -c '^auth-' "$TMPD/files")" = "$(ls "$IMC_HOME/serve" | grep -c '^auth-')" ] &&
	ok "the live infrastructures' files stay" || not_ok "after start: $(ls "$IMC_HOME/serve")"
f=$(sqlite3 "$IMC_HOME/imc.db" "SELECT auth_path FROM infra WHERE id = '$C1'")
curl -sS -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: $ALICE" "$URL/infrastructures/$C1" >"$TMPD/d.code"
[ "$(cat "$TMPD/d.code")" = 200 ] && [ ! -e "$f" ] && ok "destroy removes the infrastructure's auth file" ||
	not_ok "destroy: $(cat "$TMPD/d.code"), $f $(ls "$f" 2>&1)"
# a file named as older servers named a user's (by its content's hash, shared
# by the user's infrastructures) is not removed by a destroy: the sweep at
# start removes it once no live infrastructure names it
old="$IMC_HOME/serve/auth-0123456789abcdef0123456789abcdef.dat"
cp "$(sqlite3 "$IMC_HOME/imc.db" "SELECT auth_path FROM infra WHERE id = '$C2'")" "$old"
sqlite3 "$IMC_HOME/imc.db" "UPDATE infra SET auth_path = '$old' WHERE id = '$C2'"
curl -sS -o /dev/null -w '%{http_code}' -X DELETE -H "Authorization: $ALICE" "$URL/infrastructures/$C2" >"$TMPD/d.code"
[ "$(cat "$TMPD/d.code")" = 200 ] && [ -e "$old" ] && ok "a destroy leaves an older server's shared auth file" ||
	not_ok "destroy: $(cat "$TMPD/d.code"), $(ls "$IMC_HOME/serve")"
serve_stop
serve_start s3
[ ! -e "$old" ] && ok "the sweep at start removes it once no live infrastructure names it" ||
	not_ok "after restart: $(ls "$IMC_HOME/serve")"
expect_no_grep 'alice-Pw-8002' "$TMPD/s1.log" "no password in the server's log"
done_testing
