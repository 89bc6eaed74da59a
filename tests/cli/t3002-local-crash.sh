#!/bin/sh
# t3002: crash safety of the local cloud. The creating process is killed
# with SIGKILL in the middle of vm_create (at fixed points through the
# IMC_LOCAL_FAULT hook, and from outside with kill -9 once namespaces
# appear); cleanup_infra, knowing nothing but the infrastructure id, then
# leaves no namespace, link, /etc/netns entry, process or file behind.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/local/lib-local.sh"

DRIVE="$top_builddir/tests/helper/cloud-drive"
require_netns
[ -x /usr/sbin/sshd ] || skip_all "needs /usr/sbin/sshd (openssh-server)"
command -v ip >/dev/null || skip_all "needs iproute2"
[ -x "$DRIVE" ] || skip_all "tests/helper/cloud-drive not built"
export IMC_LOCAL_MODE=netns

IDS=""
at_exit 'for id in $IDS; do "$DRIVE" -c local -H "$IMC_HOME" -i "$id" cleanup >/dev/null 2>&1; done'

leftovers() { local_leftovers "$IMC_HOME" "$1"; } # ID

check_clean() { # ID WHAT
	leftovers "$1" >"$TMPD/left"
	if [ -s "$TMPD/left" ]; then
		not_ok "nothing left after $2"; sed 's/^/#   /' "$TMPD/left"
	else
		ok "nothing left after $2"
	fi
}

VMS="vm:1:node host:1:a nics:1:n1 vm:2:node host:2:b nics:2:n1,n2 vm:3:node host:3:c nics:3:n2 vm:4:node host:4:d nics:4:n1"
for fault in plumb sshd; do
	id=$(cat /proc/sys/kernel/random/uuid)
	IDS="$IDS $id"
	"$DRIVE" -c local -H "$IMC_HOME" -i "$id" keygen || not_ok "keygen"
	IMC_LOCAL_FAULT=$fault "$DRIVE" -c local -H "$IMC_HOME" -i "$id" net:n1:public net:n2 $VMS create \
		>"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	if [ $rc -eq 137 ]; then ok "create killed at '$fault' (SIGKILL)"; else not_ok "create killed at '$fault' (exit $rc)"; fi
	leftovers "$id" >"$TMPD/mid"
	expect_grep '^netns ' "$TMPD/mid" "namespaces exist after the crash at '$fault'"
	[ $fault = sshd ] && expect_grep '^process ' "$TMPD/mid" "an sshd runs after the crash at '$fault'"
	expect_exit 0 "cleanup_infra after the crash at '$fault'" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$id" cleanup
	check_clean "$id" "the crash at '$fault'"
	rm -f "$IMC_HOME/infra/$id/id_ed25519" "$IMC_HOME/infra/$id/id_ed25519.pub"
done

# kill -9 from outside, as soon as the first namespace shows up. The
# contract fixes the status: cloud-drive create prints "created N/M" and
# exits only after vm_create returned, and vm_create returns only once every
# VM's sshd answers, which comes after all namespaces exist (one ip -batch
# makes them all, then 8 sshds start). So the kill, sent the moment
# /run/netns/imc-TAG-1 exists (a test builtin, no fork per look), always
# finds the create running: it ends by SIGKILL, status 128+9 = 137, with no
# "created" line. Anything else means the kill did not land mid-create.
id=$(cat /proc/sys/kernel/random/uuid)
IDS="$IDS $id"
tag=$(printf %s "$id" | tr -d - | cut -c1-8)
"$DRIVE" -c local -H "$IMC_HOME" -i "$id" keygen || not_ok "keygen"
"$DRIVE" -c local -H "$IMC_HOME" -i "$id" net:n1 $(n=0; for h in a b c d e f g h; do n=$((n + 1)); echo vm:$n:node host:$n:$h nics:$n:n1; done) create \
	>"$TMPD/out" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && ! [ -e "/run/netns/imc-$tag-1" ]; do :; done
kill -9 $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 137 ]; then ok "create killed by kill -9 mid-create ends with status 137 (SIGKILL)"
else not_ok "create killed by kill -9 mid-create ends with status 137 (SIGKILL), not $rc"; fi
expect_no_grep '^created ' "$TMPD/out" "the killed create never reported completion"
expect_exit 0 "cleanup_infra after kill -9" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$id" cleanup
check_clean "$id" "kill -9 mid-create"
done_testing
