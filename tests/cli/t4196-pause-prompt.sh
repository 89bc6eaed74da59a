#!/bin/sh
# t4196: pause as Ansible's action runs it without a terminal to answer:
# with no time, the prompt ("[TASK]" and its text, "(output is hidden)"
# without echo), the warning that it does not wait (once per task, as
# each of Ansible's workers warns), no wait, "Paused for 0.0 minutes";
# with seconds, "Pausing for N seconds" and how to interrupt, then the
# prompt; the results with start and stop; its arguments validated as
# Ansible's action does (seconds and minutes as int(), exclusive, echo a
# boolean, no other parameter). Compared live with
# ansible-playbook, stdin not a terminal, the times apart. (Before: a
# prompt was refused, no time waited a second, nothing was printed.)
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >pz.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: no
  tasks:
    - pause:
    - name: named one
      pause: { prompt: "Say something", echo: false }
      register: r
    - debug: var=r
    - pause: { seconds: 1, prompt: "wait" }
      register: r2
    - debug: var=r2
EOF_PB
# the clock's readings, and how long a second's pause took, apart
untimed() { sed -E -e 's/"(start|stop)": "[0-9: .-]*"/"\1": "T"/' -e 's/Paused for 1\.[0-9]+ seconds/Paused for 1.x seconds/'; }
ansible-playbook pz.yml </dev/null 2>&1 | grep -v -e 'No inventory was parsed' -e 'provided hosts list is empty' \
	-e "implicit localhost does not match" | untimed >"$TMPD/ans"
expect_exit 0 "pauses without a terminal" -- sh -c "'$IMC' play pz.yml --no-fallback </dev/null"
"$IMC" play pz.yml --no-fallback </dev/null 2>&1 | untimed >"$TMPD/imc"
expect_same_as_ansible "... printed and answered as ansible-playbook does" grep -q 'Not waiting for response' "$TMPD/ans"
cat >pv.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: no
  vars: { word: hello }
  tasks:
    - pause: { seconds: hello }
      ignore_errors: yes
    - pause: { seconds: "{{ word }}" }
      ignore_errors: yes
    - pause: { echo: notbool, seconds: 1 }
      ignore_errors: yes
    - pause: { seconds: 1, minutes: 1 }
      ignore_errors: yes
    - pause: { seconds: "1.7" }
      ignore_errors: yes
    - pause: { seconds: 1, zz: 1, aa: 2 }
      ignore_errors: yes
    - pause: { seconds: " 1 " }
      register: r
    - debug: var=r.stdout
EOF_PB
# Ansible lists the valid booleans from a Python set: in any order
results() { grep -E '^fatal|"r.stdout"' | sed -E 's/Valid booleans include: .*/Valid booleans include: .../; s/Paused for 1\.[0-9]+/Paused for 1.x/'; }
ansible-playbook pv.yml 2>/dev/null | results >"$TMPD/ans"
"$IMC" play pv.yml --no-fallback 2>/dev/null | results >"$TMPD/imc"
expect_same_as_ansible "bad arguments refused in Ansible's words" grep -q 'unable to convert to int' "$TMPD/ans"
done_testing
