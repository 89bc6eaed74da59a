#!/bin/sh
# t4061: the file module's native check mode under imc play --check --diff:
# absent, touch, file, directory, link and hard on existing and missing
# paths change nothing on the node (the tree is compared before and
# after), and the log (changed, failures, the diffs of state, mode, owner
# and link source, the recap) is ansible-playbook's: the expected text is
# ansible-playbook 2.14's output for the same play, with the scratch
# directory written @D@ and the user running it @U@/@UN@ (group @G@/@GN@).
# Everything stays under $TMPD.
. "$top_srcdir/tests/cli/lib.sh"

D="$TMPD/s"
tree() { (cd "$D" && find . -printf '%p %m %s %y %l\n' | sort && find . -type f | sort | xargs md5sum); }

mkdir -p "$D/d/sub"
printf 'x\n' >"$D/f"
printf 'y\n' >"$D/d/sub/g"
printf 'z\n' >"$D/h"
chmod 644 "$D/f" "$D/h" "$D/d/sub/g"
chmod 755 "$D/d" "$D/d/sub"
ln -s f "$D/l"
cat >"$TMPD/play.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - name: absent file
      file: {path: $D/f, state: absent}
    - name: absent directory
      file: {path: $D/d, state: absent}
    - name: absent missing
      file: {path: $D/nope, state: absent}
    - name: touch new
      file: {path: $D/new, state: touch, mode: "0600"}
    - name: file mode
      file: {path: $D/f, mode: "0600"}
    - name: file same
      file: {path: $D/f, mode: "0644"}
    - name: file missing
      file: {path: $D/nope, state: file}
      ignore_errors: true
    - name: directory new
      file: {path: $D/nd/a/b, state: directory, mode: "0700"}
    - name: directory mode
      file: {path: $D/d, state: directory, mode: "0700"}
    - name: link new
      file: {path: $D/nl, src: f, state: link}
    - name: link same
      file: {path: $D/l, src: f, state: link}
    - name: link change
      file: {path: $D/l, src: h, state: link}
    - name: link over a file refused
      file: {path: $D/h, src: f, state: link}
      ignore_errors: true
    - name: link over a file forced
      file: {path: $D/h, src: f, state: link, force: true}
    - name: hard link new
      file: {path: $D/nh, src: $D/f, state: hard}
    - name: file owner
      file: {path: $D/f, owner: nobody}
EOY
cat >"$TMPD/expected" <<'EOT'

PLAY [all] *********************************************************************

TASK [absent file] *************************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
     "path": "@D@/f",
-    "state": "file"
+    "state": "absent"
 }

changed: [localhost]

TASK [absent directory] ********************************************************
--- before
+++ after
@@ -1,12 +1,4 @@
 {
     "path": "@D@/d",
-    "path_content": {
-        "directories": [
-            "@D@/d/sub"
-        ],
-        "files": [
-            "@D@/d/sub/g"
-        ]
-    },
-    "state": "directory"
+    "state": "absent"
 }

changed: [localhost]

TASK [absent missing] **********************************************************
ok: [localhost]

TASK [touch new] ***************************************************************
changed: [localhost]

TASK [file mode] ***************************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
-    "mode": "0644",
+    "mode": "0600",
     "path": "@D@/f"
 }

changed: [localhost]

TASK [file same] ***************************************************************
ok: [localhost]

TASK [file missing] ************************************************************
fatal: [localhost]: FAILED! => {"changed": false, "msg": "file (@D@/nope) is absent, cannot continue", "path": "@D@/nope", "state": "absent"}
...ignoring

TASK [directory new] ***********************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
     "path": "@D@/nd/a/b",
-    "state": "absent"
+    "state": "directory"
 }

changed: [localhost]

TASK [directory mode] **********************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
-    "mode": "0755",
+    "mode": "0700",
     "path": "@D@/d"
 }

changed: [localhost]

TASK [link new] ****************************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
     "path": "@D@/nl",
-    "state": "absent"
+    "state": "link"
 }

changed: [localhost]

TASK [link same] ***************************************************************
ok: [localhost]

TASK [link change] *************************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
     "path": "@D@/l",
-    "src": "f"
+    "src": "h"
 }

changed: [localhost]

TASK [link over a file refused] ************************************************
fatal: [localhost]: FAILED! => {"changed": false, "gid": @G@, "group": "@GN@", "mode": "0644", "msg": "refusing to convert from file to symlink for @D@/h", "owner": "@UN@", "path": "@D@/h", "size": 2, "state": "file", "uid": @U@}
...ignoring

TASK [link over a file forced] *************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
     "path": "@D@/h",
-    "state": "file"
+    "state": "link"
 }

changed: [localhost]

TASK [hard link new] ***********************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
     "path": "@D@/nh",
-    "state": "absent"
+    "state": "hard"
 }

changed: [localhost]

TASK [file owner] **************************************************************
--- before
+++ after
@@ -1,4 +1,4 @@
 {
-    "owner": @U@,
+    "owner": 65534,
     "path": "@D@/f"
 }

changed: [localhost]

PLAY RECAP *********************************************************************
localhost                  : ok=16   changed=11   unreachable=0    failed=0    skipped=0    rescued=0    ignored=2   

EOT
sed -e "s|@D@|$D|g" -e "s|@U@|$(id -u)|g" -e "s|@G@|$(id -g)|g" -e "s|@UN@|$(id -un)|g" \
	-e "s|@GN@|$(id -gn)|g" "$TMPD/expected" >"$TMPD/want"
tree >"$TMPD/before"
expect_exit 0 "file in check mode runs the play" -- "$IMC" play --no-fallback --check --diff \
	"$TMPD/play.yml"
if diff -u "$TMPD/want" "$TMPD/out" >"$TMPD/d"; then
	ok "the log (changed, failures, diffs, recap) is ansible-playbook's"
else
	not_ok "the log is ansible-playbook's"; sed 's/^/#   /' "$TMPD/d" | head -40
fi
tree >"$TMPD/after"
if cmp -s "$TMPD/before" "$TMPD/after"; then
	ok "check mode changed nothing (entries, modes, link targets, contents)"
else
	not_ok "check mode changed nothing"; diff "$TMPD/before" "$TMPD/after" | sed 's/^/#   /'
fi

# recurse is not computed in check mode: a clear error without Ansible
cat >"$TMPD/recurse.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - file: {path: $D/d, state: directory, mode: "0700", recurse: true}
EOY
expect_exit 1 "recurse in check mode fails under --no-fallback" -- "$IMC" play --no-fallback --check \
	"$TMPD/recurse.yml"
expect_grep "module 'file' with recurse in check mode needs Ansible" "$TMPD/out" "... saying why"
tree >"$TMPD/after"
cmp -s "$TMPD/before" "$TMPD/after" && ok "... and changes nothing" || not_ok "... and changes nothing"

done_testing
