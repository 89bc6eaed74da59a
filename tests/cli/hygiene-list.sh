#!/bin/sh
# tests/cli/hygiene-list.sh: lists, one per line as "KIND NAME", what imc
# names as its own and what its tests could leave on this machine: network
# namespaces "imc-TAG-NUM", links (bridges "imcTAG-HHH", veths "imcTAG...",
# src/cloud/local-name.c), cgroups "imc-local" and "imc-TAG-NUM" in every
# cgroup v1 or v2 hierarchy, per-VM files /etc/netns/imc-*, files of the
# local backend's run directory, the bridges and labelled objects of the
# docker backend, and the temporary files and directories
# of the tests (/tmp/imc-*, lib.sh's) and of the provisioner (/tmp/.imc_*).
# The run directories (/run/imc-local, /tmp/imc-local-UID) and their lock
# file are not listed, only what is in them: the backend keeps them for
# every infrastructure by design.
#
# With "--procs BUILDDIR" it lists processes instead, as "proc PID COMMAND":
# those whose environment holds top_builddir=BUILDDIR (the tests export it,
# and imc's workers and the sshds it starts inherit it) or that run a
# program of BUILDDIR (imc, imc-train), so that processes of another build
# or another user are never counted; the calling shell and its ancestors
# are left out.
#
# Used by make check (mk/fuzz.mk) for a snapshot before the tests and by
# t9999-hygiene.sh after them. Never changes anything.
set -u

if [ "${1:-}" = "--procs" ]; then
	want="top_builddir=$2"
	# the caller and its ancestors (the test driver, make) are not leftovers
	skip=" "
	p=$PPID
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		skip="$skip$p "
		p=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)
	done
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		case $skip in *" $pid "*) continue ;; esac
		[ "$pid" = $$ ] && continue
		# environ is NUL-separated: one entry per line, exact match; or
		# a program of this build (imc-train started over SSH on a local
		# VM gets a fresh environment from sshd)
		exe=$(readlink "$d/exe" 2>/dev/null)
		case $exe in
		"$2"/*) ;;
		*) { tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qxF -- "$want" || continue ;;
		esac
		# this script's own pipeline children have its environment too
		ppid=$(sed -n 's/^PPid:[[:space:]]*//p' "$d/status" 2>/dev/null)
		[ "$ppid" = $$ ] && continue
		cmd=$({ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | cut -c1-160)
		[ -n "$cmd" ] && echo "proc $pid $cmd"
	done
	exit 0
fi

ip netns list 2>/dev/null | sed -n 's/^\(imc-[^ ]*\).*/netns \1/p'
# "3: NAME@PEER: <...>" or "3: NAME: <...>"
ip -o link show 2>/dev/null | sed -n 's/^[0-9]*: \(imc[^:@ ]*\)[:@].*/link \1/p'
# the bridges of Docker networks the docker backend made (named br-ID by
# the daemon; imc's are on its pool 10.214.0.0/16, src/cloud/docker-net.c)
ip -o -4 addr show 2>/dev/null | awk '$2 ~ /^br-/ && $4 ~ /^10\.214\./ { print "link " $2 }'
# what the machine's Docker daemon holds with imc's label, one line per
# infrastructure (the tests run daemons of their own, gone with their
# directories /tmp/imc-dockerd.*)
if [ -S /var/run/docker.sock ] && command -v curl >/dev/null; then
	f='filters=%7B%22label%22%3A%5B%22org.imc.infra%22%5D%7D'
	for k in "containers/json?all=1&$f" "volumes?$f" "networks?$f"; do
		curl -s --max-time 10 --unix-socket /var/run/docker.sock "http://localhost/v1.41/$k" 2>/dev/null
	done | tr ',{' '\n\n' | sed -n 's/.*"org\.imc\.infra":"\([^"]*\)".*/docker \1/p' | sort -u
fi
# every cgroup hierarchy, v1 (one per controller) and v2
awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts 2>/dev/null | sort -u |
	while read -r root; do
		find "$root" -maxdepth 3 -type d -name 'imc-*' 2>/dev/null | sed 's/^/cgroup /'
	done
for f in /etc/netns/imc-* /tmp/imc-* /tmp/.imc_* /run/imc-local/* /run/user/*/imc-local/* \
	/tmp/imc-local-*/*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	case $f in
	*/imc-local/lock | /tmp/imc-local-*/lock) continue ;;
	# the rootless run directory itself; what is in it is listed
	/tmp/imc-local-*) [ -d "$f" ] && continue ;;
	esac
	# the output file of the runner of the test asking (run-test.sh)
	[ "$f" = "${IMC_RUN_TEST_OUT:-}" ] && continue
	echo "file $f"
done
exit 0
