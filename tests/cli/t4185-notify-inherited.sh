#!/bin/sh
# t4185: notify is inherited as Ansible's Task and Block inherit it: the
# tasks an import_tasks with notify: brings in, and the tasks of a block
# with notify: (the innermost one that sets it wins; a task's own notify
# wins over both) notify those handlers when changed; an unchanged task
# notifies nothing. Compared live with ansible-playbook (scripts/install-deps
# installs it): the tasks and handlers run, in order, and the recap.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/t.yml" <<'EOF_T'
- debug: msg=imported
  changed_when: true
- debug: msg=imported-own
  changed_when: true
  notify: h3
EOF_T
cat >"$D/p.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - import_tasks: t.yml
      notify: h1
    - block:
        - debug: msg=in-block
          changed_when: true
        - block:
            - debug: msg=inner
              changed_when: true
          notify: [h4]
      notify: h2
    - debug: msg=unchanged
      notify: h5
  handlers:
    - { name: h1, debug: msg=h1 }
    - { name: h2, debug: msg=h2 }
    - { name: h3, debug: msg=h3 }
    - { name: h4, debug: msg=h4 }
    - { name: h5, debug: msg=h5 }
EOF_PB
cd "$D" || exit 1
norm() { grep -E '^(TASK|RUNNING|localhost)|"msg"' "$1"; }
ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local p.yml >"$TMPD/ans.out" 2>&1
norm "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "a play whose imports and blocks carry notify" -- "$IMC" play -i localhost, -c local p.yml
norm "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "the same handlers run as under ansible-playbook" grep -q 'RUNNING HANDLER \[h1\]' "$TMPD/ans"
done_testing
