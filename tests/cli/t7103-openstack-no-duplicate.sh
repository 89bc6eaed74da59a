#!/bin/sh
# t7103: a server create is never made twice. Nova has no client token, so
# the backend looks for the VM's server (metadata imc-infra-id and
# imc-vm-num) before every attempt: a create answered 500 after the server
# was made, a create throttled (429) before it was made, and a server left
# by an earlier process that crashed before storing its id each end with
# exactly one server per VM.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/openstack/lib-openstack.sh"

: >"$TMPD/all-output"
NETS="net:pub:public net:priv:private"
VMS="vm:1:fe:$OS_IMG host:1:fe nics:1:pub vm:2:wn:$OS_IMG host:2:wn nics:2:priv vm:3:wn:$OS_IMG host:3:wn-3 nics:3:priv"
# the VM numbers of the live servers, sorted
nums() { os_py '" ".join(sorted(m["imc-vm-num"] for m in st["server_metadata"]))'; }

# the first two creates are made, then answered 500 and 502 (the answers are lost)
start_fake --inject 'POST:/servers$:500:1:after' --inject 'POST:/servers$:502:1:after'
os_drive $NETS $VMS create
drive_ok "create succeeds although two creates were answered 5xx after the server was made"
expect_eq "$(grep -c '^vm [1-3] running ' "$DOUT")" 3 "the three VMs run"
expect_eq "$(os_py 'st["servers_created"]')" 3 "the cloud made three servers, not five"
expect_eq "$(nums)" "1 2 3" "one server per VM"
expect_eq "$(os_count POST '/servers$' 500)$(os_count POST '/servers$' 502)" 11 "the 5xx answers happened"
expect_eq "$(os_py 'len(set(l.split()[3] for l in open("'"$DOUT"'") if l.startswith("vm ")))')" 3 "each VM has its own server id"
os_drive $NETS $VMS destroy
expect_eq "$(os_left)" 0/0/0/0 "destroy leaves nothing"

# throttled before acting: retried after looking, made once
start_fake --inject 'POST:/servers$:429:2'
os_drive $NETS $VMS create
drive_ok "create succeeds through two 429s on the create"
expect_eq "$(os_py 'st["servers_created"]')" 3 "three servers"
expect_eq "$(os_count GET '/servers/detail$')" 5 "the servers were looked for before each of the 5 create attempts"
os_drive $NETS $VMS destroy
expect_eq "$(os_left)" 0/0/0/0 "destroy leaves nothing"

# a crash after the create of VM 2: its server exists, the store has no id
start_fake
os_seed '{"servers": [{"name": "wn", "metadata": {"imc-infra-id": "'"$OS_INFRA"'", "imc-vm-num": "2"}}]}' >/dev/null
os_drive $NETS $VMS create
drive_ok "create after a crash"
expect_eq "$(os_py 'st["servers_created"]')" 3 "the earlier server of VM 2 is taken: three servers in all"
expect_eq "$(nums)" "1 2 3" "one server per VM"
# a server of another infrastructure with the same VM number is not taken
start_fake
os_seed '{"servers": [{"name": "wn", "metadata": {"imc-infra-id": "00000000-0000-4000-8000-000000000000", "imc-vm-num": "2"}}]}' >/dev/null
os_drive $NETS $VMS create destroy
drive_ok "create and destroy next to another infrastructure's server"
expect_eq "$(os_py 'st["servers_created"]')" 4 "another infrastructure's server is not taken"
expect_eq "$(os_left)" 1/0/0/0 "and destroy leaves it alone"
expect_no_secret "neither the password nor a token is in any output"
done_testing
