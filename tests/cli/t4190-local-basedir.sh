#!/bin/sh
# t4190: under the local connection Ansible runs every command in the
# playbook's directory (its loader's basedir), wherever ansible-playbook
# was started: a play's task, a role's, an included and an imported
# file's, a delegated one's; relative paths (git's dest, made absolute
# against it as os.path.abspath does) land there. Run from another
# directory and compared live with ansible-playbook (scripts/install-deps
# installs it); git's clones are checked on disk.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
command -v git >/dev/null || { not_ok "needs git (scripts/install-deps)"; done_testing; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMPD"
git init -q -b main "$TMPD/origin" && (cd "$TMPD/origin" && git config user.email t@t && git config user.name t &&
	echo 1 >f && git add f && git commit -qm one) || { not_ok "the test's repository"; done_testing; exit 1; }
mkdir -p "$TMPD/elsewhere"
# pb TOOL: a fresh copy of the playbook for one tool
pb() {
	D="$TMPD/pb-$1"
	mkdir -p "$D/roles/r/tasks" "$D/sub"
	printf -- '- command: pwd\n  register: rr\n- debug: msg="role {{ rr.stdout | basename }}"\n' >"$D/roles/r/tasks/main.yml"
	printf -- '- command: pwd\n  register: ss\n- debug: msg="file {{ ss.stdout | basename }}"\n' >"$D/sub/t.yml"
	cat >"$D/p.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  roles: [r]
  tasks:
    - include_tasks: sub/t.yml
    - import_tasks: sub/t.yml
    - shell: pwd
      delegate_to: localhost
      register: d
    - debug: msg="delegated {{ d.stdout | basename }}"
    - git: { repo: "{{ origin }}", dest: co }
    - git: { repo: "{{ origin }}", dest: sub/dir/co2 }
    - git: { repo: "{{ origin }}", dest: ./co }
      register: again
    - debug: msg="again changed {{ again.changed }}"
EOF_PB
}
norm() { grep '"msg"' "$1" | sed 's/pb-[a-z]*/pb-X/'; }
pb ans
(cd "$TMPD/elsewhere" && ANSIBLE_NOCOLOR=1 ansible-playbook -i localhost, -c local -e "origin=$TMPD/origin" ../pb-ans/p.yml) >"$TMPD/ans.out" 2>&1
norm "$TMPD/ans.out" >"$TMPD/ans"
pb imc
cd "$TMPD/elsewhere" || exit 1
expect_exit 0 "a local play started from another directory" -- "$IMC" play -i localhost, -c local -e "origin=$TMPD/origin" ../pb-imc/p.yml
norm "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... every command ran in the playbook's directory, as under ansible-playbook" grep -q '"role pb-X"' "$TMPD/ans"
for t in ans imc; do
	[ -d "$TMPD/pb-$t/co/.git" ] && [ -d "$TMPD/pb-$t/sub/dir/co2/.git" ] && [ ! -e "$TMPD/elsewhere/co" ] &&
		ok "git's relative dests under the playbook's directory ($t)" ||
		not_ok "git's relative dests under the playbook's directory ($t)"
done
done_testing
