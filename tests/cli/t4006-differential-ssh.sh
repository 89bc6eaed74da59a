#!/bin/sh
# t4006: the differential scenarios (tests/differential) again, this time
# over real SSH (imc play -c ssh) to a VM of the local cloud, a network
# namespace running OpenSSH's sshd, with the infrastructure's key: the same
# files, registered results and recap as the golden ansible-playbook runs,
# as with --connection local in t4002. Then the proof that SSH carries the
# plays: the same scenario with a key the VM does not accept fails, and so
# does an address where nothing listens.
. "$top_srcdir/tests/cli/lib.sh"
# ~6 minutes: forty plays over SSH
require_long
require_netns
DIFF=$top_srcdir/tests/differential
PY=${PYTHON3:-python3}
# all of these are in the repository or installed by scripts/install-deps
[ -d "$DIFF/scenarios" ] && ok "the scenarios are here" || { not_ok "no differential scenarios at $DIFF"; exit 1; }
command -v "$PY" >/dev/null 2>&1 && ok "python3 for compare.py" || { not_ok "no $PY for compare.py"; exit 1; }
[ -x /usr/sbin/sshd ] && ok "sshd is installed" || { not_ok "needs /usr/sbin/sshd (openssh-server)"; exit 1; }
id=""
at_exit '[ -z "$id" ] || "$IMC" destroy "$id" >/dev/null 2>&1'

cat >"$TMPD/one.radl" <<'RADL'
network lan ()
system node (net_interface.0.connection = 'lan' and net_interface.0.dns_name = 'node-#N#')
contextualize ()
deploy node 1
RADL
expect_exit 0 "a one-VM local infrastructure" -- "$IMC" create "$TMPD/one.radl"
id=$(head -1 "$TMPD/out")
[ -n "$id" ] || { not_ok "imc create printed no id"; exit 1; }
"$IMC" getvminfo --json "$id" 0 >"$TMPD/vm.json"
addr=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(next(a["net_interface.0.ip"] for a in d["radl"] if a.get("class") == "system"))' "$TMPD/vm.json")
[ -n "$addr" ] && ok "the VM has an address ($addr)" || { not_ok "the VM has no address"; exit 1; }
key="$IMC_HOME/infra/$id/id_ed25519"
[ -s "$key" ] && ok "the infrastructure's key is in \$IMC_HOME" || { not_ok "no key at $key"; exit 1; }
# the address is the VM's own, in its namespace: not one of this machine's
ip -o addr show | grep -qw "inet $addr" && not_ok "$addr is an address of this machine" ||
	ok "$addr is not an address of this machine"

# the scratch directories live under $TMPD, which the VM sees at the same path
run_diff() { # OUTDIR HOST KEY [SCENARIO...]
	_o=$1 _h=$2 _k=$3
	shift 3
	DIFF_SSH_HOST="$_h" DIFF_SSH_KEY="$_k" PYTHON3=$PY \
		sh "$DIFF/run.sh" "$IMC" "$DIFF" "$_o" "$@" >"$_o.txt" 2>&1
}
# The scenarios that exercise what a connection carries: commands and
# their streams, raw, files written and read (copy, template, modes,
# lineinfile), async jobs, roles' files, loops and handlers. The module
# scenarios added after them (11 on: find, assemble, cron, mount,
# include_vars; 20 on: the inventory modules, checked over SSH by t4003)
# reach the node through the same few primitives, and t4002 runs every
# scenario; over SSH here, at ~0.7 s a task for this machine's root login
# shell, they would double the test's time. (A scenario with a local-only
# file, 23-delegate-to, could not run over SSH at all: it says why.)
SSH_SCENARIOS="01-lineinfile 02-copy-file-modes 03-template 04-command-shell
05-register-when-until 06-loops 07-block-handlers 08-roles 09-async 10-jinja-vars"
# shellcheck disable=SC2086
run_diff "$TMPD/out-diff" "root@$addr" "$key" $SSH_SCENARIOS
for name in $SSH_SCENARIOS; do
	if grep -q "^PASS $name\$" "$TMPD/out-diff.txt"; then ok "$name over SSH"
	else
		not_ok "$name over SSH"
		sed -n "/^FAIL $name\$/,/^[PF]A[SI][SL] /p" "$TMPD/out-diff.txt" | head -30 | sed 's/^/#  /'
	fi
done

# SSH really carries the plays: a key the VM does not accept, a dead address
ssh-keygen -q -t ed25519 -N '' -C imc-wrong -f "$TMPD/wrongkey" && ok "a key the VM does not know" ||
	not_ok "ssh-keygen failed"
run_diff "$TMPD/out-wrongkey" "root@$addr" "$TMPD/wrongkey" 01-lineinfile
expect_grep '^FAIL 01-lineinfile$' "$TMPD/out-wrongkey.txt" "with a wrong key the scenario fails"
expect_grep 'rc=69' "$TMPD/out-wrongkey/01-lineinfile/run1.rc" "... imc play exits 69 (host unreachable)"
expect_grep "public key authentication as 'root' failed" "$TMPD/out-wrongkey/01-lineinfile/run1.err" \
	"... because sshd refused the key"
run_diff "$TMPD/out-dead" "root@$addr:1" "$key" 01-lineinfile
expect_grep '^FAIL 01-lineinfile$' "$TMPD/out-dead.txt" "with a dead address the scenario fails"
expect_grep 'rc=69' "$TMPD/out-dead/01-lineinfile/run1.rc" "... imc play exits 69 (unreachable)"
expect_grep "cannot connect to $addr port 1" "$TMPD/out-dead/01-lineinfile/run1.err" "... and says why"

expect_exit 0 "destroy" -- "$IMC" destroy "$id"
id=""
done_testing
