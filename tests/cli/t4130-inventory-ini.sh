#!/bin/sh
# t4130: imc play -i FILE reads an Ansible INI inventory as Ansible's ini
# plugin does: host lines with variables typed as Python literals,
# [group:vars], [group:children] declared before the group, ranges,
# host:port, ungrouped hosts; group_vars/ and host_vars/ beside it in
# Ansible's precedence; groups, group_names and the play's host order as
# Ansible has them. The expected lines were recorded from ansible-core
# 2.14.18 with the same files:
#   ansible-playbook -i inventory -c local play.yml -e out=$PWD/o
# A malformed inventory is an error naming file and line.
. "$top_srcdir/tests/cli/lib.sh"
D=$TMPD/inv
mkdir -p "$D/group_vars" "$D/host_vars" "$D/o"
cat >"$D/inventory" <<'EOF'
# comment
; another
alpha a=1 b=1.5 c="two words" d='[1, 2]' e=True f=None g=yes h=010 i=0x1F j="{'k': 'v'}" k=1_000 l=-3 m=+2.5e3 n=u'x' o='"q"' p=a#comment
[web]
web[01:03] x=web
db-[a:c]:2222
[web:vars]
gv=web
num = 42
s = "quoted"  
t = hello # not a comment
u = 1 # a comment
[servers:children]
web
dbs
[dbs]
db-b role=db
[servers:vars]
gv=servers
sv=1
[all:vars]
gv=all
av=1
EOF
echo "gdir: servers" >"$D/group_vars/servers.yml"
printf 'gdir: web\nnum: 7\n' >"$D/group_vars/web"
echo "hdir: yes" >"$D/host_vars/web02.yml"
cat >"$D/play.yml" <<'EOF'
- hosts: all
  gather_facts: false
  tasks:
    - copy:
        dest: "{{ out }}/{{ inventory_hostname }}"
        content: "{{ inventory_hostname }} {{ [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] | to_json }}\n"
      when: inventory_hostname == 'alpha'
      delegate_to: localhost
    - copy:
        dest: "{{ out }}/{{ inventory_hostname }}"
        content: "{{ inventory_hostname }} {{ [x|default(None), gv, num|default(None), s|default(None), t|default(None), u|default(None), sv|default(None), av, gdir|default(None), hdir|default(None), ansible_port|default(None), role|default(None), group_names] | to_json }}\n"
      when: inventory_hostname != 'alpha'
      delegate_to: localhost
- hosts: servers:!dbs
  gather_facts: false
  tasks:
    - copy: content="{{ groups | to_json }} {{ ansible_play_hosts_all | to_json }}\n" dest={{ out }}/groups
      run_once: true
      delegate_to: localhost
EOF
cat >"$D/expected" <<'EOF'
alpha [1, 1.5, "two words", [1, 2], true, null, "yes", "010", 31, {"k": "v"}, 1000, -3, 2500.0, "ux", "q", "a"]
db-a [null, "web", 7, "quoted", "hello # not a comment", 1, 1, 1, "web", null, 2222, null, ["servers", "web"]]
db-b [null, "web", 7, "quoted", "hello # not a comment", 1, 1, 1, "web", null, 2222, "db", ["dbs", "servers", "web"]]
db-c [null, "web", 7, "quoted", "hello # not a comment", 1, 1, 1, "web", null, 2222, null, ["servers", "web"]]
web01 ["web", "web", 7, "quoted", "hello # not a comment", 1, 1, 1, "web", null, null, null, ["servers", "web"]]
web02 ["web", "web", 7, "quoted", "hello # not a comment", 1, 1, 1, "web", true, null, null, ["servers", "web"]]
web03 ["web", "web", 7, "quoted", "hello # not a comment", 1, 1, 1, "web", null, null, null, ["servers", "web"]]
{"all": ["alpha", "web01", "web02", "web03", "db-a", "db-b", "db-c"], "ungrouped": ["alpha"], "web": ["web01", "web02", "web03", "db-a", "db-b", "db-c"], "servers": ["web01", "web02", "web03", "db-a", "db-b", "db-c"], "dbs": ["db-b"]} ["web01", "web02", "web03", "db-a", "db-c"]
EOF
expect_exit 0 "a play over an INI inventory (local connection)" -- \
	"$IMC" play --no-fallback -i "$D/inventory" -c local "$D/play.yml" -e "out=$D/o"
(cd "$D/o" && cat alpha db-a db-b db-c web01 web02 web03 groups) >"$D/got" 2>&1
for h in alpha db-a db-b db-c web01 web02 web03 groups; do
	want=$(grep "^$h " "$D/expected")
	[ "$h" = groups ] && want=$(tail -n 1 "$D/expected")
	got=$(grep -F "$want" "$D/got")
	[ -n "$got" ] && ok "$h as Ansible has it" || { not_ok "$h differs from Ansible"; grep "^$h " "$D/got" | sed 's/^/#   /'; }
done
expect_exit 0 "--list-hosts takes its hosts from the file" -- \
	"$IMC" play --no-fallback -i "$D/inventory" -c local --list-hosts "$D/play.yml"
expect_grep "hosts \(5\)" "$TMPD/out" "... servers:!dbs is five hosts"

# ranges as ansible-inventory 2.14 lists them: any number of ranges in a
# name (ten here), an empty one making the whole name empty, letters and
# steps, the last range varying fastest
printf 'h[1:1][1:1][1:1][1:1][1:1][1:1][1:1][1:1][1:1][1:1]\ne[1:3][5:1]x\nw[a:c][01:02]\n[g]\nz[0:4:2]-[b:d:2]\n' >"$D/ranges.ini"
printf -- '- hosts: all\n  gather_facts: false\n  tasks: []\n' >"$D/all.yml"
expect_exit 0 "an inventory of ranges" -- \
	"$IMC" play --no-fallback -i "$D/ranges.ini" -c local --list-hosts "$D/all.yml"
sed -n 's/^ *\([a-z][0-9a-z-]*\)$/\1/p' "$TMPD/out" | tr '\n' ' ' >"$D/range-hosts"
expect_grep '^h1111111111 wa01 wa02 wb01 wb02 wc01 wc02 z0-b z0-d z2-b z2-d z4-b z4-d $' "$D/range-hosts" \
	"... its hosts as Ansible expands them"

# host variables choose the connection: a host with none is an SSH one
# (Ansible's default), which needs a key; -c local covers it
printf 'lone\n' >"$D/ssh.ini"
expect_exit 64 "an SSH host without a key is refused before anything runs" -- \
	"$IMC" play --no-fallback -i "$D/ssh.ini" "$D/play.yml" -e "out=$D/o"
expect_grep "host 'lone' is reached over SSH: give its key" "$TMPD/err" "... naming the host"
# a host no play targets is not contacted (nor checked)
printf 'lone\nhere ansible_connection=local\n' >"$D/two.ini"
printf -- '- hosts: here\n  gather_facts: false\n  tasks:\n    - command: "true"\n' >"$D/here.yml"
expect_exit 0 "a host no play targets needs no connection" -- \
	"$IMC" play --no-fallback -i "$D/two.ini" "$D/here.yml"

# malformed inventories: file:line and Ansible's reason
bad() {
	printf "$1" >"$D/bad.ini"
	expect_exit 65 "$3" -- "$IMC" play --no-fallback -i "$D/bad.ini" -c local "$D/play.yml"
	expect_grep "^ERROR! .*$2" "$TMPD/err" "... $3: the error says so"
	[ -z "${4:-}" ] || expect_grep "bad.ini': line $4, column" "$TMPD/err" "... $3: and where"
}
bad '[a:children]\nnope\n' 'includes undefined group: nope' "an undefined child group" 2
bad 'x\n[b:vars]\nx=1\n' '\[b:vars\] not valid for undefined group' "vars of an undefined group" 2
bad 'h[1:a]\n' 'invalid host range' "a bad range" 1
bad 'h x=(1,2)\n' "is a tuple" "a Python tuple (JSON has none)" 1
bad 'h\nh2 x\n' 'expected key=value host variable assignment, got: x' "a word that is no variable" 2
bad '[a b]\n' "invalid section entry" "a section with a space" 1
bad '[a:hostz]\n' "unknown type: hostz" "a section of an unknown kind" 1
bad 'h x="open\n' "No closing quotation" "an unclosed quote" 1
bad '[a:children]\nb\n[b:children]\na\n' "recursive dependency loop" "a cycle of groups"
done_testing
