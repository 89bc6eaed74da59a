#!/bin/sh
# t4103: what Ansible's parser refuses, imc refuses at load in Ansible's
# words (ansible-core 2.14.18's, seen with `ansible-playbook -i h1, -c
# local FILE`: the playbook target of its integration tests greps them),
# and what it accepts, imc runs: an empty playbook, an empty hosts list,
# task sections that are not lists, roles that are not a list, an old
# style "a,b" role, user with remote_user, a vars_prompt entry without a
# name, free-form text given to a module that takes none (debug: "text");
# vars_files given as one file name, user alone; vars files holding a
# vault, a list of mappings, nothing, or something else.
. "$top_srcdir/tests/cli/lib.sh"

# refused NAME MESSAGE: $TMPD/NAME.yml fails to load with MESSAGE
refused() {
	expect_exit 65 "$1: refused at load" -- "$IMC" play --no-fallback -c local -i h1 "$TMPD/$1.yml"
	expect_grep "^ERROR! .*$2" "$TMPD/err" "$1: Ansible's message, as ansible-playbook prints it"
	expect_no_grep '^TASK' "$TMPD/out" "$1: nothing ran"
}

echo '[]' >"$TMPD/empty.yml"
refused empty "A playbook must contain at least one play: /.*/empty.yml$"
printf -- '- hosts: []\n  tasks:\n    - debug: msg=no\n' >"$TMPD/nohosts.yml"
refused nohosts "Hosts list cannot be empty. Please check your playbook"
printf -- '- hosts: all\n  tasks: 123\n' >"$TMPD/tasks.yml"
refused tasks "A malformed block was encountered while loading tasks: 123 should be a list or None but is <class 'int'>"
printf -- '- hosts: all\n  pre_tasks: 123\n' >"$TMPD/pre.yml"
refused pre "A malformed block was encountered while loading pre_tasks$"
printf -- '- hosts: all\n  post_tasks: 123\n' >"$TMPD/post.yml"
refused post "A malformed block was encountered while loading post_tasks$"
printf -- '- hosts: all\n  roles: 123\n' >"$TMPD/roles.yml"
refused roles "A malformed role declaration was encountered."
printf -- '- hosts: all\n  roles:\n    - foo,bar\n' >"$TMPD/oldrole.yml"
refused oldrole "Invalid old style role requirement: foo,bar"
printf -- '- hosts: all\n  remote_user: a\n  user: b\n  tasks:\n    - debug: msg=no\n' >"$TMPD/user2.yml"
refused user2 "both 'user' and 'remote_user' are set for this play."
printf -- '- hosts: all\n  vars_prompt:\n    - foo: bar\n' >"$TMPD/prompt.yml"
refused prompt "Invalid vars_prompt data structure, missing 'name' key"
printf -- '- hosts: all\n  gather_facts: no\n  tasks:\n    - debug: "hello world"\n' >"$TMPD/text.yml"
refused text "this task 'debug' has extra params, which is only allowed in the following modules: .*ansible.builtin.shell"
# vars_files contents: a vault-encrypted file (no vault password) and a
# file that holds neither a mapping nor a list of mappings (imc used to
# skip both silently)
printf '$ANSIBLE_VAULT;1.1;AES256\n3132\n' >"$TMPD/vault.vars"
printf -- '- 1\n' >"$TMPD/list.vars"
printf -- '- hosts: all\n  vars_files: [vault.vars]\n  tasks:\n    - debug: msg=no\n' >"$TMPD/vfvault.yml"
refused vfvault "Attempting to decrypt but no vault secrets found$"
printf -- '- hosts: all\n  vars_files: [list.vars]\n  tasks:\n    - debug: msg=no\n' >"$TMPD/vflist.yml"
refused vflist "list.vars: variable files must contain either a dictionary of variables, or a list of dictionaries"

# accepted: vars_files as a file name, user alone (the local connection
# ignores it, as Ansible's), roles: null, free-form text where allowed
printf 'a_variable: yep\n' >"$TMPD/v.yml"
cat >"$TMPD/ok.yml" <<'EOY'
- hosts: all
  gather_facts: no
  vars_files: v.yml
  user: someone
  roles: null
  tasks:
    - assert:
        that: a_variable == "yep"
    - shell: echo free form
      register: r
    - debug: msg="{{ r.stdout }}"
EOY
expect_exit 0 "accepted forms run" -- "$IMC" play --no-fallback -c local -i h1 "$TMPD/ok.yml"
expect_grep '"msg": "free form"' "$TMPD/out" "the play ran to its end"
# a vars file holding a list of mappings is merged in order, an empty
# one adds nothing (as ansible-playbook 2.14.18 reads them)
printf -- '- b: 2\n- b: 3\n  c: 4\n' >"$TMPD/maps.vars"
: >"$TMPD/none.vars"
printf -- '- hosts: all\n  gather_facts: no\n  vars_files: [maps.vars, none.vars]\n  tasks:\n    - debug: msg="{{ b }} {{ c }}"\n' >"$TMPD/vfmaps.yml"
expect_exit 0 "a list of mappings in vars_files" -- "$IMC" play --no-fallback -c local -i h1 "$TMPD/vfmaps.yml"
expect_grep '"msg": "3 4"' "$TMPD/out" "... merged in order"
done_testing
