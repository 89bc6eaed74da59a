#!/bin/sh
# t4071: the modprobe module (community.general.modprobe) run natively by
# imc gives the results ansible-playbook gives (recorded in
# t4071-modprobe.expect): a module loaded (in /proc/modules, dashes as
# underscores) or built in is left alone, the others loaded or removed with
# modprobe (-n in check mode), modprobe's failures and Ansible's argument
# errors; persistent=present is refused when the play is loaded. The
# kernel here has no loadable modules, and a test must not load any: the
# play runs in a private mount namespace (unshare -m) where /proc is a
# tmpfs holding a /proc/modules of its own, and /usr/lib and /etc are
# overlays (upper layers in the test's temp dir) adding
# /lib/modules/RELEASE/modules.builtin and an /etc/modprobe.d rule that
# "loads" fake-mod with /bin/true. Nothing outside the namespace changes.
# IMC_TEST_RECORD=1 runs ansible-playbook instead and rewrites the .expect file.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t407-lib-recorded.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (mount namespaces)"
command -v modprobe >/dev/null || { not_ok "needs modprobe (kmod: scripts/install-deps)"; exit 1; }
play="$top_srcdir/tests/cli/t4071-modprobe.yml"
expect="$top_srcdir/tests/cli/t4071-modprobe.expect"
d="$TMPD/w"
mkdir -p "$d" "$TMPD/lu" "$TMPD/lw" "$TMPD/eu" "$TMPD/ew"
release=$(uname -r)
# A sanitizer build cannot run in there: ASan and LeakSanitizer read
# /proc/self (their options, the threads at exit), which the namespace's
# tmpfs /proc replaces; the sanitizer pass then checks only the play
# outside the namespace below.
if ldd "$IMC" 2>/dev/null | grep -q 'libasan'; then
	echo "# sanitizer build: the namespace play is left to the normal pass"
else
	expect_exit 0 "the play runs in a mount namespace with a fake /proc/modules" -- \
		unshare -m --propagation private sh -c "
		mount -t overlay imc-t4071 -o lowerdir=/usr/lib,upperdir=$TMPD/lu,workdir=$TMPD/lw /usr/lib &&
		mount -t overlay imc-t4071 -o lowerdir=/etc,upperdir=$TMPD/eu,workdir=$TMPD/ew /etc &&
		mkdir -p /lib/modules/$release /etc/modprobe.d &&
		echo kernel/fs/builtin-mod.ko >/lib/modules/$release/modules.builtin &&
		echo 'install fake-mod /bin/true' >/etc/modprobe.d/imc-t4071.conf &&
		mount -t tmpfs imc-t4071 /proc &&
		echo 'dummy_mod 16384 0 - Live 0x0000000000000000' >/proc/modules &&
		exec $run -e d='$d' '$play'"
	sed "s#$release#@RELEASE@#g" "$d/results" >"$TMPD/got"
	recorded_check "$TMPD/got" "$expect" "results as ansible-playbook's"
	if [ ! -e /etc/modprobe.d/imc-t4071.conf ] &&
		! grep -qs builtin-mod "/lib/modules/$release/modules.builtin"; then
		ok "nothing changed outside the namespace"
	else
		not_ok "the namespace's files leaked to the machine"
	fi
fi

# outside the namespace, in check mode (modprobe -n: nothing loads): on a
# kernel without /proc/modules (as here) the module fails as Ansible's
# does; failed or not, the result carries the module's fields (leaks
# checked here in the sanitizer pass)
cat >"$TMPD/real.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - modprobe: { name: dummy, params: "x=1" }
      check_mode: true
      register: r
      ignore_errors: true
    - assert:
        that:
          - r.name == 'dummy' and r.params == 'x=1' and r.state == 'present'
EOY
if [ "$recording" != 1 ]; then
	expect_exit 0 "on this machine's own /proc, the result carries the module's fields" -- \
		"$IMC" play --no-fallback --connection local "$TMPD/real.yml"
fi

# the files of persistent=present|absent are not implemented: the task
# would go to Ansible, and with --no-fallback the play stops before it runs
cat >"$TMPD/persistent.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - modprobe: { name: dummy, persistent: present }
EOY
if [ "$recording" != 1 ]; then
	expect_exit 65 "persistent=present is refused when the play is loaded" -- \
		"$IMC" play --no-fallback --connection local "$TMPD/persistent.yml"
	expect_grep "modprobe: unsupported parameter 'persistent'" "$TMPD/err" "... naming the parameter"
fi
done_testing
