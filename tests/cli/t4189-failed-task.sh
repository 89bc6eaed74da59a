#!/bin/sh
# t4189: ansible_failed_task in a rescue carries the failed task's name
# (templated, "" when it has none) and its action as the task wrote it
# (its FQCN when given so), as Ansible's serialized task does. Compared
# live with ansible-playbook (scripts/install-deps installs it).
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/p.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  vars: { n: templated }
  tasks:
    - block:
        - ansible.builtin.command: /bin/false
      rescue:
        - debug: msg="[{{ ansible_failed_task.action }}] [{{ ansible_failed_task.name }}]"
    - block:
        - fail: msg=x
          name: "named {{ n }}"
      rescue:
        - debug: msg="[{{ ansible_failed_task.action }}] [{{ ansible_failed_task.name }}]"
    - block:
        - debug: msg="{{ undefined_thing.value }}"
      rescue:
        - debug: msg="[{{ ansible_failed_task.action }}] [{{ ansible_failed_task.name }}]"
EOF_PB
cd "$D" || exit 1
ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local p.yml >"$TMPD/ans.out" 2>&1
grep '"msg": "\[' "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "three rescued failures" -- "$IMC" play -i localhost, -c local p.yml
grep '"msg": "\[' "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... ansible_failed_task as under ansible-playbook" test "$(grep -c . "$TMPD/ans")" = 3
done_testing
