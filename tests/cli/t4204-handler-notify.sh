#!/bin/sh
# t4204: a notification is answered as Ansible 2.14's strategy answers it:
# every handler listening to the name, and one handler by its name (or
# "role : name"): the handler lists searched from the last added (roles:,
# then the play's, then the roles import_role brings, then each included
# role's own), each from its first handler; so of two handlers of one name
# only the first runs, a role's task notifies the last role instance's
# handler of that name, a play handler shadows a listed role's, and an
# included role (even listed with the same params) has its own. A
# templated handler name is templated when first searched (one that
# cannot be is unusable, with Ansible's warning); a templated listen is
# not. import_role's handlers are there (imc had none: "not found"). A
# notification nothing answers ends the run before the task's result is
# printed, with no recap (imc printed it and went on), or with
# ERROR_ON_MISSING_HANDLER=false is a warning, once. A role include or a
# nested block as a handler is refused at load. Compared live with
# ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D/roles/hr/tasks" "$D/roles/hr/handlers" "$D/roles/ir/tasks" "$D/roles/ir/handlers"
cd "$D" || exit 1
cat >roles/hr/tasks/main.yml <<'EOF_Y'
- debug: msg="hr task {{ p }}"
  changed_when: true
  notify: [h, shared]
EOF_Y
cat >roles/hr/handlers/main.yml <<'EOF_Y'
- name: h
  debug: msg="hr handler h {{ p }}"
- name: shared
  debug: msg="hr handler shared {{ p }}"
EOF_Y
cat >roles/ir/tasks/main.yml <<'EOF_Y'
- debug: msg="ir task"
  changed_when: true
  notify: hi
EOF_Y
cat >roles/ir/handlers/main.yml <<'EOF_Y'
- name: hi
  debug: msg="ir handler hi"
EOF_Y
cat >p.yml <<'EOF_Y'
- hosts: localhost
  gather_facts: false
  tasks:
    - command: "true"
      notify: twice
    - meta: flush_handlers
    - debug: msg=after
      changed_when: true
      notify: [heard, hi]
    - import_role: name=ir
  handlers:
    - name: twice
      debug: msg="first of two"
    - name: twice
      debug: msg="second of two"
    - name: listener
      debug: msg="listener of twice"
      listen: twice
    - name: heard
      debug: msg="heard"
      listen: [other, twice]
- hosts: localhost
  gather_facts: false
  roles:
    - { role: hr, p: one }
    - { role: hr, p: two }
  tasks:
    - include_role: { name: hr }
      vars: { p: three }
  handlers:
    - name: shared
      debug: msg="play handler shared"
- hosts: localhost
  gather_facts: false
  vars:
    hname: templated
    topic: t2
  tasks:
    - debug: msg=notify
      changed_when: true
      notify: [templated, "{{ topic }}", "hr : h"]
    - include_role: { name: hr }
      vars: { p: four }
  handlers:
    - name: "{{ hname }}"
      debug: msg="templated name"
    - name: "with {{ nosuch }}"
      debug: msg="never"
    - name: lis
      debug: msg="templated listen"
      listen: "{{ topic }}"
EOF_Y
cat >missing.yml <<'EOF_Y'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug: msg=first
      changed_when: true
      notify: nosuch
    - debug: msg=never
EOF_Y
# what is compared: stdout, and stderr but the warnings about the implicit
# localhost, which only ansible-playbook prints here (the second takes two lines)
quiet() { sed -e '/No inventory was parsed/d' -e '/provided hosts list is empty/,+1d' "$1"; }
export ANSIBLE_ERROR_ON_MISSING_HANDLER=false
ansible-playbook p.yml >"$TMPD/ans" 2>"$TMPD/a1e"
quiet "$TMPD/a1e" >>"$TMPD/ans"
expect_exit 0 "handlers by name, listen, role instance, templated name" -- "$IMC" play p.yml --no-fallback
cat "$TMPD/out" >"$TMPD/imc"
quiet "$TMPD/err" >>"$TMPD/imc"
expect_same_as_ansible "... the same handlers run, in order, and warnings as ansible-playbook" grep -q 'hr handler h two' "$TMPD/ans"
unset ANSIBLE_ERROR_ON_MISSING_HANDLER
# both streams, sorted, the lines that say something
lines() { cat "$1" "$2" | quiet /dev/stdin | grep -v -e '^$' | sort; }
ansible-playbook missing.yml >"$TMPD/a2" 2>"$TMPD/a2e"
echo "rc=$?" >>"$TMPD/a2"
lines "$TMPD/a2" "$TMPD/a2e" >"$TMPD/ans"
"$IMC" play missing.yml --no-fallback >"$TMPD/i2" 2>"$TMPD/i2e"
echo "rc=$?" >>"$TMPD/i2"
lines "$TMPD/i2" "$TMPD/i2e" >"$TMPD/imc"
expect_same_as_ansible "a notification nothing answers ends the run as in ansible-playbook" grep -q '^ERROR! The requested handler' "$TMPD/ans"
# what cannot be a handler, refused at load in Ansible's words: a role
# include or import, a block within a block of handlers (one block is)
for kind in include_role import_role; do
	printf -- '- hosts: localhost\n  gather_facts: false\n  tasks: [{debug: msg=x}]\n  handlers:\n    - name: h\n      %s: { name: nosuch }\n' "$kind" >r.yml
	expect_exit 65 "$kind as a handler" -- "$IMC" play r.yml --no-fallback
	expect_grep "Using '$kind' as a handler is not supported\\." "$TMPD/err" "... refused in Ansible's words"
done
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks: [{debug: msg=x, changed_when: true, notify: h}]\n  handlers:\n    - block:\n        - { name: h, debug: msg=in-block }\n' >b1.yml
expect_exit 0 "a block of handlers" -- "$IMC" play b1.yml --no-fallback
expect_grep '"msg": "in-block"' "$TMPD/out" "... whose handler runs"
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks: [{debug: msg=x}]\n  handlers:\n    - block:\n        - block:\n            - debug: msg=h\n' >b2.yml
expect_exit 65 "a block within a block of handlers" -- "$IMC" play b2.yml --no-fallback
expect_grep 'Using a block as a handler is not supported\.' "$TMPD/err" "... refused in Ansible's words"
done_testing
