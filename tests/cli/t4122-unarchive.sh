#!/bin/sh
# t4122: the unarchive module as Ansible 2.14's action and module (issue
# 17 item 2): a second extraction of the same tar is unchanged (tar
# --diff read as Ansible reads it) and a member changed since is
# extracted again; the handler (TgzArchive, TarArchive), extract_results'
# cmd, list_files, exclude, extra_opts, creates (skipped), check mode
# with a tar (skipped, nothing extracted, as Ansible's module exits
# there), and the action's and module's failures (dest missing, copy
# with remote_src, a missing or empty remote src). The expected values
# are what ansible-playbook 2.14 gave for the same play, run as
#   ansible-playbook -i localhost, -c local -e d=DIR t4122.yml
# with the asserts replaced by a copy of every registered result: all
# equal but src (Ansible's temporary directory) and the 'exception' key
# of the action's failures. Archives are made by the test in its temp dir.
. "$top_srcdir/tests/cli/lib.sh"

d=$TMPD/w
mkdir -p "$d/files" "$d/out" "$d/out2" "$d/out3" "$d/out4" "$d/src/top"
printf 'one\n' >"$d/src/top/one"
printf 'two\n' >"$d/src/top/two"
printf 'three\n' >"$d/src/three"
touch -d '2020-01-02 03:04:05' "$d/src/top/one" "$d/src/top/two" "$d/src/three" "$d/src/top"
(cd "$d/src" && tar -czf ../files/a.tar.gz top && tar -cf ../files/b.tar three top/one)
: >"$d/files/empty.tar"

cat >"$TMPD/ua.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out" }
      register: r1
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out" }
      register: r2
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out2" }
      check_mode: true
      register: c3
    - stat: { path: "{{ d }}/out2/top/one" }
      register: s3
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out", creates: "{{ d }}/out/top" }
      register: r4
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/missing" }
      register: f5
      ignore_errors: true
    - unarchive: { src: "{{ d }}/nothere.tar", dest: "{{ d }}/out", remote_src: true }
      register: f6
      ignore_errors: true
    - unarchive: { src: "{{ d }}/files/b.tar", dest: "{{ d }}/out2", remote_src: true, list_files: true, mode: "0600" }
      register: r7
    - unarchive: { src: "{{ d }}/files/b.tar", dest: "{{ d }}/out2", remote_src: true, list_files: true, mode: "0600" }
      register: r7b
    - stat: { path: "{{ d }}/out2/three" }
      register: s7
    - copy: { dest: "{{ d }}/out/top/one", content: "changed\n" }
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out" }
      register: r8
    - command: cat {{ d }}/out/top/one
      register: one
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out", copy: false, remote_src: true }
      register: f9
      ignore_errors: true
    - unarchive: { src: "{{ d }}/files/empty.tar", dest: "{{ d }}/out", remote_src: true }
      register: f10
      ignore_errors: true
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out3", exclude: [top/two], list_files: true }
      register: r11
    - stat: { path: "{{ d }}/out3/top/two" }
      register: s11
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out4", remote_src: yes, extra_opts: [--strip-components=1] }
      register: r12
    - unarchive: { src: "{{ d }}/files/a.tar.gz", dest: "{{ d }}/out4", remote_src: yes, extra_opts: [--strip-components=1] }
      register: r12b
    - assert:
        that:
          - r1.changed and r1.handler == 'TgzArchive' and r1.dest == d ~ '/out' and r1.state == 'directory'
          - r1.extract_results.rc == 0 and r1.extract_results.cmd[1:5] == ['--extract', '-C', d ~ '/out', '-z']
          - r1.extract_results.cmd[5] == '-f' and r1.extract_results.cmd[6] == r1.src and r1.extract_results.out == ''
          - not r2.changed and r2.extract_results is not defined and r2.handler == 'TgzArchive' and r2.mode == '0755'
          - c3 is skipped and not c3.changed and c3.msg == 'remote module (ansible.legacy.unarchive) does not support check mode when using gtar'
          - not s3.stat.exists
          - r4 is skipped and r4.msg == 'skipped, since ' ~ d ~ '/out/top exists'
          - f5 is failed and f5.msg == "dest '" ~ d ~ "/missing' must be an existing dir"
          - f6 is failed and f6.msg == "Source '" ~ d ~ "/nothere.tar' does not exist"
          - r7.changed and r7.handler == 'TarArchive' and r7.files == ['three', 'top/one'] and r7.src == d ~ '/files/b.tar'
          - r7.extract_results.cmd[1:] == ['--extract', '-C', d ~ '/out2', '-f', d ~ '/files/b.tar']
          - not r7b.changed and r7b.files == ['three', 'top/one'] and s7.stat.mode == '0600'
          - r8.changed and one.stdout == 'one'
          - "f9 is failed and f9.msg == \"parameters are mutually exclusive: ('copy', 'remote_src')\""
          - f10 is failed and f10.msg == "Invalid archive '" ~ d ~ "/files/empty.tar', the file is 0 bytes"
          - r11.changed and r11.files == ['top/', 'top/one'] and not s11.stat.exists
          - "r11.extract_results.cmd[5] == '--exclude=top/two'"
          - "r12.changed and r12.extract_results.cmd[5:7] == ['--show-transformed-names', '--strip-components=1']"
          - not r12b.changed
EOY
# the node's temporary directory goes under TMPDIR (this test's own, so
# that another test's unarchive running meanwhile is not counted: that made
# this check fail under make -j2)
mkdir -p "$TMPD/nodetmp"
expect_exit 0 "unarchive: results, idempotence and check mode as Ansible's" -- \
	env TMPDIR="$TMPD/nodetmp" "$IMC" play --no-fallback --connection local -i testhost -e "d=$d" "$TMPD/ua.yml"
grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/,+2p' "$TMPD/out" | sed 's/^/#   /' | head -20
if [ -n "$(find "$TMPD/nodetmp" -maxdepth 1 -name '.imc_ar.*')" ]; then
	not_ok "unarchive left its temporary directory"
else
	ok "unarchive removed its temporary directories"
fi

done_testing
