#!/bin/sh
# t3010: the main job on a real Docker daemon: recipes/fashion-mnist-local.radl
# retargeted with `imc create --cloud docker` (the auth line's id; the
# recipe's local:// images become the node image through IMC_DOCKER_IMAGE)
# and a short training reaches 'configured'; each VM is a container with the
# RADL's cpu and memory limits on the infrastructure's bridge networks;
# getoutputs hands back the trained model; stopvm/startvm keep the VM; destroy
# leaves no container, volume or network of it, and a second destroy is a
# no-op. The daemon is the test's own (tests/docker/lib-docker.sh).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/docker/lib-docker.sh"
require_long
expect_eq() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi; }
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || skip_all "dataset-fashion-mnist not installed"
[ "$(id -u)" -eq 0 ] || skip_all "dockerd needs root"
docker_start 2>"$TMPD/why" || { not_ok "a Docker daemon of the test's own starts: $(cat "$TMPD/why")"; done_testing; exit 1; }
ok "a Docker daemon of the test's own starts with the node image"

printf '%s\n' "$DOCKER_AUTH" >"$TMPD/auth.dat"
export IMC_DOCKER_IMAGE="$DOCKER_IMAGE"
id=""
at_exit '[ -n "$id" ] && "$IMC" -a "$TMPD/auth.dat" destroy "$id" >/dev/null 2>&1'

"$IMC" -a "$TMPD/auth.dat" plan --cloud docker "$top_srcdir/recipes/fashion-mnist-local.radl" >"$TMPD/plan" 2>&1
expect_eq "$(grep -c 'cloud docker (auth id docker)' "$TMPD/plan")" 3 "plan puts the 3 VMs on the docker cloud"

"$IMC" -a "$TMPD/auth.dat" create --cloud docker -e train_steps=200 -e sync=true \
	"$top_srcdir/recipes/fashion-mnist-local.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
rc=$?
id=$(head -1 "$TMPD/create.out")
if [ "$rc" -eq 0 ]; then ok "create --cloud docker exits 0"
else
	not_ok "create --cloud docker exits 0 (exit $rc)"
	tail -20 "$TMPD/create.err" | sed 's/^/#   /'
	"$IMC" -a "$TMPD/auth.dat" getcontmsg "$id" 2>&1 | tail -40 | sed 's/^/#   /'
fi
expect_exit 0 "getstate works" -- "$IMC" -a "$TMPD/auth.dat" getstate "$id"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "the infrastructure is configured"

# the containers, as the daemon has them
docker_left "$id" >"$TMPD/objects"
expect_eq "$(grep -c '^container ' "$TMPD/objects")" 3 "the daemon has 3 containers of the infrastructure"
expect_eq "$(grep -c '^network ' "$TMPD/objects")" 2 "and its 2 networks"
c=$(grep '^container ' "$TMPD/objects" | head -1 | cut -d'"' -f4)
docker_api GET "/containers/$c/json" >"$TMPD/inspect"
expect_grep '"NanoCpus":1000000000' "$TMPD/inspect" "a container has the RADL's cpu count as its limit"
expect_grep '"Memory":1000000000' "$TMPD/inspect" "and its memory (1g) as its memory limit"
expect_grep '"Image":"imc-test-node-' "$TMPD/inspect" "and the node image"

expect_exit 0 "getoutputs works" -- "$IMC" -a "$TMPD/auth.dat" getoutputs --json "$id"
cp "$TMPD/out" "$TMPD/outputs.json"
expect_grep "checkpoint.imcckpt" "$TMPD/outputs.json" "the trained model was fetched back"
expect_grep "metrics.jsonl" "$TMPD/outputs.json" "the metrics were fetched back"

# stop and start one VM: it runs again, with an address
expect_exit 0 "stopvm of VM 1" -- "$IMC" -a "$TMPD/auth.dat" stopvm "$id" 1
expect_exit 0 "getvminfo after stopvm" -- "$IMC" -a "$TMPD/auth.dat" getvminfo "$id" 1 state
expect_grep '^stopped$' "$TMPD/out" "VM 1 is stopped"
expect_exit 0 "startvm of VM 1" -- "$IMC" -a "$TMPD/auth.dat" startvm "$id" 1
expect_exit 0 "getvminfo after startvm" -- "$IMC" -a "$TMPD/auth.dat" getvminfo "$id" 1 state
expect_no_grep '^stopped$' "$TMPD/out" "VM 1 runs again"

expect_exit 0 "destroy works" -- "$IMC" -a "$TMPD/auth.dat" destroy "$id"
done_id=$id
id=""
docker_left "$done_id" >"$TMPD/left"
if [ -s "$TMPD/left" ]; then not_ok "destroy leaves nothing of it in the daemon"; sed 's/^/#   left: /' "$TMPD/left"
else ok "destroy leaves nothing of it in the daemon"; fi
expect_exit 0 "a second destroy is a no-op" -- "$IMC" -a "$TMPD/auth.dat" destroy "$done_id"
done_testing
