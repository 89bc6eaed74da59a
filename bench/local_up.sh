#!/bin/sh
# bench/local_up.sh: how fast the local cloud brings VMs up. For 4, 16 and
# 64 VMs (or the counts given as arguments) on one network, prints the time
# from the start of vm_create to every VM running (its sshd accepting the
# infrastructure key over SSH), the time of cleanup_infra, and VMs per
# second. A bench, not a test: it reports figures and never fails on time.
#
# usage: top_builddir=BUILD sh bench/local_up.sh [COUNT...]   (as root)
set -u
top_builddir=${top_builddir:-.}
DRIVE="$top_builddir/tests/helper/cloud-drive"
[ -x "$DRIVE" ] || { echo "local_up: build tests/helper/cloud-drive first (make check or make tests/helper/cloud-drive)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || echo "local_up: not root: measuring rootless mode" >&2
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/imc-bench-local.XXXXXX")
HOME_DIR="$TMPD/home"
IDS=""
cleanup() {
	for id in $IDS; do "$DRIVE" -c local -H "$HOME_DIR" -i "$id" cleanup >/dev/null 2>&1; done
	rm -rf "$TMPD"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
[ $# -gt 0 ] || set -- 4 16 64
printf '%-6s %-9s %12s %12s %10s\n' vms mode create_s cleanup_s vms_per_s
for n in "$@"; do
	id=$(cat /proc/sys/kernel/random/uuid)
	IDS="$IDS $id"
	"$DRIVE" -c local -H "$HOME_DIR" -i "$id" keygen || exit 1
	specs=""
	i=1
	while [ $i -le "$n" ]; do specs="$specs vm:$i:node host:$i:node$i nics:$i:net"; i=$((i + 1)); done
	"$DRIVE" -c local -H "$HOME_DIR" -i "$id" net:net $specs create >"$TMPD/out" 2>"$TMPD/err"
	line=$(grep '^created ' "$TMPD/out")
	ok=$(echo "$line" | awk '{print $2}')
	secs=$(echo "$line" | awk '{print $4}')
	mode=$(grep -q '^note .*rootless' "$TMPD/out" && echo rootless || echo netns)
	t0=$(now)
	"$DRIVE" -c local -H "$HOME_DIR" -i "$id" cleanup >/dev/null 2>&1
	t1=$(now)
	if [ "$ok" != "$n/$n" ]; then
		echo "local_up: only $ok VMs came up:" >&2
		head -5 "$TMPD/err" >&2
	fi
	printf '%-6s %-9s %12s %12.3f %10.1f\n' "$n" "$mode" "$secs" \
		"$(echo "$t1 - $t0" | bc 2>/dev/null || awk "BEGIN{print $t1 - $t0}")" \
		"$(awk "BEGIN{print $n / $secs}")"
done
