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

done_testing
