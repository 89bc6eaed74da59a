#!/bin/sh
# t4182: ansible_managed exists only where a template is rendered (the
# template module, the template lookup), over a variable of the same name,
# as in ansible-core 2.14.18 (imc defined it for every task); expected
# lines recorded with `ansible-playbook -i localhost, -c local am.yml`.
. "$top_srcdir/tests/cli/lib.sh"
D="$TMPD/pb"
mkdir -p "$D/out"
printf 'm={{ ansible_managed }}\n' >"$D/am.j2"
cat >"$D/am.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  tasks:
    - debug:
        msg: "{{ ansible_managed | default('undef') }}"
    - template:
        src: am.j2
        dest: "{{ out }}/am.txt"
    - debug:
        msg: "{{ lookup('template', 'am.j2') }}|{{ lookup('file', out + '/am.txt') }}"
- hosts: localhost
  gather_facts: false
  vars:
    ansible_managed: mine
  tasks:
    - debug:
        msg: "{{ ansible_managed }}|{{ lookup('template', 'am.j2') }}"
    - template:
        src: am.j2
        dest: "{{ out }}/am2.txt"
    - debug:
        msg: "{{ lookup('file', out + '/am2.txt') }}"
EOF
cat >"$D/expected" <<'EOF'
    "msg": "undef"
    "msg": "m=Ansible managed\n|m=Ansible managed"
    "msg": "mine|m=Ansible managed\n"
    "msg": "m=Ansible managed"
localhost                  : ok=6    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOF
expect_exit 0 "ansible_managed in and out of templates" -- "$IMC" play -c local "$D/am.yml" -e "out=$D/out"
grep -E '^    "msg"|^localhost ' "$TMPD/out" >"$TMPD/got"
if diff -u "$D/expected" "$TMPD/got" >"$TMPD/diff"; then ok "... as ansible-playbook"
else not_ok "... as ansible-playbook"; sed 's/^/#   /' "$TMPD/diff"; fi
done_testing
