#!/bin/sh
# t2012: a job's progress reaches attached `imc create` while the step
# runs. One local VM runs a job that reports a step, then blocks on a fifo
# (tests/cli/data/t2012-progress.radl); the test releases it only after
# reading that step's progress from create's output, so the line provably
# came before the step ended (the order is the event stream's, no timing).
# Text mode, --json mode (one event per line, then the final document) and
# `imc logs --json`. The VMs are namespaces the test creates and destroys.
. "$top_srcdir/tests/cli/lib.sh"
require_netns
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"
[ -n "${PYTHON3:-}" ] || PYTHON3=python3
R="$top_srcdir/tests/cli/data/t2012-progress.radl"
ids=""
at_exit 'for i in $ids; do "$IMC" destroy "$i" >/dev/null 2>&1; done'

# Reads fd 8 until a line matches the extended regex $1 (all lines to
# $TMPD/seen); fails when the stream ends first.
read_until() {
	while IFS= read -r line <&8; do
		printf '%s\n' "$line" >>"$TMPD/seen"
		if printf '%s\n' "$line" | grep -Eq -- "$1"; then return 0; fi
	done
	return 1
}
release() { "$IMC" ssh "$1" 0 -- "echo go >/var/tmp/t2012-$1/go" >/dev/null 2>&1; }

# --- text mode
mkfifo "$TMPD/out1"
"$IMC" create "$R" >"$TMPD/out1" 2>"$TMPD/err1" &
pid=$!
exec 8<"$TMPD/out1"
IFS= read -r id <&8
ids="$id"
if read_until '^VM 0: step 10 '; then
	ok "a progress line comes while the step runs"
	release "$id"
else
	not_ok "no progress line before create's output ended"; sed 's/^/#   /' "$TMPD/seen" "$TMPD/err1"
fi
cat <&8 >"$TMPD/rest1"
exec 8<&-
if wait "$pid"; then ok "create exits 0"; else not_ok "create exit status"; sed 's/^/#   /' "$TMPD/err1"; fi
expect_grep '^VM 0: step 10 \(50%\)  epoch 0\.50  loss 0\.9000  100 examples/s$' "$TMPD/seen" \
	"the line has the step, the fraction, epoch, loss and examples/s"
expect_grep '^VM 0: step 20 \(100%\)  epoch 1\.00  accuracy 0\.7500' "$TMPD/rest1" \
	"the evaluation at the end has its accuracy"
sed -n '/step 20/,$p' "$TMPD/rest1" >"$TMPD/after"
expect_grep 'The infrastructure is in state: configured' "$TMPD/after" "... and comes before the final state"

# --- imc logs --json has the same progress as events
expect_exit 0 "logs --json" -- "$IMC" logs --json "$id" 0
if "$PYTHON3" -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
p = [e for e in ev if e["event"] == "progress"]
assert [e["step"] for e in p] == [10, 20], p
assert all(e["vm"] == 0 and e["format"] == 1 for e in p), p
assert p[1]["accuracy"] == 0.75 and p[1]["fraction"] == 1, p
' "$TMPD/out"; then ok "logs --json: the progress lines are progress events"; else not_ok "logs --json progress"; sed 's/^/#   /' "$TMPD/out"; fi

# --- --json: events on their own lines, then the final document
rm -f "$TMPD/seen"
mkfifo "$TMPD/out2"
"$IMC" create --json "$R" >"$TMPD/out2" 2>"$TMPD/err2" &
pid=$!
exec 8<"$TMPD/out2"
if read_until '"event":"progress"'; then
	ok "--json: a progress event comes while the step runs"
	"$IMC" list >"$TMPD/list" 2>&1
	id2=$(grep -Eo '[0-9a-f-]{36}' "$TMPD/list" | grep -v "^$id\$" | head -1)
	ids="$ids $id2"
	release "$id2"
else
	not_ok "--json: no progress event before create's output ended"; sed 's/^/#   /' "$TMPD/seen" "$TMPD/err2"
fi
cat <&8 >"$TMPD/rest2"
exec 8<&-
if wait "$pid"; then ok "create --json exits 0"; else not_ok "create --json exit status"; sed 's/^/#   /' "$TMPD/err2"; fi
cat "$TMPD/seen" "$TMPD/rest2" >"$TMPD/all2"
if "$PYTHON3" -c '
import json, sys
text = open(sys.argv[1]).read()
dec, docs, i = json.JSONDecoder(), [], 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    d, i = dec.raw_decode(text, i)
    docs.append(d)
ev, final = docs[:-1], docs[-1]
assert [e["step"] for e in ev] == [10, 20], ev
assert all(e["event"] == "progress" and e["vm"] == 0 and e["format"] == 1 for e in ev), ev
assert ev[0]["loss"] == 0.9 and ev[0]["examples_per_sec"] == 100 and ev[0]["fraction"] == 0.5, ev
assert ev[1]["accuracy"] == 0.75 and "eta_s" in ev[1] and ev[1]["eta_s"] == 0, ev
assert final["state"]["state"] == "configured", final
' "$TMPD/all2"; then ok "--json: every event and the final document parse"; else not_ok "--json output"; sed 's/^/#   /' "$TMPD/all2"; fi
done_testing
