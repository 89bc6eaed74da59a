#!/bin/sh
# t7001: the ec2 backend through the cloud_ec2 table (tests/helper/cloud-drive)
# against the local endpoint answering from the recorded EC2 responses:
# a 1 PS + 2 worker infrastructure reaches running VMs with addresses,
# stop/start/reboot work, destroy terminates everything and deletes the key
# pair and the security groups; cleanup finds an orphan by its tag.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

start_endpoint --not-found-first 1
NETS="net:public:public:8080/tcp,10.0.0.0/8-2222:2230/udp,0/icmp net:private:private"
VMS="vm:0:ps:$IMG:t3.micro vm:1:wn:$IMG:-:2:4000:0:20 vm:2:wn:$IMG:-:2:4000"

drive $NETS $VMS user:0:ubuntu user:2:trainer create update
drive_ok "create 1 ps + 2 workers"
expect_grep '^vm 0 running us-east-1;i-[0-9a-f]+ [0-9.]+ [0-9.]+ ' "$DOUT" "ps is running with a private and a public address"
expect_eq "$(grep -c '^vm [12] running us-east-1;i-' "$DOUT")" 4 "both workers running after create and after update"
expect_eq "$(ep_count RunInstances)" 3 "three RunInstances"
expect_eq "$(ep_count DescribeInstances InvalidInstanceID.NotFound)" 1 "a NotFound right after launch was waited out"
expect_eq "$(ep_count ImportKeyPair)" 1 "the public key is imported once"
expect_eq "$(ep_count CreateSecurityGroup)" 1 "one security group (one network used)"
# self + 8080/tcp + 2222-2230/udp from 10/8 + icmp + 22/tcp (public)
expect_eq "$(ep_count AuthorizeSecurityGroupIngress)" 5 "ingress: the group itself, 3 outports and 22/tcp"
expect_grep '"InstanceType": "t3.micro"' "$EP_LOG" "instance_type is used as given"
expect_grep '"InstanceType": "t3.medium"' "$EP_LOG" "2 CPUs + 4000 MB pick t3.medium"
expect_grep '"ClientToken": "imc-'"$INFRA"'-1"' "$EP_LOG" "ClientToken is infra id + VM number"
expect_grep '"BlockDeviceMapping.1.Ebs.VolumeSize": "19"' "$EP_LOG" "disk.1 of 20 GB becomes a 19 GiB EBS volume"
expect_grep '"IpPermissions.1.IpRanges.1.CidrIp": "10.0.0.0/8"' "$EP_LOG" "outport CIDR is used"
expect_grep '"IpPermissions.1.Groups.1.GroupId": "sg-' "$EP_LOG" "traffic from the group itself is allowed"
expect_grep '"IpPermissions.1.FromPort": "22"' "$EP_LOG" "22/tcp is open on the public network"
"$PY" - "$EP_LOG" "$PUBKEY" >"$TMPD/ud" <<'PYEOF'
import base64, json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["action"] == "RunInstances":
        ud = e["params"].get("UserData")
        print(e["params"]["ClientToken"][-1], base64.b64decode(ud).decode() if ud else "-")
PYEOF
expect_grep '^0 -$' "$TMPD/ud" "the image's default user (ubuntu) needs no user data"
expect_grep '^  - name: trainer$' "$TMPD/ud" "another login user is created by cloud-init user data"
expect_grep "^      - \"$PUBKEY\"\$" "$TMPD/ud" "with the infrastructure's public key"

: >"$EP_LOG"
drive $NETS $VMS update stop:1 start:1 reboot:2
drive_ok "stop/start/reboot"
expect_grep '^vm 1 stopped ' "$DOUT" "stop reaches stopped"
expect_eq "$(grep -A3 '^# after start:1' "$DOUT" | grep -cE '^vm 1 running us-east-1;i-[^ ]+ [0-9.]+ [0-9.]+ ')" 1 "start reaches running again with addresses"
expect_eq "$(ep_count RebootInstances)" 1 "reboot sends RebootInstances"

: >"$EP_LOG"
drive $NETS $VMS update destroy
drive_ok "destroy"
expect_eq "$(grep -c '^vm [0-2] off ' "$DOUT")" 3 "every VM is off after destroy"
expect_eq "$(ep_count TerminateInstances)" 3 "destroy terminates the three instances"
expect_eq "$(ep_count DeleteKeyPair)" 1 "destroy deletes the key pair"
expect_eq "$(ep_count DeleteSecurityGroup)" 1 "destroy deletes the security group"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left in the cloud"
expect_no_violations

# Orphans: the store lost VM 1's instance id; destroy finds it by its
# ClientToken; cleanup_infra finds what carries the tag.
start_endpoint
drive $NETS $VMS create forget:1 destroy
drive_ok "destroy with a lost instance id"
expect_grep '^vm 1 off us-east-1;i-' "$DOUT" "a VM whose id was lost is found by its client token and destroyed"
expect_eq "$(ep_left3)" 0/0/0 "nothing is left after destroy of a VM with a lost id"
start_endpoint
drive $NETS vm:0:ps:$IMG:t3.micro vm:1:wn:$IMG:t3.micro create
expect_eq "$(ep_left instances)" 2 "two instances before the store 'loses' them"
drive $NETS cleanup
drive_ok "cleanup_infra succeeds"
expect_eq "$(ep_count TerminateInstances)" 1 "cleanup terminates the tagged orphans in one call"
expect_eq "$(ep_left3)" 0/0/0 "cleanup leaves nothing"
drive $NETS cleanup
drive_ok "cleanup is idempotent"
expect_no_violations

# Two regions: groups and key pairs are regional; a later process (no
# memory of the first) destroys both regions' resources, found through the
# regions file in $IMC_HOME and the tags.
start_endpoint
drive $NETS vm:0:ps:$IMG:t3.micro vm:1:wn:aws://eu-west-1/ami-0def5678:t3.micro create
drive_ok "create across us-east-1 and eu-west-1"
expect_grep '^vm 1 running eu-west-1;i-' "$DOUT" "the eu-west-1 VM runs there"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["regions"]; print(" ".join("%s:%d/%d/%d" % (k, len(v["instances"]), len(v["security_groups"]), len(v["key_pairs"])) for k, v in sorted(r.items())))' "$EP_STATE" >"$TMPD/regions"
expect_grep '^eu-west-1:1/1/1 us-east-1:1/1/1$' "$TMPD/regions" "one instance, group and key pair in each region"
drive $NETS cleanup
drive_ok "cleanup from a new process"
expect_eq "$(ep_left3)" 0/0/0 "both regions are empty after cleanup"
expect_eq "$(ls "$TMPD/ec2" 2>/dev/null | wc -l)" 0 "the regions file is removed once everything is gone"
expect_no_violations
done_testing
