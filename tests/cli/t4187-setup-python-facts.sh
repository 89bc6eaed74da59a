#!/bin/sh
# t4187: the python facts (ansible_facts.python: executable, version,
# version_info, type, has_sslcontext; ansible_python_version) are those of
# the interpreter that runs Ansible's modules: the one Ansible's discovery
# finds (/usr/bin/python3 on Debian, whatever python3 is first on PATH),
# or the host's ansible_python_interpreter. Compared live with
# ansible-playbook (scripts/install-deps installs it), both ways.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
[ -x /usr/bin/python3 ] || { not_ok "needs /usr/bin/python3 (Debian's python3, a dependency of ansible)"; done_testing; exit 1; }
D="$TMPD/pb"
mkdir -p "$D/bin"
# another python3 first on PATH, which discovery must not take
ln -s /usr/bin/python3 "$D/bin/python3"
cat >"$D/p.yml" <<'EOF_PB'
- hosts: all
  tasks:
    - debug: var=ansible_facts.python
    - debug: var=ansible_python_version
EOF_PB
cd "$D" || exit 1
norm() { sed -n '/^TASK \[debug/,/^PLAY RECAP/p' "$1" | grep -v '^PLAY RECAP'; }
for how in discovered "ansible_python_interpreter=$D/bin/python3"; do
	set -- -i localhost, -c local
	[ "$how" = discovered ] || set -- "$@" -e "$how"
	PATH="$D/bin:$PATH" ANSIBLE_NOCOLOR=1 ansible-playbook "$@" p.yml >"$TMPD/ans.out" 2>&1
	norm "$TMPD/ans.out" >"$TMPD/ans"
	expect_exit 0 "python facts, interpreter $how" -- env PATH="$D/bin:$PATH" "$IMC" play "$@" p.yml
	norm "$TMPD/out" >"$TMPD/imc"
	expect_same_as_ansible "... the same facts as ansible-playbook" grep -q '"executable"' "$TMPD/ans"
done
done_testing
