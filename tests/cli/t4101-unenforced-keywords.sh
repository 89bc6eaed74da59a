#!/bin/sh
# t4101: a keyword imc accepts but does not carry out (a strategy other
# than linear, free and host_pinned, vars_prompt, debugger, an action group in module_defaults,
# and serial, order, max_fail_percentage, force_handlers or a play's
# any_errors_fatal given as a template) is never ignored silently: with a
# value that would make Ansible behave otherwise, the playbook is refused
# at load with the keyword named (and runs under ansible-playbook where
# the fallback is allowed); with its default value it changes nothing and
# imc runs the play itself. What imc carries out is tested in t4102.
. "$top_srcdir/tests/cli/lib.sh"
command -v ansible-playbook >/dev/null || { not_ok "needs ansible-playbook (package ansible)"; done_testing; exit 1; }

# play KEYWORD-LINES TASK-KEYWORD-LINES: a one-task play in $TMPD/p.yml
play() {
	{
		printf -- '- hosts: all\n  gather_facts: no\n'
		[ -n "$1" ] && printf '%s\n' "$1" | sed 's/^/  /'
		printf '  tasks:\n    - debug: msg=ran\n'
		[ -n "$2" ] && printf '%s\n' "$2" | sed 's/^/      /'
	} >"$TMPD/p.yml"
}

refused() {
	play "$1" "$2"
	expect_exit 65 "refused: ${1:-task $2}" -- "$IMC" play --no-fallback -c local -i h "$TMPD/p.yml"
	expect_grep "unsupported (play|task) keyword '$3'" "$TMPD/err" "the error names '$3'"
}
refused 'serial: "{{ n }}"' '' serial
refused 'strategy: debug' '' strategy
refused 'order: "{{ o }}"' '' order
refused 'max_fail_percentage: "{{ p }}"' '' max_fail_percentage
refused 'force_handlers: "{{ f }}"' '' force_handlers
refused 'any_errors_fatal: "{{ f }}"' '' any_errors_fatal
refused 'module_defaults: {group/aws: {region: x}}' '' module_defaults
refused 'module_defaults: [file]' '' module_defaults
refused 'vars_prompt: [{name: x, prompt: X}]' '' vars_prompt
refused '' 'debugger: on_failed' debugger

# an order Ansible does not know: its error
play 'order: backwards' ''
expect_exit 65 "an unknown order is an error" -- "$IMC" play --no-fallback -c local -i h "$TMPD/p.yml"
expect_grep "Invalid 'order' specified for inventory hosts: backwards" "$TMPD/err" "in Ansible's words"

# a block's keyword counts too
cat >"$TMPD/b.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - block:
        - debug: msg=ran
      debugger: always
EOY
expect_exit 65 "refused: debugger on a block" -- "$IMC" play --no-fallback -c local -i h "$TMPD/b.yml"
expect_grep "unsupported block keyword 'debugger'" "$TMPD/err" "the block's keyword is named"

# the defaults change nothing: imc runs the play itself
play 'serial: []
strategy: linear
order: inventory
force_handlers: false
any_errors_fatal: no
module_defaults: {}
debugger: never' 'timeout: 0'
expect_exit 0 "default values run in imc" -- "$IMC" play --no-fallback -c local -i h "$TMPD/p.yml"
expect_grep '"msg": "ran"' "$TMPD/out" "the task ran"

# where the fallback is allowed, the whole playbook goes to ansible-playbook
play 'strategy: debug' ''
IMC_NO_FALLBACK=0 expect_exit 0 "strategy: debug runs under ansible-playbook" -- "$IMC" play -c local -i h "$TMPD/p.yml"
expect_grep "unsupported play keyword 'strategy'.*running it under ansible-playbook" "$TMPD/err" "it says why"
expect_grep '"msg": "ran"' "$TMPD/out" "Ansible ran the task"
done_testing
