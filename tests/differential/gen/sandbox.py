#!/usr/bin/python3
"""tests/differential/gen/sandbox.py: the sandbox the generated cases of
the modules that change the machine (user, group, iptables, hostname,
timezone, apt_repository, apt_key, uri's server) run in.

Usage:
  sandbox.py --etc-sum          prints a checksum of the machine's /etc
  (from run.py) wrap(cmd)       the command line that runs cmd in fresh
                                namespaces; enter() is its first step there

Why: those modules write /etc/passwd, /etc/group, /etc/shadow (useradd's
lock-and-rename), /etc/apt/sources.list.d, /etc/hostname, /etc/timezone,
/etc/localtime, homes under /home, the kernel's hostname and its packet
filter. Each tool's two runs of a batch happen in a mount, UTS, network,
IPC and PID namespace of their own (unshare), where /etc is a copy on a
tmpfs mounted over the real one, /home, /var/mail and the lastlog and
faillog files are private too (HOME is not: the tools' own Python may
live there; no generated case writes to it), the hostname is a fixed one and the
packet filter is the new network namespace's own (empty, loopback up, so
uri's server listens on the same port for both tools). Both tools start
from the same copy; when the namespace ends, everything in it goes.
snapshot() reads back, per case, what the case's accounts, repositories
and chains became, so that cases.py compares them as part of the tree.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys

MARK = 'IMC_SANDBOX'
HOSTNAME = 'sandbox'
HTTP_PORT = 8931
UNSHARE = ['unshare', '--mount', '--uts', '--net', '--ipc', '--pid', '--fork', '--mount-proc',
           '--propagation', 'private']


def wrap(cmd):
    return UNSHARE + ['--'] + cmd


def active():
    """inside the sandbox: the mark set by enter() and /etc a mount of
    its own (never act on the machine's /etc by mistake)"""
    return os.environ.get(MARK) == '1' and os.path.ismount('/etc')


def require():
    if not active():
        raise SystemExit('sandbox.py: refusing to change the machine outside the sandbox')


def sh(*cmd):
    subprocess.run(cmd, check=True)


def private_copy(path, base, origin=None):
    """path replaced, in this mount namespace only, by a copy of itself
    (or of origin) on the tmpfs at base"""
    copy = os.path.join(base, path.strip('/').replace('/', '_'))
    if os.path.isdir(origin or path):
        shutil.copytree(origin or path, copy, symlinks=True)
    else:
        shutil.copy2(origin or path, copy)
    sh('mount', '--bind', copy, path)


def enter(work):
    """the namespace's private state, made before anything runs in it"""
    if os.getpid() != 1:
        raise SystemExit('sandbox.py: enter() wants a fresh PID namespace (run under wrap())')
    base = os.path.join(work, '.sandbox')
    os.makedirs(base, exist_ok=True)
    sh('mount', '-t', 'tmpfs', '-o', 'size=256m', 'sandbox', base)
    # the /etc the run started with (base_etc()): other users of the
    # machine may add accounts to the real one while the run goes on,
    # and each tool must start from the same accounts and subuid ranges
    pristine = os.path.join(work, 'etc-base')
    private_copy('/etc', base, pristine if os.path.isdir(pristine) else None)
    for p in ('/home', '/var/mail', '/var/log/lastlog', '/var/log/faillog', '/var/log/tallylog'):
        if os.path.exists(p):
            private_copy(p, base)
    with open('/etc/hostname', 'w') as f:
        f.write(HOSTNAME + '\n')
    sh('hostname', HOSTNAME)
    sh('ip', 'link', 'set', 'lo', 'up')
    os.environ[MARK] = '1'
    # what a tool leaves behind in /tmp stays in the namespace
    os.makedirs(os.path.join(base, 'tmp'), exist_ok=True)


def base_etc(work):
    """the copy of /etc every sandbox of the run starts from"""
    dst = os.path.join(work, 'etc-base')
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree('/etc', dst, symlinks=True)


def http_server(root):
    """the batch's HTTP server on loopback (uri's cases), on the network
    namespace's loopback: the same port for both tools' runs"""
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.Popen([sys.executable, os.path.join(here, 'httpd.py'), str(HTTP_PORT), root],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if p.stdout.readline().strip() != 'ready':
        raise SystemExit('sandbox.py: the HTTP server did not start')
    return p


# ---- the state read back after a run, per case -------------------------

SHADOW_DATES = (2, 7)  # last change (days since 1970: the day of the run), expiry left as is


def _lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


def snapshot(cids):
    """tree entries "cNNNN/sys/..." for what each case's names became:
    its accounts and groups (passwd, shadow with the day of the change
    normalised, group, gshadow, subuid, subgid), the memberships of its
    users in other groups, its homes under /home, its apt sources and
    its iptables chains"""
    out = {}
    cids = sorted(cids)

    def owner(name):
        for c in cids:
            if name.startswith(c):
                return c
        return None

    for f in ('passwd', 'shadow', 'group', 'gshadow', 'subuid', 'subgid'):
        for line in _lines('/etc/' + f):
            fields = line.split(':')
            c = owner(fields[0])
            if f == 'shadow' and len(fields) > 2 and fields[2] not in ('', '0'):
                fields[2] = '<today>'
            if c:
                out['%s/sys/%s/%s' % (c, f, fields[0])] = ':'.join(fields)
            elif f in ('group', 'gshadow') and len(fields) >= 4:
                # another group listing a case's users
                for m in fields[-1].split(','):
                    c = owner(m)
                    if c:
                        k = '%s/sys/%s/%s' % (c, f, fields[0])
                        out[k] = out.get(k, '') + m + ','
    for name in sorted(os.listdir('/home')) if os.path.isdir('/home') else []:
        c = owner(name)
        if not c:
            continue
        for root, dirs, files in os.walk(os.path.join('/home', name)):
            dirs.sort()
            for n in sorted(dirs + files):
                p = os.path.join(root, n)
                st = os.lstat(p)
                v = '%o %d:%d' % (st.st_mode, st.st_uid, st.st_gid)
                if os.path.isfile(p) and not os.path.islink(p):
                    v += ' ' + hashlib.sha1(open(p, 'rb').read()).hexdigest()
                out['%s/sys/home/%s' % (c, os.path.relpath(p, '/home'))] = v
            st = os.lstat(root)
            out['%s/sys/home/%s/.' % (c, os.path.relpath(root, '/home'))] = '%o %d:%d' % (st.st_mode, st.st_uid, st.st_gid)
    d = '/etc/apt/sources.list.d'
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        p = os.path.join(d, name)
        text = open(p).read()
        st = os.stat(p)
        for c in cids:
            if c in name or c in text:
                out['%s/sys/apt/%s' % (c, name)] = '%o %s' % (st.st_mode & 0o7777, text)
    for line in _lines('/etc/apt/sources.list'):
        for c in cids:
            if c in line:
                k = '%s/sys/apt/sources.list' % c
                out[k] = out.get(k, '') + line + '\n'
    if shutil.which('iptables-save') and active():
        for table in ('filter', 'nat', 'mangle'):
            r = subprocess.run(['iptables-save', '-t', table], capture_output=True, text=True)
            for line in r.stdout.splitlines():
                m = re.match(r'^(?::|-A )(\S+)', line)
                c = owner(m.group(1)) if m else None
                if c:
                    k = '%s/sys/iptables/%s/%s' % (c, table, m.group(1))
                    out[k] = out.get(k, '') + re.sub(r' \[\d+:\d+\]$', '', line) + '\n'
    return out


def git_summary(tree, scratch):
    """a repository's files (index and logs hold times, objects are packed
    or loose as each client chose) replaced in the tree by what a user
    sees of it: HEAD, the branch, the refs, the remotes, the status and
    whether it is shallow"""
    gitdirs = set()
    for k in list(tree):
        parts = k.split('/')
        if '.git' in parts:
            gitdirs.add('/'.join(parts[:parts.index('.git') + 1]))
        elif parts[-1] == 'HEAD' and any(x == '/'.join(parts[:-1]) + '/objects' for x in tree):
            gitdirs.add('/'.join(parts[:-1]))
    for g in gitdirs:
        for k in [k for k in tree if k == g or k.startswith(g + '/')]:
            del tree[k]
        gd = os.path.join(scratch, g)
        if not os.path.isdir(gd):
            continue

        def git(*a):
            r = subprocess.run(['git', '--git-dir', gd] + list(a), capture_output=True, text=True,
                               cwd=os.path.dirname(gd) if g.endswith('/.git') else gd)
            out = r.stdout.strip().replace(os.path.abspath(scratch), '<scratch>')
            return out + (' rc=%d' % r.returncode if r.returncode else '')
        summary = {'head': git('rev-parse', 'HEAD'), 'branch': git('symbolic-ref', '-q', 'HEAD'),
                   'refs': git('for-each-ref', '--format=%(refname) %(objectname)'),
                   'remotes': git('config', '--get-regexp', r'^remote\.'),
                   'bare': git('config', '--get', 'core.bare'),
                   'shallow': os.path.exists(os.path.join(gd, 'shallow'))}
        if g.endswith('/.git'):
            summary['status'] = git('--work-tree', os.path.dirname(gd), 'status', '--porcelain')
        tree[g + '#summary'] = summary
    return tree


def etc_sum():
    """a checksum over /etc's names, modes, owners, contents and links"""
    h = hashlib.sha1()
    for root, dirs, files in os.walk('/etc'):
        dirs.sort()
        for n in sorted(dirs + files):
            p = os.path.join(root, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            h.update(('%s %o %d %d\n' % (p, st.st_mode, st.st_uid, st.st_gid)).encode())
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            elif os.path.isfile(p):
                try:
                    h.update(open(p, 'rb').read())
                except OSError:
                    pass
    return h.hexdigest()


if __name__ == '__main__':
    if sys.argv[1:] == ['--etc-sum']:
        print(etc_sum())
        sys.exit(0)
    sys.exit('usage: sandbox.py --etc-sum')
