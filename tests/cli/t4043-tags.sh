#!/bin/sh
# t4043: imc play --tags/--skip-tags select tasks as ansible-playbook does:
# tags inherited from blocks, imports, role entries and the play, not from
# a dynamic include_tasks/include_role; never, always, tagged, untagged and
# all; a task tagged never does not run without --tags (the handlers and
# tags targets of ansible-core 2.14 call ansible-playbook with these
# options). Each expected line is ansible-playbook 2.14's output for the
# same play and options.
. "$top_srcdir/tests/cli/lib.sh"

cat >"$TMPD/inc.yml" <<'EOY'
- debug: { msg: inc-untagged }
- debug: { msg: inc-b }
  tags: b
EOY
mkdir -p "$TMPD/roles/r/tasks"
cat >"$TMPD/roles/r/tasks/main.yml" <<'EOY'
- debug: { msg: role-task }
- debug: { msg: role-z }
  tags: z
EOY
cat >"$TMPD/tags.yml" <<'EOY'
- hosts: all
  gather_facts: false
  vars: { t: e }
  roles:
    - { role: r, tags: x }
  tasks:
    - debug: { msg: untagged }
    - debug: { msg: a }
      tags: a
    - debug: { msg: never }
      tags: [never]
    - debug: { msg: never-a }
      tags: [never, a]
    - debug: { msg: always }
      tags: always
    - block:
        - debug: { msg: blk-in }
        - debug: { msg: blk-c }
          tags: c
      tags: b
    - include_tasks: inc.yml
      tags: b
    - import_tasks: inc.yml
      tags: d
    - debug: { msg: "templated {{ t }}" }
      tags: "{{ t }}"
    - include_role: { name: r }
      tags: y
EOY

# check OPTIONS EXPECTED: the messages printed, in order
check() {
	got=$("$IMC" play --no-fallback --connection local "$TMPD/tags.yml" $1 |
		sed -n 's/^ *"msg": "\(.*\)"$/\1/p' | tr '\n' ' ')
	if [ "$got" = "$2" ]; then ok "tags: [$1]"
	else not_ok "tags: [$1]"; echo "#   want: $2"; echo "#   got:  $got"; fi
}
check "" "role-task role-z untagged a always blk-in blk-c inc-untagged inc-b inc-untagged inc-b templated e role-task role-z "
check "--tags a" "a never-a always "
check "--tags b" "always blk-in blk-c inc-b inc-b "
check "--skip-tags b" "role-task role-z untagged a always inc-untagged templated e role-task role-z "
check "--tags tagged" "role-task role-z a always blk-in blk-c inc-b inc-untagged inc-b templated e role-z "
check "--tags untagged" "untagged always "
check "--skip-tags always" "role-task role-z untagged a blk-in blk-c inc-untagged inc-b inc-untagged inc-b templated e role-task role-z "
check "--tags all --skip-tags all" "always "
check "--tags e,d --tags x" "role-task role-z always inc-untagged inc-b templated e "
check "--tags never" "never never-a always "
check "--tags y" "always "
check "--tags z,y" "role-z always role-z "

done_testing
