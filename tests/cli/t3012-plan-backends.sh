#!/bin/sh
# t3012: `imc plan` shows each VM's cloud and notes the VMs whose cloud has
# no backend in this imc (IM connectors imc does not implement), before
# create refuses them: in text and as "backend" in --json; a VM of a cloud
# imc has (docker, dummy) carries no note.
. "$top_srcdir/tests/cli/lib.sh"
cat >"$TMPD/mixed.radl" <<'RADL'
network net ()
system dk ( net_interface.0.connection = 'net' and disk.0.image.url = 'docker://debian:12' )
system ne ( net_interface.0.connection = 'net' and disk.0.image.url = 'one://one.example.org/42' )
system du ( net_interface.0.connection = 'net' and disk.0.image.url = 'dummy://' )
deploy dk 1
deploy ne 1
deploy du 1
contextualize ()
RADL
: >"$TMPD/auth.dat"
expect_exit 0 "plan of VMs on docker, opennebula and dummy" -- "$IMC" -a "$TMPD/auth.dat" plan "$TMPD/mixed.radl"
expect_grep '^  VM 0: system dk, .*, cloud docker, image docker://debian:12' "$TMPD/out" "the docker VM plans to the docker backend, without a note"
expect_grep '^  VM 1: system ne, .*, cloud opennebula \(no backend for this cloud in this imc: create refuses it\)' "$TMPD/out" "the OpenNebula VM is noted: no backend"
expect_grep '^  VM 2: system du, .*, cloud dummy, image dummy://' "$TMPD/out" "the dummy VM carries no note"
expect_eq_n() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi; }
expect_eq_n "$(grep -c 'no backend for this cloud' "$TMPD/out")" 1 "exactly one VM is noted"
expect_exit 0 "plan --json" -- "$IMC" -a "$TMPD/auth.dat" --json plan "$TMPD/mixed.radl"
expect_eq_n "$("$PYTHON3" -c 'import json,sys; print(" ".join("%s=%s" % (v["cloud"], v["backend"]) for v in json.load(open(sys.argv[1]))["vms"]))' "$TMPD/out")" \
	"docker=True opennebula=False dummy=True" "--json says which VMs have a backend"
expect_exit 69 "create refuses the VM with no backend" -- "$IMC" -a "$TMPD/auth.dat" create "$TMPD/mixed.radl"
expect_grep "cloud 'opennebula', which this imc does not support" "$TMPD/err" "naming its cloud"
done_testing
