#!/bin/sh
# t4005: registered results are data, as in Ansible: a '{{' in a command's
# output is never templated again when the result is read (in a later
# task's arguments or in until).
. "$top_srcdir/tests/cli/lib.sh"
cat >"$TMPD/pb.yml" <<'PB'
- hosts: all
  gather_facts: false
  tasks:
    - name: output with braces
      command: echo "{{ '{{' }} undefined_thing {{ '}}' }}"
      register: r
    - name: read it
      debug: msg="{{ r.stdout }}"
    - name: until reads it too
      command: echo "{{ '{{' }} nope {{ '}}' }}"
      register: u
      until: "'nope' in u.stdout"
      retries: 1
      delay: 0
PB
expect_exit 0 "the play succeeds" -- "$IMC" play --no-fallback --connection local "$TMPD/pb.yml"
expect_grep '"msg": "\{\{ undefined_thing \}\}"' "$TMPD/out" "the registered text is shown as it was"
expect_grep 'ok=3 +changed=2 +unreachable=0 +failed=0' "$TMPD/out" "no task failed"
done_testing
