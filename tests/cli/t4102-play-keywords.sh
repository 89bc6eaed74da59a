#!/bin/sh
# t4102: the play keywords imc carries out itself, each compared with
# what ansible-playbook (ansible-core 2.14.18) printed for the same
# playbook and hosts, recorded below with the command that made it:
# order, force_handlers (and --force-handlers), serial with
# max_fail_percentage, any_errors_fatal, the task timeout and
# module_defaults, and meta tasks. Hosts run one at a time (-f 1) in
# both, so that the lines come in one order. imc's exit status is 1
# where Ansible's is 2 (a host failed).
. "$top_srcdir/tests/cli/lib.sh"

# same NAME HOSTS STATUS [OPTION]: imc runs $TMPD/NAME.yml on the local
# hosts HOSTS; its log, blank lines dropped, must be $TMPD/NAME.ans
same() {
	expect_exit "$3" "$1: exit status" -- "$IMC" play --no-fallback -c local -f 1 -i "$2" ${4:-} "$TMPD/$1.yml"
	grep -v '^$' "$TMPD/out" >"$TMPD/$1.got"
	if diff -u "$TMPD/$1.ans" "$TMPD/$1.got" >"$TMPD/$1.diff"; then
		ok "$1: the log is Ansible's"
	else
		not_ok "$1: the log differs from Ansible's"
		sed 's/^/#   /' "$TMPD/$1.diff" | head -40
	fi
}

# order: reverse_inventory, sorted, reverse_sorted
# recorded: ansible-playbook -f 1 -i h1,h3,h2, -c local order2.yml (blank lines dropped)
cat >"$TMPD/order2.yml" <<'EOY'
- hosts: all
  gather_facts: no
  order: reverse_inventory
  tasks:
    - debug: msg=a
- hosts: all
  gather_facts: no
  order: sorted
  tasks:
    - debug: msg=b
- hosts: all
  gather_facts: no
  order: reverse_sorted
  tasks:
    - debug: msg=c
EOY
cat >"$TMPD/order2.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h2] => {
    "msg": "a"
}
ok: [h3] => {
    "msg": "a"
}
ok: [h1] => {
    "msg": "a"
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "b"
}
ok: [h2] => {
    "msg": "b"
}
ok: [h3] => {
    "msg": "b"
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h3] => {
    "msg": "c"
}
ok: [h2] => {
    "msg": "c"
}
ok: [h1] => {
    "msg": "c"
}
PLAY RECAP *********************************************************************
h1                         : ok=3    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h2                         : ok=3    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h3                         : ok=3    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOY
same order2 h1,h3,h2 0 

# force_handlers: a failed host runs its notified handlers at the end of its section
# recorded: ansible-playbook -f 1 -i h1,h3,h2, -c local fh2.yml (blank lines dropped)
cat >"$TMPD/fh2.yml" <<'EOY'
- hosts: all
  gather_facts: no
  force_handlers: true
  tasks:
    - debug: msg=a
      changed_when: true
      notify: H
    - fail: msg=boom
      when: inventory_hostname == 'h1'
    - debug: msg=after
      changed_when: true
      notify: H2
  handlers:
    - name: H
      debug: msg=handler-{{ inventory_hostname }}
    - name: H2
      debug: msg=handler2
EOY
cat >"$TMPD/fh2.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
changed: [h1] => {
    "msg": "a"
}
changed: [h3] => {
    "msg": "a"
}
changed: [h2] => {
    "msg": "a"
}
TASK [fail] ********************************************************************
fatal: [h1]: FAILED! => {"changed": false, "msg": "boom"}
skipping: [h3]
skipping: [h2]
TASK [debug] *******************************************************************
changed: [h3] => {
    "msg": "after"
}
changed: [h2] => {
    "msg": "after"
}
RUNNING HANDLER [H] ************************************************************
ok: [h1] => {
    "msg": "handler-h1"
}
ok: [h3] => {
    "msg": "handler-h3"
}
ok: [h2] => {
    "msg": "handler-h2"
}
RUNNING HANDLER [H2] ***********************************************************
ok: [h3] => {
    "msg": "handler2"
}
ok: [h2] => {
    "msg": "handler2"
}
PLAY RECAP *********************************************************************
h1                         : ok=2    changed=1    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0   
h2                         : ok=4    changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
h3                         : ok=4    changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
EOY
same fh2 h1,h3,h2 1 

# --force-handlers: the keyword's default
# recorded: ansible-playbook -f 1 -i h1,h3,h2, -c local --force-handlers fh3.yml (blank lines dropped)
cat >"$TMPD/fh3.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=a
      changed_when: true
      notify: H
    - fail: msg=boom
      when: inventory_hostname == 'h1'
    - debug: msg=after
      changed_when: true
      notify: H2
  handlers:
    - name: H
      debug: msg=handler-{{ inventory_hostname }}
    - name: H2
      debug: msg=handler2
EOY
cat >"$TMPD/fh3.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
changed: [h1] => {
    "msg": "a"
}
changed: [h3] => {
    "msg": "a"
}
changed: [h2] => {
    "msg": "a"
}
TASK [fail] ********************************************************************
fatal: [h1]: FAILED! => {"changed": false, "msg": "boom"}
skipping: [h3]
skipping: [h2]
TASK [debug] *******************************************************************
changed: [h3] => {
    "msg": "after"
}
changed: [h2] => {
    "msg": "after"
}
RUNNING HANDLER [H] ************************************************************
ok: [h1] => {
    "msg": "handler-h1"
}
ok: [h3] => {
    "msg": "handler-h3"
}
ok: [h2] => {
    "msg": "handler-h2"
}
RUNNING HANDLER [H2] ***********************************************************
ok: [h3] => {
    "msg": "handler2"
}
ok: [h2] => {
    "msg": "handler2"
}
PLAY RECAP *********************************************************************
h1                         : ok=2    changed=1    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0   
h2                         : ok=4    changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
h3                         : ok=4    changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
EOY
same fh3 h1,h3,h2 1 --force-handlers

# serial (a list, a percentage), ansible_play_batch, max_fail_percentage stopping the playbook
# recorded: ansible-playbook -f 1 -i h1,h2,h3,h4, -c local serial.yml (blank lines dropped)
cat >"$TMPD/serial.yml" <<'EOY'
- hosts: all
  gather_facts: no
  serial: [1, "50%"]
  tasks:
    - debug: msg="{{ ansible_play_batch }}"
- hosts: all
  gather_facts: no
  serial: 2
  max_fail_percentage: 49
  tasks:
    - fail: msg=boom
      when: inventory_hostname == 'h1'
    - debug: msg=after
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=never
EOY
cat >"$TMPD/serial.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": [
        "h1"
    ]
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h2] => {
    "msg": [
        "h2",
        "h3"
    ]
}
ok: [h3] => {
    "msg": [
        "h2",
        "h3"
    ]
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h4] => {
    "msg": [
        "h4"
    ]
}
PLAY [all] *********************************************************************
TASK [fail] ********************************************************************
fatal: [h1]: FAILED! => {"changed": false, "msg": "boom"}
skipping: [h2]
NO MORE HOSTS LEFT *************************************************************
NO MORE HOSTS LEFT *************************************************************
PLAY RECAP *********************************************************************
h1                         : ok=1    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0   
h2                         : ok=1    changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
h3                         : ok=1    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h4                         : ok=1    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOY
same serial h1,h2,h3,h4 1 

# any_errors_fatal on the play: every host fails, no further play
# recorded: ansible-playbook -f 1 -i h1,h2,h3, -c local aef.yml (blank lines dropped)
cat >"$TMPD/aef.yml" <<'EOY'
- hosts: all
  gather_facts: no
  any_errors_fatal: true
  tasks:
    - debug: msg=first
    - fail: msg=boom
      when: inventory_hostname == 'h2'
    - debug: msg=never
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=never-play
EOY
cat >"$TMPD/aef.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "first"
}
ok: [h2] => {
    "msg": "first"
}
ok: [h3] => {
    "msg": "first"
}
TASK [fail] ********************************************************************
skipping: [h1]
fatal: [h2]: FAILED! => {"changed": false, "msg": "boom"}
skipping: [h3]
NO MORE HOSTS LEFT *************************************************************
PLAY RECAP *********************************************************************
h1                         : ok=1    changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
h2                         : ok=1    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0   
h3                         : ok=1    changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
EOY
same aef h1,h2,h3 1 

# any_errors_fatal: a rescued failure does not count; a task's value is read untemplated, as Python truth
# recorded: ansible-playbook -f 1 -i h1,h2,h3, -c local aef5.yml (blank lines dropped)
cat >"$TMPD/aef5.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - block:
        - fail: msg=boom
          when: inventory_hostname == 'h2'
      rescue:
        - debug: msg=rescued
      any_errors_fatal: true
    - debug: msg=goes-on
    - fail: msg=again
      when: inventory_hostname == 'h3'
      any_errors_fatal: "{{ false }}"
    - debug: msg=never
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=never-play
EOY
cat >"$TMPD/aef5.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [fail] ********************************************************************
skipping: [h1]
fatal: [h2]: FAILED! => {"changed": false, "msg": "boom"}
skipping: [h3]
TASK [debug] *******************************************************************
ok: [h2] => {
    "msg": "rescued"
}
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "goes-on"
}
ok: [h2] => {
    "msg": "goes-on"
}
ok: [h3] => {
    "msg": "goes-on"
}
TASK [fail] ********************************************************************
skipping: [h1]
skipping: [h2]
fatal: [h3]: FAILED! => {"changed": false, "msg": "again"}
NO MORE HOSTS LEFT *************************************************************
PLAY RECAP *********************************************************************
h1                         : ok=1    changed=0    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0   
h2                         : ok=2    changed=0    unreachable=0    failed=0    skipped=1    rescued=1    ignored=0   
h3                         : ok=1    changed=0    unreachable=0    failed=1    skipped=1    rescued=0    ignored=0   
EOY
same aef5 h1,h2,h3 1 

# any_errors_fatal in a block whose enclosing block has always: the hosts go on
# to the always (Ansible spares that state), clear_host_errors there, and
# the playbook goes on (the blocks target); both exit 0
# recorded: ansible-playbook -f 1 -i h1,h2, -c local aef6.yml (blank lines dropped)
cat >"$TMPD/aef6.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - block:
        - block:
            - fail: msg=inner
              when: inventory_hostname == 'h1'
          any_errors_fatal: true
      always:
        - debug: msg=always
        - meta: clear_host_errors
    - debug: msg=after
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=play2
EOY
cat >"$TMPD/aef6.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [fail] ********************************************************************
fatal: [h1]: FAILED! => {"changed": false, "msg": "inner"}
skipping: [h2]
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "always"
}
ok: [h2] => {
    "msg": "always"
}
TASK [meta] ********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "after"
}
ok: [h2] => {
    "msg": "after"
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "play2"
}
ok: [h2] => {
    "msg": "play2"
}
PLAY RECAP *********************************************************************
h1                         : ok=3    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0   
h2                         : ok=3    changed=0    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   
EOY
same aef6 h1,h2 0

# timeout: the command is killed, Ansible's message; a block's timeout is overridden by its task's
# recorded: ansible-playbook -f 1 -i h1,h2,h3, -c local to2.yml (blank lines dropped)
cat >"$TMPD/to2.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - shell: sleep 60; echo hi
      timeout: 1
      register: r
      ignore_errors: true
    - debug: var=r
    - ansible.builtin.command: sleep 60
      timeout: "{{ 1 }}"
      ignore_errors: true
    - block:
        - command: echo quick
          timeout: 30
      timeout: 1
EOY
cat >"$TMPD/to2.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [shell] *******************************************************************
fatal: [h1]: FAILED! => {"changed": false, "msg": "The shell action failed to execute in the expected time frame (1) and was terminated"}
...ignoring
fatal: [h2]: FAILED! => {"changed": false, "msg": "The shell action failed to execute in the expected time frame (1) and was terminated"}
...ignoring
fatal: [h3]: FAILED! => {"changed": false, "msg": "The shell action failed to execute in the expected time frame (1) and was terminated"}
...ignoring
TASK [debug] *******************************************************************
ok: [h1] => {
    "r": {
        "changed": false,
        "failed": true,
        "msg": "The shell action failed to execute in the expected time frame (1) and was terminated"
    }
}
ok: [h2] => {
    "r": {
        "changed": false,
        "failed": true,
        "msg": "The shell action failed to execute in the expected time frame (1) and was terminated"
    }
}
ok: [h3] => {
    "r": {
        "changed": false,
        "failed": true,
        "msg": "The shell action failed to execute in the expected time frame (1) and was terminated"
    }
}
TASK [ansible.builtin.command] *************************************************
fatal: [h1]: FAILED! => {"changed": false, "msg": "The ansible.builtin.command action failed to execute in the expected time frame (1) and was terminated"}
...ignoring
fatal: [h2]: FAILED! => {"changed": false, "msg": "The ansible.builtin.command action failed to execute in the expected time frame (1) and was terminated"}
...ignoring
fatal: [h3]: FAILED! => {"changed": false, "msg": "The ansible.builtin.command action failed to execute in the expected time frame (1) and was terminated"}
...ignoring
TASK [command] *****************************************************************
changed: [h1]
changed: [h2]
changed: [h3]
PLAY RECAP *********************************************************************
h1                         : ok=4    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=2   
h2                         : ok=4    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=2   
h3                         : ok=4    changed=1    unreachable=0    failed=0    skipped=0    rescued=0    ignored=2   
EOY
same to2 h1,h2,h3 0 

# meta end_play and end_host with when (a false when skips, shown on the first host only for end_play)
# recorded: ansible-playbook -f 1 -i h1,h2,h3, -c local meta.yml (blank lines dropped)
cat >"$TMPD/meta.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - meta: end_play
      when: false
    - debug: msg=still
    - meta: end_host
      when: inventory_hostname == 'h2'
    - debug: msg=after-end-host
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=play2
EOY
cat >"$TMPD/meta.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [meta] ********************************************************************
skipping: [h1]
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "still"
}
ok: [h2] => {
    "msg": "still"
}
ok: [h3] => {
    "msg": "still"
}
TASK [meta] ********************************************************************
skipping: [h1]
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
skipping: [h3]
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "after-end-host"
}
ok: [h3] => {
    "msg": "after-end-host"
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "play2"
}
ok: [h2] => {
    "msg": "play2"
}
ok: [h3] => {
    "msg": "play2"
}
PLAY RECAP *********************************************************************
h1                         : ok=3    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h2                         : ok=2    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h3                         : ok=3    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOY
same meta h1,h2,h3 0

# meta noop, flush_handlers, clear_host_errors banners; end_host, end_batch, end_play with serial
# recorded: ansible-playbook -f 1 -i h1,h2,h3, -c local meta2.yml (blank lines dropped)
cat >"$TMPD/meta2.yml" <<'EOY'
- hosts: all
  gather_facts: no
  serial: 1
  tasks:
    - meta: noop
    - meta: flush_handlers
    - meta: clear_host_errors
    - name: named end
      meta: end_host
      when: inventory_hostname == 'h2'
    - debug: msg=x
    - meta: end_batch
      when: inventory_hostname == 'h1'
    - debug: msg=y
    - meta: end_play
      when: inventory_hostname == 'h2'
    - debug: msg=z
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg=play2
EOY
cat >"$TMPD/meta2.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
TASK [named end] ***************************************************************
skipping: [h1]
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "x"
}
TASK [meta] ********************************************************************
PLAY [all] *********************************************************************
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
TASK [named end] ***************************************************************
PLAY [all] *********************************************************************
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
TASK [meta] ********************************************************************
TASK [named end] ***************************************************************
skipping: [h3]
TASK [debug] *******************************************************************
ok: [h3] => {
    "msg": "x"
}
TASK [meta] ********************************************************************
skipping: [h3]
TASK [debug] *******************************************************************
ok: [h3] => {
    "msg": "y"
}
TASK [meta] ********************************************************************
skipping: [h3]
TASK [debug] *******************************************************************
ok: [h3] => {
    "msg": "z"
}
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "play2"
}
ok: [h2] => {
    "msg": "play2"
}
ok: [h3] => {
    "msg": "play2"
}
PLAY RECAP *********************************************************************
h1                         : ok=2    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h2                         : ok=1    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
h3                         : ok=4    changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOY
same meta2 h1,h2,h3 0

# -vv: the playbook's banner and play count, META: lines, task paths
# (ansible-playbook -vv prints them so)
expect_exit 0 "meta2 -vv" -- "$IMC" play --no-fallback -c local -f 1 -i h1,h2,h3 -vv "$TMPD/meta2.yml"
expect_grep '^PLAYBOOK: meta2.yml \*+$' "$TMPD/out" "-vv: the PLAYBOOK banner"
expect_grep '^2 plays in .*/meta2.yml$' "$TMPD/out" "-vv: the play count"
expect_grep '^META: ending batch$' "$TMPD/out" "-vv: META: for an acted meta"
expect_grep '^META: end_play conditional evaluated to False, continuing play$' "$TMPD/out" "-vv: META: the skip reason"
expect_grep '^skipping: \[h3\] => \{"msg": "end_play", "skip_reason": "end_play conditional evaluated to False, continuing play"\}$' "$TMPD/out" "-vv: a skipped meta's result"
expect_grep '^task path: /.*/meta2.yml:5$' "$TMPD/out" "-vv: the task path"

# module_defaults: a module's defaults given short or in full apply to
# both spellings of the task's module, a block's override the play's,
# templated; the task's own arguments win
# recorded: ansible-playbook -i h1, -c local md2.yml -e d=DIR
mkdir "$TMPD/d"
cat >"$TMPD/md2.yml" <<'EOY'
- hosts: all
  gather_facts: no
  module_defaults:
    file: {mode: "0600"}
    ansible.builtin.debug: {msg: "play-default"}
  tasks:
    - file: path={{ d }}/md1 state=touch
    - ansible.builtin.file: path={{ d }}/md2 state=touch
    - stat: path={{ d }}/md1
      register: s1
    - stat: path={{ d }}/md2
      register: s2
    - debug: msg="{{ s1.stat.mode }} {{ s2.stat.mode }}"
    - debug:
    - block:
        - debug:
        - debug: msg=own
      module_defaults:
        debug: {msg: "{{ 'block' + '-default' }}"}
EOY
cat >"$TMPD/md2.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [file] ********************************************************************
changed: [h1]
TASK [ansible.builtin.file] ****************************************************
changed: [h1]
TASK [stat] ********************************************************************
ok: [h1]
TASK [stat] ********************************************************************
ok: [h1]
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "0600 0600"
}
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "play-default"
}
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "block-default"
}
TASK [debug] *******************************************************************
ok: [h1] => {
    "msg": "own"
}
PLAY RECAP *********************************************************************
h1                         : ok=8    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOY
expect_exit 0 "module_defaults: exit status" -- "$IMC" play --no-fallback -c local -i h1 -e "d=$TMPD/d" "$TMPD/md2.yml"
grep -v '^$' "$TMPD/out" >"$TMPD/md2.got"
if diff -u "$TMPD/md2.ans" "$TMPD/md2.got" >"$TMPD/md2.diff"; then
	ok "module_defaults: the log is Ansible's"
else
	not_ok "module_defaults: the log differs from Ansible's"
	sed 's/^/#   /' "$TMPD/md2.diff" | head -40
fi

# order: shuffle runs every host once, in some order (Ansible's is
# random too)
cat >"$TMPD/sh.yml" <<'EOY'
- hosts: all
  gather_facts: no
  order: shuffle
  tasks:
    - debug: msg={{ inventory_hostname }}
EOY
expect_exit 0 "order: shuffle runs" -- "$IMC" play --no-fallback -c local -f 1 -i h1,h2,h3,h4,h5 "$TMPD/sh.yml"
if [ "$(sed -n 's/^ok: \[\(h[0-9]\)\].*/\1/p' "$TMPD/out" | sort | tr '\n' ' ')" = "h1 h2 h3 h4 h5 " ]; then
	ok "order: shuffle ran each host once"
else
	not_ok "order: shuffle ran each host once"
fi
done_testing
