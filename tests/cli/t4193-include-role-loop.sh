#!/bin/sh
# t4193: include_role in a loop (before, refused): each item includes the
# role, templated with the item (tasks_from or the role's own name may
# come from it; a loop_var of another name), its tasks see the loop
# variables; a host's own items (a loop templated per host); a failure in
# the included role rescued by the block around the include; a skipped
# item printed "skipping ... (item=...)" uncounted, all items skipped or
# none a skipped task; the registered result (include_args per item).
# Compared live with ansible-playbook: the whole output on one host, and
# on two hosts the same lines (Ansible, like imc, prints hosts as they
# finish). An included role that does not exist ends the run, as the
# error Ansible's strategy raises: ignore_errors does not catch it, no
# task nor play runs after it, the recap is printed, the playbook fails.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D/roles/r1/tasks" "$D/roles/r2/tasks"
cd "$D" || exit 1
printf -- '- debug: msg="r1 {{ it }} {{ x | default(0) }}"\n' >roles/r1/tasks/main.yml
printf -- '- debug: msg="r1 other {{ it }}"\n' >roles/r1/tasks/other.yml
printf -- '- debug: msg="r2 {{ it }}"\n- fail: msg="r2 fails on {{ it }}"\n  when: it == "boom"\n' >roles/r2/tasks/main.yml
cat >p.yml <<'EOF_PB'
- hosts: all
  gather_facts: false
  tasks:
    - include_role:
        name: r1
        tasks_from: "{{ it }}"
      loop: [main, other]
      loop_control: { loop_var: it }
    - name: per host items
      include_role:
        name: "{{ it }}"
      loop: "{{ ['r1'] if inventory_hostname == 'h1' else ['r2', 'r1'] }}"
      loop_control: { loop_var: it, index_var: idx }
    - block:
        - include_role: { name: r2 }
          loop: [ok, boom, never]
          loop_control: { loop_var: it }
      rescue:
        - debug: msg="rescued {{ ansible_failed_task.name }}"
    - include_role: { name: r1 }
      vars: { x: "{{ it }}" }
      loop: [a, b]
      loop_control: { loop_var: it }
      when: it != 'b'
      register: reg
    - debug: var=reg
    - include_role: { name: nosuchrole }
      loop: [1]
      when: false
    - include_role: { name: r1 }
      loop: []
      register: empty_reg
    - debug: var=empty_reg
EOF_PB
ansible-playbook -i h1, -c local p.yml >"$TMPD/ans" 2>&1
expect_exit 0 "include_role loops on one host" -- "$IMC" play -i h1, -c local p.yml --no-fallback
cp "$TMPD/out" "$TMPD/imc"
expect_same_as_ansible "... the same output as ansible-playbook" grep -q 'rescued' "$TMPD/ans"
ansible-playbook -i h1,h2, -c local p.yml 2>&1 | sort >"$TMPD/ans"
expect_exit 0 "on two hosts" -- "$IMC" play -i h1,h2, -c local p.yml --no-fallback
sort "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the same lines as ansible-playbook" grep -q 'r2 ok' "$TMPD/ans"
cat >missing.yml <<'EOF_PB'
- hosts: all
  gather_facts: false
  tasks:
    - debug: { msg: before }
    - include_role: { name: nosuchrole }
      ignore_errors: true
    - debug: { msg: after }
- hosts: h1
  gather_facts: false
  tasks:
    - debug: { msg: "second play" }
EOF_PB
ansible-playbook -i h1,h2, -c local missing.yml 2>/dev/null | sort >"$TMPD/ans"
expect_exit 1 "an included role that does not exist" -- "$IMC" play -i h1,h2, -c local missing.yml --no-fallback
sort "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... ends the run as ansible-playbook's" grep -q 'PLAY RECAP' "$TMPD/ans"
expect_grep "the role 'nosuchrole' was not found" "$TMPD/err" "... naming the role"
done_testing
