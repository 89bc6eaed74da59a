#!/bin/sh
# t4131: imc play -i DIR: a directory of inventory files (a YAML one, an
# INI one without extension, a .ini one that Ansible skips in a
# directory), merged into one inventory; group_vars/ and host_vars/ beside
# the inventory and beside the playbook (files NAME, NAME.yml, NAME.json,
# directories of them) in Ansible's precedence; group_by's new group taking
# its group_vars/ file; the implicit localhost seeing host_vars/localhost
# and the "all" variables. Expected lines recorded from ansible-core
# 2.14.18 with the same files:
#   ansible-playbook -i inv -c local pb/play.yml -e out=$PWD/o
. "$top_srcdir/tests/cli/lib.sh"
D=$TMPD/t
mkdir -p "$D/pb/group_vars" "$D/pb/host_vars" "$D/inv/group_vars/all" "$D/inv/host_vars" "$D/o"
cat >"$D/inv/hosts.yml" <<'EOF'
all:
  vars:
    av: 1
    gv: all
  hosts:
    lone:
      x: 1
  children:
    web:
      hosts:
        web[1:2]:
          x: web
        "w3:2200":
      vars:
        gv: web
      children:
        front:
          hosts:
            web1:
              y: front
          vars:
            gv: front
    dbs:
      hosts: db1
      vars:
        gv: dbs
        ansible_group_priority: 10
    other:
      hosts:
        web2:
      vars:
        gv: other
EOF
printf '[dbs]\ndb1 extra=1\nweb1 extra=2\n' >"$D/inv/more.ini"
printf '[dbs]\nweb2 extra=3\n' >"$D/inv/zz"
printf 'order: inv-all-a\nlayer: inv-all\n' >"$D/inv/group_vars/all/a.yml"
printf 'order: inv-all-b\n' >"$D/inv/group_vars/all/b.yaml"
printf 'skipped: yes\n' >"$D/inv/group_vars/all/c.txt"
echo "layer: inv-web" >"$D/inv/group_vars/web.yml"
echo "layer: inv-front" >"$D/inv/group_vars/front.json"
echo "layer: inv-host" >"$D/inv/host_vars/web1"
echo "layer: pb-all" >"$D/pb/group_vars/all.yml"
echo "layer: pb-web" >"$D/pb/group_vars/web.yml"
echo "dyn: from-group_vars" >"$D/pb/group_vars/dynamic.yml"
echo "layer: pb-host-lone" >"$D/pb/host_vars/lone.yml"
echo "hv: implicit" >"$D/pb/host_vars/localhost.yml"
cat >"$D/pb/play.yml" <<'EOF'
- hosts: all
  gather_facts: false
  tasks:
    - group_by: key=dynamic
      when: inventory_hostname in ['web2', 'lone']
    - copy:
        dest: "{{ out }}/{{ inventory_hostname }}"
        content: "{{ inventory_hostname }} {{ [x|default(None), y|default(None), gv, av, extra|default(None), ansible_port|default(None), order, layer, dyn|default(None), skipped|default(None), group_names, ansible_play_hosts_all] | to_json }}\n"
      delegate_to: localhost
- hosts: localhost
  gather_facts: false
  tasks:
    - copy:
        dest: "{{ out }}/localhost"
        content: "localhost {{ [hv, layer, av, group_names, groups] | to_json }}\n"
EOF
cat >"$D/expected" <<'EOF'
db1 [null, null, "dbs", 1, null, null, "inv-all-b", "pb-all", null, null, ["dbs"], ["lone", "web1", "web2", "w3", "db1"]]
localhost ["implicit", "pb-all", 1, [], {"all": ["lone", "web1", "web2", "w3", "db1"], "ungrouped": [], "web": ["web1", "web2", "w3"], "front": ["web1"], "dbs": ["db1", "web2"], "other": ["web2"], "dynamic": ["lone", "web2"]}]
lone [1, null, "all", 1, null, null, "inv-all-b", "pb-host-lone", "from-group_vars", null, ["dynamic"], ["lone", "web1", "web2", "w3", "db1"]]
w3 [null, null, "web", 1, null, 2200, "inv-all-b", "pb-web", null, null, ["web"], ["lone", "web1", "web2", "w3", "db1"]]
web1 ["web", "front", "front", 1, null, null, "inv-all-b", "inv-host", null, null, ["front", "web"], ["lone", "web1", "web2", "w3", "db1"]]
web2 ["web", null, "dbs", 1, 3, null, "inv-all-b", "pb-web", "from-group_vars", null, ["dbs", "dynamic", "other", "web"], ["lone", "web1", "web2", "w3", "db1"]]
EOF
expect_exit 0 "a play over an inventory directory" -- \
	"$IMC" play --no-fallback -i "$D/inv" -c local "$D/pb/play.yml" -e "out=$D/o"
while read -r h rest; do
	if [ "$(cat "$D/o/$h" 2>/dev/null)" = "$h $rest" ]; then
		ok "$h as Ansible has it"
	else
		not_ok "$h differs from Ansible"
		sed 's/^/#   got: /' "$D/o/$h" 2>/dev/null
	fi
done <"$D/expected"

# the same YAML file given alone, with the INI file as a second -i: they
# merge (the INI one is not skipped when named)
rm -f "$D/o"/*
expect_exit 0 "two -i merge" -- "$IMC" play --no-fallback -i "$D/inv/hosts.yml" -i "$D/inv/more.ini" \
	-c local "$D/pb/play.yml" -e "out=$D/o"
expect_grep '^web1 .*"inv-host".*\["dbs", "front", "web"\]' "$D/o/web1" "web1 joined dbs from the second file"

# ansible_group_priority orders groups and is no variable (Ansible:
# ansible -i inv -m debug -a 'msg={{ ansible_group_priority | default("undefined") }}' db1)
printf -- '- hosts: db1\n  gather_facts: false\n  tasks:\n    - copy: content="{{ ansible_group_priority | default(\047undefined\047) }}" dest={{ out }}/prio\n' >"$D/prio.yml"
expect_exit 0 "a play on a host of a group with a priority" -- \
	"$IMC" play --no-fallback -i "$D/inv" -c local "$D/prio.yml" -e "out=$D/o"
[ "$(cat "$D/o/prio" 2>&1)" = undefined ] && ok "... ansible_group_priority is no variable" ||
	not_ok "ansible_group_priority is a variable: $(cat "$D/o/prio" 2>&1)"

# YAML errors and what Ansible only warns about
printf 'g:\n  hosts: [a, b]\n' >"$D/bad.yml"
expect_exit 65 "hosts as a list" -- "$IMC" play --no-fallback -i "$D/bad.yml" -c local "$D/pb/play.yml"
expect_grep 'invalid "hosts" entry for "g" group, requires a dictionary, found "list"' "$TMPD/err" "... is refused"
printf 'plugin: aws_ec2\n' >"$D/plug.yml"
expect_exit 65 "an inventory plugin configuration" -- "$IMC" play --no-fallback -i "$D/plug.yml" -c local "$D/pb/play.yml"
expect_grep 'inventory plugin configuration \(plugin: aws_ec2\) is not supported' "$TMPD/err" "... is refused"
printf 'g:\n  hosts:\n    h1:\n      ansible_connection: local\n  colour: blue\n' >"$D/warn.yml"
printf -- '- hosts: g\n  gather_facts: false\n  tasks:\n    - command: "true"\n' >"$D/g.yml"
expect_exit 0 "an unexpected key" -- "$IMC" play --no-fallback -i "$D/warn.yml" "$D/g.yml"
expect_grep 'WARNING.*Skipping key \(colour\) in group \(g\) as it is not a mapping' "$TMPD/err" "... is skipped with Ansible's warning"
printf 'all:\n  hosts:\n    h1:\n      ansible_connection: local\n' >"$D/ok.yml"
echo "- a list" >"$D/pb/group_vars/all.yml"
expect_exit 65 "a group_vars file that is no mapping" -- "$IMC" play --no-fallback -i "$D/ok.yml" "$D/pb/play.yml" -e "out=$D/o"
expect_grep 'group_vars/all.yml: a vars file must be a mapping' "$TMPD/err" "... is refused, named"
# vault-encrypted variables without a vault secret, as ansible-core 2.14:
# a !vault value fails only where it is used (the play does not use it),
# a vault-encrypted vars file stops the run
printf 'pw: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  3132\n' >"$D/pb/group_vars/all.yml"
printf -- '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n    - debug: msg={{ pw }}\n' >"$D/pb/v.yml"
expect_exit 1 "a !vault value in group_vars" -- "$IMC" play --no-fallback -i "$D/ok.yml" "$D/pb/v.yml"
expect_grep '"msg": "hi"' "$TMPD/out" "... the play runs"
expect_grep 'fatal: .*"Attempting to decrypt but no vault secrets found"' "$TMPD/out" "... the task using it fails, in Ansible's words"
printf '$ANSIBLE_VAULT;1.1;AES256\n3132\n' >"$D/pb/group_vars/all.yml"
expect_exit 65 "a vault-encrypted group_vars file" -- "$IMC" play --no-fallback -i "$D/ok.yml" "$D/pb/play.yml" -e "out=$D/o"
expect_grep '^ERROR! Attempting to decrypt but no vault secrets found$' "$TMPD/err" "... is refused in Ansible's words"
done_testing
