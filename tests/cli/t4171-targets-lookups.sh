#!/bin/sh
# t4171: what ansible-core 2.14's integration targets ask of imc's lookups
# and play context beyond t4170 (issue 17), each play's asserts checked
# under ansible-playbook 2.14 when written: a lookup's error as Ansible's
# templar reports it from lookup() and query() (an AnsibleError wrapped as
# "An unhandled exception occurred while running the lookup plugin ...",
# naming the exception's Python class; an AnsibleLookupError as it is; an
# undefined variable whatever errors= says), and not wrapped from a
# with_<name> loop, which runs the plugin directly; !unsafe text.
. "$top_srcdir/tests/cli/lib.sh"

# ---- lookup errors (imc gave the plugin's message alone, with the
# template's position)
mkdir "$TMPD/lk"
printf '[s]\na=1\nb=%%(zz)s\n' >"$TMPD/lk/t.ini"
cat >"$TMPD/lk/p.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  tasks:
    - debug: msg="{{ lookup('file', 'nope') }}"
      ignore_errors: true
      register: file
    - debug: msg="{{ lookup('ansible.builtin.pipe', 'exit 3') }}"
      ignore_errors: true
      register: pipe
    - debug: msg="{{ query('ini', 'b', file='t.ini', section='s') }}"
      ignore_errors: true
      register: interp
    - debug: msg="{{ lookup('ini', 'a', file='nope.ini') }}"
      ignore_errors: true
      register: ininofile
    - debug: msg="{{ lookup('first_found', 'nope1', 'nope2') }}"
      ignore_errors: true
      register: ff
    - debug: msg="{{ lookup('ini', 'a foo=2', file='t.ini', section='s') }}"
      ignore_errors: true
      register: inline
    - debug: msg="{{ lookup('vars', 'nosuchvar', errors='ignore') }}"
      ignore_errors: true
      register: undef
    - debug: msg="{{ lookup('dict', 'a') }}"
      ignore_errors: true
      register: notdict
    - debug: msg="{{ item }}"
      with_dict: a
      ignore_errors: true
      register: loopdict
    - assert:
        that:
          - "file.msg == \"An unhandled exception occurred while running the lookup plugin 'file'. Error was a <class 'ansible.errors.AnsibleError'>, original message: could not locate file in lookup: nope. could not locate file in lookup: nope\""
          - "pipe.msg == \"An unhandled exception occurred while running the lookup plugin 'ansible.builtin.pipe'. Error was a <class 'ansible.errors.AnsibleError'>, original message: lookup_plugin.pipe(exit 3) returned 3. lookup_plugin.pipe(exit 3) returned 3\""
          - "interp.msg == \"An unhandled exception occurred while running the lookup plugin 'ini'. Error was a <class 'configparser.InterpolationMissingOptionError'>, original message: Bad value substitution: option 'b' in section 's' contains an interpolation key 'zz' which is not a valid option name. Raw value: '%(zz)s'. Bad value substitution: option 'b' in section 's' contains an interpolation key 'zz' which is not a valid option name. Raw value: '%(zz)s'\""
          - "ininofile.msg == \"An unhandled exception occurred while running the lookup plugin 'ini'. Error was a <class 'ansible.errors.AnsibleParserError'>, original message: Invalid filename: 'None'. Invalid filename: 'None'\""
          - "notdict.msg == \"An unhandled exception occurred while running the lookup plugin 'dict'. Error was a <class 'ansible.errors.AnsibleError'>, original message: with_dict expects a dict. with_dict expects a dict\""
          - "ff.msg == 'No file was found when using first_found.'"
          - "inline.msg == 'a foo is not a valid option.'"
          - "undef.msg is search('^The task includes an option with an undefined variable. The error was: No variable found with this name: nosuchvar. No variable found')"
          - "loopdict.msg == 'with_dict expects a dict'"
          - "lookup('file', 'nope', errors='ignore') is none"
          - "query('file', 'nope', errors='warn') == []"
          - "lookup('ini', 'a', file='t.ini', section='s', nosuchoption=1) == '1'"

EOY
expect_exit 0 "lookup errors are wrapped as Ansible's templar wraps them" -- \
	"$IMC" play --no-fallback "$TMPD/lk/p.yml"

# ---- a scalar tagged !unsafe is never templated (template target:
# "Create a template which has strange permissions" copies
# `content: !unsafe '{{ ansible_managed }}\n'`; imc templated it)
cat >"$TMPD/un.yml" <<'EOY'
- hosts: localhost
  gather_facts: no
  vars:
    out: "{{ lookup('env', 'TMPD') }}/un.out"
    nottemplated: this should not be seen
    imunsafe: !unsafe '{{ nottemplated }}'
    blocky: !unsafe |

      {% if x %}{{ y }}{% endraw %}{# c #}
      {%- raw -%} end
    plain: !unsafe foo:bar
    listy:
      - !unsafe '{{ a }}'
      - !unsafe b
  tasks:
    - set_fact:
        this_was_unsafe: >
          {{ imunsafe }}
    - set_fact:
        this_always_safe: '{{ imunsafe }}'
    - copy:
        content: "{{ blocky }}"
        dest: "{{ out }}"
    - assert:
        that:
          - imunsafe == '{' ~ '{ nottemplated }}'
          - "blocky == '\n{' ~ '% if x %}{' ~ '{ y }}{' ~ '% endraw %}{' ~ '# c #}\n{' ~ '%- raw -%} end\n'"
          - "lookup('file', out) == blocky[:-1]"
          - plain == 'foo:bar'
          - listy[0] == '{' ~ '{ a }}'
          - listy | length == 2
          - imunsafe | length == 18
EOY
expect_exit 0 "!unsafe text is not templated" -- \
	env TMPD="$TMPD" "$IMC" play --no-fallback "$TMPD/un.yml"

done_testing
