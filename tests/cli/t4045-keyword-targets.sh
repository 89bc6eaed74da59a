#!/bin/sh
# t4045: keyword cases of ansible-core 2.14's integration targets (issue
# 17) that imc got wrong, each checked against ansible-playbook 2.14's
# result for the same play (the expected values are its output).
. "$top_srcdir/tests/cli/lib.sh"

play() {
	"$IMC" play --no-fallback --connection local "$@"
}

# check_mode target: vars given as a list of mappings (merged in order)
# on a play and a task; any other type is Ansible's load error
cat >"$TMPD/vars.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  vars:
    - a: 1
      b: 1
    - b: 2
  tasks:
    - debug: msg="{{ a }} {{ b }} {{ c }}"
      vars:
        - c: 3
EOY
expect_exit 0 "vars as a list of mappings (check_mode)" -- play "$TMPD/vars.yml"
expect_grep '"msg": "1 2 3"' "$TMPD/out" "a list of vars merged in order, later names winning"
printf -- '- hosts: localhost\n  vars: 3\n  tasks: []\n' > "$TMPD/vars2.yml"
expect_exit 65 "vars neither a mapping nor a list" -- play "$TMPD/vars2.yml"
expect_grep 'Vars in a Play must be specified as a dictionary, or a list of dictionaries' "$TMPD/err" \
	"Ansible's words for vars of another type"
# handlers target (from_handlers.yml): include_role/import_role pick the
# role's handlers, vars and defaults files with handlers_from, vars_from
# and defaults_from (imc read main in silence); a file named but absent is
# Ansible's load error
r=$TMPD/roles/hr
mkdir -p "$r/handlers" "$r/tasks" "$r/vars" "$r/defaults"
printf -- '- name: h\n  set_fact: { which: alt }\n' > "$r/handlers/alt.yml"
printf -- '- name: h\n  set_fact: { which: main }\n' > "$r/handlers/main.yml"
printf -- '- debug: msg="{{ v }} {{ dv }}"\n  changed_when: true\n  notify: h\n' > "$r/tasks/main.yml"
printf 'v: main\n' > "$r/vars/main.yml"
printf 'v: other\n' > "$r/vars/other.yml"
printf 'dv: dmain\n' > "$r/defaults/main.yml"
printf 'dv: dother\n' > "$r/defaults/other.yml"
cat >"$TMPD/from.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - include_role: { name: hr, handlers_from: alt, vars_from: other, defaults_from: other.yml }
    - meta: flush_handlers
    - debug: var=which
- hosts: localhost
  gather_facts: no
  tasks:
    - import_role: { name: hr, handlers_from: alt.yml }
    - meta: flush_handlers
    - debug: var=which
EOY
expect_exit 0 "include_role/import_role with *_from (handlers)" -- play "$TMPD/from.yml"
got=$(sed -n 's/^ *"\(msg\|which\)": "\(.*\)"$/\2/p' "$TMPD/out" | tr '\n' ' ')
if [ "$got" = "other dother alt main dmain alt " ]; then ok "the files *_from names are read"
else not_ok "the files *_from names are read"; echo "#   got: $got"; fi
printf -- '- hosts: localhost\n  gather_facts: no\n  tasks:\n    - import_role: { name: hr, handlers_from: nosuch }\n' > "$TMPD/from2.yml"
expect_exit 65 "handlers_from naming no file" -- play "$TMPD/from2.yml"
expect_grep 'Could not find specified file in role: handlers/nosuch' "$TMPD/err" "Ansible's words for a missing handlers_from"
# playbook target (types.yml): a boolean keyword whose value is no
# boolean fails the task once it runs (ignore_errors applies) in Ansible's
# words, instead of being read as false
cat >"$TMPD/types.yml" <<'EOY'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug: msg="not important"
      diff: yes
      register: good_diff
    - debug: msg="not important"
      diff: yes.
      ignore_errors: True
      register: bad_diff
    - debug: msg="{{ bad_diff.msg }}"
EOY
expect_exit 0 "a keyword that is no boolean (playbook)" -- play "$TMPD/types.yml"
expect_grep "the field 'diff' has an invalid value \(yes\.\), and could not be converted to an bool\.The error was: The value 'yes\.' is not a valid boolean\." \
	"$TMPD/out" "Ansible's words for it"
expect_grep 'ignored=1' "$TMPD/out" "the task failed, its error ignored"
# lookup_* targets' rescue asserts: ansible_failed_task.name is the task's
# own name, templated, without the role prefix; '' for an unnamed task
mkdir -p "$TMPD/roles/fr/tasks"
cat >"$TMPD/roles/fr/tasks/main.yml" <<'EOY'
- block:
    - fail: msg=boom
  rescue:
    - debug: msg="<{{ ansible_failed_task.name }}>"
- block:
    - name: "EXPECTED FAILURE {{ n }}"
      fail: msg=boom
  rescue:
    - debug: msg="<{{ ansible_failed_task.name }}>"
EOY
printf -- '- hosts: localhost\n  gather_facts: no\n  vars: {n: 5}\n  roles: [fr]\n' >"$TMPD/failed-task.yml"
expect_exit 0 "ansible_failed_task in a role's rescue" -- play "$TMPD/failed-task.yml"
expect_grep '"msg": "<>"' "$TMPD/out" "an unnamed task's name is ''"
expect_grep '"msg": "<EXPECTED FAILURE 5>"' "$TMPD/out" "a named task's name, templated, without 'fr : '"
done_testing
