#!/bin/sh
# t4209: a module's parameters of type 'path' are expanded on the node as
# Ansible's AnsibleModule expands them (os.path.expandvars with the
# module's environment, the task's environment: included, then
# os.path.expanduser): ~, ~USER, $VAR and ${VAR} in file, stat, copy
# (dest, and src with remote_src), template's dest, lineinfile, command's
# chdir and creates, find's comma-separated paths; an unset variable or
# an unknown user is left as written; copy's and template's action first
# expand dest's ~ to the user's passwd home (not $HOME); a controller src
# or lookup file named by ~ is the controller's. imc used to take "~/x"
# as a directory named "~". Compared live with ansible-playbook.
. "$top_srcdir/tests/cli/lib.sh"
require_ansible_playbook
D="$TMPD/pb"
mkdir -p "$D/home" "$D/home/d1" "$D/home/d2"
cd "$D" || exit 1
export HOME="$D/home"
echo one >"$HOME/d1/f1"
echo two >"$HOME/d2/f2"
echo controller >"$HOME/srcfile"
echo '{{ 6 * 7 }}' >t.j2
cat >p.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - file: { path: ~/a, state: touch }
      register: r
    - debug: msg="touch ~ {{ r.dest }} {{ r.changed }}"
    - file: { path: $HOME/b, state: touch }
      register: r
    - debug: msg="touch $HOME {{ r.dest }}"
    - file: { path: '${HOME}/c', state: touch }
      register: r
    - debug: msg="touch ${HOME} {{ r.dest }}"
    - file: { path: ~/$SUB, state: directory }
      environment: { SUB: sub }
      register: r
    - debug: msg="vars then ~ {{ r.path }}"
    - file: { path: '{{ playbook_dir }}/lit$IMC_T4209_UNSET', state: touch }
      register: r
    - debug: msg="unset {{ r.dest | basename }}"
    - file: { path: ~imc_no_such_user/x, state: absent }
      register: r
    - debug: msg="unknown user {{ r.path }} {{ r.changed }}"
    - file: { path: ~root, state: directory }
      register: r
    - debug: msg="~root {{ r.path }} {{ r.changed }}"
    - stat: { path: ~/a }
      register: s
    - debug: msg="stat {{ s.stat.exists }} {{ s.stat.path }}"
    - command: pwd
      args: { chdir: ~/sub }
      register: c
    - debug: msg="chdir {{ c.stdout }}"
    - command: echo never
      args: { creates: $HOME/a }
      register: c
    - debug: msg="creates {{ c.stdout }} {{ c.changed }}"
    - find: { paths: '~/d1,$HOME/d2' }
      register: f
    - debug: msg="find {{ f.files | map(attribute='path') | sort | join(' ') }} {{ f.examined }}"
    - copy: { src: $HOME/d1/f1, dest: ~/copied, remote_src: true }
      register: r
    - debug: msg="copy remote_src {{ r.src | default('') }} {{ r.dest }} {{ r.changed }}"
    - copy: { src: ~/srcfile, dest: $HOME/from-controller }
      register: r
    - debug: msg="copy controller {{ r.dest }} {{ lookup('file', '~/from-controller') }}"
    - copy: { content: x, dest: $HOME/content }
      register: r
    - debug: msg="copy content {{ r.dest }}"
    - lineinfile: { path: ~/l, line: x, create: true }
      register: r
    - debug: msg="lineinfile {{ r.changed }} {{ lookup('file', '~/l') }}"
EOF_PB
ansible-playbook p.yml >"$TMPD/a.out" 2>"$TMPD/a.err"
sed -e 's/^ *//' "$TMPD/a.out" | grep '^"msg"' >"$TMPD/ans"
rm -rf "$HOME/a" "$HOME/b" "$HOME/c" "$HOME/sub" "$HOME/copied" "$HOME/content" "$HOME/from-controller" "$HOME/l" "$D/lit\$IMC_T4209_UNSET"
expect_exit 0 "paths with ~ and \$VAR" -- "$IMC" play p.yml --no-fallback
sed -e 's/^ *//' "$TMPD/out" | grep '^"msg"' >"$TMPD/imc"
expect_same_as_ansible "... expanded on the node as ansible-playbook expands them" grep -q "touch ~ $HOME/a True" "$TMPD/ans"
[ -f "$HOME/a" ] && [ -d "$HOME/sub" ] && [ -f "$D/lit\$IMC_T4209_UNSET" ] && [ ! -e "$D/~" ] &&
	ok "... the files are where Ansible puts them" || not_ok "... the files are where Ansible puts them"
# copy's and template's action expand dest's ~ first, to the passwd home
# of the become user (else of the connection's user), not to $HOME
if [ "$(id -u)" = 0 ] && command -v sudo >/dev/null && id nobody >/dev/null 2>&1; then
	cat >b.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - copy: { content: x, dest: ~/x }
      become: true
      become_user: nobody
      ignore_errors: true
      register: r
    - debug: msg="copy as nobody {{ r.msg }}"
    - copy: { content: x, dest: ~nobody/x }
      ignore_errors: true
      register: r
    - debug: msg="copy to ~nobody {{ r.msg }}"
    - template: { src: t.j2, dest: ~/sub/t.out }
      become: true
      become_user: nobody
      ignore_errors: true
      register: r
    - debug: msg="template as nobody {{ r.msg }}"
    - file: { path: ~/x, state: absent }
      become: true
      become_user: nobody
      register: r
    - debug: msg="file as nobody {{ r.path }}"
EOF_PB
	ansible-playbook b.yml 2>/dev/null | sed -e 's/^ *//' | grep '^"msg"' >"$TMPD/ans"
	expect_exit 0 "~ under become" -- "$IMC" play b.yml --no-fallback
	sed -e 's/^ *//' "$TMPD/out" | grep '^"msg"' >"$TMPD/imc"
	expect_same_as_ansible "... the become user's home" grep -q "copy as nobody Destination directory $(getent passwd nobody | cut -d: -f6)" "$TMPD/ans"
fi
done_testing
