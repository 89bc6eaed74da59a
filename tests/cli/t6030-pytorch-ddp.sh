#!/bin/sh
# t6030: recipes/pytorch-ddp-local.radl on the local cloud: three VMs run
# one PyTorch DistributedDataParallel process each (gloo backend), launched
# with torchrun's environment from the plan (IMC_TORCH_ENV: rank by VM
# number, rank 0's private address as MASTER_ADDR); the infrastructure
# reaches 'configured' and hands back the model and the job's result. The
# VMs are namespaces the test creates and destroys.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"
/usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null ||
	skip_all "python3-torch not installed"
id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

"$IMC" create -e steps=150 "$top_srcdir/recipes/pytorch-ddp-local.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
rc=$?
id=$(head -1 "$TMPD/create.out")
if [ "$rc" -eq 0 ]; then ok "create exits 0"; else not_ok "create exits 0 (exit $rc)"; tail -20 "$TMPD/create.err" | sed 's/^/#   /'; "$IMC" getcontmsg "$id" 2>&1 | tail -40 | sed 's/^/#   /'; fi
expect_exit 0 "getstate works" -- "$IMC" getstate "$id"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "the infrastructure is configured"
expect_exit 0 "getoutputs works" -- "$IMC" getoutputs --json "$id"
cp "$TMPD/out" "$TMPD/outputs.json"
"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = (d.get("framework") == "pytorch-ddp" and d.get("backend") == "gloo" and d.get("world_size") == 3
      and d.get("replicas_equal") is True and float(d.get("weight_error", 1)) < 0.05)
sys.exit(0 if ok else 1)' "$TMPD/outputs.json" &&
	ok "three ranks trained one model (gloo, replicas equal, weights learned)" ||
	{ not_ok "three ranks trained one model"; sed 's/^/#   /' "$TMPD/outputs.json"; }
model="$IMC_HOME/infra/$id/outputs/ddp/model.pt"
/usr/bin/python3 -c '
import sys, torch
sd = torch.load(sys.argv[1])
sys.exit(0 if list(sd["weight"].shape) == [1, 8] else 1)' "$model" 2>"$TMPD/load.err" &&
	ok "the model came back and loads in PyTorch" || { not_ok "the model loads"; sed 's/^/#   /' "$TMPD/load.err"; }
expect_exit 0 "destroy works" -- "$IMC" destroy "$id"
id=""
done_testing
