#!/bin/sh
# t4100: engine cases of ansible-core 2.14's integration targets (issue 17,
# targets-exec) that imc got wrong, each checked against ansible-playbook
# 2.14's result for the same play (the expected values are its output).
. "$top_srcdir/tests/cli/lib.sh"

play() {
	"$IMC" play --no-fallback --connection local "$@"
}

# setup_gnutar: a task whose `when` (its own or its block's) is false is
# skipped before any of its keywords is templated, so an undefined
# variable in become_user, environment or delegate_to does not fail it;
# the same keyword fails the task when it runs
cat >"$TMPD/when-first.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - block:
        - command: echo hi
          become: yes
          become_user: "{{ brew_stat.stat.pw_name }}"
      when: brew_stat is defined
    - debug: msg=x
      environment: "{{ undefined_env }}"
      when: false
    - command: echo
      delegate_to: "{{ nope.z }}"
      when: false
    - debug: msg=y
      environment: "{{ undefined_env }}"
      loop: [1, 2]
      when: item == 3
EOY
expect_exit 0 "undefined keywords of skipped tasks (setup_gnutar)" -- play "$TMPD/when-first.yml"
expect_grep 'skipped=4' "$TMPD/out" "the four tasks are skipped"
cat >"$TMPD/when-true.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - command: echo hi
      become: yes
      become_user: "{{ brew_stat.stat.pw_name }}"
      when: true
EOY
expect_exit 1 "an undefined become_user of a task that runs" -- play "$TMPD/when-true.yml"
expect_grep "'brew_stat' is undefined" "$TMPD/out" "it fails on the undefined variable"

# debug (and every script target run with ansible-test's inventory): a
# play of hosts: localhost with no host of that name in the inventory runs
# on Ansible's implicit localhost, which is in no group and which "all"
# and globs do not match
cat >"$TMPD/implicit.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - debug: msg="{{ inventory_hostname }} {{ groups['all'] }} {{ group_names }}"
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg="all {{ inventory_hostname }}"
- hosts: local*
  gather_facts: no
  tasks:
    - debug: msg="glob {{ inventory_hostname }}"
EOY
expect_exit 0 "the implicit localhost (debug)" -- play "$TMPD/implicit.yml" -i testhost -g testgroup=testhost
got=$(sed -n 's/^ *"msg": "\(.*\)"$/\1/p' "$TMPD/out" | tr '\n' '|')
if [ "$got" = "localhost ['testhost'] []|all testhost|" ]; then ok "localhost runs, outside all and globs"
else not_ok "localhost runs, outside all and globs: got '$got'"; fi

# debug, handlers, assert: a debug result shows in full (keys sorted,
# indented), a loop item's too; with -v every ok, changed or skipped line
# carries its result as ansible-playbook -v shows it (the scripts grep it)
cat >"$TMPD/verbose.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  vars: {d: {b: 1, a: 2}}
  tasks:
    - debug: var=d
    - command: echo {{ item }}
      loop: [1, 2]
      when: item == 1
    - debug: msg=x
      when: false
    - debug: var=item
      loop: [{z: 1, y: 2}]
EOY
expect_exit 0 "debug without -v" -- play "$TMPD/verbose.yml"
tr -d '\n' <"$TMPD/out" >"$TMPD/flat"
expect_grep 'ok: \[localhost\] => {    "d": {        "a": 2,        "b": 1    }}' "$TMPD/flat" "debug's keys sorted"
expect_grep "ok: \[localhost\] => \\(item={'z': 1, 'y': 2}\\) => {    \"ansible_loop_var\": \"item\",    \"item\": {        \"y\": 2," \
	"$TMPD/flat" "a debug loop item's result"
expect_no_grep 'skip_reason' "$TMPD/out" "no skipped result without -v"
expect_exit 0 "the same play with -v" -- play -v "$TMPD/verbose.yml"
expect_grep '^changed: \[localhost\] => \(item=1\) => {"ansible_loop_var": "item", "changed": true, "cmd": \["echo", "1"\],' \
	"$TMPD/out" "a changed item's result on its line"
expect_grep '^skipping: \[localhost\] => \(item=2\)  => {"ansible_loop_var": "item", "changed": false, "item": 2, "skip_reason": "Conditional result was False"}$' \
	"$TMPD/out" "a skipped item's result"
expect_grep '^skipping: \[localhost\] => [{][}]$' "$TMPD/out" "a skipped debug's result, cleaned as debug's"

# assert: a not quiet assert's result shows as debug's does (a quiet one's not)
cat >"$TMPD/assert.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - assert: { that: "item is defined", quiet: true }
      with_items: [a]
    - assert: { that: "item is defined", quiet: false }
      with_items: [b]
EOY
expect_exit 0 "assert quiet and not" -- play "$TMPD/assert.yml"
tr -d '\n' <"$TMPD/out" >"$TMPD/flat"
expect_grep 'ok: \[localhost\] => \(item=a\)TASK' "$TMPD/flat" "a quiet assert's item shows no result"
expect_grep 'ok: \[localhost\] => \(item=b\) => [{]    "ansible_loop_var": "item",    "changed": false,    "item": "b",    "msg": "All assertions passed"[}]' \
	"$TMPD/flat" "a not quiet one's does"

# assert (nested_tmpl): a condition written with {{ }} is Ansible's
# warning on stderr, wrapped at 79 columns, given once
cat >"$TMPD/nested.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - assert:
        that:
          - '"{{ foo }}" == "bar"'
          - foo == "bar"
      vars:
        foo: bar
      loop: [1, 2]
EOY
expect_exit 0 "a templated condition" -- play "$TMPD/nested.yml"
printf '%s\n' '[WARNING]: conditional statements should not include jinja2 templating' \
	'delimiters such as {{ }} or {% %}. Found: "{{ foo }}" == "bar"' >"$TMPD/want"
if cmp -s "$TMPD/want" "$TMPD/err"; then ok "Ansible's warning, wrapped, once"
else not_ok "Ansible's warning, wrapped, once"; sed 's/^/#   /' "$TMPD/err"; fi

# include_vars ("Check NoneType for raw params and file"): an empty file
# name fails with Ansible's 'Could not find file' in message
cat >"$TMPD/iv.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - include_vars:
        file: "{{ lookup('first_found', ['does_not_exist.yml'], errors='ignore') }}"
      ignore_errors: true
      register: r
    - debug: var=r.message
EOY
expect_exit 0 "include_vars of an empty name" -- play "$TMPD/iv.yml"
expect_grep '"r.message": "Could not find file on the Ansible Controller.\\nIf you are using a module' "$TMPD/out" \
	"Ansible's message"

# loops (64169): a loop item whose arguments fail to template ends the
# loop, and the task's failure is shown (imc printed no line at all)
cat >"$TMPD/loopfatal.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - set_fact: "{{ item.key }}={{ nope }}"
      with_dict: { foo: x }
EOY
expect_exit 1 "a loop item with an undefined argument" -- play "$TMPD/loopfatal.yml"
expect_grep '^fatal: \[localhost\]: FAILED! => [{]"msg": "The task includes an option with an undefined variable. The error was: .nope. is undefined' \
	"$TMPD/out" "shown as the task's failure"

# tasks: templated free-form text given to a module that takes none is
# merged when it templates to a mapping, else "invalid or malformed argument"
cat >"$TMPD/varparams.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  vars: { d: { msg: from a mapping } }
  tasks:
    - debug: "{{ d }}"
    - debug:
        garbage {{"with a template"}}
      ignore_errors: true
EOY
expect_exit 0 "free-form text of debug" -- play "$TMPD/varparams.yml"
expect_grep '"msg": "from a mapping"' "$TMPD/out" "a mapping is merged into the arguments"
expect_grep "^fatal: \\[localhost\\]: FAILED! => [{]\"msg\": \"invalid or malformed argument: 'garbage with a template'\"[}]" \
	"$TMPD/out" "other text fails the task"
done_testing
