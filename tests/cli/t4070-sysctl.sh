#!/bin/sh
# t4070: the sysctl module (ansible.posix.sysctl) run natively by imc gives
# the results and files ansible-playbook gives (recorded in
# t4070-sysctl.expect): a key added, replaced, set with sysctl_set,
# reloaded, removed, in check mode, with boolean values, duplicates and
# comments in the file, and Ansible's failures. Contained: the play runs
# in a network namespace the test creates (unshare -n), where
# net.ipv4.ip_forward is that namespace's own, and its sysctl_file is under
# the test's temp dir: the machine's settings and /etc/sysctl.conf are
# never touched. IMC_TEST_RECORD=1 runs ansible-playbook instead and
# rewrites the .expect file (how it was recorded).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t407-lib-recorded.sh"
require_netns
play="$top_srcdir/tests/cli/t4070-sysctl.yml"
expect="$top_srcdir/tests/cli/t4070-sysctl.expect"
d="$TMPD/w"
mkdir -p "$d"
before=$(cat /proc/sys/net/ipv4/ip_forward)
expect_exit 0 "the play runs in its own network namespace" -- \
	unshare -n sh -c "sysctl -qw net.ipv4.ip_forward=1 && exec $run -e d='$d' '$play'"
{
	cat "$d/results"
	for f in sysctl.conf new.conf new2.conf; do echo "== $f"; cat "$d/$f"; done
} | sed "s#$d#@D@#g" >"$TMPD/got"
recorded_check "$TMPD/got" "$expect" "results and files as ansible-playbook's"
if [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$before" ]; then
	ok "the machine's net.ipv4.ip_forward is untouched"
else
	not_ok "the machine's net.ipv4.ip_forward changed"
fi
done_testing
