#!/bin/sh
# t4045: keyword cases of ansible-core 2.14's integration targets (issue
# 17) that imc got wrong, each checked against ansible-playbook 2.14's
# result for the same play (the expected values are its output).
. "$top_srcdir/tests/cli/lib.sh"

play() {
	"$IMC" play --no-fallback --connection local "$@"
}

# check_mode target: vars given as a list of mappings (merged in order)
# on a play and a task; any other type is Ansible's load error
cat >"$TMPD/vars.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  vars:
    - a: 1
      b: 1
    - b: 2
  tasks:
    - debug: msg="{{ a }} {{ b }} {{ c }}"
      vars:
        - c: 3
EOY
expect_exit 0 "vars as a list of mappings (check_mode)" -- play "$TMPD/vars.yml"
expect_grep '"msg": "1 2 3"' "$TMPD/out" "a list of vars merged in order, later names winning"
printf -- '- hosts: localhost\n  vars: 3\n  tasks: []\n' > "$TMPD/vars2.yml"
expect_exit 65 "vars neither a mapping nor a list" -- play "$TMPD/vars2.yml"
expect_grep 'Vars in a Play must be specified as a dictionary, or a list of dictionaries' "$TMPD/err" \
	"Ansible's words for vars of another type"
done_testing
