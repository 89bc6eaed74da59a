#!/bin/sh
# t6031: recipes/mpi-local.radl on the local cloud: three VMs build an MPI
# program, rank 0 starts it on all three with mpirun over SSH (the
# infrastructure's key, the hostfile from the plan: IMC_MPI_HOSTFILE), the
# processes sum a vector with MPI_Allreduce; the infrastructure reaches
# 'configured' with the sum among its outputs. The VMs are namespaces the
# test creates and destroys.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"
command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 ||
	skip_all "openmpi-bin and libopenmpi-dev not installed"
id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

"$IMC" create "$top_srcdir/recipes/mpi-local.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
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
ok = (d.get("framework") == "openmpi" and d.get("world_size") == 3 and d.get("hosts") == 3
      and d.get("allreduce_sum") == 6 and float(d.get("max_error", 1)) < 1e-9)
sys.exit(0 if ok else 1)' "$TMPD/outputs.json" &&
	ok "three ranks on three VMs summed the vector" ||
	{ not_ok "three ranks on three VMs summed the vector"; sed 's/^/#   /' "$TMPD/outputs.json"; }
# the key mpirun used stays on rank 0's VM, 0600, and out of the log
expect_exit 0 "ssh to VM 0 works" -- "$IMC" ssh "$id" 0 -- "stat -c %a /var/tmp/imc-mpi/$id/mpi-0/ssh_key"
expect_grep '^600$' "$TMPD/out" "the key is 0600"
"$IMC" getcontmsg "$id" >"$TMPD/log" 2>&1
if grep -q "PRIVATE KEY" "$TMPD/log" "$TMPD/create.out" "$TMPD/create.err"; then
	not_ok "the key is in the log"
else
	ok "the key is not in the log"
fi
expect_exit 0 "destroy works" -- "$IMC" destroy "$id"
id=""
done_testing
