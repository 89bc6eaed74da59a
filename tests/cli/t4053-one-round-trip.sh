#!/bin/sh
# t4053: a module's checks ride in the round trip of what they guard:
# command's chdir/creates/removes in the script that runs the command,
# stat's stat(1)/file(1)/lsattr(1) keys in its stat, copy's and
# template's write in their stat of dest (the node comparing the
# checksum), copy's check of a missing dest's directory in its write
# (a failure takes a round trip more), a stat asked twice with nothing
# sent between (copy's action, then its module, the first asking for the
# checksum the second needs: an unchanged copy is one) asked once, and touch's
# times and absolute mode of a file it creates in its creation, which its
# probe carries. Each task's results are
# asserted (the same as before the merges, Ansible's) and so are its
# round trips (IMC_LOG=exec=debug prints each module run's count).
. "$top_srcdir/tests/cli/lib.sh"
W=$TMPD/w
mkdir -p "$W/d" "$W/tpl"
: >"$W/d/m1"
: >"$W/file"
printf 'x={{ 1 + 1 }}\n' >"$W/tpl/t.j2"
cat >"$TMPD/play.yml" <<EOY
- hosts: localhost
  gather_facts: false
  tasks:
    - name: chdir-creates-glob
      command: echo ran
      args: { chdir: $W/d, creates: "m*" }
      register: r1
    - name: chdir-creates-absent
      shell: pwd; echo "[\$p][\$f]"
      args: { chdir: $W/d, creates: "zz*" }
      register: r2
    - name: removes-absent
      command: echo ran
      args: { removes: $W/d/zz }
      register: r3
    - name: chdir-missing
      command: pwd
      args: { chdir: $W/nope }
      register: r4
      ignore_errors: true
    - name: chdir-file
      command: pwd
      args: { chdir: $W/file }
      register: r5
      ignore_errors: true
    - name: stat-file
      stat: { path: $W/file }
      register: s1
    - name: stat-missing
      stat: { path: $W/nope }
      register: s2
    - name: copy-new
      copy: { content: "a=1\n", dest: $W/c.conf, mode: "0640" }
      register: c1
    - name: copy-same
      copy: { content: "a=1\n", dest: $W/c.conf, mode: "0640" }
      register: c2
    - name: copy-no-parent
      copy: { content: "a=1\n", dest: $W/nodir/c.conf }
      register: c3
      ignore_errors: true
    - name: template-new
      template: { src: $W/tpl/t.j2, dest: $W/t.conf }
      register: t1
    - name: touch-new
      file: { path: $W/touched, state: touch, mode: "0600" }
      register: f1
    - assert:
        that:
          - 'r1 is not changed and r1.stdout == ''skipped, since m* exists'''
          - 'r1.msg == "Did not run command since ''m*'' exists"'
          - 'r2 is changed and r2.stdout_lines == [''$W/d'', ''[][]'']'
          - 'r3 is not changed and r3.msg == "Did not run command since ''$W/d/zz'' does not exist"'
          - 'r4 is failed and r4.msg == "Unable to change directory before execution: [Errno 2] No such file or directory: b''$W/nope''"'
          - 'r5 is failed and r5.msg == "Unable to change directory before execution: [Errno 20] Not a directory: b''$W/file''"'
          - 's1.stat.exists and s1.stat.isreg and s1.stat.nlink == 1 and s1.stat.checksum == ''da39a3ee5e6b4b0d3255bfef95601890afd80709'''
          - 's1.stat.mimetype is string and s1.stat.block_size > 0'
          - 'not s2.stat.exists and s2.stat | length == 1'
          - 'c1 is changed and c1.mode == ''0640'' and c1.size == 4'
          - 'c2 is not changed'
          - 'c3 is failed and c3.msg == ''Destination directory $W/nodir does not exist'''
          - 't1 is changed and t1.size == 4'
          - 'f1 is changed and f1.mode == ''0600'' and f1.diff.after.mtime is defined'
EOY
IMC_LOG=exec=debug "$IMC" play -c local --no-fallback "$TMPD/play.yml" >"$TMPD/out" 2>"$TMPD/err" &&
	ok "the play ran and its asserts held" ||
	{ not_ok "the play ran and its asserts held"; sed 's/^/#   /' "$TMPD/out" "$TMPD/err" | tail -30; }
sed -n 's/.* localhost: \([a-z-]*\): \([0-9]*\) round trips$/\1 \2/p' "$TMPD/err" >"$TMPD/got"
cat >"$TMPD/want" <<EOW
chdir-creates-glob 1
chdir-creates-absent 1
removes-absent 1
chdir-missing 1
chdir-file 1
stat-file 1
stat-missing 1
copy-new 1
copy-same 1
copy-no-parent 2
template-new 1
touch-new 1
assert 0
EOW
if diff "$TMPD/want" "$TMPD/got" >"$TMPD/diff"; then
	ok "round trips per task as expected"
else
	not_ok "round trips per task as expected"
	sed 's/^/#   /' "$TMPD/diff"
fi
[ "$(cat "$W/c.conf")" = a=1 ] && [ "$(cat "$W/t.conf")" = x=2 ] && [ ! -e "$W/nodir" ] &&
	[ "$(stat -c %a "$W/touched")" = 600 ] &&
	ok "the files are as the play left them" || not_ok "the files are as the play left them"
done_testing
