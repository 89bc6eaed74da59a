#!/bin/sh
# t2001: the lifecycle of an infrastructure on the dummy cloud, in text and
# --json: create -> getstate -> getinfo -> addresource -> removeresource ->
# stop/start -> export/import -> destroy (twice).
. "$top_srcdir/tests/cli/lib.sh"
R="$top_srcdir/tests/cli/data"
json() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
[ -n "${PYTHON3:-}" ] || PYTHON3=python3

expect_exit 0 "create on the dummy cloud" -- "$IMC" create "$R/t2-cluster.radl"
ID=$(head -1 "$TMPD/out")
expect_grep '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' "$TMPD/out" "create prints the id first"
expect_grep '^VM 2 \(wn\): configured$' "$TMPD/out" "create follows per-VM progress"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "create ends configured"

expect_exit 0 "getstate" -- "$IMC" getstate "$ID"
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "getstate says configured (IM's words)"
expect_grep '^VM ID: 1 is in state: configured\.$' "$TMPD/out" "getstate lists each VM"
expect_exit 0 "getstate --json" -- "$IMC" getstate --json "$ID"
cp "$TMPD/out" "$TMPD/state.json"
if [ "$(json "$TMPD/state.json" "d['format'], d['state']['state'], d['state']['vm_states']['2']")" = "(1, 'configured', 'configured')" ]; then ok "getstate --json has format, state and vm_states"; else not_ok "getstate --json shape"; cat "$TMPD/state.json"; fi
expect_exit 0 "an id prefix is accepted" -- "$IMC" getstate "$(echo "$ID" | cut -c1-8)"

expect_exit 0 "getinfo" -- "$IMC" getinfo "$ID"
expect_grep '^Info about VM with ID: 0$' "$TMPD/out" "getinfo uses IM's header"
expect_grep "net_interface.0.dns_name = 'wn-2.cluster'" "$TMPD/out" "getinfo expands #N# in names"
expect_grep "provider.type = 'dummy'" "$TMPD/out" "getinfo shows the cloud"
expect_exit 0 "getinfo ATTRIBUTE" -- "$IMC" getinfo "$ID" net_interface.0.ip
expect_grep '^10\.' "$TMPD/out" "getinfo ATTRIBUTE prints values"
expect_exit 0 "getvminfo --json" -- "$IMC" getvminfo --json "$ID" 1
expect_grep '"format": 1' "$TMPD/out" "getvminfo --json has a format"
expect_exit 66 "getvminfo of a missing VM" -- "$IMC" getvminfo "$ID" 9

# alter: the cloud applies the new size, and getvminfo shows the VM as it
# is now (its stored size), not the creation RADL's constraints
printf 'system front (\n    cpu.count >= 4 and\n    memory.size >= 2g\n)\n' >"$TMPD/alter.radl"
printf 'system front (\n    cpu.count >= 8 and\n    memory.size >= 8g\n)\n' >"$TMPD/alter2.radl"
expect_exit 0 "getvminfo before alter" -- "$IMC" getvminfo "$ID" 0
expect_grep '^ +cpu\.count = 1 and' "$TMPD/out" "getvminfo shows VM 0's cpu.count (1)"
expect_grep '^ +memory\.size = 512000000 and' "$TMPD/out" "getvminfo shows VM 0's memory.size (512m)"
expect_exit 0 "alter VM 0 to 4 cpus and 2g" -- "$IMC" alter "$ID" 0 "$TMPD/alter.radl"
expect_exit 0 "getvminfo after alter" -- "$IMC" getvminfo "$ID" 0
expect_grep '^ +cpu\.count = 4 and' "$TMPD/out" "getvminfo shows the new cpu.count"
expect_grep '^ +memory\.size = 2000000000 and' "$TMPD/out" "getvminfo shows the new memory.size"
expect_exit 0 "getinfo after alter" -- "$IMC" getinfo "$ID" memory.size
expect_grep '^2000000000$' "$TMPD/out" "getinfo ATTRIBUTE shows the new memory.size"
expect_exit 69 "a failing alter (fail-alter) exits 69" -- env IMC_DUMMY_FAIL=fail-alter "$IMC" alter "$ID" 0 "$TMPD/alter2.radl"
expect_grep 'alter of VM 0 failed' "$TMPD/err" "the failing alter says why"
expect_exit 0 "getvminfo cpu.count after the failed alter" -- "$IMC" getvminfo "$ID" 0 cpu.count
expect_grep '^4$' "$TMPD/out" "a failed alter keeps the old cpu.count"
expect_exit 0 "getvminfo memory.size after the failed alter" -- "$IMC" getvminfo "$ID" 0 memory.size
expect_grep '^2000000000$' "$TMPD/out" "a failed alter keeps the old memory.size"
expect_exit 0 "getradl" -- "$IMC" getradl "$ID"
expect_grep '^deploy wn 2' "$TMPD/out" "getradl gives the RADL back"
expect_exit 0 "getcontmsg" -- "$IMC" getcontmsg "$ID"
expect_grep '^Msg Contextualizator:' "$TMPD/out" "getcontmsg uses IM's header"
expect_exit 0 "list" -- "$IMC" list
expect_grep "^  $ID\$" "$TMPD/out" "list shows the infrastructure"

expect_exit 0 "addresource" -- "$IMC" addresource "$ID" "$R/t2-add.radl"
expect_grep '^Resources with IDs: 3 successfully added\.$' "$TMPD/out" "addresource numbers the new VM 3"
expect_exit 0 "removeresource" -- "$IMC" removeresource "$ID" 1
expect_grep '^Resources with IDs: 1 successfully deleted\.$' "$TMPD/out" "removeresource says which"
expect_exit 0 "addresource --json" -- "$IMC" addresource --json "$ID" "$R/t2-add.radl"
if [ "$(json "$TMPD/out" "d['added']")" = "[4]" ]; then ok "VM numbers are never reused"; else not_ok "VM numbers are never reused"; cat "$TMPD/out"; fi
expect_exit 0 "getstate after add/remove" -- "$IMC" getstate "$ID"
expect_no_grep '^VM ID: 1 ' "$TMPD/out" "removed VM is gone"
expect_grep '^VM ID: 4 is in state: configured\.$' "$TMPD/out" "added VM is configured"

expect_exit 0 "stop" -- "$IMC" stop "$ID"
expect_grep '^Infrastructure successfully stopped$' "$TMPD/out" "stop uses IM's words"
expect_exit 0 "getstate stopped" -- "$IMC" getstate "$ID"
expect_grep '^The infrastructure is in state: stopped$' "$TMPD/out" "infrastructure stopped"
expect_exit 0 "start --json" -- "$IMC" start --json "$ID"
expect_grep '"started": true' "$TMPD/out" "start --json"
expect_exit 0 "getstate started" -- "$IMC" getstate "$ID"
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "started VMs come back configured"
expect_exit 0 "stopvm" -- "$IMC" stopvm "$ID" 2
expect_grep '^VM successfully stopped$' "$TMPD/out" "stopvm uses IM's words"
expect_exit 0 "rebootvm" -- "$IMC" rebootvm "$ID" 2
expect_exit 0 "startvm" -- "$IMC" startvm "$ID" 2

expect_exit 0 "export --delete" -- "$IMC" export --delete "$ID"
cp "$TMPD/out" "$TMPD/export.json"
expect_grep '"kind": "imc-infrastructure"' "$TMPD/export.json" "export is JSON"
expect_exit 0 "list after export --delete" -- "$IMC" list
expect_grep '^No Infrastructures\.$' "$TMPD/out" "export --delete forgets it"
expect_exit 0 "import" -- "$IMC" import "$TMPD/export.json"
expect_grep "^New Inf: $ID\$" "$TMPD/out" "import keeps the id"
expect_exit 0 "getstate after import" -- "$IMC" getstate "$ID"
expect_grep '^VM ID: 4 is in state: configured\.$' "$TMPD/out" "import restores the VMs"
expect_exit 0 "import again gets a new id" -- "$IMC" import --json "$TMPD/export.json"
ID2=$(json "$TMPD/out" "d['id']")
[ "$ID2" != "$ID" ] && ok "second import has its own id" || not_ok "second import has its own id"

expect_exit 0 "destroy" -- "$IMC" destroy "$ID"
expect_grep '^Infrastructure successfully destroyed$' "$TMPD/out" "destroy uses IM's words"
[ ! -e "$IMC_HOME/infra/$ID" ] && ok "destroy removes the infrastructure's directory" || not_ok "destroy removes the directory"
expect_exit 0 "second destroy is a no-op" -- "$IMC" destroy "$ID"
expect_grep 'already destroyed' "$TMPD/out" "second destroy says so"
[ ! -e "$IMC_HOME/infra/$ID" ] && ok "second destroy leaves no directory" || not_ok "second destroy leaves no directory"
expect_exit 66 "getstate of a destroyed infrastructure" -- "$IMC" getstate "$ID"
expect_grep 'destroyed' "$TMPD/err" "getstate says it was destroyed"
# getstate asks the cloud: a VM terminated behind imc's back is 'off'
expect_exit 0 "getstate when the cloud lost VM 0" -- env IMC_DUMMY_FAIL=off IMC_DUMMY_FAIL_VM=0 "$IMC" getstate "$ID2"
expect_grep '^VM ID: 0 is in state: off\.$' "$TMPD/out" "the lost VM is off"
expect_grep '^The infrastructure is in state: off$' "$TMPD/out" "the infrastructure is off"
expect_exit 0 "getvmcontmsg says why" -- "$IMC" getvmcontmsg "$ID2" 0
expect_grep 'the cloud reports this VM off' "$TMPD/out" "the VM log says the cloud reported it off"
expect_exit 0 "destroy --json" -- "$IMC" destroy --json "$ID2"
expect_grep '"destroyed": true' "$TMPD/out" "destroy --json"
expect_exit 66 "destroy of an unknown id" -- "$IMC" destroy 0123abcd
# a cloud that fails to create VMs
sed "s|disk.0.image.url = 'dummy://'\$|disk.0.image.url = 'dummy://fail-create'|" "$R/t2-cluster.radl" >"$TMPD/fail.radl"
expect_exit 1 "create with failing VMs exits 1" -- "$IMC" create "$TMPD/fail.radl"
FID=$(head -1 "$TMPD/out")
expect_grep '^VM 1 \(wn\): failed$' "$TMPD/out" "the failed VMs are reported"
expect_grep '^The infrastructure is in state: failed$' "$TMPD/out" "the infrastructure failed"
expect_grep '^VM ID: 0 is in state: configured\.$' "$TMPD/out" "the VM that could be created is kept (IM #369)"
expect_exit 0 "getvmcontmsg of a failed VM" -- "$IMC" getvmcontmsg "$FID" 2
expect_grep "creating VM 2 failed" "$TMPD/out" "the VM log says why"
expect_exit 1 "wait on a failed infrastructure exits 1" -- "$IMC" wait "$FID"
printf 'system wn (\n    cpu.count >= 2\n)\n' >"$TMPD/alter-wn.radl"
expect_exit 1 "alter of a failed VM exits 1" -- "$IMC" alter "$FID" 2 "$TMPD/alter-wn.radl"
expect_grep "VM 2 is failed: it cannot be altered" "$TMPD/err" "alter of a failed VM says why"
expect_exit 0 "destroy a failed infrastructure" -- "$IMC" destroy "$FID"
# an auth line picks the cloud
printf 'id = lab; type = dummy\n' >"$TMPD/auth.dat"
expect_exit 0 "--cloud with an auth id" -- "$IMC" -a "$TMPD/auth.dat" create --cloud lab --json "$R/t2-cluster.radl"
if [ "$(json "$TMPD/out" "d['state']['state']")" = configured ]; then ok "create --json reports the final state"; else not_ok "create --json"; cat "$TMPD/out"; fi
expect_exit 0 "destroy it" -- "$IMC" -a "$TMPD/auth.dat" destroy "$(json "$TMPD/out" "d['id']")"
expect_exit 0 "list is empty" -- "$IMC" list --json
expect_grep '"infrastructures": \[\]' "$TMPD/out" "list --json"
done_testing
