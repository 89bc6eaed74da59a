#!/bin/sh
# t9002: a recipe written for AWS (recipes/thesis-aws.radl: EC2 instance
# types, aws:// images, user 'ubuntu') rehearsed with `--cloud local`:
# `imc plan` shows the EC2 deployment, `imc create --cloud local` reaches
# 'configured' and trains, and destroy leaves nothing behind.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || skip_all "dataset-fashion-mnist not installed"
recipe="$top_srcdir/recipes/thesis-aws.radl"
id=""
trap '[ -n "$id" ] && "$IMC" destroy "$id" >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

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
expect_grep '"test_accuracy"' "$TMPD/out" "it trained and reported an accuracy"
expect_exit 0 "destroy" -- "$IMC" destroy "$id"
tag=$(printf '%s' "$id" | cut -c1-8)
id=""
if ip netns list | grep -q "imc-$tag"; then not_ok "no namespace left"; else ok "no namespace left"; fi
done_testing
