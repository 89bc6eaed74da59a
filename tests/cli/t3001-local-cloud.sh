#!/bin/sh
# t3001: the local cloud in netns mode, driven directly through the
# cloud_local table (tests/helper/cloud-drive): a 3-VM infrastructure on two
# networks; names resolve from VM 1 to the addresses on shared networks;
# VMs see each other only through the networks they share; a command runs
# on each over real SSH with the pinned host key; VM 3's cpu and memory
# limits (cgroup v1 or v2, whichever the host has) as a session inside it
# reads them; stop/start; a retried create keeps the one sshd; destroy
# leaves nothing behind (namespaces, veths, bridges, processes, /etc/netns,
# cgroups, keys).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/local/lib-local.sh"

DRIVE="$top_builddir/tests/helper/cloud-drive"
require_netns
[ -x /usr/sbin/sshd ] || skip_all "needs /usr/sbin/sshd (openssh-server)"
command -v ip >/dev/null || skip_all "needs iproute2"
command -v ssh >/dev/null || skip_all "needs the OpenSSH client"
[ -x "$DRIVE" ] || skip_all "tests/helper/cloud-drive not built"

ID=$(cat /proc/sys/kernel/random/uuid)
TAG=$(printf %s "$ID" | tr -d - | cut -c1-8)
INFRA="$IMC_HOME/infra/$ID"
KEY="$INFRA/id_ed25519"
export IMC_LOCAL_MODE=netns
unset IMC_LOCAL_FAULT

at_exit '"$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup >/dev/null 2>&1'

# everything of this infrastructure the machine still has, one per line
leftovers() { local_leftovers "$IMC_HOME" "$ID"; }

leftovers >"$TMPD/before"
if [ -s "$TMPD/before" ]; then not_ok "nothing of $TAG exists before"; else ok "nothing of $TAG exists before"; fi

expect_exit 0 "keygen makes the infrastructure key" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" keygen
expect_exit 0 "create 3 VMs on networks pub (public) and priv" -- \
	"$DRIVE" -c local -H "$IMC_HOME" -i "$ID" net:pub:public net:priv \
	vm:1:node host:1:front nics:1:pub,priv \
	vm:2:node host:2:back nics:2:priv user:2:ubuntu \
	vm:3:node:-:-:1:256Mi host:3:web nics:3:pub user:3:ubuntu create
cp "$TMPD/out" "$TMPD/create"
sed 's/^/#   /' "$TMPD/create"
expect_grep '^created 3/3 ' "$TMPD/create" "all 3 VMs are running"
expect_grep "^vm 1 running imc-$TAG-1 " "$TMPD/create" "VM 1 is namespace imc-$TAG-1"
expect_grep "^note 1 netns mode: network namespace imc-$TAG-1" "$TMPD/create" "the note says netns mode"
expect_grep "^note 2 netns mode: .* login 'ubuntu'" "$TMPD/create" "VM 2's note names its login user"

# vm NUM STATE CLOUD_ID PUBLIC PRIVATE PORT NIC0 [NIC1]
FRONT_PUB=$(awk '$1=="vm" && $2==1 {print $8}' "$TMPD/create")
FRONT_PRIV=$(awk '$1=="vm" && $2==1 {print $9}' "$TMPD/create")
BACK=$(awk '$1=="vm" && $2==2 {print $8}' "$TMPD/create")
WEB=$(awk '$1=="vm" && $2==3 {print $8}' "$TMPD/create")
expect_grep "^vm 1 running imc-$TAG-1 $FRONT_PUB $FRONT_PRIV " "$TMPD/create" "VM 1 public = pub address, private = priv address"
expect_grep "^vm 2 running imc-$TAG-2 - $BACK " "$TMPD/create" "VM 2 has only a private address"

# VM 3 asked for 1 cpu and 256 MiB: its limits are applied (cgroup v2 or
# v1, whichever the host has for each controller; only rootless mode, t3003,
# may go without)
expect_no_grep '^note 3 .*not applied' "$TMPD/create" "VM 3's limits are applied (no 'not applied' note)"

# pin the host keys the backend generated
: >"$TMPD/known"
for n in 1 2 3; do
	for ip in $(awk -v n=$n '$1=="vm" && $2==n {for (i=8;i<=NF;i++) print $i}' "$TMPD/create"); do
		printf '%s %s\n' "$ip" "$(cut -d' ' -f1,2 "$INFRA/vm/$n/ssh_host_ed25519_key.pub")" >>"$TMPD/known"
	done
done
vssh() { # IP COMMAND: as root on VM 1, as ubuntu (the RADL user, root inside) on 2 and 3
	u=root
	[ "$1" = "$FRONT_PUB" ] || u=ubuntu
	ssh -n -i "$KEY" -o BatchMode=yes -o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$TMPD/known" -o ConnectTimeout=5 -o LogLevel=ERROR "$u@$@"
}

n=0
for pair in "$FRONT_PUB front" "$BACK back" "$WEB web"; do
	set -- $pair
	n=$((n + 1))
	expect_exit 0 "ssh to VM $n ($1) runs a command" -- vssh "$1" 'hostname; id -u; echo $USER'
	expect_grep "^$2\$" "$TMPD/out" "VM $n has its own hostname '$2'"
	expect_grep '^0$' "$TMPD/out" "VM $n logs in with uid 0"
	[ $n = 1 ] || expect_grep '^ubuntu$' "$TMPD/out" "VM $n's login user is the RADL's (ubuntu)"
done

# The limits as a session inside VM 3 sees them: its own cgroups
# (/proc/self/cgroup) and their files under the VM's /sys/fs/cgroup. Prints
# "cpu QUOTA PERIOD" and "mem BYTES" (unlimited: "max"/-1).
LIMITS='while IFS=: read -r _ ctl path; do
	case ",$ctl," in
	*,cpu,*) d=$(awk "\$3==\"cgroup\" && \",\"\$4\",\" ~ /,cpu,/ {print \$2}" /proc/self/mounts)
		echo "cpu $(cat "$d$path/cpu.cfs_quota_us") $(cat "$d$path/cpu.cfs_period_us")" ;;
	*,memory,*) d=$(awk "\$3==\"cgroup\" && \",\"\$4\",\" ~ /,memory,/ {print \$2}" /proc/self/mounts)
		echo "mem $(cat "$d$path/memory.limit_in_bytes")" ;;
	,,) d=$(awk "\$3==\"cgroup2\" {print \$2}" /proc/self/mounts)
		[ -f "$d$path/cpu.max" ] && echo "cpu $(cat "$d$path/cpu.max")"
		[ -f "$d$path/memory.max" ] && echo "mem $(cat "$d$path/memory.max")" ;;
	esac
done </proc/self/cgroup; true'
expect_exit 0 "VM 3 reads its own cgroup limits" -- vssh "$WEB" "$LIMITS"
sed 's/^/#   /' "$TMPD/out"
expect_grep '^cpu 100000 100000$' "$TMPD/out" "inside VM 3, its processes get 1 cpu (quota 100000 per 100000 us)"
expect_grep '^mem 268435456$' "$TMPD/out" "inside VM 3, its processes get 256 MiB"
expect_exit 0 "VM 1 reads its cgroups" -- vssh "$FRONT_PUB" "$LIMITS"
sh -c "$LIMITS" >"$TMPD/host-limits"
if cmp -s "$TMPD/out" "$TMPD/host-limits"; then ok "VM 1 (no cpu or memory asked) has no limits of its own"
else not_ok "VM 1 (no cpu or memory asked) has no limits of its own"; sed 's/^/#   /' "$TMPD/out"; fi

expect_exit 0 "getent hosts on VM 1" -- vssh "$FRONT_PUB" 'getent hosts front back web'
expect_grep "^$FRONT_PUB +front.localdomain front" "$TMPD/out" "VM 1 resolves itself on its first network"
expect_grep "^$BACK +back.localdomain back" "$TMPD/out" "VM 1 resolves back to its priv address"
expect_grep "^$WEB +web.localdomain web" "$TMPD/out" "VM 1 resolves web to its pub address"
expect_exit 0 "getent hosts on VM 2" -- vssh "$BACK" 'getent hosts front; getent hosts web || echo no-web'
expect_grep "^$FRONT_PRIV +front" "$TMPD/out" "VM 2 resolves front to its address on the shared priv network"
expect_grep "^no-web" "$TMPD/out" "VM 2 has no name for web (no shared network)"

reach() { echo "timeout 3 bash -c '</dev/tcp/$1/22' 2>/dev/null && echo reach-$1 || echo noreach-$1"; }
expect_exit 0 "VM 2 probes the others" -- vssh "$BACK" "$(reach "$FRONT_PRIV"); $(reach "$WEB"); $(reach "$FRONT_PUB")"
expect_grep "^reach-$FRONT_PRIV" "$TMPD/out" "VM 2 reaches front through priv"
expect_grep "^noreach-$WEB" "$TMPD/out" "VM 2 cannot reach web (different network)"
expect_grep "^noreach-$FRONT_PUB" "$TMPD/out" "VM 2 cannot reach front's pub address"
expect_exit 0 "VM 3 probes the others" -- vssh "$WEB" "ip route add 10.0.0.0/8 via \$(ip -4 -o addr show eth0 | awk '{print \$4}' | cut -d/ -f1 | awk -F. '{print \$1\".\"\$2\".\"\$3\".1\"}'); $(reach "$BACK"); $(reach "$FRONT_PUB")"
expect_grep "^noreach-$BACK" "$TMPD/out" "VM 3 cannot reach back even routing through the host"
expect_grep "^reach-$FRONT_PUB" "$TMPD/out" "VM 3 reaches front through pub"

expect_exit 0 "stop VM 2" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" stop:2
expect_grep '^vm 2 stopped' "$TMPD/out" "VM 2 is stopped"
if [ -z "$(ip netns pids "imc-$TAG-2")" ]; then ok "no process left in VM 2"; else not_ok "no process left in VM 2"; fi
expect_exit 0 "update sees VM 2 stopped" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" update:2
expect_grep "^vm 2 stopped imc-$TAG-2 - $BACK" "$TMPD/out" "VM 2 keeps its namespace and address"
expect_exit 0 "start VM 2" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" start:2
expect_grep '^vm 2 running' "$TMPD/out" "VM 2 runs again"
expect_exit 0 "ssh to VM 2 after start" -- vssh "$BACK" hostname
expect_exit 0 "creating VM 2 again (a retried create) succeeds" -- \
	"$DRIVE" -c local -H "$IMC_HOME" -i "$ID" vm:2:node host:2:back nics:2:priv user:2:ubuntu create
expect_grep "^vm 2 running imc-$TAG-2 - $BACK " "$TMPD/out" "VM 2 keeps its namespace and address"
# the one sshd listening is the child of the VM's init ("imc-vm"); sessions
# (this test's own, just closed) are its children and may still be ending
listeners() { # NS: sshd processes of NS whose parent is the VM's init
	for p in $(ip netns pids "$1"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = sshd ] || continue
		pp=$(awk '{print $4}' /proc/$p/stat 2>/dev/null)
		[ "$(cat /proc/$pp/comm 2>/dev/null)" = imc-vm ] && echo "$p"
	done
}
expect_exit 0 "VM 2's pid file names a live sshd" -- sh -c "[ \$(cat /proc/\$(cat $INFRA/vm/2/sshd.pid)/comm) = sshd ]"
[ "$(listeners "imc-$TAG-2" | wc -l)" -eq 1 ] && ok "VM 2 has exactly one listening sshd" || not_ok "VM 2 has exactly one listening sshd ($(listeners "imc-$TAG-2" | wc -l))"
# alter through the backend: VM 3's limits change as its sessions see them
expect_exit 0 "alter VM 3 to 2 cpus and 512 MiB" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" alter:3:2:512Mi
expect_exit 0 "VM 3 reads its altered limits" -- vssh "$WEB" "$LIMITS"
expect_grep '^cpu 200000 100000$' "$TMPD/out" "inside VM 3, 2 cpus after alter"
expect_grep '^mem 536870912$' "$TMPD/out" "inside VM 3, 512 MiB after alter"
expect_exit 1 "alter of stopped VM 2 fails" -- sh -c "\"$DRIVE\" -c local -H \"$IMC_HOME\" -i $ID stop:2 && \"$DRIVE\" -c local -H \"$IMC_HOME\" -i $ID alter:2:1:0"
expect_grep 'VM 2 is not running' "$TMPD/err" "alter of a stopped VM says why"
expect_exit 0 "start VM 2 again" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" start:2
expect_exit 0 "reboot VM 1" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" reboot:1
expect_exit 0 "ssh to VM 1 after reboot" -- vssh "$FRONT_PUB" hostname

expect_exit 0 "destroy VM 3" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" destroy:3
expect_grep '^vm 3 off' "$TMPD/out" "VM 3 is off"
leftovers >"$TMPD/mid"
expect_no_grep "imc-$TAG-3|/vm/3/" "$TMPD/mid" "nothing of VM 3 is left"
expect_exit 0 "getent on VM 1 after VM 3 went" -- vssh "$FRONT_PUB" 'getent hosts web || echo no-web'
expect_grep '^no-web' "$TMPD/out" "VM 3's name is gone from VM 1's /etc/hosts"
expect_exit 0 "destroying VM 3 again succeeds" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" destroy:3

expect_exit 0 "destroy VMs 1 and 2" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" destroy:1 destroy:2
expect_exit 0 "cleanup_infra" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup
leftovers >"$TMPD/after"
if [ -s "$TMPD/after" ]; then not_ok "nothing left after destroy"; sed 's/^/#   /' "$TMPD/after"; else ok "nothing left after destroy"; fi
expect_exit 0 "cleanup_infra again is a no-op" -- "$DRIVE" -c local -H "$IMC_HOME" -i "$ID" cleanup
done_testing
