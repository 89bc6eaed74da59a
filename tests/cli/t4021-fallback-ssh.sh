#!/bin/sh
# t4021: the per-task fallback over SSH: a task imc does not run itself
# goes to Ansible with the same address, port, user and key, and the host
# key imc pinned (Ansible checks it strictly against that key alone); its
# result and facts come back to imc, on each host of the play.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
command -v ansible-playbook >/dev/null || { not_ok "needs ansible-playbook (package ansible)"; done_testing; exit 1; }
# this test is about the fallback itself (lib.sh forbids it by default)
IMC_NO_FALLBACK=0
export IMC_NO_FALLBACK
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + $$ % 20000))
P2=$((P1 + 1))
sshd_keys "$TMPD" && ok "user key made" || { not_ok "ssh-keygen failed"; exit 1; }
# each sshd marks the sessions it starts, so that a result can tell which
# host it came from, and that it came over SSH
SSHD_EXTRA="SetEnv IMC_T4021_VIA=sshd-$P1" sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" \
	&& ok "sshd 1 started" || { not_ok "cannot start sshd 1"; exit 1; }
SSHD_EXTRA="SetEnv IMC_T4021_VIA=sshd-$P2" sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk2" \
	&& ok "sshd 2 started" || { not_ok "cannot start sshd 2"; exit 1; }
mkdir -p "$TMPD/n1" "$TMPD/n2"
cat >"$TMPD/play.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - name: facts through Ansible
      ansible.builtin.gather_facts:
    - name: a module imc lacks
      community.general.pam_limits:
        domain: joe
        limit_type: soft
        limit_item: nofile
        value: "{{ 100 + port }}"
        dest: "$TMPD/{{ inventory_hostname }}/limits.conf"
      vars:
        port: "{{ ansible_port }}"
      register: r
    - copy:
        dest: "$TMPD/{{ inventory_hostname }}/result"
        content: "{{ ansible_env.IMC_T4021_VIA }} {{ r.changed }}"
EOY
H="-H n1=root@127.0.0.1:$P1 -H n2=root@127.0.0.1:$P2 -k $TMPD/userkey --known-hosts $TMPD/kh"
expect_exit 0 "a play with tasks Ansible runs, over SSH" -- "$IMC" play -c ssh $H "$TMPD/play.yml"
expect_grep "^sshd-$P1 True$" "$TMPD/n1/result" "n1: Ansible reached it through its own sshd; facts and register"
expect_grep "^sshd-$P2 True$" "$TMPD/n2/result" "n2 as well"
expect_grep "^joe[[:space:]]+soft[[:space:]]+nofile[[:space:]]+$((100 + P1))" "$TMPD/n1/limits.conf" "n1's own arguments"
expect_grep "^joe[[:space:]]+soft[[:space:]]+nofile[[:space:]]+$((100 + P2))" "$TMPD/n2/limits.conf" "n2's own arguments"
expect_grep '^n1 +: ok=3 +changed=2 +unreachable=0 +failed=0' "$TMPD/out" "the recap"

done_testing
