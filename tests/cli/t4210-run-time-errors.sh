#!/bin/sh
# t4210: errors Ansible's strategy raises while the play runs end the run
# there, with no recap, and are reported as ansible-playbook reports them
# ("ERROR! ..." and where): flush_handlers run as a handler (here from a
# file a handler includes), a parser error in a file include_tasks loads
# (a YAML error, a block nested in a handler block; where, with Ansible's
# k=v quirk: a k=v pair on the line before moves the report there). imc
# used to run the flush as a no-op and to fail only the including host,
# going on with the play. A file that is not there fails the host, even
# under ignore_errors (its block's rescue runs), with Ansible's reason.
# Compared live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
printf -- '- meta: flush_handlers\n' >flush.yml
printf -- '- debug: msg=x\n  - bad: [\n' >badyaml.yml
printf -- '- name: h\n  block:\n    - debug: msg=one\n    - block:\n        - debug: msg=nested\n' >blocks.yml
cat >p1.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - command: echo
      notify: h
    - meta: flush_handlers
    - debug: msg=after-flush
  handlers:
    - name: h
      include_tasks: flush.yml
EOF_PB
cat >p2.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - block:
        - include_tasks: nosuch.yml
      rescue:
        - debug: msg=rescued
    - include_tasks: nosuch.yml
      ignore_errors: true
    - debug: msg=after-missing
EOF_PB
cat >p4.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - include_tasks: badyaml.yml
    - debug: msg=after-bad
EOF_PB
cat >p3.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - command: echo
      notify: h
  handlers:
    - name: h
      include_tasks: blocks.yml
EOF_PB
# what both print that says what ran and how it ended (imc prints the
# included file's name before it loads it: those lines are left out)
summary() {
	sed -e 's/^ *//' "$1" "$2" | grep -e '^"msg"' -e '^ERROR!' -e '^PLAY RECAP' -e '^RUNNING HANDLER' \
		-e '^fatal:' -e "^The error appears to be in '[^']*': line [0-9]*"
}
# (a YAML error's wording is imc's own: libyaml's problem, not Python's
# JSON and YAML errors)
yaml_words() { if [ $p = p4 ]; then sed -e 's/^ERROR! .*/ERROR!/'; else cat; fi; }
for p in p1 p3 p4; do
	ansible-playbook $p.yml >"$TMPD/a.out" 2>"$TMPD/a.err"
	summary "$TMPD/a.out" "$TMPD/a.err" | yaml_words >"$TMPD/ans"
	expect_exit 1 "$p: the run ends" -- "$IMC" play $p.yml --no-fallback
	summary "$TMPD/out" "$TMPD/err" | yaml_words >"$TMPD/imc"
	expect_same_as_ansible "... where and as ansible-playbook ends it" grep -q '^ERROR!' "$TMPD/ans"
done
ansible-playbook p2.yml >"$TMPD/a.out" 2>"$TMPD/a.err"
summary "$TMPD/a.out" "$TMPD/a.err" >"$TMPD/ans"
expect_exit 1 "a missing file fails the host" -- "$IMC" play p2.yml --no-fallback
summary "$TMPD/out" "$TMPD/err" >"$TMPD/imc"
expect_same_as_ansible "... as in ansible-playbook: rescue runs, ignore_errors does not count" \
	grep -q 'rescued' "$TMPD/ans"
done_testing
