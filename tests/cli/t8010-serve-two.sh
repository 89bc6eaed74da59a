#!/bin/sh
# t8010: two `imc serve` processes on one IMC_HOME. A server starting
# sweeps the auth files a crash left (those no live infrastructure names),
# but never one a running server wrote: that server's request may not have
# reached the store yet. The writer's PID and start time are in the file's
# name: a file of the running server A survives server B's start, one of a
# dead process and one of an older server's naming go; the file A's
# infrastructure names stays, and B serves that infrastructure.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
R="$top_srcdir/tests/cli/data"
ALICE='type = InfrastructureManager; username = alice; password = alice-Pw-8010\ntype = dummy'
start_of() { sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f20; }

serve_start a
A_PID=$SPID
req c POST /infrastructures -H "Authorization: $ALICE" -H 'Content-Type: text/plain' --data-binary "@$R/t2-cluster.radl"
ID=$(sed 's|.*/||' "$TMPD/c.body")
[ "$(cut -d' ' -f1 "$TMPD/c.meta")" = 200 ] && ok "A created $ID" || not_ok "create: $(cat "$TMPD/c.meta" "$TMPD/c.body")"
NAMED=$(ls "$IMC_HOME/serve" | grep "^auth-$A_PID-" | head -1)
[ -n "$NAMED" ] && ok "A's files carry its PID ($NAMED)" || not_ok "no auth file of A: $(ls "$IMC_HOME/serve")"

# what B's sweep must tell apart: A's request in flight (A runs), a crashed
# server's file (its PID is gone), a file of the naming before the PID mark
HEX=0123456789abcdef01234567
LIVE="auth-$A_PID-$(start_of "$A_PID")-$HEX.dat"
sh -c 'exit 0' &
DEAD_PID=$!
wait "$DEAD_PID"
DEAD="auth-$DEAD_PID-1-$HEX.dat" OLD="auth-$HEX.dat"
for f in "$LIVE" "$DEAD" "$OLD"; do
	printf 'type = dummy\n' >"$IMC_HOME/serve/$f"
	chmod 600 "$IMC_HOME/serve/$f"
done

serve_start b
B_PID=$SPID
[ -e "$IMC_HOME/serve/$LIVE" ] && ok "B's start keeps the file of A, which runs" || not_ok "B swept A's in-flight file"
[ ! -e "$IMC_HOME/serve/$DEAD" ] && ok "B's start removes a dead server's leftover" || not_ok "the dead server's file stays"
[ ! -e "$IMC_HOME/serve/$OLD" ] && ok "B's start removes an unnamed file of the older naming" || not_ok "the old file stays"
[ -e "$IMC_HOME/serve/$NAMED" ] && ok "the file A's infrastructure names stays" || not_ok "B swept a named file"

req s GET "/infrastructures/$ID/state" -H "Authorization: $ALICE"
[ "$(cut -d' ' -f1 "$TMPD/s.meta")" = 200 ] && ok "B serves A's infrastructure" || not_ok "B: $(cat "$TMPD/s.meta" "$TMPD/s.body")"
req d DELETE "/infrastructures/$ID" -H "Authorization: $ALICE"
[ "$(cut -d' ' -f1 "$TMPD/d.meta")" = 200 ] && ok "B destroys it" || not_ok "destroy: $(cat "$TMPD/d.meta" "$TMPD/d.body")"
[ ! -e "$IMC_HOME/serve/$NAMED" ] && ok "its auth file went with it" || not_ok "its auth file stays"

serve_stop
SPID=$A_PID
serve_stop
rm -f "$IMC_HOME/serve/$LIVE"
done_testing
