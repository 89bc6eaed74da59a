#!/bin/sh
# t4003: imc play over SSH (libssh) to sshd instances on loopback: the same
# modules as locally, several hosts in parallel, host keys pinned on first
# contact, and a changed host key refused with a clear error.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
sshd_available || skip_all "needs root, $SSHD and ssh-keygen"
trap 'sshd_stop_all "$TMPD"; rm -rf "$TMPD"' EXIT
P1=$((20000 + $$ % 20000))
P2=$((P1 + 1))
sshd_keys "$TMPD" || skip_all "ssh-keygen failed"
sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" || skip_all "cannot start sshd"
sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk2" || skip_all "cannot start sshd"
mkdir -p "$TMPD/s1" "$TMPD/s2"
cat >"$TMPD/play.yml" <<'EOY'
- hosts: all
  gather_facts: true
  tasks:
    - name: copy
      copy: content="{{ inventory_hostname }}\n" dest={{ dirs[inventory_hostname] }}/who
    - name: shell
      shell: cat {{ dirs[inventory_hostname] }}/who
      register: r
    - name: facts
      copy: content="{{ ansible_os_family }} {{ r.stdout }}\n" dest={{ dirs[inventory_hostname] }}/facts
    - name: once for all hosts
      shell: echo once >> {{ dirs['n1'] }}/once
      run_once: true
      register: once
    - name: the controller
      command: echo "{{ once.rc }}"
      delegate_to: localhost
EOY
H="-H n1=root@127.0.0.1:$P1 -H n2=root@127.0.0.1:$P2 -k $TMPD/userkey --known-hosts $TMPD/kh"
EV="{\"dirs\": {\"n1\": \"$TMPD/s1\", \"n2\": \"$TMPD/s2\"}}"
expect_exit 0 "play over ssh on two hosts" -- "$IMC" play -c ssh $H -e "$EV" "$TMPD/play.yml"
expect_grep '^n1 +: ok=6 +changed=5 ' "$TMPD/out" "recap n1"
expect_grep '^n2 +: ok=6 +changed=5 ' "$TMPD/out" "recap n2"
expect_grep '^n1 ssh-ed25519 ' "$TMPD/kh" "host key of n1 pinned"
expect_grep '^n2 ssh-ed25519 ' "$TMPD/kh" "host key of n2 pinned"
expect_grep ' n1$' "$TMPD/s1/facts" "facts and register over ssh"
[ "$(wc -l <"$TMPD/s1/once")" = 1 ] && ok "run_once ran once" || not_ok "run_once ran once"
expect_exit 0 "second run with pinned keys" -- "$IMC" play -c ssh $H -e "$EV" "$TMPD/play.yml"
expect_grep '^n1 +: ok=6 +changed=3 ' "$TMPD/out" "idempotent over ssh"
# the host key of n2 changes
sshd_stop "$TMPD" 127.0.0.1 $P2
sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk3" || skip_all "cannot restart sshd"
expect_exit 69 "a changed host key is refused" -- "$IMC" play -c ssh $H -e "$EV" "$TMPD/play.yml"
expect_grep "n2: host key verification failed for 127.0.0.1 port $P2" "$TMPD/err" "the error says which host and why"
expect_grep '^n1 +: ok=6 ' "$TMPD/out" "the other host still runs"
expect_grep '^n2 +: ok=0 +changed=0 +unreachable=1 ' "$TMPD/out" "n2 is unreachable in the recap"
done_testing
