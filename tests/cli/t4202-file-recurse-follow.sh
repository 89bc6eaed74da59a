#!/bin/sh
# t4202: file state=directory recurse=true with follow=true also sets the
# mode, owner and group on what each link below the path points to, and
# walks into a linked directory, as Ansible's recursive_set_attributes
# does; follow=false leaves the targets alone, and a dangling link is
# skipped either way (before: follow was ignored under recurse, so the
# targets kept their modes). Compared live with ansible-playbook: the
# results and every mode and group on disk.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cd "$D" || exit 1
cat >r.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - file: { path: "{{ playbook_dir }}/t/top", recurse: true, follow: false, mode: a-x }
    - file: { path: "{{ playbook_dir }}/t/top", recurse: true, follow: true, mode: a-x }
    - file: { path: "{{ playbook_dir }}/t/top", recurse: true, follow: true, mode: a-x }
    - file: { path: "{{ playbook_dir }}/t/top", recurse: true, follow: true, group: nogroup }
    - file: { path: "{{ playbook_dir }}/t/top", recurse: true, follow: true, mode: '0750' }
EOF_PB
setup() {
	rm -rf t && mkdir -p t/top/sub t/dir/inner t/other
	touch t/file t/dir/foo t/dir/inner/bar t/other/baz t/top/sub/own
	chmod 0755 t/file t/dir t/dir/foo t/dir/inner t/dir/inner/bar t/other t/other/baz t/top/sub/own
	ln -s ../file t/top/to_file
	ln -s ../dir t/top/to_dir
	ln -s ../other t/dir/to_other
	ln -s does_not_exist t/top/dangling
}
tree() { find t -printf '%p %y %m %g\n' | sort; }
setup
ansible-playbook r.yml 2>/dev/null | grep -E '^(fatal|changed|ok):' >"$TMPD/ans"
tree >>"$TMPD/ans"
setup
expect_exit 0 "recursion without and with following links" -- "$IMC" play r.yml --no-fallback
grep -E '^(fatal|changed|ok):' "$TMPD/out" >"$TMPD/imc"
tree >>"$TMPD/imc"
expect_same_as_ansible "... the same results, modes and groups as ansible-playbook" grep -q 't/other/baz f 750 nogroup' "$TMPD/ans"
done_testing
