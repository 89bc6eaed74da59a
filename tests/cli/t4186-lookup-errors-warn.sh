#!/bin/sh
# t4186: a lookup's errors='warn' and 'ignore' as Ansible's templar treats
# them: the failing lookup gives None, and 'warn' prints the plugin's own
# message as a warning (an unhandled error's text once, a lookup error as
# "Lookup failed but the error is being ignored: ..."), while an option
# error (AnsibleOptionsError) fails the task whatever errors= says; the
# lookups that search their files (file, template, csvfile, ini) warn
# "Unable to find ..." for a name found nowhere, in every mode; the config
# lookup's on_missing='warn' warns per missing setting and skips it.
# Compared live with ansible-playbook (scripts/install-deps installs it):
# the whole output, warnings included.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/p.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug: msg="{{ lookup('config', 'NOPE1', 'DEFAULT_FORKS', 'NOPE2', on_missing='warn') }}"
    - debug: msg="{{ lookup('file', '/nonexistent/x', errors='warn') }}"
    - debug: msg="{{ lookup('file', '/nonexistent/y', errors='ignore') }}"
    - debug: msg="{{ lookup('env', 'HOME', errors='warn') }}"
    - debug: msg="{{ lookup('vars', 'nope_var', errors='warn') }}"
      ignore_errors: true
    - debug: msg="{{ lookup('sequence', 'start=A end=3', errors='warn') }}"
    - debug: msg="{{ lookup('csvfile', 'x file=/nonexistent/z.csv', errors='warn') }}"
    - debug: msg="{{ lookup('ini', 'x file=/nonexistent/z.ini', errors='warn') }}"
    - debug: msg="{{ lookup('template', '/nonexistent/t.j2', errors='warn') }}"
    - debug: msg="{{ lookup('config', 5, errors='warn') }}"
      ignore_errors: true
    - debug: msg="{{ lookup('config', 'X', on_missing='bad', errors='ignore') }}"
      ignore_errors: true
    - debug: msg="{{ lookup('config', 'NOPE3', errors='warn') }}"
    - debug: msg="{{ lookup('first_found', '/nonexistent/a', '/nonexistent/b', errors='warn') }}"
EOF_PB
cd "$D" || exit 1
ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local p.yml >"$TMPD/ans" 2>&1
expect_exit 0 "lookups failing under errors='warn' and 'ignore'" -- "$IMC" play -i localhost, -c local p.yml
cat "$TMPD/out" "$TMPD/err" >"$TMPD/imc"
# the order of stdout and stderr lines aside (ansible-playbook's are one stream)
sort -o "$TMPD/ans" "$TMPD/ans"
sort -o "$TMPD/imc" "$TMPD/imc"
expect_same_as_ansible "the same results and warnings as ansible-playbook" \
	grep -q 'Lookup failed but the error is being ignored' "$TMPD/ans"
done_testing
