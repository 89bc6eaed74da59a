#!/bin/sh
# t7007: 'imc destroy' on ec2 removes what the state store lost. The crash
# between RunInstances and the store write is simulated by deleting a VM's
# row from the store (sqlite3) and by seeding the stateful test endpoint
# with an instance and an elastic IP that carry the infrastructure's tag.
# destroy terminates them, waits for 'terminated', and only then releases
# the addresses and deletes the security groups and the key pair (order
# read from the endpoint's request log); it follows nextToken pages; it
# retries throttling past ec2_call's 5 attempts and DependencyViolation
# until the group is free; a sweep that runs out of time (deadline) fails
# with exit 75 naming what is left, and a second destroy finishes it.
# Another infrastructure's instance, group, key pair and address are never
# named in any request and are still there at the end.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

mkradl() {
	cat >"$TMPD/c.radl" <<RADL
network public (outbound = 'yes')
system node (
    instance_type = 't3.micro' and
    net_interface.0.connection = 'public' and net_interface.0.dns_name = 'node-#N#' and
    disk.0.image.url = '$IMG' and disk.0.os.credentials.username = 'ubuntu'
)
deploy node $1
contextualize ()
RADL
}
# create: an infrastructure through the CLI; sets ID
create() {
	printf '%s\n' "$AUTH" >"$TMPD/auth.dat"
	"$IMC" -a "$TMPD/auth.dat" create "$TMPD/c.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
	RC=$?
	ID=$(head -n1 "$TMPD/create.out")
	expect_eq "$RC" 0 "imc create of $1 VM(s) on ec2 exits 0"
	[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/create.err" | head -10
}
# lose NUM: the store forgets VM NUM (prints its instance id first)
lose() {
	sqlite3 -cmd ".timeout 10000" "$IMC_HOME/imc.db" \
		"SELECT cloud_id FROM vm WHERE infra_id = '$ID' AND num = $1; DELETE FROM vm WHERE infra_id = '$ID' AND num = $1;" |
		sed 's/^.*;//'
}
destroy() {
	"$IMC" -a "$TMPD/auth.dat" destroy "$ID" >"$TMPD/out" 2>"$TMPD/err"
	RC=$?
}

# 1. Orphans found by tag across pages; removal order; other infrastructure untouched.
start_endpoint --page-size 1
mkradl 2
create 2
LOST=$(lose 1)
expect_grep '^i-[0-9a-f]+$' /dev/stdin "the store had VM 1 as an instance id before losing it" <<X
$LOST
X
OTHER=0dd0dd0d-1111-4222-8333-444444444444
# a group that lost its tag (found by name only) and a second tagged one
seeded=$(ep_seed '{"groups": [{"name": "imc-'"$ID"'-untagged"}, {"name": "imc-'"$ID"'-extra", "tags": {"imc-infra-id": "'"$ID"'"}}],
  "instances": [{"tags": {"imc-infra-id": "'"$ID"'", "Name": "lost"}, "state": "stopped",
  "groups": ["imc-'"$ID"'-public"]}], "addresses": [{"tags": {"imc-infra-id": "'"$ID"'"}, "instance": 0}]}')
SEEDED=$(echo "$seeded" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["instances"][0])')
other=$(ep_seed '{"groups": [{"name": "imc-'"$OTHER"'-public", "tags": {"imc-infra-id": "'"$OTHER"'"}}],
  "keys": [{"name": "imc-'"$OTHER"'", "tags": {"imc-infra-id": "'"$OTHER"'"}}],
  "instances": [{"tags": {"imc-infra-id": "'"$OTHER"'"}, "groups": ["imc-'"$OTHER"'-public"]}],
  "addresses": [{"tags": {"imc-infra-id": "'"$OTHER"'"}, "instance": 0}]}')
echo "$other" >"$TMPD/other.json"
OI=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["instances"][0])' "$TMPD/other.json")
OG=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["groups"][0])' "$TMPD/other.json")
OA=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["addresses"][0])' "$TMPD/other.json")
expect_eq "$(ep_left instances)" 4 "before destroy: 2 created, 1 seeded orphan, 1 of another infrastructure"
: >"$EP_LOG"
destroy
expect_eq "$RC" 0 "imc destroy exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/err" | head -10
expect_eq "$(ep_py "st['all']['$LOST']['state']")" terminated "the instance the store lost is terminated"
expect_eq "$(ep_py "st['all']['$SEEDED']['state']")" terminated "the tagged instance the store never knew is terminated"
expect_eq "$(ep_py "sum(1 for e in log if e['action'] == 'DescribeInstances' and 'NextToken' in e['params']) > 0")" True \
	"the sweep followed DescribeInstances' nextToken"
expect_eq "$(ep_py "sum(1 for e in log if e['action'] == 'DescribeSecurityGroups' and 'NextToken' in e['params']) > 0")" True \
	"the sweep followed DescribeSecurityGroups' nextToken"
# every instance of ours was terminated before any group, address or key request
ep_py "(max((st['all'][i]['terminated_seq'] or 10**9) for i in ('$LOST', '$SEEDED')), min(e['seq'] for e in log if e['action'] in ('DeleteSecurityGroup', 'ReleaseAddress', 'DisassociateAddress', 'DeleteKeyPair')))" >"$TMPD/order"
sed 's/^/# (terminated at request, first delete at request) = /' "$TMPD/order"
expect_eq "$(ep_py "max((st['all'][i]['terminated_seq'] or 10**9) for i in ('$LOST', '$SEEDED')) < min(e['seq'] for e in log if e['action'] in ('DeleteSecurityGroup', 'ReleaseAddress', 'DisassociateAddress', 'DeleteKeyPair'))")" True \
	"groups, addresses and the key pair are deleted only after the instances are terminated"
expect_eq "$(ep_count DeleteSecurityGroup DependencyViolation)" 0 "so no group deletion met DependencyViolation"
expect_eq "$(ep_count ReleaseAddress)" 1 "the tagged elastic IP is released"
expect_eq "$(ep_count DeleteSecurityGroup)" 3 "its three groups (one found by its name only) are deleted"
expect_eq "$(ep_py "[e['action'] for e in log if any(x in str(v) for v in e['params'].values() for x in ('$OTHER', '$OI', '$OG', '$OA'))]")" "[]" \
	"no request names the other infrastructure's instance, group, key pair or address"
expect_eq "$(ep_py "(st['all']['$OI']['state'], st['security_groups'], st['key_pairs'], st['addresses'])")" \
	"('running', ['imc-$OTHER-public'], ['imc-$OTHER'], ['$OA'])" "the other infrastructure's resources are all still there"
expect_eq "$(ep_py "st['instances']")" "['$OI']" "of ours, nothing is left"
expect_no_violations

# 2. Throttling during the sweep and DependencyViolation while an ENI lingers.
start_endpoint --eni-linger 3
mkradl 1
create 1
LOST=$(lose 0)
ep_inject "TerminateInstances:RequestLimitExceeded:503:6"
ep_inject "DescribeInstances:Throttling:400:7:from=2"
ep_inject "DeleteSecurityGroup:RequestLimitExceeded:503:6"
ep_inject "DeleteKeyPair:RequestLimitExceeded:503:6"
: >"$EP_LOG"
destroy
expect_eq "$RC" 0 "destroy under throttling and DependencyViolation exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/err" | head -10
expect_eq "$(ep_count TerminateInstances RequestLimitExceeded)/$(ep_count TerminateInstances)" 6/1 \
	"TerminateInstances was throttled 6 times (past ec2_call's 5 attempts) and then went through"
expect_eq "$(ep_count DescribeInstances Throttling)" 7 "the polls were throttled 7 times and carried on"
expect_eq "$(ep_count DeleteSecurityGroup DependencyViolation)" 3 "DependencyViolation was retried while the interface lingered"
expect_eq "$(ep_count DeleteSecurityGroup RequestLimitExceeded)/$(ep_count DeleteSecurityGroup)" 6/1 "the throttled group deletion was retried until it went through"
expect_eq "$(ep_count DeleteKeyPair RequestLimitExceeded)" 6 "the throttled key pair deletion was retried"
expect_eq "$(ep_py "st['all']['$LOST']['state']")" terminated "the lost instance is terminated"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left"
expect_no_violations

# 3. The deadline: an instance that stays shutting-down longer than the
# sweep may wait. Nothing it depends on is deleted; exit 75 names what is
# left; a second destroy (with more time) finishes.
start_endpoint --terminate-polls 60
mkradl 1
create 1
LOST=$(lose 0)
: >"$EP_LOG"
IMC_EC2_SWEEP_DEADLINE=120 destroy
expect_eq "$RC" 75 "a sweep past its deadline exits 75 (retryable)"
if [ -e "$IMC_HOME/ec2/$ID.json" ]; then ok "the regions file is kept for the next destroy"; else not_ok "the regions file is kept for the next destroy"; fi
expect_grep "ec2 \(us-east-1\): 1 instance\(s\) of infrastructure $ID not terminated within 120 s: $LOST \(shutting-down\)" "$TMPD/err" \
	"the error names the instance and its state"
expect_grep "infrastructure $ID is not completely destroyed; left: instance $LOST \(shutting-down\)" "$TMPD/err" "the error says what is left"
expect_grep "'imc destroy $ID' again finishes the job" "$TMPD/err" "and how to finish"
expect_no_grep 'AKID|SeCrEt' "$TMPD/err" "no credential in the error"
expect_eq "$(ep_count DeleteSecurityGroup)/$(ep_count DeleteKeyPair)" 0/0 "no group or key pair deletion was tried while the instance lives"
expect_eq "$(ep_left3)" 1/1/1 "the instance, its group and the key pair are still there"
"$IMC" list >"$TMPD/list" 2>&1
expect_grep "$ID" "$TMPD/list" "the infrastructure is still listed"
IMC_EC2_SWEEP_DEADLINE=3000 destroy
expect_eq "$RC" 0 "a second destroy finishes the job"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/err" | head -10
expect_eq "$(ep_left3)" 0/0/0 "nothing is left after the second destroy"
if [ -e "$IMC_HOME/ec2/$ID.json" ]; then not_ok "the regions file is gone"; else ok "the regions file is gone"; fi
expect_no_violations

# 4. The sweep fails after the networks are gone from the cloud (an elastic
# IP refused once): the store keeps the network row, so a second destroy
# reopens the cloud and releases it, instead of forgetting it.
start_endpoint
mkradl 1
create 1
lose 0 >/dev/null
ep_seed '{"addresses": [{"tags": {"imc-infra-id": "'"$ID"'"}}]}' >/dev/null
ep_inject "ReleaseAddress:UnauthorizedOperation:403:1"
destroy
expect_eq "$RC" 77 "a refused ReleaseAddress fails the destroy (exit 77)"
expect_grep "left: elastic IP 192\.0\.2\." "$TMPD/err" "the error names the elastic IP left"
expect_eq "$(ep_left3)/$(ep_left addresses)" 0/0/0/1 "instance, group and key pair are gone, the address is not"
destroy
expect_eq "$RC" 0 "a second destroy exits 0"
expect_eq "$(ep_left addresses)" 0 "and releases the address"
expect_no_violations
done_testing
