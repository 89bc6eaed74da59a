#!/bin/sh
# t4042: more cases from ansible-core 2.14's integration targets (run from
# outside by scripts/ansible-targets) that imc did differently, each asserted
# with assert tasks as Ansible behaves (checked under ansible-playbook): the
# play passes only if imc agrees.
. "$top_srcdir/tests/cli/lib.sh"

# loops, "Test using templated loop_var inside include_tasks": loop_var
# and index_var are templated before the first item, in an include loop
# and in a task loop
cat >"$TMPD/inc-lv.yml" <<'EOY'
- assert: { that: [templated_loop_var_name == 'value', ansible_loop_var is undefined] }
EOY
cat >"$TMPD/loop-var.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - include_tasks: $TMPD/inc-lv.yml
      loop: [value]
      loop_control: { loop_var: "{{ n }}" }
      vars: { n: templated_loop_var_name }
    - debug: { msg: "{{ foo }} {{ i }}" }
      loop: [a, b]
      loop_control: { loop_var: "{{ n }}", index_var: "{{ 'i' }}" }
      vars: { n: foo }
      register: r
    - assert: { that: [r.results.1.foo == 'b', r.results.1.i == 1, r.results.0.ansible_loop_var == 'foo'] }
EOY
expect_exit 0 "a templated loop_control.loop_var and index_var (loops)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/loop-var.yml"

done_testing
