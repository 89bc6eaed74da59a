#!/bin/sh
# t7008: 'imc alter' on ec2 (the backend's vm_alter). A new instance_type is
# applied as EC2 allows it: StopInstances, wait 'stopped',
# ModifyInstanceAttribute InstanceType.Value, StartInstances, wait 'running'
# (order read from the endpoint's request log), and the store takes the new
# type only then; cpu/memory without a type pick one from the instance-type
# table; the same type sends nothing; a stopped VM is altered and stays
# stopped; a type the cloud refuses fails the command, leaves the store and
# the instance's type unchanged and says the instance was started again.
# The stored spec is read with sqlite3 and from 'alter --json': on this
# branch getvminfo still prints the creation RADL's instance_type.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

cat >"$TMPD/c.radl" <<RADL
network public (outbound = 'yes')
system node (
    instance_type = 't3.micro' and
    net_interface.0.connection = 'public' and net_interface.0.dns_name = 'node-#N#' and
    disk.0.image.url = '$IMG' and disk.0.os.credentials.username = 'ubuntu'
)
deploy node 1
contextualize ()
RADL
start_endpoint --bad-type t3.2xlarge
printf '%s\n' "$AUTH" >"$TMPD/auth.dat"
"$IMC" -a "$TMPD/auth.dat" create "$TMPD/c.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
RC=$?
expect_eq "$RC" 0 "imc create of one t3.micro VM exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/create.err" | head -10
ID=$(head -n1 "$TMPD/create.out")
INST=$(ep_py "st['instances'][0]")

# alter RADL -> run imc alter; output in $TMPD/out, $TMPD/err, status in $RC
alter() {
	printf '%s\n' "$1" >"$TMPD/alter.radl"
	: >"$EP_LOG"
	"$IMC" -a "$TMPD/auth.dat" alter ${2:-} "$ID" 0 "$TMPD/alter.radl" >"$TMPD/out" 2>"$TMPD/err"
	RC=$?
}
stored_type() {
	sqlite3 -cmd ".timeout 10000" "$IMC_HOME/imc.db" \
		"SELECT json_extract(spec, '$.instance_type') FROM vm WHERE infra_id = '$ID' AND num = 0"
}
# the instance actions of the last command, in order
actions() {
	ep_py "' '.join(e['action'] + ('=' + e['params']['InstanceType.Value'] if 'InstanceType.Value' in e['params'] else '') for e in log if e['action'] in ('StopInstances', 'ModifyInstanceAttribute', 'StartInstances') and e['status'] == 200)"
}
cloud() { ep_py "st['all']['$INST']['type'] + ' ' + st['all']['$INST']['state']"; }

alter "system node ( instance_type = 't3.large' )" --json
expect_eq "$RC" 0 "alter to t3.large exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/err" | head -10
expect_eq "$(actions)" "StopInstances ModifyInstanceAttribute=t3.large StartInstances" "stop, modify the type, start, in that order"
expect_eq "$(cloud)" "t3.large running" "the instance is t3.large and running again"
expect_eq "$(stored_type)" t3.large "the store holds the new type"
expect_grep '"instance_type": *"t3.large"' "$TMPD/out" "alter --json prints the new spec"
"$IMC" -a "$TMPD/auth.dat" getstate "$ID" >"$TMPD/state" 2>&1
expect_grep 'VM ID: 0 is in state: (configured|running)' "$TMPD/state" "the VM is up again for getstate"

alter "system node ( instance_type = 't3.large' )"
expect_eq "$RC" 0 "alter to the same type exits 0"
expect_eq "$(actions)" "" "the same type sends no stop, modify or start"
expect_grep 'VM successfully modified' "$TMPD/out" "and says the VM is modified"

alter "system node ( cpu.count >= 4 and memory.size >= 16g )"
expect_eq "$RC" 0 "alter to 4 CPUs and 16 GiB exits 0"
expect_eq "$(actions)" "StopInstances ModifyInstanceAttribute=t3.xlarge StartInstances" "4 CPUs and 16 GiB pick t3.xlarge from the table"
expect_eq "$(stored_type)" t3.xlarge "the store holds the chosen type"

alter "system node ( instance_type = 't3.2xlarge' )"
expect_eq "$RC" 65 "a type the cloud refuses (InvalidInstanceAttributeValue) exits 65"
expect_grep "cannot change VM 0 \(instance $INST\) to type t3.2xlarge: InvalidInstanceAttributeValue" "$TMPD/err" "the error names the VM, the type and the cloud's code"
expect_grep "VM 0 was started again with its type t3.xlarge" "$TMPD/err" "and says the instance was started again with its old type"
expect_eq "$(actions)" "StopInstances StartInstances" "stopped, not modified, started again"
expect_eq "$(cloud)" "t3.xlarge running" "the instance keeps its type and runs"
expect_eq "$(stored_type)" t3.xlarge "the store keeps the old type"

"$IMC" -a "$TMPD/auth.dat" stopvm "$ID" 0 >/dev/null 2>"$TMPD/err"
expect_eq "$(cloud)" "t3.xlarge stopped" "stopvm stops the instance"
alter "system node ( instance_type = 't3.medium' )"
expect_eq "$RC" 0 "alter of a stopped VM exits 0"
expect_eq "$(actions)" "ModifyInstanceAttribute=t3.medium" "a stopped VM is modified, not started"
expect_eq "$(cloud)" "t3.medium stopped" "it stays stopped with the new type"
expect_eq "$(stored_type)" t3.medium "the store holds the new type"

"$IMC" -a "$TMPD/auth.dat" destroy "$ID" >/dev/null 2>"$TMPD/err"
expect_eq "$(ep_left3)" 0/0/0 "destroy leaves nothing"
expect_no_violations
done_testing
