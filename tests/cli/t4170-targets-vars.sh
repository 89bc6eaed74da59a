#!/bin/sh
# t4170: what ansible-core 2.14's integration targets ask of imc's
# templating and variables beyond the filters of t4140 (issue 17), each
# play's asserts checked under ansible-playbook 2.14 when written:
# hostvars as Ansible's lazy HostVars mappings (handlers: `'x' in
# hostvars[HOST]` reads keys only; a host's variable that names an
# undefined one is its own text); ansible_playbook_python and the implicit
# localhost's interpreter (filter_mathstuff runs `{{ansible_python_interpreter}}
# -c ...`); unique as Ansible's mathstuff calls Jinja2's and falls back
# (filter_mathstuff "Verify unique"); Ansible's own filter errors in their
# words; registered results read through hostvars stay data; the role
# name variables (special_vars); role variables and include params in
# Ansible's precedence (var_precedence); set_fact's templated names.
. "$top_srcdir/tests/cli/lib.sh"

# ---- hostvars (target handlers: inventory.handlers sets
# ansible_python_interpreter="{{ ansible_playbook_python }}")
cat >"$TMPD/inv" <<'EOI'
[g]
h1 ansible_connection=local
[g:vars]
ansible_python_interpreter="{{ ansible_playbook_python }}"
bad="{{ nosuch }}"
EOI
cat >"$TMPD/hv.yml" <<'EOY'
- hosts: h1
  gather_facts: no
  tasks:
    - set_fact: mine=1
    - set_fact:
        n: "{{ hostvars[inventory_hostname] | length > 3 }}"
    - debug: msg="{{ bad }}"
      ignore_errors: true
      register: direct
    - assert:
        that:
          - "'mine' in hostvars[inventory_hostname]"
          - "'nope' not in hostvars[inventory_hostname]"
          - "'h1' in hostvars"
          - "'zz' not in hostvars"
          - "hostvars[inventory_hostname] is defined"
          - "hostvars['zz'] is undefined"
          - "hostvars[inventory_hostname].bad | length == 12"
          - "hostvars[inventory_hostname]['bad'] is search('nosuch }')"
          - "hostvars.h1.bad[0] == '{'"
          - n | bool
          - direct is failed
          - "hostvars[inventory_hostname].ansible_python_interpreter == ansible_playbook_python"
          - "ansible_playbook_python is match('/')"
EOY
expect_exit 0 "hostvars mappings are lazy and lenient as Ansible's" -- \
	"$IMC" play --no-fallback -i "$TMPD/inv" "$TMPD/hv.yml"

# ---- no inventory: Ansible's implicit localhost has the controller's
# Python as its interpreter
cat >"$TMPD/py.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - assert:
        that:
          - ansible_python_interpreter == ansible_playbook_python
          - "ansible_playbook_python is match('/')"
EOY
expect_exit 0 "the implicit localhost names the controller's Python" -- \
	"$IMC" play --no-fallback "$TMPD/py.yml"

# ---- unique: Jinja2's (case-insensitive unless case_sensitive, by
# attribute), Ansible's equality loop when a key cannot be hashed, and
# Ansible's error when that loop cannot honour the arguments
cat >"$TMPD/uq.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - set_fact:
        x: '{{ [{"foo": "bar"}] | unique(case_sensitive=False) }}'
      ignore_errors: true
      register: cs_dict
    - debug: msg="{{ ['a', 'b'] | unique(attribute='x') }}"
      ignore_errors: true
      register: no_attr
    - debug:
        msg: "{{ [{'x': {'y': 1}}] | unique(attribute='x.z') }}"
      ignore_errors: true
      register: no_attr2
    - debug: msg="{{ True | unique }}"
      ignore_errors: true
      register: not_iter
    - debug: msg="{{ 'abc' | human_to_bytes }}"
      ignore_errors: true
      register: h2b
    - assert:
        that: "[[1]] | unique(case_sensitive=False) | length == 1"
      ignore_errors: true
      register: in_cond
    - assert:
        that:
          - "['a', 'A', 'b'] | unique == ['a', 'b']"
          - "['a', 'A', 'b'] | unique(case_sensitive=True) == ['a', 'A', 'b']"
          - "['a', 'A', [1], [1]] | unique == ['a', 'A', [1]]"
          - "[{'x': 'a'}, {'x': 'A'}, {'x': 'b'}] | unique(attribute='x') == [{'x': 'a'}, {'x': 'b'}]"
          - "[1, 1.0, True, 2] | unique == [1, 2]"
          - "'abca' | unique == ['a', 'b', 'c']"
          - "[1, 2] | union([2, [3], [3]]) == [1, 2, [3]]"
          - cs_dict is failed
          - "cs_dict.msg == \"Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied. unhashable type: 'dict'\""
          - "no_attr.msg is search(\"supplied. 'str object' has no attribute 'x'$\")"
          - "no_attr2.msg is search(\"supplied. 'dict object' has no attribute 'z'$\")"
          - not_iter is failed
          - "h2b.msg == \"human_to_bytes() can't interpret following string: abc\""
          - "in_cond.msg == \"The conditional check '[[1]] | unique(case_sensitive=False) | length == 1' failed. The error was: Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied. unhashable type: 'list'\""
EOY
expect_exit 0 "unique and filter errors as Ansible's" -- \
	"$IMC" play --no-fallback -c local -i localhost "$TMPD/uq.yml"

# ---- a registered result read through hostvars is data, never templated;
# a variable that reads hostvars[inventory_hostname] whole, read from a
# variable of that host, does not loop (filter_mathstuff's last block);
# mathstuff's errors (log, root, rekey_on_member) in Ansible's words
cat >"$TMPD/hv2.yml" <<'EOY'
- hosts: all
  gather_facts: no
  vars:
    all_vars: "{{ hostvars[inventory_hostname] }}"
    test_var: "{{ all_vars.foo }}"
  tasks:
    - command: echo "{{ '{{' }} nosuch }}"
      register: out
    - set_fact:
        foo: test
    - set_fact:
        later: "{{ test_var }}"
    - assert:
        that:
          - "hostvars[inventory_hostname].out.stdout == '{' ~ '{ nosuch }}'"
          - "hostvars[inventory_hostname]['out']['stdout'] is search('nosuch')"
          - "(hostvars[inventory_hostname] | dict2items | selectattr('key', 'eq', 'out') | first).value.stdout is search('nosuch')"
          - test_var == 'test'
          - later == 'test'
    - debug: msg="{{ '1' | rekey_on_member('a', duplicates='x') }}"
      ignore_errors: true
      register: rk1
    - debug: msg="{{ [{'b':1}] | rekey_on_member('a') }}"
      ignore_errors: true
      register: rk2
    - debug: msg="{{ 'yo' | log }}"
      ignore_errors: true
      register: lg
    - debug: msg="{{ 10 | log('a') }}"
      ignore_errors: true
      register: lg2
    - debug: msg="{{ 'a' | root(3) }}"
      ignore_errors: true
      register: rt
    - debug: msg="{{ 8 | root('a') }}"
      ignore_errors: true
      register: rt2
    - assert:
        that:
          - "rk1.msg == 'duplicates parameter to rekey_on_member has unknown value: x'"
          - "rk2.msg == 'Key a was not found'"
          - "lg.msg is search('log\\(\\) can only be used on numbers: must be real number, not str')"
          - lg2 is failed
          - "lg2.msg is search('log\\(\\) can only be used on numbers: must be real number, not str')"
          - "rt.msg is search('root\\(\\) can only be used on numbers: must be real number, not str')"
          - "rt2.msg is search(\"root\\(\\) can only be used on numbers: could not convert string to float: 'a'\")"
          - "27 | root('3') | round(6) == 3.0"
          - "16 | root('2') == 4.0"
EOY
expect_exit 0 "hostvars keeps registered data; mathstuff errors as Ansible's" -- \
	"$IMC" play --no-fallback -c local -i localhost "$TMPD/hv2.yml"

# ---- the role name variables (special_vars): role_names and
# ansible_play_role_names (roles:, then each imported role after those it
# imports), the dependencies of
# every level, ansible_parent_role_names for a role's import_role and
# include_role, nearest first
R=$TMPD/rn/roles
for r in r1 r2 r3 r4 r5 r6 r7; do mkdir -p "$R/$r/tasks" "$R/$r/meta"; done
echo '- debug: msg=r1' >"$R/r1/tasks/main.yml"
echo 'dependencies: [r2]' >"$R/r1/meta/main.yml"
echo 'dependencies: [{role: r3, x: 1}]' >"$R/r2/meta/main.yml"
echo '- debug: msg=r2' >"$R/r2/tasks/main.yml"
echo '- debug: msg=r3' >"$R/r3/tasks/main.yml"
echo '- debug: msg=r4' >"$R/r4/tasks/main.yml"
cat >"$R/r5/tasks/main.yml" <<'EOY'
- set_fact:
    seen_r5: "{{ seen_r5 | default([]) + [ansible_parent_role_names | default('none')] }}"
- import_role: name=r6
EOY
cat >"$R/r6/tasks/main.yml" <<'EOY'
- set_fact:
    seen_r6: "{{ seen_r6 | default([]) + [ansible_parent_role_names | default('none')] }}"
EOY
cat >"$R/r7/tasks/main.yml" <<'EOY'
- include_role: name=r5
- import_role: name=r5
- assert:
    that:
      - ansible_parent_role_names is undefined
EOY
cat >"$TMPD/rn/p.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  roles: [r1, r7]
  tasks:
    - import_role: name=r4
    - assert:
        that:
          - "role_names == ['r1', 'r7', 'r6', 'r5', 'r4']"
          - "ansible_play_role_names == role_names"
          - "ansible_dependent_role_names | sort == ['r2', 'r3']"
          - "ansible_role_names | sort == ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']"
          - "role_name is undefined"
    - include_role: name=r5
    - assert:
        that:
          - "seen_r5 == [['r7'], ['r7'], 'none']"
          - "seen_r6 == [['r5', 'r7'], ['r5', 'r7'], ['r5']]"
          - ansible_parent_role_names is undefined
- hosts: localhost
  gather_facts: no
  tasks:
    - assert:
        that:
          - "role_names == []"
          - "ansible_role_names == []"
EOY
expect_exit 0 "the role name variables are Ansible's" -- \
	"$IMC" play --no-fallback -c local -i localhost "$TMPD/rn/p.yml"

# ---- variable precedence (var_precedence): a meta dependency sees the
# params and defaults of the roles it is a dependency of; every role of
# the play gives its defaults and vars to all the play's tasks; a dynamic
# include's vars are include params, above set_fact, where an import's
# are task vars
R=$TMPD/vp/roles
for r in top dep pub; do mkdir -p "$R/$r/tasks" "$R/$r/meta" "$R/$r/defaults" "$R/$r/vars"; done
echo 'dependencies: [{role: dep, p: from_top}]' >"$R/top/meta/main.yml"
echo 'top_default: top_d' >"$R/top/defaults/main.yml"
echo '- debug: msg=top' >"$R/top/tasks/main.yml"
echo 'dep_default: dep_d' >"$R/dep/defaults/main.yml"
cat >"$R/dep/tasks/main.yml" <<'EOY'
- assert:
    that:
      - p == 'from_top'
      - q == 'from_play'
      - top_default == 'top_d'
EOY
echo 'pub_var: pub_v' >"$R/pub/vars/main.yml"
echo 'pub_default: pub_d' >"$R/pub/defaults/main.yml"
echo '- debug: msg=pub' >"$R/pub/tasks/main.yml"
echo '- assert: {that: "findme == \"include_params\""}' >"$TMPD/vp/inc.yml"
echo '- assert: {that: "findme == \"set_fact\""}' >"$TMPD/vp/imp.yml"
cat >"$TMPD/vp/p.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  vars:
    pub_var: play
  roles:
    - {role: top, q: from_play}
    - pub
  tasks:
    - set_fact: findme=set_fact
    - include_tasks: inc.yml
      vars:
        findme: include_params
    - import_tasks: imp.yml
      vars:
        findme: import_vars
    - assert:
        that:
          - pub_var == 'pub_v'
          - pub_default == 'pub_d'
          - dep_default == 'dep_d'
          - p is undefined
EOY
expect_exit 0 "role variables and include params take Ansible's precedence" -- \
	"$IMC" play --no-fallback -c local -i localhost "$TMPD/vp/p.yml"

# ---- set_fact templates each name and refuses one that is no identifier
# (loops: `set_fact: "{{ item.key }}={{ ... }}"`; imc set a fact named
# by the raw text)
cat >"$TMPD/sf.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - set_fact: "{{ item.key }}={{ item.value }}"
      with_dict:
        foo: bar
    - set_fact:
        "{{ 'b' ~ 'az' }}": 1
    - set_fact:
        "{{ '1x' }}": 1
      ignore_errors: true
      register: bad
    - assert:
        that:
          - foo == 'bar'
          - baz == 1
          - bad is failed
          - "bad.msg == \"The variable name '1x' is not valid. Variables must start with a letter or underscore character, and contain only letters, numbers and underscores.\""
EOY
expect_exit 0 "set_fact templates its names" -- \
	"$IMC" play --no-fallback -c local -i localhost "$TMPD/sf.yml"

done_testing
