#!/bin/sh
# t4183: lookup('config', ...) gives Ansible's settings as Ansible resolves
# them: defaults, an ansible.cfg in the working directory, ANSIBLE_*
# variables; on_missing skip, warn and error, and the option errors, in Ansible's
# words; a plugin's settings (plugin_type, plugin_name) from the task's
# variables first, cast to their type, and an attribute of
# ansible.constants that is no setting. Compared live with ansible-playbook (ansible-core, which
# scripts/install-deps installs), on the same files in the same directory.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
printf '[defaults]\nforks = 7\n' >"$D/ansible.cfg"
cat >"$D/cfg.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug:
        msg: "{{ lookup('config', 'DEFAULT_BECOME_USER', 'DEFAULT_TIMEOUT', 'DEFAULT_ROLES_PATH', 'DEFAULT_FORKS') }}"
    - debug:
        msg: "{{ query('config', 'NOPE', 'DEFAULT_KEEP_REMOTE_FILES', on_missing='skip') }}"
    - debug:
        msg: "{{ lookup('config', 'NOPE') }}"
      ignore_errors: true
    - debug:
        msg: "{{ lookup('config', 'NOPE', on_missing='bad') }}"
      ignore_errors: true
    - debug:
        msg: "{{ lookup('config', 'DEFAULT_FORKS', plugin_type='connection') }}"
      ignore_errors: true
    - debug:
        msg: "{{ lookup('config', 5) }}"
      ignore_errors: true
EOF
cd "$D" || exit 1
# the values (the lines of each debug's list) and each failure's message
# (imc adds where in the template it failed, left out here)
norm() { grep -E '^        |^fatal' "$1" | sed "s/ (in '{{ .*', column [0-9]*)\"}\$/\"}/"; }
ANSIBLE_NOCOLOR=1 ANSIBLE_TIMEOUT=33 ansible-playbook -i localhost, -c local cfg.yml >"$TMPD/ans.out" 2>&1
norm "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "settings from defaults, ./ansible.cfg and ANSIBLE_TIMEOUT" -- env ANSIBLE_TIMEOUT=33 "$IMC" play -c local cfg.yml
norm "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... as ansible-playbook: values and messages" test "$(grep -c . "$TMPD/ans")" -ge 10
expect_grep '^        7$' "$TMPD/out" "... forks from ./ansible.cfg"
expect_grep '^        33,$' "$TMPD/out" "... the timeout from the environment"
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: "{{ lookup(\x27config\x27, \x27NOPE\x27, \x27DEFAULT_FORKS\x27, on_missing=\x27warn\x27) }}"\n' >"$D/warn.yml"
expect_exit 0 "on_missing='warn'" -- "$IMC" play -c local warn.yml
expect_grep '^    "msg": "7"$' "$TMPD/out" "... skips the missing setting"
expect_grep '^\[WARNING\]: Skipping, did not find setting NOPE$' "$TMPD/err" "... with Ansible's warning"
cat >"$D/plugin.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug:
        msg: "{{ q('config', 'remote_user', 'port', 'timeout', plugin_type='connection', plugin_name='ssh') }}"
      vars:
        ansible_user: bob
        ansible_ssh_user: lola
        ansible_port: "2022"
    - debug:
        msg: "{{ q('config', 'remote_tmp', 'system_tmpdirs', plugin_type='shell', plugin_name='sh') }}"
    - debug:
        msg: "{{ q('config', 'remote_user', plugin_type='connection', plugin_name='nosuch') }}"
      ignore_errors: true
    - debug:
        msg: "{{ q('config', 'nope', 'port', plugin_type='connection', plugin_name='ssh', on_missing='skip') }}"
    - debug:
        msg: "{{ q('config', 'nope', plugin_type='connection', plugin_name='ssh') }}"
      ignore_errors: true
    - debug:
        msg: "{{ q('config', 'nope', plugin_type='foo', plugin_name='ssh') }}"
      ignore_errors: true
    - debug:
        msg: "{{ q('config', 'host_key_checking', plugin_type='connection', plugin_name='ssh') }}"
      vars:
        ansible_host_key_checking: maybe
    - debug:
        msg: "{{ q('config', 'BOOL_TRUE', 'ConfigManager') }}"
      ignore_errors: true
    - debug:
        msg: "{{ q('config', 'become_user', plugin_type='become', plugin_name='sudo') }}"
      vars:
        ansible_become_user: alice
EOF
ANSIBLE_NOCOLOR=1 ANSIBLE_REMOTE_TMP=/var/tmp/x ansible-playbook -i localhost, -c local plugin.yml >"$TMPD/ans.out" 2>&1
norm "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "a plugin's settings" -- env ANSIBLE_REMOTE_TMP=/var/tmp/x "$IMC" play -c local plugin.yml
norm "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... as ansible-playbook: values and messages" test "$(grep -c . "$TMPD/ans")" -ge 15
expect_grep '^        "lola",$' "$TMPD/out" "... the last of the setting's variables that is defined"
expect_grep '^        2022,$' "$TMPD/out" "... cast to the setting's type"
expect_grep '^        "/var/tmp/x",$' "$TMPD/out" "... else from the environment"
expect_grep 'Unable to load connection plugin' "$TMPD/out" "... an unknown plugin refused in Ansible's words"
done_testing
