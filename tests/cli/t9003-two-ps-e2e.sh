#!/bin/sh
# t9003: other node counts than the shipped recipe's: the same RADL with
# two parameter servers (deploy ps 2) and two workers, async. Each PS must
# serve its own half of the parameters (ps:0 and ps:1), so the job only
# completes when every task took its index from the cluster description.
# `imc create` reaches 'configured', the chief's summary counts 2 PSes and
# 2 workers, the job learned, and `imc destroy` gives everything back.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || skip_all "dataset-fashion-mnist not installed"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"

id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

sed 's/^deploy ps 1$/deploy ps 2/' "$top_srcdir/recipes/fashion-mnist-local.radl" >"$TMPD/two-ps.radl"
grep -q '^deploy ps 2$' "$TMPD/two-ps.radl" || { not_ok "the recipe has 'deploy ps 1' to change"; done_testing; }
IMC_ROLES_PATH="$top_srcdir/recipes/roles" "$IMC" create -e train_steps=200 -e model=mlp -e sync=false \
	"$TMPD/two-ps.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
rc=$?
id=$(head -1 "$TMPD/create.out")
if [ "$rc" -eq 0 ]; then ok "create exits 0"; else not_ok "create exits 0 (exit $rc)"; tail -20 "$TMPD/create.err" | sed 's/^/#   /'; "$IMC" getcontmsg "$id" 2>&1 | tail -40 | sed 's/^/#   /'; fi
expect_exit 0 "getstate works" -- "$IMC" getstate "$id"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "the infrastructure is configured"
expect_grep 'VM ID: 3 is in state: configured' "$TMPD/out" "four VMs (2 PS, chief, worker) are configured"
expect_exit 0 "getoutputs works" -- "$IMC" getoutputs --json "$id"
cp "$TMPD/out" "$TMPD/outputs.json"
# the summary's scalars are top-level members of getoutputs --json
cp "$TMPD/outputs.json" "$TMPD/summary.json"
py_ok() { # DESCRIPTION EXPR: EXPR over j, the outputs (the chief's summary)
	if "$PYTHON3" -c "import json,sys; j=json.loads(open(sys.argv[1]).read()); sys.exit(0 if ($2) else 1)" "$TMPD/summary.json" 2>/dev/null
	then ok "$1"; else not_ok "$1"; sed 's/^/#   /' "$TMPD/summary.json"; fi
}
py_ok "the chief's summary: async, 2 PS, 2 workers, >= 200 updates" \
	'j["mode"] == "async" and j["ps"] == 2 and j["workers"] == 2 and j["global_step"] >= 200'
# Test accuracy of this job (2 PS, the chief and a worker, async mlp, 200
# updates, global batch 64) run on loopback over seeds 1-20, async
# scheduling varying, on a loaded 2-core machine: min 0.6489, median
# 0.7263, max 0.7859 (mean 0.725, sd 0.029): the old 0.65 sat inside that
# spread. 0.50 is 7 sd below the mean (chance is 0.10).
py_ok "the job learned (test accuracy >= 0.50 after 200 async mlp updates)" 'j["test_accuracy"] >= 0.50'
expect_exit 0 "ps:1 serves the second half of the parameters" -- \
	"$IMC" ssh "$id" 1 -- "grep -h 'ps:1: serving ps-1:2222, shard \[101765, +101765) of 203530' /var/tmp/imc-train/$id/ps-1/ps.log"
expect_exit 0 "destroy works" -- "$IMC" destroy "$id"
id=""
done_testing
