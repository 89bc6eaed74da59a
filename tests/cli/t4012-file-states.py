#!/usr/bin/python3
# t4012-file-states.py IMC WORKDIR GOLDEN [--live | --record]: the file
# module's states (file, directory, link, hard, touch, absent, none) over
# each kind of existing path (absent, file, directory, non-empty directory,
# link, dangling link, hard link to src, hard link to another file), with
# force, follow and mode, run as one playbook under imc play; each case's
# changed, failed, msg, returned keys and resulting files are compared with
# ansible-core 2.14's: the recorded GOLDEN results, or (--live) a run of
# ansible-playbook. --record rewrites GOLDEN from ansible-playbook.
# Prints TAP lines for t4012-file-states.sh.
import json
import os
import subprocess
import sys

KINDS = {
    'absent': '',
    'file': 'echo data > p',
    'dir': 'mkdir p',
    'dirfull': 'mkdir p; touch p/x',
    'link': 'ln -s S p',
    'dangling': 'ln -s nowhere p',
    'hard': 'ln S p',
    'otherhard': 'echo o > o; ln o p',
    'dirlink': 'mkdir D; ln -s D p',
}
KEYS = ['changed', 'failed', 'msg', 'state', 'mode', 'size', 'path', 'dest', 'src', 'owner']


def cases():
    """(state, kind, force, follow, mode) for every case compared"""
    out = []
    for st in ['file', 'directory', 'link', 'hard', 'touch', 'absent', None]:
        for kind in KINDS:
            for force in (False, True):
                if force and st not in ('link', 'hard'):
                    continue
                out.append((st, kind, force, True, None))
    # follow=no and mode through links (Ansible crashes on touch with a
    # mode through a dangling link: left out)
    for st in ['file', 'directory', 'touch', 'link', None]:
        for kind in ('link', 'dangling', 'dirlink'):
            for follow in (False, True):
                for mode in (None, '0600'):
                    if (follow, mode) == (True, None):
                        continue  # in the first set
                    if st == 'touch' and kind == 'dangling' and follow and mode:
                        continue
                    out.append((st, kind, False, follow, mode))
    return out


def playbook(base, cs):
    tasks = []
    for n, (st, kind, force, follow, mode) in enumerate(cs):
        d = '%s/c%d' % (base, n)
        tasks.append({'shell': 'rm -rf %s; mkdir -p %s; cd %s; echo src > S; chmod 644 S; %s'
                      % (d, d, d, KINDS[kind])})
        args = {'path': d + '/p'}
        if st:
            args['state'] = st
        if st in ('link', 'hard'):
            args['src'] = d + '/S'
        if force:
            args['force'] = True
        if not follow:
            args['follow'] = False
        if mode:
            args['mode'] = mode
        tasks.append({'file': args, 'register': 'r%d' % n, 'ignore_errors': True})
        tasks.append({'shell': 'cd %s; for f in p S D o nowhere; do if [ -L $f ]; then '
                      'echo $f:link:$(readlink $f); elif [ -d $f ]; then echo $f:dir:$(stat -c %%a $f):$(ls $f | tr "\\n" ,); '
                      'elif [ -f $f ]; then echo $f:file:$(stat -c %%a:%%h $f):$(cat $f); fi; done | tr "\\n" " "' % d,
                      'register': 's%d' % n})
    tasks.append({'copy': {'dest': base + '/out.json', 'content': '{{ {' + ', '.join(
        "'c%d': [r%d, s%d.stdout]" % (n, n, n) for n in range(len(cs))) + '} | to_json }}'}})
    return [{'hosts': 'all', 'gather_facts': False, 'tasks': tasks}]


def run(cmd, work, name, cs):
    base = os.path.join(work, name)
    os.makedirs(base, exist_ok=True)
    pb = os.path.join(work, name + '.yml')
    with open(pb, 'w') as f:
        json.dump(playbook(base, cs), f)
    env = dict(os.environ, ANSIBLE_NOCOLOR='1')
    p = subprocess.run(cmd + [pb], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    if p.returncode != 0:
        sys.stdout.write('# ' + p.stdout.decode(errors='replace')[-2000:].replace('\n', '\n# ') + '\n')
        return None
    with open(os.path.join(base, 'out.json')) as f:
        raw = json.load(f)
    res = {}
    for n in range(len(cs)):
        r, fs = raw['c%d' % n]
        one = {}
        for k in KEYS:
            v = r.get(k)
            if k == 'failed':
                v = bool(v)
            if isinstance(v, str):
                v = v.replace(base, 'BASE')
            one[k] = v
        one['files'] = fs.replace(base, 'BASE')
        if (one['state'] == 'link' and isinstance(one['size'], int) and
                'p:link:BASE' in one['files']):
            one['size'] -= len(base)  # a link's size is its target's length
        one['has_diff'] = 'diff' in r
        res[json.dumps(cs[n])] = one
    return res


def main():
    imc, work, golden = sys.argv[1:4]
    mode = sys.argv[4] if len(sys.argv) > 4 else ''
    cs = cases()
    ansible = ['ansible-playbook', '-i', 'localhost,', '-c', 'local']
    if mode == '--record':
        want = run(ansible, work, 'ansible', cs)
        with open(golden, 'w') as f:
            json.dump(want, f, indent=1, sort_keys=True)
            f.write('\n')
        return 0
    if mode == '--live':
        want = run(ansible, work, 'ansible', cs)
        print(('ok' if want else 'not ok') + ' 1 - ansible-playbook ran the %d cases' % len(cs))
    else:
        with open(golden) as f:
            want = json.load(f)
        print('ok 1 - %d recorded results of ansible-playbook' % len(want))
    got = run([imc, 'play', '--connection', 'local', '--no-fallback'], work, 'imc', cs)
    print(('ok' if got else 'not ok') + ' 2 - imc play ran the %d cases' % len(cs))
    if not got or not want:
        print('1..2')
        return 1
    bad = 0
    for c in cs:
        k = json.dumps(c)
        if want.get(k) != got.get(k):
            bad += 1
            diffs = ['%s: ansible %r, imc %r' % (f, (want.get(k) or {}).get(f), got[k].get(f))
                     for f in sorted(got[k]) if (want.get(k) or {}).get(f) != got[k].get(f)]
            print('not ok %d - state=%s kind=%s force=%s follow=%s mode=%s: %s'
                  % (2 + bad, c[0], c[1], c[2], c[3], c[4], '; '.join(diffs)))
    if not bad:
        print('ok 3 - all %d cases equal (changed, failed, msg, keys, files)' % len(cs))
    print('1..%d' % (2 + max(bad, 1)))
    return 1 if bad else 0


sys.exit(main())
