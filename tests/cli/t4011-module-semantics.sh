#!/bin/sh
# t4011: the file-editing modules and the loop/rescue keywords behave as
# ansible-core 2.14's: file's states over each kind of existing path (link
# refuses a file without force, hard creates links), validate= refusing
# the write in lineinfile, blockinfile, replace, copy and template, the
# backup file names, the diff keyword, failed_when_result, path
# information on failures, set_fact accumulating over a loop, and the
# rescued count of the recap. The playbooks assert on registered results;
# the same playbooks run under ansible-playbook too (outside the sanitizer
# pass), so the assertions are Ansible's behaviour, not imc's.
. "$top_srcdir/tests/cli/lib.sh"

mkdir -p "$TMPD/pb"
printf 'a=1\nbad\n' >"$TMPD/pb/tpl.j2"
cat >"$TMPD/pb/mods.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    d: "{{ scratch }}"
  tasks:
    # ---- file: state x the path's previous kind x force
    - shell: rm -rf {{ d }}; mkdir -p {{ d }}/dir && echo data > {{ d }}/src && echo old > {{ d }}/reg && touch {{ d }}/dir/x
    - name: link over a regular file without force is refused
      file: path={{ d }}/reg src={{ d }}/src state=link
      register: r
      ignore_errors: true
    - assert:
        that:
          - r is failed and not r.changed
          - r.msg == 'refusing to convert from file to symlink for ' ~ d ~ '/reg'
          - r.path == d ~ '/reg' and r.state == 'file' and r.size == 4 and r.mode == '0644'
    - stat: path={{ d }}/reg
      register: s
    - assert:
        that: s.stat.isreg and not s.stat.islnk
    - name: link over a file with force replaces it
      file: path={{ d }}/reg src={{ d }}/src state=link force=yes
      register: r
    - stat: path={{ d }}/reg follow=no
      register: s
    - assert:
        that:
          - r.changed and r.state == 'link' and r.dest == d ~ '/reg' and r.src == d ~ '/src'
          - r.diff.before.state == 'file' and r.diff.after.state == 'link'
          - s.stat.islnk and s.stat.lnk_source == d ~ '/src'
    - name: link over a non-empty directory is refused, even with force
      file: path={{ d }}/dir src={{ d }}/src state=link force=yes
      register: r
      ignore_errors: true
    - assert:
        that: r is failed and r.msg == 'the directory ' ~ d ~ '/dir is not empty, refusing to convert it'
    - name: link to a missing source without force
      file: path={{ d }}/l2 src={{ d }}/nowhere state=link
      register: r
      ignore_errors: true
    - assert:
        that: r is failed and r.msg is search('src file does not exist, use "force=yes"')
    - name: hard link is created
      file: path={{ d }}/hard src={{ d }}/src state=hard
      register: r
    - command: stat -c %h {{ d }}/hard
      register: s
      changed_when: false
    - assert:
        that:
          - r.changed and r.state == 'hard' and r.src == d ~ '/src'
          - s.stdout == '2'
    - name: hard link again is unchanged
      file: path={{ d }}/hard src={{ d }}/src state=hard
      register: r
    - assert:
        that: not r.changed
    - shell: echo other > {{ d }}/plain
    - name: hard link over a different file without force is refused
      file: path={{ d }}/plain src={{ d }}/src state=hard
      register: r
      ignore_errors: true
    - assert:
        that:
          - r is failed and r.msg == 'Cannot link, file exists at destination'
          - r.dest == d ~ '/plain' and r.size == 6
    - name: hard link over a file with force
      file: path={{ d }}/plain src={{ d }}/src state=hard force=true
      register: r
    - assert:
        that: r.changed and r.state == 'hard' and r.size == 5
    - name: state=file on a directory
      file: path={{ d }}/dir state=file
      register: r
      ignore_errors: true
    - assert:
        that: r is failed and r.msg == 'file (' ~ d ~ '/dir) is directory, cannot continue' and r.state == 'directory'
    - name: state=directory on a file
      file: path={{ d }}/src state=directory
      register: r
      ignore_errors: true
    - assert:
        that: r is failed and r.msg == d ~ '/src already exists as a hard'
    - name: src with state=file
      file: path={{ d }}/new src={{ d }}/src state=file
      register: r
      ignore_errors: true
    - assert:
        that: r is failed and r.msg == "src option requires state to be 'link' or 'hard'"
    - name: absent on a directory
      file: path={{ d }}/dir state=absent
      register: r
    - assert:
        that: r.changed and r.diff.before.state == 'directory' and r.diff.after.state == 'absent'
    # ---- validate
    - copy: content="a=1\n" dest={{ d }}/conf
    - name: lineinfile refuses what validate rejects
      lineinfile: path={{ d }}/conf line="bad line" validate="sh -c '! grep -q bad %s'"
      register: r
      ignore_errors: true
    - assert:
        that: "r is failed and r.msg is match('failed to validate: rc:1 error:')"
    - name: lineinfile without %s in validate
      lineinfile: path={{ d }}/conf line="x=2" validate="true"
      register: r
      ignore_errors: true
    - assert:
        that: "r is failed and r.msg == 'validate must contain %s: true'"
    - name: lineinfile writes what validate accepts, with a backup
      lineinfile: path={{ d }}/conf line="b=2" validate="grep -q b=2 %s" backup=yes
      register: r
    - assert:
        that:
          - r.changed and r.backup is match(d ~ '/conf\\.[0-9]+\\.[0-9-]+@[0-9:]+~$')
          - lookup('file', r.backup) == 'a=1'
    - name: blockinfile refuses what validate rejects
      blockinfile: path={{ d }}/conf block="bad" validate="sh -c '! grep -q bad %s'"
      register: r
      ignore_errors: true
    - assert:
        that: "r is failed and r.msg is match('failed to validate: rc:1 error:')"
    - name: blockinfile with a backup
      blockinfile: path={{ d }}/conf block="c=3" backup=yes
      register: r
    - assert:
        that: r.changed and lookup('file', r.backup_file) == 'a=1\nb=2'
    - name: replace refuses what validate rejects
      replace: path={{ d }}/conf regexp="a=1" replace="bad" validate="sh -c '! grep -q bad %s'"
      register: r
      ignore_errors: true
    - name: copy refuses what validate rejects
      copy: content="bad\n" dest={{ d }}/conf validate="sh -c '! grep -q bad %s'"
      register: c
      ignore_errors: true
    - name: template refuses what validate rejects
      template: src=tpl.j2 dest={{ d }}/conf validate="sh -c '! grep -q bad %s'"
      register: t
      ignore_errors: true
    - assert:
        that:
          - "r is failed and r.msg is match('failed to validate: rc:1 error:')"
          - c is failed and c.msg == 'failed to validate' and c.exit_status == 1
          - t is failed and t.msg == 'failed to validate'
          - lookup('file', d ~ '/conf') is search('^a=1\nb=2\n')
    - name: replace and copy with a backup
      replace: path={{ d }}/conf regexp="a=1" replace="a=9" backup=yes
      register: r
    - copy: content="new\n" dest={{ d }}/conf backup=yes
      register: c
    - assert:
        that:
          - r.changed and r.msg == '1 replacements made' and lookup('file', r.backup_file) is search('^a=1')
          - c.changed and lookup('file', c.backup_file) is search('^a=9')
    # ---- diff keyword
    - copy: content="one\n" dest={{ d }}/df
    - lineinfile: path={{ d }}/df line=two
      diff: true
      register: r
    - lineinfile: path={{ d }}/df line=three
      register: r2
    - assert:
        that:
          - r.diff[0].before == 'one\n' and r.diff[0].after == 'one\ntwo\n'
          - r.diff[0].before_header == d ~ '/df (content)'
          - r2.diff[0].before == '' and r2.diff[0].after == ''
    - copy: content="new\n" dest={{ d }}/df2
      diff: true
      register: c
    - copy: content="newer\n" dest={{ d }}/df2
      diff: true
      register: c2
    - copy: content="newest\n" dest={{ d }}/df2
      register: c3
    - copy: content="newest\n" dest={{ d }}/df2
      register: c4
    - assert:
        that:
          - c.diff[0].before == '' and c.diff[0].after == 'new\n'
          - c2.diff[0].before == 'new\n' and c2.diff[0].before_header == d ~ '/df2'
          - c2.diff[0].after == 'newer\n'
          - c3.diff == [] and c4.diff.before.path == d ~ '/df2'
    # ---- keywords
    - set_fact:
        acc: "{{ (acc | default([])) + [item] }}"
      loop: [1, 2, 3]
    - assert:
        that: acc == [1, 2, 3]
    - command: 'false'
      register: fw
      failed_when: fw.rc == 5
    - assert:
        that: fw.failed_when_result == false and fw is not failed and fw.rc == 1

EOY
cat >"$TMPD/pb/rescue.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - block:
        - block:
            - command: /bin/false
          rescue:
            - fail: msg="the inner rescue fails"
      rescue:
        - debug: msg=outer
    - block:
        - command: /bin/false
      rescue:
        - fail: msg="the rescue fails"
EOY

# pb NAME IMC ANSIBLE: runs playbook NAME under imc, and under
# ansible-playbook when this is not the sanitizer pass, expecting those
# exit statuses (a failed host: imc's 1, ansible-playbook's 2)
pb() {
	expect_exit "$2" "$1: imc play" -- "$IMC" play --connection local --no-fallback \
		-e scratch="$TMPD/imc" "$TMPD/pb/$1.yml"
	cp "$TMPD/out" "$TMPD/$1.imc"
	if [ "${IMC_TEST_LONG:-1}" = 1 ]; then
		expect_exit "$3" "$1: ansible-playbook" -- env ANSIBLE_NOCOLOR=1 ansible-playbook \
			-i localhost, -c local -e scratch="$TMPD/ansible" "$TMPD/pb/$1.yml"
		cp "$TMPD/out" "$TMPD/$1.ansible"
	fi
}

pb mods 0 0
expect_no_grep 'Assertion failed' "$TMPD/mods.imc" "every assertion holds under imc"

# Ansible counts rescued when a task fails inside a block with rescue,
# whatever the rescue then does: 2 in the nested block, 1 in the last
pb rescue 1 2
recap='^localhost +: ok=1 +changed=0 +unreachable=0 +failed=1 +skipped=0 +rescued=3 +ignored=0'
expect_grep "$recap" "$TMPD/rescue.imc" "imc's recap counts 3 rescued and 1 failed"
[ "${IMC_TEST_LONG:-1}" = 1 ] &&
	expect_grep "$recap" "$TMPD/rescue.ansible" "ansible-playbook's recap is the same"
done_testing
