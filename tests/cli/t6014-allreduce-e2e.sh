#!/bin/sh
# t6014: recipes/fashion-mnist-local.radl with -e strategy=allreduce on the
# local cloud: the two workers train in a ring (no parameter server), each
# holding the job secret imc made (0600 on the VM), authenticated; the
# infrastructure reaches 'configured' and hands back a model that learned.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || skip_all "dataset-fashion-mnist not installed"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"
id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

"$IMC" create -e train_steps=400 -e strategy=allreduce "$top_srcdir/recipes/fashion-mnist-local.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
rc=$?
id=$(head -1 "$TMPD/create.out")
if [ "$rc" -eq 0 ]; then ok "create exits 0"; else not_ok "create exits 0 (exit $rc)"; tail -20 "$TMPD/create.err" | sed 's/^/#   /'; "$IMC" getcontmsg "$id" 2>&1 | tail -40 | sed 's/^/#   /'; fi
expect_exit 0 "getstate works" -- "$IMC" getstate "$id"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "the infrastructure is configured"
expect_exit 0 "getoutputs works" -- "$IMC" getoutputs --json "$id"
cp "$TMPD/out" "$TMPD/outputs.json"
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("strategy") == "allreduce" and d.get("workers") == 2 and float(d.get("test_accuracy", 0)) >= 0.80 else 1)' "$TMPD/outputs.json" &&
	ok "the ring of 2 workers trained to >= 0.80" || { not_ok "the ring of 2 workers trained to >= 0.80"; sed 's/^/#   /' "$TMPD/outputs.json"; }
log=$(ls "$IMC_HOME/infra/$id/outputs/trainer/train.log" 2>/dev/null)
expect_grep 'ring formed .*authenticated' "$log" "the ring was authenticated"
expect_exit 0 "the secret is on the chief's VM" -- "$IMC" ssh "$id" 1 -- "stat -c %a /var/tmp/imc-train/$id/worker-1/job.secret"
expect_grep '^600$' "$TMPD/out" "mode 0600"
secret=$(cat "$IMC_HOME/infra/$id/job.secret")
if grep -rqF -- "$secret" "$TMPD/create.out" "$TMPD/create.err" "$IMC_HOME/infra/$id/outputs"; then
	not_ok "the secret is in imc's output or the outputs"
else
	ok "the secret is in neither imc's output nor the outputs"
fi
expect_exit 0 "destroy works" -- "$IMC" destroy "$id"
id=""
done_testing
