#!/bin/sh
# t7004: the ec2 backend through the command line: 'imc -a AUTH create' of
# a 1 PS + 2 worker RADL with aws:// images and 'contextualize ()' against
# the local endpoint answering from the recorded EC2 responses reaches
# running VMs, 'getstate' reports them, 'destroy' terminates them and
# deletes the key pair and the security groups; the planted credentials
# appear nowhere (outputs, $IMC_HOME). Then an injected
# UnauthorizedOperation fails the create clearly and destroy cleans up.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

cat >"$TMPD/cluster.radl" <<RADL
network public (outbound = 'yes' and outports = '8080/tcp')
network private ()
system ps (
    cpu.count >= 1 and memory.size >= 1g and
    net_interface.0.connection = 'public' and net_interface.0.dns_name = 'ps-#N#' and
    net_interface.1.connection = 'private' and
    disk.0.image.url = '$IMG' and disk.0.os.credentials.username = 'ubuntu'
)
system worker (
    instance_type = 't3.micro' and
    net_interface.0.connection = 'public' and net_interface.0.dns_name = 'worker-#N#' and
    disk.0.image.url = '$IMG' and disk.0.os.credentials.username = 'ubuntu'
)
deploy ps 1
deploy worker 2
contextualize ()
RADL

start_endpoint
printf '%s\n' "id = aws; $AUTH" >"$TMPD/auth.dat"
OUTS="$TMPD/cli-outputs"
: >"$OUTS"
run() { "$@" >"$TMPD/o" 2>"$TMPD/e"; RC=$?; cat "$TMPD/o" "$TMPD/e" >>"$OUTS"; }

IMC_LOG=trace run "$IMC" -a "$TMPD/auth.dat" create "$TMPD/cluster.radl"
expect_eq "$RC" 0 "imc create of 1 ps + 2 workers on ec2 exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/e" | head -20
ID=$(head -n1 "$TMPD/o")
expect_grep 'ec2: us-east-1 RunInstances' "$IMC_HOME/infra/$ID/worker.log" "with IMC_LOG=trace the worker log shows the EC2 requests"
cat "$IMC_HOME/infra/$ID/worker.log" >>"$OUTS"  # checked for credentials below
expect_eq "$(ep_count RunInstances)" 3 "three RunInstances reached the endpoint"
expect_eq "$(ep_left instances)" 3 "three instances exist"

run "$IMC" -a "$TMPD/auth.dat" getstate "$ID"
cp "$TMPD/o" "$TMPD/state"
sed 's/^/#   /' "$TMPD/state"
expect_eq "$RC" 0 "imc getstate exits 0"
expect_grep 'configured|running' "$TMPD/state" "getstate reports the VMs up"
expect_no_grep 'failed|pending' "$TMPD/state" "no VM is failed or pending"
run "$IMC" -a "$TMPD/auth.dat" getstate --json "$ID"
expect_grep '"format"' "$TMPD/o" "getstate --json works"
# alter: the new size reaches the instance (t7008 checks the API calls)
# and is what getvminfo prints afterwards
printf 'system ps (\n    cpu.count >= 4\n)\n' >"$TMPD/alter.radl"
run "$IMC" -a "$TMPD/auth.dat" alter "$ID" 0 "$TMPD/alter.radl"
expect_eq "$RC" 0 "alter of an ec2 VM succeeds"
run "$IMC" -a "$TMPD/auth.dat" getvminfo "$ID" 0 cpu.count
expect_grep '^4$' "$TMPD/o" "getvminfo shows the altered cpu.count"

: >"$EP_LOG"
IMC_LOG=trace run "$IMC" -a "$TMPD/auth.dat" destroy "$ID"
expect_eq "$RC" 0 "imc destroy exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/e" | head -20
expect_eq "$(ep_count TerminateInstances)" 3 "destroy terminated the three instances"
# DeleteKeyPair is idempotent: the last vm_destroy and cleanup_infra may both send it
if [ "$(ep_count DeleteKeyPair)" -ge 1 ]; then ok "destroy deleted the key pair"; else not_ok "destroy deleted the key pair"; fi
expect_eq "$(ep_count DeleteSecurityGroup)" 2 "destroy deleted the two security groups (one per network)"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left in the cloud"
expect_no_violations

# UnauthorizedOperation: a clear failure, then destroy cleans up.
start_endpoint --inject RunInstances:UnauthorizedOperation:403:100
printf '%s\n' "id = aws; $AUTH" >"$TMPD/auth.dat"
run "$IMC" -a "$TMPD/auth.dat" create "$TMPD/cluster.radl"
ID=$(head -n1 "$TMPD/o")
if [ "$RC" -ne 0 ]; then ok "create fails under UnauthorizedOperation (exit $RC)"; else not_ok "create fails under UnauthorizedOperation"; fi
run "$IMC" -a "$TMPD/auth.dat" getstate "$ID"
expect_grep 'failed' "$TMPD/o" "getstate reports the VMs failed"
run "$IMC" -a "$TMPD/auth.dat" getcontmsg "$ID"
if grep -q 'UnauthorizedOperation' "$OUTS"; then ok "the cause (UnauthorizedOperation) is reported"; else not_ok "the cause (UnauthorizedOperation) is reported"; fi
expect_eq "$(ep_count RunInstances UnauthorizedOperation)" 3 "each launch was tried once, not retried"
run "$IMC" -a "$TMPD/auth.dat" destroy "$ID"
expect_eq "$RC" 0 "destroy after the failure exits 0"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left after the failed create"
expect_no_violations

for s in "$SK" "$AK"; do
	if grep -qF -- "$s" "$OUTS" || grep -rqF -- "$s" "$IMC_HOME"; then
		not_ok "a credential leaked into the output or \$IMC_HOME"
	else
		ok "credential ($(printf %s "$s" | wc -c) chars) never printed nor stored in \$IMC_HOME"
	fi
done
done_testing
