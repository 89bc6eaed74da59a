#!/bin/sh
# t4200: copy without force leaves a dest that is a dangling link alone
# (Ansible's action stats dest without following it unless follow is
# set), and with follow: true goes on as for a missing dest. Compared live
# with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
echo hi >"$D/src.txt"
cat >"$D/p.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  tasks:
    - file: path={{ s }}/dest src=nowhere state=link force=true
    - copy: {src: src.txt, dest: "{{ s }}/dest", force: false, mode: u+x}
      check_mode: true
      register: r1
    - copy: {src: src.txt, dest: "{{ s }}/dest", force: false, follow: true}
      check_mode: true
      register: r2
    - debug: msg="{{ [r1, r2] | map('dict2items') | map('rejectattr', 'key', 'in', ['diff', 'invocation', 'checksum']) | map('items2dict') | list }}"
EOF
cd "$D" || exit 1
mkdir "$TMPD/sa" "$TMPD/si"
ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local -e "s=$TMPD/sa" p.yml >"$TMPD/ans.out" 2>&1
sed -n '/TASK \[debug/,$p' "$TMPD/ans.out" | sed "s|$TMPD/sa|S|g" >"$TMPD/ans"
expect_exit 0 "copy without force onto a dangling link" -- "$IMC" play -c local -e "s=$TMPD/si" p.yml
sed -n '/TASK \[debug/,$p' "$TMPD/out" | sed "s|$TMPD/si|S|g" >"$TMPD/imc"
expect_same_as_ansible "... the results as ansible-playbook's" grep -q '"changed": false' "$TMPD/ans"
test "$(readlink "$TMPD/si/dest")" = nowhere && ok "... the link left as it was" || not_ok "... the link left as it was"
done_testing
