#!/bin/sh
# t4181: the connection user and port a play or task asks for on SSH
# hosts (remote_user, the play's old `user`, port, and ansible_user or
# ansible_port from play or task vars), which imc used to accept and
# ignore. Ansible's variables outrank the keywords, so an inventory's
# ansible_user makes remote_user moot, as in Ansible; a value that differs
# from the host's SSH session (imc keeps one per host) stops the run with
# an error naming it (exit 65; no rescue or ignore_errors may stand in for
# Ansible's run), instead of running it as another user; the same value
# runs. The
# local connection ignores them all, as ansible-playbook -c local does
# (recorded with ansible-core 2.14.18: `id -un` stays root).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + ($$ + 4181) % 20000))
sshd_keys "$TMPD" && ok "user key made" || { not_ok "ssh-keygen failed"; exit 1; }
sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" && ok "sshd started" || { not_ok "cannot start sshd"; exit 1; }
# n1 names its user, n2 does not (it logs in as the user running imc: root)
cat >"$TMPD/inventory" <<EOF
n1 ansible_host=127.0.0.1 ansible_port=$P1 ansible_user=root ansible_connection=ssh
n2 ansible_host=127.0.0.1 ansible_port=$P1 ansible_connection=ssh
n1 ansible_host=127.0.0.1 ansible_port=$P1 ansible_user=root ansible_connection=ssh
n2 ansible_host=127.0.0.1 ansible_port=$P1 ansible_connection=ssh
EOF
# play PLAY_KEYWORDS TASK_KEYWORDS: $TMPD/p.yml running `id -un`
play() {
	printf -- '- hosts: all\n  gather_facts: false\n%b  tasks:\n    - command: id -un\n      register: r\n%b    - debug: var=r.stdout\n' \
		"$1" "$2" >"$TMPD/p.yml"
}
run() { "$IMC" play --no-fallback -i "$TMPD/inventory" --key "$TMPD/userkey" "$TMPD/p.yml" "$@"; }

play '  remote_user: root\n' ''
expect_exit 0 "remote_user equal to the session's user" -- run
expect_grep '"r.stdout": "root"' "$TMPD/out" "... runs"
play '  remote_user: daemon\n' ''
expect_exit 65 "remote_user another user" -- run
expect_grep "^changed: \[n1\]" "$TMPD/out" "... n1: runs, its inventory ansible_user outranking the keyword"
expect_grep "^fatal: \[n2\]: FAILED! => .*remote_user 'daemon' differs from the user of the SSH session to 'n2' \('root'\)" \
	"$TMPD/out" "... n2: fails, naming remote_user and both users"
play '  user: daemon\n' ''
expect_exit 65 "the play's user keyword" -- run -l n2
expect_grep "user 'daemon' differs from the user of the SSH session" "$TMPD/out" "... is named"
play '' '      remote_user: daemon\n      vars:\n        ansible_user: root\n'
expect_exit 0 "a task's ansible_user outranks its remote_user" -- run
play '' '      vars:\n        ansible_user: daemon\n'
expect_exit 65 "a task's ansible_user" -- run -l n1
expect_grep "ansible_user 'daemon' differs from the user of the SSH session to 'n1'" "$TMPD/out" "... is named"
play '  vars:\n    ansible_port: 1\n' ''
expect_exit 65 "a play's ansible_port" -- run -l n1
expect_grep "ansible_port '1' differs from the port of the SSH session to 'n1' \($P1\)" "$TMPD/out" "... is named"
play '' "      vars:\n        ansible_port: $P1\n"
expect_exit 0 "... the session's port runs" -- run -l n1

# the local connection: ignored, as ansible-playbook -c local
play '  remote_user: nobody\n  vars:\n    ansible_port: 2222\n' '      remote_user: daemon\n      vars:\n        ansible_user: bin\n'
expect_exit 0 "remote_user, ansible_user and ansible_port on the local connection" -- \
	"$IMC" play --no-fallback -c local -i localhost "$TMPD/p.yml"
expect_grep '"r.stdout": "root"' "$TMPD/out" "... are ignored, as Ansible's local connection ignores them"
done_testing
