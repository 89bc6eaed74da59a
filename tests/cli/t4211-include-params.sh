#!/bin/sh
# t4211: k=v after a task include's file name, as Ansible's parser and
# TaskInclude take them: the legacy include's are variables of the tasks
# it brings, templated when it runs (hosts with different values include
# apart); include_tasks and import_tasks refuse them at load, in Ansible's
# words, and import_tasks refuses apply. imc took "inc.yml a=1" as the
# file's name. Compared live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
printf -- '- debug: msg="{{ inventory_hostname }} a={{ a }} b={{ b | default(\x27none\x27) }}"\n' >inc.yml
printf 'h1 n=1 ansible_connection=local\nh2 n=2 ansible_connection=local\n' >hosts
cat >p.yml <<'EOF_PB'
- hosts: all
  gather_facts: false
  vars: { v: from-play }
  tasks:
    - include: inc.yml a=1 b={{ v }}
    - include: inc.yml a={{ n }}
EOF_PB
norm() { sed -e 's/^ *//' "$1" | grep '^"msg"' | sort; }
ansible-playbook -i hosts p.yml >"$TMPD/a.out" 2>&1
norm "$TMPD/a.out" >"$TMPD/ans"
expect_exit 0 "include with k=v parameters" -- "$IMC" play -i hosts p.yml --no-fallback
norm "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... its tasks see them, per host, as under ansible-playbook" grep -q 'h2 a=2' "$TMPD/ans"
for kw in include_tasks import_tasks; do
	printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - %s: inc.yml a=1\n' $kw >bad.yml
	expect_exit 65 "$kw with a=1" -- "$IMC" play bad.yml --no-fallback
	expect_grep "^ERROR! Invalid options for $kw: a\$" "$TMPD/err" "... refused in Ansible's words"
done
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - import_tasks: { file: inc.yml, apply: { tags: x } }\n' >apply.yml
expect_exit 65 "import_tasks with apply" -- "$IMC" play apply.yml --no-fallback
expect_grep "^ERROR! Invalid options for import_tasks: apply\$" "$TMPD/err" "... refused in Ansible's words"
done_testing
