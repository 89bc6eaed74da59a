#!/bin/sh
# t4022: an IM-style RADL on the local cloud (real SSH), as issue 17's
# "done when" has it: its role comes from a git URL in
# disk.0.applications (a bare repository this test makes: no network), its
# configure includes another configure by NAME.yml, as IM writes them, and
# the role includes a task file with a skipped task imc does not implement
# and one that runs under Ansible. The infrastructure ends configured and
# getcontmsg lists the tasks Ansible ran.
. "$top_srcdir/tests/cli/lib.sh"
require_long
require_netns
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || { not_ok "needs sshd (openssh-server)"; done_testing; exit 1; }
command -v ansible-playbook >/dev/null || { not_ok "needs ansible-playbook (package ansible)"; done_testing; exit 1; }
command -v git >/dev/null || { not_ok "needs git"; done_testing; exit 1; }
# this test is about the fallback itself (lib.sh forbids it by default)
IMC_NO_FALLBACK=0
export IMC_NO_FALLBACK
ID=""
at_exit '[ -n "$ID" ] && "$IMC" destroy "$ID" >/dev/null 2>&1'

# the role, in a bare git repository reached by a file:// URL
W="$TMPD/work"
mkdir -p "$W/tasks" "$W/meta"
printf 'galaxy_info:\n  author: t4022\n  description: a role from git\n' >"$W/meta/main.yml"
cat >"$W/tasks/main.yml" <<'EOY'
- name: from the role
  copy: dest=/var/tmp/t4022-role content=role
- include_tasks: extra.yml
EOY
cat >"$W/tasks/extra.yml" <<'EOY'
- name: never on this host
  community.general.pam_limits: domain=ann limit_type=soft limit_item=core value=0 dest=/var/tmp/t4022-never
  when: IM_NODE_NUM | int > 100
- name: limits under Ansible
  community.general.pam_limits: domain=joe limit_type=soft limit_item=nofile value=64 dest=/var/tmp/t4022-limits
EOY
(cd "$W" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm role &&
	git clone -q --bare "$W" "$TMPD/fbrole.git") && ok "a git repository with the role" \
	|| { not_ok "cannot make the git repository"; done_testing; exit 1; }

cat >"$TMPD/im.radl" <<EOR
network net ()
system front (
    net_interface.0.connection = 'net' and
    net_interface.0.dns_name = 'front' and
    disk.0.applications contains (name = 'ansible.roles.git+file://$TMPD/fbrole.git|fbrole')
)
configure helper (
@begin
- name: from the other configure
  copy: dest=/var/tmp/t4022-helper content=helper
@end
)
configure front (
@begin
- roles:
    - fbrole
  tasks:
    - include: helper.yml
@end
)
contextualize (
    system front configure front step 1
)
deploy front 1
EOR
# the static check of 'imc plan' (and of 'imc create') lists the tasks
# Ansible will run, at their RADL lines (the role above is fetched only
# when the infrastructure is contextualized: its tasks are listed then)
cat >"$TMPD/plan.radl" <<EOR
network net ()
system front (
    net_interface.0.connection = 'net'
)
configure front (
@begin
- tasks:
    - name: native
      copy: dest=/var/tmp/x content=x
    - name: static fallback
      community.general.pam_limits: domain=joe limit_type=soft limit_item=nofile value=64 dest=/var/tmp/l
@end
)
deploy front 1
EOR
expect_exit 0 "imc plan" -- "$IMC" plan "$TMPD/plan.radl"
expect_grep "plan.radl:10:1: warning: configure 'front': task 'static fallback' will run under Ansible \(module 'community.general.pam_limits'" \
	"$TMPD/err" "imc plan lists the task Ansible will run, at its RADL line"
expect_no_grep "'native'" "$TMPD/err" "and only those"

expect_exit 0 "create on the local cloud" -- "$IMC" create "$TMPD/im.radl"
ID=$(head -1 "$TMPD/out")
expect_grep '^The infrastructure is in state: configured$' "$TMPD/out" "configured"
expect_exit 0 "getcontmsg" -- "$IMC" getcontmsg "$ID"
cp "$TMPD/out" "$TMPD/contmsg"
expect_grep "configure 'front': tasks run by Ansible \(fallback\) on front[^:]*: 'fbrole : limits under Ansible'" \
	"$TMPD/contmsg" "getcontmsg lists the task Ansible ran, on which host"
expect_exit 0 "what the recipes did" -- "$IMC" ssh "$ID" 0 -- \
	'cat /var/tmp/t4022-role /var/tmp/t4022-helper; echo; cat /var/tmp/t4022-limits; [ -e /var/tmp/t4022-never ] || echo no-never'
expect_grep '^rolehelper$' "$TMPD/out" "the role from git and the included configure ran"
expect_grep '^joe[[:space:]]+soft[[:space:]]+nofile[[:space:]]+64' "$TMPD/out" "the task Ansible ran"
expect_grep '^no-never$' "$TMPD/out" "the skipped task did not run"
expect_exit 0 "destroy" -- "$IMC" destroy "$ID"
ID=""
done_testing
