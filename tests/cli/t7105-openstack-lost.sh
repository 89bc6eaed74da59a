#!/bin/sh
# t7105: servers the store lost. A VM whose id the store dropped is found
# again by its metadata (update, destroy); servers, floating IPs (one on a
# lost server, one allocated but never associated) left by a crashed
# process are swept by destroy and cleanup, over paged server lists, while
# another infrastructure's server stays; a destroy that runs out of time
# waiting for a server to go says so and the next one finishes the job.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/openstack/lib-openstack.sh"

: >"$TMPD/all-output"
NETS="net:pub:public net:priv:private"
VMS="vm:1:fe:$OS_IMG host:1:fe nics:1:pub vm:2:wn:$OS_IMG host:2:wn nics:2:priv"
OTHER=00000000-0000-4000-8000-000000000000

start_fake --page-size 1
os_drive $NETS $VMS create
drive_ok "create"
ID1=$(awk '$1 == "vm" && $2 == 1 {print $4}' "$DOUT")
os_drive $NETS $VMS forget:1 update:1
drive_ok "update of a VM whose id the store lost"
expect_grep "^vm 1 running $ID1 172\\.24\\.4\\." "$DOUT" "finds its server by metadata, with its floating IP"
os_seed '{"servers": [{"name": "lost", "metadata": {"imc-infra-id": "'"$OS_INFRA"'", "imc-vm-num": "7"}, "floating_ip": "imc-infra-id='"$OS_INFRA"' imc-vm-num=7"},
	{"name": "theirs", "metadata": {"imc-infra-id": "'"$OTHER"'", "imc-vm-num": "1"}, "floating_ip": "imc-infra-id='"$OTHER"' imc-vm-num=1"}],
	"floatingips": [{"description": "imc-infra-id='"$OS_INFRA"' imc-vm-num=2"}]}' >/dev/null
expect_eq "$(os_left)" 4/4/2/1 "the cloud holds 4 servers (2 lost or foreign) and 4 floating IPs"
: >"$OS_LOG"
os_drive $NETS $VMS forget:1 destroy
drive_ok "destroy with VM 1's id lost and an orphan server"
expect_eq "$(grep -c '^vm [12] off ' "$DOUT")" 2 "both VMs are off"
expect_eq "$(os_py '[m["imc-infra-id"] for m in st["server_metadata"]]')" "['$OTHER']" "only the other infrastructure's server is left"
expect_eq "$(os_py 'st["floatingips"]')" "['172.24.4.12 imc-infra-id=$OTHER imc-vm-num=1']" \
	"only its floating IP is left: the lost server's and the never associated one are released"
expect_eq "$(os_py 'sum(1 for e in log if "marker=" in e["path"]) > 0')" True "the server lists were followed page by page"
os_drive $NETS $VMS cleanup
drive_ok "cleanup"
expect_eq "$(os_left)" 1/1/0/0 "cleanup leaves only the other infrastructure's server and floating IP"

# a crash left a server and groups; only cleanup_infra is run
start_fake
os_drive $NETS $VMS create
os_seed '{"servers": [{"name": "lost", "metadata": {"imc-infra-id": "'"$OS_INFRA"'", "imc-vm-num": "9"}, "floating_ip": "imc-infra-id='"$OS_INFRA"' imc-vm-num=9"}]}' >/dev/null
os_drive cleanup
drive_ok "cleanup of an infrastructure nobody remembers"
expect_eq "$(os_left)" 0/0/0/0 "the sweep by metadata removes servers, floating IPs, groups and the key pair"

# bounded: servers take 5 polls to go; a deadline of 0 s ends the wait
start_fake --delete-polls 5
os_drive $NETS $VMS create
IMC_OPENSTACK_SWEEP_DEADLINE=0 os_drive $NETS $VMS destroy
expect_eq "$DRC" 69 "a destroy that runs out of time exits 69"
expect_grep "is still 'ACTIVE' at the deadline; run destroy again to finish" "$DERR" "and says what to do"
os_drive $NETS $VMS destroy
drive_ok "the next destroy finishes"
expect_eq "$(os_left)" 0/0/0/0 "nothing left"
expect_no_secret "neither the password nor a token is in any output"
done_testing
