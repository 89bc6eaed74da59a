#!/bin/sh
# t3004: the local cloud through imc itself: `imc create -d` of a small RADL
# (two networks, 3 VMs, contextualization off so the provisioner is not
# involved), then `imc ssh` (default VM, a given VM, --json, exit status of
# the remote command, errors), names from /etc/hosts on the VMs, and
# `imc destroy` leaving no namespace, link, /etc/netns entry, process or
# file of the infrastructure behind.
. "$top_srcdir/tests/cli/lib.sh"

DRIVE="$top_builddir/tests/helper/cloud-drive"
require_netns
[ -x /usr/sbin/sshd ] || skip_all "needs /usr/sbin/sshd (openssh-server)"
command -v ssh >/dev/null || skip_all "needs the OpenSSH client"
export IMC_LOCAL_MODE=netns
unset IMC_LOCAL_FAULT

ID=""
cleanup() {
	[ -n "$ID" ] || return 0
	"$IMC" destroy "$ID" >/dev/null 2>&1
	[ ! -x "$DRIVE" ] || "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup >/dev/null 2>&1
}
at_exit cleanup

cat >"$TMPD/small.radl" <<'EOF'
network pub (outbound = 'yes')
network priv ()
system front (
  net_interface.0.connection = 'pub' and
  net_interface.0.dns_name = 'front' and
  net_interface.1.connection = 'priv' and
  disk.0.os.name = 'linux'
)
system wn (
  net_interface.0.connection = 'priv' and
  net_interface.0.dns_name = 'wn-#N#' and
  disk.0.os.name = 'linux'
)
deploy front 1
deploy wn 2
contextualize ()
EOF

expect_exit 0 "imc create -d of a local RADL" -- "$IMC" create -d "$TMPD/small.radl"
ID=$(head -1 "$TMPD/out")
case "$ID" in *-*-*-*-*) ok "create printed the infrastructure id" ;; *) not_ok "create printed the infrastructure id ('$ID')"; ID="" ;; esac
TAG=$(printf %s "$ID" | tr -d - | cut -c1-8)
"$IMC" wait "$ID" >/dev/null 2>&1
expect_exit 0 "getstate" -- "$IMC" getstate "$ID"
expect_grep 'infrastructure is in state: (running|configured)' "$TMPD/out" "the infrastructure is up"
expect_exit 0 "getcontmsg" -- "$IMC" getcontmsg "$ID"
expect_grep "created on cloud 'local' \\(id imc-$TAG-0\\)" "$TMPD/out" "VM 0 is namespace imc-$TAG-0"

expect_exit 0 "imc ssh ID -- hostname (default VM)" -- "$IMC" ssh "$ID" -- hostname
expect_grep '^front$' "$TMPD/out" "the default VM is VM 0 (front)"
expect_exit 0 "imc ssh ID 1 -- getent hosts" -- "$IMC" ssh "$ID" 1 -- getent hosts front wn-1 wn-2
expect_grep '^10\.[0-9.]+ +front\.localdomain front' "$TMPD/out" "VM 1 resolves front"
expect_grep '^10\.[0-9.]+ +wn-2\.localdomain wn-2' "$TMPD/out" "VM 1 resolves wn-2"
expect_exit 3 "imc ssh exits with the remote command's status" -- "$IMC" ssh "$ID" 2 -- 'exit 3'
expect_exit 0 "imc ssh --json" -- "$IMC" ssh --json "$ID" 2 -- 'hostname; echo oops >&2'
expect_grep '"stdout": "wn-2\\n"' "$TMPD/out" "--json carries stdout"
expect_grep '"stderr": "oops\\n"' "$TMPD/out" "--json carries stderr"
expect_grep '"exit_status": 0' "$TMPD/out" "--json carries the status"
expect_grep "ssh-ed25519 " "$IMC_HOME/infra/$ID/known_hosts" "the pinned host key is used"
expect_exit 66 "imc ssh to a VM that does not exist" -- "$IMC" ssh "$ID" 7 -- true
expect_grep 'has no VM 7' "$TMPD/err" "the error names the missing VM"
expect_exit 64 "imc ssh --json without a command is a usage error" -- "$IMC" ssh --json "$ID"
expect_exit 66 "imc ssh to an unknown infrastructure" -- "$IMC" ssh 00000000-0000-4000-8000-000000000000 -- true

expect_exit 0 "imc destroy" -- "$IMC" destroy "$ID"
: >"$TMPD/left"
ip netns list 2>/dev/null | grep "imc-$TAG-" >>"$TMPD/left"
ip -o link show 2>/dev/null | grep -o "imc$TAG[^:@ ]*" >>"$TMPD/left"
ls /etc/netns 2>/dev/null | grep "imc-$TAG-" >>"$TMPD/left"
for p in /proc/[0-9]*; do
	tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q "$IMC_HOME/infra/$ID/" && echo "process ${p#/proc/}" >>"$TMPD/left"
done
[ -d "$IMC_HOME/infra/$ID" ] && find "$IMC_HOME/infra/$ID" -type f >>"$TMPD/left"
if [ -s "$TMPD/left" ]; then not_ok "nothing left after imc destroy"; sed 's/^/#   /' "$TMPD/left"; else ok "nothing left after imc destroy"; fi
done_testing
