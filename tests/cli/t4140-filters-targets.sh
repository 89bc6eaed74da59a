#!/bin/sh
# t4140: what ansible-core 2.14's integration targets for templating ask of
# imc (issue 17, the filters task), each checked against the real thing:
# the template module's output_encoding against Python's own codecs (the
# file's bytes, and Python's error for a character the encoding lacks or an
# encoding it does not know), as the target `template` writes
# encoding_1252_*; a template syntax error in a task fails that task
# when it runs (lookup_csvfile); a multiline shell command keeps its
# whitespace and chdir through a link is physical (command_shell); file
# warns of an owner or group missing in check mode (file); the ini lookup
# (lookup_ini).
. "$top_srcdir/tests/cli/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { not_ok "needs $PY (package python3)"; done_testing; exit 1; }

# ---- template: output_encoding -------------------------------------------
mkdir -p "$TMPD/tpl/templates"
printf 'caf\303\251 {{ word }}\n' >"$TMPD/tpl/templates/ok.j2"
printf 'caf\303\251 \304\201\n' >"$TMPD/tpl/templates/macron.j2"
cat >"$TMPD/tpl/enc.yml" <<EOY
- hosts: all
  gather_facts: no
  vars:
    word: "\u20ac"
  tasks:
    - template: src=ok.j2 dest=$TMPD/out-{{ item | default('default', true) }} output_encoding={{ item }}
      loop: ['', utf-8, windows-1252, latin_1, iso8859_15, utf-16, cp850]
      ignore_errors: true
    - template: src=macron.j2 dest=$TMPD/macron-{{ item }} output_encoding={{ item }}
      loop: [windows-1252, latin-1, ascii, no-such-codec]
      ignore_errors: true
      register: bad
    - copy: content="{{ bad.results | map(attribute='msg') | list | to_json }}" dest=$TMPD/bad.json
EOY
expect_exit 0 "template with output encodings runs" -- "$IMC" play --no-fallback -c local -i h "$TMPD/tpl/enc.yml"
# Python's bytes for the same text in each encoding (the euro sign is not
# in latin-1: that one is Python's error too)
"$PY" - "$TMPD" >"$TMPD/py.txt" 2>&1 <<'EOP'
import sys, os
d = sys.argv[1]
text = 'caf\u00e9 \u20ac\n'
for enc in ['', 'utf-8', 'windows-1252', 'latin_1', 'iso8859_15', 'utf-16', 'cp850']:
    name = enc or 'default'
    try:
        want = text.encode(enc or 'utf-8')
    except UnicodeEncodeError:
        want = None
    path = os.path.join(d, 'out-' + name)
    got = open(path, 'rb').read() if os.path.exists(path) else None
    print(('ok ' if got == want else 'not ok ') + '%s: %r' % (name, got))
import json
msgs = json.load(open(os.path.join(d, 'bad.json')))
for enc, msg in zip(['windows-1252', 'latin-1', 'ascii', 'no-such-codec'], msgs):
    try:
        'caf\u00e9 \u0101\n'.encode(enc)
        want = None
    except (UnicodeEncodeError, LookupError) as e:
        want = 'Unexpected failure during module execution: ' + str(e)
    print(('ok ' if msg == want else 'not ok ') + '%s error: %s' % (enc, msg))
EOP
while IFS= read -r line; do
	case $line in
	"ok "*) ok "output_encoding ${line#ok }" ;;
	"not ok "*) not_ok "output_encoding ${line#not ok }" ;;
	*) echo "# $line" ;;
	esac
done <"$TMPD/py.txt"

# ---- lazy templating: a syntax error in a task's arguments or condition
# fails that task when it runs (lookup_csvfile), not the playbook's load;
# a task that is skipped never templates them. The play's own asserts
# hold under ansible-playbook 2.14 (checked when this was written).
cat >"$TMPD/lazy.yml" <<'EOY'
- hosts: all
  gather_facts: no
  tasks:
    - set_fact:
        x: "{{ lookup('csvfile', 'foo', file='people.csv', delimiter=',' col=1) }}"
      ignore_errors: true
      register: bad_args
    - debug: msg="{{ (1 }}"
      when: false
      register: skipped
    - debug: msg=reached
      when: "1 +"
      ignore_errors: true
      register: bad_when
    - assert:
        that:
          - bad_args is failed
          - "'template error while templating string' in bad_args.msg"
          - skipped is skipped
          - bad_when is failed
          - "'template error while templating string' in bad_when.msg"
EOY
expect_exit 0 "a template syntax error fails its task at run time" -- \
	"$IMC" play --no-fallback -c local -i h "$TMPD/lazy.yml"

# ---- command_shell: a multiline free-form command keeps its spaces and
# line breaks (Ansible's split_args/join_args), and chdir through a link
# leaves $PWD physical, as the module's os.chdir does
mkdir -p "$TMPD/www_root/site" && ln -s "$TMPD/www_root" "$TMPD/www"
cat >"$TMPD/cmd.yml" <<EOY
- hosts: all
  gather_facts: no
  tasks:
    - shell: |
        cat <<EOF
        One
          Two
            Three
        EOF
      register: ml
    - shell: echo a   b \\
        c
      register: cont
    - shell: dirname "\$PWD"
      args:
        chdir: $TMPD/www/site
      register: pwd
    - assert:
        that:
          - "ml.cmd == 'cat <<EOF\\nOne\\n  Two\\n    Three\\nEOF\\n'"
          - "ml.stdout == 'One\\n  Two\\n    Three'"
          - "cont.cmd == 'echo a   b c'"
          - "pwd.stdout == '$TMPD/www_root'"
EOY
expect_exit 0 "multiline commands keep their whitespace; chdir is physical" -- \
	"$IMC" play --no-fallback -c local -i h "$TMPD/cmd.yml"

# ---- file: in check mode an owner or group the node lacks is warned
# about, by name or id, with Ansible's words (target file, owner_no_exist);
# one that exists is not
cat >"$TMPD/own.yml" <<EOY
- hosts: all
  gather_facts: no
  tasks:
    - file: path=$TMPD/nonexistent owner=imc-t4140-nobody group=3999998
      check_mode: true
      ignore_errors: true
      register: missing
    - file: path=$TMPD/nonexistent owner=3999999 group=imc-t4140-nogroup state=touch
      check_mode: true
      register: missing_touch
    - file: path=$TMPD/nonexistent owner=root group=0 state=touch
      check_mode: true
      register: present
    - assert:
        that:
          - missing is failed
          - "missing.warnings == ['failed to look up user imc-t4140-nobody. Create user up to this point in real play', 'failed to look up group with gid 3999998. Create group up to this point in real play']"
          - "missing_touch.warnings == ['failed to look up user with uid 3999999. Create user up to this point in real play', 'failed to look up group imc-t4140-nogroup. Create group up to this point in real play']"
          - present.warnings is not defined
EOY
expect_exit 0 "file warns of a missing owner or group in check mode" -- \
	"$IMC" play --no-fallback -c local -i h "$TMPD/own.yml"

# ---- the ini lookup (lookup_ini) as configparser reads a file: [DEFAULT],
# ':' and '=', keys in any case, continuation lines with a blank one,
# comments, %(name)s and %%, re=True over the defaults and the section,
# properties files, errors in Ansible's words; the values were recorded
# from ansible-playbook 2.14 on the same file
printf '[DEFAULT]\nbase = /opt\nPct = 50%%%%\n\n[s]\nKey1 : v1\ndir = %%(base)s/x\nmulti = line1\n  line2\n\n  line4\n\n; comment\nother=o\n[t]\nbad = %%(nope)s\n' >"$TMPD/edge.ini"
printf '[d]\nk = 1\nK = 2\n' >"$TMPD/dup.ini"
printf 'a.b = one\nc: two\n' >"$TMPD/edge.properties"
printf '[latin]\nk = caf\351\n' >"$TMPD/latin.ini"
cat >"$TMPD/ini.yml" <<EOY
- hosts: all
  gather_facts: no
  vars:
    f: $TMPD/edge.ini
  tasks:
    - set_fact:
        all: "{{ lookup('ini', 'key1', section='s', file=f) }}|{{ lookup('ini', 'dir', section='s', file=f) }}|{{ lookup('ini', 'multi', section='s', file=f) }}|{{ lookup('ini', 'pct', section='s', file=f) }}|{{ lookup('ini', 'other', section='s', file=f) }}|{{ lookup('ini', '.*', section='s', file=f, re=True) }}|{{ lookup('ini', 'base', section='DEFAULT', file=f) }}"
        inline: "{{ lookup('ini', 'nope default=dflt section=s file=' ~ f) }}|{{ lookup('ini', 'a.b', type='properties', file='$TMPD/edge.properties') }}|{{ lookup('ini', 'C type=properties file=$TMPD/edge.properties') }}"
        latin: "{{ lookup('ini', 'k', section='latin', file='$TMPD/latin.ini', encoding='latin_1') }}"
    - debug: msg="{{ lookup('ini', 'bad', section='t', file=f) }}"
      ignore_errors: true
      register: interp
    - debug: msg="{{ lookup('ini', 'k', section='d', file='$TMPD/dup.ini') }}"
      ignore_errors: true
      register: dup
    - debug: msg="{{ lookup('ini', 'k', section='nosuch', file=f) }}"
      ignore_errors: true
      register: nosect
    - assert:
        that:
          - "all == 'v1|/opt/x|line1\\nline2\\n\\nline4|50%|o|/opt,50%,v1,/opt/x,line1\\nline2\\n\\nline4,o|/opt'"
          - "inline == 'dflt|one|two'"
          - "latin == 'caf\\u00e9'"
          - interp is failed
          - "interp.msg is search('Bad value substitution: option .bad. in section .t. contains an interpolation key .nope.')"
          - dup is failed
          - "'Duplicate option in' in dup.msg"
          - nosect is failed
          - "nosect.msg is search('No section .nosuch. in')"
EOY
expect_exit 0 "the ini lookup reads files as configparser" -- \
	"$IMC" play --no-fallback -c local -i h "$TMPD/ini.yml"

done_testing
