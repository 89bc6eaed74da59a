#!/bin/sh
# t3003: the local cloud's rootless mode (forced with IMC_LOCAL_MODE=rootless;
# what a user without root or network namespaces gets): each VM is an sshd
# of the invoking user on its own loopback address and port; the mode is
# said in each VM's note; commands run over real SSH; stop/start; cleanup
# leaves no process, subnet claim or file behind. Then the same again as
# an unprivileged user the test creates (imc-t3003, removed at exit), with
# the mode chosen automatically.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/local/lib-local.sh"

DRIVE="$top_builddir/tests/helper/cloud-drive"
# root (a supported machine runs the tests as root) creates the plain user
[ "$(id -u)" = 0 ] || skip_all "needs root to create the unprivileged user it runs as"
# the rest comes with scripts/install-deps and make check: missing fails
[ -x /usr/sbin/sshd ] && ok "sshd is installed" || { not_ok "needs /usr/sbin/sshd (openssh-server)"; exit 1; }
command -v ssh >/dev/null && ok "ssh is installed" || { not_ok "needs the OpenSSH client"; exit 1; }
command -v setpriv >/dev/null && ok "setpriv is installed" || { not_ok "needs setpriv (util-linux)"; exit 1; }
[ -x "$DRIVE" ] && ok "cloud-drive is built" || { not_ok "tests/helper/cloud-drive not built"; exit 1; }

ID=$(cat /proc/sys/kernel/random/uuid)
INFRA="$IMC_HOME/infra/$ID"
KEY="$INFRA/id_ed25519"
export IMC_LOCAL_MODE=rootless
export IMC_LOCAL_RUNDIR="$TMPD/run"
unset IMC_LOCAL_FAULT
USER_NAME=$(id -un)

cleanup() {
	"$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup >/dev/null 2>&1
}
at_exit cleanup # the latest definition of cleanup, at exit

leftovers() { local_leftovers "$IMC_HOME" "$ID"; }

expect_exit 0 "keygen" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" keygen
expect_exit 69 "create without an sshd fails" -- env IMC_LOCAL_SSHD=/nonexistent/sshd \
	"$DRIVE" -c local -H "$IMC_HOME" -i "$ID" vm:1:node host:1:x nics:1:pub create
expect_grep "needs OpenSSH's sshd \\(Debian package 'openssh-server'\\)" "$TMPD/err" "the error names the missing package"
# a machine whose own sshd never ran has no /run/sshd, which an sshd run
# by root needs: imc makes it. An empty /run in a mount namespace of this
# test stands for that machine (every VM failed there before).
ID0=$(cat /proc/sys/kernel/random/uuid)
expect_exit 0 "a VM on a machine without /run/sshd" -- unshare -m --propagation private sh -c '
	mount -t tmpfs imc-t3003 /run || exit 1
	"$0" -c local -H "$1" -i "$2" keygen >/dev/null &&
		"$0" -c local -H "$1" -i "$2" net:pub:public vm:1:node host:1:lone nics:1:pub create
	rc=$?
	test -d /run/sshd || { echo "no /run/sshd"; rc=1; }
	"$0" -c local -H "$1" -i "$2" cleanup >/dev/null
	exit $rc' "$DRIVE" "$IMC_HOME" "$ID0"
expect_grep '^created 1/1 ' "$TMPD/out" "... its sshd started"

expect_exit 0 "create 3 rootless VMs" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" \
	net:pub:public net:priv vm:1:node host:1:front nics:1:pub,priv \
	vm:2:node host:2:back nics:2:priv vm:3:node host:3:web nics:3:pub create
cp "$TMPD/out" "$TMPD/create"
sed 's/^/#   /' "$TMPD/create"
expect_grep '^created 3/3 ' "$TMPD/create" "all 3 VMs are running"
expect_grep '^note 1 rootless mode' "$TMPD/create" "the note says rootless mode"
expect_grep '^vm 1 running [^ ]+ 127\.[0-9.]+ 127\.[0-9.]+ [0-9]+ ' "$TMPD/create" "VM 1 has loopback addresses"
expect_exit 0 "two rootless claims are taken" -- sh -c "ls '$IMC_LOCAL_RUNDIR' | grep -c '^claim-' | grep -qx 2"

: >"$TMPD/known"
for n in 1 2 3; do
	ip=$(awk -v n=$n '$1=="vm" && $2==n {print $8}' "$TMPD/create")
	port=$(awk -v n=$n '$1=="vm" && $2==n {print $7}' "$TMPD/create")
	printf '[%s]:%s %s\n' "$ip" "$port" "$(cut -d' ' -f1,2 "$INFRA/vm/$n/ssh_host_ed25519_key.pub")" >>"$TMPD/known"
	expect_exit 0 "ssh to rootless VM $n ($ip:$port)" -- ssh -n -p "$port" -i "$KEY" \
		-o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$TMPD/known" \
		-o ConnectTimeout=5 -o LogLevel=ERROR "$USER_NAME@$ip" 'echo hello-$(id -un)'
	expect_grep "^hello-$USER_NAME\$" "$TMPD/out" "VM $n runs a command as '$USER_NAME'"
done

expect_exit 0 "stop VM 2" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" stop:2
expect_exit 0 "update VM 2" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" update:2
expect_grep '^vm 2 stopped' "$TMPD/out" "VM 2 is stopped"
expect_exit 0 "start VM 2" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" start:2
expect_grep '^vm 2 running' "$TMPD/out" "VM 2 runs again"
# a rootless VM has no cgroup: alter is refused, not pretended
expect_exit 69 "alter of a rootless VM fails" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" alter:2:2:512Mi
expect_grep 'VM 2 runs in rootless mode: it has no cgroup to resize' "$TMPD/err" "alter of a rootless VM says why"

expect_exit 0 "destroy VM 3" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" destroy:3
expect_exit 0 "cleanup_infra" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup
leftovers >"$TMPD/after"
if [ -s "$TMPD/after" ]; then not_ok "nothing left after cleanup"; sed 's/^/#   /' "$TMPD/after"; else ok "nothing left after cleanup"; fi

# a real unprivileged user, made here (one left by a killed run is
# replaced), mode picked automatically
U=imc-t3003
UD="$TMPD/user"
mkdir -p "$UD"
userdel "$U" >/dev/null 2>&1
# at_exit runs latest first: stop the user's VMs before the user goes
at_exit 'cleanup; userdel "$U" >/dev/null 2>&1'
expect_exit 0 "create the unprivileged user '$U'" -- useradd -M -N -d "$UD" -s /bin/sh "$U"
UID_U=$(id -u "$U") && [ "$UID_U" -ge 1000 ] && ok "'$U' has uid $UID_U" ||
	{ not_ok "'$U' has no plain uid"; exit 1; }
GID_U=$(id -g "$U")
chown "$U" "$UD" && chmod 711 "$TMPD"
ID2=$(cat /proc/sys/kernel/random/uuid)
as_user() {
	setpriv --reuid="$UID_U" --regid="$GID_U" --init-groups \
		env -i PATH=/usr/bin:/bin HOME="$UD" IMC_LOCAL_RUNDIR="$UD/run" "$@"
}
cleanup() {
	"$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup >/dev/null 2>&1
	as_user "$DRIVE" -c local -H "$UD/home" -i "$ID2" cleanup >/dev/null 2>&1
}
expect_exit 0 "keygen as '$U'" -- as_user "$DRIVE" -c local -H "$UD/home" -i "$ID2" keygen
expect_exit 0 "create 2 VMs as '$U'" -- as_user "$DRIVE" -c local -H "$UD/home" -i "$ID2" net:a vm:1:node host:1:x nics:1:a vm:2:node host:2:y nics:2:a create
cp "$TMPD/out" "$TMPD/create2"
expect_grep '^note 1 rootless mode' "$TMPD/create2" "a plain user gets rootless mode"
ip=$(awk '$1=="vm" && $2==1 {print $8}' "$TMPD/create2")
port=$(awk '$1=="vm" && $2==1 {print $7}' "$TMPD/create2")
expect_exit 0 "ssh as '$U' to its VM" -- as_user ssh -n -p "$port" -i "$UD/home/infra/$ID2/id_ed25519" \
	-o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-o ConnectTimeout=5 -o LogLevel=ERROR "$U@$ip" 'id -un'
expect_grep "^$U\$" "$TMPD/out" "the command ran as '$U'"
expect_exit 0 "cleanup_infra as '$U'" -- as_user "$DRIVE" -c local -H "$UD/home" -i "$ID2" cleanup
n=0
for p in /proc/[0-9]*; do
	tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q "$UD/home/infra/$ID2/vm/" && n=$((n + 1))
done
if [ $n -eq 0 ]; then ok "no process of '$U' left"; else not_ok "no process of '$U' left ($n)"; fi
done_testing
