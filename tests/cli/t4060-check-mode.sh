#!/bin/sh
# t4060: imc play --check and --diff, and the native check mode of command,
# shell, lineinfile and blockinfile: under --check nothing on the node
# changes (the tree is compared before and after), `changed`, the results
# and the --diff log are ansible-playbook's (the expected text below is
# ansible-playbook 2.14's own output for the same play, with the scratch
# directory written @D@), and a task with check_mode: false still runs.
# Everything stays under $TMPD.
. "$top_srcdir/tests/cli/lib.sh"

D="$TMPD/s"
tree() { (cd "$D" && find . -printf '%p %m %s %y\n' | sort && find . -type f | sort | xargs md5sum); }

# the fixture and the play (run with --check --diff)
mkdir -p "$D"
printf 'a\nb\nc\n' >"$D/f.txt"
printf 'x\n# BEGIN ANSIBLE MANAGED BLOCK\nold\n# END ANSIBLE MANAGED BLOCK\n' >"$D/b.txt"
chmod 644 "$D/f.txt"
chmod 600 "$D/b.txt"
: >"$D/exists"
cat >"$TMPD/play.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - name: command without creates
      command: touch $D/ran1
    - name: shell whose creates exists
      shell: touch $D/ran2
      args: {creates: $D/exists}
    - name: command whose creates is missing
      command: touch $D/ran3
      args: {creates: $D/nope}
    - name: lineinfile adds
      lineinfile: {path: $D/f.txt, line: zz, insertafter: "^a"}
    - name: lineinfile creates
      lineinfile: {path: $D/new/g.txt, line: q, create: true, mode: "0600"}
    - name: lineinfile mode only
      lineinfile: {path: $D/f.txt, line: b, mode: "0640"}
    - name: lineinfile validate
      lineinfile: {path: $D/f.txt, line: v, validate: "false %s", backup: true}
    - name: blockinfile replaces
      blockinfile: {path: $D/b.txt, block: new}
    - name: blockinfile creates
      blockinfile: {path: $D/c.txt, block: new, create: true}
    - name: blockinfile removes
      blockinfile: {path: $D/b.txt, state: absent}
    - name: check_mode false runs
      lineinfile: {path: $D/real.txt, line: real, create: true}
      check_mode: false
    - name: the variable
      debug: {var: ansible_check_mode}
EOY
cat >"$TMPD/expected" <<'EOT'

PLAY [all] *********************************************************************

TASK [command without creates] *************************************************
skipping: [localhost]

TASK [shell whose creates exists] **********************************************
ok: [localhost]

TASK [command whose creates is missing] ****************************************
changed: [localhost]

TASK [lineinfile adds] *********************************************************
--- before: @D@/f.txt (content)
+++ after: @D@/f.txt (content)
@@ -1,3 +1,4 @@
 a
+zz
 b
 c

changed: [localhost]

TASK [lineinfile creates] ******************************************************
--- before: @D@/new/g.txt (content)
+++ after: @D@/new/g.txt (content)
@@ -0,0 +1 @@
+q

changed: [localhost]

TASK [lineinfile mode only] ****************************************************
--- before: @D@/f.txt (file attributes)
+++ after: @D@/f.txt (file attributes)
@@ -1,3 +1,3 @@
 {
-    "mode": "0644"
+    "mode": "0640"
 }

changed: [localhost]

TASK [lineinfile validate] *****************************************************
--- before: @D@/f.txt (content)
+++ after: @D@/f.txt (content)
@@ -1,3 +1,4 @@
 a
 b
 c
+v

changed: [localhost]

TASK [blockinfile replaces] ****************************************************
--- before: @D@/b.txt (content)
+++ after: @D@/b.txt (content)
@@ -1,4 +1,4 @@
 x
 # BEGIN ANSIBLE MANAGED BLOCK
-old
+new
 # END ANSIBLE MANAGED BLOCK

changed: [localhost]

TASK [blockinfile creates] *****************************************************
--- before: @D@/c.txt (content)
+++ after: @D@/c.txt (content)
@@ -0,0 +1,3 @@
+# BEGIN ANSIBLE MANAGED BLOCK
+new
+# END ANSIBLE MANAGED BLOCK

changed: [localhost]

TASK [blockinfile removes] *****************************************************
--- before: @D@/b.txt (content)
+++ after: @D@/b.txt (content)
@@ -1,4 +1 @@
 x
-# BEGIN ANSIBLE MANAGED BLOCK
-old
-# END ANSIBLE MANAGED BLOCK

changed: [localhost]

TASK [check_mode false runs] ***************************************************
--- before: @D@/real.txt (content)
+++ after: @D@/real.txt (content)
@@ -0,0 +1 @@
+real

changed: [localhost]

TASK [the variable] ************************************************************
ok: [localhost] => {
    "ansible_check_mode": true
}

PLAY RECAP *********************************************************************
localhost                  : ok=11   changed=9    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0   

EOT
tree >"$TMPD/before"
expect_exit 0 "--check --diff runs the play" -- "$IMC" play --no-fallback --check --diff "$TMPD/play.yml"
sed "s|$D|@D@|g" "$TMPD/out" >"$TMPD/got"
if diff -u "$TMPD/expected" "$TMPD/got" >"$TMPD/d"; then
	ok "the log (changed, skipping, the diffs, the recap) is ansible-playbook's"
else
	not_ok "the log is ansible-playbook's"; sed 's/^/#   /' "$TMPD/d" | head -40
fi
[ -f "$D/real.txt" ] && ok "a task with check_mode: false changes the node" ||
	not_ok "a task with check_mode: false changes the node"
rm -f "$D/real.txt"
tree >"$TMPD/after"
if cmp -s "$TMPD/before" "$TMPD/after"; then
	ok "check mode changed nothing else (files, modes, contents; no backup)"
else
	not_ok "check mode changed nothing else"; diff "$TMPD/before" "$TMPD/after" | sed 's/^/#   /'
fi

# without --check, --diff shows the same diffs and the node changes (up
# to the validation, which fails for real then)
expect_exit 1 "--diff alone runs the play, up to the failing validation" -- "$IMC" play --no-fallback --diff "$TMPD/play.yml"
expect_grep '^-    "mode": "0644"$' "$TMPD/out" "--diff alone prints the attribute diff"
[ -f "$D/ran1" ] && [ -f "$D/new/g.txt" ] && ok "without --check the tasks ran" ||
	not_ok "without --check the tasks ran"

# the registered results in check mode, as Ansible's (its values asserted)
rm -rf "$D"
mkdir -p "$D"
printf 'a\n' >"$D/f.txt"
: >"$D/exists"
cat >"$TMPD/regs.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - command: touch $D/ran1
      register: r1
    - shell: touch $D/ran2
      args: {creates: $D/exists}
      register: r2
    - command: touch $D/ran3
      args: {removes: $D/exists}
      register: r3
    - command: touch $D/ran4
      args: {removes: $D/nope}
      register: r4
    - lineinfile: {path: $D/f.txt, line: b, backup: true}
      register: r5
    - lineinfile: {path: $D/g.txt, line: b, create: true, mode: "0600"}
      register: r6
    - blockinfile: {path: $D/f.txt, block: x, owner: root}
      register: r7
    - lineinfile: {path: $D/f.txt, line: a, owner: no-such-user-imc}
      register: r8
      ignore_errors: true
    - assert:
        that:
          - r1 is skipped and r1 is not changed and r1 is not failed
          - r1.msg == "Command would have run if not in check mode" and r1.rc == 0
          - r1.stdout == "" and r1.start is none and r1.cmd == ["touch", "$D/ran1"]
          - r2 is not changed and r2 is not skipped
          - r2.msg == "Would not run command since '$D/exists' exists"
          - r2.stdout == "skipped, since $D/exists exists" and r2.rc == 0
          - r3 is changed and r3.msg == "Command would have run if not in check mode"
          - r4 is not changed and r4.msg == "Would not run command since '$D/nope' does not exist"
          - r5 is changed and r5.msg == "line added" and r5.backup == ""
          - r6 is changed and r6.msg == "line added" and r6.diff is mapping
          - r7 is changed and r7.msg == "Block inserted"
          - 'r8 is failed and r8.msg == "chown failed: failed to look up user no-such-user-imc"'
          - r8.path == "$D/f.txt"
EOY
expect_exit 0 "registered check-mode results are Ansible's" -- "$IMC" play --no-fallback --check \
	"$TMPD/regs.yml"
[ "$(cd "$D" && ls | tr '\n' ' ')" = "exists f.txt " ] && [ "$(cat "$D/f.txt")" = a ] &&
	ok "... and nothing ran or was written" || not_ok "... and nothing ran or was written"

# a module imc does not run in check mode, without Ansible: a clear error
cat >"$TMPD/other.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - pip: {name: imc-t4060-none}
EOY
expect_exit 1 "a module without native check mode fails under --no-fallback" -- "$IMC" play \
	--no-fallback --check "$TMPD/other.yml"
expect_grep "module 'pip' in check mode needs Ansible" "$TMPD/out" "... saying why"

done_testing
