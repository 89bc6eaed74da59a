#!/bin/sh
# t4198: a task's conditions as Ansible's Conditional evaluates them: the
# blocks' conditions before the task's own (a false block condition skips
# a task whose own condition could not be evaluated); one that cannot be
# evaluated fails the task in Ansible's words (the check, the error, the
# task's position), with no "changed"; in a loop, such an error ends the
# loop and fails the task as a whole, with no per-item results. Compared
# live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/when.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  tasks:
    - block:
        - debug: msg=x
          when: undefined_var
      when: false
    - block:
        - debug: msg=y
          when: false
      when: undefined_var2
      ignore_errors: true
    - debug: msg=z
      when: [true, nope | int > 1, false]
      ignore_errors: true
      register: r1
    - debug: msg={{ item }}
      loop: [1, 2, 3]
      when: item == 2 and undefined_var
      ignore_errors: true
      register: r2
    - debug: var=r2
    - debug:
        msg: "{{ r1.failed }} {{ 'changed' in r1 }}"
EOF
cd "$D" || exit 1
ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local when.yml >"$TMPD/ans.out" 2>&1
grep -v '^\[WARNING\]' "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "conditions that cannot be evaluated, in blocks and loops" -- "$IMC" play -c local when.yml
grep -v '^\[WARNING\]' "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the whole output as ansible-playbook's" grep -q 'line 9, column 11' "$TMPD/ans"
expect_grep '^skipping: \[localhost\]$' "$TMPD/out" "... a false block condition comes first"
expect_no_grep '(item=3)' "$TMPD/out" "... the loop ends at the item that fails"
done_testing
