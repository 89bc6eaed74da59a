#!/bin/sh
# t7101: the openstack backend through its cloud.h table
# (tests/helper/cloud-drive) against the fake OpenStack answering from the
# recorded Keystone, Nova, Neutron and Glance bodies: a front VM on a public
# network and two workers on a private one reach ACTIVE with the flavors
# the RADL sizes ask for, one security group per network with the outports,
# one floating IP for the public VM; stop/start/reboot work; destroy
# releases every floating IP, group and key pair and leaves no server.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/openstack/lib-openstack.sh"

start_fake
: >"$TMPD/all-output"
NETS="net:front:public:8080/tcp,10.0.0.0/8-2222:2230/udp net:back:private"
VMS="vm:1:fe:$OS_IMG:-:2:4000 host:1:fe nics:1:front user:1:cloudadm
     vm:2:wn:$OS_IMG:m1.small host:2:wn-2 nics:2:back user:2:ubuntu
     vm:3:wn:$OS_IMG:m1.l* host:3:wn-3 nics:3:back"

os_drive $NETS $VMS create update
drive_ok "create a front VM and 2 workers"
expect_grep '^vm 1 running [0-9a-f-]{36} 172\.24\.4\.[0-9]+ 10\.0\.0\.[0-9]+ 22 172\.24\.4\.' "$DOUT" \
	"the public VM runs with its floating IP (public) and its fixed IP (private)"
expect_eq "$(grep -cE '^vm [23] running [0-9a-f-]{36} - 10\.0\.0\.[0-9]+ 22 10\.0\.0\.' "$DOUT")" 4 \
	"the workers run with a private address only, after create and after update"
expect_eq "$(os_count POST '/identity/v3/auth/tokens$')" 1 "one Keystone token for the whole command"
expect_eq "$(os_count POST '/compute/v2.1/servers$')" 3 "three servers created"
expect_eq "$(os_py 'st["servers_created"]')" 3 "the cloud made three servers"
expect_eq "$(os_count POST '/os-keypairs$')" 1 "the public key is imported once"
expect_eq "$(os_count POST '/security-groups$')" 2 "one security group per network"
expect_eq "$(os_count GET '/flavors/detail$')" 1 "the flavors are read once"
expect_eq "$(os_py '[e["body"]["server"]["flavorRef"] for e in log if e["path"] == "/compute/v2.1/servers" and e["method"] == "POST"]')" \
	"['3', '2', '4']" "flavors: 2 CPUs + 4000 MB pick m1.medium, m1.small by name, m1.l* is m1.large"
expect_eq "$(os_py 'sorted(str(e["body"]["security_group_rule"].get("port_range_min")) + "/" + e["body"]["security_group_rule"]["protocol"] + ("/self" if e["body"]["security_group_rule"].get("remote_group_id") else "") for e in log if e["path"].endswith("/security-group-rules"))')" \
	"['22/tcp', '2222/udp', '8080/tcp', 'None/tcp/self', 'None/tcp/self', 'None/udp/self', 'None/udp/self']" \
	"rules: the outports, 22/tcp on the public network, tcp and udp from each group itself"
expect_eq "$(os_py '[e["body"]["security_group_rule"].get("remote_ip_prefix") for e in log if e["path"].endswith("/security-group-rules") and e["body"]["security_group_rule"].get("port_range_min") == 2222]')" \
	"['10.0.0.0/8']" "an outport's CIDR is the rule's remote prefix"
expect_eq "$(os_py 'sorted((e["body"]["server"]["metadata"]["imc-vm-num"], e["body"]["server"]["metadata"]["imc-infra-id"] == "'"$OS_INFRA"'", e["body"]["server"]["key_name"]) for e in log if e["path"] == "/compute/v2.1/servers" and e["method"] == "POST")')" \
	"[('1', True, 'imc-$OS_INFRA'), ('2', True, 'imc-$OS_INFRA'), ('3', True, 'imc-$OS_INFRA')]" \
	"every server carries the infrastructure id, its VM number and the key pair"
os_py '"\n".join("%s %s" % (e["body"]["server"]["metadata"]["imc-vm-num"], __import__("base64").b64decode(e["body"]["server"].get("user_data", "LQ==")).decode()) for e in log if e["path"] == "/compute/v2.1/servers" and e["method"] == "POST")' >"$TMPD/ud"
expect_grep '^2 -$' "$TMPD/ud" "the image's default user (ubuntu) needs no user data"
expect_grep '^1 #cloud-config$' "$TMPD/ud" "IM's default login user (cloudadm, what imc's plan gives a VM naming none) needs user data"
expect_grep '^  - name: cloudadm$' "$TMPD/ud" "which creates it"
expect_grep "^      - \"$OS_PUBKEY\"\$" "$TMPD/ud" "with the infrastructure's public key"
expect_eq "$(os_count POST '/floatingips$')" 1 "one floating IP, for the VM on the public network"
expect_eq "$(os_left)" 3/1/2/1 "the cloud holds 3 servers, 1 floating IP, 2 groups, 1 key pair"

: >"$OS_LOG"
os_drive $NETS $VMS stop:2 update:2 start:2 reboot:3
drive_ok "stop/start/reboot"
expect_grep '^vm 2 stopped ' "$DOUT" "stop reaches SHUTOFF"
expect_eq "$(grep -A3 '^# after start:2' "$DOUT" | grep -cE '^vm 2 running [0-9a-f-]{36} - 10\.0\.0\.')" 1 "start reaches ACTIVE again"
expect_eq "$(os_py '[list(e["body"]) for e in log if e["path"].endswith("/action")]')" \
	"[['os-stop'], ['os-start'], ['reboot']]" "the actions are os-stop, os-start and reboot"
expect_eq "$(os_count POST '/floatingips$')" 0 "a restart allocates no floating IP"

: >"$OS_LOG"
os_drive $NETS $VMS destroy
drive_ok "destroy"
expect_eq "$(grep -c '^vm [1-3] off ' "$DOUT")" 3 "every VM is off after destroy"
expect_eq "$(os_count DELETE '/compute/v2.1/servers/')" 3 "destroy deletes the three servers"
expect_eq "$(os_count DELETE '/floatingips/')" 1 "destroy releases the floating IP"
expect_eq "$(os_count DELETE '/security-groups/')" 2 "destroy deletes both groups"
expect_eq "$(os_count DELETE '/os-keypairs/')" 1 "destroy deletes the key pair"
expect_eq "$(os_py 'max(e["seq"] for e in log if e["method"] == "DELETE" and "/servers/" in e["path"]) < min(e["seq"] for e in log if e["method"] == "DELETE" and "/security-groups/" in e["path"])')" \
	True "the groups go only after every server is gone"
expect_eq "$(os_left)" 0/0/0/0 "nothing is left in the cloud"

os_drive $NETS $VMS destroy cleanup
drive_ok "destroy and cleanup again change nothing and succeed"
expect_eq "$(os_left)" 0/0/0/0 "still nothing left"
expect_no_secret "neither the password nor a token is in any output"
done_testing
