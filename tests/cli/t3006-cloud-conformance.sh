#!/bin/sh
# t3006: every registered cloud backend (tests/helper/cloud-drive --list, so
# a new backend is picked up) goes through the same life through its table:
# create 2 networks and 3 VMs, update (state and addresses), stop/start
# where it has CLOUD_CAP_STOP, destroy, destroy again from a new process
# (succeeds and changes nothing), cleanup_infra; then nothing of the
# infrastructure is left, and no secret (the credential's, the
# infrastructure's private key) is in any output, at log level trace.
# How each backend is reached and what "left" means for it are the hooks
# below: setup_NAME (driver options; a backend without one runs with
# '-c NAME' when it needs no credentials, else is not runnable here) and
# left_NAME (what the cloud still holds, one line each), and optionally
# check_NAME (the backend's own checks after its run).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/local/lib-local.sh"
. "$top_srcdir/tests/docker/lib-docker.sh"
# the EC2 test endpoint (tests/ec2/ec2-endpoint.py), for the ec2 backend;
# lib-ec2.sh replaces the EXIT trap: put lib.sh's back
. "$top_srcdir/tests/ec2/lib-ec2.sh"
trap lib_exit EXIT
at_exit stop_endpoint
# the fake OpenStack (tests/openstack/openstack-fake.py), for openstack
. "$top_srcdir/tests/openstack/lib-openstack.sh"

DRIVE="$top_builddir/tests/helper/cloud-drive"
[ -x "$DRIVE" ] || { not_ok "tests/helper/cloud-drive is built"; exit 1; }
export IMC_LOG=trace
export IMC_LOCAL_RUNDIR="$TMPD/run"
unset IMC_LOCAL_MODE IMC_LOCAL_FAULT IMC_DUMMY_FAIL IMC_DUMMY_FAIL_VM

# ---- per-backend hooks ----
# setup_NAME: sets ARGS (driver options), IMAGE and TYPE (of every VM, "-"
# for none), SECRETS (values no output may hold); returns 1 (with a reason
# on stderr) when this machine cannot run the backend.
setup_dummy() {
	export IMC_DUMMY_LOG="$TMPD/dummy-calls"
	: >"$IMC_DUMMY_LOG"
	ARGS="-c dummy"
}
# a dummy VM or network exists from its create to its destroy (call log)
left_dummy() {
	awk '$1 == "vm_create" || $1 == "net_create" { sub(/_create$/, "", $1); have[$1 " " $2] = 1 }
	     $1 == "vm_destroy" || $1 == "net_destroy" { sub(/_destroy$/, "", $1); delete have[$1 " " $2] }
	     END { for (k in have) print k }' "$IMC_DUMMY_LOG" | sort
}
setup_local() {
	[ -x /usr/sbin/sshd ] || { echo "needs /usr/sbin/sshd (openssh-server)" >&2; return 1; }
	ARGS="-c local"
	# its VMs are real processes and namespaces: gone even if a check aborts
	at_exit "\"$DRIVE\" -c local -H \"$IMC_HOME\" -i $ID cleanup >/dev/null 2>&1"
}
left_local() { local_leftovers "$IMC_HOME" "$ID"; }
setup_ec2() {
	start_endpoint
	ARGS="-a $AUTH"
	IMAGE=$IMG
	TYPE=t3.micro
	SECRETS="$AK $SK"
}
# the endpoint saw no request that breaks the EC2 API's rules
check_ec2() { expect_no_violations; }
# what the endpoint holds: instances (not terminated), groups, key pairs
left_ec2() {
	"$PY" -c 'import json, sys
st = json.load(open(sys.argv[1]))
for k in ("instances", "security_groups", "key_pairs"):
    for x in st[k]:
        print(k, x if isinstance(x, str) else json.dumps(x, sort_keys=True))' "$EP_STATE"
}

setup_openstack() {
	start_fake
	ARGS="-a $OS_AUTH"
	IMAGE=$OS_IMG
	SECRETS="$OS_PASS"
}
# what the fake holds: servers, floating IPs, groups, key pairs
left_openstack() {
	"$PY" -c 'import json, sys
st = json.load(open(sys.argv[1]))
for k in ("servers", "floatingips", "security_groups", "key_pairs"):
    for x in st[k]:
        print(k, x)' "$OS_STATE"
}
# a daemon of the test's own (tests/docker/lib-docker.sh), the node image
# loaded into it; what is left is what the daemon lists by imc's label
setup_docker() {
	docker_start || return 1
	ARGS="-a $DOCKER_AUTH"
	IMAGE=$DOCKER_IMAGE
}
left_docker() { docker_left "$ID"; }

# run DESCRIPTION ARGS...: the driver on this backend; output in $TMPD/out
# and $TMPD/err, both kept for the secret check
run() {
	desc=$1
	shift
	# ARGS holds an auth line with spaces: split it as options by hand
	case $ARGS in
	-a\ *) expect_exit 0 "$B: $desc" -- "$DRIVE" -a "${ARGS#-a }" -H "$IMC_HOME" -i "$ID" "$@" ;;
	*) expect_exit 0 "$B: $desc" -- "$DRIVE" $ARGS -H "$IMC_HOME" -i "$ID" "$@" ;;
	esac
	cat "$TMPD/out" "$TMPD/err" >>"$TMPD/all-output"
}
# vms_after OP: the VM lines printed after OP
vms_after() {
	awk -v op="# after $1" '$0 == op { on = 1; next } /^# after / { on = 0 } on && $1 == "vm"' "$TMPD/out"
}
# expect_vms OP STATE DESCRIPTION: every VM line after OP has STATE, a
# cloud id and (running) a public or private address
expect_vms() {
	vms_after "$1" >"$TMPD/vms"
	bad=$(awk -v st="$2" '$3 != st || $4 == "-" || (st == "running" && $5 == "-" && $6 == "-")' "$TMPD/vms")
	if [ "$(wc -l <"$TMPD/vms")" -eq 3 ] && [ -z "$bad" ]; then ok "$B: $3"
	else not_ok "$B: $3"; sed 's/^/#   /' "$TMPD/vms"; fi
}

: >"$TMPD/all-output"
"$DRIVE" --list >"$TMPD/backends" || not_ok "cloud-drive --list"
expect_grep '^local ' "$TMPD/backends" "the registry lists the embedded local backend"
# (a for loop: the commands inside must not read the list from stdin)
for B in $(cut -d' ' -f1 "$TMPD/backends"); do
	CAPS=$(awk -v b="$B" '$1 == b {$1 = ""; print}' "$TMPD/backends")
	ID=$(cat /proc/sys/kernel/random/uuid)
	INFRA="$IMC_HOME/infra/$ID"
	ARGS="" IMAGE=- TYPE=- SECRETS=""
	if command -v "setup_$B" >/dev/null; then
		"setup_$B" 2>"$TMPD/why" || { echo "# $B: not runnable here: $(cat "$TMPD/why")"; continue; }
	else
		case " $CAPS " in
		*" no-credentials "*) ARGS="-c $B" ;;
		*) echo "# $B: needs credentials and has no test endpoint here"; continue ;;
		esac
	fi
	ITEMS="net:front:public net:back:private
		vm:1:fe:$IMAGE:$TYPE host:1:fe nics:1:front
		vm:2:wn:$IMAGE:$TYPE host:2:wn-2 nics:2:back
		vm:3:wn:$IMAGE:$TYPE host:3:wn-3 nics:3:back"
	run "keygen" keygen
	case " $CAPS " in *" stop "*) STOPSTART="stop:2 update:2 start:2" ;; *) STOPSTART="" ;; esac
	# VM 4 is added after the others, on a network made by the first
	# create, then removed alone (imc's addresource and removeresource)
	ADD="vm:4:wn:$IMAGE:$TYPE host:4:wn-4 nics:4:back create:4 update:4 destroy:4"
	run "create, update, stop/start, add and remove a VM, destroy" $ITEMS create update $STOPSTART \
		$ADD destroy
	expect_grep '^created 3/3 ' "$TMPD/out" "$B: create brings up the 3 VMs"
	expect_eq "$(grep -c '^net ' "$TMPD/out")" 2 "$B: create makes the 2 networks"
	expect_vms create running "after create every VM runs with a cloud id and an address"
	expect_vms update running "update reads them running with their addresses"
	if [ -n "$STOPSTART" ]; then
		expect_eq "$(vms_after stop:2 | awk '$2 == 2 {print $3}')" stopped "$B: stop stops VM 2"
		expect_eq "$(vms_after update:2 | awk '$2 == 2 {print $3}')" stopped "$B: update reads VM 2 stopped"
		expect_eq "$(vms_after start:2 | awk '$2 == 2 {print $3}')" running "$B: start runs VM 2 again"
	fi
	expect_grep '^added 4 running$' "$TMPD/out" "$B: a VM added later runs"
	expect_eq "$(vms_after update:4 | awk '$2 == 4 && $3 == "running" && $5$6 != "--"' | wc -l)" 1 \
		"$B: update reads the added VM running with an address"
	expect_eq "$(vms_after destroy:4 | awk '$2 == 4 {print $3}')" off "$B: removing VM 4 turns it off"
	expect_eq "$(vms_after destroy:4 | awk '$2 != 4 && $3 == "running"' | wc -l)" 3 \
		"$B: and leaves the other three running"
	expect_eq "$(vms_after destroy | awk '$3 == "off"' | wc -l)" 4 "$B: destroy turns every VM off"
	{ "left_$B" 2>/dev/null; } >"$TMPD/left1"
	run "destroy again, from a new process" $ITEMS destroy
	expect_eq "$(vms_after destroy | awk '$3 == "off"' | wc -l)" 3 "$B: every VM is still off"
	{ "left_$B" 2>/dev/null; } >"$TMPD/left2"
	if cmp -s "$TMPD/left1" "$TMPD/left2"; then ok "$B: the second destroy changes nothing"
	else not_ok "$B: the second destroy changes nothing"; diff "$TMPD/left1" "$TMPD/left2" | sed 's/^/#   /'; fi
	run "cleanup_infra" cleanup
	if command -v "left_$B" >/dev/null; then
		"left_$B" >"$TMPD/left"
		if [ -s "$TMPD/left" ]; then not_ok "$B: nothing of the infrastructure is left"; sed 's/^/#   /' "$TMPD/left"
		else ok "$B: nothing of the infrastructure is left"; fi
	else
		echo "# $B: no left_$B probe: what it leaves behind is not checked"
	fi
	# no secret in any output: the credential's values and the private key
	SECRETS="$SECRETS $(grep -v '^-----' "$INFRA/id_ed25519")"
	for s in $SECRETS; do
		if grep -qF -- "$s" "$TMPD/all-output"; then not_ok "$B: a secret is in the output (${#s} chars)"
		else ok "$B: a secret of ${#s} chars is in no output"; fi
	done
	if command -v "check_$B" >/dev/null; then "check_$B"; fi
	stop_endpoint
done
expect_grep 'trace|debug' "$TMPD/all-output" "the outputs were logged at trace level"
done_testing
