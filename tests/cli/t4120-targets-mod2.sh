#!/bin/sh
# t4120: module behaviour that ansible-core 2.14's integration targets of
# script, raw, slurp, assemble, cron, service_facts, get_url, uri...
# (run from outside by scripts/ansible-targets) showed imc doing
# differently, one play per case asserting what Ansible does: a play
# passes (exit 0, failed=0) only if imc behaves as Ansible. Every case
# names the target and task it comes from.
. "$top_srcdir/tests/cli/lib.sh"

# play NAME DESCRIPTION [IMC-OPTION...]: runs $TMPD/NAME.yml (written just
# before) natively
play() {
	name=$1 what=$2
	shift 2
	expect_exit 0 "$what" -- "$IMC" play --no-fallback --connection local -i testhost \
		-g testgroup=testhost -e "d=$TMPD" "$@" "$TMPD/$name.yml"
	grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/p' "$TMPD/out" | sed 's/^/#   /' | head -5
}

# script target, "assert task with async param failed": an action of
# Ansible's own that lacks async support (script, raw, copy...) refuses
# an async task before anything runs; a module that has it (command)
# refuses async in check mode
cat >"$TMPD/async-refused.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - script: /some/script.sh
      async: 2
      ignore_errors: true
      register: s
    - raw: touch {{ d }}/raw-ran
      async: 5
      poll: 1
      ignore_errors: true
      register: r
    - copy: { content: x, dest: "{{ d }}/copied" }
      async: "5"
      poll: 0
      ignore_errors: true
      register: c
    - command: touch {{ d }}/cmd-ran
      async: 5
      poll: 1
      check_mode: true
      ignore_errors: true
      register: k
    - command: echo ran
      async: 5
      poll: 1
      register: ok
    - stat: { path: "{{ d }}/raw-ran" }
      register: rs
    - stat: { path: "{{ d }}/copied" }
      register: cs
    - stat: { path: "{{ d }}/cmd-ran" }
      register: ks
    - assert:
        that:
          - s is failed and s.msg == "async is not supported for this task."
          - r is failed and r.msg == "async is not supported for this task."
          - c is failed and c.msg == "async is not supported for this task."
          - s.ansible_job_id is not defined
          - k is failed and k.msg == "check mode and async cannot be used on same task."
          - not rs.stat.exists and not cs.stat.exists and not ks.stat.exists
          - ok is succeeded and ok.stdout == 'ran' and ok.finished == 1
EOY
play async-refused "async: refused as Ansible's action refuses it (script)"

done_testing
