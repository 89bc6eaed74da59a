#!/bin/sh
# t4003: imc play over SSH (libssh) to sshd instances on loopback: the same
# modules as locally, several hosts in parallel, host keys pinned on first
# contact, and a changed host key refused with a clear error.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t4-lib-sshd.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd)"
# openssh-server is installed by scripts/install-deps: its absence is a failure
sshd_available || { not_ok "needs $SSHD and ssh-keygen (openssh-server)"; done_testing; exit 1; }
at_exit 'sshd_stop_all "$TMPD"'
P1=$((20000 + $$ % 20000))
P2=$((P1 + 1))
sshd_keys "$TMPD" && ok "user key made" || { not_ok "ssh-keygen failed"; exit 1; }
sshd_start "$TMPD" 127.0.0.1 $P1 "$TMPD/hk1" && ok "sshd 1 started" || { not_ok "cannot start sshd 1"; exit 1; }
sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk2" && ok "sshd 2 started" || { not_ok "cannot start sshd 2"; exit 1; }
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
expect_exit 0 "play over ssh on two hosts" -- "$IMC" play --no-fallback -c ssh $H -e "$EV" "$TMPD/play.yml"
expect_grep '^n1 +: ok=6 +changed=5 ' "$TMPD/out" "recap n1"
# run_once counts for the host that ran it only, as in Ansible's recap
expect_grep '^n2 +: ok=5 +changed=4 ' "$TMPD/out" "recap n2"
expect_grep '^n1 ssh-ed25519 ' "$TMPD/kh" "host key of n1 pinned"
expect_grep '^n2 ssh-ed25519 ' "$TMPD/kh" "host key of n2 pinned"
expect_grep ' n1$' "$TMPD/s1/facts" "facts and register over ssh"
[ "$(wc -l <"$TMPD/s1/once")" = 1 ] && ok "run_once ran once" || not_ok "run_once ran once"
expect_exit 0 "second run with pinned keys" -- "$IMC" play --no-fallback -c ssh $H -e "$EV" "$TMPD/play.yml"
expect_grep '^n1 +: ok=6 +changed=3 ' "$TMPD/out" "idempotent over ssh"
# delegate_to another SSH host runs there (its session, shared); local_action
# runs here, not on the host; add_host in an SSH run makes a host imc cannot
# reach: a task on it fails as unsupported instead of running elsewhere
cat >"$TMPD/deleg.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - name: on n2 for every host
      shell: echo "{{ inventory_hostname }} ${SSH_CONNECTION##* }" >> {{ dirs['n2'] }}/deleg
      delegate_to: n2
    - name: here
      local_action: shell echo "{{ inventory_hostname }} ${SSH_CONNECTION:-none}" >> {{ dirs['n1'] }}/local
    - add_host: name=extra groups=extras
- hosts: extras
  gather_facts: false
  tasks:
    - command: echo unreachable
EOY
rm -f "$TMPD/s2/deleg" "$TMPD/s1/local"
expect_exit 65 "delegation over ssh, then a task on a host imc cannot reach" -- "$IMC" play --no-fallback -c ssh $H -e "$EV" "$TMPD/deleg.yml"
[ "$(sort "$TMPD/s2/deleg" | tr '\n' ' ')" = "n1 $P2 n2 $P2 " ] && ok "delegate_to n2 ran both on n2" ||
	not_ok "delegate_to n2 ran both on n2: $(cat "$TMPD/s2/deleg" | tr '\n' ' ')"
grep -Eq " ($P1|$P2)( |\$)" "$TMPD/s1/local" && not_ok "local_action ran over ssh" || ok "local_action ran here"
[ "$(wc -l <"$TMPD/s1/local")" = 2 ] && ok "local_action for both hosts" || not_ok "local_action for both hosts"
expect_grep "\[n1 -> 127.0.0.1\]" "$TMPD/out" "the delegation is shown with the delegated host's address"
expect_grep "fatal: \[extra\].*not supported by imc" "$TMPD/out" "the added host's task stops the run as unsupported"

# the connection keyword: 'local' (on a task, or on its block) runs the
# task here, as Ansible runs it on its controller when the inventory sets
# no ansible_connection (IM's SSH hosts have none); 'ssh' is the host's
# own session; a connection imc lacks stops the run, named (exit 65)
cat >"$TMPD/conn.yml" <<'EOY'
- hosts: n1
  gather_facts: false
  tasks:
    - shell: echo "task ${SSH_CONNECTION:-none}" >> {{ dirs['n1'] }}/conn
      connection: local
    - block:
        - shell: echo "block ${SSH_CONNECTION:-none}" >> {{ dirs['n1'] }}/conn
      connection: local
    - shell: echo "ssh ${SSH_CONNECTION##* }" >> {{ dirs['n1'] }}/conn
      connection: ssh
    - command: echo never
      connection: winrm
EOY
rm -f "$TMPD/s1/conn"
expect_exit 65 "the connection keyword over ssh" -- "$IMC" play --no-fallback -c ssh $H -e "$EV" "$TMPD/conn.yml"
[ "$(tr '\n' ' ' <"$TMPD/s1/conn")" = "task none block none ssh $P1 " ] &&
	ok "connection: local ran here, connection: ssh on the host" ||
	not_ok "connection keyword: $(tr '\n' ' ' <"$TMPD/s1/conn")"
expect_grep "fatal: \[n1\].*connection 'winrm': not supported by imc" "$TMPD/out" "an unknown connection fails, named"

# the host key of n2 changes
sshd_stop "$TMPD" 127.0.0.1 $P2
sshd_start "$TMPD" 127.0.0.1 $P2 "$TMPD/hk3" && ok "sshd 2 restarted with another host key" ||
	{ not_ok "cannot restart sshd 2"; exit 1; }
expect_exit 69 "a changed host key is refused" -- "$IMC" play --no-fallback -c ssh $H -e "$EV" "$TMPD/play.yml"
expect_grep "n2: host key verification failed for 127.0.0.1 port $P2" "$TMPD/err" "the error says which host and why"
expect_grep '^n1 +: ok=6 ' "$TMPD/out" "the other host still runs"
expect_grep '^n2 +: ok=0 +changed=0 +unreachable=1 ' "$TMPD/out" "n2 is unreachable in the recap"

# -H and --key mean a remote host: never this machine, with or without -c ssh
cat >"$TMPD/touch.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - file: path=$TMPD/touched state=touch
EOY
expect_exit 69 "-H to a dead address without -c ssh is unreachable" -- \
	"$IMC" play --no-fallback -H localhost=root@127.0.0.1:1 --key "$TMPD/nonexistent" "$TMPD/touch.yml"
expect_grep 'localhost: cannot connect to 127\.0\.0\.1 port 1' "$TMPD/err" "... and says so"
[ ! -e "$TMPD/touched" ] && ok "... and changed nothing here" || not_ok "-H to a dead address touched a local file"
expect_exit 69 "-H to a live sshd with a missing key fails" -- \
	"$IMC" play --no-fallback -H n1=root@127.0.0.1:$P1 --key "$TMPD/nonexistent" --known-hosts "$TMPD/kh" "$TMPD/touch.yml"
expect_grep "nonexistent" "$TMPD/err" "... naming the key"
[ ! -e "$TMPD/touched" ] && ok "... and changed nothing" || not_ok "a missing key still touched the file"
expect_exit 64 "-H with -c local is a usage error" -- \
	"$IMC" play -c local --no-fallback -H n1=root@127.0.0.1:$P1 --key "$TMPD/userkey" "$TMPD/touch.yml"
expect_exit 64 "--key alone (no host) is a usage error" -- "$IMC" play --no-fallback --key "$TMPD/userkey" "$TMPD/touch.yml"
[ ! -e "$TMPD/touched" ] && ok "usage errors changed nothing" || not_ok "a usage error touched the file"
expect_exit 0 "-H with the right key and no -c runs over ssh" -- \
	"$IMC" play --no-fallback -H n1=root@127.0.0.1:$P1 --key "$TMPD/userkey" --known-hosts "$TMPD/kh" "$TMPD/touch.yml"
expect_grep '^n1 +: ok=1 +changed=1 ' "$TMPD/out" "... on host n1"
[ -e "$TMPD/touched" ] && ok "... which made the file" || not_ok "the ssh run did not make the file"

# What the login shell prints before running a module's command (bash run
# by sshd reads its startup files: here BASH_ENV, set by this sshd) is not
# the command's output: a module reports the command's streams only, as
# Ansible's do; raw, a bare command for Ansible too, keeps it.
P3=$((P2 + 1))
printf 'echo NOISE-OUT\necho NOISE-ERR >&2\n' >"$TMPD/noise.rc"
SSHD_EXTRA="SetEnv BASH_ENV=$TMPD/noise.rc" sshd_start "$TMPD" 127.0.0.1 $P3 "$TMPD/hk1" &&
	ok "sshd 3 started (a noisy login shell)" || { not_ok "cannot start sshd 3"; exit 1; }
cat >"$TMPD/noise.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - command: sh -c 'echo out; echo err >&2'
      register: c
    - raw: echo raw
      register: r
    - copy:
        dest: $TMPD/streams
        content: "{{ c.stdout }}|{{ c.stderr }}|{{ r.stdout }}|{{ r.stderr }}\n"
EOY
expect_exit 0 "a play through a noisy login shell" -- "$IMC" play --no-fallback \
	-H n3=root@127.0.0.1:$P3 -k "$TMPD/userkey" --known-hosts "$TMPD/kh3" "$TMPD/noise.yml"
[ "$(head -1 "$TMPD/streams")" = "out|err|raw" ] && ok "command's stdout and stderr are its own" ||
	{ not_ok "command's stdout and stderr are its own"; sed 's/^/#   /' "$TMPD/streams" | head -5; }
expect_grep 'NOISE-ERR' "$TMPD/streams" "raw keeps what the login shell printed"
done_testing
