#!/bin/sh
# t3005: the local cloud through imc, with no sleep anywhere: the moment
# 'imc destroy' of a 3-VM infrastructure returns, every sshd process the
# infrastructure had is gone from the process table (zombies included) and
# no namespace, link, /etc/netns entry, cgroup or file of it remains; 'imc
# stop' ends its sshds the same way and 'imc start' returns with exactly one
# sshd per VM; a re-create after destroy starts clean. 'imc alter' changes a
# running VM's cgroup limits, as a session inside the VM reads them, and
# getvminfo's cpu.count/memory.size; the new size survives stop/start; a
# VM with no limits gets cgroups; alter of a stopped VM is refused.
#
# Counting: the machine's other sshds (other tests running at the same
# time) make `pgrep -c -x sshd` move on its own, so the checks name this
# infrastructure's processes exactly: those in its namespaces, recorded by
# pid and start time before the command, and looked up again after it.
. "$top_srcdir/tests/cli/lib.sh"
require_netns
[ -x /usr/sbin/sshd ] || skip_all "needs /usr/sbin/sshd (openssh-server)"
command -v ip >/dev/null || skip_all "needs iproute2"
export IMC_LOCAL_MODE=netns

ID=""
at_exit '[ -z "$ID" ] || "$IMC" destroy "$ID" >/dev/null 2>&1'

cat >"$TMPD/three.radl" <<'EOF'
network net ()
system limited (
    net_interface.0.connection = 'net' and
    net_interface.0.dns_name = 'lim-#N#' and
    cpu.count >= 1 and
    memory.size >= 256m
)
system free (
    net_interface.0.connection = 'net' and
    net_interface.0.dns_name = 'free-#N#'
)
deploy limited 2
deploy free 1
EOF
printf 'system limited (\n    cpu.count >= 2 and\n    memory.size >= 512m\n)\n' >"$TMPD/bigger.radl"
printf 'system free (\n    cpu.count >= 1 and\n    memory.size >= 128m\n)\n' >"$TMPD/free.radl"

CGROOTS=$(awk '$3 == "cgroup2" || $3 == "cgroup" {print $2}' /proc/self/mounts)
tag_of() { printf %s "$1" | tr -d - | cut -c1-8; }
# "PID STARTTIME" of every sshd in the infrastructure's namespaces
sshds() {
	for ns in $(ip netns list | awk '{print $1}' | grep "^imc-$1-"); do
		for p in $(ip netns pids "$ns"); do
			[ "$(cat /proc/$p/comm 2>/dev/null)" = sshd ] &&
				echo "$p $(awk '{print $22}' /proc/$p/stat 2>/dev/null)"
		done
	done
	true
}
# the recorded processes still in the process table (alive or zombie)
still_there() {
	while read -r p t; do
		[ "$(awk '{print $22}' /proc/$p/stat 2>/dev/null)" = "$t" ] &&
			echo "pid $p $(cat /proc/$p/comm 2>/dev/null) $(awk '{print $3}' /proc/$p/stat 2>/dev/null)"
	done <"$1"
	true
}
sshd_count() { # NS
	n=0
	for p in $(ip netns pids "$1"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = sshd ] && n=$((n + 1))
	done
	echo $n
}
leftovers() { # ID
	t=$(tag_of "$1")
	ip netns list 2>/dev/null | grep "imc-$t-" | sed 's/^/netns /'
	ip -o link show 2>/dev/null | grep -o "imc$t[^:@ ]*" | sed 's/^/link /'
	ls /etc/netns 2>/dev/null | grep "imc-$t-" | sed 's/^/etc-netns /'
	for r in $CGROOTS; do ls -d "$r/imc-local/imc-$t-"* 2>/dev/null | sed 's/^/cgroup /'; done
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q "$IMC_HOME/infra/$1/" && echo "process ${p#/proc/}"
	done
	[ -d "$IMC_HOME/infra/$1" ] && echo "dir $IMC_HOME/infra/$1"
	true
}
check_none() { # FILE WHAT
	if [ -s "$1" ]; then not_ok "$2"; sed 's/^/#   /' "$1"; else ok "$2"; fi
}
# the session's own cgroup limits inside a VM (as in t3001): "cpu QUOTA
# PERIOD", "mem BYTES"
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

expect_exit 0 "create 3 local VMs" -- "$IMC" create "$TMPD/three.radl"
ID=$(head -1 "$TMPD/out")
TAG=$(tag_of "$ID")
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "configured"

# alter: 1 cpu/256m -> 2 cpus/512m, read inside VM 0 by a new session
expect_exit 0 "VM 0 reads its limits" -- "$IMC" ssh "$ID" 0 -- "$LIMITS"
expect_grep '^cpu 100000 100000$' "$TMPD/out" "VM 0 starts with 1 cpu"
expect_grep '^mem 256000000$' "$TMPD/out" "VM 0 starts with 256m"
expect_exit 0 "alter VM 0 to 2 cpus and 512m" -- "$IMC" alter "$ID" 0 "$TMPD/bigger.radl"
expect_exit 0 "VM 0 reads its new limits" -- "$IMC" ssh "$ID" 0 -- "$LIMITS"
expect_grep '^cpu 200000 100000$' "$TMPD/out" "inside VM 0, the cpu limit is now 2 cpus"
expect_grep '^mem 512000000$' "$TMPD/out" "inside VM 0, the memory limit is now 512m"
expect_exit 0 "getvminfo VM 0" -- "$IMC" getvminfo "$ID" 0
expect_grep '^ +cpu\.count = 2 and' "$TMPD/out" "getvminfo shows cpu.count = 2"
expect_grep '^ +memory\.size = 512000000 and' "$TMPD/out" "getvminfo shows memory.size = 512000000"
expect_exit 0 "getvminfo VM 1 (not altered)" -- "$IMC" getvminfo "$ID" 1 cpu.count
expect_grep '^1$' "$TMPD/out" "VM 1 keeps cpu.count = 1"

# a VM created without limits gets cgroups, its running sshd moved in
expect_exit 0 "VM 2 (no limits) reads its cgroups" -- "$IMC" ssh "$ID" 2 -- "$LIMITS"
cp "$TMPD/out" "$TMPD/free-before"
expect_no_grep '^mem 128000000$' "$TMPD/free-before" "VM 2 has no 128m limit yet"
expect_exit 0 "alter VM 2 to 1 cpu and 128m" -- "$IMC" alter "$ID" 2 "$TMPD/free.radl"
expect_exit 0 "VM 2 reads its new limits" -- "$IMC" ssh "$ID" 2 -- "$LIMITS"
expect_grep '^cpu 100000 100000$' "$TMPD/out" "inside VM 2, 1 cpu now"
expect_grep '^mem 128000000$' "$TMPD/out" "inside VM 2, 128m now"

# stop: every sshd gone when it returns; start: one sshd per VM
sshds "$TAG" >"$TMPD/sshds-running"
[ "$(wc -l <"$TMPD/sshds-running")" -ge 3 ] && ok "the 3 VMs' sshds are recorded" || not_ok "the 3 VMs' sshds are recorded"
expect_exit 0 "stop" -- "$IMC" stop "$ID"
still_there "$TMPD/sshds-running" >"$TMPD/left"
check_none "$TMPD/left" "when stop returns, none of the VMs' sshds is in the process table"
sshds "$TAG" >"$TMPD/left"
check_none "$TMPD/left" "when stop returns, no sshd runs in the VMs' namespaces"
expect_exit 1 "alter of a stopped VM is refused" -- "$IMC" alter "$ID" 1 "$TMPD/bigger.radl"
expect_grep 'VM 1 is not running' "$TMPD/err" "alter of a stopped VM says why"
expect_exit 0 "start" -- "$IMC" start "$ID"
for n in 0 1 2; do
	c=$(sshd_count "imc-$TAG-$n")
	[ "$c" -eq 1 ] && ok "when start returns, VM $n has exactly one sshd" || not_ok "when start returns, VM $n has exactly one sshd ($c)"
done
expect_exit 0 "VM 0 after restart reads its limits" -- "$IMC" ssh "$ID" 0 -- "$LIMITS"
expect_grep '^mem 512000000$' "$TMPD/out" "VM 0 keeps the altered 512m across stop/start"
expect_exit 0 "getvminfo VM 1 after the refused alter" -- "$IMC" getvminfo "$ID" 1 memory.size
expect_grep '^256000000$' "$TMPD/out" "the refused alter left VM 1's memory.size alone"

# destroy: everything gone when it returns
sshds "$TAG" >"$TMPD/sshds-running"
[ "$(wc -l <"$TMPD/sshds-running")" -ge 3 ] && ok "the 3 VMs' sshds are recorded again" || not_ok "the 3 VMs' sshds are recorded again"
expect_exit 0 "destroy" -- "$IMC" destroy "$ID"
still_there "$TMPD/sshds-running" >"$TMPD/left"
check_none "$TMPD/left" "when destroy returns, none of the VMs' sshds is in the process table"
leftovers "$ID" >"$TMPD/left"
check_none "$TMPD/left" "when destroy returns, no namespace, link, /etc/netns, cgroup, process or file is left"
OLD=$ID
ID=""

# a re-create starts clean and ends the same way
expect_exit 0 "create again" -- "$IMC" create "$TMPD/three.radl"
ID=$(head -1 "$TMPD/out")
TAG=$(tag_of "$ID")
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "configured again"
leftovers "$OLD" >"$TMPD/left"
check_none "$TMPD/left" "nothing of the destroyed infrastructure came back"
sshds "$TAG" >"$TMPD/sshds-running"
[ "$(wc -l <"$TMPD/sshds-running")" -ge 3 ] && ok "the new VMs' sshds are recorded" || not_ok "the new VMs' sshds are recorded"
expect_exit 0 "destroy again" -- "$IMC" destroy "$ID"
still_there "$TMPD/sshds-running" >"$TMPD/left"
check_none "$TMPD/left" "when the second destroy returns, none of its sshds is in the process table"
leftovers "$ID" >"$TMPD/left"
check_none "$TMPD/left" "nothing of the second infrastructure is left"
ID=""
done_testing
