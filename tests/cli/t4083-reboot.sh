#!/bin/sh
# t4083: the native reboot action over SSH, to an sshd the test starts on
# loopback (stopped by PID at exit). The node is this machine, so nothing
# really reboots: the boot id is a file of the test's (boot_time_command)
# and reboot_command changes it; one of them also drops the SSH session
# as a reboot does, by killing the sessions of the test's own sshd (the
# children of its PID), and imc reconnects. Checked: the wait for a new
# boot id and for test_command, rebooted/changed/elapsed, both timeouts,
# a failing reboot command, the command not found in search_paths, a
# failing boot_time_command, invalid options, check mode, and the local
# connection refused. The expected lines are ansible-playbook 2.14's for
# the same play, except where Ansible's own SSH connection (with a pty)
# merges the command's stderr into stdout and adds "Shared connection to
# ... closed.": imc has no pty, so those two messages carry the command's
# stdout and stderr apart (the lines marked below).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + ($$ + 83) % 20000))
sshd_keys "$TMPD" || { not_ok "ssh-keygen failed"; done_testing; }
sshd_start "$TMPD" 127.0.0.1 $P1 || { not_ok "cannot start sshd"; done_testing; }
SSHD_PID=$(cat "$TMPD/sshd-127.0.0.1-$P1.pid")
mkdir -p "$TMPD/res"

cat >"$TMPD/rb.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    drop: [elapsed, invocation, start, end]
    boot: "{{ dir }}/boot_id"
  tasks:
    - copy: { dest: "{{ boot }}", content: "one\n" }
    - reboot:
        boot_time_command: "cat {{ boot }}"
        reboot_command: "/bin/sh -c 'echo two > {{ boot }}; pkill -P {{ sshd_pid }}'"
        reboot_timeout: 30
      register: r_drop
    - reboot:
        boot_time_command: "cat {{ boot }}"
        reboot_command: "/bin/sh -c 'echo three > {{ boot }}'"
        test_command: "test -s {{ boot }}"
        msg: ignored here
      register: r_keep
    - reboot:
        boot_time_command: "cat {{ boot }}"
        reboot_command: /bin/true
        reboot_timeout: 2
      register: r_timeout
      ignore_errors: true
    - reboot:
        boot_time_command: "cat {{ boot }}"
        reboot_command: "/bin/sh -c 'echo four > {{ boot }}'"
        test_command: "false"
        reboot_timeout: 2
      register: r_testfail
      ignore_errors: true
    - reboot: { reboot_command: "/bin/sh -c 'echo out; echo err >&2; exit 3'", boot_time_command: "cat {{ boot }}" }
      register: r_cmdfail
      ignore_errors: true
    - reboot: { reboot_command: "nosuchcmd -x", boot_time_command: "cat {{ boot }}", search_paths: [/usr/bin, /bin] }
      register: r_notfound
      ignore_errors: true
    - reboot: { boot_time_command: "cat {{ dir }}/nosuch" }
      register: r_bootfail
      ignore_errors: true
    - reboot: { foo: 1, reboot_timeout_sec: 3 }
      register: r_badopt
      ignore_errors: true
    - reboot: {}
      check_mode: true
      register: r_check
    - copy:
        dest: "{{ dir }}/res/rb.json"
        content: |
          {% for n in ['r_drop','r_keep','r_timeout','r_testfail','r_cmdfail','r_notfound','r_bootfail','r_badopt','r_check'] %}
          {{ n }}: {{ lookup('vars', n) | dict2items | rejectattr('key', 'in', drop) | sort(attribute='key') | items2dict | to_json(sort_keys=true) }} {{ lookup('vars', n).elapsed | default('none') is number }}
          {% endfor %}
EOY
expect_exit 0 "the reboot play runs natively over SSH" -- "$IMC" play --no-fallback -c ssh \
	-H n1=root@127.0.0.1:$P1 -k "$TMPD/userkey" --known-hosts "$TMPD/kh" \
	-e dir="$TMPD" -e sshd_pid="$SSHD_PID" "$TMPD/rb.yml"
sed "s|$TMPD|DIR|g" "$TMPD/res/rb.json" >"$TMPD/got"
# r_cmdfail and r_bootfail: Ansible's are
#   "Reboot command failed. Error was: 'out\r\nerr, Shared connection to 127.0.0.1 closed.'"
#   "... rc: 1, stdout: cat: DIR/nosuch: No such file or directory\r\n, stderr: Shared connection to 127.0.0.1 closed.\r\n"
# and r_badopt has Ansible's internal "exception": "NoneType: None\n" too
cat >"$TMPD/want" <<'EOT'
r_drop: {"changed": true, "failed": false, "rebooted": true} True
r_keep: {"changed": true, "failed": false, "rebooted": true} True
r_timeout: {"changed": false, "failed": true, "msg": "Timed out waiting for last boot time check (timeout=2)", "rebooted": true} True
r_testfail: {"changed": false, "failed": true, "msg": "Timed out waiting for post-reboot test command (timeout=2)", "rebooted": true} True
r_cmdfail: {"changed": false, "failed": true, "msg": "Reboot command failed. Error was: 'out, err'", "rebooted": false} True
r_notfound: {"failed": true, "msg": "Unable to find command \"nosuchcmd\" in search paths: ['/usr/bin', '/bin']"} False
r_bootfail: {"changed": false, "failed": true, "msg": "reboot: failed to get host boot time info, rc: 1, stdout: , stderr: cat: DIR/nosuch: No such file or directory\n", "reboot": false} False
r_badopt: {"changed": false, "failed": true, "msg": "Invalid options for reboot: foo,reboot_timeout_sec"} False
r_check: {"changed": true, "failed": false, "rebooted": true} True
EOT
if cmp -s "$TMPD/want" "$TMPD/got"; then ok "... every result as ansible-playbook's"
else not_ok "... every result as ansible-playbook's"; diff "$TMPD/want" "$TMPD/got" | sed 's/^/#   /'; fi

# the local connection: refused, as Ansible refuses it
cat >"$TMPD/local.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - reboot:
      register: a
      ignore_errors: true
    - ansible.builtin.reboot:
      register: b
      ignore_errors: true
    - copy: { dest: "{{ out }}", content: "{{ a | to_json(sort_keys=true) }}\n{{ b | to_json(sort_keys=true) }}\n" }
EOY
expect_exit 0 "reboot on the local connection" -- "$IMC" play --no-fallback --connection local \
	-e out="$TMPD/local.got" "$TMPD/local.yml"
cat >"$TMPD/local.want" <<'EOT'
{"changed": false, "elapsed": 0, "failed": true, "msg": "Running reboot with local connection would reboot the control node.", "rebooted": false}
{"changed": false, "elapsed": 0, "failed": true, "msg": "Running ansible.builtin.reboot with local connection would reboot the control node.", "rebooted": false}
EOT
if cmp -s "$TMPD/local.want" "$TMPD/local.got"; then ok "... refused as Ansible refuses it"
else not_ok "... refused as Ansible refuses it"; diff "$TMPD/local.want" "$TMPD/local.got" | sed 's/^/#   /'; fi

done_testing
