#!/bin/sh
# t4191: imc play runs under the Ansible settings ansible-playbook would
# (ANSIBLE_* variables, ansible.cfg found as Ansible finds it): those imc
# honours change its run as they change Ansible's (force_handlers,
# roles_path, show_custom_stats, from either origin), one that changes
# only what is printed is warned about, one given its default value
# changes nothing, and any other stops the run
# before a task ran, naming the setting and where it comes from (exit 65
# under --no-fallback; otherwise the playbook goes whole to
# ansible-playbook, whose results are then the run's). A module in
# ANSIBLE_LIBRARY that replaces one imc runs natively is refused too.
# The honoured ones are compared live with ansible-playbook
# (scripts/install-deps installs it and its ansible-config).
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D/myroles/r1/tasks" "$D/lib"
cat >"$D/h.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - command: "true"
      notify: h
    - fail: { msg: boom }
  handlers:
    - name: h
      debug: { msg: "handler ran" }
EOF_PB
cat >"$D/touch.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - file: { path: "{{ playbook_dir }}/touched", state: touch }
EOF_PB
cat >"$D/role.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  roles: [r1]
  tasks:
    - set_stats: { data: { n: 2 } }
EOF_PB
echo '- debug: { msg: "r1 from myroles" }' >"$D/myroles/r1/tasks/main.yml"
cd "$D" || exit 1
# the lines that tell whether the handler and the role ran, and the stats
ran() { grep -E '"msg": "(handler ran|r1 from myroles)"|^CUSTOM STATS|RUN: ' "$1"; }

# ---- honoured: the same run as ansible-playbook's ----
ANSIBLE_FORCE_HANDLERS=1 ansible-playbook h.yml >"$TMPD/ans.out" 2>&1
ran "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 1 "ANSIBLE_FORCE_HANDLERS=1: the play fails" -- env ANSIBLE_FORCE_HANDLERS=1 "$IMC" play h.yml --no-fallback
ran "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... and its handler runs, as under ansible-playbook" grep -q 'handler ran' "$TMPD/ans"
expect_exit 1 "without it" -- "$IMC" play h.yml --no-fallback
expect_no_grep 'handler ran' "$TMPD/out" "... the handler does not run"

printf '[defaults]\nforce_handlers = True\nroles_path = %s/myroles\nshow_custom_stats = yes\n' "$D" >"$D/ansible.cfg"
ansible-playbook h.yml >"$TMPD/ans.out" 2>&1
ansible-playbook role.yml >>"$TMPD/ans.out" 2>&1
ran "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 1 "ansible.cfg in the playbook's directory: force_handlers" -- "$IMC" play h.yml --no-fallback
cp "$TMPD/out" "$TMPD/imc.out"
expect_exit 0 "... roles_path and show_custom_stats" -- "$IMC" play role.yml --no-fallback
cat "$TMPD/out" >>"$TMPD/imc.out"
ran "$TMPD/imc.out" >"$TMPD/imc"
expect_same_as_ansible "... each as ansible-playbook honours it" grep -q 'r1 from myroles' "$TMPD/ans"
expect_no_grep 'warning|error' "$TMPD/err" "... with nothing to say about them"
rm "$D/ansible.cfg"
expect_exit 0 "ANSIBLE_CONFIG names the file elsewhere" -- env ANSIBLE_CONFIG="$TMPD/elsewhere.cfg" sh -c \
	"printf '[defaults]\nroles_path = $D/myroles\n' >'$TMPD/elsewhere.cfg' && '$IMC' play role.yml --no-fallback"
expect_grep 'r1 from myroles' "$TMPD/out" "... and its roles_path is searched"
expect_exit 0 "ANSIBLE_ROLES_PATH, relative to where imc runs" -- env ANSIBLE_ROLES_PATH=myroles "$IMC" play role.yml --no-fallback
expect_grep 'r1 from myroles' "$TMPD/out" "... finds the role"

# ---- only what is printed: a warning ----
expect_exit 0 "a stdout_callback of another name" -- env ANSIBLE_STDOUT_CALLBACK=yaml "$IMC" play touch.yml --no-fallback
expect_grep "^\\[WARNING\\]: Ansible setting DEFAULT_STDOUT_CALLBACK = yaml \\(env: ANSIBLE_STDOUT_CALLBACK\\) changes only what is printed" \
	"$TMPD/err" "... is warned about, naming the setting and its origin"
expect_exit 0 "ANSIBLE_STRATEGY=linear is Ansible's default" -- env ANSIBLE_STRATEGY=linear "$IMC" play touch.yml --no-fallback
expect_no_grep 'warning' "$TMPD/err" "... nothing to say"
expect_exit 0 "settings given their default values (the assert target's)" -- env ANSIBLE_STDOUT_CALLBACK=default \
	ANSIBLE_FORCE_COLOR=0 ANSIBLE_GATHERING=implicit ANSIBLE_JINJA2_NATIVE=false "$IMC" play touch.yml --no-fallback
expect_no_grep 'warning|error' "$TMPD/err" "... change nothing, and nothing is said"
expect_exit 0 "a variable that is no setting of Ansible" -- env ANSIBLE_IMC_T4191_NOTHING=1 "$IMC" play touch.yml --no-fallback
expect_no_grep 'warning' "$TMPD/err" "... is ignored, as Ansible ignores it"

# ---- refused: before any task, naming the setting ----
rm -f "$D/touched"
expect_exit 65 "ANSIBLE_STRATEGY=debug under --no-fallback" -- env ANSIBLE_STRATEGY=debug "$IMC" play touch.yml --no-fallback
expect_grep 'unsupported Ansible setting DEFAULT_STRATEGY = debug \(env: ANSIBLE_STRATEGY\)' "$TMPD/err" "... names it"
[ ! -e "$D/touched" ] && ok "... and no task ran" || not_ok "the task ran"
printf '[defaults]\ngathering = explicit\n' >"$D/ansible.cfg"
expect_exit 65 "gathering = explicit in ansible.cfg" -- "$IMC" play touch.yml --no-fallback
expect_grep "unsupported Ansible setting DEFAULT_GATHERING = explicit \\($D/ansible.cfg\\)" "$TMPD/err" "... names the file"
rm "$D/ansible.cfg"
expect_exit 0 "ANSIBLE_GATHERING=explicit with the fallback allowed" -- \
	env IMC_NO_FALLBACK= ANSIBLE_GATHERING=explicit "$IMC" play touch.yml
expect_grep 'DEFAULT_GATHERING = explicit \(env: ANSIBLE_GATHERING\).*running it under ansible-playbook' "$TMPD/err" \
	"... the playbook goes whole to ansible-playbook"
[ -e "$D/touched" ] && ok "... which ran it" || not_ok "the fallback did not run the task"
echo 'print("shadow")' >"$D/lib/copy.py"
expect_exit 65 "ANSIBLE_LIBRARY holding a copy module" -- env ANSIBLE_LIBRARY="$D/lib" "$IMC" play touch.yml --no-fallback
expect_grep "its $D/lib/copy.py replaces a module imc runs natively" "$TMPD/err" "... is refused, naming the file"
mv "$D/lib/copy.py" "$D/lib/mymodule.py"
expect_exit 0 "ANSIBLE_LIBRARY with a module of its own name" -- env ANSIBLE_LIBRARY="$D/lib" "$IMC" play touch.yml --no-fallback
done_testing
