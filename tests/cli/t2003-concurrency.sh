#!/bin/sh
# t2003: several imc processes on the same infrastructure at once: changes
# are serialised by the infrastructure's lock, readers never fail, VM
# numbers are never given twice, and the store stays intact.
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"
: "${PYTHON3:=python3}"

expect_exit 0 "create" -- "$IMC" create -d "$R/t2-cluster.radl"
ID=$(head -1 "$TMPD/out")

# 6 addresource, 2 creates, stop/start and readers, all at once
pids=""
for i in 1 2 3 4 5 6; do
	"$IMC" addresource "$ID" "$R/t2-add.radl" >"$TMPD/add$i.out" 2>"$TMPD/add$i.err" &
	pids="$pids $!"
done
for i in 1 2; do
	"$IMC" create "$R/t2-cluster.radl" >"$TMPD/create$i.out" 2>"$TMPD/create$i.err" &
	pids="$pids $!"
done
"$IMC" stop "$ID" >"$TMPD/stop.out" 2>"$TMPD/stop.err" &
pids="$pids $!"
for i in 1 2 3 4 5 6 7 8; do
	"$IMC" getstate --json "$ID" >"$TMPD/get$i.out" 2>"$TMPD/get$i.err" &
	pids="$pids $!"
done
failed=0
for p in $pids; do wait "$p" || failed=$((failed + 1)); done
[ "$failed" -eq 0 ] && ok "every concurrent command succeeded" || {
	not_ok "$failed concurrent commands failed"; cat "$TMPD"/*.err | head -20; }

cat "$TMPD"/add*.out | sed -n 's/^Resources with IDs: \([0-9,]*\) successfully added\.$/\1/p' | sort -n >"$TMPD/nums"
[ "$(wc -l <"$TMPD/nums")" -eq 6 ] && ok "six VMs added" || not_ok "six VMs added ($(wc -l <"$TMPD/nums"))"
[ "$(sort -u "$TMPD/nums" | wc -l)" -eq 6 ] && ok "no VM number given twice" || { not_ok "no VM number given twice"; cat "$TMPD/nums"; }
[ "$(tr '\n' ' ' <"$TMPD/nums")" = "3 4 5 6 7 8 " ] && ok "numbers follow each other" || not_ok "numbers follow each other ($(tr '\n' ' ' <"$TMPD/nums"))"
for i in 1 2 3 4 5 6 7 8; do
	"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["format"] == 1 and d["state"]["state"]' "$TMPD/get$i.out" 2>/dev/null || failed=1
done
[ "$failed" -eq 0 ] && ok "readers got whole documents" || not_ok "readers got whole documents"

expect_exit 0 "getstate afterwards" -- "$IMC" getstate "$ID"
[ "$(grep -c '^VM ID:' "$TMPD/out")" -eq 9 ] && ok "nine VMs recorded" || not_ok "nine VMs recorded"
"$PYTHON3" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute("PRAGMA integrity_check").fetchone()[0]; sys.exit(r != "ok")' "$IMC_HOME/imc.db" \
	&& ok "database integrity check" || not_ok "database integrity check"
expect_exit 0 "list" -- "$IMC" list
[ "$(grep -c '^  ' "$TMPD/out")" -eq 3 ] && ok "three infrastructures" || not_ok "three infrastructures"

# two destroys at once: both succeed, one does the work
"$IMC" destroy "$ID" >"$TMPD/d1.out" 2>&1 & p1=$!
"$IMC" destroy "$ID" >"$TMPD/d2.out" 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && ok "two destroys at once both succeed" || not_ok "two destroys at once ($r1, $r2)"
[ "$(cat "$TMPD/d1.out" "$TMPD/d2.out" | grep -c 'successfully destroyed')" -eq 1 ] && ok "one of them did the work" || not_ok "one destroy did the work"
for id in $(sed -n 's/^  //p' "$TMPD/out"); do "$IMC" destroy "$id" >/dev/null 2>&1; done
expect_exit 0 "list at the end" -- "$IMC" list
expect_grep '^No Infrastructures\.$' "$TMPD/out" "all destroyed"
done_testing
