#!/bin/sh
# t7104: a server that goes to ERROR fails its VM with Nova's fault message
# while the other VMs come up; destroy removes the failed server too (Nova
# deletes servers in ERROR), with its groups and key pair. An image, a
# flavor or an image URL that cannot work stops before anything is made in
# the cloud, with an error naming it.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/openstack/lib-openstack.sh"

: >"$TMPD/all-output"
NETS="net:pub:public net:priv:private"
VMS="vm:1:fe:$OS_IMG host:1:fe nics:1:pub vm:2:wn:$OS_IMG host:2:wn nics:2:priv vm:3:wn:$OS_IMG host:3:wn-3 nics:3:priv"

start_fake --error-server 2 --build-polls 2
os_drive $NETS $VMS create
expect_eq "$DRC" 1 "create fails (exit 1) when a server goes to ERROR"
expect_grep 'openstack: VM 2 \(server [0-9a-f-]{36}\) went to ERROR: No valid host was found\.' "$DERR" \
	"the error names the VM, its server and Nova's fault"
expect_grep '^vm 2 failed ' "$DOUT" "VM 2 is failed"
expect_eq "$(grep -c '^vm [13] running ' "$DOUT")" 2 "VMs 1 and 3 run"
expect_eq "$(os_py 'st["servers_created"]')" 3 "no server was made in place of the failed one"
os_drive $NETS $VMS update:2
expect_grep '^vm 2 failed ' "$DOUT" "update reads the ERROR server as failed"
os_drive $NETS $VMS destroy
drive_ok "destroy"
expect_eq "$(os_count DELETE '/compute/v2.1/servers/')" 3 "destroy deletes the failed server too"
expect_eq "$(os_left)" 0/0/0/0 "nothing left"

start_fake
: >"$OS_LOG"
os_drive $NETS vm:1:fe:ost://127.0.0.1/no-such-image host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "an unknown image exits 65"
expect_grep "openstack: image 'no-such-image' does not exist" "$DERR" "and is named"
expect_eq "$(os_count GET '/v2/images')" 1 "Glance was asked by id, then by name"
os_drive $NETS vm:1:fe:ost://127.0.0.1/cirros-0.3.2-x86_64-disk host:1:fe nics:1:pub create destroy
drive_ok "an image named by its Glance name works"
expect_eq "$(os_py '[e["body"]["server"]["imageRef"] for e in log if e["path"] == "/compute/v2.1/servers" and e["method"] == "POST"]')" \
	"['$OS_IMAGE_ID']" "the server is made from the image's id"
os_drive $NETS vm:1:fe:ost://keystone.example.org/$OS_IMAGE_ID host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "an image on another host than the auth line's exits 65"
expect_grep "is on another host than the auth line's" "$DERR" "and says why"
os_drive $NETS vm:1:fe:egi://site/appl host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "an EGI AppDB image URL exits 65"
expect_grep "openstack needs disk.0.image.url = 'ost://HOST/IMAGE', not 'egi://site/appl'" "$DERR" "and says which URL is wanted"
os_drive $NETS vm:1:fe:$OS_IMG:-:64:1000000 host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "a size no flavor has exits 65"
expect_grep "openstack: no flavor has 64 CPUs, 953675 MiB of memory" "$DERR" "and gives the size"
os_drive $NETS vm:1:fe:$OS_IMG:m9.huge host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "an unknown instance_type exits 65"
expect_grep "openstack: the cloud has no flavor named 'm9.huge'" "$DERR" "and names it"
os_drive $NETS vm:1:fe:$OS_IMG:-:1:1000:0:20 host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "an extra disk (a Cinder volume) is refused with exit 65"
expect_grep "disk.1: imc's openstack backend makes no volumes" "$DERR" "and says so"
os_drive $NETS vm:1:fe:$OS_IMG:-:1:1000:1 host:1:fe nics:1:pub create
expect_eq "$DRC" 65 "a GPU without a named flavor is refused with exit 65"
expect_grep "gpu.count: imc does not read flavors' PCI aliases" "$DERR" "and says what to do"
expect_eq "$(os_py 'st["servers_created"]')" 1 "none of them made a server"
os_drive $NETS destroy
expect_eq "$(os_left)" 0/0/0/0 "nothing left"
A="type = OpenStack; host = http://127.0.0.1:$OS_PORT/identity; username = $OS_USER; password = $OS_PASS; tenant = $OS_PROJECT; auth_version = 2.0_password"
os_drive -a "$A" $NETS vm:1:fe:$OS_IMG create
expect_eq "$DRC" 65 "auth_version 2.0_password exits 65"
expect_grep "auth_version '2.0_password' is not supported by imc; only 3.x_password" "$DERR" "and says which is"
A="type = OpenStack; host = http://127.0.0.1:$OS_PORT/identity; username = $OS_USER; password = $OS_PASS"
os_drive -a "$A" $NETS vm:1:fe:$OS_IMG create
expect_eq "$DRC" 65 "an auth line without tenant exits 65"
expect_grep "needs 'host', 'username', 'password' and 'tenant'" "$DERR" "and names the fields"
expect_no_secret "neither the password nor a token is in any output"
done_testing
