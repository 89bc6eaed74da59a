#!/bin/sh
# t2008: 'imc create' and 'imc plan' load every recipe the contextualization
# will run before any cloud call. A recipe that cannot load (a missing role,
# invalid YAML, an Ansible Vault recipe without a password or with a wrong
# one, a static import of a file that does not exist, a YAML error inside a
# role, an error inside another configure imported as NAME.yml, an error in
# a Vault recipe once decrypted) fails both commands with exit 65
# and the RADL line, records no infrastructure and calls no cloud: the dummy
# cloud's call log (IMC_DUMMY_LOG) stays empty, and so does the request log
# of the local EC2 endpoint. A good recipe using a role next to the RADL and
# IM's NAME.yml of other configures still creates.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

# the precheck's temporary directory must go away: it is looked for here
export TMPDIR="$TMPD/tmp"
mkdir "$TMPDIR"
CALLS="$TMPD/dummy-calls"
export IMC_DUMMY_LOG="$CALLS"
# a role of the RADL's own roles/ directory (the worker's role path)
mkdir -p "$TMPD/roles/myrole/tasks" "$TMPD/roles/badrole/tasks"
printf '%s\n' '- debug: msg="from myrole"' >"$TMPD/roles/myrole/tasks/main.yml"
printf '%s\n' '- debug: msg="a"' '  - debug: msg="b"' >"$TMPD/roles/badrole/tasks/main.yml"

# radl NAME IMAGE: a one-VM RADL whose configure 'node' is stdin, written
# to $TMPD/NAME.radl; other configures come from $EXTRA.
EXTRA=
radl() {
	{
		printf "system node (\n    disk.0.image.url = '%s' and\n    disk.0.os.credentials.username = 'ubuntu'\n)\n" "$2"
		printf 'configure node (\n@begin\n'
		cat
		printf '@end\n)\n'
		[ -z "$EXTRA" ] || printf '%s\n' "$EXTRA"
		printf 'deploy node 1\n'
	} >"$TMPD/$1.radl"
}
# line NAME PATTERN: the first line of NAME.radl matching PATTERN
line() { grep -n -m1 -e "$2" "$TMPD/$1.radl" | cut -d: -f1; }

# check_case NAME LINE MESSAGE-ERE [FILE]: the recipe of NAME.radl must fail
# create and plan with MESSAGE at LINE of the RADL (or of FILE), on the
# dummy cloud and on EC2, without a cloud call.
check_case() {
	local name=$1 at=$2 msg=$3 f="$TMPD/$1.radl" in=${4:-}
	rm -f "$CALLS"
	expect_exit 65 "$name: create fails as a RADL error" -- "$IMC" create "$f"
	expect_grep "^${in:-$f}:$at:[0-9]+: error: $msg" "$TMPD/err" "$name: create names line $at"
	if [ -s "$CALLS" ]; then not_ok "$name: no call to the dummy cloud"; sed 's/^/#   /' "$CALLS"; else
		ok "$name: no call to the dummy cloud"; fi
	expect_exit 0 "$name: list" -- "$IMC" list
	expect_grep '^No Infrastructures\.$' "$TMPD/out" "$name: no infrastructure recorded"
	expect_exit 65 "$name: plan fails the same way" -- "$IMC" plan "$f"
	expect_grep "^${in:-$f}:$at:[0-9]+: error: $msg" "$TMPD/err" "$name: plan names line $at"
	expect_no_grep . "$TMPD/out" "$name: plan prints no plan"
	# the same recipe for EC2: not one request reaches the endpoint
	sed "s|'dummy://'|'$IMG'|" "$f" >"$TMPD/ec2-$name.radl"
	: >"$EP_LOG"
	expect_exit 65 "$name: create on ec2 fails as a RADL error" -- \
		"$IMC" -a "$TMPD/auth.dat" create "$TMPD/ec2-$name.radl"
	expect_grep "^${in:-$TMPD/ec2-$name.radl}:$at:[0-9]+: error: $msg" "$TMPD/err" "$name: ec2 create names line $at"
	expect_eq "$(wc -l <"$EP_LOG" | tr -d ' ')" 0 "$name: no request reached the EC2 endpoint"
}

start_endpoint
printf '%s\n' "id = aws; $AUTH" >"$TMPD/auth.dat"

radl role dummy:// <<'EOF'
---
- roles:
    - nosuchrole
EOF
check_case role "$(line role '^@begin')" "configure 'node': the role 'nosuchrole' was not found"
expect_grep "^$TMPD/ec2-role.radl:$(line role nosuchrole):[0-9]+: note: role 'nosuchrole' is used here" \
	"$TMPD/err" "role: a note gives the recipe's own line"

radl yaml dummy:// <<'EOF'
---
- tasks:
    - debug: msg="a"
     - debug: msg="b"
EOF
check_case yaml "$(line yaml '^configure node')" "the recipe of configure 'node' is not valid YAML"

radl vault dummy:// <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
66373337376135613262376333346536323764333138616134663939663935656435366633623839
6264663032666363363766366365396130316334353231350a343332373433336130346632363161
EOF
check_case vault "$(line vault ANSIBLE_VAULT)" \
	"configure 'node': the recipe is encrypted with Ansible Vault and no vault password is available"

radl import dummy:// <<'EOF'
---
- tasks:
    - debug: msg="first"
    - import_tasks: nothere.yml
EOF
check_case import "$(line import nothere)" "configure 'node': cannot find tasks file 'nothere.yml'"

radl rolefile dummy:// <<'EOF'
---
- roles:
    - badrole
EOF
check_case rolefile 2 "configure 'node': invalid YAML" "$TMPD/roles/badrole/tasks/main.yml"
expect_grep "^$TMPD/ec2-rolefile.radl:$(line rolefile '^@begin'):[0-9]+: note: while loading configure 'node'" \
	"$TMPD/err" "rolefile: a note gives the configure's RADL line"

# an error inside another configure, imported as NAME.yml, is at its own RADL line
EXTRA=$(printf 'configure common (\n@begin\n- debug: msg="common"\n- import_tasks: missing2.yml\n@end\n)')
radl cross dummy:// <<'EOF'
---
- tasks:
    - import_tasks: common.yml
EOF
EXTRA=
check_case cross "$(line cross missing2)" "configure 'node': cannot find tasks file 'missing2.yml'"

# A Vault recipe with the systems' vault.password is decrypted (as IM
# does with Ansible's library; ansible-vault encrypts it) and checked like any
# other; a wrong password fails; the password shows nowhere.
VPW='Vault-Pw/for+t2008'
printf '%s\n' "$VPW" >"$TMPD/vpw"
# vault_radl NAME PASSWORD: NAME.radl with stdin encrypted as configure 'node'
vault_radl() {
	cat >"$TMPD/$1.plain"
	ansible-vault encrypt --vault-password-file "$TMPD/vpw" --output "$TMPD/$1.enc" "$TMPD/$1.plain" >/dev/null 2>&1 ||
		not_ok "ansible-vault encrypts the test recipe"
	{
		printf "system node (\n    disk.0.image.url = 'dummy://' and\n    vault.password = '%s'\n)\n" "$2"
		printf 'configure node (\n@begin\n'
		cat "$TMPD/$1.enc"
		printf '@end\n)\ndeploy node 1\n'
	} >"$TMPD/$1.radl"
}
vault_radl vaultrole "$VPW" <<'EOF'
---
- roles:
    - nosuchrole3
EOF
rm -f "$CALLS"
expect_exit 65 "vaultrole: create of a decrypted recipe naming a missing role fails" -- "$IMC" create "$TMPD/vaultrole.radl"
expect_grep "^$TMPD/vaultrole.radl:$(line vaultrole '^@begin'):[0-9]+: error: configure 'node': the role 'nosuchrole3' was not found" \
	"$TMPD/err" "vaultrole: the error names the configure's RADL line"
expect_grep "^configure 'node' \(decrypted\):3:[0-9]+: note: role 'nosuchrole3' is used here" "$TMPD/err" \
	"vaultrole: the note names the line of the decrypted recipe"
if [ -s "$CALLS" ]; then not_ok "vaultrole: no call to the dummy cloud"; else ok "vaultrole: no call to the dummy cloud"; fi
expect_no_grep "$VPW" "$TMPD/err" "vaultrole: the vault password is not shown"
vault_radl vaultgood "$VPW" <<'EOF'
---
- roles:
    - myrole
  tasks:
    - debug: msg="secret recipe"
EOF
expect_exit 0 "vaultgood: plan of a good encrypted recipe" -- "$IMC" plan "$TMPD/vaultgood.radl"
expect_no_grep "$VPW" "$TMPD/out" "vaultgood: the vault password is not shown"
vault_radl vaultwrong 'not-the-password' </dev/null
expect_exit 65 "vaultwrong: a wrong vault.password fails plan" -- "$IMC" plan "$TMPD/vaultwrong.radl"
expect_grep "^$TMPD/vaultwrong.radl:$(line vaultwrong ANSIBLE_VAULT):[0-9]+: error: configure 'node': the recipe is encrypted with Ansible Vault and the vault.password cannot decrypt it" \
	"$TMPD/err" "vaultwrong: the error is at the Vault header's line"
expect_no_grep 'not-the-password' "$TMPD/err" "vaultwrong: the wrong password is not shown"

# A good recipe: a role next to the RADL, IM's NAME.yml of other configures
# (import_tasks and include of a task list, import_playbook of a play list).
EXTRA=$(printf 'configure common (\n@begin\n- debug: msg="common"\n@end\n)\nconfigure other (\n@begin\n- tasks:\n    - debug: msg="other"\n@end\n)')
radl good dummy:// <<'EOF'
---
- roles:
    - myrole
  tasks:
    - import_tasks: common.yml
    - include: common.yml
- import_playbook: other.yml
EOF
EXTRA=
rm -f "$CALLS"
expect_exit 0 "good: plan" -- "$IMC" plan "$TMPD/good.radl"
expect_grep '^  step 1: node on VM 0' "$TMPD/out" "good: plan shows the step"
expect_exit 0 "good: create" -- "$IMC" create "$TMPD/good.radl"
expect_grep 'The infrastructure is in state: configured' "$TMPD/out" "good: the infrastructure is configured"
expect_grep '^vm_create 0$' "$CALLS" "good: the dummy cloud created the VM"
ID=$(head -1 "$TMPD/out")
expect_exit 0 "good: destroy" -- "$IMC" destroy "$ID"
ls -A "$TMPDIR" >"$TMPD/left"
expect_no_grep . "$TMPD/left" "no temporary recipe directory is left behind"

done_testing
