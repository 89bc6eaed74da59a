#!/bin/sh
# t4180: Ansible Vault in `imc play`, as ansible-playbook 2.14 decrypts it:
# --vault-password-file (a file, or a script run with no argument),
# --vault-id ID@FILE (a *-client script asked with --vault-id ID), a
# vault-encrypted playbook, vars_files, include_vars, include_tasks and
# import_tasks files, role vars and defaults (one under a 1.2 vault id),
# !vault values, the unvault lookup, and copy and template sources. The
# encrypted fixtures were written by ansible-vault (ansible-core 2.14.18)
# and every expected line (values, messages, recap) was recorded with
#   ansible-playbook -i localhost, -c local FILE OPTIONS
# on the same files. The password shows nowhere: not in the output, the
# errors, the results file, nor a password script's argv.
. "$top_srcdir/tests/cli/lib.sh"

D="$TMPD/pb"
mkdir -p "$D/files" "$D/templates" "$D/roles/r/tasks" "$D/out"
echo 'hunter2' >"$D/pw"
echo 'other' >"$D/pw2"
echo 'wrong' >"$D/bad"
: >"$D/empty"
printf 'file secret\n' >"$D/files/plain.txt"
printf -- '- debug:\n    msg: "role {{ role_var }} {{ role_def }}"\n' >"$D/roles/r/tasks/main.yml"
# a plain password script, and a client script that logs its arguments
printf '#!/bin/sh\necho hunter2\n' >"$D/pw-script.sh"
cat >"$D/pw-client.sh" <<'EOF'
#!/bin/sh
echo "$*" >>"${0%/*}/client-args"
[ "$1" = --vault-id ] || exit 3
case "$2" in lab) echo other ;; default) echo hunter2 ;; *) echo "no $2" >&2; exit 2 ;; esac
EOF
chmod +x "$D/pw-script.sh" "$D/pw-client.sh"
mkdir -p "$D/$(dirname v.yml)"
cat >"$D/v.yml" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
34613034366535613862613834336462323137646462626336643136346261363535313563323663
6437643738396133303537666335333231633761646665380a653533363134366362636432653566
36373132653135366539653930346562363531306239653865313131623638303365386436346363
3730333437356437350a646334366431383436396662383961633665323537643862666330616366
61343231313562313862333739393161343462623566303231363561626134393563
EOF
mkdir -p "$D/$(dirname iv.yml)"
cat >"$D/iv.yml" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
65363966376564653530313431366236313163633661663762623436373938646137656566323231
3633346530326430363533346138323635323238633561330a336536383333643462316565333537
33633663646364616330353934616162363161633632613033653933663032653261623338346566
3264623134633065370a643534303238343963326339646232396339396638633265633437336432
66623264353432623833666431663562656266323233666436626539313438663632
EOF
mkdir -p "$D/$(dirname t.yml)"
cat >"$D/t.yml" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
65336632306539636564663538376337626261353233343162383466393433326563653064383534
3164613138313964346339393233643036326261393037640a383731656362656638383333633363
62333134333338613530343932643366323632386366653837313632306166343739633436613439
6332346433346265650a373132363539333464646134353433316361363135333436313931313537
36313335373565666237333131366133313930353961366430373065613065396639366132386532
38356461656464363232373766326131343539653663663561373863333338366266396331323733
33346235653161333931396335666134643835623163376337353831633731393435333635653835
30396661613733636361
EOF
mkdir -p "$D/$(dirname roles/r/vars/main.yml)"
cat >"$D/roles/r/vars/main.yml" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
34336164376530643330323534353534373063306134383431626137643238643534666338386535
6665616665313466386462336439373634396366653963380a303833376564393863316263613262
61666131316139356436653035643835666231646134396338326161383466396164346330646266
3731326232613730310a363931393637353935333438636563386565343466623139393430363234
3332
EOF
mkdir -p "$D/$(dirname roles/r/defaults/main.yml)"
cat >"$D/roles/r/defaults/main.yml" <<'EOF'
$ANSIBLE_VAULT;1.2;AES256;lab
33643831383139376137353738303261366131303466613439623535663031303832663761373565
3436383466663565356139646661333166636334363733310a666161366165376434323433393663
63633665366664376164323363363730313630663231303836356337366432313661303431623835
6539383565373531610a303935383338333461653138663462333462666132373331396466323933
3636
EOF
mkdir -p "$D/$(dirname files/s.txt)"
cat >"$D/files/s.txt" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
39316161646265623639343134333531383939323861333466306437333462373864656562666632
6137396437663332393038316633343261336235636532640a343863306665363038646432646635
30303532613966346564623933343737303630663361633932333830303566666232303236613364
3566333132363336350a633034653730363533376135336166353864656135366333393837336434
3363
EOF
mkdir -p "$D/$(dirname templates/t.j2)"
cat >"$D/templates/t.j2" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
39653034643732393062666562633830653162643565323966663736313462306565316264366534
3830333166633931376535363637306338636365353339650a313066306530616637396665393564
31613262376535623465346535316264653463363866343033303836353634663962356164643535
3132363162396139650a393565383738303539326338336236663032663465633731353635353233
37376666633939633934646162323436366335653831353037626539323935376366
EOF
mkdir -p "$D/$(dirname encplay.yml)"
cat >"$D/encplay.yml" <<'EOF'
$ANSIBLE_VAULT;1.1;AES256
65313438653932366536336564626538633333653765663032366662653635373663373839376333
3764616661353639323766373733336539396666336562630a343535336531303962306232383038
63343664636263626365313166636339353161336465636632656566653064353162623132363865
6238353465316433310a613363656539613538643437326663623461376163666364623530313735
31376235366131303135616138373936303562323633326365656463323033316632613261323130
33323861363666643932326431303464613136373831376536633639646564383265353933316363
31623731333864646634636639326633373537396165356262313834636361633365343532356361
66633433323832313233393561613566623330323234303636663435376530336338363164376335
39656332643930646465636536396230393561316331666438356638386163303237
EOF
cat >"$D/play.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  vars_files:
    - v.yml
  vars:
    inline: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          63356430653230326535623332646637323030613637663364616631323761656664313033353936
          3735633632373735366339653237386639383934396365660a373237613165626237393638396461
          61626161663461336235313463626639316531646632373532343038616236663365663736643935
          6263376135363437340a653935666631373464343166386461343833383434326362656239353962
          3261
    labelled: !vault |
          $ANSIBLE_VAULT;1.2;AES256;lab
          62363839336362303661323432333331356430346462363562646239626430353136616436636562
          6462373733356262353837653433316530303135653762340a373332396563366363663964393331
          36653563326363373130643862643431353830633064626263366134623736393232623737626161
          6532666635393166380a306663323730646165376634326166383264343261353433643237326165
          6536
  roles:
    - r
  tasks:
    - debug:
        msg: "vars file {{ vf_secret }} inline {{ inline }} labelled {{ labelled }}"
    - include_vars: iv.yml
    - debug:
        var: iv_secret
    - include_tasks: t.yml
    - import_tasks: t.yml
    - debug:
        msg: "{{ lookup('unvault', 'files/s.txt') }}|{{ lookup('unvault', 'files/plain.txt') }}"
    - copy:
        src: files/s.txt
        dest: "{{ out }}/copied.txt"
    - template:
        src: templates/t.j2
        dest: "{{ out }}/templated.txt"
    - command: cat {{ out }}/copied.txt {{ out }}/templated.txt
      register: r
    - debug:
        var: r.stdout_lines
    - debug:
        msg: "{{ inline is vault_encrypted }} {{ inventory_hostname is vault_encrypted }}"
EOF
cat >"$D/expected" <<'EOF'
    "msg": "role rv rd"
    "msg": "vars file from-vars-file inline inline-secret labelled labelled"
    "iv_secret": "from-include-vars"
    "msg": "tasks file from-vars-file"
    "msg": "tasks file from-vars-file"
    "msg": "file secret\n|file secret\n"
        "file secret",
        "tmpl from-vars-file"
    "msg": "True False"
localhost                  : ok=13   changed=3    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0   
EOF
# the lines of the run that carry values, and the recap
values() { grep -E '^    "(msg|iv_secret)"|^        "|^localhost ' "$1"; }

cd "$D" || exit 1
expect_exit 0 "every place Ansible decrypts, with --vault-id and --vault-password-file" -- \
	"$IMC" play -c local play.yml --vault-id lab@pw2 --vault-password-file pw -e "out=$D/out" -r "$D/res.json"
values "$TMPD/out" >"$TMPD/got"
if diff -u "$D/expected" "$TMPD/got" >"$TMPD/diff"; then ok "... as ansible-playbook: values and recap"
else not_ok "... as ansible-playbook: values and recap"; sed 's/^/#   /' "$TMPD/diff"; fi
expect_no_grep hunter2 "$TMPD/out" "... the password is not in the output"
expect_no_grep hunter2 "$D/res.json" "... nor in the results file"
# the same secrets from scripts: the client script is asked for each id
rm -rf "$D/out"/* "$D/client-args"
expect_exit 0 "passwords from a script and a client script" -- \
	"$IMC" play -c local play.yml --vault-id lab@pw-client.sh --vault-password-file pw-script.sh -e "out=$D/out"
values "$TMPD/out" >"$TMPD/got"
if diff -u "$D/expected" "$TMPD/got" >"$TMPD/diff"; then ok "... the same run"
else not_ok "... the same run"; sed 's/^/#   /' "$TMPD/diff"; fi
expect_grep '^--vault-id lab$' "$D/client-args" "... the client script was asked for 'lab', with no other argument"
expect_no_grep hunter2 "$TMPD/err" "... the password is not in the errors"

# a vault-encrypted playbook
expect_exit 0 "a vault-encrypted playbook" -- "$IMC" play -c local encplay.yml --vault-password-file pw
expect_grep '"msg": "from-vars-file"' "$TMPD/out" "... runs decrypted"
expect_exit 65 "... without a vault secret" -- "$IMC" play -c local encplay.yml
expect_grep '^ERROR! Attempting to decrypt but no vault secrets found$' "$TMPD/err" "... Ansible's error"
expect_exit 65 "a vars file with the wrong password" -- "$IMC" play -c local play.yml --vault-password-file bad -e "out=$D/out"
expect_grep "^ERROR! Decryption failed \(no vault secrets were found that could decrypt\) on $D/v.yml\$" \
	"$TMPD/err" "... Ansible's error, naming the file"
expect_no_grep wrong "$TMPD/err" "... the wrong password is not shown"

# the secrets' sources, in Ansible's words
expect_exit 66 "a missing password file" -- "$IMC" play -c local encplay.yml --vault-password-file missing
expect_grep "^\[WARNING\]: Error getting vault password file \(default\): The vault password file $D/missing was not found\$" \
	"$TMPD/err" "... Ansible's warning"
expect_grep "^ERROR! The vault password file $D/missing was not found\$" "$TMPD/err" "... then its error"
expect_exit 0 "... not an error when another source gives a secret" -- \
	"$IMC" play -c local encplay.yml --vault-password-file missing --vault-password-file pw
expect_exit 66 "an empty password file" -- "$IMC" play -c local encplay.yml --vault-password-file empty
expect_grep "^ERROR! Invalid vault password was provided from file \($D/empty\)\$" "$TMPD/err" "... Ansible's error"
expect_exit 66 "a client script that has no secret for the id" -- "$IMC" play -c local encplay.yml --vault-id nope@pw-client.sh
expect_grep "^ERROR! Vault password client script $D/pw-client.sh did not find a secret for vault-id=nope: b'no nope\\\\n'\$" \
	"$TMPD/err" "... Ansible's error"
# asking needs a terminal: setsid leaves imc without one
if command -v setsid >/dev/null; then
	expect_exit 64 "--ask-vault-pass without a terminal" -- setsid -w "$IMC" play -c local encplay.yml --ask-vault-pass
	expect_grep 'asking for a vault password needs a terminal' "$TMPD/err" "... is refused, saying why"
fi

# what fails at run time fails the task, in Ansible's words
cat >"$D/rt.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  vars:
    inline: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          63356430653230326535623332646637323030613637663364616631323761656664313033353936
          3735633632373735366339653237386639383934396365660a373237613165626237393638396461
          61626161663461336235313463626639316531646632373532343038616236663365663736643935
          6263376135363437340a653935666631373464343166386461343833383434326362656239353962
          3261
  tasks:
    - debug: msg=before
    - debug: msg="{{ inline }}"
      ignore_errors: true
    - copy: src=files/s.txt dest=/nonexistent/c.txt
      ignore_errors: true
    - template: src=templates/t.j2 dest=/nonexistent/t.txt
      ignore_errors: true
    - include_vars: iv.yml
      ignore_errors: true
EOF
cat >"$D/expected-bad" <<EOF
fatal: [localhost]: FAILED! => {"msg": "Decryption failed (no vault secrets were found that could decrypt)"}
fatal: [localhost]: FAILED! => {"msg": "Decryption failed (no vault secrets were found that could decrypt) on $D/files/s.txt"}
fatal: [localhost]: FAILED! => {"msg": "Decryption failed (no vault secrets were found that could decrypt) on $D/templates/t.j2"}
fatal: [localhost]: FAILED! => {"ansible_facts": {}, "ansible_included_var_files": [], "changed": false, "message": "Decryption failed (no vault secrets were found that could decrypt) on $D/iv.yml"}
EOF
cat >"$D/expected-none" <<EOF
fatal: [localhost]: FAILED! => {"msg": "Attempting to decrypt but no vault secrets found"}
fatal: [localhost]: FAILED! => {"msg": "A vault password or secret must be specified to decrypt $D/files/s.txt"}
fatal: [localhost]: FAILED! => {"msg": "A vault password or secret must be specified to decrypt $D/templates/t.j2"}
fatal: [localhost]: FAILED! => {"ansible_facts": {}, "ansible_included_var_files": [], "changed": false, "message": "Attempting to decrypt but no vault secrets found"}
EOF
for c in bad none; do
	if [ $c = bad ]; then set -- --vault-password-file bad; else set --; fi
	expect_exit 0 "run-time decryption failures ($c password)" -- "$IMC" play -c local rt.yml "$@"
	expect_grep '"msg": "before"' "$TMPD/out" "... the play ran up to them (a !vault value fails only where used)"
	grep '^fatal' "$TMPD/out" >"$TMPD/got"
	if diff -u "$D/expected-$c" "$TMPD/got" >"$TMPD/diff"; then ok "... each task fails as in ansible-playbook"
	else not_ok "... each task fails as in ansible-playbook"; sed 's/^/#   /' "$TMPD/diff"; fi
done
done_testing
