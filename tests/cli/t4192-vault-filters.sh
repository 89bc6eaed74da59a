#!/bin/sh
# t4192: the vault and unvault filters as Ansible's: vault encrypts with the
# secret given (the text of salt= as the salt, so the envelope is
# deterministic; vaultid= in a 1.2 header, filter_default by default),
# unvault decrypts with that one secret and gives text that is not
# encrypted back as it is; their errors in Ansible's words (a wrong secret,
# an empty salt, encrypted input, arguments that are not text). Compared
# live with ansible-playbook (scripts/install-deps installs it); a random
# salt is checked by the round trip. wrap_object=True asks for a Python
# object imc's values cannot be: refused by name.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D"
cat >"$D/v.yml" <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  vars:
    data: "secret text\nover two lines"
    password: test
    big: 9223372036854775807
    sealed: "$ANSIBLE_VAULT;1.2;AES256;filter_default\n33370a34333734353636633035656232613935353432656132646533346233326431346232616261\n6133383034376566366261316365633931356133633337396363370a376664386236313834326561\n6338373864623763613165366636633031303739\n"
  tasks:
    - debug: { msg: "{{ data | vault(password, salt='12345678901234567890') }}" }
    - debug: { msg: "{{ data | vault(password, salt=big, vaultid='other') }}" }
    - debug: { msg: "{{ 'x' | vault(password, salt='s', vaultid='default') }}" }
    - debug: { msg: "{{ '' | vault(password, salt='s') }}" }
    - debug: { msg: "{{ sealed | unvault(password) }}" }
    - debug: { msg: "{{ (data | vault(password)) | unvault(password) }}" }
    - debug: { msg: "{{ (data | vault(password, vaultid='x')) | unvault(password) }}" }
    - debug: { msg: "{{ 'plain text' | unvault(password) }}" }
    - debug: { msg: "{{ sealed | unvault('wrong') }}" }
      ignore_errors: true
    - debug: { msg: "{{ 42 | vault(password) }}" }
      ignore_errors: true
    - debug: { msg: "{{ data | vault(42) }}" }
      ignore_errors: true
    - debug: { msg: "{{ [1] | unvault(password) }}" }
      ignore_errors: true
    - debug: { msg: "{{ data | vault(password, salt='') }}" }
      ignore_errors: true
    - debug: { msg: "{{ sealed | vault(password) }}" }
      ignore_errors: true
EOF_PB
cd "$D" || exit 1
results() { grep -E '^ok:|^fatal:|"msg"' "$1"; }
ansible-playbook v.yml >"$TMPD/ans.out" 2>&1
results "$TMPD/ans.out" >"$TMPD/ans"
expect_exit 0 "vault and unvault, with their errors ignored" -- "$IMC" play v.yml --no-fallback
results "$TMPD/out" >"$TMPD/imc"
expect_same_as_ansible "... every result as ansible-playbook's" grep -q 'AES256;other' "$TMPD/ans"
printf '%s\n' '- hosts: localhost' '  gather_facts: false' '  tasks:' \
	"    - debug: { msg: \"{{ 'x' | vault('pw', wrap_object=True) }}\" }" >"$D/w.yml"
expect_exit 1 "wrap_object=True" -- "$IMC" play w.yml --no-fallback
expect_grep "wrap_object \\(an AnsibleVaultEncryptedUnicode\\) is not supported by imc" "$TMPD/out" "... is refused by name"
done_testing
