#!/bin/sh
# t7002: the ec2 backend's retries (botocore's policy for ec2, delays scaled
# to zero): RequestLimitExceeded and 503 replies are retried; a reply lost
# after the cloud acted (injected 'after') is retried without creating a
# second instance, group or key (ClientToken, Duplicate handling); a second
# create (a resumed deployment) reuses everything; and a limit that never
# lifts fails after 5 attempts with a clear error.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

NETS="net:public:public:8080"
VMS="vm:0:ps:$IMG:t3.micro vm:1:wn:$IMG:t3.micro vm:2:wn:$IMG:t3.micro"

start_endpoint --inject RunInstances:RequestLimitExceeded:503:2 \
	--inject DescribeInstances:Unavailable:503:1 \
	--inject RunInstances:InternalError:500:1:after \
	--inject CreateSecurityGroup:RequestLimitExceeded:503:1:after \
	--inject AuthorizeSecurityGroupIngress:InternalError:500:1:after \
	--inject ImportKeyPair:RequestLimitExceeded:503:1:after
drive $NETS $VMS create
drive_ok "create with throttling, 503s and lost replies succeeds"
expect_eq "$(grep -c '^vm [0-2] running us-east-1;i-' "$DOUT")" 3 "the three VMs are running"
expect_eq "$(ep_count RunInstances RequestLimitExceeded)" 2 "RequestLimitExceeded was answered twice"
expect_eq "$(ep_count DescribeInstances Unavailable)" 1 "a 503 on DescribeInstances was answered"
expect_eq "$(ep_count RunInstances InternalError)" 1 "one RunInstances reply was lost after the launch"
expect_eq "$(ep_left launched)" 3 "no duplicate instance: exactly 3 launched"
expect_eq "$(ep_left security_groups)" 1 "no duplicate security group"
expect_eq "$(ep_left key_pairs)" 1 "one key pair"
expect_grep '"code": "InvalidGroup.Duplicate"' "$EP_LOG" "the retried CreateSecurityGroup met its own group"
expect_grep '"code": "InvalidPermission.Duplicate"' "$EP_LOG" "the retried ingress rule met itself"
expect_grep '"code": "InvalidKeyPair.Duplicate"' "$EP_LOG" "the retried ImportKeyPair met its own key"

# A resumed deployment (new process, same infrastructure) creates nothing new.
drive $NETS $VMS create
drive_ok "create again (resumed deployment)"
expect_eq "$(ep_left launched)" 3 "still exactly 3 instances after a second create"
expect_eq "$(grep -c '^vm [0-2] running ' "$DOUT")" 3 "the same three VMs are reported running"
drive $NETS $VMS destroy
drive_ok "destroy"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left"
expect_no_violations

# Throttled for good: 5 attempts (botocore's max_attempts), then a clear error.
start_endpoint --inject RunInstances:RequestLimitExceeded:503:100
drive $NETS vm:0:ps:$IMG:t3.micro create
expect_eq "$DRC" 69 "a limit that never lifts exits 69 (unavailable)"
expect_eq "$(ep_count RunInstances RequestLimitExceeded)" 5 "RunInstances was tried 5 times"
expect_grep "ec2 \(us-east-1\): cannot create VM 0 .*RequestLimitExceeded" "$DERR" "the error names ec2, the region, the VM and the code"
expect_grep "gave up after 5 attempts" "$DERR" "the error says it gave up after 5 attempts"
expect_grep '^vm 0 failed' "$DOUT" "the VM is failed"
drive $NETS vm:0:ps:$IMG:t3.micro destroy cleanup
drive_ok "destroy after the failure"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left after the failure"

# The endpoint unreachable: connection errors are retried, then reported.
stop_endpoint
drive vm:0:ps:$IMG:t3.micro create
expect_eq "$DRC" 69 "an unreachable endpoint exits 69"
expect_grep "ec2 \(us-east-1, http://127.0.0.1:$PORT/\): cannot .*onnect" "$DERR" "the error names the endpoint and the connection failure"
done_testing
