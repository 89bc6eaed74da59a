#!/usr/bin/python3
"""t4031-gen-fixes.py RESULTS.json SCRATCH PLAY GOLDEN: compares imc's
results of a play with the golden file recorded from ansible-playbook 2.14
on the same play and initial tree. The golden file holds, per task in
order, its name and the result keys that matter (a key holding "<absent>"
must be absent), and the entries of the scratch tree after the play
(snapshot.py --owners). Paths are written <S> (the scratch directory) and
<PLAY> (the play file), as the recording replaced them. Prints "ok NAME"
or "not ok NAME" (and # details) per task and per tree entry; exits 1 when
one differs."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'differential'))
import normalize  # noqa: E402


def norm(v, s, play):
    if isinstance(v, str):
        # a temporary file's name (normalize.py's rule): <tmp>
        # unarchive's handler reasons in normalize.py's order
        v = normalize.HANDLER.sub(normalize.handlers, v)
        return normalize.TMP.sub('<tmp>', v.replace(play, '<PLAY>').replace(s, '<S>'))
    if isinstance(v, list):
        return [norm(x, s, play) for x in v]
    if isinstance(v, dict):
        # keys too: find's skipped_paths is keyed by path
        return {norm(k, s, play): norm(x, s, play) for k, x in v.items()}
    return v


def main(argv):
    results, scratch, play, golden = argv
    g = json.load(open(golden))
    doc = json.load(open(results))
    got = []
    for p in doc['plays']:
        for t in p['tasks']:
            got.append(norm(t['hosts']['localhost'], scratch, os.path.realpath(play)))
    n = bad = 0
    # in order: Ansible names a task by its templated name
    for i, (name, want) in enumerate(g['tasks']):
        n += 1
        r = got[i] if i < len(got) else None
        diffs = []
        if r is None:
            diffs.append('no result')
        else:
            for k, v in want.items():
                have = r.get(k, '<absent>')
                if k == 'files' and isinstance(have, list) and all(isinstance(f, dict) for f in have):
                    have = [f['path'] for f in have]
                if have != v:
                    diffs.append('%s: ansible=%s imc=%s' % (k, json.dumps(v)[:600], json.dumps(have)[:600]))
        if diffs:
            bad += 1
            print('not ok %s' % name)
            for d in diffs:
                print('#   ' + d)
        else:
            print('ok %s' % name)
    snap = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'differential', 'snapshot.py')
    tree = json.loads(subprocess.run([sys.executable, snap, '--owners', scratch], capture_output=True,
                                     text=True, check=True).stdout)
    for k, v in g['tree'].items():
        n += 1
        if tree.get(k) != v:
            bad += 1
            print('not ok tree %s' % k)
            print('#   ansible=%s imc=%s' % (json.dumps(v), json.dumps(tree.get(k))))
        else:
            print('ok tree %s' % k)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
