#!/bin/sh
# t4206: a seeded random or shuffle draws what Ansible draws: Python's
# random.Random(seed) (MT19937, a string seed keyed with its SHA-512
# digest, an integer by its absolute value), randrange(start, end, step)
# and choice() as Python reduces them, shuffle as Random.shuffle; imc drew
# its own numbers, so `59 | random(seed=inventory_hostname)` (a cron
# minute spread by host) differed from Ansible's, and shuffle ignored its
# seed. Compared live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >r.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  vars:
    names: [alpha, beta.example.org, "ñandú", "", x]
  tasks:
    - debug: msg="{{ item }} {{ 59 | random(seed=item) }} {{ 9223372036854775807 | random(seed=item) }} {{ 1000000 | random(start=5, step=7, seed=item) }} {{ ['a','b','c','d','e'] | random(seed=item) }} {{ [1,2,3,4,5,6,7,8,9,10] | shuffle(seed=item or "e") }} {{ 2**31 | random(seed=item) }}"
      loop: "{{ names }}"
    - debug: msg="{{ 100 | random(seed=42) }} {{ 100 | random(seed=-42) }} {{ 100 | random(seed=0) }} {{ 100 | random(seed=2**40+3) }} {{ 100 | random(seed=true) }} {{ range(20) | shuffle(seed=7) }}"
EOF_PB
ansible-playbook r.yml 2>/dev/null | grep '"msg"' >"$TMPD/ans"
expect_exit 0 "seeded random and shuffle" -- "$IMC" play r.yml --no-fallback
grep '"msg"' "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the numbers, choices and orders ansible-playbook draws" grep -q 'alpha 1 5602055346160441080' "$TMPD/ans"
printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: msg="{{ 10 | random(seed=1.5) }}"\n' >f.yml
expect_exit 1 "a float seed" -- "$IMC" play f.yml --no-fallback
expect_grep 'random: a seed that is neither a string nor an integer is not supported by imc' "$TMPD/out" "... fails the task, saying so"
cat >m.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug:
        msg: "{{ {'a': 1, 'b': 2} | random(seed=5) }}"
EOF_PB
expect_exit 1 "random of a mapping" -- "$IMC" play m.yml --no-fallback
expect_grep 'random: a mapping cannot be indexed by position' "$TMPD/out" "... fails the task, as Python's choice() does"
done_testing
