#!/bin/sh
# t4044: imc play's --list-hosts, --list-tasks, --list-tags, --limit and
# --start-at-task as ansible-playbook's (the tags target of ansible-core
# 2.14 compares --list-tasks lines; its other scripts pass --limit and
# --start-at-task): each expected text is ansible-playbook 2.14's output
# for the same play, inventory (testhost and other, local) and options.
# Ansible prints a play's hosts in the order of a Python set; imc in the
# inventory's order, which is one of them.
. "$top_srcdir/tests/cli/lib.sh"

mkdir -p "$TMPD/roles/r1/tasks"
cat >"$TMPD/roles/r1/tasks/main.yml" <<'EOY'
- name: role task
  debug: msg=r
- command: echo unnamed
  tags: [rt]
EOY
cat >"$TMPD/inc.yml" <<'EOY'
- name: imported one
  debug: msg=i
  tags: imp
EOY
cat >"$TMPD/play.yml" <<'EOY'
- name: first play
  hosts: testhost
  gather_facts: no
  tags: [ptag]
  vars:
    tv: [tag3]
  pre_tasks:
    - name: pre
      debug: msg=pre
  roles:
    - role: r1
      tags: roletag
  tasks:
    - name: t1
      debug: msg=1
      tags: b,a
    - block:
        - name: in block
          debug: msg=b
        - block:
            - name: nested
              debug: msg=n
          tags: inner
      rescue:
        - name: rescue task
          debug: msg=r
      always:
        - name: always task
          debug: msg=a
      tags: blk
    - import_tasks: inc.yml
    - include_tasks: inc.yml
    - name: templated
      debug: msg=x
      tags: "{{ tv }}"
    - debug: msg=unnamed
    - meta: flush_handlers
  post_tasks:
    - name: post
      debug: msg=post
      notify: h
  handlers:
    - name: h
      debug: msg=h
- hosts: all
  tasks:
    - name: second
      debug: msg=2
      tags: never
EOY
cat >"$TMPD/start.yml" <<'EOY'
- hosts: testhost
  tasks:
    - name: one
      debug: msg=1
    - block:
        - name: two
          debug: msg=2
      always:
        - name: three
          debug: msg=3
    - name: four
      debug: msg=4
- hosts: testhost
  tasks:
    - name: five
      debug: msg=5
EOY
cat >"$TMPD/e1" <<'EOT'

playbook: play.yml

  play #1 (testhost): first play<TAB>TAGS: [ptag]
    pattern: ['testhost']
    hosts (1):
      testhost
    tasks:
      pre<TAB>TAGS: [ptag]
      r1 : role task<TAB>TAGS: [ptag, roletag]
      command<TAB>TAGS: [ptag, roletag, rt]
      t1<TAB>TAGS: [a, b, ptag]
      in block<TAB>TAGS: [blk, ptag]
      nested<TAB>TAGS: [blk, inner, ptag]
      imported one<TAB>TAGS: [imp, ptag]
      include_tasks<TAB>TAGS: [ptag]
      templated<TAB>TAGS: [ptag, tag3]
      debug<TAB>TAGS: [ptag]
      meta<TAB>TAGS: [ptag]
      post<TAB>TAGS: [ptag]
      TASK TAGS: [a, b, blk, imp, inner, ptag, roletag, rt, tag3]

  play #2 (all): all<TAB>TAGS: []
    pattern: ['all']
    hosts (2):
      testhost
      other
    tasks:
      TASK TAGS: []
EOT
cat >"$TMPD/e2" <<'EOT'

playbook: play.yml

  play #1 (testhost): first play<TAB>TAGS: [ptag]
    tasks:
      command<TAB>TAGS: [ptag, roletag, rt]
      imported one<TAB>TAGS: [imp, ptag]

  play #2 (all): all<TAB>TAGS: []
    tasks:
EOT
cat >"$TMPD/e3" <<'EOT'

playbook: play.yml

  play #1 (testhost): first play<TAB>TAGS: [ptag]
      TASK TAGS: [a, b, imp, ptag, roletag, rt, tag3]

  play #2 (all): all<TAB>TAGS: []
      TASK TAGS: []
EOT
cat >"$TMPD/e4" <<'EOT'

playbook: play.yml

  play #1 (testhost): first play<TAB>TAGS: [ptag]
    pattern: ['testhost']
    hosts (0):

  play #2 (all): all<TAB>TAGS: []
    pattern: ['all']
    hosts (1):
      other
EOT
cd "$TMPD" || exit 1
play() {
	"$IMC" play --no-fallback --connection local -i testhost,other -g testgroup=testhost,other "$@"
}

# list NAME EXPECTED OPTIONS...: the listing equals ansible-playbook's
list() {
	name=$1 want=$2
	shift 2
	play play.yml "$@" > "$name.out" 2> "$name.err"
	st=$?
	sed 's/<TAB>/	/' "$want" > "$want.tab"
	if [ $st = 0 ] && cmp -s "$want.tab" "$name.out"; then ok "$name"
	else not_ok "$name (exit $st)"; diff "$want.tab" "$name.out" | sed 's/^/#   /'; sed 's/^/#   /' "$name.err"; fi
}
list "list tasks, tags and hosts" e1 --list-tasks --list-tags --list-hosts
list "list tasks with --tags" e2 --list-tasks --tags imp,rt
list "list tags with --skip-tags" e3 --list-tags --skip-tags blk
list "list hosts with --limit" e4 --list-hosts -l other
expect_exit 0 "--list-tasks" -- play play.yml --list-tasks
expect_grep 'include_tasks	TAGS: \[ptag\]' "$TMPD/out" "--list-tasks: /include_tasks	TAGS: \[ptag\]/"
expect_no_grep 'rescue task|always task|second' "$TMPD/out" "--list-tasks: not /rescue task\|always task\|second/"

# tasks run from the first match on; the play that has it gathers facts,
# a play before it runs nothing (ansible-playbook's output)
"$IMC" play --no-fallback --connection local -i testhost start.yml --start-at-task 'th*' > s1.out 2>&1
printf '%s\n' 'Gathering Facts' three four 'Gathering Facts' five > s1.want
sed -n 's/^TASK \[\(.*\)\] \**$/\1/p' s1.out > s1.got
if cmp -s s1.want s1.got && grep -q 'testhost *: ok=5 ' s1.out; then ok "--start-at-task glob"
else not_ok "--start-at-task glob"; sed 's/^/#   /' s1.out; fi
expect_exit 0 "--start-at-task without a match" -- "$IMC" play --no-fallback --connection local -i testhost start.yml --start-at-task nomatch
expect_grep 'No matching task "nomatch" found. Note: --start-at-task can only' "$TMPD/err" "--start-at-task without a match: /No matching task nomatch found. Note: --start-at-task can only/"
expect_no_grep '^TASK|testhost *:' "$TMPD/out" "--start-at-task without a match: not /^TASK\|testhost *:/"
expect_exit 0 "--start-at-task four" -- "$IMC" play --no-fallback --connection local -i testhost start.yml --start-at-task 'four'
expect_grep 'TASK \[four\]' "$TMPD/out" "--start-at-task four: /TASK \[four\]/"
expect_no_grep 'TASK \[three\]' "$TMPD/out" "--start-at-task four: not /TASK \[three\]/"

# --limit: the other hosts neither run nor appear in the recap
expect_exit 0 "--limit testhost" -- play start.yml -e x=1 --limit 'testhost'
expect_grep '^testhost *: ok=' "$TMPD/out" "--limit testhost: /^testhost *: ok=/"
expect_no_grep '^other *:' "$TMPD/out" "--limit testhost: not /^other *:/"
expect_exit 64 "--limit matching no host" -- play start.yml --limit nosuch
expect_grep 'Specified inventory, host pattern and/or --limit leaves us with no hosts to target' "$TMPD/err" "--limit matching no host: /Specified inventory, host pattern and/or --limit leaves us with no hosts to target/"

# a task-level include: Ansible 2.14 reads its file at load, imc cannot
# list it the same way: an error, not a different listing
printf -- '- hosts: all\n  tasks:\n    - include: inc.yml\n' > inc-play.yml
expect_exit 65 "--list-tasks of an include" -- play inc-play.yml --list-tasks
expect_grep "cannot list the tasks of 'include'" "$TMPD/err" "--list-tasks of an include: /cannot list the tasks of include/"
done_testing
