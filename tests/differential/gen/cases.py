#!/usr/bin/python3
"""tests/differential/gen/cases.py: compares, case by case, a generated batch
as Ansible ran it with the same batch as imc ran it.

Usage: cases.py [--strict] [--show N] ANSIBLE_DIR IMC_DIR [BATCH_DIR...]
Each *_DIR holds BATCH/run{1,2}.norm.json (normalize.py) and
BATCH/tree{1,2}.json (snapshot.py). Prints one line per module
"MODULE cases=N identical=N divergent=N" and the first N divergences, and
exits 1 when any case diverges.

Why per case: a batch holds up to forty cases, and one divergent case must
not hide whether the other thirty-nine agree. Task names start with the case
id ("c0042.1 ..."), entries of the tree with the case's directory; both
runs (run 2 is the idempotence check on the same tree) count. The result
keys compared are compare.py's MUST keys and, for what the generated modules
return beyond those, the keys in EXTRA; --strict compares every key but the
normalizer's volatile ones.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import compare  # noqa: E402  (the scenarios' policy, extended below)

# deterministic return values of the generated modules that compare.py's
# scenarios did not need: slurp's content, find's counts and files, assert's
# evaluation, the owners file/copy set
EXTRA = {'content', 'encoding', 'source', 'matched', 'examined', 'files', 'assertion',
         'evaluated_to', 'owner', 'group', 'uid', 'gid', 'src', 'md5sum', 'skipped_paths',
         'failed_when_result', 'backup', 'lnk_source', 'lnk_target',
         # the modules gen.py's NEW_MODULES draw
         'key', 'keyfile', 'user', 'exclusive', 'key_options', 'manage_dir', 'ping', 'add_host',
         'add_group', 'parent_groups', 'ansible_stats', 'match_groups', 'match_groupdict', 'url',
         'status_code', 'remote_checksum', 'remote_md5sum', 'file', 'name', 'fstype', 'opts', 'fstab',
         'boot', 'passno', 'dump', 'ansible_included_var_files', 'search_regex', 'echo', 'user_input'}
FILE_KEYS = {'path', 'isdir', 'isreg', 'islnk', 'mode', 'size', 'checksum', 'pw_name', 'gr_name'}
STAT_KEYS = compare.STAT_MUST | {'islnk', 'lnk_source', 'lnk_target', 'isblk', 'ischr', 'isfifo',
                                 'issock', 'isuid', 'isgid', 'uid', 'gid', 'readable', 'writeable',
                                 'executable', 'xusr', 'wusr', 'rusr', 'xgrp', 'wgrp', 'rgrp', 'xoth',
                                 'woth', 'roth'}


def pick(r, strict, top=True):
    if strict:
        return r
    out = {}
    for k, v in r.items():
        # debug shows a variable under its own name: all of debug's keys
        # matter, and they are the variable's names
        if k not in compare.MUST and k not in EXTRA and not k.startswith('f_c') and k not in ('v', 'nope') \
                and not (k.startswith('v ') or k.startswith('v|')):
            continue
        if k == 'results' and isinstance(v, list):
            v = [pick(x, strict, False) if isinstance(x, dict) else x for x in v]
        elif k == 'stat' and isinstance(v, dict):
            v = {kk: vv for kk, vv in v.items() if kk in STAT_KEYS}
        elif k == 'files' and isinstance(v, list):
            v = sorted(({kk: vv for kk, vv in x.items() if kk in FILE_KEYS} for x in v if isinstance(x, dict)),
                       key=lambda x: x.get('path', ''))
        elif k == 'src' and v == '<controller>':
            # copy from the controller: Ansible names the temporary file it
            # sent (under the remote tmp, removed when the task ends: <tmp>
            # once normalised), imc says <controller>; neither path exists
            # after the task
            v = '<tmp>'
        elif k == 'skipped_paths' and isinstance(v, dict):
            # keyed by path: normalize.py replaced the scratch directory in
            # values only
            v = {kk.split('/scratch/', 1)[-1]: vv for kk, vv in v.items()}
        elif k == 'size' and r.get('state') == 'link' and isinstance(v, int):
            # a link's size is the length of its target, which the tree
            # compares; an absolute target holds the scratch path, whose
            # length differs between the tools' runs
            continue
        elif k == 'backup' and not isinstance(v, bool):
            v = bool(v)  # the name holds a time stamp; whether one was made is compared
        out[k] = v
    return out


def case_of(name):
    return name.split('.', 1)[0].split(' ', 1)[0]


# the temporary file sysctl leaves beside a sysctl_file that is a
# directory (the rename onto it fails): Ansible's name and imc's, whose
# random part differs from run to run
SYSCTL_TMP = re.compile(r'^(.*/)\.(?:ansible_m_sysctl_[a-z0-9_]{8}|imc_sysctl_[A-Za-z0-9]{8})\.conf$')


def load(d, run):
    res = json.load(open(os.path.join(d, 'run%d.norm.json' % run)))
    tree = json.load(open(os.path.join(d, 'tree%d.json' % run)))
    n = {}
    for k in sorted(tree):
        m = SYSCTL_TMP.match(k)
        if m:
            n[m.group(1)] = n.get(m.group(1), 0) + 1
            tree['%s.<sysctl-tmp-%d>.conf' % (m.group(1), n[m.group(1)])] = tree.pop(k)
    return res, tree


def group(res, tree, strict):
    by = {}
    for p in res.get('plays', []):
        for t in p['tasks']:
            by.setdefault(case_of(t['task']), {'tasks': [], 'tree': {}})['tasks'].append(
                (t['task'], pick(t['result'], strict)))
    for k, v in tree.items():
        by.setdefault(k.split('/', 1)[0], {'tasks': [], 'tree': {}})['tree'][k] = v
    return by


def diff_case(cid, ga, gi):
    out = []
    ta, ti = ga.get('tasks', []), gi.get('tasks', [])
    if len(ta) != len(ti):
        out.append('%d task results from Ansible, %d from imc' % (len(ta), len(ti)))
    for a, b in zip(ta, ti):
        if a != b:
            keys = sorted(k for k in set(a[1]) | set(b[1]) if a[1].get(k, '<absent>') != b[1].get(k, '<absent>'))
            out.append('task %r:' % a[0])
            for k in keys:
                va, vi = a[1].get(k), b[1].get(k)
                if isinstance(va, dict) and isinstance(vi, dict):
                    # only the sub-keys that differ (stat has thirty)
                    sub = sorted(kk for kk in set(va) | set(vi) if va.get(kk, '<absent>') != vi.get(kk, '<absent>'))
                    for kk in sub:
                        out.append('    %s.%s: ansible=%s imc=%s' % (k, kk, json.dumps(va.get(kk, '<absent>'))[:300],
                                                                   json.dumps(vi.get(kk, '<absent>'))[:300]))
                    continue
                out.append('    %s: ansible=%s imc=%s' % (k, json.dumps(a[1].get(k, '<absent>'), sort_keys=True)[:400],
                                                          json.dumps(b[1].get(k, '<absent>'), sort_keys=True)[:400]))
    tra, tri = ga.get('tree', {}), gi.get('tree', {})
    for k in sorted(set(tra) | set(tri)):
        if tra.get(k) != tri.get(k):
            out.append('tree %s: ansible=%s imc=%s' % (k, json.dumps(tra.get(k)), json.dumps(tri.get(k))))
    return out


def main(argv):
    strict = '--strict' in argv
    argv = [a for a in argv if a != '--strict']
    show = 10
    if argv[:1] == ['--show']:
        show = int(argv[1])
        argv = argv[2:]
    da, di = argv[0], argv[1]
    batches = argv[2:] or sorted(os.listdir(da))
    counts = {}
    shown = 0
    lines = []
    recaps = []
    for b in batches:
        init = json.load(open(os.path.join(da, b, 'init.json')))
        divergent = {}
        cids = set(init)
        stats = []
        for run in (1, 2):
            try:
                ra, ta = load(os.path.join(da, b), run)
                ri, ti = load(os.path.join(di, b), run)
            except (OSError, ValueError) as e:
                for cid in cids:
                    divergent.setdefault(cid, []).append('run %d: no results (%s)' % (run, e))
                continue
            ga, gi = group(ra, ta, strict), group(ri, ti, strict)
            cids |= set(ga) | set(gi)
            for cid in sorted(set(ga) | set(gi)):
                d = diff_case(cid, ga.get(cid, {}), gi.get(cid, {}))
                if d:
                    divergent.setdefault(cid, []).extend(['run %d %s' % (run, x) for x in d])
            sa = sorted(map(json.dumps, (ra.get('stats') or {}).values()))
            si = sorted(map(json.dumps, (ri.get('stats') or {}).values()))
            if sa != si:
                stats.append('run %d recap: ansible=%s imc=%s' % (run, sa, si))
        for cid in sorted(cids):
            module = init.get(cid, {}).get('module', '?')
            c = counts.setdefault(module, [0, 0, 0])
            c[0] += 1
            if cid not in divergent:
                c[1] += 1
                continue
            c[2] += 1
            if shown < show:
                shown += 1
                lines.append('--- %s %s (%s/single-%s.yml)' % (module, cid, b, cid))
                lines.extend('  ' + x for x in divergent[cid][:24])
        if stats:
            recaps.append('--- recap of %s' % b)
            recaps.extend('  ' + x for x in stats)
    tot = [0, 0, 0]
    for m in sorted(counts):
        c = counts[m]
        print('%-12s cases=%-4d identical=%-4d divergent=%d' % (m, c[0], c[1], c[2]))
        tot = [x + y for x, y in zip(tot, c)]
    print('%-12s cases=%-4d identical=%-4d divergent=%d' % ('total', tot[0], tot[1], tot[2]))
    for line in lines + recaps[:2 * show]:
        print(line)
    return 1 if tot[2] else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
