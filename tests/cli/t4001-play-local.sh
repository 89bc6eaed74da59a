#!/bin/sh
# t4001: imc play --connection local: modules, keywords, roles, handlers,
# idempotence, --results shape, the static check (unsupported module named
# with its file:line before anything runs) and exit statuses. Every run of
# imc's executor is --no-fallback, so that ansible-playbook cannot stand in
# for it; the fallback itself is checked last.
. "$top_srcdir/tests/cli/lib.sh"

S=$TMPD/scratch
mkdir -p "$S" "$TMPD/pb/roles/r1/tasks" "$TMPD/pb/roles/r1/defaults" "$TMPD/pb/roles/r1/handlers" "$TMPD/pb/roles/r1/templates"
cat >"$TMPD/pb/roles/r1/defaults/main.yml" <<'EOY'
who: default
EOY
cat >"$TMPD/pb/roles/r1/tasks/main.yml" <<'EOY'
- name: role template
  template: src=t.j2 dest={{ scratch }}/r1.txt
  notify: r1 changed
EOY
cat >"$TMPD/pb/roles/r1/templates/t.j2" <<'EOY'
hello {{ who }}{% for i in range(2) %} {{ i }}{% endfor %}
EOY
cat >"$TMPD/pb/roles/r1/handlers/main.yml" <<'EOY'
- name: r1 changed
  shell: echo handled >> {{ scratch }}/handlers.txt
EOY
cat >"$TMPD/pb/play.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    items_list: [a, b]
  roles:
    - { role: r1, who: param }
  tasks:
    - name: write a line
      lineinfile: path={{ scratch }}/conf line="key=value" create=yes
      register: li
    - name: loop with when
      file: path={{ scratch }}/{{ item }} state=directory mode=0750
      loop: "{{ items_list }}"
      when: item != 'b'
    - name: command output
      command: echo {{ li.changed }}
      register: out
      changed_when: false
    - name: fact
      set_fact:
        echoed: "{{ out.stdout }}"
    - name: assert
      assert:
        that:
          - out.stdout == first_run
          - echoed | bool == (first_run == 'True')
          - out.rc == 0
    - block:
        - command: /bin/false
      rescue:
        - copy: content="rescued\n" dest={{ scratch }}/rescue.txt
EOY
expect_exit 0 "a play runs locally" -- "$IMC" play --no-fallback -e scratch="$S" -e first_run=True --results "$TMPD/r1.json" "$TMPD/pb/play.yml"
expect_grep '^TASK \[r1 : role template\] \*+$' "$TMPD/out" "role task banner is Ansible's"
expect_grep '^RUNNING HANDLER \[r1 : r1 changed\]' "$TMPD/out" "handler runs"
expect_grep '^skipping: \[localhost\] => \(item=b\)' "$TMPD/out" "per-item when skips"
expect_grep '^localhost +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0 +skipped=0 +rescued=1' "$TMPD/out" "recap line"
expect_grep '^hello param 0 1$' "$S/r1.txt" "template rendered with the role parameter"
expect_grep '^key=value$' "$S/conf" "lineinfile wrote the line"
expect_grep '^rescued$' "$S/rescue.txt" "rescue ran"
[ -d "$S/a" ] && [ ! -d "$S/b" ] && ok "loop created a and skipped b" || not_ok "loop created a and skipped b"
[ "$(stat -c %a "$S/a")" = 750 ] && ok "directory mode applied" || not_ok "directory mode applied"
expect_grep '"plays"' "$TMPD/r1.json" "--results has plays"
expect_grep '"failures": 0' "$TMPD/r1.json" "--results has stats"

expect_exit 0 "second run" -- "$IMC" play --no-fallback -e scratch="$S" -e first_run=False "$TMPD/pb/play.yml"
expect_no_grep 'RUNNING HANDLER' "$TMPD/out" "second run: template unchanged, no handler"
expect_grep 'changed=0 ' "$TMPD/out" "second run changes nothing"

cat >"$TMPD/bad.yml" <<'EOY'
- hosts: all
  tasks:
    - name: fine
      command: /bin/true
    - name: not supported
      frobnicate: a=b
EOY
expect_exit 65 "an unsupported module is refused before running" -- "$IMC" play --no-fallback "$TMPD/bad.yml"
expect_grep "^ERROR! unsupported module 'frobnicate'" "$TMPD/err" "error names the module"
expect_grep "bad.yml': line 5, column 7" "$TMPD/err" "... and its line"
expect_no_grep 'TASK \[fine\]' "$TMPD/out" "nothing ran"

cat >"$TMPD/fail.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - fail: msg="stop here"
    - command: touch {{ scratch }}/never
EOY
expect_exit 1 "a failed task exits 1" -- "$IMC" play --no-fallback -e scratch="$S" "$TMPD/fail.yml"
expect_grep 'fatal: \[localhost\]: FAILED! => \{"changed": false, "msg": "stop here"\}' "$TMPD/out" "fatal line"
[ ! -e "$S/never" ] && ok "the failed host stops" || not_ok "the failed host stops"

cat >"$TMPD/nolog.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars:
    token: s3cr3t-t0ken-value
  tasks:
    - debug: msg="{{ token }}"
      no_log: true
    - fail: msg="{{ token }}"
      no_log: true
      ignore_errors: true
EOY
expect_exit 0 "no_log play" -- "$IMC" play --no-fallback --results "$TMPD/nolog.json" "$TMPD/nolog.yml"
expect_no_grep 's3cr3t' "$TMPD/out" "no_log hides the value in the log"
expect_no_grep 's3cr3t' "$TMPD/nolog.json" "no_log hides the value in the results"
expect_grep 'censored' "$TMPD/out" "no_log says so"

expect_exit 66 "a missing playbook" -- "$IMC" play --no-fallback "$TMPD/nope.yml"
expect_exit 64 "no playbook is a usage error" -- "$IMC" play
expect_exit 64 "a bad --forks is a usage error" -- "$IMC" play --forks abc "$TMPD/nolog.yml"

# tempfile (the same assertions pass under ansible-playbook)
cat >"$TMPD/tempfile.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - tempfile:
      register: a
    - tempfile: state=directory suffix=.build path=$TMPD prefix=x-
      register: b
    - stat: path={{ a.path }}
      register: sa
    - stat: path={{ b.path }}
      register: sb
    - assert:
        that:
          - a.changed and a.state == 'file' and a.path is match('/tmp/ansible\\..{8}\$')
          - sa.stat.isreg and sa.stat.mode == '0600'
          - b.path is match('$TMPD/x-.{8}\\.build\$') and sb.stat.isdir and sb.stat.mode == '0700'
    - file: path={{ a.path }} state=absent
    - tempfile: state=bogus
      register: c
      ignore_errors: true
    - assert:
        that: c is failed
EOY
expect_exit 0 "tempfile: files and directories, prefix, suffix, path, modes" -- \
	env TMPDIR=/tmp "$IMC" play --no-fallback "$TMPD/tempfile.yml"

# ping; and every module imc runs is documented in imc(1)
cat >"$TMPD/ping.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - ping:
      register: p
    - assert:
        that: p.ping == 'pong' and not p.changed
    - ping: data=crash
      register: c
      ignore_errors: true
    - assert:
        that: c is failed
EOY
expect_exit 0 "ping answers pong, and data=crash fails" -- "$IMC" play --no-fallback "$TMPD/ping.yml"
expect_exit 0 "--list-modules" -- "$IMC" play --list-modules
expect_grep '^ping$' "$TMPD/out" "--list-modules lists ping"
missing=""
for m in $(cat "$TMPD/out"); do
	grep -Eq "(^|[ ,])$m[,;]" "$top_srcdir/docs/imc.1" || missing="$missing $m"
done
[ -z "$missing" ] && ok "every module of --list-modules is in docs/imc.1" ||
	not_ok "modules missing from docs/imc.1:$missing"

# --syntax-check: load and report, run nothing
cat >"$TMPD/touch.yml" <<EOY
- hosts: all
  tasks:
    - file: path=$TMPD/touched state=touch
EOY
expect_exit 0 "--syntax-check of a good playbook" -- "$IMC" play --no-fallback --syntax-check "$TMPD/touch.yml"
expect_grep "^playbook: $TMPD/touch.yml" "$TMPD/out" "--syntax-check names the playbook"
[ -e "$TMPD/touched" ] && not_ok "--syntax-check ran a task" || ok "--syntax-check runs nothing"
printf -- '- hosts: all\n  tasks:\n    - command: echo\n      whenn: x\n' >"$TMPD/typo.yml"
expect_exit 65 "--syntax-check of a playbook with a typo" -- "$IMC" play --syntax-check "$TMPD/typo.yml"
expect_grep "^ERROR! conflicting action statements: command, whenn$" "$TMPD/err" \
	"--syntax-check reports the error in Ansible's words"
expect_grep "^The error appears to be in '.*/typo.yml': line 3, column 7," "$TMPD/err" "... and locates it as Ansible does"

# The fallback: a task whose module is outside imc's subset runs under
# Ansible (installed by scripts/install-deps), said on stderr; never with
# --no-fallback (t4020 tests it in depth).
cat >"$TMPD/fallback.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - name: a module imc does not run
      getent: database=passwd key=root
    - file: path=$TMPD/fallback-ran state=touch
EOY
expect_exit 65 "--no-fallback refuses a module outside the subset" -- "$IMC" play --no-fallback "$TMPD/fallback.yml"
[ ! -e "$TMPD/fallback-ran" ] && ok "... and runs nothing" || not_ok "--no-fallback still ran the play"
expect_exit 0 "without --no-fallback, Ansible runs that task" -- env IMC_NO_FALLBACK=0 "$IMC" play "$TMPD/fallback.yml"
expect_grep "fallback: task 'a module imc does not run' runs under Ansible \(module 'getent'" "$TMPD/err" \
	"the fallback says so on stderr"
[ -e "$TMPD/fallback-ran" ] && ok "... and the play ran" || not_ok "the fallback did not run the play"
# group_vars/ and host_vars/ beside a playbook: imc reads them as Ansible
# does, host_vars/ above group_vars/ (t4131 has the whole precedence)
mkdir -p "$TMPD/gv/group_vars" "$TMPD/gv/host_vars"
echo "colour: blue" >"$TMPD/gv/group_vars/all"
cat >"$TMPD/gv/play.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - copy: content="{{ colour | default('unset') }}" dest=$TMPD/gv/colour
EOY
expect_exit 0 "a playbook with group_vars/ beside it runs in imc" -- \
	"$IMC" play --no-fallback "$TMPD/gv/play.yml"
[ "$(cat "$TMPD/gv/colour" 2>/dev/null)" = blue ] && ok "... with the group_vars" ||
	not_ok "imc did not see group_vars/all: $(cat "$TMPD/gv/colour" 2>&1)"
echo "colour: red" >"$TMPD/gv/host_vars/localhost.yml"
expect_exit 0 "host_vars/ beside it too" -- "$IMC" play --no-fallback "$TMPD/gv/play.yml"
[ "$(cat "$TMPD/gv/colour" 2>/dev/null)" = red ] && ok "... above the group_vars" ||
	not_ok "host_vars/localhost.yml did not win: $(cat "$TMPD/gv/colour" 2>&1)"
# set_stats: the result only, and the custom stats after the recap when the
# environment asks for them (t4188 compares them with Ansible's)
cat >"$TMPD/stats.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - set_stats:
        data: {n: 1}
EOY
expect_exit 0 "set_stats runs" -- "$IMC" play --no-fallback "$TMPD/stats.yml"
expect_exit 0 "... and with ANSIBLE_SHOW_CUSTOM_STATS=yes" -- \
	env ANSIBLE_SHOW_CUSTOM_STATS=yes "$IMC" play --no-fallback "$TMPD/stats.yml"
expect_grep '^	RUN: { "n": 1}$' "$TMPD/out" "... which shows the run's custom stats"
# environment given as a template of a dictionary (or a list mixing
# templates and dictionaries, the later winning), as Ansible takes it: the
# expected lines are ansible-playbook 2.14's for the same play
cat >"$TMPD/env.yml" <<EOY
- hosts: all
  gather_facts: false
  vars:
    e: {FOO: "a{{ 1 + 1 }}", BAR: b}
  tasks:
    - shell: echo "\$FOO \$BAR" >$TMPD/env1
      environment: "{{ e }}"
    - shell: echo "\$FOO \$BAR" >$TMPD/env2
      environment: ["{{ e }}", {FOO: c}]
EOY
expect_exit 0 "environment from a template runs" -- "$IMC" play --no-fallback "$TMPD/env.yml"
[ "$(cat "$TMPD/env1" 2>/dev/null)" = "a2 b" ] && ok "... with the templated dictionary" ||
	not_ok "environment: \"{{ e }}\" gave '$(cat "$TMPD/env1" 2>/dev/null)'"
[ "$(cat "$TMPD/env2" 2>/dev/null)" = "c b" ] && ok "... and a list of a template and a dictionary" ||
	not_ok "the list gave '$(cat "$TMPD/env2" 2>/dev/null)'"
done_testing
