#!/bin/sh
# t4006: the shared differential scenarios again, this time over real SSH
# on a VM of the local cloud (the same files, registered results and recap
# as the golden ansible-playbook runs, as with --connection local in t4002).
. "$top_srcdir/tests/cli/lib.sh"
require_netns
DIFF=$top_srcdir/../shared/research/differential-tests
[ -d "$DIFF/scenarios" ] || skip_all "no shared differential tests at $DIFF"
PY=${PYTHON3:-python3}
command -v "$PY" >/dev/null 2>&1 || skip_all "python3 is needed by compare.py"
[ -x /usr/sbin/sshd ] || skip_all "needs openssh-server"
id=""
trap '[ -n "$id" ] && "$IMC" destroy "$id" >/dev/null 2>&1; rm -rf "$TMPD"' EXIT

cat >"$TMPD/one.radl" <<'RADL'
network lan ()
system node (net_interface.0.connection = 'lan' and net_interface.0.dns_name = 'node-#N#')
contextualize ()
deploy node 1
RADL
expect_exit 0 "a one-VM local infrastructure" -- "$IMC" create "$TMPD/one.radl"
id=$(head -1 "$TMPD/out")
"$IMC" getvminfo --json "$id" 0 >"$TMPD/vm.json"
addr=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(next(a["net_interface.0.ip"] for a in d["radl"] if a.get("class") == "system"))' "$TMPD/vm.json")
[ -n "$addr" ] && ok "the VM has an address ($addr)" || not_ok "the VM has an address"

# the scratch directories live under $TMPD, which the VM sees at the same path
DIFF_SSH_HOST="root@$addr" DIFF_SSH_KEY="$IMC_HOME/infra/$id/id_ed25519" PYTHON3=$PY \
	sh "$top_srcdir/tests/differential/run.sh" "$IMC" "$DIFF" "$TMPD/out-diff" >"$TMPD/diff.txt" 2>&1
for name in $(cd "$DIFF/scenarios" && ls -d */ | tr -d /); do
	if grep -q "^PASS $name\$" "$TMPD/diff.txt"; then ok "$name over SSH"
	else
		not_ok "$name over SSH"
		sed -n "/^FAIL $name\$/,/^[PF]A[SI][SL] /p" "$TMPD/diff.txt" | head -30 | sed 's/^/#  /'
	fi
done
expect_exit 0 "destroy" -- "$IMC" destroy "$id"
id=""
done_testing
