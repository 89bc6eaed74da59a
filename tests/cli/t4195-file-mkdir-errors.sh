#!/bin/sh
# t4195: file state=directory makes the missing directories one after the
# other from the top, as Ansible's module does, and one that cannot be
# made fails it with Ansible's message: that directory named, and the
# error as Python's os.mkdir raises it ("[Errno 20] Not a directory:
# b'...'") (before: the path asked for and mkdir's own words). Each
# directory made gets the mode. A mode neither octal nor symbolic: the
# first missing directory made, given its group, and the task failed on
# the mode there with that directory's information. Compared live with
# ansible-playbook, the results and the modes on disk.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >d.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - file: { path: "{{ playbook_dir }}/s/p/sub/deeper", state: directory }
      ignore_errors: true
    - file: { path: "{{ playbook_dir }}/s/new/a/b", state: directory, mode: '0700' }
    - file: { path: "{{ playbook_dir }}/s/ro/x/y", state: directory }
      ignore_errors: true
EOF_PB
# s/p and s/ro/x are files: the directory that cannot be made is at the
# first level of what is missing, then at the second
setup() { rm -rf s && mkdir -p s/ro && echo x >s/p && echo x >s/ro/x; }
modes() { stat -c '%a %n' s/new s/new/a s/new/a/b; }
setup
ansible-playbook d.yml 2>/dev/null | grep -E '^(fatal|changed|ok):' >"$TMPD/ans"
modes >>"$TMPD/ans"
setup
expect_exit 0 "directories that cannot be made, and three that can" -- "$IMC" play d.yml --no-fallback
grep -E '^(fatal|changed|ok):' "$TMPD/out" >"$TMPD/imc"
modes >>"$TMPD/imc"
expect_same_as_ansible "... the same results and modes as ansible-playbook" grep -q 'Errno 20' "$TMPD/ans"
cat >m.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - file: { path: "{{ playbook_dir }}/m/c/p", state: directory, mode: bogus, group: nogroup }
      ignore_errors: true
    - file: { path: "{{ playbook_dir }}/m/c/p", state: directory, mode: bogus }
      ignore_errors: true
EOF_PB
tree() { find m -printf '%p %m %g\n' | sort; }
rm -rf m && mkdir m
ansible-playbook m.yml 2>/dev/null | grep -E '^(fatal|changed|ok):' | sed 's/"ansible_facts": {"discovered_interpreter_python": "[^"]*"}, //' >"$TMPD/ans"
tree >>"$TMPD/ans"
rm -rf m && mkdir m
expect_exit 0 "a mode neither octal nor symbolic" -- "$IMC" play m.yml --no-fallback
grep -E '^(fatal|changed|ok):' "$TMPD/out" >"$TMPD/imc"
tree >>"$TMPD/imc"
expect_same_as_ansible "... the first directory made, the same results as ansible-playbook" grep -q 'mode must be in octal' "$TMPD/ans"
done_testing
