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

# script target, "Assert that a change was reported but the script did
# not make changes" and the creates/removes cases after it: in check
# mode a script without creates/removes is skipped, not run; with one
# that does not skip it, it is reported changed and still not run; a
# relative chdir is refused
mkdir -p "$TMPD/files"
printf '#!/bin/sh\ntouch "$1"\n' >"$TMPD/files/create.sh"
cat >"$TMPD/script-check.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - script: create.sh {{ d }}/c1
      check_mode: true
      register: c1
    - script: create.sh {{ d }}/c2
      args: { removes: "{{ d }}/files" }
      check_mode: true
      register: c2
    - script: create.sh {{ d }}/c3
      args: { creates: "{{ d }}/files" }
      check_mode: true
      register: c3
    - script: create.sh {{ d }}/c4
      args: { chdir: rel }
      ignore_errors: true
      register: c4
    - stat: { path: "{{ d }}/c1" }
      register: s1
    - stat: { path: "{{ d }}/c2" }
      register: s2
    - stat: { path: "{{ d }}/c4" }
      register: s4
    - assert:
        that:
          - c1 is skipped and c1 is not changed
          - c1.msg == 'Check mode is not supported for this task.'
          - c2 is changed and c2 is not skipped and c2.rc is not defined
          - c3 is skipped and c3.msg == d ~ '/files exists, matching creates option'
          - c4 is failed and c4.msg == 'chdir rel must be an absolute path for a Unix-aware remote node'
          - not s1.stat.exists and not s2.stat.exists and not s4.stat.exists
EOY
play script-check "script: check mode skips or reports changed without running, as Ansible's action (script)"

done_testing
