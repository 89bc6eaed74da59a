#!/bin/sh
# t4090: module behaviour that ansible-core 2.14's integration targets of
# file, copy, template, blockinfile, stat, script, command_shell... (run
# from outside by scripts/ansible-targets) showed imc doing differently,
# one play per case asserting what Ansible's module does: a play passes
# (exit 0, failed=0) only if imc behaves as Ansible. Every case names the
# target and task it comes from.
. "$top_srcdir/tests/cli/lib.sh"

# play NAME DESCRIPTION: runs $TMPD/NAME.yml (written just before) natively
play() {
	expect_exit 0 "$2" -- "$IMC" play --no-fallback --connection local -i testhost \
		-g testgroup=testhost -e "d=$TMPD" "$TMPD/$1.yml"
	grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/p' "$TMPD/out" | sed 's/^/#   /' | head -5
}

# script target, "Run create_afile.sh again to ensure it is skipped": a
# creates that exists (or a removes that does not) skips the task, with
# Ansible's reason, before the script is even looked for
mkdir -p "$TMPD/files"
printf '#!/bin/sh\ntouch "$1"\n' >"$TMPD/files/create.sh"
cat >"$TMPD/script-creates.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - script: create.sh {{ d }}/made
      args: { creates: "{{ d }}/made" }
      register: r1
    - script: create.sh {{ d }}/made
      args: { creates: "{{ d }}/made" }
      register: r2
    - script: no-such-script.sh
      args: { removes: "{{ d }}/absent" }
      register: r3
    - assert:
        that:
          - r1 is changed
          - r2 is skipped and r2 is not changed
          - r2.msg == d ~ '/made exists, matching creates option'
          - r3 is skipped
          - r3.msg == d ~ '/absent does not exist, matching removes option'
EOY
play script-creates "script: creates/removes skip the task with Ansible's reason (script)"

# command_shell target, "assert executable warning was reported": command
# ignores executable and warns so in the result's warnings
cat >"$TMPD/command-exe.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - command: ls /dev/null
      args: { executable: /bogus }
      register: r
    - shell: echo $0
      args: { executable: /bin/sh }
      register: s
    - assert:
        that:
          - r.stdout == '/dev/null'
          - r.warnings | length == 1
          - "'no longer supported' in r.warnings[0] and '/bogus' in r.warnings[0]"
          - s.warnings is not defined
EOY
play command-exe "command: executable is ignored with Ansible's warning (command_shell)"

# blockinfile target, multiline_search.yml: an insertafter/insertbefore
# pattern with a leading (?m) is searched in the whole text (it may span
# lines), the block going after the line its first match ends on (before
# the line it starts on); without (?m) it is matched line by line
cat >"$TMPD/bif-multiline.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - copy:
        dest: "{{ d }}/ml.txt"
        content: "a\nX =\n    (Y =\n  z\nX =\n    (Y =\nend\n"
    - blockinfile:
        path: "{{ d }}/ml.txt"
        insertafter: '(?m)X =\n.*\(Y ='
        block: B1
        marker: "# {mark} 1"
      register: r1
    - blockinfile:
        path: "{{ d }}/ml.txt"
        insertbefore: '(?m)X =\n.*\(Y =\nend'
        block: B2
        marker: "# {mark} 2"
    - blockinfile:
        path: "{{ d }}/ml.txt"
        insertafter: 'X =\n.*\(Y ='
        block: B3
        marker: "# {mark} 3"
    - slurp: { src: "{{ d }}/ml.txt" }
      register: s
    - assert:
        that:
          - r1 is changed
          - (s.content | b64decode) == "a\nX =\n    (Y =\n# BEGIN 1\nB1\n# END 1\n  z\n# BEGIN 2\nB2\n# END 2\nX =\n    (Y =\nend\n# BEGIN 3\nB3\n# END 3\n"
EOY
play bif-multiline "blockinfile: a (?m) insertafter/insertbefore spans lines (blockinfile)"

# stat target, "assert" (the keys of a file's stat): inode, dev, nlink,
# blocks, block_size, device_type as os.stat gives them, mimetype/charset
# (from file(1), 'unknown' without it), version/attributes/attr_flags
# (from lsattr); mode as "%04o" of the permission bits (a setuid file's
# is 4755, not 04755); get_mime/get_attributes false leave theirs out
cat >"$TMPD/stat-keys.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - copy: { dest: "{{ d }}/st.txt", content: "hello world", mode: "04755" }
    - stat: { path: "{{ d }}/st.txt" }
      register: r
    - stat: { path: /dev/null, get_mime: false, attributes: false, get_md5: true }
      register: n
    - command: stat -c '%i %d %h %b %o' {{ d }}/st.txt
      register: s
    - assert:
        that:
          - r.stat.mode == '4755'
          - "[r.stat.inode, r.stat.dev, r.stat.nlink, r.stat.blocks, r.stat.block_size] | join(' ') == s.stdout"
          - r.stat.device_type == 0
          - r.stat.mimetype in ['text/plain', 'unknown'] and r.stat.charset in ['us-ascii', 'unknown']
          - "'version' in r.stat and r.stat.attributes is sequence and r.stat.attr_flags is string"
          - n.stat.device_type == 259 and n.stat.ischr
          - "'mimetype' not in n.stat and 'attributes' not in n.stat and 'md5' not in n.stat"
EOY
play stat-keys "stat: Ansible's os.stat, file(1) and lsattr keys, mode as %04o (stat)"

# command_shell target, "assert executable fails with no command": no
# command (or argv and a command both) fails with rc 256 and the keys
# Ansible's command module promises in every result
cat >"$TMPD/command-none.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - command:
      args: { chdir: / }
      register: r1
      ignore_errors: true
    - command: echo a
      args: { argv: [echo, b] }
      register: r2
      ignore_errors: true
    - assert:
        that:
          - r1 is failed and r1.msg == 'no command given' and r1.rc == 256
          - r1.stdout == '' and r1.cmd is none and r1.stdout_lines == []
          - r2 is failed and r2.rc == 256
          - r2.msg == 'only command or argv can be given, not both'
EOY
play command-none "command: no command, or both forms, fail with rc 256 (command_shell)"

# file target, state_link.yml (its unprivileged user): user takes force
# (userdel -f) and createhome (create_home's alias), and its result holds
# the account's uid, group, comment, home and shell (what the target reads
# as user.home). Contained: the play runs in a private mount namespace
# (unshare -m) where /etc is an overlay whose upper layer is in the test's
# temp dir, so useradd and userdel change only that copy; the home is
# under the temp dir.
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null; then
	mkdir -p "$TMPD/etc-u" "$TMPD/etc-w"
	cat >"$TMPD/user-keys.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - user: { name: imc-t4090, uid: 4090, home: "{{ d }}/home-t4090", shell: /bin/sh, createhome: true }
      register: u
    - stat: { path: "{{ d }}/home-t4090" }
      register: h
    - user: { name: imc-t4090, state: absent, force: true, remove: true }
      register: gone
    - assert:
        that:
          - u is changed and u.uid == 4090 and u.home == d ~ '/home-t4090' and u.shell == '/bin/sh'
          - u.group is number and h.stat.isdir
          - gone is changed
EOY
	expect_exit 0 "user: force, createhome, and the account's keys (file)" -- \
		unshare -m --propagation private sh -c "mount -t overlay imc-t4090 -o lowerdir=/etc,upperdir=$TMPD/etc-u,workdir=$TMPD/etc-w /etc && exec '$IMC' play --no-fallback --connection local -i testhost -e d='$TMPD' '$TMPD/user-keys.yml'"
	if grep -q '^imc-t4090:' /etc/passwd; then not_ok "the machine's /etc/passwd changed"; else ok "the machine's /etc/passwd is untouched"; fi
else
	ok "# SKIP user: needs root and useradd (a mount namespace)"
fi

# file target, directory_as_dest.yml and modification_time.yml: state=touch
# with modification_time/access_time preserve changes nothing (and does
# not read the directory: its atime stays); an explicit time (node-local,
# modification_time_format) is set, reported in the diff, changed only
# when it differs, planned alone in check mode; the other states take
# the times too (preserve by default)
cat >"$TMPD/file-times.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - file: { path: "{{ d }}/tdir", state: directory }
    - copy: { dest: "{{ d }}/tdir/f", content: x }
    - stat: { path: "{{ d }}/tdir" }
      register: s0
    - file: { path: "{{ d }}/tdir", state: touch, modification_time: preserve, access_time: preserve }
      register: t0
    - stat: { path: "{{ d }}/tdir" }
      register: s1
    - stat: { path: "{{ d }}/tdir/f" }
      register: f0
    - file: { path: "{{ d }}/tdir/f", modification_time: "202001021304.05" }
      check_mode: true
      register: c1
    - stat: { path: "{{ d }}/tdir/f" }
      register: s2
    - file: { path: "{{ d }}/tdir/f", modification_time: "202001021304.05" }
      register: m1
    - file: { path: "{{ d }}/tdir/f", modification_time: "2020-01-02 13:04:05", modification_time_format: "%Y-%m-%d %H:%M:%S" }
      register: m2
    - command: date -d @{{ m1.diff.after.mtime | int }} '+%Y%m%d%H%M.%S'
      register: back
    - file: { path: "{{ d }}/tdir/f", modification_time: "nonsense" }
      register: bad
      ignore_errors: true
    - assert:
        that:
          - t0 is not changed
          - s1.stat.atime == s0.stat.atime and s1.stat.mtime == s0.stat.mtime
          - c1 is changed and s2.stat.mtime == f0.stat.mtime
          - "'mtime' in c1.diff.after and 'atime' not in c1.diff.after"
          - m1 is changed and m2 is not changed
          - back.stdout == '202001021304.05'
          - bad is failed and bad.msg is search('Error while obtaining timestamp for time nonsense using format')
EOY
play file-times "file: modification_time/access_time, preserve, a format, check mode (file)"

done_testing
