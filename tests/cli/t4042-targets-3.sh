#!/bin/sh
# t4042: more cases from ansible-core 2.14's integration targets (run from
# outside by scripts/ansible-targets) that imc did differently, each asserted
# with assert tasks as Ansible behaves (checked under ansible-playbook): the
# play passes only if imc agrees.
. "$top_srcdir/tests/cli/lib.sh"

# loops, "Test using templated loop_var inside include_tasks": loop_var
# and index_var are templated before the first item, in an include loop
# and in a task loop
cat >"$TMPD/inc-lv.yml" <<'EOY'
- assert: { that: [templated_loop_var_name == 'value', ansible_loop_var is undefined] }
EOY
cat >"$TMPD/loop-var.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - include_tasks: $TMPD/inc-lv.yml
      loop: [value]
      loop_control: { loop_var: "{{ n }}" }
      vars: { n: templated_loop_var_name }
    - debug: { msg: "{{ foo }} {{ i }}" }
      loop: [a, b]
      loop_control: { loop_var: "{{ n }}", index_var: "{{ 'i' }}" }
      vars: { n: foo }
      register: r
    - assert: { that: [r.results.1.foo == 'b', r.results.1.i == 1, r.results.0.ansible_loop_var == 'foo'] }
EOY
expect_exit 0 "a templated loop_control.loop_var and index_var (loops)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/loop-var.yml"

# file, "Delete unprivileged user home and tempdir": a no-break space
# (U+00A0) before "}}" is whitespace to Jinja's lexer, as U+3000 after "-"
printf -- '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: { msg: "{{ x\302\240}}|{{- x\343\200\200-}}\302\240|" }\n      vars: { x: a }\n      register: r\n    - assert: { that: [r.msg == "a|a|"] }\n' \
	>"$TMPD/nbsp.yml"
expect_exit 0 "Unicode whitespace inside a template tag (file)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/nbsp.yml"

# file, "Test missing src and path"; command_shell, "use command with no
# command": Ansible validates module arguments when the task runs, so the
# task fails then (ignore_errors catches it) instead of the whole playbook
# being refused at load
cat >"$TMPD/argerr.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - file: { state: hard }
      register: r1
      ignore_errors: true
    - command:
      args: { chdir: / }
      register: r2
      ignore_errors: true
    - assert: { that: [r1 is failed, "r1.msg == 'missing required arguments: path'", r2 is failed, "r2.msg == 'no command given'"] }
EOY
expect_exit 0 "a missing required argument fails the task when it runs (file, command_shell)" -- "$IMC" play \
	--no-fallback --connection local "$TMPD/argerr.yml"

# handlers (inventory.handlers: five local hosts A..E): -i takes several
# names, each a local host; a failed host leaves ansible_play_hosts (not
# ansible_play_hosts_all), as in Ansible
cat >"$TMPD/hosts.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - assert: { that: ["groups.all == ['a', 'b', 'c']", "groups.g == ['a', 'b']", ansible_connection == 'local'] }
    - fail:
      when: inventory_hostname == 'b'
    - assert:
        that:
          - ansible_play_hosts == ['a', 'c']
          - play_hosts == ['a', 'c']
          - ansible_play_batch == ['a', 'c']
          - ansible_play_hosts_all == ['a', 'b', 'c']
EOY
"$IMC" play --no-fallback --connection local -i a,b,c -g g=a,b "$TMPD/hosts.yml" >"$TMPD/hosts.out" 2>&1
if [ $? = 1 ] && grep -q '^a  *: ok=2 .*failed=0' "$TMPD/hosts.out" && grep -q '^b  *: ok=1 .*failed=1' "$TMPD/hosts.out" &&
	grep -q '^c  *: ok=2 .*failed=0' "$TMPD/hosts.out"; then ok "-i a,b,c: three local hosts, b failed"
else not_ok "-i a,b,c: three local hosts, b failed"; sed 's/^/#   /' "$TMPD/hosts.out"; fi

# lookup_varnames: the names of the defined variables a regex searches,
# term after term in definition order; a term that is no string or no
# regex fails in Ansible's words
cat >"$TMPD/varnames.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - set_fact:
        qz_1: hello
        qz_2: world
        qa_1: "I won't show"
        qz_: "I won't show either"
    - assert:
        that:
          - lookup('varnames', '^qz_.+', wantlist=True) == ['qz_1', 'qz_2']
          - lookup('varnames', '^qz_.+', '^qa.*', wantlist=True) == ['qz_1', 'qz_2', 'qa_1']
          - lookup('varnames', '^doesnotexist.*', wantlist=True) == []
          - lookup('varnames', '^q.*_\d', wantlist=True) == ['qz_1', 'qz_2', 'qa_1']
          - lookup('varnames', '^q.*_\d') == 'qz_1,qz_2,qa_1'
          - "'inventory_hostname' in lookup('varnames', 'inventory_', wantlist=True)"
    - set_fact: { fail1: "{{ lookup('varnames', True, wantlist=True) }}" }
      register: fail1res
      ignore_errors: yes
    - set_fact: { fail2: "{{ lookup('varnames', '*', wantlist=True) }}" }
      register: fail2res
      ignore_errors: yes
    - assert:
        that:
          - fail1res is failed
          - "'Invalid setting identifier, \"True\" is not a string, it is a <class' in fail1res.msg"
          - fail2res is failed
          - "'Unable to use \"*\" as a search parameter: nothing to repeat at position 0' in fail2res.msg"
EOY
expect_exit 0 "lookup varnames (lookup_varnames)" -- "$IMC" play --no-fallback --connection local \
	"$TMPD/varnames.yml"

# lookup_csvfile: the key's row by the first field, Python csv quoting,
# TAB, a \x1a delimiter, CRLF lines, a quoted file name with spaces, the
# default, k=v words after the key and keywords, and the errors
mkdir -p "$TMPD/csv/files"
printf '# Last,First,Email\nSmith,Jane,j@example.com\n"German von Lastname",Demo,h@example.com\n"""The Rock"" Johnson",Dwayne,d@example.com\n' \
	>"$TMPD/csv/files/people.csv"
printf 'fruit\tbananas\nelectronics\ttvs\n' >"$TMPD/csv/files/tabs.csv"
printf 'this file\tx\r\nansible,parses,crlf\r\nthis file,x,crlf\r\n' >"$TMPD/csv/files/crlf.csv"
printf 'again\032because\n' >"$TMPD/csv/files/x1a.csv"
printf 'maybe,it,will,work\n' >"$TMPD/csv/files/cool list of things.csv"
cat >"$TMPD/csv/csv.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - set_fact: { x: "{{ lookup('csvfile', 'file=people.csv, delimiter=, col=1') }}" }
      ignore_errors: yes
      register: no_keyword
    - set_fact: { x: "{{ lookup('csvfile', 'foo file=people.csv delimiter=, col=1 thisarg=doesnotexist') }}" }
      ignore_errors: yes
      register: invalid_arg
    - set_fact: { x: "{{ lookup('csvfile', 'foo',  file='doesnotexist', delimiter=',', col=1) }}" }
      ignore_errors: yes
      register: missing_file
    - assert:
        that:
          - no_keyword is failed
          - "'Search key is required but was not found' in no_keyword.msg"
          - invalid_arg is failed
          - "'is not a valid option' in invalid_arg.msg"
          - missing_file is failed
          - "'No such file or directory' in missing_file.msg"
          - lookup('csvfile', 'Smith', file='people.csv', delimiter=',', col=1) == "Jane"
          - lookup('csvfile', 'German von Lastname file=people.csv delimiter=, col=1') == "Demo"
          - lookup('csvfile', 'electronics file=tabs.csv delimiter=TAB col=1') == "tvs"
          - lookup('csvfile', 'fruit', file='tabs.csv', col=1) == 'bananas'
          - lookup('csvfile', 'fruit file=tabs.csv delimiter="\t" col=1') == "bananas"
          - lookup('csvfile', 'electronics', 'fruit', file='tabs.csv', delimiter='\t', col=1, wantlist=True) == ["tvs", "bananas"]
          - lookup('csvfile', 'again file=x1a.csv delimiter=\x1a col=1') == "because"
          - lookup('csvfile', 'this file file=crlf.csv delimiter=, col=2') == "crlf"
          - lookup('csvfile', 'ansible file=crlf.csv delimiter=, col=1') == "parses"
          - lookup('csvfile', 'maybe file="cool list of things.csv" delimiter=, col=3') == "work"
          - lookup('csvfile', 'notfound file=people.csv delimiter=, col=2') == []
          - lookup('csvfile', 'notfound file=people.csv delimiter=, col=2, default=what?') == "what?"
          - lookup('csvfile', '"The Rock" Johnson file=people.csv delimiter=, col=1') == "Dwayne"
EOY
expect_exit 0 "lookup csvfile (lookup_csvfile)" -- "$IMC" play --no-fallback --connection local "$TMPD/csv/csv.yml"

# lookup_vars ("lookup('vars', 'ansible_host')"), special_vars: the magic
# variables of the play, the run's options, the failed hosts and the
# connection's address
cat >"$TMPD/magic.yml" <<'EOY'
- hosts: all
  name: magic
  gather_facts: false
  tasks:
    - fail:
      when: inventory_hostname == 'b'
    - assert:
        that:
          - ansible_play_name == 'magic'
          - ansible_forks == 5
          - ansible_run_tags == ['all']
          - ansible_skip_tags == []
          - ansible_verbosity == 0
          - ansible_current_hosts == ['a', 'c']
          - ansible_failed_hosts == ['b']
          - ansible_host == inventory_hostname
          - lookup('vars', 'ansible_host') == inventory_hostname
          - query('vars', 'ansible_host', 'ansible_connection') == [inventory_hostname, 'local']
EOY
"$IMC" play --no-fallback --connection local -i a,b,c -f 5 "$TMPD/magic.yml" >"$TMPD/magic.out" 2>&1
if grep -q '^a  *: ok=1 .*failed=0' "$TMPD/magic.out" && grep -q '^c  *: ok=1 .*failed=0' "$TMPD/magic.out"; then
	ok "magic variables (lookup_vars)"
else not_ok "magic variables (lookup_vars)"; sed 's/^/#   /' "$TMPD/magic.out"; fi

done_testing
