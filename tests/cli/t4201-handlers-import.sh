#!/bin/sh
# t4201: import_tasks under handlers: brings handlers, each notified by
# its name or listen and run one by one under the import's keywords
# (its when, its vars), an import inside it too. Compared live with
# ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
printf -- '- name: test handler\n  debug: msg=first_ran\n- name: other\n  debug: msg=other_ran\n' >h.yml
printf -- '- name: second\n  debug: msg=second_ran\n  listen: grp\n- import_tasks: h3.yml\n' >h2.yml
printf -- '- name: third\n  debug: msg="third {{ v }}"\n' >h3.yml
cat >p.yml <<'EOF'
- hosts: localhost
  gather_facts: false
  tasks:
    - command: "true"
      notify: [test handler, grp, third]
    - command: "true"
      notify: other
  handlers:
    - import_tasks: h.yml
      when: false
    - import_tasks: h2.yml
      vars: {v: from_import}
EOF
norm() { grep -E '^(RUNNING|TASK|ok|changed|ERROR|fatal|skipping|localhost)|msg' "$1"; }
ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local p.yml >"$TMPD/ans.out" 2>&1
norm "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "handlers brought by import_tasks" -- "$IMC" play -c local p.yml
norm "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... notified and run as ansible-playbook runs them" grep -q 'third from_import' "$TMPD/ans"
done_testing
