#!/bin/sh
# t9002: a recipe written for AWS (recipes/thesis-aws.radl: EC2 instance
# types, aws:// images, user 'ubuntu') rehearsed with `--cloud local`:
# `imc plan` shows the EC2 deployment, `imc create --cloud local` reaches
# 'configured' and trains (the recipe's job: 1 PS, the chief and a worker,
# sync cnn, global batch 64, seed 1; 100 steps here), its outputs say so
# and the model learned, and destroy leaves nothing behind.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || skip_all "dataset-fashion-mnist not installed"
recipe="$top_srcdir/recipes/thesis-aws.radl"
id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

expect_exit 0 "plan of the AWS recipe" -- "$IMC" plan "$recipe"
expect_grep 'cloud ec2, image aws://' "$TMPD/out" "the plan targets EC2"
expect_exit 0 "plan --cloud local" -- "$IMC" plan --cloud local "$recipe"
expect_grep 'VM 1: system worker, worker-1.* cloud local' "$TMPD/out" "--cloud local retargets every system"

"$IMC" create --cloud local -e train_steps=100 "$recipe" >"$TMPD/create.out" 2>"$TMPD/create.err"
rc=$?
id=$(head -1 "$TMPD/create.out")
if [ "$rc" -eq 0 ]; then ok "create --cloud local exits 0"; else not_ok "create --cloud local exits 0 (exit $rc)"; tail -20 "$TMPD/create.out" | sed 's/^/#   /'; fi
expect_exit 0 "getstate" -- "$IMC" getstate "$id"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "the rehearsal is configured"
expect_exit 0 "getoutputs" -- "$IMC" getoutputs --json "$id"
cp "$TMPD/out" "$TMPD/outputs.json"
# j: the outputs (the chief's summary's scalars are top-level members)
py_ok() { # DESCRIPTION EXPR
	if "$PYTHON3" -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$TMPD/outputs.json" 2>/dev/null
	then ok "$1"; else not_ok "$1"; sed 's/^/#   /' "$TMPD/outputs.json" | head -60; fi
}
py_ok "the job the recipe describes: sync cnn, 1 PS, 2 workers, global batch 64 (32 each)" \
	'j["mode"] == "sync" and j["model"] == "cnn" and j["ps"] == 1 and j["workers"] == 2 and j["global_batch"] == 64 and j["worker_batch"] == 32 and j["seed"] == 1'
py_ok "it ran the 100 steps asked, no worker lost, no short round, not diverged" \
	'j["global_step"] == 100 and j["steps"] == 100 and j["job_examples"] == 6400 and j["workers_lost"] == 0 and j["rounds_short"] == 0 and j["diverged"] is False'
# Test accuracy of this job (100 sync steps) over seeds 1-20, run on
# loopback on a loaded 2-core machine: min 0.6925, median 0.7296, max
# 0.7432 (mean 0.724, sd 0.016; seed 1, the recipe's: 0.6925). Threads and
# the CPU's kernels vary from machine to machine, so the check is the
# seeds' spread with a wide margin: below 0.55 (10 sd under the mean) it
# did not learn (chance is 0.10). Shown able to fail: with -e lr=0.000001
# only this check fails.
py_ok "the model learned (test accuracy >= 0.55)" 'j["test_accuracy"] >= 0.55 and j["test_loss"] < 1.5'
py_ok "the model and the metrics were fetched back" \
	'any(k.endswith("checkpoint.imcckpt") or "checkpoint.imcckpt" in str(v) for k, v in j["files"].items()) and any("metrics.jsonl" in k or "metrics.jsonl" in str(v) for k, v in j["files"].items())'

expect_exit 0 "destroy" -- "$IMC" destroy "$id"
tag=$(printf '%s' "$id" | cut -c1-8)
id=""
if ip netns list | grep -q "imc-$tag"; then not_ok "no namespace left"; else ok "no namespace left"; fi
done_testing
