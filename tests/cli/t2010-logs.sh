#!/bin/sh
# t2010: 'imc logs ID [VM] [-f]': the recorded step output of every VM or
# of one, as text and as one JSON event per line; -f on a deployment that
# is still running follows it until the worker ends (the test waits on the
# command's exit, and the last lines the worker records must be there).
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"
[ -n "${PYTHON3:-}" ] || PYTHON3=python3

expect_exit 0 "create on the dummy cloud" -- "$IMC" create "$R/t2-cluster.radl"
ID=$(head -1 "$TMPD/out")

expect_exit 0 "logs" -- "$IMC" logs "$ID"
expect_grep "^[0-9-]+ [0-9:]+: VM 2: VM created on cloud 'dummy'" "$TMPD/out" "logs shows every VM's lines with their time"
expect_grep '^[0-9-]+ [0-9:]+: VM 0: Contextualization skipped' "$TMPD/out" "logs shows the step's outcome"

expect_exit 0 "logs of one VM" -- "$IMC" logs "$ID" 1
expect_grep "^[0-9-]+ [0-9:]+: VM created on cloud 'dummy' \(id dummy-[0-9a-f]+-1\)$" "$TMPD/out" "logs VM shows that VM's lines"
expect_no_grep 'dummy-[0-9a-f]+-[02]\)' "$TMPD/out" "logs VM leaves the other VMs out"

expect_exit 0 "logs --json" -- "$IMC" logs --json "$ID" 1
if "$PYTHON3" -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert len(ev) == 2, ev
assert all(e["event"] == "log" and e["vm"] == 1 and e["format"] == 1 for e in ev), ev
assert "VM created" in ev[0]["line"], ev
' "$TMPD/out"; then ok "logs --json: one event per line, each parses"; else not_ok "logs --json events"; cat "$TMPD/out"; fi

expect_exit 66 "logs of a missing VM" -- "$IMC" logs "$ID" 9
expect_exit 64 "logs --timeout needs seconds" -- "$IMC" logs -f --timeout soon "$ID"

# -f on a finished deployment prints what there is and ends
expect_exit 0 "logs -f of a finished deployment ends" -- "$IMC" logs -f "$ID"
expect_grep 'VM 2: Contextualization skipped' "$TMPD/out" "logs -f prints the recorded lines"

# -f on a running one: it ends when the worker does, with the worker's last
# lines, and the infrastructure is then configured
expect_exit 0 "create -d" -- "$IMC" create -d "$R/t2-cluster.radl"
ID2=$(head -1 "$TMPD/out")
expect_exit 0 "logs -f follows the worker to its end" -- "$IMC" logs -f "$ID2"
expect_grep '^[0-9-]+ [0-9:]+: VM 2: Contextualization skipped' "$TMPD/out" "logs -f has the worker's last lines"
expect_exit 0 "getstate after logs -f" -- "$IMC" getstate "$ID2"
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "logs -f returned once the worker was done"

# -f while a step runs: the worker is stood in for by a process of this
# test (a reader blocked on a fifo) recorded as the infrastructure's
# worker, in the configuring phase. Once logs -f has printed what there is,
# a line is recorded and the phase ended: logs -f must print that line and
# exit. Each step waits on the previous one's output, not on time.
DB="$IMC_HOME/imc.db"
mkfifo "$TMPD/hold" "$TMPD/follow"
cat "$TMPD/hold" >/dev/null &
HOLDER=$!
exec 7>"$TMPD/hold"
at_exit "exec 7>&-; wait $HOLDER 2>/dev/null"
START=$(sed 's/.*) //' "/proc/$HOLDER/stat" | cut -d' ' -f20)
sqlite3 "$DB" "UPDATE infra SET phase = 2, worker_pid = $HOLDER, worker_start = $START WHERE id = '$ID'"
"$IMC" logs -f "$ID" 2 >"$TMPD/follow" 2>"$TMPD/follow.err" &
FOLLOWER=$!
exec 8<"$TMPD/follow"
IFS= read -r first <&8
case $first in *"VM created on cloud 'dummy'"*) ok "logs -f prints the recorded lines first" ;; *) not_ok "logs -f first line: $first" ;; esac
IFS= read -r second <&8
sqlite3 "$DB" "INSERT INTO log (infra_id, vm, at, text) VALUES ('$ID', 2, 0, 'step 100 loss 0.5')"
sqlite3 "$DB" "UPDATE infra SET phase = 3 WHERE id = '$ID'"
rest=$(cat <&8)
exec 8<&-
if wait "$FOLLOWER"; then ok "logs -f exits once the step ended"; else not_ok "logs -f exit status"; cat "$TMPD/follow.err"; fi
case $rest in *": step 100 loss 0.5"*) ok "logs -f prints a line recorded while it follows" ;; *) not_ok "logs -f missed the new line: $rest" ;; esac

done_testing
