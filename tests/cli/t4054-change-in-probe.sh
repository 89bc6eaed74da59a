#!/bin/sh
# t4054: a change decided by a module's first stat rides in that stat's
# round trip: the file module's probe carries absent's removal, directory's
# mkdir and touch's creation (with an absolute mode), copy's and template's
# stat of dest carries the write (module-util.c's mod_stat_write, the node
# comparing the checksum). Each change runs only where the module would
# make it: the cases where the module fails or stops after its stat
# (src or recurse with the wrong state, a directory
# dest, a missing directory, a relative mode, backup) change nothing they
# did not change before, fail with the same messages, and take the round
# trips counted here (IMC_LOG=exec=debug prints each module run's count);
# times with absent or recurse, which imc refuses, stop the run after the
# probe, changing nothing.
. "$top_srcdir/tests/cli/lib.sh"
W=$TMPD/w
mkdir -p "$W/dd" "$W/tpl"
printf 'old\n' >"$W/f1"
printf 'keep\n' >"$W/f2"
: >"$W/plain"
printf 'x={{ 1 + 1 }}\n' >"$W/tpl/t.j2"
umask 022
cat >"$TMPD/play.yml" <<EOY
- hosts: localhost
  gather_facts: false
  tasks:
    - name: dir-with-src
      file: { path: $W/n1, state: directory, src: $W/f1 }
      register: g1
      ignore_errors: true
    - name: touch-with-recurse
      file: { path: $W/n2, state: touch, recurse: true }
      register: g3
      ignore_errors: true
    - name: dir-under-file
      file: { path: $W/plain/sub, state: directory }
      register: g5
      ignore_errors: true
    - name: touch-no-parent
      file: { path: $W/nodir/t, state: touch }
      register: g6
      ignore_errors: true
    - name: touch-symbolic
      file: { path: $W/t1, state: touch, mode: "u=rw,g=r,o=" }
      register: t1
    - name: touch-relative
      file: { path: $W/t2, state: touch, mode: "u+x" }
      register: t2
    - name: touch-same-mode
      file: { path: $W/t3, state: touch, mode: "0644" }
      register: t3
    - name: absent-file
      file: { path: $W/t3, state: absent }
      register: a1
    - name: absent-dir
      file: { path: $W/dd, state: absent }
      register: a2
    - name: copy-changed
      copy: { content: "new\n", dest: $W/f1 }
      register: c1
    - name: copy-into-dir
      copy: { content: "x\n", dest: $W/tpl }
      register: c2
      ignore_errors: true
    - name: copy-relative-mode
      copy: { content: "y\n", dest: $W/c3, mode: "g+w" }
      register: c3
    - name: copy-backup
      copy: { content: "z\n", dest: $W/f2, backup: true }
      register: c4
    - name: copy-owner
      copy: { content: "o\n", dest: $W/c5, owner: "$(id -un)", mode: "0600" }
      register: c5
    - name: template-changed
      template: { src: $W/tpl/t.j2, dest: $W/f1 }
      register: c6
    - assert:
        that:
          - 'g1 is failed and g1.msg == "src option requires state to be ''link'' or ''hard''"'
          - 'g3 is failed and g3.msg == "recurse option requires state to be ''directory''"'
          - 'g5 is failed and g5.msg.startswith("There was an issue creating $W/plain/sub as requested: ") and g5.path == "$W/plain/sub"'
          - 'g6 is failed and g6.msg.startswith("Error, could not touch target: ") and g6.path == "$W/nodir/t"'
          - 't1 is changed and t1.mode == "0640" and t1.diff.before.mode == "0644" and t1.diff.after.mode == "0640"'
          - 't1.diff.after.mtime is defined and t1.diff.before.state == "absent"'
          - 't2 is changed and t2.mode == "0744" and t2.diff.before.mode == "0644" and t2.diff.after.mode == "0744"'
          - 't3 is changed and t3.mode == "0644" and t3.diff.before.mode is not defined'
          - 'a1 is changed and a1.state == "absent" and a2 is changed and a2.diff.before.state == "directory"'
          - 'c1 is changed and c1.md5sum == "9cd599a3523898e6a12e13ec787da50a" and c1.size == 4'
          - 'c2 is failed and c2.msg == "can not use content with a dir as dest"'
          - 'c3 is changed and c3.mode == "0664"'
          - 'c4 is changed and c4.backup_file is defined and c4.backup_file.startswith("$W/f2.")'
          - 'c5 is changed and c5.mode == "0600" and c5.owner == "$(id -un)"'
          - 'c6 is changed and c6.size == 4'
EOY
IMC_LOG=exec=debug "$IMC" play -c local --no-fallback "$TMPD/play.yml" >"$TMPD/out" 2>"$TMPD/err" &&
	ok "the play ran and its asserts held" ||
	{ not_ok "the play ran and its asserts held"; sed 's/^/#   /' "$TMPD/out" "$TMPD/err" | tail -30; }
sed -n 's/.* localhost: \([a-z-]*\): \([0-9]*\) round trips$/\1 \2/p' "$TMPD/err" >"$TMPD/got"
cat >"$TMPD/want" <<EOW
dir-with-src 1
touch-with-recurse 1
dir-under-file 2
touch-no-parent 2
touch-symbolic 1
touch-relative 2
touch-same-mode 1
absent-file 1
absent-dir 3
copy-changed 1
copy-into-dir 1
copy-relative-mode 2
copy-backup 3
copy-owner 1
template-changed 1
assert 0
EOW
if diff "$TMPD/want" "$TMPD/got" >"$TMPD/diff"; then
	ok "round trips per task as expected"
else
	not_ok "round trips per task as expected"
	sed 's/^/#   /' "$TMPD/diff"
fi
# what the failed tasks must not have made or removed, and what the
# others left
[ ! -e "$W/n1" ] && [ "$(cat "$W/f2")" = z ] && [ ! -e "$W/n2" ] && [ ! -e "$W/n3" ] &&
	[ ! -e "$W/nodir" ] && [ -f "$W/plain" ] &&
	ok "the failed tasks changed nothing" || not_ok "the failed tasks changed nothing"
[ "$(cat "$W/f1")" = x=2 ] && [ ! -e "$W/tpl/tpl" ] && [ "$(cat "$W/c3")" = y ] &&
	[ "$(stat -c %a "$W/t1")" = 640 ] && [ ! -e "$W/t3" ] && [ ! -e "$W/dd" ] &&
	[ "$(ls "$W" | grep -c '^f2\.')" = 1 ] && [ "$(stat -c %a "$W/c5")" = 600 ] &&
	ok "the files are as the play left them" || not_ok "the files are as the play left them"
# times imc's file module does not set (with absent, or on what recurse
# reaches) are refusals: the run stops after the probe, nothing changed
for c in "absent-with-time|path: $W/f2, state: absent|modification_time with state=absent" \
	"dir-recurse-time|path: $W/n3, state: directory, recurse: true|modification_time with recurse"; do
	name=${c%%|*} rest=${c#*|} args=${rest%%|*} msg=${rest#*|}
	printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - name: %s\n      file: { %s, modification_time: now }\n      ignore_errors: true\n' \
		"$name" "$args" >"$TMPD/refused.yml"
	expect_exit 65 "$name: refused, whatever ignore_errors says" -- env IMC_LOG=exec=debug "$IMC" play -c local --no-fallback "$TMPD/refused.yml"
	expect_grep "imc's file module does not set $msg \\(the run stopped there" "$TMPD/err" "... saying why"
	expect_grep " localhost: $name: 1 round trips\$" "$TMPD/err" "... after one round trip"
done
[ "$(cat "$W/f2")" = z ] && [ ! -e "$W/n3" ] && ok "the refused tasks changed nothing" || not_ok "the refused tasks changed nothing"
done_testing
