#!/bin/sh
# t4188: set_stats' custom stats as Ansible gathers and shows them with
# ANSIBLE_SHOW_CUSTOM_STATS: per host or for the run, aggregated (numbers
# added, True + True, strings and lists concatenated, mappings merged
# recursively, a value of another type dropped) or replaced, each loop
# item's data counted, over two plays; printed after the recap as the
# default callback prints them, and not at all without the setting.
# Compared live with ansible-playbook (scripts/install-deps installs it).
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/p.yml" <<'EOF_PB'
- hosts: all
  gather_facts: false
  tasks:
    - set_stats: { data: { my_int: 10, s: "a", l: [1], d: { x: 1, n: { a: 1 } }, b: true, f: 1.5 } }
    - set_stats: { data: { my_int: 15, s: "b", l: [2, 3], d: { y: 2, n: { b: 2 } }, b: true, f: 2 } }
    - set_stats: { data: { ph: "{{ inventory_hostname }}", cnt: 1 }, per_host: true }
    - set_stats: { data: { cnt: 5, repl: old }, per_host: true, aggregate: false }
    - set_stats: { data: { repl: new }, aggregate: false }
    - set_stats: { data: { it: "{{ item }}" } }
      loop: [1, 2, 3]
- hosts: h1
  gather_facts: false
  tasks:
    - set_stats: { data: { my_int: 1, cnt: 1 }, per_host: true }
EOF_PB
cd "$D" || exit 1
custom() { sed -n '/^CUSTOM STATS/,$p' "$1"; }
ANSIBLE_SHOW_CUSTOM_STATS=yes ANSIBLE_NOCOLOR=1 ansible-playbook -i h1,h2, -c local p.yml >"$TMPD/ans.out" 2>&1
custom "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "set_stats over two plays, ANSIBLE_SHOW_CUSTOM_STATS=yes" -- \
	env ANSIBLE_SHOW_CUSTOM_STATS=yes "$IMC" play -i h1,h2, -c local p.yml
custom "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... the same custom stats as ansible-playbook" grep -q 'RUN: ' "$TMPD/ans"
expect_exit 0 "the same without the setting" -- "$IMC" play -i h1,h2, -c local p.yml
if grep -q 'CUSTOM STATS' "$TMPD/out"; then not_ok "... shows no custom stats"; else ok "... shows no custom stats"; fi
done_testing
