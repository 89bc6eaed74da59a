#!/bin/sh
# t4041: cases from ansible-core 2.14's integration targets (loops, lineinfile; run from
# outside by scripts/ansible-targets) that imc did differently, each asserted
# with assert tasks as Ansible behaves: the play passes only if imc agrees.
. "$top_srcdir/tests/cli/lib.sh"

# loops, task "debug var=item loop=[ansible_search_path]": the magic
# variable is defined, a list holding the directory of the task's file
cat >"$TMPD/search-path.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - debug: { var: item }
      loop: ["{{ ansible_search_path }}"]
      register: r
    - assert:
        that:
          - ansible_search_path == r.results.0.item
          - ansible_search_path == [playbook_dir]
EOY
expect_exit 0 "ansible_search_path is the task file's directory (loops)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/search-path.yml"

# loops, "with_X conditional delegate_to shortcircuit on templating error":
# a loop over an undefined variable is skipped when `when` is false, and
# still fails when it is true
cat >"$TMPD/when-first.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - debug: { msg: loop }
      when: false
      with_list: "{{ fake_var }}"
      register: r
      failed_when: r is not skipped
    - debug: { msg: loop }
      when: false
      loop: "{{ fake_var }}"
      register: r
      failed_when: r is not skipped
    - debug: { msg: loop }
      when: true
      loop: "{{ fake_var }}"
      register: r
      ignore_errors: true
    - assert: { that: [r is failed, "'fake_var' in r.msg"] }
EOY
expect_exit 0 "a false when skips a loop over an undefined variable (loops)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/when-first.yml"

# lineinfile, "Insert a line in the file using an empty string as a regular
# expression" (and as a search string): the last line is replaced and the
# result carries Ansible's warning
printf 'a\nb\n' >"$TMPD/empty.txt"
cat >"$TMPD/empty-re.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - lineinfile: { path: "$TMPD/empty.txt", regexp: '', line: c }
      register: r
    - lineinfile: { path: "$TMPD/empty.txt", search_string: '', line: d }
      register: s
    - lineinfile: { path: "$TMPD/empty.txt", regexp: '^x', line: e }
      register: n
    - assert:
        that:
          - r is changed
          - r.warnings | length == 1
          - r.warnings[0] is search('regular expression is an empty string')
          - s.warnings[0] is search('search string is an empty string')
          - n.warnings is not defined
EOY
expect_exit 0 "an empty regexp or search_string warns in the result (lineinfile)" -- "$IMC" play --no-fallback \
	--connection local "$TMPD/empty-re.yml"
if [ "$(cat "$TMPD/empty.txt")" = "$(printf 'a\nd\ne')" ]; then
	ok "... and replaces the last line"
else
	not_ok "... and replaces the last line: $(tr '\n' ' ' <"$TMPD/empty.txt")"
fi

# assert's conditions and templated values that cannot be evaluated fail
# in Ansible 2.14's words (checked against ansible-playbook), which
# recipes test with `is search(...)`
cat >"$TMPD/errors.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - assert: { that: nosuch > 1 }
      ignore_errors: true
      register: a1
    - assert: { that: "'a' > 1" }
      ignore_errors: true
      register: a2
    - set_fact: { x: "{{ 'a' + 1 }}" }
      ignore_errors: true
      register: a3
    - copy:
        dest: "{{ out }}"
        content: "{{ a1.msg }}\n{{ a2.msg }}\n{{ a3.msg }}\n"
EOY
cat >"$TMPD/errors.want" <<'EOT'
The conditional check 'nosuch > 1' failed. The error was: error while evaluating conditional (nosuch > 1): 'nosuch' is undefined. 'nosuch' is undefined
The conditional check ''a' > 1' failed. The error was: Unexpected templating type error occurred on ({% if 'a' > 1 %} True {% else %} False {% endif %}): '>' not supported between instances of 'str' and 'int'. '>' not supported between instances of 'str' and 'int'
Unexpected templating type error occurred on ({{ 'a' + 1 }}): can only concatenate str (not "int") to str. can only concatenate str (not "int") to str
EOT
expect_exit 0 "templating errors" -- "$IMC" play --no-fallback --connection local -e out="$TMPD/errors.got" \
	"$TMPD/errors.yml"
if cmp -s "$TMPD/errors.want" "$TMPD/errors.got"; then ok "... worded as Ansible's"
else not_ok "... worded as Ansible's"; diff "$TMPD/errors.want" "$TMPD/errors.got" | sed 's/^/#   /'; fi

done_testing
