#!/bin/sh
# t4184: lookup('inventory_hostnames', PATTERN) selects hosts as Ansible's
# plugin does, from the groups variable: unions by comma or colon in
# pattern order, &intersections and !exclusions after them, globs and
# ~regexes over group and host names, subscripts ([i], [-i], [i:j],
# [i:], [i-j]), the implicit localhost, a host:port that is one address,
# and [] for a pattern error (a bad regex, an index past the hosts).
# Compared live with ansible-playbook (scripts/install-deps installs it)
# on the same inventory and playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/inventory" <<'EOF_INV'
nogroup01
nogroup02

[group01]
test01
test05
test03
test02
test04

[group02]
test03
test04
test200
test201

[parent:children]
group02
EOF_INV
cat >"$D/p.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  vars:
    pats: ['all', 'group02,group01', 'group01:&group02', '!group01', 'group0*', 'test0[1-3]', '~test2.*',
           '~(', 'group01[1]', 'group01[-1]', 'group01[1:3]', 'group01[2:]', 'group01[1-2]', 'group01[0:0]',
           'group01[9]', 'localhost', '127.0.0.1', 'test01:test200', 'test01, nogroup02 ,group02:!test03',
           'ungrouped', 'nogroup0?', 'ungrouped:&all:!nogroup01', '*', 'host:22', 'test0*:!group01',
           'group01:group01', 'parent', '~gr.*1', 'doesnotexist', '']
  tasks:
    - debug:
        msg: "{{ item }} -> {{ lookup('inventory_hostnames', item, wantlist=true) }}"
      loop: "{{ pats }}"
    - debug:
        msg: "{{ query('inventory_hostnames', 'group01[0]', 'group02[0]') }}"
EOF_PB
cd "$D" || exit 1
ANSIBLE_NOCOLOR=1 ansible-playbook -i inventory p.yml >"$TMPD/ans.out" 2>&1
grep '"msg"' "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "inventory_hostnames over groups, globs, regexes and subscripts" -- "$IMC" play -i inventory p.yml
grep '"msg"' "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "the same hosts as ansible-playbook for every pattern ($(wc -l <"$TMPD/ans") results)" test -s "$TMPD/ans"
done_testing
