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

done_testing
