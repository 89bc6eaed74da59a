#!/bin/sh
# t4205: become runs the task's become_method, sudo (Ansible's default) or
# su, and no other in its place (imc used sudo whatever the method said,
# and su when sudo was missing); another method stops the run naming it.
# BECOME_ALLOW_SAME_USER=1 becomes even to the connection's own user
# (root to root: sudo sets SUDO_USER), which imc refused. Compared live
# with ansible-playbook, the setting off and on.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >b.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - raw: echo $0; id -un
      args: { executable: /bin/bash }
      become: true
      become_method: su
      register: r
    - command: printenv SUDO_USER
      become: true
      register: s
      failed_when: false
    - command: id -un
      become: true
      become_user: nobody
      register: n
    - debug: msg="{{ r.stdout_lines }} [{{ s.stdout }}] {{ s.rc }} {{ n.stdout }}"
EOF_PB
for same in 0 1; do
	ANSIBLE_BECOME_ALLOW_SAME_USER=$same ansible-playbook b.yml 2>/dev/null | grep '"msg"' >"$TMPD/ans"
	export ANSIBLE_BECOME_ALLOW_SAME_USER=$same
	expect_exit 0 "su, sudo and become_user (BECOME_ALLOW_SAME_USER=$same)" -- "$IMC" play b.yml --no-fallback
	unset ANSIBLE_BECOME_ALLOW_SAME_USER
	grep '"msg"' "$TMPD/out" >"$TMPD/imc"
	expect_same_as_ansible "... the same users and shells as ansible-playbook" grep -q nobody "$TMPD/ans"
done
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: id -un\n      become: true\n      become_user: nobody\n      become_method: doas\n' >d.yml
expect_exit 65 "a become_method imc does not run" -- "$IMC" play d.yml --no-fallback
expect_grep "become_method 'doas': imc becomes with sudo or su only" "$TMPD/err" "... stops the run, naming it"
done_testing
