#!/bin/sh
# t4055: what a module costs on the node beyond its round trips: the
# processes its script starts. Each command a module script finds through
# PATH runs here through a wrapper that logs its name (and a marker task
# names the task that follows), so that the list per task is asserted:
# dirname, cut and tr are the shell's own expansions now, touch's two
# 'now' times one stat, date and touch, and a copy with a mode no chmod
# before it. Then lineinfile's guessed edit (a file's content remembered
# from the write or read before, its change sent in one round trip guarded
# by the content's SHA-1): one round trip after a copy and after itself;
# the guard refusing when a command changed the file meanwhile (the edit
# then made from a read, three round trips); and the file as Ansible's
# lineinfile leaves it in every case. Last, file's links: src asked in
# the module's first probe, a link left unchanged answered from it.
. "$top_srcdir/tests/cli/lib.sh"
W=$TMPD/w
B=$TMPD/bin
mkdir -p "$W" "$B"
for c in stat dirname cut tr chmod chown date touch sha1sum mktemp mv cat file lsattr mkdir rm readlink; do
	real=$(command -v "$c") || continue
	printf '#!/bin/sh\necho %s >>"%s/log"\nexec %s "$@"\n' "$c" "$TMPD" "$real" >"$B/$c"
	chmod 755 "$B/$c"
done
printf '#!/bin/sh\necho "== $1" >>"%s/log"\n' "$TMPD" >"$B/imc-mark"
chmod 755 "$B/imc-mark"
mark() { printf '    - command: imc-mark %s\n' "$1"; }
{
	echo "- hosts: localhost"
	echo "  gather_facts: false"
	echo "  tasks:"
	mark dir
	echo "    - file: { path: $W/d, state: directory, mode: '0755' }"
	mark copy
	echo "    - copy: { content: \"key=value\\n# comment\\n\", dest: $W/d/app.conf, mode: '0644' }"
	mark copy-same
	echo "    - copy: { content: \"key=value\\n# comment\\n\", dest: $W/d/app.conf, mode: '0644' }"
	mark stat
	echo "    - stat: { path: $W/d/app.conf }"
	mark touch
	echo "    - file: { path: $W/d/t, state: touch, mode: '0600' }"
	mark end
} >"$TMPD/procs.yml"
PATH=$B:$PATH "$IMC" play -c local --no-fallback "$TMPD/procs.yml" >"$TMPD/out" 2>&1 &&
	ok "the play ran" || { not_ok "the play ran"; sed 's/^/#   /' "$TMPD/out" | tail -20; }
# one line per task: its name, then the commands it ran in order
awk '/^== / { if (t != "") print t ":" l; t = $2; l = ""; next } { l = l " " $1 } END { print t ":" l }' \
	"$TMPD/log" >"$TMPD/got"
cat >"$TMPD/want" <<EOW
dir: mkdir chmod stat
copy: chmod cat mv stat
copy-same: stat sha1sum
stat: stat sha1sum stat file lsattr
touch: stat chmod stat date touch stat
end:
EOW
if diff "$TMPD/want" "$TMPD/got" >"$TMPD/diff"; then
	ok "the commands each module ran on the node"
else
	not_ok "the commands each module ran on the node"
	sed 's/^/#   /' "$TMPD/diff"
fi

# lineinfile: guessed edits, and the guard
F=$W/l.conf
cat >"$TMPD/lif.yml" <<EOY
- hosts: localhost
  gather_facts: false
  tasks:
    - name: copy
      copy: { content: "key=value\n# comment\n", dest: $F }
    - name: after-copy
      lineinfile: { path: $F, regexp: '^key=', line: 'key=other' }
      register: l1
    - name: after-itself
      lineinfile: { path: $F, line: 'extra=1' }
      register: l2
    - name: behind
      shell: printf 'late=1\n' >> $F
    - name: guard-refuses
      lineinfile: { path: $F, regexp: '^#', state: absent }
      register: l3
    - name: unchanged
      lineinfile: { path: $F, line: 'extra=1' }
      register: l4
    - assert:
        that:
          - l1 is changed and l1.msg == 'line replaced'
          - l2 is changed and l2.msg == 'line added'
          - l3 is changed and l3.found == 1
          - l4 is not changed
EOY
IMC_LOG=exec=debug "$IMC" play -c local --no-fallback "$TMPD/lif.yml" >"$TMPD/out" 2>"$TMPD/err" &&
	ok "the lineinfile play ran and its asserts held" ||
	{ not_ok "the lineinfile play ran and its asserts held"; sed 's/^/#   /' "$TMPD/out" "$TMPD/err" | tail -30; }
sed -n 's/.* localhost: \([a-z-]*\): \([0-9]*\) round trips$/\1 \2/p' "$TMPD/err" >"$TMPD/got"
cat >"$TMPD/want" <<EOW
copy 1
after-copy 1
after-itself 1
behind 1
guard-refuses 3
unchanged 1
assert 0
EOW
if diff "$TMPD/want" "$TMPD/got" >"$TMPD/diff"; then
	ok "lineinfile's round trips: one on a remembered content, three when the guard refuses"
else
	not_ok "lineinfile's round trips: one on a remembered content, three when the guard refuses"
	sed 's/^/#   /' "$TMPD/diff"
fi
printf 'key=other\nextra=1\nlate=1\n' >"$TMPD/want"
cmp -s "$TMPD/want" "$F" && ok "the file as lineinfile leaves it, the command's line kept" ||
	{ not_ok "the file as lineinfile leaves it, the command's line kept"; sed 's/^/#   /' "$F"; }

# file's link and hard link: src asked in file's first probe (an absolute
# link src, any hard src), and a link left as it is answered from its
# probes: no probe of the same path again with nothing sent between
L=$W/links
mkdir -p "$L"
echo x >"$L/src"
cat >"$TMPD/links.yml" <<EOY
- hosts: localhost
  gather_facts: false
  tasks:
    - name: new-link
      file: { src: $L/src, path: $L/l, state: link }
      register: k1
    - name: same-link
      file: { src: $L/src, path: $L/l, state: link }
      register: k2
    - name: relative-link
      file: { src: src, path: $L/r, state: link }
      register: k3
    - name: missing-src
      file: { src: $L/nope, path: $L/m, state: link }
      register: k4
      ignore_errors: true
    - name: new-hard
      file: { src: $L/src, path: $L/h, state: hard }
      register: k5
    - name: same-hard
      file: { src: $L/src, path: $L/h, state: hard }
      register: k6
    - assert:
        that:
          - k1 is changed and k1.state == 'link' and k1.src == '$L/src'
          - k2 is not changed and k2.state == 'link'
          - k3 is changed and k3.state == 'link'
          - k4 is failed and k4.msg is search('src file does not exist')
          - k5 is changed and k5.state == 'hard'
          - k6 is not changed
EOY
IMC_LOG=exec=debug "$IMC" play -c local --no-fallback "$TMPD/links.yml" >"$TMPD/out" 2>"$TMPD/err" &&
	ok "the link play ran and its asserts held" ||
	{ not_ok "the link play ran and its asserts held"; sed 's/^/#   /' "$TMPD/out" "$TMPD/err" | tail -30; }
sed -n 's/.* localhost: \([a-z-]*\): \([0-9]*\) round trips$/\1 \2/p' "$TMPD/err" >"$TMPD/got"
cat >"$TMPD/want" <<EOW
new-link 5
same-link 3
relative-link 6
missing-src 1
new-hard 2
same-hard 1
assert 0
EOW
if diff "$TMPD/want" "$TMPD/got" >"$TMPD/diff"; then
	ok "file link and hard link round trips"
else
	not_ok "file link and hard link round trips"
	sed 's/^/#   /' "$TMPD/diff"
fi
[ "$(readlink "$L/l")" = "$L/src" ] && [ "$(readlink "$L/r")" = src ] && [ ! -e "$L/m" ] && [ ! -L "$L/m" ] &&
	[ "$L/h" -ef "$L/src" ] && ok "the links as the play left them" || not_ok "the links as the play left them"
done_testing
