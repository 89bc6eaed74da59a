#!/bin/sh
# t4212: copy's arguments as Ansible's copy action checks them, in its
# order (an empty src or a null content is none; an empty dest is none),
# and mode=preserve of a controller file, which the action replaces by
# the file's own mode (a single file and the files of a directory), and
# with remote_src, which takes the node file's. imc looked for a src named
# '' and refused mode=preserve. Compared live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D/tree"
cd "$D" || exit 1
printf 'x\n' >f
chmod 0741 f
printf 'y\n' >tree/a
chmod 0604 tree/a
cat >p.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - copy: { src: f, dest: "{{ out }}/g", mode: preserve }
      register: r
    - debug: msg="preserve {{ r.mode }} {{ r.changed }}"
    - copy: { src: tree, dest: "{{ out }}/", mode: preserve }
    - stat: { path: "{{ out }}/tree/a" }
      register: s
    - debug: msg="preserve in a tree {{ s.stat.mode }}"
    - copy: { src: "{{ playbook_dir }}/f", dest: "{{ out }}/r", mode: preserve, remote_src: true }
      register: r
    - debug: msg="preserve remote_src {{ r.mode }} {{ r.changed }}"
    - copy: { src: '', dest: "{{ out }}/h" }
      register: r
      ignore_errors: true
    - debug: msg="empty src {{ r.msg }}"
    - copy: { content: null, dest: "{{ out }}/h" }
      register: r
      ignore_errors: true
    - debug: msg="null content {{ r.msg }}"
    - copy: { src: f, dest: '' }
      register: r
      ignore_errors: true
    - debug: msg="empty dest {{ r.msg }}"
EOF_PB
mkdir -p "$TMPD/a" "$TMPD/i"
ansible-playbook p.yml -e "out=$TMPD/a" >"$TMPD/a.out" 2>&1
sed -e 's/^ *//' "$TMPD/a.out" | grep '^"msg"' >"$TMPD/ans"
expect_exit 0 "copy's argument checks and mode=preserve" -- "$IMC" play p.yml --no-fallback -e "out=$TMPD/i"
sed -e 's/^ *//' "$TMPD/out" | grep '^"msg"' >"$TMPD/imc"
expect_same_as_ansible "... as ansible-playbook's copy action" grep -q 'preserve 0741 True' "$TMPD/ans"
done_testing
