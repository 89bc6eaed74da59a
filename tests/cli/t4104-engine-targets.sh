#!/bin/sh
# t4104: what ansible-core's engine targets (scripts/ansible-targets)
# found imc doing otherwise, each compared with what ansible-playbook
# 2.14.18 did on the same playbook (recorded here with its command):
# roles listed in roles: or as dependencies run once per host in a play
# (the roles target's no_dupes.yml), unless allow_duplicates, while
# include_role and import_role run theirs each time; a loop item whose
# loop_control.label does not template fails, skipped or not (loops);
# the template module's variables template_mtime, template_run_date
# (datetimes), template_uid, template_host (this machine's name),
# ansible_managed (special_vars); a strategy given as a template runs
# when it gives linear, and stops with an error otherwise (blocks).
. "$top_srcdir/tests/cli/lib.sh"

# same NAME STATUS ARGS...: imc's log of `imc play ARGS` (blank lines
# dropped) must be $TMPD/NAME.ans
same() {
	local name=$1 want=$2
	shift 2
	expect_exit "$want" "$name: exit status" -- "$IMC" play --no-fallback -c local "$@"
	grep -v '^$' "$TMPD/out" >"$TMPD/$name.got"
	if diff -u "$TMPD/$name.ans" "$TMPD/$name.got" >"$TMPD/$name.diff"; then
		ok "$name: the log is Ansible's"
	else
		not_ok "$name: the log differs from Ansible's"
		sed 's/^/#   /' "$TMPD/$name.diff" | head -40
	fi
}

# roles: a, b and c depend on a; d allows duplicates and depends on a
# with x: 1
r=$TMPD/r
mkdir -p "$r/roles/a/tasks" "$r/roles/b/tasks" "$r/roles/b/meta" "$r/roles/c/tasks" \
	"$r/roles/c/meta" "$r/roles/d/tasks" "$r/roles/d/meta"
echo '- debug: msg=A' >"$r/roles/a/tasks/main.yml"
echo '- debug: msg=B' >"$r/roles/b/tasks/main.yml"
printf 'dependencies:\n  - role: a\n' >"$r/roles/b/meta/main.yml"
echo '- debug: msg=C' >"$r/roles/c/tasks/main.yml"
printf 'dependencies:\n  - role: a\n' >"$r/roles/c/meta/main.yml"
echo '- debug: msg=D' >"$r/roles/d/tasks/main.yml"
printf 'allow_duplicates: true\ndependencies:\n  - role: a\n    x: 1\n' >"$r/roles/d/meta/main.yml"
# recorded: ansible-playbook -i h1, -c local p.yml
cat >"$r/p.yml" <<'EOY'
- hosts: all
  gather_facts: false
  roles:
    - role: a
    - role: b
    - role: c
    - role: d
    - role: d
      y: 2
  tasks:
    - import_role: name=c
    - include_role: name=b
    - include_role: name=b
    - include_role: name=d
- hosts: all
  gather_facts: false
  roles:
    - role: b
EOY
cat >"$TMPD/roles.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [a : debug] ***************************************************************
ok: [h1] => {
    "msg": "A"
}
TASK [b : debug] ***************************************************************
ok: [h1] => {
    "msg": "B"
}
TASK [c : debug] ***************************************************************
ok: [h1] => {
    "msg": "C"
}
TASK [a : debug] ***************************************************************
ok: [h1] => {
    "msg": "A"
}
TASK [d : debug] ***************************************************************
ok: [h1] => {
    "msg": "D"
}
TASK [d : debug] ***************************************************************
ok: [h1] => {
    "msg": "D"
}
TASK [c : debug] ***************************************************************
ok: [h1] => {
    "msg": "C"
}
TASK [include_role : b] ********************************************************
TASK [b : debug] ***************************************************************
ok: [h1] => {
    "msg": "B"
}
TASK [include_role : b] ********************************************************
TASK [b : debug] ***************************************************************
ok: [h1] => {
    "msg": "B"
}
TASK [include_role : d] ********************************************************
TASK [d : debug] ***************************************************************
ok: [h1] => {
    "msg": "D"
}
PLAY [all] *********************************************************************
TASK [a : debug] ***************************************************************
ok: [h1] => {
    "msg": "A"
}
TASK [b : debug] ***************************************************************
ok: [h1] => {
    "msg": "B"
}
PLAY RECAP *********************************************************************
h1                         : ok=12   changed=0    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOY
same roles 0 -i h1 "$r/p.yml"

# recorded: ansible-playbook -i h1, -c local lbl.yml
cat >"$TMPD/lbl.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - debug: msg={{ item }}
      loop: [1, 2]
      when: item == 2
      loop_control:
        label: "{{ undefined_thing }}"
      ignore_errors: true
      register: r
    - debug: var=r
    - debug: msg={{ item }}
      loop: [1, 2]
      when: false
      loop_control:
        label: "{{ item.nope }}"
EOY
cat >"$TMPD/lbl.ans" <<'EOY'
PLAY [all] *********************************************************************
TASK [debug] *******************************************************************
failed: [h1] (item=None) => {"msg": "Failed to template loop_control.label: 'undefined_thing' is undefined. 'undefined_thing' is undefined"}
failed: [h1] (item=None) => {
    "msg": "Failed to template loop_control.label: 'undefined_thing' is undefined. 'undefined_thing' is undefined"
}
fatal: [h1]: FAILED! => {"msg": "One or more items failed"}
...ignoring
TASK [debug] *******************************************************************
ok: [h1] => {
    "r": {
        "changed": false,
        "failed": true,
        "msg": "One or more items failed",
        "results": [
            {
                "ansible_loop_var": "item",
                "changed": false,
                "failed": true,
                "item": 1,
                "msg": "Failed to template loop_control.label: 'undefined_thing' is undefined. 'undefined_thing' is undefined",
                "skip_reason": "Conditional result was False",
                "skipped": true
            },
            {
                "ansible_loop_var": "item",
                "changed": false,
                "failed": true,
                "item": 2,
                "msg": "Failed to template loop_control.label: 'undefined_thing' is undefined. 'undefined_thing' is undefined"
            }
        ],
        "skipped": false
    }
}
TASK [debug] *******************************************************************
failed: [h1] (item=None) => {"msg": "Failed to template loop_control.label: 'int object' has no attribute 'nope'. 'int object' has no attribute 'nope'"}
failed: [h1] (item=None) => {"msg": "Failed to template loop_control.label: 'int object' has no attribute 'nope'. 'int object' has no attribute 'nope'"}
fatal: [h1]: FAILED! => {"msg": "All items skipped"}
PLAY RECAP *********************************************************************
h1                         : ok=2    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=1   
EOY
same lbl 1 -i h1 "$TMPD/lbl.yml"

# the template's variables: ansible-playbook -i h1, -c local p.yml -e d=DIR
# printed the same list
mkdir -p "$TMPD/sv/templates" "$TMPD/svd"
cat >"$TMPD/sv/templates/t.j2" <<'EOY'
mtime={{ template_mtime | type_debug }} {{ template_mtime.year > 2000 }}
run={{ template_run_date | type_debug }}
uid={{ template_uid }}
host={{ template_host == lookup('pipe', 'uname -n') }}
path={{ template_path | basename }} full={{ template_fullpath is abs }}
managed={{ ansible_managed }}
EOY
cat >"$TMPD/sv/p.yml" <<'EOY'
- hosts: all
  gather_facts: no
  strategy: "{{ s | default('linear') }}"
  tasks:
    - template: src=t.j2 dest={{ d }}/out
    - slurp: src={{ d }}/out
      register: o
    - debug: msg="{{ (o.content | b64decode).splitlines() }}"
EOY
expect_exit 0 "template variables" -- "$IMC" play --no-fallback -c local -i h1 -e "d=$TMPD/svd" "$TMPD/sv/p.yml"
tr -d '\n ' <"$TMPD/out" >"$TMPD/sv.flat"
expect_grep '"msg":\["mtime=datetimeTrue","run=datetime","uid=root","host=True","path=t.j2full=True","managed=Ansiblemanaged"\]' "$TMPD/sv.flat" "template_mtime, template_run_date, template_uid, template_host, template_fullpath, ansible_managed as Ansible's"

# a templated strategy: linear and free run; one imc does not have (debug)
# stops with an error
expect_exit 0 "a templated strategy giving free, one host" -- "$IMC" play --no-fallback -c local -i h1 -e "d=$TMPD/svd" -e s=free "$TMPD/sv/p.yml"
expect_exit 65 "a templated strategy giving debug, two hosts" -- "$IMC" play --no-fallback -c local -i h1,h2 -e "d=$TMPD/svd" -e s=debug "$TMPD/sv/p.yml"
expect_grep "unsupported strategy 'debug'" "$TMPD/err" "the error names it"
expect_no_grep '^TASK' "$TMPD/out" "nothing ran"
done_testing
