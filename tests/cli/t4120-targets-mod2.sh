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

# group (issue 17's native check mode): Ansible 2.14's module in and out
# of check mode: adding or deleting is reported changed and nothing else
# in check mode (the module exits there), a gid change changed with the
# present gid; the result holds name, state, and system and gid while the
# group exists; a different gid is changed with groupmod. The expected
# values are ansible-playbook's for the same tasks. Contained: the play
# runs in a private mount namespace (unshare -m) where /etc is an overlay
# whose upper layer is in the test's temp dir.
if [ "$(id -u)" = 0 ] && command -v groupadd >/dev/null && unshare -m true 2>/dev/null; then
	mkdir -p "$TMPD/etc-u" "$TMPD/etc-w"
	cat >"$TMPD/group.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - group: { name: imc-t4120, gid: 4121 }
      check_mode: true
      register: c1
    - command: getent group imc-t4120
      failed_when: false
      register: after_check
    - group: { name: imc-t4120, gid: 4121 }
      register: r1
    - group: { name: imc-t4120, gid: 4121 }
      register: r2
    - group: { name: imc-t4120, gid: 4122 }
      check_mode: true
      register: c3
    - group: { name: imc-t4120, gid: 4122 }
      register: r3
    - group: { name: imc-t4120, state: absent }
      check_mode: true
      register: c4
    - group: { name: imc-t4120, state: absent }
      register: r4
    - group: { name: imc-t4120, state: absent }
      check_mode: true
      register: c5
    - group: { name: imc-t4120, gid: "x" }
      register: r8
      ignore_errors: true
    - assert:
        that:
          - c1.changed and c1.name is not defined and c1.gid is not defined and c1.state is not defined
          - after_check.rc == 2
          - r1.changed and r1.gid == 4121 and r1.name == 'imc-t4120' and r1.state == 'present' and r1.system == false
          - not r2.changed and r2.gid == 4121
          - c3.changed and c3.gid == 4121 and c3.state == 'present'
          - r3.changed and r3.gid == 4122
          - c4.changed and c4.name is not defined and c4.gid is not defined and c4.state is not defined
          - r4.changed and r4.state == 'absent' and r4.gid is not defined and r4.system is not defined
          - not c5.changed and c5.name == 'imc-t4120'
          - "r8 is failed and r8.msg == \"argument 'gid' is of type <class 'str'> and we were unable to convert to int: <class 'str'> cannot be converted to an int\""
EOY
	expect_exit 0 "group: check mode and results as Ansible's module" -- \
		unshare -m --propagation private sh -c "mount -t overlay imc-t4120 -o lowerdir=/etc,upperdir=$TMPD/etc-u,workdir=$TMPD/etc-w /etc && exec '$IMC' play --no-fallback --connection local -i testhost -e d='$TMPD' '$TMPD/group.yml'"
	grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/p' "$TMPD/out" | sed 's/^/#   /' | head -5
	if grep -q '^imc-t4120:' /etc/group; then not_ok "the machine's /etc/group changed"; else ok "the machine's /etc/group is untouched"; fi
else
	ok "# SKIP group: needs root, groupadd and a mount namespace"
fi

done_testing
