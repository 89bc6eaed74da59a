#!/bin/sh
# t3013: the docker backend on a real daemon (the test's own), through
# tests/helper/cloud-drive: an extra disk with a mount path is a named
# volume mounted there and labelled; cpu and memory become the container's
# limits; a VM whose cloud id the store lost (a crash between the
# container's create and the store's write) is still removed by destroy,
# by its name; cleanup_infra sweeps what a lost VM left; and destroy takes
# containers, volumes and networks, twice without error.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/docker/lib-docker.sh"
expect_eq() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi; }
[ "$(id -u)" -eq 0 ] || skip_all "dockerd needs root"
docker_start 2>"$TMPD/why" || { not_ok "a Docker daemon of the test's own starts: $(cat "$TMPD/why")"; done_testing; exit 1; }
DRIVE="$top_builddir/tests/helper/cloud-drive"
ID=$(cat /proc/sys/kernel/random/uuid)
drive() {
	desc=$1
	shift
	expect_exit 0 "$desc" -- "$DRIVE" -a "$DOCKER_AUTH" -H "$IMC_HOME" -i "$ID" "$@"
}

drive "create a VM with 2 cpus, 256Mi and a 1 GB disk at /data" keygen net:n:private \
	vm:1:a:$DOCKER_IMAGE:-:2:256Mi:0:1@/data create
expect_grep '^vm 1 running ' "$TMPD/out" "it runs"
docker_api GET "/containers/imc-$ID-1/json" >"$TMPD/inspect"
expect_grep '"NanoCpus":2000000000' "$TMPD/inspect" "its cpu limit is 2 cpus"
expect_grep '"Memory":268435456' "$TMPD/inspect" "its memory limit is 256 MiB"
expect_grep "\"Type\":\"volume\",\"Name\":\"imc-$ID-1-disk1\",[^}]*\"Destination\":\"/data\"" "$TMPD/inspect" \
	"the volume imc-ID-1-disk1 is mounted at /data"
expect_eq "$(docker_left "$ID" | grep -c '^volume ')" 1 "the volume carries the infrastructure's label"

# the store lost VM 2's row: create it, then forget its id
drive "create VM 2 with a disk at /scratch, then forget its cloud id" vm:2:b:$DOCKER_IMAGE:-:0:0:0:1@/scratch nics:2:n create forget:2
drive "destroy VM 2 known by its number only" destroy:2
expect_grep '^vm 2 off ' "$TMPD/out" "VM 2 is off"
expect_eq "$(docker_api GET "/containers/imc-$ID-2/json" -o /dev/null -w '%{http_code}')" 404 "its container is gone"
expect_eq "$(docker_left "$ID" | grep -c '^volume ')" 1 "its volume is gone, VM 1's stays"

# a VM made behind the store's back (a crash before the row): cleanup finds it by label
drive "create VM 3 and forget it" vm:3:c:$DOCKER_IMAGE nics:3:n create forget:3
drive "destroy VM 1" vm:1:a destroy:1
expect_eq "$(docker_left "$ID" | grep -c '^container ')" 1 "the forgotten VM 3 is still there"
drive "cleanup_infra" cleanup
docker_left "$ID" >"$TMPD/left"
if [ -s "$TMPD/left" ]; then not_ok "cleanup_infra leaves nothing of the infrastructure"; sed 's/^/#   /' "$TMPD/left"
else ok "cleanup_infra leaves nothing of the infrastructure"; fi
drive "destroy again, everything" net:n:private vm:1:a vm:2:b vm:3:c destroy cleanup
expect_eq "$(grep -c ' off ' "$TMPD/out")" 6 "every VM is off, after destroy and after cleanup"
done_testing
