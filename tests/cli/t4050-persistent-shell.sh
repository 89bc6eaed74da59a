#!/bin/sh
# t4050: the SSH connection's persistent shell (conn-pshell.c): the login
# shell runs once per host, not once per command, yet every task sees what
# a fresh shell gives it and gets its exact output: bytes base64 and
# newlines would mangle, no trailing newline, stdin, `exit`, a killed
# command, closed fds, a background child holding stdout, cd/export/umask
# not leaking into the next task, become; raw keeps the login shell; a node
# where the persistent shell cannot start gets one channel per command.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + ($$ + 50) % 20000))
P2=$((P1 + 1))
# each login shell sshd starts leaves a line in $TMPD/logins before running
# what was asked
FC="ForceCommand echo x >>$TMPD/logins; eval \"\$SSH_ORIGINAL_COMMAND\""
sshd_keys "$TMPD" || { not_ok "ssh-keygen failed"; exit 1; }
SSHD_EXTRA="$FC" sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" &&
	ok "sshd started" || { not_ok "cannot start sshd"; exit 1; }
# the second node has no usable temporary directory for the persistent
# shell: it gets one channel per command
SSHD_EXTRA="SetEnv TMPDIR=$TMPD/missing
$FC" sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk2" && ok "sshd without a temporary directory started" ||
	{ not_ok "cannot start sshd 2"; exit 1; }

# every byte value, no trailing newline; a file larger than what the
# persistent shell carries on stdin
awk 'BEGIN { for (i = 0; i < 256; i++) printf "%c", i; printf "end" }' </dev/null >"$TMPD/bytes"
head -c 5000000 /dev/urandom >"$TMPD/big"
cat >"$TMPD/play.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - slurp: src=$TMPD/bytes
      register: b
    - copy: src=$TMPD/bytes dest=$TMPD/copy-{{ inventory_hostname }}
    - copy: src=$TMPD/big dest=$TMPD/big-{{ inventory_hostname }}
    - shell: printf 'out-no-newline'; printf 'err-no-newline' >&2
      register: nl
    - command: cat
      args: { stdin: "line one" }
      register: si
    - shell: cd /; export IMC_T4050=leaked; umask 077; exit 7
      register: ex
      ignore_errors: true
    - shell: echo "\$(pwd) \${IMC_T4050:-clean} \$(umask)"
      register: fresh
    - shell: echo before; kill -9 \$\$
      register: killed
      ignore_errors: true
    - shell: exec >&- 2>&- <&-; exit 3
      register: closed
      ignore_errors: true
    - shell: p=\$\$; ( while kill -0 \$p 2>/dev/null; do :; done; echo late ) & echo early
      register: bg
    - command: id -un
      become: true
      become_user: nobody
      register: who
    - command: id -un
      register: me
    - raw: echo raw-ran
      register: raw
    - copy:
        dest: $TMPD/res-{{ inventory_hostname }}
        content: |
          slurp={{ b.content }}
          nl={{ nl.stdout }}|{{ nl.stderr }}
          si={{ si.stdout }}
          ex={{ ex.rc }}
          fresh={{ fresh.stdout }}
          killed={{ killed.rc }}|{{ killed.stdout }}|{{ killed.stderr }}
          closed={{ closed.rc }}
          bg={{ bg.stdout_lines | join(',') }}
          who={{ who.stdout }} {{ me.stdout }}
          raw={{ raw.stdout | trim }}
EOY
H="-H n1=root@127.0.0.1:$P1 -H n2=root@127.0.0.1:$P2 -k $TMPD/userkey --known-hosts $TMPD/kh"
: >"$TMPD/logins"
expect_exit 0 "the play runs over ssh on both nodes" -- "$IMC" play --no-fallback -c ssh $H "$TMPD/play.yml"
home=$(getent passwd root | cut -d: -f6)
for n in n1 n2; do
	cmp -s "$TMPD/bytes" "$TMPD/copy-$n" && ok "$n: every byte value copied exactly" ||
		not_ok "$n: every byte value copied exactly"
	cmp -s "$TMPD/big" "$TMPD/big-$n" && ok "$n: a 5 MB file copied exactly" ||
		not_ok "$n: a 5 MB file copied exactly"
	r=$TMPD/res-$n
	grep -qxF "slurp=$(base64 -w0 "$TMPD/bytes")" "$r" && ok "$n: slurp read every byte back" ||
		not_ok "$n: slurp read every byte back"
	expect_grep '^nl=out-no-newline\|err-no-newline$' "$r" "$n: stdout and stderr without trailing newlines, apart"
	expect_grep '^si=line one$' "$r" "$n: the command's stdin"
	expect_grep '^ex=7$' "$r" "$n: exit inside a command is its status"
	expect_grep "^fresh=$home clean 0022\$" "$r" "$n: cd, export and umask do not leak into the next task"
	expect_grep '^killed=137\|before\|$' "$r" "$n: a killed command: 128 + signal, its own output only"
	expect_grep '^closed=3$' "$r" "$n: a command closing its fds"
	expect_grep '^bg=early,late$' "$r" "$n: a background child holding stdout is waited for"
	expect_grep '^who=nobody root$' "$r" "$n: become_user for one task only"
	expect_grep '^raw=raw-ran$' "$r" "$n: raw"
done
# n1: one login shell for the persistent shell, one for raw; n2: one per
# command. Both write to the same file: count n1's alone in a second run.
[ "$(wc -l <"$TMPD/logins")" -gt 10 ] && ok "n2 without a temporary directory: one login shell per command" ||
	not_ok "n2 without a temporary directory: one login shell per command ($(wc -l <"$TMPD/logins"))"
: >"$TMPD/logins"
expect_exit 0 "the play runs over ssh on n1 alone" -- "$IMC" play --no-fallback -c ssh \
	-H n1=root@127.0.0.1:$P1 -k "$TMPD/userkey" --known-hosts "$TMPD/kh" "$TMPD/play.yml"
[ "$(wc -l <"$TMPD/logins")" = 2 ] && ok "n1: the login shell ran twice (the persistent shell, raw)" ||
	not_ok "n1: the login shell ran twice (the persistent shell, raw): $(wc -l <"$TMPD/logins")"
done_testing
