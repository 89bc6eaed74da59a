#!/bin/sh
# t2006: the deployment worker on the embedded local cloud (real SSH): steps
# in order with their durations, the IM_* variables and -e values reach the
# recipes, fetched files and summary values come back as outputs, a failing
# reconfigure leaves VMs unconfigured (exit 1), destroy removes everything.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"
R="$top_srcdir/tests/cli/data"
: "${PYTHON3:=python3}"
ID=""
at_exit '[ -z "$ID" ] || "$IMC" destroy "$ID" >/dev/null 2>&1'

expect_exit 0 "create on the local cloud" -- "$IMC" create -e greeting=hello "$R/t2-local.radl"
ID=$(head -1 "$TMPD/out")
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "configured"
expect_grep '^  step 1: VM 2 configure hosts: ok \([0-9.]+ s, started \+[0-9.]+ s after create\)$' "$TMPD/out" "step 1 on VM 2 with its duration and start"
expect_grep '^Total: [0-9.]+ s from create' "$TMPD/out" "the total time is shown"
expect_grep '^  step 2: VM 0 configure summary: ok' "$TMPD/out" "step 2 after step 1"
expect_exit 0 "getoutputs" -- "$IMC" getoutputs "$ID"
expect_grep '^test_accuracy = 0.875$' "$TMPD/out" "a fetched summary's values are outputs"
expect_grep '^result/vars = front.localdomain 0 front 2 hello$' "$TMPD/out" "IM_NODE_FQDN, IM_NODE_NUM, IM_MASTER_HOSTNAME, IM_WN_NUM_VMS and -e reach recipes"
expect_exit 0 "getoutputs --json" -- "$IMC" getoutputs --json "$ID"
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["format"] == 1 and d["outputs"]["test_accuracy"] == 0.875 and d["test_accuracy"] == 0.875 and d["files"]["result/summary.json"].startswith("/")' "$TMPD/out" \
	&& ok "getoutputs --json: typed values and file paths" || not_ok "getoutputs --json shape"
expect_exit 0 "getvminfo shows the address" -- "$IMC" getvminfo "$ID" 1 net_interface.0.ip
expect_grep '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' "$TMPD/out" "an IPv4 address"

expect_exit 0 "removeresource" -- "$IMC" removeresource "$ID" 2
expect_exit 0 "the VMs left are contextualized again" -- "$IMC" wait "$ID" 300
expect_exit 0 "getcontmsg" -- "$IMC" getcontmsg "$ID"
[ "$(grep -c 'Contextualization started' "$TMPD/out")" -eq 2 ] && ok "a second contextualization ran" || not_ok "a second contextualization ran"
expect_exit 0 "the hosts of VM 1" -- "$IMC" ssh "$ID" 1 -- cat /etc/hosts
expect_grep 'front.localdomain' "$TMPD/out" "VM 1 still knows the front"
expect_no_grep 'wn-2' "$TMPD/out" "VM 1 no longer lists the removed VM"

expect_exit 1 "a failing reconfigure exits 1" -- "$IMC" reconfigure "$ID" "$R/t2-broken.radl"
expect_exit 0 "getstate after it" -- "$IMC" getstate "$ID"
expect_grep '^VM ID: 1 is in state: unconfigured\.$' "$TMPD/out" "the failing VM is unconfigured"
expect_grep '^VM ID: 0 is in state: configured\.$' "$TMPD/out" "the VM that did not run it stays configured"
expect_grep '^The infrastructure is in state: unconfigured$' "$TMPD/out" "so is the infrastructure"
expect_grep '^  step 1: VM 1 configure broken: failed' "$TMPD/out" "the failed step is shown"
expect_exit 0 "getvmcontmsg has the task output" -- "$IMC" getvmcontmsg "$ID" 1
expect_grep 'step 1 failed' "$TMPD/out" "the VM log says which step failed"

expect_exit 0 "destroy" -- "$IMC" destroy "$ID"
left=$(ip netns list 2>/dev/null | grep -c "$(echo "$ID" | cut -c1-8)")
[ "$left" -eq 0 ] && ok "no namespace left" || not_ok "$left namespaces left"
ID=""
done_testing
