# tests/local/lib-local.sh: what the local cloud still has of one
# infrastructure, for the tests of the local backend (sourced after
# tests/cli/lib.sh), so that each asks the same question the same way.
#
# local_leftovers HOME ID: prints one line per thing of infrastructure ID
# (under $IMC_HOME HOME) the machine still has: network namespaces, links,
# /etc/netns entries, processes running from its VMs' directories, rootless
# subnet claims (in $IMC_LOCAL_RUNDIR, when the test set one of its own),
# VM files, the backend's directory, cgroups (v1 and v2).
local_leftovers() {
	_ll_tag=$(printf %s "$2" | tr -d - | cut -c1-8)
	_ll_infra="$1/infra/$2"
	ip netns list 2>/dev/null | grep "imc-$_ll_tag-" | sed 's/^/netns /'
	ip -o link show 2>/dev/null | grep -o "imc$_ll_tag[^:@ ]*" | sed 's/^/link /'
	ls /etc/netns 2>/dev/null | grep "imc-$_ll_tag-" | sed 's/^/etc-netns /'
	for _ll_p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$_ll_p/cmdline" | grep -q "$_ll_infra/vm/" && echo "process ${_ll_p#/proc/}"
	done
	[ -n "${IMC_LOCAL_RUNDIR:-}" ] && ls "$IMC_LOCAL_RUNDIR" 2>/dev/null | grep '^claim-' | sed 's/^/claim /'
	[ -d "$_ll_infra/vm" ] && find "$_ll_infra/vm" -type f | sed 's/^/file /'
	[ -d "$_ll_infra/local" ] && echo "dir $_ll_infra/local"
	for _ll_r in $(awk '$3 == "cgroup2" || $3 == "cgroup" {print $2}' /proc/self/mounts); do
		ls -d "$_ll_r/imc-local/imc-$_ll_tag-"* 2>/dev/null | sed 's/^/cgroup /'
	done
	true
}
