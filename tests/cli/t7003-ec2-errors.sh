#!/bin/sh
# t7003: the ec2 backend's final errors and secrets: UnauthorizedOperation
# and InvalidAMIID.NotFound are reported once, clearly (system, region,
# cause), with their exit codes, and what was made before them is cleaned
# up by destroy; bad input is refused before any request; planted keys and
# session token never appear in any output, even with IMC_LOG=trace.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

NETS="net:public:public:8080"
VMS="vm:0:ps:$IMG:t3.micro vm:1:wn:$IMG:t3.micro vm:2:wn:$IMG:t3.micro"
ALL_OUT="$TMPD/all-output"
: >"$ALL_OUT"
keep() { cat "$DOUT" "$DERR" >>"$ALL_OUT"; }

start_endpoint --token "$TOKEN" --inject RunInstances:UnauthorizedOperation:403:100
TAUTH="$AUTH; token = $TOKEN"
IMC_LOG=trace drive -a "$TAUTH" $NETS $VMS create; keep
expect_eq "$DRC" 77 "UnauthorizedOperation exits 77 (credentials rejected)"
expect_eq "$(ep_count RunInstances UnauthorizedOperation)" 3 "each launch is tried once, never retried"
expect_grep "error: ec2 \(us-east-1\): cannot create VM 0 \(system 'ps', image ami-0abc1234, type t3.micro\): UnauthorizedOperation: injected by the test \(request id [0-9a-f-]+\)" "$DERR" "the error names ec2, the region, the VM, the image and the cause"
expect_eq "$(grep -c '^vm [0-2] failed' "$DOUT")" 3 "every VM is failed"
expect_eq "$(ep_left security_groups)/$(ep_left key_pairs)" 1/1 "the group and key made before the failure exist"
IMC_LOG=trace drive -a "$TAUTH" $NETS $VMS destroy cleanup; keep
expect_eq "$DRC" 0 "destroy after the failure succeeds"
expect_eq "$(ep_left3)" 0/0/0 "destroy removes the group and the key pair"
expect_eq "$(ep_left launched)" 0 "no instance was ever launched"
expect_no_violations

start_endpoint --bad-ami ami-0abc1234
drive $NETS vm:0:ps:$IMG:t3.micro create; keep
expect_eq "$DRC" 65 "InvalidAMIID.NotFound exits 65 (bad input)"
expect_grep "ec2 \(us-east-1\): cannot create VM 0 .*InvalidAMIID.NotFound: The image id '\[ami-0abc1234\]' does not exist" "$DERR" "the error names the image and the code"
expect_eq "$(ep_count RunInstances InvalidAMIID.NotFound)" 1 "InvalidAMIID is not retried"
drive $NETS vm:0:ps:$IMG:t3.micro destroy; keep
drive_ok "destroy after a bad image"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left"

: >"$EP_LOG"
drive $NETS vm:0:ps:aws://us-east-1/not-an-ami create; keep
expect_eq "$DRC" 65 "a malformed image URL exits 65"
expect_grep "system 'ps': malformed EC2 image URL 'aws://us-east-1/not-an-ami'" "$DERR" "the bad URL and its system are named"
drive vm:0:ps:$IMG:- vm:1:ps:$IMG:-:512:0:0 create; keep
expect_grep "system 'ps': no EC2 instance type has 512 CPUs" "$DERR" "an impossible size is refused with a hint"
drive "net:public:public:80/TCP" vm:0:ps:$IMG create; keep
expect_eq "$DRC" 65 "bad outports exit 65"
expect_grep "network 'public': invalid outports entry '80/TCP'" "$DERR" "the bad outports entry is named"
expect_eq "$(ep_count RunInstances)" 0 "no launch for bad input"
drive -a "type = EC2; username = $AK; host = http://127.0.0.1:$PORT" vm:0:ps:$IMG create; keep
expect_eq "$DRC" 65 "a missing secret key exits 65"
expect_grep "needs 'username' \(the access key id\) and 'password'" "$DERR" "the missing key is explained"

# A wrong secret key: the endpoint refuses the signature.
IMC_LOG=trace drive -a "type = EC2; username = $AK; password = WrongSecretKey123; host = http://127.0.0.1:$PORT" vm:0:ps:$IMG:t3.micro create; keep
expect_grep "cannot .*ImcTestViolation: SigV4: signature does not match" "$DERR" "a wrong secret is reported, not retried"
sed -i '/signature does not match/d' "$EP_LOG"

for s in "$SK" "$TOKEN" "$AK" WrongSecretKey123; do
	if grep -qF -- "$s" "$ALL_OUT"; then not_ok "a credential leaked into the output: ${s%%????????????}..."; else ok "credential never printed (${#s} chars)"; fi
done
expect_grep 'DescribeSecurityGroups' "$ALL_OUT" "the trace did log the requests"
done_testing
