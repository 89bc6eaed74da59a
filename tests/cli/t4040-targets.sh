#!/bin/sh
# t4040: what ansible-core 2.14's integration targets (run from outside by
# scripts/ansible-targets) showed imc doing differently, one play per case,
# each asserting Ansible's behaviour with assert tasks: the play passes
# (exit 0) only if imc behaves as Ansible does. Every case names the target
# and task it comes from.
. "$top_srcdir/tests/cli/lib.sh"

# play NAME DESCRIPTION: runs $TMPD/NAME.yml (written just before) natively
play() {
	expect_exit 0 "$2" -- "$IMC" play --no-fallback --connection local -i testhost \
		-g testgroup=testhost "$TMPD/$1.yml"
	grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/p' "$TMPD/out" | sed 's/^/#   /' | head -5
}

# setup_remote_tmp_dir (a dependency of most targets) tests ansible_facts
# == {} before it gathers: ansible_facts is always defined, holds the
# gathered facts without their ansible_ prefix and the cacheable set_facts
cat >"$TMPD/facts.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - assert: { that: "ansible_facts == {}" }
    - setup: { gather_subset: min }
    - assert:
        that:
          - ansible_facts.os_family == ansible_os_family
          - "'ansible_os_family' not in ansible_facts"
    - set_fact: { plain: 1 }
    - set_fact: { kept: 2, cacheable: true }
    - assert:
        that:
          - "'plain' not in ansible_facts"
          - ansible_facts.kept == 2
          - hostvars[inventory_hostname].ansible_facts.kept == 2
EOY
play facts "ansible_facts: empty before gathering, namespaced facts after (setup_remote_tmp_dir)"

# changed_when / failed_when targets, "invalid conditional": an override
# that cannot be evaluated fails the task, keeps the module's result and
# says why in KW_result; a changed_when error leaves failed_when unevaluated
cat >"$TMPD/when-error.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - command: echo foo
      changed_when: boomboomboom
      failed_when: false
      register: c
      ignore_errors: true
    - command: echo foo
      failed_when: boomboomboom
      register: f
      ignore_errors: true
    - assert:
        that:
          - c is failed
          - c.stdout == 'foo'
          - c.changed_when_result is contains('boomboomboom')
          - c.failed_when_result is not defined
          - f is failed
          - f.failed_when_result is contains('boomboomboom')
EOY
play when-error "an unevaluable changed_when/failed_when: KW_result says why (changed_when, failed_when)"

# conditionals target, "proper booleanification": set_fact turns the
# strings true/false/yes/no (any case, k=v or YAML) into booleans
cat >"$TMPD/set-fact-bool.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - set_fact: bool_test1=false
    - set_fact: { b2: "yes", b3: "False", b4: "{{ 'no' }}", s: "off" }
    - command: echo hi
      when: bool_test1
      register: result
    - assert:
        that:
          - result is skipped
          - b2 is sameas true and b3 is sameas false and b4 is sameas false
          - s == 'off'
EOY
play set-fact-bool "set_fact: true/false/yes/no strings become booleans (conditionals)"

# loops and loop_control targets: pause between items (measured with
# now(fmt=...), a global), extended ansible_loop (without extended_allitems,
# no allitems; without extended, no ansible_loop), ansible_index_var
cat >"$TMPD/loop-control.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - debug: var=ansible_loop
      loop: [a, b, c]
      loop_control: { extended: yes, extended_allitems: no }
      failed_when: >-
        ansible_loop.allitems is defined or ansible_loop.revindex != 3 - ansible_loop.index0
        or (ansible_loop.first and ansible_loop.previtem is defined)
        or (not ansible_loop.last and ansible_loop.nextitem != ['a', 'b', 'c'][ansible_loop.index])
    - debug: var=ansible_loop.allitems
      loop: [a]
      loop_control: { extended: true }
      failed_when: ansible_loop.allitems != ['a']
    - debug: msg=plain
      loop: [a]
      failed_when: ansible_loop is defined
    - set_fact: { times: "{{ times|default([]) + [ now(fmt='%s.%f') ] }}" }
      loop: [1, 2, 3]
      loop_control: { pause: 0.3, index_var: idx }
      register: r
    - assert:
        that:
          - times[2]|float - times[0]|float >= 0.6
          - r.results[1].ansible_index_var == 'idx'
          - r.results[1].idx == 1
          - now() is not string and now(fmt='%Y')|int >= 2024
EOY
play loop-control "loop_control: pause, extended, index_var; now() (loops, loop_control)"

# loops target: with_list refuses a dict, with_items iterates its keys
cat >"$TMPD/with-dict-arg.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    a_dict: { key: value, k2: v2 }
  tasks:
    - debug: msg="{{ item }}"
      with_list: "{{ a_dict }}"
      register: wl
      ignore_errors: true
    - debug: msg="{{ item }}"
      with_items: "{{ a_dict }}"
      register: wi
    - assert:
        that:
          - wl is failed
          - '"with_list expects a list" in wl.msg'
          - wi.results | map(attribute='item') | list == ['key', 'k2']
EOY
play with-dict-arg "with_list of a dict fails, with_items of a dict gives its keys (loops)"

# register target, invalid.yml and invalid_skipped.yml: a register name
# that is no identifier is an error even on a skipped task (imc says so at
# load; Ansible when it reaches the task, before any later one runs)
cat >"$TMPD/register-bad.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - debug: msg=x
      when: false
      register: 200
    - name: never gets here
      assert: { that: false }
EOY
expect_exit 65 "register: 200 is refused (register)" -- "$IMC" play --no-fallback --connection local \
	"$TMPD/register-bad.yml"
expect_grep "Invalid variable name in 'register' specified: '200'" "$TMPD/err" "... in Ansible's words"

# blocks target: meta clear_host_errors in an always brings back the host
# that failed in rescue (its recap keeps the failure); a meta action imc
# does not implement fails instead of being skipped
cat >"$TMPD/clear-errors.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - block:
        - fail:
      rescue:
        - fail:
      always:
        - set_fact: { always_ran: true }
        - meta: clear_host_errors
    - assert: { that: always_ran }
    - meta: noop
EOY
expect_exit 0 "clear_host_errors after a failed rescue (blocks)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/clear-errors.yml"
expect_grep 'TASK \[assert\]' "$TMPD/out" "... the host runs the next task"
expect_grep 'ok=2 +changed=0 +unreachable=0 +failed=1 +skipped=0 +rescued=1' "$TMPD/out" "... with Ansible's recap"
printf -- '- hosts: all\n  gather_facts: false\n  tasks:\n    - meta: clear_facts\n' >"$TMPD/meta-other.yml"
expect_exit 65 "a meta action imc lacks stops the run" -- "$IMC" play --no-fallback --connection local \
	"$TMPD/meta-other.yml"
expect_grep "meta: clear_facts is not supported by imc" "$TMPD/out" "... saying so"
# a refusal is no task failure: no rescue, always, ignore_errors or
# handler may stand in for what Ansible would have run
cat >"$TMPD/refused.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - block:
        - debug: msg=before
          changed_when: true
          notify: h
        - meta: clear_facts
          ignore_errors: true
      rescue:
        - debug: msg=RESCUE-RAN
      always:
        - debug: msg=ALWAYS-RAN
    - debug: msg=AFTER-RAN
  handlers:
    - name: h
      debug: msg=HANDLER-RAN
EOY
expect_exit 65 "a refusal inside a block with rescue and always" -- "$IMC" play --no-fallback --connection local \
	"$TMPD/refused.yml"
expect_no_grep 'RAN' "$TMPD/out" "... runs no rescue, always, later task or handler"
expect_grep "meta: clear_facts is not supported by imc \\(the run stopped there" "$TMPD/err" "... and stops the run, saying why"

done_testing
