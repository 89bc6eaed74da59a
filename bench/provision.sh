#!/bin/sh
# bench/provision.sh: imc's built-in executor vs ansible-playbook on the
# same 20-task playbook (bench/playbook/bench.yml) over SSH to 1, 4, 16 and
# 64 nodes, with Ansible at its best setting (pipelining, ControlPersist,
# forks 16). Prints seconds per task and host for both, their ratio, and
# imc against the floor of a bare SSH exec round trip over an established
# connection (imc's raw: one exec channel per task), all from the same run,
# and imc's round trips per host (commands sent to the node, from the
# first, uncounted run's IMC_LOG=exec=debug lines; every run starts from
# an empty work directory, so each sends as many).
# Then the same with a deliberately slow login shell (a sleep in the
# throw-away user's ~/.bashrc, which bash reads when sshd runs it for a
# command): imc pays it once per host, an exec channel per task. Not a
# test: it reports figures and never fails on time.
#
# Nodes are sshd instances started here on 127.0.0.(10+i) with their own
# host keys and a test user key, run as a throw-away user with /bin/sh as
# its shell (root's .bashrc here runs pyenv, which would dominate both
# tools); all are stopped by PID at the end. The user exists only inside a
# mount namespace the script re-runs itself in (unshare -m), where copies
# of /etc/passwd, group and shadow holding it are bound over the machine's:
# the machine's own files never change. Without unshare(1), or where a
# namespace cannot be made, it is added with useradd and removed at the end.
#
# Usage: bench/provision.sh [IMC] [N...]   (default: ./imc, N = 1 4 16 64)
# Env:   REPS (default 3), SKIP_ANSIBLE=1, ANSIBLE_MAX_N (default 64: larger N
#        run imc only), SLOW_N (default 4: N of the slow-login run, 0 = none),
#        SLOW_SLEEP (default 0.2 s)
set -u
if [ -z "${IMC_BENCH_NS:-}" ] && command -v unshare >/dev/null 2>&1 &&
	unshare -m --propagation private true 2>/dev/null; then
	IMC_BENCH_NS=1 exec unshare -m --propagation private /bin/sh "$0" "$@"
fi
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
IMC=${1:-./imc}
[ $# -gt 0 ] && shift
NS=${*:-1 4 16 64}
REPS=${REPS:-3}
ANSIBLE_MAX_N=${ANSIBLE_MAX_N:-64}
SLOW_N=${SLOW_N:-4}
SLOW_SLEEP=${SLOW_SLEEP:-0.2}
PB=$here/playbook/bench.yml
[ -f "$PB" ] || { echo "bench/provision: no playbook at $PB" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench/provision: needs root (sshd, a throw-away user)" >&2; exit 1; }
case $IMC in /*) ;; *) IMC=$(pwd)/$IMC ;; esac
. "$top/tests/cli/t4-lib-sshd.sh"

W=$(mktemp -d /tmp/imc-bench-prov.XXXXXX)
chmod 755 "$W"
U=imcb$$
# Ansible's ControlPersist masters outlive ansible-playbook: close them
stop_masters() {
	for s in "$W"/cp/*; do
		[ -S "$s" ] && ssh -o ControlPath="$s" -O exit x >/dev/null 2>&1
	done
	return 0
}
cleanup() {
	stop_masters
	sshd_stop_all "$W"
	[ -n "${master_pid:-}" ] && kill "$master_pid" 2>/dev/null
	sleep 0.2
	if [ -n "${IMC_BENCH_NS:-}" ]; then
		for f in passwd group shadow; do umount "/etc/$f" 2>/dev/null; done
	else
		userdel "$U" 2>/dev/null
	fi
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
# add_user: the throw-away user (see the top comment)
add_user() {
	if [ -z "${IMC_BENCH_NS:-}" ]; then
		useradd -M -p '*' -d "$W/home" -s /bin/sh "$U"
		return
	fi
	mkdir -p "$W/etc" || return 1
	id=$(awk -F: '{u[$3] = 1} END {for (i = 2000; i < 60000; i++) if (!(i in u)) {print i; exit}}' /etc/passwd)
	for f in passwd group shadow; do cp /etc/$f "$W/etc/$f" || return 1; done
	echo "$U:x:$id:$id::$W/home:/bin/sh" >>"$W/etc/passwd"
	echo "$U:x:$id:" >>"$W/etc/group"
	echo "$U:*:19000:0:99999:7:::" >>"$W/etc/shadow"
	for f in passwd group shadow; do mount --bind "$W/etc/$f" "/etc/$f" || return 1; done
}
# user_shell SHELL: the user's login shell (in place: a rename would leave
# the bound copy behind)
user_shell() {
	if [ -z "${IMC_BENCH_NS:-}" ]; then
		usermod -s "$1" "$U"
		return
	fi
	awk -F: -v OFS=: -v u="$U" -v s="$1" '$1 == u {$7 = s} {print}' "$W/etc/passwd" >"$W/etc/passwd.new" &&
		cat "$W/etc/passwd.new" >"$W/etc/passwd"
}
add_user || exit 1
mkdir -p "$W/home" "$W/work" && chown "$U" "$W/home" "$W/work"
sshd_keys "$W" || exit 1
chmod 644 "$W/authorized_keys"

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

maxn=$SLOW_N
for n in $NS; do [ "$n" -gt "$maxn" ] && maxn=$n; done
i=1
while [ $i -le "$maxn" ]; do
	sshd_start "$W" "127.0.0.$((10 + i))" $((23000 + i)) "$W/hk$i" || { echo "sshd $i failed" >&2; exit 1; }
	i=$((i + 1))
done

SSHO="-i $W/userkey -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
# floor: one command over an established OpenSSH connection (ControlMaster)
ssh $SSHO -o ControlMaster=yes -o ControlPath="$W/ctl" -o ControlPersist=no -N -p 23001 "$U@127.0.0.11" &
master_pid=$!
i=0
while [ ! -S "$W/ctl" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
t0=$(now)
for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	ssh $SSHO -o ControlPath="$W/ctl" -p 23001 "$U@127.0.0.11" true
done
t1=$(now)
floor=$(echo "$t0 $t1" | awk '{printf "%.4f", ($2 - $1) / 20}')
kill "$master_pid" 2>/dev/null
master_pid=

# imc's own floor: 20 `raw: /bin/true` tasks = one exec round trip per task
# and host over the persistent libssh sessions
{
	echo "- hosts: nodes"
	echo "  gather_facts: false"
	echo "  tasks:"
	k=1
	while [ $k -le 20 ]; do echo "    - raw: /bin/true"; k=$((k + 1)); done
} >"$W/raw.yml"

cat >"$W/ansible.cfg" <<EOF
[defaults]
host_key_checking = False
interpreter_python = /usr/bin/python3
forks = 16
retry_files_enabled = False
local_tmp = $W/ansible-local
[ssh_connection]
pipelining = True
ssh_args = -o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR
control_path_dir = $W/cp
EOF

# run_all LABEL N...: every tool on N nodes; appends "LABEL:N:tool:s/task/host"
# to $results
run_all() {
label=$1
shift
for n in "$@"; do
	hosts="" group="" inv="$W/inv-$n.ini"
	echo "[nodes]" >"$inv"
	i=1
	while [ $i -le "$n" ]; do
		hosts="$hosts -H node$i=$U@127.0.0.$((10 + i)):$((23000 + i))"
		group="${group:+$group,}node$i"
		echo "node$i ansible_host=127.0.0.$((10 + i)) ansible_port=$((23000 + i)) ansible_user=$U ansible_ssh_private_key_file=$W/userkey" >>"$inv"
		i=$((i + 1))
	done
	for tool in imc-raw imc ansible; do
		[ "$tool" = ansible ] && [ "${SKIP_ANSIBLE:-0}" = 1 ] && continue
		[ "$tool" = ansible ] && ! command -v ansible-playbook >/dev/null 2>&1 && continue
		[ "$tool" = ansible ] && [ "$n" -gt "$ANSIBLE_MAX_N" ] && continue
		: >"$W/times"
		r=0
		while [ $r -le "$REPS" ]; do
			stop_masters
			rm -rf "$W/work"/* "$W/cp"
			if [ "$tool" != ansible ]; then
				pb=$PB
				[ "$tool" = imc-raw ] && pb=$W/raw.yml
				# the uncounted first run logs each module run's round trips
				log=warn
				[ $r -eq 0 ] && log=exec=debug
				t0=$(now)
				IMC_LOG=$log "$IMC" play -q -c ssh $hosts -k "$W/userkey" -g "nodes=$group" -f 16 \
					-e "base=$W/work/{{ inventory_hostname }}" "$pb" >"$W/last.out" 2>&1
				rc=$?
				t1=$(now)
				[ $r -eq 0 ] && rts=$(awk -v n="$n" '/ round trips$/ {s += $(NF - 2)} END {printf "%.0f", s / n}' "$W/last.out")
			else
				t0=$(now)
				ANSIBLE_CONFIG=$W/ansible.cfg ANSIBLE_HOME=$W/ansible-home \
				ANSIBLE_REMOTE_TEMP=$W/work/.ansible-tmp \
					ansible-playbook -i "$inv" -e "base=$W/work/{{ inventory_hostname }}" \
					"$PB" >"$W/last.out" 2>&1
				rc=$?
				t1=$(now)
			fi
			if [ $rc -ne 0 ]; then
				echo "$label $tool N=$n failed (exit $rc):" >&2
				tail -20 "$W/last.out" >&2
				break
			fi
			# the first run warms caches and is not counted
			[ $r -gt 0 ] && echo "$t0 $t1" | awk '{print $2 - $1}' >>"$W/times"
			r=$((r + 1))
		done
		[ -s "$W/times" ] || continue
		wall=$(median <"$W/times")
		per=$(echo "$wall $n" | awk '{printf "%.4f", $1 / 20 / $2}')
		[ "$tool" = ansible ] && rts=-
		printf '%-5s %-4s %-10s %12.3f %12s %10s %8s\n' "$label" "$n" "$tool" "$wall" "$per" "$(wc -l <"$W/times")" "$rts"
		results="$results $label:$n:$tool:$per"
	done
done
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-4s %-10s %12s %12s %10s %8s\n' run N tool "wall(s)" "s/task/host" "runs" "rt/host"
results=""
run_all plain $NS
if [ "$SLOW_N" -gt 0 ]; then
	# the slow login shell: bash, whose ~/.bashrc sleeps
	printf 'sleep %s\n' "$SLOW_SLEEP" >"$W/home/.bashrc"
	chown "$U" "$W/home/.bashrc"
	user_shell /bin/bash || exit 1
	run_all slow "$SLOW_N"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "floor: one command over an established OpenSSH connection (ControlMaster, ssh client start included): $floor s"
ratios() {
	label=$1 n=$2
	get() { echo "$results" | tr ' ' '\n' | awk -F: -v l="$label" -v n="$n" -v t="$1" '$1 == l && $2 == n && $3 == t {print $4}'; }
	i=$(get imc) r=$(get imc-raw) a=$(get ansible)
	[ -n "$i" ] || return 0
	line="$label N=$n: imc $i s/task/host"
	[ -n "$a" ] && line="$line, ansible $a, ansible/imc = $(echo "$a $i" | awk '{printf "%.1fx", $1 / $2}')"
	[ -n "$r" ] && line="$line; bare exec round trip (imc raw) $r, imc/raw = $(echo "$i $r" | awk '{printf "%.2fx", $1 / $2}')"
	[ "$n" = 1 ] && [ "$label" = plain ] && line="$line; imc/OpenSSH floor = $(echo "$i $floor" | awk '{printf "%.2fx", $1 / $2}')"
	echo "$line"
}
for n in $NS; do ratios plain "$n"; done
[ "$SLOW_N" -gt 0 ] && ratios slow "$SLOW_N"
exit 0
