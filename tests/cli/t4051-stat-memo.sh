#!/bin/sh
# t4051: the stat memo (module-util.c): the file module's probe and each
# change print the path's stat in the same round trip, so that the
# attributes and Ansible's path information need none of their own; the
# results stay those of a fresh stat (mode, state, 'hard' from the link
# count, a link's own 0777, absent), a change made by an earlier task is
# seen, and each state takes the round trips counted here (IMC_LOG=exec=debug
# prints every module run's count): a new directory, a new touched file and
# a removal are made in the probe's round trip (t4054).
. "$top_srcdir/tests/cli/lib.sh"
W=$TMPD/w
mkdir -p "$W"
# a change of owner prints no memo (its stat is parsed as before): the
# memo the probe left must not answer for the path afterwards
OWNER=$(id -un)
[ "$(id -u)" = 0 ] && OWNER=nobody
cat >"$TMPD/play.yml" <<EOY
- hosts: localhost
  gather_facts: false
  tasks:
    - name: dir-new
      file: { path: $W/d, state: directory, mode: "0750" }
    - name: dir-again
      file: { path: $W/d, state: directory, mode: "0750" }
    - name: touch-new
      file: { path: $W/d/f, state: touch, mode: "0600" }
    - name: touch-again
      file: { path: $W/d/f, state: touch, mode: "0600" }
    - name: chmod-behind
      command: chmod 0644 $W/d/f
    - name: file-mode
      file: { path: $W/d/f, state: file, mode: "0600" }
    - name: hard
      file: { path: $W/d/h, src: $W/d/f, state: hard }
    - name: link
      file: { path: $W/d/l, src: $W/d/f, state: link }
    - name: absent
      file: { path: $W/d/h, state: absent }
    - name: chown
      file: { path: $W/d/f, owner: "$OWNER" }
EOY
IMC_LOG=exec=debug "$IMC" play -c local --no-fallback -r "$TMPD/res.json" "$TMPD/play.yml" \
	>"$TMPD/out" 2>"$TMPD/err" && ok "the play ran" ||
	{ not_ok "the play ran"; sed 's/^/#   /' "$TMPD/out" "$TMPD/err" | tail -20; }
# NAME CHANGED MODE STATE ROUND-TRIPS for each task
python3 - "$TMPD/res.json" "$TMPD/err" >"$TMPD/got" <<'EOP'
import json, re, sys
doc = json.load(open(sys.argv[1]))
rt = {}
for line in open(sys.argv[2]):
    m = re.search(r'localhost: (\S+): (\d+) round trips', line)
    if m:
        rt[m.group(1)] = m.group(2)
for t in doc['plays'][0]['tasks']:
    name = t['task']['name']
    r = t['hosts']['localhost']
    print(name, r.get('changed'), r.get('mode', '-'), r.get('state', '-'), rt.get(name, '?'),
          r.get('owner', '-') if name == 'chown' else '')
EOP
CHANGED=False CRT=1
[ "$OWNER" = nobody ] && CHANGED=True CRT=3
cat >"$TMPD/want" <<EOW
dir-new True 0750 directory 1 
dir-again False 0750 directory 1 
touch-new True 0600 file 1 
touch-again True 0600 file 2 
chmod-behind True - - 1 
file-mode True 0600 file 2 
hard True 0600 hard 2 
link True 0777 link 5 
absent True - absent 1 
chown $CHANGED 0600 file $CRT $OWNER
EOW
if diff "$TMPD/want" "$TMPD/got" >"$TMPD/diff"; then
	ok "results and round trips per task as expected"
else
	not_ok "results and round trips per task as expected"
	sed 's/^/#   /' "$TMPD/diff"
fi
[ "$(stat -c %a "$W/d/f")" = 600 ] && [ ! -e "$W/d/h" ] && [ -L "$W/d/l" ] &&
	ok "the files are as the play left them" || not_ok "the files are as the play left them"
done_testing
