#!/bin/sh
# t4121: the user module as Ansible 2.14's, in and out of check mode
# (issue 17 item 2): adding or removing an account in check mode is
# reported changed alone and nothing is run; a modification, a missing
# home, a key to generate or a password age to set are reported changed
# with the account as it is; the result keys (append/move_home after a
# modification, system/create_home after a creation, force/remove after a
# removal, the ssh key's file, fingerprint and public key), idempotence,
# groups with and without append, password_lock, expires,
# password_expire_min/max, a home whose parent is missing, and Ansible's
# failures for a missing group and a uid that is not an int.
# The expected values are what ansible-playbook 2.14 gave for the same
# play, run as
#   unshare -m (overlays on /etc, /home, /var/mail) \
#     ansible-playbook -i localhost, -c local t4121.yml
# (asserts replaced by a copy of every registered result to a file); the
# file trees (passwd, shadow, group, gshadow, /home) came out the same.
# Contained: the play runs in a private mount namespace where /etc, /home
# and /var/mail are overlays whose upper layers are in the test's temp
# dir; the machine's own accounts are checked untouched afterwards.
. "$top_srcdir/tests/cli/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v ssh-keygen >/dev/null ||
   ! unshare -m true 2>/dev/null || [ ! -d /var/mail ]; then
	ok "# SKIP user: needs root, useradd, ssh-keygen and a mount namespace"
	done_testing
	exit 0
fi

cat >"$TMPD/user.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - group: { name: imc-g1 }
    - group: { name: imc-g2 }
    - user: { name: imc-t4121, uid: 4121 }
      check_mode: true
      register: c1
    - command: getent passwd imc-t4121
      failed_when: false
      register: after_check
    - user:
        name: imc-t4121
        uid: 4121
        comment: T User
        shell: /bin/sh
        groups: [imc-g1]
        password: "$6$salt$IxDD3jeSOb5eB1CX5LBsqZFVkJdido3OUILO5Ifz5iwMuTS4XMS130MTSuDDl3aCI6WouIL9AjRbLCelDCy.g."
      register: r1
    - user: { name: imc-t4121, uid: 4121, comment: T User, shell: /bin/sh, groups: imc-g1 }
      register: r2
    - user: { name: imc-t4121, shell: /bin/bash }
      check_mode: true
      register: c3
    - user: { name: imc-t4121, shell: /bin/bash, groups: [imc-g2], append: true }
      register: r3
    - user: { name: imc-t4121, groups: [imc-g2], append: true }
      register: r3b
    - user: { name: imc-t4121, groups: [imc-g2] }
      register: r3c
    - command: id -Gn imc-t4121
      register: ids
    - user: { name: imc-t4121, password_lock: true }
      check_mode: true
      register: c4
    - user: { name: imc-t4121, password_lock: true }
      register: r4
    - user: { name: imc-t4121, password_lock: true }
      register: r4b
    - command: getent shadow imc-t4121
      register: sh4
    - user: { name: imc-t4121, expires: 1924991999 }
      register: r5
    - user: { name: imc-t4121, expires: 1924991999 }
      register: r5b
    - user: { name: imc-t4121, password_expire_min: 3, password_expire_max: 40 }
      check_mode: true
      register: c6
    - user: { name: imc-t4121, password_expire_min: 3, password_expire_max: 40 }
      register: r6
    - user: { name: imc-t4121, password_expire_min: 3, password_expire_max: 40 }
      register: r6b
    - command: getent shadow imc-t4121
      register: sh6
    - user: { name: imc-t4121, generate_ssh_key: true, ssh_key_bits: 1024, ssh_key_comment: imc }
      check_mode: true
      register: c7
    - user: { name: imc-t4121, generate_ssh_key: true, ssh_key_type: ed25519, ssh_key_comment: imc }
      register: r7
    - user: { name: imc-t4121, generate_ssh_key: true, ssh_key_type: ed25519, ssh_key_comment: imc }
      register: r7b
    - file: { path: /home/imc-t4121, state: absent }
    - user: { name: imc-t4121 }
      check_mode: true
      register: c8
    - stat: { path: /home/imc-t4121 }
      register: h8c
    - user: { name: imc-t4121 }
      register: r8
    - stat: { path: /home/imc-t4121 }
      register: h8
    - user: { name: imc-t4121, group: imc-nogroup }
      register: f1
      ignore_errors: true
    - user: { name: imc-t4121, uid: abc }
      register: f2
      ignore_errors: true
    - user: { name: imc-t4121, state: absent }
      check_mode: true
      register: c9
    - user: { name: imc-t4121, state: absent, remove: true }
      register: r9
    - user: { name: imc-t4121, state: absent }
      register: r9b
    - user: { name: imc-t4122, home: /home/imc-deep/t4122, system: true, create_home: true }
      register: r10
    - stat: { path: /home/imc-deep/t4122 }
      register: h10
    - user: { name: imc-t4122, state: absent, remove: true, force: true }
      register: r10b
    - assert:
        that:
          - "c1 == {'changed': true, 'failed': false} or c1 == {'changed': true}"
          - after_check.rc == 2
          - r1.changed and r1.uid == 4121 and r1.group == 4121 and r1.comment == 'T User' and r1.shell == '/bin/sh'
          - r1.home == '/home/imc-t4121' and r1.groups == 'imc-g1' and r1.password == 'NOT_LOGGING_PASSWORD'
          - r1.system == false and r1.create_home == true and r1.state == 'present' and r1.append is not defined
          - not r2.changed and r2.append == false and r2.move_home == false and r2.groups == 'imc-g1'
          - c3.changed and c3.shell == '/bin/sh' and c3.groups is not defined
          - r3.changed and r3.shell == '/bin/bash' and r3.append and r3.groups == 'imc-g2'
          - not r3b.changed
          - r3c.changed and ids.stdout == 'imc-t4121 imc-g2'
          - c4.changed and r4.changed and not r4b.changed
          - sh4.stdout.split(':')[1].startswith('!$6$salt$')
          - r5.changed and not r5b.changed
          - c6.changed and r6.changed and not r6b.changed
          - sh6.stdout.split(':')[3:5] == ['3', '40'] and sh6.stdout.split(':')[7] == '22279'
          - c7.changed and c7.ssh_fingerprint == '' and c7.ssh_key_file == '/home/imc-t4121/.ssh/id_rsa' and c7.ssh_public_key is none
          - r7.changed and r7.ssh_key_file == '/home/imc-t4121/.ssh/id_ed25519'
          - r7.ssh_public_key.startswith('ssh-ed25519 ') and r7.ssh_public_key.endswith(' imc')
          - r7.ssh_fingerprint.startswith('256 SHA256:') and r7.ssh_fingerprint.endswith(' imc (ED25519)')
          - not r7b.changed and r7b.ssh_public_key == r7.ssh_public_key
          - r7b.warnings == ['Found existing ssh key private file "/home/imc-t4121/.ssh/id_ed25519", no force, so skipping ssh-keygen generation']
          - c8.changed and not h8c.stat.exists and r8.changed and h8.stat.exists
          - f1 is failed and f1.msg == 'Group imc-nogroup does not exist'
          - "f2 is failed and f2.msg == \"argument 'uid' is of type <class 'str'> and we were unable to convert to int: <class 'str'> cannot be converted to an int\""
          - "c9 == {'changed': true, 'failed': false} or c9 == {'changed': true}"
          - r9.changed and r9.force == false and r9.remove == true and r9.state == 'absent' and r9.uid is not defined
          - "r9.stderr_lines == ['userdel: imc-t4121 mail spool (/var/mail/imc-t4121) not found']"
          - not r9b.changed and r9b.force is not defined and r9b.name == 'imc-t4121'
          - r10.changed and r10.system and r10.home == '/home/imc-deep/t4122' and h10.stat.mode == '0755'
          - "r10.stderr_lines == ['useradd: warning: the home directory /home/imc-deep/t4122 already exists.', 'useradd: Not copying any file from skel directory into it.']"
          - r10b.changed and r10b.force and r10b.remove
EOY
for m in etc home mail; do mkdir -p "$TMPD/u-$m" "$TMPD/w-$m"; done
expect_exit 0 "user: check mode and results as Ansible's module" -- \
	unshare -m --propagation private sh -c "mount -t overlay imc-t4121 -o lowerdir=/etc,upperdir=$TMPD/u-etc,workdir=$TMPD/w-etc /etc &&
		mount -t overlay imc-t4121 -o lowerdir=/home,upperdir=$TMPD/u-home,workdir=$TMPD/w-home /home &&
		mount -t overlay imc-t4121 -o lowerdir=/var/mail,upperdir=$TMPD/u-mail,workdir=$TMPD/w-mail /var/mail &&
		exec '$IMC' play --no-fallback --connection local -i testhost '$TMPD/user.yml'"
grep -q 'failed=0' "$TMPD/out" || sed -n '/FAILED/,+3p' "$TMPD/out" | sed 's/^/#   /' | head -20
if grep -q '^imc-' /etc/passwd /etc/group || [ -e /home/imc-t4121 ] || [ -e /home/imc-deep ]; then
	not_ok "the machine's accounts or /home changed"
else
	ok "the machine's accounts and /home are untouched"
fi

done_testing
