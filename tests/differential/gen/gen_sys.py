"""tests/differential/gen/gen_sys.py: gen.py's generators for the modules
that change the machine (user, group, iptables, apt_repository, git, uri),
whose batches run in sandbox.py's namespaces.

Why a file of their own: their initial states are not files in the case's
directory but accounts, groups, chains and repositories, made by setup()
inside the sandbox (SETUP, keyed by the entry's type), and every name a
case touches starts with the case's id (c0042a, c0042g1, chain c0042,
c0042.example.org), so that sandbox.snapshot() can tell, after a run,
which accounts, memberships, sources and rules belong to which case.
"""
import os
import subprocess


# a SHA-512 crypt of "secret" (fixed salt), an MD5 one, locked and empty
HASHES = ['$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/',
          '$1$salt$qJH7.N4xYta3aEG/dfqo/0', '!', '*', '']
SHELLS = ['/bin/bash', '/bin/sh', '/usr/sbin/nologin', '/bin/false']


def _uid(c, k):
    return 30000 + c.n * 10 + k


def sys_user(c, name, k, home=None, group=None, groups=None, shell=None, comment=None, system=False,
             password=None, expire=None):
    args = ['-u', str(_uid(c, k))]
    if home:
        args += ['-d', home, '-m']
    if group:
        args += ['-g', group]
    elif group is None:
        args += ['-U']
    if groups:
        args += ['-G', ','.join(groups)]
    if shell:
        args += ['-s', shell]
    if comment:
        args += ['-c', comment]
    if system:
        args += ['-r']
    if password is not None:
        args += ['-p', password]
    if expire:
        args += ['-e', expire]
    c.init.append({'path': '.sys', 'type': 'sysuser', 'name': name, 'args': args})


def sys_group(c, name, gid=None, system=False, members=None):
    args = []
    if gid:
        args += ['-g', str(gid)]
    if system:
        args += ['-r']
    c.init.append({'path': '.sys', 'type': 'sysgroup', 'name': name, 'args': args, 'members': members or []})


def g_user(c):
    me = c.id + 'a'
    g1, g2 = c.id + 'g1', c.id + 'g2'
    sys_group(c, g1, _uid(c, 5))
    if c.maybe(0.7):
        sys_group(c, g2, _uid(c, 6))
    kind = c.pick(['absent', 'absent', 'plain', 'home', 'full', 'locked', 'owngroup'])
    if kind == 'plain':
        sys_user(c, me, 0, group=False)
    elif kind == 'home':
        sys_user(c, me, 0, home='/home/' + me, shell=c.pick(SHELLS))
    elif kind == 'full':
        sys_user(c, me, 0, home='/home/' + me, groups=[g1], shell='/bin/sh', comment='Full User',
                 password=HASHES[0], expire='2030-01-01')
    elif kind == 'locked':
        sys_user(c, me, 0, password='!' + HASHES[0])
    elif kind == 'owngroup':
        sys_group(c, me, _uid(c, 7))
    if c.maybe(0.2):
        c.dir('skel')
        c.file('skel/.profile', 'profile\n')
    for k in range(c.r.randint(1, 2)):
        args = {'name': me}
        state = c.pick([None, 'present', 'present', 'absent'])
        if state:
            args['state'] = state
        if state == 'absent':
            for p in ('remove', 'force'):
                if c.maybe(0.3):
                    args[p] = c.pick([True, False])
        else:
            if c.maybe(0.3):
                args['uid'] = c.pick([_uid(c, 1), _uid(c, 0), 0])
                if c.maybe(0.2):
                    args['non_unique'] = True
            if c.maybe(0.3):
                args['group'] = c.pick([g1, g2, 'users', c.id + 'gx', me, str(_uid(c, 5))])
            if c.maybe(0.4):
                gs = c.r.sample([g1, g2, 'users', c.id + 'gx'], c.r.randint(0, 2))
                args['groups'] = gs if c.maybe(0.8) else ','.join(gs)
                if c.maybe(0.5):
                    args['append'] = c.pick([True, False])
            if c.maybe(0.3):
                args['comment'] = c.pick(['Comment', 'A, B', '', 'Full User'])
            if c.maybe(0.3):
                args['home'] = c.pick(['/home/' + me, '/home/' + me + 'x', c.d('h')])
                if c.maybe(0.3):
                    args['move_home'] = c.pick([True, False])
            if c.maybe(0.3):
                args['shell'] = c.pick(SHELLS)
            if c.maybe(0.3):
                args['create_home'] = c.pick([True, False])
            if c.maybe(0.15):
                args['system'] = c.pick([True, False])
            if c.maybe(0.3):
                args['password'] = c.pick(HASHES)
                if c.maybe(0.4):
                    args['update_password'] = c.pick(['always', 'on_create'])
            if c.maybe(0.15):
                args['password_lock'] = c.pick([True, False])
            if c.maybe(0.15):
                args['expires'] = c.pick([1893456000, -1, 0, 1700000000.5])
            if c.maybe(0.1):
                args['password_expire_max'] = c.pick([90, 0])
            if c.maybe(0.1):
                args['password_expire_min'] = c.pick([1, 0])
            if c.maybe(0.1):
                args['skeleton'] = c.d('skel')
            if c.maybe(0.05):
                args['umask'] = c.pick(['0077', '022'])
        c.add(kind, c.check({'user': args}))


def g_group(c):
    me = c.id + 'g'
    kind = c.pick(['absent', 'absent', 'plain', 'gid', 'system', 'members'])
    if kind == 'plain':
        sys_group(c, me)
    elif kind == 'gid':
        sys_group(c, me, _uid(c, 0))
    elif kind == 'system':
        sys_group(c, me, system=True)
    elif kind == 'members':
        sys_group(c, me, _uid(c, 0))
        sys_user(c, c.id + 'a', 1, group=me)
    if c.maybe(0.3):
        sys_group(c, c.id + 'h', _uid(c, 2))
    for k in range(c.r.randint(1, 2)):
        args = {'name': c.pick([me, me, me, c.id + 'h'])}
        state = c.pick([None, 'present', 'absent'])
        if state:
            args['state'] = state
        if c.maybe(0.4):
            args['gid'] = c.pick([_uid(c, 0), _uid(c, 2), _uid(c, 3), '%d' % _uid(c, 3)])
            if c.maybe(0.3):
                args['non_unique'] = c.pick([True, False])
        if c.maybe(0.25):
            args['system'] = c.pick([True, False])
        if c.maybe(0.05):
            args['local'] = False
        c.add(kind, c.check({'group': args}))


def _setup_user(base, e):
    subprocess.run(['useradd'] + e['args'] + [e['name']], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _setup_group(base, e):
    subprocess.run(['groupadd'] + e['args'] + [e['name']], check=True)


# ---- iptables: the case's own chain, in the filter and nat tables -------

def g_iptables(c):
    chain = c.id
    for table in ('filter', 'nat'):
        c.init.append({'path': '.sys', 'type': 'syschain', 'table': table, 'chain': chain,
                       'rules': [c.pick(['-p tcp --dport 22 -j ACCEPT', '-s 10.0.0.1/32 -j DROP',
                                         '-p udp -m udp --dport 53 -j ACCEPT', '-j RETURN',
                                         '-p tcp -m comment --comment "web" -m tcp --dport 80 -j ACCEPT']
                                         if table == 'filter' else ['-p tcp -m tcp --dport 22 -j ACCEPT', '-j RETURN'])
                                 for _ in range(c.r.randint(0, 3))]})
    for k in range(c.r.randint(1, 3)):
        args = {'chain': c.pick([chain, chain, chain, chain + 'x'])}
        table = c.pick([None, None, 'filter', 'nat'])
        if table:
            args['table'] = table
        special = c.pick([None] * 6 + ['flush', 'policy', 'chain_management'])
        if special == 'flush':
            args['flush'] = True
        elif special == 'policy':
            args['policy'] = c.pick(['ACCEPT', 'DROP'])
        elif special == 'chain_management':
            args['chain'] = chain + 'm'
            args['chain_management'] = True
            if c.maybe(0.4):
                args['state'] = c.pick(['present', 'absent'])
        else:
            proto = c.pick([None, 'tcp', 'udp', 'icmp', 'all', '!tcp'])
            if proto:
                args['protocol'] = proto
            if proto in ('tcp', 'udp'):
                if c.maybe(0.5):
                    args['destination_port'] = c.pick(['22', 80, '8000:8080', '53'])
                elif c.maybe(0.3):
                    args['destination_ports'] = c.pick([['80', '443'], ['1000:2000']])
                if c.maybe(0.2):
                    args['source_port'] = c.pick(['1024', '!22'])
            if proto == 'icmp' and c.maybe(0.5):
                args['icmp_type'] = c.pick(['echo-request', 'any'])
            if c.maybe(0.3):
                args['source'] = c.pick(['10.0.0.1', '10.0.0.0/8', '!192.168.1.1', '10.0.0.1/32'])
            if c.maybe(0.2):
                args['destination'] = c.pick(['127.0.0.1', '172.16.0.0/12'])
            jump = c.pick([None, 'ACCEPT', 'DROP', 'RETURN', 'REJECT', 'LOG', 'NOSUCH'])
            if jump:
                args['jump'] = jump
            if jump == 'REJECT' and c.maybe(0.5):
                args['reject_with'] = c.pick(['icmp-port-unreachable', 'tcp-reset'])
            if jump == 'LOG' and c.maybe(0.5):
                args['log_prefix'] = 'C: '
                if c.maybe(0.5):
                    args['log_level'] = c.pick(['info', 'warning', '4'])
            if c.maybe(0.2):
                args['comment'] = c.pick(['web', 'a b', 'x'])
            if c.maybe(0.2):
                args['ctstate'] = c.pick([['NEW'], ['ESTABLISHED', 'RELATED'], 'INVALID'])
            if c.maybe(0.15):
                args['in_interface'] = c.pick(['lo', 'eth0', '!lo'])
            if c.maybe(0.1):
                args['limit'] = c.pick(['5/s', '10/minute'])
            if c.maybe(0.1) and proto == 'tcp':
                args['syn'] = c.pick(['match', 'negate', 'ignore'])
            state = c.pick([None, None, 'present', 'absent'])
            if state:
                args['state'] = state
            if c.maybe(0.3):
                args['action'] = c.pick(['append', 'insert'])
                if args['action'] == 'insert' and c.maybe(0.5):
                    args['rule_num'] = c.pick(['1', '2', '5'])
        c.add(special or 'rule', c.check({'iptables': args}))


def _setup_chain(base, e):
    subprocess.run(['iptables', '-t', e['table'], '-N', e['chain']], check=True)
    for r in e['rules']:
        subprocess.run('iptables -t %s -A %s %s' % (e['table'], e['chain'], r), shell=True, check=True)


# ---- apt_repository: sources naming the case, update_cache off ----------

def g_apt_repository(c):
    host = '%s.example.org' % c.id
    repos = ['deb http://%s/debian bookworm main' % host,
             'deb http://%s/debian bookworm main contrib' % host,
             'deb-src http://%s/debian bookworm main' % host,
             'deb [arch=amd64] http://%s/debian bookworm main' % host,
             'deb http://%s/debian {{ codename | default("bullseye") }} main' % host,
             'deb http://%s bookworm' % host,
             'deb http://%s/x/ ./' % host]
    kind = c.pick(['absent', 'absent', 'file', 'disabled', 'named'])
    line = c.pick(repos)
    if kind != 'absent':
        name = {'file': '%s_example_org_debian.list' % c.id, 'disabled': '%s_example_org_debian.list' % c.id,
                'named': '%s-named.list' % c.id}[kind]
        text = ('# ' if kind == 'disabled' else '') + line.replace('{{ codename | default("bullseye") }}', 'bullseye') + '\n'
        if c.maybe(0.3):
            text += '# a comment\n' + c.pick(repos[:3]) + '\n'
        c.init.append({'path': '.sys', 'type': 'sysaptsrc', 'name': name, 'text': text})
    for k in range(c.r.randint(1, 2)):
        args = {'repo': c.pick(repos) if c.maybe(0.6) else line, 'update_cache': False}
        state = c.pick([None, 'present', 'absent'])
        if state:
            args['state'] = state
        if c.maybe(0.3):
            args['filename'] = c.pick([c.id + '-named', c.id + '-other', c.id + '-x.list'])
        if c.maybe(0.2):
            args['mode'] = c.pick(['0600', '0644', 420])
        if c.maybe(0.1):
            args['codename'] = 'bookworm'
        if c.maybe(0.1):
            args['validate_certs'] = False
        c.add(kind, c.check({'apt_repository': args}))


def _setup_aptsrc(base, e):
    with open(os.path.join('/etc/apt/sources.list.d', e['name']), 'w') as f:
        f.write(e['text'])


# ---- git: repositories the setup makes in the case's directory ----------

GIT_ENV = {'GIT_AUTHOR_NAME': 'A', 'GIT_AUTHOR_EMAIL': 'a@example.org', 'GIT_AUTHOR_DATE': '2020-01-02T03:04:05Z',
           'GIT_COMMITTER_NAME': 'A', 'GIT_COMMITTER_EMAIL': 'a@example.org',
           'GIT_COMMITTER_DATE': '2020-01-02T03:04:05Z', 'GIT_CONFIG_NOSYSTEM': '1', 'HOME': '/nonexistent'}


def g_git(c):
    # src: commits one, two, three on main; tag v1 at one, annotated v2 at
    # two; branch dev at a fourth commit
    c.init.append({'path': '.sys', 'type': 'sysgitrepo', 'dir': 'src'})
    kind = c.pick(['absent', 'absent', 'clone', 'clone-old', 'dirty', 'emptydir', 'file', 'other-remote'])
    if kind != 'absent':
        c.init.append({'path': '.sys', 'type': 'sysgitdest', 'kind': kind})
    for k in range(c.r.randint(1, 2)):
        args = {'repo': c.pick([c.d('src'), c.d('src'), 'file://' + c.d('src')]) if c.maybe(0.92)
                else c.d('nosuch'), 'dest': c.d('dest')}
        if c.maybe(0.6):
            args['version'] = c.pick(['HEAD', 'main', 'dev', 'v1', 'v2', 'nosuchref',
                                      '{{ "" }}8b1f0cb0e3c07b8d9b0a3f8c5d1c3c7f7a5e7c92'])
        for p, vals in (('clone', [True, False]), ('update', [True, False]), ('force', [True, False]),
                        ('depth', [1, 2]), ('bare', [True, False]), ('single_branch', [True, False]),
                        ('remote', ['origin', 'upstream']), ('recursive', [True, False]),
                        ('track_submodules', [False])):
            if c.maybe(0.15):
                args[p] = c.pick(vals)
        c.add(kind, c.check({'git': args}))


def _git(cwd, *a):
    env = dict(os.environ)
    env.update(GIT_ENV)
    subprocess.run(['git'] + list(a), cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _setup_gitrepo(base, e):
    d = os.path.join(base, e['dir'])
    os.makedirs(d)
    _git(d, 'init', '-q', '-b', 'main')
    for n in ('one', 'two', 'three'):
        with open(os.path.join(d, 'f.txt'), 'a') as f:
            f.write(n + '\n')
        _git(d, 'add', 'f.txt')
        _git(d, 'commit', '-q', '-m', n)
        if n == 'one':
            _git(d, 'tag', 'v1')
        elif n == 'two':
            _git(d, 'tag', '-a', 'v2', '-m', 'v2')
    _git(d, 'checkout', '-q', '-b', 'dev')
    with open(os.path.join(d, 'dev.txt'), 'w') as f:
        f.write('dev\n')
    _git(d, 'add', 'dev.txt')
    _git(d, 'commit', '-q', '-m', 'dev')
    _git(d, 'checkout', '-q', 'main')


def _setup_gitdest(base, e):
    dest = os.path.join(base, 'dest')
    kind = e['kind']
    if kind == 'emptydir':
        os.makedirs(dest)
    elif kind == 'file':
        os.makedirs(dest)
        with open(os.path.join(dest, 'junk'), 'w') as f:
            f.write('junk\n')
    else:
        _git(base, 'clone', '-q', os.path.join(base, 'src'), 'dest')
        if kind == 'clone-old':
            _git(dest, 'reset', '-q', '--hard', 'HEAD~2')
        elif kind == 'dirty':
            with open(os.path.join(dest, 'f.txt'), 'a') as f:
                f.write('local\n')
        elif kind == 'other-remote':
            _git(dest, 'remote', 'set-url', 'origin', os.path.join(base, 'elsewhere'))


# ---- uri: the batch's server on loopback (sandbox.HTTP_PORT) ----------

def g_uri(c):
    import sandbox
    base = 'http://127.0.0.1:%d' % sandbox.HTTP_PORT
    c.templates[c.id + '.txt'] = 'file of %s\n' % c.id
    for k in range(c.r.randint(1, 2)):
        path = c.pick(['/json', '/echo', '/status/200', '/status/201', '/status/204', '/status/404',
                       '/status/500', '/redirect/301/json', '/redirect/302/echo', '/redirect/307/echo',
                       '/redirect/303/echo', '/auth', '/file/%s.txt' % c.id, '/nosuch'])
        args = {'url': base + path + c.pick(['', '', '?case=' + c.id])}
        if c.maybe(0.3):
            args['method'] = c.pick(['GET', 'POST', 'PUT', 'DELETE', 'HEAD'])
        if c.maybe(0.3):
            fmt = c.pick([None, 'json', 'raw', 'form-urlencoded'])
            if fmt:
                args['body_format'] = fmt
            args['body'] = c.pick([{'k': 'v', 'n': 1}, 'text body', {'a': 'b c'}]) if fmt != 'raw' else 'raw'
        if c.maybe(0.4):
            args['return_content'] = c.pick([True, False])
        if c.maybe(0.3):
            args['status_code'] = c.pick([200, [200, 201], [404], '201', [301, 302]])
        if c.maybe(0.25):
            args['follow_redirects'] = c.pick(['safe', 'all', 'none', 'no', 'yes', 'urllib2'])
        if c.maybe(0.2):
            args['headers'] = c.pick([{'X-Case': c.id}, {'Content-Type': 'text/plain'}, {'Accept': 'text/html'}])
        if 'auth' in path or c.maybe(0.1):
            if c.maybe(0.7):
                args['url_username'] = 'user'
                args['url_password'] = c.pick(['pass', 'wrong'])
                if c.maybe(0.5):
                    args['force_basic_auth'] = c.pick([True, False])
        if c.maybe(0.2):
            args['dest'] = c.d(c.pick(['out.txt', 'sub/out.txt', '']))
        if c.maybe(0.1):
            args['creates'] = c.d(c.pick(['out.txt', 'nothing']))
        if c.maybe(0.1):
            args['http_agent'] = 'agent/1'
        task = c.check({'uri': args})
        c.add(path.split('/')[1], task)


SETUP = {'sysuser': _setup_user, 'sysgroup': _setup_group, 'syschain': _setup_chain,
         'sysaptsrc': _setup_aptsrc, 'sysgitrepo': _setup_gitrepo, 'sysgitdest': _setup_gitdest}


def setup_entry(base, e):
    """a system entry of a case's initial state, made in the sandbox only"""
    import sandbox
    sandbox.require()
    SETUP[e['type']](base, e)


GEN = {'user': g_user, 'group': g_group, 'git': g_git, 'uri': g_uri, 'apt_repository': g_apt_repository,
       'iptables': g_iptables}
SYS_MODULES = list(GEN)
