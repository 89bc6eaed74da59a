#!/bin/sh
# t4020: the per-task fallback with the local connection. A task whose
# module imc does not implement runs, that one task, under Ansible; its
# result is the task's (register, changed_when, loops, check mode, notify,
# facts), the rest of the play stays in imc. Arguments are templated once,
# by imc. A name neither imc nor Ansible knows is Ansible's load error;
# without the fallback (--no-fallback) an unknown module is an error before
# any task runs, except in a dynamically included file, where only a task
# that runs fails. Ansible is installed by scripts/install-deps.
. "$top_srcdir/tests/cli/lib.sh"
# this test is about the fallback itself (lib.sh forbids it by default)
IMC_NO_FALLBACK=0
export IMC_NO_FALLBACK
command -v ansible-playbook >/dev/null || { not_ok "needs ansible-playbook (package ansible)"; done_testing; exit 1; }

cat >"$TMPD/play.yml" <<EOY
- hosts: all
  gather_facts: false
  vars:
    items_: [nofile, nproc]
  tasks:
    - name: a limits entry
      community.general.pam_limits: domain=joe limit_type=soft limit_item=nofile value=64000 dest=$TMPD/limits.conf
      register: s1
      notify: noted
    - name: the same again
      pam_limits: domain=joe limit_type=soft limit_item=nofile value=64000 dest=$TMPD/limits.conf
      register: s2
      changed_when: s2.invocation.module_args.value == '64000'
    - name: a loop
      pam_limits:
        domain: joe
        limit_type: hard
        limit_item: "{{ item }}"
        value: "{{ idx + 5 }}"
        dest: $TMPD/loop.conf
      loop: "{{ items_ }}"
      loop_control:
        index_var: idx
      register: l
    - name: literal braces
      community.general.pam_limits:
        domain: joe
        limit_type: soft
        limit_item: core
        value: 0
        comment: "{% raw %}{{ not_a_var }}{% endraw %}"
        dest: $TMPD/x.conf
    - name: check mode
      pam_limits: domain=ann limit_type=soft limit_item=nofile value=1 dest=$TMPD/limits.conf
      check_mode: true
      register: c
    - name: never runs
      pam_limits: domain=ann limit_type=soft limit_item=nofile value=1 dest=$TMPD/never.conf
      when: false
    - name: facts from a module
      getent: database=passwd key=root
    - name: find, with follow (native)
      find: paths=$TMPD patterns=*.conf follow=yes
      register: f
    - name: a native module's argument imc lacks
      replace: path=$TMPD/limits.conf regexp=^nomatch$ replace=x setype=etc_t
    - name: results
      copy:
        dest: $TMPD/results
        content: |
          s1={{ s1.changed }} s2={{ s2.changed }} s2ok={{ s2.failed }}
          loop={{ l.results | length }} {{ l.results | map(attribute='changed') | list }} {{ l.results[1].item }}
          check={{ c.changed }}
          home={{ getent_passwd.root[4] }}
          fact_home={{ ansible_facts.getent_passwd.root[4] }}
          found={{ f.matched }}
  handlers:
    - name: noted
      copy: dest=$TMPD/handler content=ran
EOY
expect_exit 0 "a play with tasks Ansible runs" -- "$IMC" play --connection local "$TMPD/play.yml"
cp "$TMPD/out" "$TMPD/out1"
cp "$TMPD/err" "$TMPD/err1"
expect_grep '^joe[[:space:]]+soft[[:space:]]+nofile[[:space:]]+64000' "$TMPD/limits.conf" "Ansible's module wrote the file"
expect_grep '^s1=True s2=True s2ok=False$' "$TMPD/results" "register, and changed_when applied by imc"
expect_grep "^loop=2 \[True, True\] nproc$" "$TMPD/results" "each loop item ran, with its item"
expect_grep '^joe[[:space:]]+hard[[:space:]]+nproc[[:space:]]+6' "$TMPD/loop.conf" "loop items templated by imc (index_var)"
expect_grep '#\{\{ not_a_var \}\}$' "$TMPD/x.conf" "arguments are not templated again by Ansible"
expect_grep '^check=True$' "$TMPD/results" "check mode reports the change"
expect_no_grep '^ann' "$TMPD/limits.conf" "check mode changes nothing"
[ -e "$TMPD/never.conf" ] && not_ok "a false when skips" || ok "a false when skips"
expect_grep '^skipping: \[localhost\]' "$TMPD/out1" "the skipped task is printed as such"
expect_grep '^home=/root$' "$TMPD/results" "facts a module returns are the host's"
expect_grep '^fact_home=/root$' "$TMPD/results" "and are under ansible_facts too"
expect_grep '^found=3$' "$TMPD/results" "find's follow, native"
expect_grep '^ran$' "$TMPD/handler" "notify from a task Ansible ran"
expect_grep "fallback: task 'a limits entry' runs under Ansible" "$TMPD/err1" "the tasks Ansible runs are listed"
expect_grep "fallback: task 'a native module's argument imc lacks' runs under Ansible .*setype" "$TMPD/err1" \
	"and why"
expect_grep '^localhost +: ok=10 +changed=7 +unreachable=0 +failed=0 +skipped=1 ' "$TMPD/out1" "the recap"

# a failing module: failed_when and ignore_errors, applied by imc
cat >"$TMPD/fail.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - name: fails in Ansible
      pam_limits: domain=joe limit_type=soft limit_item=nofile value=1 dest=$TMPD/nodir/l.conf
      register: r
      ignore_errors: true
    - name: not failed after all
      pam_limits: domain=joe limit_type=soft limit_item=nofile value=1 dest=$TMPD/nodir/l.conf
      failed_when: false
      register: r2
    - copy: dest=$TMPD/fail content="{{ r.failed }} {{ r.msg is search('nodir') }} {{ r2.failed }}"
EOY
expect_exit 0 "a failing task Ansible ran" -- "$IMC" play --connection local "$TMPD/fail.yml"
expect_grep '^True True False$' "$TMPD/fail" "Ansible's failure is the task's: ignore_errors, failed_when"
expect_grep '^\.\.\.ignoring$' "$TMPD/out" "ignored as for a native module"

# an argument imc lacks on a module that reads its src on the controller:
# Ansible gets the src imc finds (files/ beside the playbook), not one
# beside its own one-task play
mkdir -p "$TMPD/files/frags"
echo one >"$TMPD/files/frags/a"
echo two >"$TMPD/files/frags/b"
cat >"$TMPD/asm.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - assemble: src=frags dest=$TMPD/assembled remote_src=no follow=no
EOY
expect_exit 0 "a controller-side src, relative" -- "$IMC" play --connection local "$TMPD/asm.yml"
[ "$(cat "$TMPD/assembled" 2>/dev/null | tr '\n' ' ')" = "one two " ] && ok "Ansible read it where imc finds it" ||
	not_ok "Ansible read it where imc finds it"

# check mode on imc's own modules: those that would act run under
# Ansible (which changes nothing and reports the change), those that act
# the same in check mode stay in imc; without Ansible, an error
cat >"$TMPD/check.yml" <<EOY
- hosts: all
  gather_facts: false
  vars:
    cm: "{{ 'yes' }}"
  tasks:
    - file: path=$TMPD/cm-file state=touch
      check_mode: "{{ cm }}"
      register: cf
    - copy: dest=$TMPD/cm-copy content=x
      check_mode: true
      register: cc
    - stat: path=$TMPD/results
      check_mode: true
      register: cs
    - set_fact:
        cset: "{{ cf.changed }} {{ cc.changed }} {{ cs.stat.exists }} {{ ansible_check_mode }}"
      check_mode: true
    - file: path=$TMPD/cm-skipped state=touch
      check_mode: "{{ nosuch }}"
      when: false
    - copy: dest=$TMPD/check content="{{ cset }}"
EOY
expect_exit 0 "check mode on imc's own modules" -- "$IMC" play --connection local "$TMPD/check.yml"
[ -e "$TMPD/cm-file" ] || [ -e "$TMPD/cm-copy" ] && not_ok "check mode changes nothing (file, copy)" ||
	ok "check mode changes nothing (file, copy)"
expect_grep '^True True True False$' "$TMPD/check" "changes reported; stat and set_fact ran; ansible_check_mode follows --check only; a false when skips before check_mode is templated"
rm -f "$TMPD/check"
# file and copy implement check mode themselves: no Ansible needed
expect_exit 0 "check mode without the fallback (native file, copy)" -- "$IMC" play --connection local \
	--no-fallback "$TMPD/check.yml"
[ -e "$TMPD/cm-file" ] || [ -e "$TMPD/cm-copy" ] && not_ok "... changes nothing" || ok "... changes nothing"
expect_grep '^True True True False$' "$TMPD/check" "... and reports the same"
[ -e "$TMPD/cm-file" ] && not_ok "and changes nothing" || ok "and changes nothing"

# a name neither imc nor Ansible knows: Ansible's own error, nothing runs
cat >"$TMPD/bad.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - file: path=$TMPD/ran-bad state=touch
    - no.such.module: x=1
EOY
expect_exit 65 "an unknown module is refused" -- "$IMC" play --connection local "$TMPD/bad.yml"
expect_grep "couldn't resolve module/action 'no.such.module'" "$TMPD/err" "with Ansible's message"
[ -e "$TMPD/ran-bad" ] && not_ok "before any task runs" || ok "before any task runs"

# --no-fallback: a module imc lacks is an error before anything runs
expect_exit 65 "--no-fallback refuses a module imc lacks" -- "$IMC" play --no-fallback --connection local "$TMPD/play.yml"
expect_grep "unsupported module 'pam_limits'" "$TMPD/err" "naming it"

# ... but in a dynamically included file only a task that runs fails
cat >"$TMPD/inc.yml" <<EOY
- name: imc lacks it
  pam_limits: domain=joe limit_type=soft limit_item=nofile value=1 dest=$TMPD/inc.conf
  when: run_it | bool
- copy: dest=$TMPD/inc-after content=after
EOY
cat >"$TMPD/dyn.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - include_tasks: inc.yml
EOY
expect_exit 0 "a skipped unsupported task in an included file" -- \
	"$IMC" play --no-fallback --connection local -e run_it=false "$TMPD/dyn.yml"
expect_grep '^after$' "$TMPD/inc-after" "the rest of the file runs"
expect_exit 1 "the same task when it runs" -- \
	"$IMC" play --no-fallback --connection local -e run_it=true "$TMPD/dyn.yml"
expect_grep "unsupported module 'pam_limits'" "$TMPD/out" "fails with the reason"

# --syntax-check lists what Ansible will run, and runs nothing
rm -f "$TMPD/limits.conf"
expect_exit 0 "--syntax-check" -- "$IMC" play --syntax-check "$TMPD/play.yml"
expect_grep "play.yml:[0-9]+: fallback: task 'a loop' runs under Ansible \(module 'pam_limits'" "$TMPD/err" \
	"lists the tasks Ansible will run"
[ -e "$TMPD/limits.conf" ] && not_ok "--syntax-check runs nothing" || ok "--syntax-check runs nothing"
done_testing
