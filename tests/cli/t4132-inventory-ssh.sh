#!/bin/sh
# t4132: imc play -i FILE reaches each host as its inventory variables say:
# ansible_host, ansible_port, ansible_user and ansible_ssh_private_key_file
# (from the host line or from a group's vars) through imc's SSH connection
# to sshd instances on loopback; ansible_connection=local on this machine,
# in the same run; --key for the SSH hosts that name no key; a host that
# does not answer is unreachable (exit 69), the others run; what imc's SSH
# connection cannot do (a password) is refused before anything runs.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + ($$ + 4132) % 20000))
P2=$((P1 + 1))
sshd_keys "$TMPD" && ok "user key made" || { not_ok "ssh-keygen failed"; exit 1; }
sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" && ok "sshd 1 started" || { not_ok "cannot start sshd 1"; exit 1; }
sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk2" && ok "sshd 2 started" || { not_ok "cannot start sshd 2"; exit 1; }
mkdir -p "$TMPD/o"
cat >"$TMPD/inventory" <<EOF
[nodes]
n1 ansible_host=127.0.0.1 ansible_port=$P1
n2 ansible_host=127.0.0.1 ansible_port=$P2 ansible_ssh_private_key_file=$TMPD/userkey
[nodes:vars]
ansible_user=root
ansible_connection=ssh
[here]
ctl ansible_connection=local
EOF
cat >"$TMPD/play.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - shell: echo "{{ inventory_hostname }} ${SSH_CONNECTION:-local}" > {{ out }}/{{ inventory_hostname }}
EOY
expect_exit 0 "SSH hosts and a local one from one inventory" -- \
	"$IMC" play --no-fallback -i "$TMPD/inventory" --key "$TMPD/userkey" --known-hosts "$TMPD/kh" \
	"$TMPD/play.yml" -e "out=$TMPD/o"
grep -Eq "^n1 127\.0\.0\.1 [0-9]+ 127\.0\.0\.1 $P1\$" "$TMPD/o/n1" && ok "n1 ran over SSH on port $P1 (--key)" ||
	not_ok "n1 did not run over SSH: $(cat "$TMPD/o/n1" 2>&1)"
grep -Eq "^n2 127\.0\.0\.1 [0-9]+ 127\.0\.0\.1 $P2\$" "$TMPD/o/n2" && ok "n2 ran over SSH on port $P2 (its own key)" ||
	not_ok "n2 did not run over SSH: $(cat "$TMPD/o/n2" 2>&1)"
[ "$(cat "$TMPD/o/ctl" 2>&1)" = "ctl local" ] && ok "ctl ran here" || not_ok "ctl: $(cat "$TMPD/o/ctl" 2>&1)"
expect_grep '^n1 ssh-ed25519 ' "$TMPD/kh" "n1's host key pinned"
expect_grep '^n2 ssh-ed25519 ' "$TMPD/kh" "n2's host key pinned"

# an extra variable outranks the inventory: n2 moved to a closed port is
# unreachable, the others still run
rm -f "$TMPD/o"/*
closed=$((P1 + 2))
expect_exit 69 "a host that does not answer is unreachable" -- \
	"$IMC" play --no-fallback -i "$TMPD/inventory" --key "$TMPD/userkey" "$TMPD/play.yml" \
	-e "out=$TMPD/o" -e "{\"ansible_port\": $closed}" -l n2,ctl
expect_grep '^n2 +: .*unreachable=1' "$TMPD/out" "... in the recap"
[ -e "$TMPD/o/ctl" ] && ok "... and the other host ran" || not_ok "ctl did not run"

# without --key, n1 (no key of its own) cannot be reached: refused first
rm -f "$TMPD/o"/*
expect_exit 64 "an SSH host with no key" -- "$IMC" play --no-fallback -i "$TMPD/inventory" "$TMPD/play.yml" -e "out=$TMPD/o"
expect_grep "host 'n1' is reached over SSH: give its key" "$TMPD/err" "... is named"
[ ! -e "$TMPD/o/ctl" ] && ok "... and nothing ran" || not_ok "a host ran"
# --limit leaves n1 out: then it is not needed
expect_exit 0 "--limit leaves the keyless host out" -- "$IMC" play --no-fallback -i "$TMPD/inventory" \
	-l 'all:!n1' "$TMPD/play.yml" -e "out=$TMPD/o"

printf 'n3 ansible_host=127.0.0.1 ansible_password=secret\n' >"$TMPD/pw.ini"
expect_exit 65 "a password" -- "$IMC" play --no-fallback -i "$TMPD/pw.ini" --key "$TMPD/userkey" "$TMPD/play.yml" -e "out=$TMPD/o"
expect_grep "'ansible_password' is not supported by imc's SSH connection" "$TMPD/err" "... is refused, named"
expect_no_grep "secret" "$TMPD/err" "... without its value"
printf 'd1 ansible_connection=docker\n' >"$TMPD/dock.ini"
expect_exit 65 "a connection imc lacks" -- "$IMC" play --no-fallback -i "$TMPD/dock.ini" "$TMPD/play.yml" -e "out=$TMPD/o"
expect_grep "connection 'docker' is not supported by imc" "$TMPD/err" "... is refused, named"
done_testing
