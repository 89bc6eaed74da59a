#!/bin/sh
# t4052: the persistent shell's two framings (conn-pshell.c) carry every
# command's output exactly as a fresh exec would, on a node with perl (the
# framed loop) and on one without (base64): the registered results of the
# same play over each are identical to the local connection's, for binary
# stdout and stderr, output without a trailing newline, output that looks
# like either framing's own lines, a command that closes stdout, heavy
# stdout and stderr at once, a huge output and a binary stdin (t4050 has
# the background child waiting for the command to be gone, which the local
# connection, like Ansible's, would wait for forever); a command
# that kills the shell under it makes its host unreachable, is not run
# twice, and the next run gets a new shell.
# The node without perl is an sshd whose ForceCommand sets PATH to a
# directory of links to every program but perl (in the test's temp dir).
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
command -v perl >/dev/null 2>&1 || { not_ok "needs perl (perl-base)"; done_testing; exit 1; }
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + ($$ + 150) % 20000))
P2=$((P1 + 1))
mkdir "$TMPD/noperl"
for f in /usr/local/bin/* /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
	case ${f##*/} in perl*) continue ;; esac
	[ -e "$TMPD/noperl/${f##*/}" ] || ln -s "$f" "$TMPD/noperl/${f##*/}"
done
sshd_keys "$TMPD" || { not_ok "ssh-keygen failed"; exit 1; }
# each node's persistent shell keeps its directory under TMPD (a shell
# killed with -9 leaves it behind)
mkdir "$TMPD/tmp1" "$TMPD/tmp2"
SSHD_EXTRA="SetEnv TMPDIR=$TMPD/tmp1" \
	sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" && ok "sshd started" || { not_ok "cannot start sshd"; exit 1; }
SSHD_EXTRA="ForceCommand PATH=$TMPD/noperl TMPDIR=$TMPD/tmp2; export PATH TMPDIR; eval \"\$SSH_ORIGINAL_COMMAND\"" \
	sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk2" && ok "sshd without perl started" ||
	{ not_ok "cannot start sshd 2"; exit 1; }

awk 'BEGIN { for (i = 0; i < 256; i++) printf "%c", i; printf "end" }' </dev/null >"$TMPD/bytes"
head -c 3000000 /dev/urandom | od -An -tx1 -v >"$TMPD/huge"
cat >"$TMPD/play.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - shell: printf 'a\\001b\\r\\nc\\303\\251\\342\\202\\254 '; printf '\\002\\033[0m\\t\\r' >&2
      register: binary
    - fetch: src=$TMPD/bytes dest=$TMPD/fetched-{{ inventory_hostname }} flat=true
    - slurp: src=$TMPD/bytes
      register: slurped
    - shell: printf 'out-no-newline'; printf 'err-no-newline' >&2
      register: nonl
    - shell: printf '.0\n.\n.E\nr 0\nk 0\nE 0\no 5\n'; printf '.\n.ok\ne 3\n' >&2
      register: lookalike
    - shell: exec >&-; echo after-close >&2; exit 5
      register: closed
      ignore_errors: true
    - shell: exec 1>&2; echo to-err; exit 0
      register: swapped
    - shell: i=0; while [ \$i -lt 3000 ]; do echo "out \$i"; echo "err \$i" >&2; i=\$((i + 1)); done
      register: both
    - command: cat $TMPD/huge
      register: huge
    - copy: src=$TMPD/bytes dest=$TMPD/copy-{{ inventory_hostname }}
    - copy:
        dest: $TMPD/res-{{ inventory_hostname }}.json
        content: |
          {{ {'binary': [binary.rc, binary.stdout | b64encode, binary.stderr | b64encode],
              'slurped': slurped.content,
              'nonl': [nonl.stdout, nonl.stderr],
              'lookalike': [lookalike.stdout, lookalike.stderr],
              'closed': [closed.rc, closed.stdout, closed.stderr],
              'swapped': [swapped.stdout, swapped.stderr],
              'both': [both.stdout_lines | length, both.stderr_lines | length, both.stdout_lines[-1], both.stderr_lines[-1]],
              'huge': [huge.stdout | length, huge.stdout | hash('sha1')]} | to_nice_json }}
EOY
expect_exit 0 "the play runs locally" -- "$IMC" play --no-fallback -c local "$TMPD/play.yml"
H="-H n1=root@127.0.0.1:$P1 -H n2=root@127.0.0.1:$P2 -k $TMPD/userkey --known-hosts $TMPD/kh"
IMC_LOG=ssh=debug "$IMC" play --no-fallback -c ssh $H "$TMPD/play.yml" >"$TMPD/sshout" 2>&1
rc=$?
[ $rc = 0 ] && ok "the play runs over ssh on both nodes" || { not_ok "the play runs over ssh on both nodes (exit $rc)"; tail -20 "$TMPD/sshout"; }
expect_grep 'persistent shell, framed$' "$TMPD/sshout" "a node with perl gets the framed loop"
expect_grep 'persistent shell, base64$' "$TMPD/sshout" "a node without perl gets base64"
local=$(ls "$TMPD"/res-*.json | grep -v 'res-n[12].json$')
for n in n1 n2; do
	cmp -s "$local" "$TMPD/res-$n.json" &&
		ok "$n: every registered output identical to the local connection's" ||
		{ not_ok "$n: every registered output identical to the local connection's"; diff "$local" "$TMPD/res-$n.json" | head -20; }
	cmp -s "$TMPD/bytes" "$TMPD/copy-$n" && ok "$n: a binary stdin copied exactly" ||
		not_ok "$n: a binary stdin copied exactly"
	cmp -s "$TMPD/bytes" "$TMPD/fetched-$n" && ok "$n: a binary stdout (fetch) read exactly" ||
		not_ok "$n: a binary stdout (fetch) read exactly"
done
# what the comparison compares is the output itself
expect_grep '"slurped": "AAECAwQF' "$local" "the local run read every byte"
expect_grep '"YQFiDQpjw6nigqwg",$' "$local" "the local run's control characters and UTF-8 on stdout"
expect_grep '"AhtbMG0J"$' "$local" "the local run's control characters on stderr"
expect_grep '"out 2999",$' "$local" "the local run's 3000 lines on each stream"
expect_grep '"after-close"$' "$local" "the local run's stderr after stdout closed"

# a command killing the shell under it: the persistent shell is its
# parent (the perl loop, or the shell itself); what it did before stays done
cat >"$TMPD/kill.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - shell: echo ran >>$TMPD/ran-{{ inventory_hostname }}; kill -9 \$PPID
    - shell: echo next >>$TMPD/ran-{{ inventory_hostname }}
EOY
"$IMC" play --no-fallback -c ssh $H "$TMPD/kill.yml" >"$TMPD/kout" 2>&1
rc=$?
[ $rc -ne 0 ] && ok "a lost shell fails the play (exit $rc)" || not_ok "a lost shell fails the play"
for n in n1 n2; do
	[ "$(cat "$TMPD/ran-$n")" = ran ] && ok "$n: the command ran once, and its host's next task did not" ||
		not_ok "$n: the command ran once, and its host's next task did not: $(cat "$TMPD/ran-$n" | tr '\n' ' ')"
done
expect_grep 'UNREACHABLE' "$TMPD/kout" "the host is reported unreachable"
expect_grep "shell ended while running a command" "$TMPD/kout" "the message says the shell ended under the command"
expect_exit 0 "the next run gets a new shell" -- "$IMC" play --no-fallback -c ssh $H "$TMPD/play.yml"
done_testing
