#!/bin/sh
# t9001: the main job end to end, shortened: `imc create` of
# recipes/fashion-mnist-local.radl on the local cloud with a few hundred
# training steps reaches 'configured', hands back the model and metrics
# with a test accuracy >= 80%, and `imc destroy` leaves nothing behind.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || skip_all "dataset-fashion-mnist not installed"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip_all "openssh-server not installed"

# What this infrastructure could leave behind: its namespaces, links and
# /etc/netns entries (named after the first 8 characters of its id), and
# processes working in its job directories or under its $IMC_HOME.
leftovers() {
	tag=$(printf '%s' "$1" | cut -c1-8)
	{
		ip netns list 2>/dev/null | awk '{print $1}' | grep -F "imc-$tag"
		ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | grep -F "imc$tag"
		ls /etc/netns 2>/dev/null | grep -F "$tag"
		for p in /proc/[0-9]*; do
			cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
			case "$cwd" in *"/imc-train/$1"*|"$IMC_HOME"*) echo "process ${p#/proc/} in $cwd";; esac
		done
		pgrep -af sshd 2>/dev/null | grep -F "$IMC_HOME"
	} | sort
}
id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

"$IMC" create -e train_steps=400 -e sync=true "$top_srcdir/recipes/fashion-mnist-local.radl" >"$TMPD/create.out" 2>"$TMPD/create.err"
rc=$?
id=$(head -1 "$TMPD/create.out")
if [ "$rc" -eq 0 ]; then ok "create exits 0"; else not_ok "create exits 0 (exit $rc)"; tail -20 "$TMPD/create.err" | sed 's/^/#   /'; "$IMC" getcontmsg "$id" 2>&1 | tail -40 | sed 's/^/#   /'; fi
expect_exit 0 "getstate works" -- "$IMC" getstate "$id"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "the infrastructure is configured"
expect_exit 0 "getoutputs works" -- "$IMC" getoutputs --json "$id"
cp "$TMPD/out" "$TMPD/outputs.json"
acc=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("test_accuracy", 0))' "$TMPD/outputs.json" 2>/dev/null || echo 0)
if "$PYTHON3" -c "import sys; sys.exit(0 if float('$acc') >= 0.80 else 1)"; then ok "test accuracy $acc >= 0.80"; else not_ok "test accuracy $acc >= 0.80"; cat "$TMPD/outputs.json" | sed 's/^/#   /'; fi
expect_grep "checkpoint.imcckpt" "$TMPD/outputs.json" "the model was fetched back"
expect_grep "metrics.jsonl" "$TMPD/outputs.json" "the metrics were fetched back"
expect_exit 0 "destroy works" -- "$IMC" destroy "$id"
id_done=$id; id=""
after=$(leftovers "$id_done")
if [ -z "$after" ]; then ok "destroy leaves nothing behind"; else not_ok "destroy leaves nothing behind"; echo "$after" | sed 's/^/#   left: /'; fi
if ls "$IMC_HOME"/infra/"$id_done" 2>/dev/null | grep -q 'id_'; then not_ok "the key files are gone"; else ok "the key files are gone"; fi
expect_exit 0 "a second destroy is a no-op" -- "$IMC" destroy "$id_done"
done_testing
