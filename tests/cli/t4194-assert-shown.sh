#!/bin/sh
# t4194: a failed assert as Ansible shows and reports it: the result in
# full (indented, as its action asks), the condition named in
# "assertion" as the task's templated arguments hold it (a single string
# is templated before the action evaluates it, so it draws no warning
# about delimiters; the items of a list are not), while an error of the
# action is a one-line result. Compared live with ansible-playbook, and
# the warnings too: once per task and host, as each of Ansible's workers
# warns (before, imc warned once per run).
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >a.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  vars: { v: 'y', l: [1] }
  tasks:
    - assert: { that: '"{{ v }}" == "x"' }
      ignore_errors: true
    - assert: { that: ['v == "y"', '"{{ v }}{{ l }}" == "x"'] }
      ignore_errors: true
    - assert: { that: 'v == "x"', fail_msg: "v is {{ v }}" }
      ignore_errors: true
    - assert: { that: ['"{{ v }}" == "y"', 'l | length == 1'], success_msg: fine }
    - assert: { that: ['"{{ v }}" == "y"'] }
    - assert: { that: 'v == "x"', quiet: true }
      ignore_errors: true
    - assert: { that: 'nosuch == 1' }
      ignore_errors: true
EOF_PB
ansible-playbook a.yml 2>"$TMPD/ans.err" >"$TMPD/ans"
expect_exit 0 "failed asserts, ignored" -- "$IMC" play a.yml --no-fallback
cp "$TMPD/out" "$TMPD/imc"
cp "$TMPD/err" "$TMPD/imc.err"
expect_same_as_ansible "... shown as ansible-playbook shows them" grep -q '"assertion": "\\"y\\" == \\"x\\""' "$TMPD/ans"
grep -v -e 'No inventory was parsed' -e 'provided hosts list is empty' -e "implicit localhost does not match" \
	"$TMPD/ans.err" >"$TMPD/ans"
cp "$TMPD/imc.err" "$TMPD/imc"
expect_same_as_ansible "... with the same warnings" grep -q 'should not include jinja2 templating' "$TMPD/ans"
done_testing
