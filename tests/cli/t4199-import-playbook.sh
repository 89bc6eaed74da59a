#!/bin/sh
# t4199: what an import_playbook entry gives the plays it brings, as
# Ansible's PlaybookInclude does: its vars over each play's, its tags
# added to each play's (and a variable named tags, split at commas, to a
# play that has tags of its own), its when before each block of
# pre_tasks, roles, tasks and post_tasks and on the fact gathering, an
# import inside an imported playbook giving its own first; an attribute
# it does not have is refused; an import_role named by a variable of the
# import or the extra vars. Compared live with ansible-playbook, under
# several --tags.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D/roles/r1/tasks"
echo '- debug: msg="role r1 {{ v }}"' >"$D/roles/r1/tasks/main.yml"
cat >"$D/main.yml" <<'EOF'
- import_playbook: a.yml
  vars: {v: from_import, tags: "x, y"}
  when: flag | default(false)
  tags: [t1]
- import_playbook: a.yml
  vars: {v: second}
  when: flag | default(true)
- import_playbook: b.yml
  vars: {tags: "x, y"}
- import_playbook: outer.yml
  when: o | default(false) or inner_v == 'outer'
  vars: {inner_v: outer}
- name: plain
  hosts: localhost
  gather_facts: false
  tasks:
    - debug: msg="{{ v | default('no v') }}"
EOF
cat >"$D/a.yml" <<'EOF'
- hosts: localhost
  gather_facts: true
  vars: {v: from_play, w: play}
  pre_tasks:
    - debug: msg=pre
  roles:
    - r1
  tasks:
    - debug: msg="{{ v }} {{ w }}"
    - set_fact: flag2=1
    - debug: msg=after
    - block:
        - debug: msg=inblock
      when: true
  post_tasks:
    - debug: msg="post {{ ansible_facts.distribution is defined }}"
  handlers:
    - name: h
      debug: msg=handler
EOF
sed 's/^- hosts: localhost$/- hosts: localhost\n  tags: own/' "$D/a.yml" >"$D/b.yml"
printf -- '- import_playbook: inner.yml\n  vars: {inner_v: inner, x: 1}\n  when: x == 1\n' >"$D/outer.yml"
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: msg="inner {{ inner_v }} {{ x }}"\n' >"$D/inner.yml"
cd "$D" || exit 1
# the task banners, results and messages, and the recap
norm() { grep -E '^(TASK|ok|skipping|fatal|changed|PLAY|localhost)|"msg"' "$1"; }
for t in all t1 x y ' y' own; do
	ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local --tags "$t" main.yml >"$TMPD/ans.out" 2>&1
	norm "$TMPD/ans.out" >"$TMPD/ans"
	expect_exit 0 "imported plays under --tags '$t'" -- "$IMC" play -c local --tags "$t" main.yml
	norm "$TMPD/out" >"$TMPD/imc"
	expect_same_as_ansible "... as ansible-playbook's" test "$(grep -c . "$TMPD/ans")" -ge 4
done
# import_role's name is templated as the play loads, with its variables
# (an import's vars among them) and the extra vars
mkdir -p "$D/roles/r2/tasks"
echo '- debug: msg="role r2 {{ v }}"' >"$D/roles/r2/tasks/main.yml"
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - import_role: { name: "{{ rname }}" }\n' >"$D/named.yml"
printf -- '- import_playbook: named.yml\n  vars: { rname: r1, v: 1 }\n- import_playbook: named.yml\n  vars: { rname: r1, v: 2 }\n' >"$D/byname.yml"
for e in "" "-e rname=r2"; do
	ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local $e byname.yml >"$TMPD/ans.out" 2>&1
	norm "$TMPD/ans.out" >"$TMPD/ans"
	expect_exit 0 "import_role named by a variable ${e:+($e)}" -- "$IMC" play -c local $e byname.yml
	norm "$TMPD/out" >"$TMPD/imc"
	expect_same_as_ansible "... the role ansible-playbook imports" grep -q '"msg": "role r' "$TMPD/ans"
done
printf -- '- import_playbook: inner.yml\n  become: true\n  bogus: 1\n' >"$D/bad.yml"
expect_exit 65 "an attribute an import does not have" -- "$IMC" play -c local bad.yml
expect_grep "'bogus' is not a valid attribute for a PlaybookInclude" "$TMPD/err" "... refused in Ansible's words"
done_testing
