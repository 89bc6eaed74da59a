#!/usr/bin/python3
"""tests/differential/gen/gen.py: writes random but valid differential cases.

Usage:
  gen.py -s SEED -n CASES -o OUTDIR [-b BATCH] [MODULE...]
      writes OUTDIR/bNNN-MODULE/{play.yml,init.json,templates/...}: CASES
      cases spread over the modules (all of them by default), at most BATCH
      cases to a playbook
  gen.py --setup BATCHDIR SCRATCH
      makes the batch's initial scratch tree (files, directories, links,
      owners) in SCRATCH, without Ansible or imc, so both tools start from
      the same tree made by neither

Why: the hand-written scenarios cover what their authors thought of; a
seeded generator draws parameter combinations over each module's
documented parameters (states, modes, force/backup/create/validate,
regexp/insertafter, owners root and nobody, check mode) and over the
pre-existing paths they act on, so that divergences the authors did not
think of show up. Each case lives in its own directory SCRATCH/cNNNN and
its tasks are named "cNNNN.K MODULE ..." so that the runner can count
results per case and per module. Module tasks ignore their errors: a
failure is a result to compare, not the end of the batch. The same seed
always writes the same files (the runner caches Ansible's results by the
batch's checksum).
"""
import json
import os
import random
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_sys  # noqa: E402  (the modules that change the machine, run in sandbox.py's namespaces)

MODULES = ['file', 'copy', 'template', 'lineinfile', 'blockinfile', 'replace', 'ini_file',
           'stat', 'find', 'assemble', 'slurp', 'command', 'shell', 'set_fact', 'assert', 'debug']

LINES = ['alpha=1', 'beta=2', '# comment', 'gamma = 3', 'alpha=9', '', 'delta', '[main]',
         'key: value', 'last line']
REGEXPS = ['^alpha', '^beta=.*', '^(gamma) = (\\d)', 'nomatch', '^#', '^$', 'a', '^delta$',
           '^(alpha)=(.*)$', '[']
OWNERS = [None, None, None, 'root', 'nobody']
GROUPS = [None, None, None, 'root', 'nogroup']
MODES = [None, None, None, '0644', '0600', '0755', '0640', 'u=rw,g=r,o=', 'u+x', 420, '01777',
         'a=r', 'bogus']
VALIDATES = [None, None, None, None, 'grep -q alpha %s', '/bin/true %s', '/bin/false %s',
             'test -s %s', '/bin/true']


class Case:
    """one case: its directory's initial entries and its tasks"""

    def __init__(self, n, module, rnd):
        self.n, self.module, self.r = n, module, rnd
        self.id = 'c%04d' % n
        self.init = []
        self.tasks = []
        self.templates = {}

    def d(self, rel=''):
        return '{{ scratch }}/%s%s' % (self.id, '/' + rel if rel else '')

    def pick(self, seq):
        return self.r.choice(seq)

    def maybe(self, p=0.5):
        return self.r.random() < p

    def add(self, what, task, register=True, ignore=True):
        t = {'name': '%s.%d %s %s' % (self.id, len(self.tasks) + 1, self.module, what)}
        t.update(task)
        if register:
            t['register'] = 'r_%s_%d' % (self.id, len(self.tasks) + 1)
        if ignore:
            t['ignore_errors'] = True
        self.tasks.append(t)
        return t

    # initial entries, made by --setup
    def file(self, rel, text, mode=0o644, owner=None):
        self.init.append({'path': rel, 'type': 'file', 'text': text, 'mode': mode, 'owner': owner})

    def dir(self, rel, mode=0o755):
        self.init.append({'path': rel, 'type': 'dir', 'mode': mode})

    def link(self, rel, target):
        self.init.append({'path': rel, 'type': 'link', 'target': target})

    def hard(self, rel, target):
        self.init.append({'path': rel, 'type': 'hard', 'target': target})

    def text(self, k=None, newline=True):
        k = self.r.randint(0, 6) if k is None else k
        s = '\n'.join(self.pick(LINES) for _ in range(k))
        return s + ('\n' if newline and k else '')

    def existing(self, rel, kinds=('absent', 'file', 'file', 'empty', 'nonl', 'dir', 'link',
                                   'dangling')):
        """a random pre-existing path at rel (and what it is)"""
        kind = self.pick(kinds)
        if kind == 'file':
            self.file(rel, self.text(self.r.randint(1, 6)), self.pick([0o644, 0o600, 0o755]),
                      self.pick(OWNERS))
        elif kind == 'empty':
            self.file(rel, '')
        elif kind == 'nonl':
            self.file(rel, self.text(self.r.randint(1, 4), newline=False))
        elif kind == 'dir':
            self.dir(rel)
            if self.maybe():
                self.file(rel + '/inner', 'inner\n')
        elif kind == 'link':
            self.file('target', self.text(2))
            self.link(rel, 'target')
        elif kind == 'dangling':
            self.link(rel, 'nowhere')
        elif kind == 'hard':
            self.file('target', self.text(2))
            self.hard(rel, 'target')
        elif kind == 'dirlink':
            self.dir('tdir')
            self.link(rel, 'tdir')
        return kind

    def common(self, args, owner=True, mode=True):
        """the file attributes most modules share"""
        if mode:
            m = self.pick(MODES)
            if m is not None:
                args['mode'] = m
        if owner:
            o = self.pick(OWNERS)
            if o:
                args['owner'] = o
            g = self.pick(GROUPS)
            if g:
                args['group'] = g

    def check(self, task):
        if self.maybe(0.2):
            task['check_mode'] = True
        return task


def g_file(c):
    kind = c.existing('p', ('absent', 'file', 'empty', 'dir', 'link', 'dangling', 'hard', 'dirlink'))
    state = c.pick([None, 'file', 'directory', 'link', 'hard', 'touch', 'absent'])
    args = {'path': c.d('p')}
    if state:
        args['state'] = state
    if state in ('link', 'hard') or (state is None and c.maybe(0.1)):
        src = c.pick(['src', 'src', 'missing', 'sdir'])
        if src == 'src':
            c.file('src', 'source\n')
        elif src == 'sdir':
            c.dir('sdir')
        args['src'] = c.pick([c.d(src), src]) if state == 'link' else c.d(src)
        if c.maybe(0.4):
            args['force'] = c.pick([True, False])
    if state == 'directory' and c.maybe(0.3):
        args['path'] = c.d('p/sub/deeper')
    if state in ('directory', None) and c.maybe(0.2):
        args['recurse'] = True
    if c.maybe(0.2):
        args['follow'] = c.pick([True, False])
    if state == 'touch' and c.maybe(0.2):
        args['modification_time'] = 'preserve'
        args['access_time'] = 'preserve'
    c.common(args)
    c.add(state or 'none', c.check({'file': args}))


def g_copy(c):
    kind = c.existing('dest')
    args = {}
    how = c.pick(['content', 'content', 'remote', 'remote_dir', 'controller'])
    if how == 'content':
        args['content'] = c.pick([c.text(), 'x', 'alpha=1\n', '', '{{ "templated" }}\n'])
    elif how == 'remote':
        c.file('srcfile', c.text(3), c.pick([0o644, 0o755]))
        args['src'] = c.d('srcfile')
        args['remote_src'] = True
    elif how == 'remote_dir':
        c.dir('srcdir')
        c.file('srcdir/a', 'a\n')
        if c.maybe():
            c.dir('srcdir/sub')
            c.file('srcdir/sub/b', 'b\n')
        args['src'] = c.d('srcdir' + c.pick(['', '/']))
        args['remote_src'] = True
    else:
        name = 'src%d.txt' % c.n
        c.templates[name] = c.text(3)
        args['src'] = '{{ playbook_dir }}/templates/' + name
    args['dest'] = c.d(c.pick(['dest', 'dest', 'dest/', 'new/dest']))
    if c.maybe(0.3):
        args['force'] = c.pick([True, False])
    if c.maybe(0.3):
        args['backup'] = True
    v = c.pick(VALIDATES)
    if v:
        args['validate'] = v
    if how == 'remote_dir' and c.maybe(0.3):
        args['directory_mode'] = c.pick(['0700', '0755'])
    c.common(args)
    c.add(how, c.check({'copy': args}))


def g_template(c):
    kind = c.existing('dest', ('absent', 'file', 'empty', 'dir', 'link'))
    name = 't%d.j2' % c.n
    body = c.pick([
        'value={{ v }}\n',
        '{% for i in items %}\n  item {{ i }}\n{% endfor %}\n',
        '{% if v == "x" %}\nyes\n{% endif %}\nend\n',
        'a line\n\n{{ v | upper }}',
        '{{ v }}\r\nwindows\r\n',
        '<< v >> and {{ v }}\n',
        '{{ undefined_var }}\n',
        '{% for i in items %}{{ i }},{% endfor %}\n',
    ])
    c.templates[name] = body
    args = {'src': '{{ playbook_dir }}/templates/' + name, 'dest': c.d('dest')}
    if c.maybe(0.3):
        args['trim_blocks'] = c.pick([True, False])
    if c.maybe(0.3):
        args['lstrip_blocks'] = c.pick([True, False])
    if c.maybe(0.2):
        args['newline_sequence'] = c.pick(['\n', '\r\n', '\r'])
    if c.maybe(0.2):
        args['variable_start_string'] = '<<'
        args['variable_end_string'] = '>>'
    if c.maybe(0.2):
        args['force'] = c.pick([True, False])
    if c.maybe(0.2):
        args['backup'] = True
    v = c.pick(VALIDATES)
    if v:
        args['validate'] = v
    c.common(args)
    t = c.check({'template': args})
    t['vars'] = {'v': c.pick(['x', 'alpha', 'Hello']), 'items': c.pick([[1, 2], ['a'], []])}
    c.add('render', t)


def g_lineinfile(c):
    kind = c.existing('p', ('absent', 'file', 'file', 'file', 'empty', 'nonl', 'dir'))
    args = {'path': c.d('p')}
    state = c.pick([None, 'present', 'present', 'absent'])
    if state:
        args['state'] = state
    if state != 'absent' or c.maybe(0.3):
        if c.maybe(0.9):
            args['line'] = c.pick(LINES[:6] + ['\\1 = 7', 'new line', 'alpha=1'])
    how = c.pick(['regexp', 'regexp', 'search', 'none', 'both'])
    if how in ('regexp', 'both'):
        args['regexp'] = c.pick(REGEXPS)
    if how in ('search', 'both'):
        args['search_string'] = c.pick(['alpha', 'beta=2', 'nomatch', '# comment'])
    pos = c.pick([None, None, 'after', 'before', 'both'])
    if pos in ('after', 'both'):
        args['insertafter'] = c.pick(['EOF', '^beta', '^#', 'nomatch', '^alpha'])
    if pos in ('before', 'both'):
        args['insertbefore'] = c.pick(['BOF', '^beta', '^#', 'nomatch', '^alpha'])
    if c.maybe(0.3):
        args['create'] = c.pick([True, False])
    if c.maybe(0.2):
        args['backrefs'] = True
    if c.maybe(0.2):
        args['firstmatch'] = True
    if c.maybe(0.2):
        args['backup'] = True
    v = c.pick(VALIDATES)
    if v:
        args['validate'] = v
    c.common(args)
    t = c.check({'lineinfile': args})
    if c.maybe(0.15) and 'line' in args:
        t['lineinfile']['line'] = '{{ item }}'
        t['loop'] = c.r.sample(LINES[:6], 2)
    c.add(how, t)


def g_blockinfile(c):
    kind = c.existing('p', ('absent', 'file', 'empty', 'nonl', 'marked', 'marked', 'custom', 'dir'))
    if kind in ('marked', 'custom'):
        b, e = (('# BEGIN ANSIBLE MANAGED BLOCK', '# END ANSIBLE MANAGED BLOCK') if kind == 'marked'
                else ('<!-- START x -->', '<!-- STOP x -->'))
        c.file('p', c.text(2) + b + '\nold block\n' + e + '\n' + c.text(2))
    args = {'path': c.d('p')}
    if c.maybe(0.85):
        args['block'] = c.pick(['one\ntwo', 'one\ntwo\n', 'single', '', 'old block'])
    state = c.pick([None, 'present', 'absent'])
    if state:
        args['state'] = state
    if c.maybe(0.3):
        args['marker'] = c.pick(['<!-- {mark} x -->', '# {mark} custom', 'no mark here'])
        if c.maybe(0.5):
            args['marker_begin'] = 'START'
            args['marker_end'] = 'STOP'
    pos = c.pick([None, None, 'after', 'before'])
    if pos == 'after':
        args['insertafter'] = c.pick(['EOF', '^beta', 'nomatch', '^alpha'])
    if pos == 'before':
        args['insertbefore'] = c.pick(['BOF', '^beta', 'nomatch', '^alpha'])
    if c.maybe(0.3):
        args['create'] = c.pick([True, False])
    if c.maybe(0.2):
        args['backup'] = True
    v = c.pick(VALIDATES)
    if v:
        args['validate'] = v
    c.common(args)
    c.add(kind, c.check({'blockinfile': args}))


def g_replace(c):
    kind = c.existing('p', ('absent', 'file', 'file', 'file', 'empty', 'nonl', 'dir'))
    args = {'path': c.d('p'), 'regexp': c.pick(REGEXPS)}
    if c.maybe(0.85):
        args['replace'] = c.pick(['X', '\\1', '\\1=\\2!', '', 'alpha=1', '\\g<1>'])
    if c.maybe(0.25):
        args['after'] = c.pick(['beta', '^#', 'nomatch'])
    if c.maybe(0.25):
        args['before'] = c.pick(['delta', 'gamma', 'nomatch'])
    if c.maybe(0.2):
        args['backup'] = True
    v = c.pick(VALIDATES)
    if v:
        args['validate'] = v
    c.common(args)
    c.add(kind, c.check({'replace': args}))


def g_ini_file(c):
    kind = c.pick(['absent', 'ini', 'ini', 'empty', 'nosection', 'dir'])
    if kind == 'ini':
        c.file('p.ini', c.pick(['[main]\nalpha = 1\nbeta=2\n\n[other]\nalpha = 3\n',
                                'top = 0\n[main]\nalpha = 1\nalpha = 2\n# alpha = 0\n',
                                '[main]\n  alpha = 1\nflag\n[empty]\n']))
    elif kind == 'empty':
        c.file('p.ini', '')
    elif kind == 'nosection':
        c.file('p.ini', 'alpha = 1\nbeta = 2\n')
    elif kind == 'dir':
        c.dir('p.ini')
    args = {'path': c.d('p.ini'), 'section': c.pick(['main', 'other', 'new', None, 'empty'])}
    if c.maybe(0.85):
        args['option'] = c.pick(['alpha', 'beta', 'flag', 'newopt'])
    state = c.pick([None, 'present', 'absent'])
    if state:
        args['state'] = state
    vv = c.pick(['value', 'value', 'none', 'values'])
    if vv == 'value':
        args['value'] = c.pick(['1', '5', 'x y', '', 7])
    elif vv == 'values':
        args['values'] = c.pick([['1', '2'], ['9'], []])
    for k in ('no_extra_spaces', 'allow_no_value', 'create', 'exclusive', 'backup'):
        if c.maybe(0.2):
            args[k] = c.pick([True, False])
    c.common(args)
    c.add(kind, c.check({'ini_file': args}))


def g_stat(c):
    kind = c.existing('p', ('absent', 'file', 'empty', 'dir', 'link', 'dangling', 'hard', 'dirlink'))
    args = {'path': c.d('p')}
    if c.maybe(0.4):
        args['follow'] = c.pick([True, False])
    if c.maybe(0.3):
        args['get_checksum'] = c.pick([True, False])
    if c.maybe(0.3):
        args['checksum_algorithm'] = c.pick(['sha1', 'md5', 'sha256', 'sha512'])
    if c.maybe(0.2):
        args['get_mime'] = False
    c.add(kind, {'stat': args})


def g_find(c):
    c.dir('t')
    for name in c.r.sample(['a.txt', 'b.log', '.hidden', 'c.TXT', 'sub/d.txt', 'sub/e.log',
                            'sub/deep/f.txt', 'empty', 'big.bin'], c.r.randint(2, 8)):
        if '/' in name:
            parts = name.split('/')
            for i in range(1, len(parts)):
                c.dir('t/' + '/'.join(parts[:i]))
        text = 'x' * 2048 if name == 'big.bin' else ('' if name == 'empty' else 'alpha=%s\n' % name)
        c.file('t/' + name, text)
    if c.maybe(0.2):
        c.link('t/lnk', 'sub')
    args = {'paths': c.pick([c.d('t'), c.d('t/sub'), [c.d('t'), c.d('missing')]])}
    if c.maybe(0.6):
        args['patterns'] = c.pick(['*.txt', ['*.txt', '*.log'], '*.TXT', '.*', 'a*,b*',
                                   '^.*\\.log$', '[ab]*'])
    if c.maybe(0.3):
        args['use_regex'] = True
    if c.maybe(0.2):
        args['excludes'] = c.pick(['b*', ['*.log']])
    if c.maybe(0.2):
        args['contains'] = c.pick(['alpha', 'nomatch', '^alpha=a'])
    if c.maybe(0.4):
        args['file_type'] = c.pick(['file', 'directory', 'any', 'link'])
    if c.maybe(0.4):
        args['recurse'] = c.pick([True, False])
    if c.maybe(0.3):
        args['hidden'] = c.pick([True, False])
    if c.maybe(0.2):
        args['size'] = c.pick(['1k', '-1k', '0', '2048'])
    if c.maybe(0.2):
        args['depth'] = c.pick([1, 2])
    if c.maybe(0.2):
        args['follow'] = True
    c.add('search', {'find': args})


def g_assemble(c):
    kind = c.pick(['frags', 'frags', 'empty', 'missing', 'file'])
    if kind == 'frags':
        c.dir('frags')
        for name in c.r.sample(['01-a', '02-b', '10-c', '.hidden', 'x.conf', 'nonl'], c.r.randint(1, 5)):
            c.file('frags/' + name, 'no newline' if name == 'nonl' else 'frag %s\n' % name)
    elif kind == 'empty':
        c.dir('frags')
    elif kind == 'file':
        c.file('frags', 'not a dir\n')
    if c.maybe(0.4):
        c.existing('out', ('file', 'absent', 'dir'))
    args = {'src': c.d('frags'), 'dest': c.d('out')}
    if c.maybe(0.3):
        args['delimiter'] = c.pick(['### sep', '---\n', '#'])
    if c.maybe(0.3):
        args['regexp'] = c.pick(['^0', '\\.conf$', 'nomatch'])
    if c.maybe(0.3):
        args['ignore_hidden'] = c.pick([True, False])
    if c.maybe(0.2):
        args['backup'] = True
    if c.maybe(0.3):
        args['remote_src'] = c.pick([True, False])
    v = c.pick(VALIDATES)
    if v:
        args['validate'] = v
    c.common(args)
    c.add(kind, c.check({'assemble': args}))


def g_slurp(c):
    kind = c.existing('p', ('absent', 'file', 'empty', 'nonl', 'dir', 'link', 'dangling'))
    c.add(kind, {'slurp': {c.pick(['src', 'path']): c.d('p')}})


def g_command(c, shell=False):
    c.dir('wd')
    if c.maybe(0.4):
        c.file('exists', 'x\n')
    mod = 'shell' if shell else 'command'
    args = {}
    if shell:
        cmd = c.pick(['echo hello', 'echo out; echo err >&2; exit 3', 'pwd', 'cat', 'ls | sort',
                      'printf "a\\n\\n\\n"', 'echo $((1+2))', 'test -e exists && echo yes',
                      'echo "  spaced  "', 'false', 'printf ""'])
    else:
        cmd = c.pick(['echo hello', 'pwd', 'cat', 'ls', '/bin/false', 'printf "a\\n\\n\\n"',
                      'echo "quoted arg" two', 'sh -c "echo err >&2; exit 2"', 'nonexistent-cmd-x',
                      'echo $HOME', 'test -e exists', 'echo *'])
    form = c.pick(['free', 'cmd', 'argv']) if not shell else c.pick(['free', 'cmd'])
    if form == 'argv':
        args['argv'] = c.pick([['echo', 'a b', 'c'], ['pwd'], ['cat'], ['printf', '%s\n', 'x'],
                               ['sh', '-c', 'exit 4']])
    elif form == 'cmd':
        args['cmd'] = cmd
    if c.maybe(0.4):
        args['chdir'] = c.pick([c.d('wd'), c.d(), c.d('missing')])
    if c.maybe(0.3):
        args['creates'] = c.pick([c.d('exists'), c.d('nothere'), 'exists', c.d('*')])
    if c.maybe(0.3):
        args['removes'] = c.pick([c.d('exists'), c.d('nothere')])
    if c.maybe(0.3):
        args['stdin'] = c.pick(['input text', 'two\nlines', ''])
        if c.maybe(0.4):
            args['stdin_add_newline'] = c.pick([True, False])
    if c.maybe(0.2):
        args['strip_empty_ends'] = c.pick([True, False])
    if shell and c.maybe(0.2):
        args['executable'] = c.pick(['/bin/bash', '/bin/sh'])
    # stdin only for a command that reads it: Ansible writes it to the
    # command's pipe, and a command that has already exited makes that
    # write fail or not at random (EPIPE), so the case has no one answer.
    # Dropped after the draws, so a seed's other cases stay as they were.
    reads = args.get('argv') == ['cat'] if form == 'argv' else cmd == 'cat'
    if not reads:
        args.pop('stdin', None)
        args.pop('stdin_add_newline', None)
    task = {}
    if form == 'free':
        if args:
            task = {mod: cmd, 'args': args}
        else:
            task = {mod: cmd}
    else:
        task = {mod: args}
    if c.maybe(0.15):
        task['check_mode'] = True
    c.add(form, task)


def g_shell(c):
    g_command(c, shell=True)


def g_set_fact(c):
    var = 'f_%s' % c.id
    kind = c.pick(['simple', 'accumulate', 'dict', 'list', 'cacheable', 'kv', 'types'])
    if kind == 'simple':
        c.add(kind, {'set_fact': {var: c.pick(['text', 5, True, '{{ 2 + 3 }}', '{{ [1, 2] }}'])}})
    elif kind == 'accumulate':
        c.add('init', {'set_fact': {var: c.pick([[], {}, ''])}})
        c.add(kind, {'set_fact': {var: '{{ %s + [item] }}' % var}, 'loop': ['a', 'b', 'c']})
    elif kind == 'dict':
        c.add(kind, {'set_fact': {var: {'k': '{{ 1 + 1 }}', 'n': {'x': [1, 'two']}}}})
    elif kind == 'list':
        c.add(kind, {'set_fact': {var: '{{ item }}'}, 'loop': [1, 2, 3]})
    elif kind == 'cacheable':
        c.add(kind, {'set_fact': {var: 'v', 'cacheable': c.pick([True, False, 'yes'])}})
    elif kind == 'kv':
        c.add(kind, {'set_fact': '%s=hello other_%s=42' % (var, c.id)})
    else:
        c.add(kind, {'set_fact': {var: c.pick(['yes', '1.5', '{{ "7" | int }}', 'null', '~',
                                               '{{ none }}', '0x10'])}})
    c.add('show', {'debug': {'var': var}}, register=True)


ASSERTS = ['1 == 1', '1 == 2', 'v is defined', 'nope is defined', 'nope is undefined', 'v == "x"',
           '[1,2] | length == 2', '"a" in "abc"', 'v', 'undefined_thing', '"{{ v }}" == "x"']


def g_assert(c):
    args = {}
    k = c.r.randint(1, 3)
    that = c.r.sample(ASSERTS, k)
    args['that'] = that[0] if k == 1 and c.maybe() else that
    if c.maybe(0.4):
        args[c.pick(['fail_msg', 'msg'])] = c.pick(['custom failure', 'failed {{ v }}', ['a', 'b']])
    if c.maybe(0.3):
        args['success_msg'] = c.pick(['all good', 'ok {{ v }}'])
    if c.maybe(0.2):
        args['quiet'] = c.pick([True, False])
    t = {'assert': args, 'vars': {'v': c.pick(['x', '', 'y'])}}
    c.add('that', t)


def g_debug(c):
    kind = c.pick(['msg', 'var', 'list', 'verbosity', 'none', 'dict', 'undef'])
    vars_ = {'v': c.pick(['x', 5, [1, 2], {'a': 1}, ''])}
    if kind == 'msg':
        a = {'msg': c.pick(['hello', 'v is {{ v }}', 5, '{{ v | to_json }}'])}
    elif kind == 'var':
        a = {'var': c.pick(['v', 'v | length', 'nope', 'v is defined'])}
    elif kind == 'list':
        a = {'msg': ['a', '{{ v }}']}
    elif kind == 'verbosity':
        a = {'msg': 'quiet', 'verbosity': c.pick([0, 1, 3])}
    elif kind == 'dict':
        a = {'msg': {'k': '{{ v }}'}}
    elif kind == 'undef':
        a = {'msg': '{{ nope }}'}
    else:
        a = {}
    c.add(kind, {'debug': a, 'vars': vars_})


# the modules below came later (issue 17's remaining native modules): each
# acts only inside its case's directory (a sysctl_file, an fstab, an
# authorized_keys path, archives and file:// URLs made by --setup there)
# or on nothing at all; never on the machine's own settings
NEW_MODULES = ['sysctl', 'mount', 'authorized_key', 'tempfile', 'unarchive', 'get_url', 'raw',
               'script', 'wait_for', 'include_vars', 'fail', 'ping', 'pause', 'set_stats',
               'add_host', 'group_by', 'fetch', 'cron']

SYSCTL_LINES = ['vm.swappiness = 10', 'vm.swappiness=60', '# comment', 'net.ipv4.ip_forward = 1',
                'kernel.nonexistent_x = 3', '', '; semicolon comment', 'vm.swappiness = 10 ']


def g_sysctl(c):
    kind = c.pick(['absent', 'file', 'file', 'empty', 'dir'])
    if kind == 'file':
        c.file('sysctl.conf', '\n'.join(c.pick(SYSCTL_LINES) for _ in range(c.r.randint(1, 5))) + '\n')
    elif kind == 'empty':
        c.file('sysctl.conf', '')
    elif kind == 'dir':
        c.dir('sysctl.conf')
    args = {c.pick(['name', 'name', 'key']): c.pick(['vm.swappiness', 'net.ipv4.ip_forward',
                                                      'kernel.nonexistent_x', ' vm.swappiness ', ''])}
    state = c.pick([None, 'present', 'present', 'absent', 'bogus'])
    if state:
        args['state'] = state
    if state != 'absent' or c.maybe(0.3):
        if c.maybe(0.9):
            args[c.pick(['value', 'value', 'val'])] = c.pick(['10', '60', 1, ' 10 ', 'yes', 'False', '', '1 2'])
    args['sysctl_file'] = c.d('sysctl.conf')
    args['reload'] = c.pick([False, 'no', 0])
    if c.maybe(0.2):
        args['sysctl_set'] = False
    if c.maybe(0.2):
        args['ignoreerrors'] = c.pick([True, False])
    c.add(kind, c.check({'sysctl': args}))


FSTAB_LINES = ['# /etc/fstab', 'UUID=abc / ext4 defaults 0 1', 'proc /proc proc defaults 0 0',
               '/dev/sdb1 {{mnt}} ext4 defaults 0 2', 'tmpfs {{mnt}} tmpfs size=1m 0 0', '',
               '/dev/sdc1 /other xfs noatime 0 0']


def g_mount(c):
    kind = c.pick(['absent', 'fstab', 'fstab', 'empty'])
    mnt = '/nonexistent-imc-diffgen/%s/mnt' % c.id  # never made: no state here mounts
    if kind == 'fstab':
        c.file('fstab', '\n'.join(c.pick(FSTAB_LINES).replace('{{mnt}}', c.pick([mnt, mnt + ' x']))
                                  for _ in range(c.r.randint(1, 5))) + '\n')
    elif kind == 'empty':
        c.file('fstab', '')
    args = {c.pick(['path', 'path', 'name']): c.pick([mnt, mnt, mnt + ' x', mnt + '/'])}
    state = c.pick(['present', 'present', 'absent', 'unmounted', None])
    if state:
        args['state'] = state
    if c.maybe(0.8):
        args['src'] = c.pick(['/dev/sdb1', 'tmpfs', 'UUID=abc', '//srv/share name'])
    if c.maybe(0.8):
        args['fstype'] = c.pick(['ext4', 'tmpfs', 'xfs'])
    if c.maybe(0.4):
        args['opts'] = c.pick(['defaults', 'size=1m', 'noatime,ro', ''])
    if c.maybe(0.3):
        args['dump'] = c.pick(['0', '1', 2])
    if c.maybe(0.3):
        args['passno'] = c.pick(['0', '2', 1])
    if c.maybe(0.2):
        args['boot'] = c.pick([True, False])
    if c.maybe(0.2):
        args['backup'] = True
    args['fstab'] = c.d('fstab')
    c.add(kind, c.check({'mount': args}))


KEYS = ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@host',
        'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 bob@host',
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl other-comment',
        'no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAbc carol']


def g_authorized_key(c):
    kind = c.pick(['absent', 'file', 'file', 'empty', 'nodir'])
    sub = 'nodir/keys' if kind == 'nodir' else 'ssh/keys'
    if kind == 'file':
        c.file('ssh/keys', '\n'.join(c.pick(KEYS + ['# comment', '']) for _ in range(c.r.randint(1, 3))) + '\n',
               0o600)
    elif kind == 'empty':
        c.file('ssh/keys', '', 0o600)
    args = {'user': c.pick(['root', 'root', 'nobody']), 'path': c.d(sub)}
    k = c.pick(['one', 'one', 'two', 'none'])
    if k == 'one':
        args['key'] = c.pick(KEYS)
    elif k == 'two':
        args['key'] = '\n'.join(c.r.sample(KEYS, 2))
    state = c.pick([None, 'present', 'absent'])
    if state:
        args['state'] = state
    if c.maybe(0.2):
        args['exclusive'] = c.pick([True, False])
    if c.maybe(0.2):
        args['manage_dir'] = c.pick([True, False])
    if c.maybe(0.2):
        args['key_options'] = c.pick(['no-pty', 'from="10.0.0.1"'])
    if c.maybe(0.2):
        args['comment'] = c.pick(['new comment', ''])
    if c.maybe(0.15):
        args['follow'] = c.pick([True, False])
    c.add(kind, c.check({'authorized_key': args}))


def g_tempfile(c):
    c.dir('tf')  # snapshot.py and normalize.py name its entries by prefix and suffix
    args = {'path': c.pick([c.d('tf'), c.d('tf'), c.d('missing')])}
    state = c.pick([None, 'file', 'directory', 'bogus'])
    if state:
        args['state'] = state
    if c.maybe(0.5):
        args['prefix'] = c.pick(['pre-', 'x'])
    if c.maybe(0.5):
        args['suffix'] = c.pick(['.txt', '-s'])
    c.add(state or 'file', c.check({'tempfile': args}))


def g_unarchive(c):
    kind = c.pick(['tar', 'tgz', 'zip', 'notarchive', 'missing'])
    name = {'tar': 'a.tar', 'tgz': 'a.tar.gz', 'zip': 'a.zip', 'notarchive': 'a.txt', 'missing': 'none.tar'}[kind]
    members = c.r.sample(['x.txt', 'y.conf', 'sub/z.txt', 'sub/', 'exe.sh'], c.r.randint(1, 4))
    if kind in ('tar', 'tgz', 'zip'):
        c.init.append({'path': name, 'type': kind, 'members': members})
    elif kind == 'notarchive':
        c.file(name, 'not an archive\n')
    dk = c.pick(['dir', 'dir', 'absent', 'file'])
    if dk == 'dir':
        c.dir('out')
        if c.maybe(0.4):
            c.file('out/x.txt', c.pick(['x.txt\n', 'different\n']))
    elif dk == 'file':
        c.file('out', 'a file\n')
    args = {'src': c.d(name), 'dest': c.d('out'), 'remote_src': True}
    if c.maybe(0.3):
        args['creates'] = c.pick([c.d('out/x.txt'), c.d('nothere')])
    if c.maybe(0.2):
        args['list_files'] = True
    if c.maybe(0.2):
        args['exclude'] = c.pick([['y.conf'], 'x.txt'])
    if c.maybe(0.15):
        args['keep_newer'] = True
    c.common(args)
    c.add(kind, c.check({'unarchive': args}))


def g_get_url(c):
    kind = c.existing('dest', ('absent', 'file', 'file', 'empty', 'dir'))
    c.file('src.txt', c.pick(['payload\n', 'alpha=1\n', '']))
    args = {'url': c.pick(['file://' + c.d('src.txt'), 'file://' + c.d('src.txt'), 'file://' + c.d('missing')]),
            'dest': c.d(c.pick(['dest', 'dest', 'new/dest']))}
    if c.maybe(0.3):
        args['force'] = c.pick([True, False])
    if c.maybe(0.2):
        args['backup'] = True
    if c.maybe(0.2):
        args['checksum'] = c.pick(['sha1:0a4d55a8d778e5022fab701977c5d840bbc486d0', 'sha256:bad', 'md5:x'])
    if c.maybe(0.15):
        args['timeout'] = c.pick([1, 5])
    c.common(args)
    c.add(kind, c.check({'get_url': args}))


def g_raw(c):
    c.dir('wd')
    cmd = c.pick(['echo hello', 'echo out; echo err >&2; exit 3', 'true', 'printf "a\\n\\n"',
                  'echo $((2+3))', 'cd %s && ls' % c.d('wd'), 'touch %s' % c.d('made'), 'false'])
    t = {'raw': cmd}
    if c.maybe(0.2):
        t['args'] = {'executable': c.pick(['/bin/bash', '/bin/sh'])}
    if c.maybe(0.15):
        t['check_mode'] = True
    c.add('cmd', t)


def g_script(c):
    c.dir('wd')
    name = 's%d.sh' % c.n
    c.templates[name] = c.pick(['#!/bin/sh\necho "args: $*"\npwd\n',
                                '#!/bin/sh\necho err >&2\nexit 2\n',
                                '#!/bin/sh\n[ -d wd ] && touch wd/made\necho done\n',
                                'echo no shebang\n'])
    args = {'cmd': '{{ playbook_dir }}/templates/%s%s' % (name, c.pick(['', ' one two', ' "a b"']))}
    if c.maybe(0.4):
        args['chdir'] = c.pick([c.d('wd'), c.d()])
    if c.maybe(0.3):
        args['creates'] = c.pick([c.d('wd'), c.d('nothere')])
    if c.maybe(0.3):
        args['removes'] = c.pick([c.d('wd'), c.d('nothere')])
    if c.maybe(0.2):
        args['executable'] = c.pick(['/bin/bash', '/bin/sh'])
    t = {'script': args}
    if c.maybe(0.2):
        t['check_mode'] = True
    c.add('run', t)


def g_wait_for(c):
    kind = c.existing('p', ('absent', 'file', 'file', 'empty', 'dir'))
    args = {'path': c.d('p'), 'timeout': c.pick([0, 1])}
    state = c.pick([None, 'present', 'started', 'absent', 'stopped'])
    if state:
        args['state'] = state
    if c.maybe(0.4):
        args['search_regex'] = c.pick(['alpha', '^beta=(\\d)', '(?P<k>gamma) = (\\d)', 'nomatch'])
    if c.maybe(0.2):
        args['msg'] = 'custom timeout'
    if c.maybe(0.2):
        args['delay'] = 0
    if c.maybe(0.2):
        args['sleep'] = 1
    c.add(state or 'started', {'wait_for': args})


def g_include_vars(c):
    name = 'v%d' % c.n
    kind = c.pick(['yaml', 'yaml', 'json', 'bad', 'notdict', 'dir', 'missing'])
    if kind == 'yaml':
        name += '.yml'
        c.templates[name] = c.pick(['a: 1\nb: [x, y]\n', 'a: "{{ 1 + 1 }}"\n', '---\nc: {d: e}\n', ''])
    elif kind == 'json':
        name += '.json'
        c.templates[name] = '{"a": 1, "j": true}\n'
    elif kind == 'bad':
        name += '.yml'
        c.templates[name] = 'a: [unclosed\n'
    elif kind == 'notdict':
        name += '.yml'
        c.templates[name] = '- a\n- b\n'
    elif kind == 'dir':
        name += '.d'
        c.templates[name + '/one.yml'] = 'one: 1\n'
        c.templates[name + '/two.yaml'] = 'two: 2\n'
        c.templates[name + '/skip.txt'] = 'three: 3\n'
    path = '{{ playbook_dir }}/templates/' + name
    if kind == 'dir':
        args = {'dir': path}
        if c.maybe(0.3):
            args['files_matching'] = c.pick(['^one', 'nomatch'])
        if c.maybe(0.3):
            args['extensions'] = c.pick([['yml'], ['txt', 'yaml']])
        if c.maybe(0.3):
            args['ignore_unknown_extensions'] = c.pick([True, False])
        if c.maybe(0.2):
            args['ignore_files'] = ['two.yaml']
        if c.maybe(0.2):
            args['depth'] = c.pick([0, 1])
    else:
        args = {'file': path}
    if c.maybe(0.4):
        args['name'] = 'iv_%s' % c.id
    if c.maybe(0.2):
        args['hash_behaviour'] = c.pick(['merge', 'replace'])
    c.add(kind, {'include_vars': args})
    c.add('show', {'debug': {'msg': '{{ [a | default(none), iv_%s | default(none)] }}' % c.id}})


def g_fail(c):
    args = {}
    if c.maybe(0.7):
        args['msg'] = c.pick(['failed here', 'v is {{ v }}', ['a', 'b'], {'k': 1}, ''])
    t = {'fail': args, 'vars': {'v': 'x'}}
    if c.maybe(0.3):
        t['when'] = c.pick(['v == "x"', 'v == "y"'])
    c.add('msg', t)


def g_ping(c):
    args = {}
    if c.maybe(0.6):
        args['data'] = c.pick(['pong', 'hello', 'crash', 5, ''])
    c.add('data', c.check({'ping': args}))


def g_pause(c):
    args = {'seconds': c.pick([0, '0'])}
    if c.maybe(0.3):
        args['echo'] = c.pick([True, False])
    c.add('zero', {'pause': args})


def g_set_stats(c):
    args = {'data': c.pick([{'s_%s' % c.id: 1}, {'s_%s' % c.id: [1, 2], 't_%s' % c.id: '{{ 1 + 2 }}'},
                            {'s_%s' % c.id: {'k': 'v'}}, 'notadict', {}])}
    if c.maybe(0.4):
        args['per_host'] = c.pick([True, False])
    if c.maybe(0.4):
        args['aggregate'] = c.pick([True, False])
    c.add('data', {'set_stats': args})


def g_add_host(c):
    args = {'name': c.pick(['h-%s' % c.id, 'h-%s:2222' % c.id, 'localhost'])}
    if c.maybe(0.6):
        args[c.pick(['groups', 'group', 'groupname'])] = c.pick(['g_%s' % c.id, ['g_%s' % c.id, 'all'], 'a,b'])
    if c.maybe(0.4):
        args['hv_%s' % c.id] = c.pick(['x', 5, '{{ 1 + 1 }}'])
    if c.maybe(0.2):
        args['ansible_port'] = 2200
    c.add('host', {'add_host': args})
    c.add('show', {'debug': {'msg': "{{ groups['g_%s'] | default([]) }}" % c.id}})


def g_group_by(c):
    # not '': Ansible stops the whole playbook on an empty group name
    args = {'key': c.pick(['k_%s' % c.id, 'k {{ "x" }} %s' % c.id, 'k-%s.x' % c.id])}
    if c.maybe(0.4):
        args['parents'] = c.pick(['p_%s' % c.id, ['p_%s' % c.id, 'all']])
    c.add('key', {'group_by': args})
    c.add('show', {'debug': {'msg': "{{ groups | dict2items | selectattr('key', 'search', '%s') | "
                                    "map(attribute='key') | sort }}" % c.id}})


def g_fetch(c):
    kind = c.existing('src', ('absent', 'file', 'file', 'empty', 'dir', 'link'))
    c.dir('got')
    if c.maybe(0.3):
        c.file('got/src', c.pick(['old\n', 'payload\n']))
    flat = c.maybe(0.7)
    args = {'src': c.d('src'), 'dest': c.d('got/' if flat and c.maybe(0.5) else 'got/src' if flat else 'got')}
    if flat:
        args['flat'] = True
    if c.maybe(0.3):
        args['fail_on_missing'] = c.pick([True, False])
    if c.maybe(0.3):
        args['validate_checksum'] = c.pick([True, False])
    c.add(kind, c.check({'fetch': args}))


CRON_LINES = ['#Ansible: backup', '0 2 * * * root /usr/bin/backup.sh --all', 'PATH=/usr/bin:/bin',
              '# a comment', '*/5 * * * * root /bin/true', '#Ansible: tick', 'MAILTO=root', '',
              # a job line as the module writes it, unmarked (the marker is
              # put before it), a marker named None (renamed), a variable
              # quoted as the module quotes it
              '* * * * * root /bin/true', '#Ansible: None', 'MAILTO="root"', '@daily root /bin/true']


def g_cron(c):
    # Ansible's cron module wants a crontab command even for a cron file:
    # a stub one in the case's bin/, first on the task's PATH
    c.file('bin/crontab', '#!/bin/sh\nexit 0\n', 0o755)
    fname = c.pick(['jobs', 'jobs', 'jobs', 'jobs.conf'])
    kind = c.pick(['absent', 'file', 'file', 'file', 'empty', 'nonl', 'crlf', 'dir'])
    lines = [c.pick(CRON_LINES) for _ in range(c.r.randint(1, 5))]
    if kind == 'file':
        c.file('cron.d/' + fname, '\n'.join(lines) + '\n', c.pick([0o644, 0o644, 0o600]))
    elif kind == 'nonl':
        c.file('cron.d/' + fname, '\n'.join(lines))
    elif kind == 'crlf':
        c.file('cron.d/' + fname, '\r\n'.join(lines) + '\r\n')
    elif kind == 'empty':
        c.file('cron.d/' + fname, '')
    elif kind == 'dir':
        c.dir('cron.d/' + fname)
    else:
        c.dir('cron.d')
    args = {'cron_file': c.d('cron.d/' + fname)}
    user = c.pick(['root', 'root', 'nobody', None])
    if user:
        args['user'] = user
    name = c.pick(['backup', 'tick', 'new job', 'None', None])
    if name:
        args['name'] = name
    state = c.pick([None, 'present', 'absent'])
    if state:
        args['state'] = state
    if c.maybe(0.25):
        args['env'] = True
        args['name'] = c.pick(['PATH', 'MAILTO', 'MAILTO', 'A B'])
        if state != 'absent':
            args[c.pick(['job', 'job', 'value'])] = c.pick(['/usr/bin:/bin', 'root', ''])
        if c.maybe(0.3):
            args[c.pick(['insertafter', 'insertbefore'])] = c.pick(['PATH', 'MAILTO', 'NOPE'])
            if c.maybe(0.15):
                args['insertafter'] = args['insertbefore'] = 'PATH'
    else:
        if state != 'absent' or c.maybe(0.3):
            args[c.pick(['job', 'job', 'job', 'value'])] = c.pick(
                ['/bin/true', '/bin/true', '/usr/bin/backup.sh --all', 'echo "a b" > /dev/null',
                 'one\ntwo', '\n/bin/true\n'])
        if c.maybe(0.15):
            args['special_time'] = c.pick(['reboot', 'daily', 'hourly', 'annually'])
        for k, v in (('minute', ['0', '*/5', '30']), ('hour', ['2', '*']), ('day', ['1', '*']),
                     ('dom', ['15']), ('month', ['6', '*']), ('weekday', ['1', '*']), ('dow', ['0'])):
            if c.maybe(0.2):
                args[k] = c.pick(v)
        if c.maybe(0.2):
            args['disabled'] = c.pick([True, False])
        if c.maybe(0.1):
            args['insertafter'] = 'PATH'
    task = c.check({'cron': args})
    task['environment'] = {'PATH': c.d('bin') + ':/usr/sbin:/usr/bin:/sbin:/bin'}
    c.add(kind, task)
    # as the module's integration target does: the same task again (check
    # mode, then for real: changed only the first time) or its removal
    then = c.pick([None, None, 'again', 'absent'])
    if then:
        t2 = json.loads(json.dumps(task))
        t2.pop('check_mode', None)
        if then == 'absent':
            t2['cron']['state'] = 'absent'
        c.add(then, t2)


GEN = {m: globals()['g_' + m] for m in MODULES + NEW_MODULES}
GEN.update(gen_sys.GEN)


def generate(seed, n, out, batch, modules):
    rnd = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    cases = []
    for i in range(n):
        m = modules[i % len(modules)]
        c = Case(i, m, random.Random(rnd.getrandbits(64)))
        GEN[m](c)
        cases.append(c)
    # modules mixed in every batch: Ansible's start-up costs seconds a run,
    # so the fewer playbooks the better, whatever the modules asked for
    for b, k in enumerate(range(0, len(cases), batch)):
        chunk = cases[k:k + batch]
        bd = os.path.join(out, 'b%03d' % b)
        os.makedirs(os.path.join(bd, 'templates'), exist_ok=True)
        write_play(os.path.join(bd, 'play.yml'), seed, chunk)
        # each case alone too: when imc refuses a batch as a whole (a
        # parameter it does not know), the runner runs its cases one by one
        for c in chunk:
            write_play(os.path.join(bd, 'single-%s.yml' % c.id), seed, [c])
        if any(c.module in gen_sys.SYS_MODULES for c in chunk):
            open(os.path.join(bd, 'sandbox'), 'w').close()
        init = {c.id: {'module': c.module, 'init': c.init} for c in chunk}
        with open(os.path.join(bd, 'init.json'), 'w') as f:
            json.dump(init, f, indent=1, sort_keys=True)
        for c in chunk:
            for name, text in c.templates.items():
                os.makedirs(os.path.dirname(os.path.join(bd, 'templates', name)), exist_ok=True)
                with open(os.path.join(bd, 'templates', name), 'w') as f:
                    f.write(text)


def write_play(path, seed, chunk):
    tasks = [t for c in chunk for t in c.tasks]
    play = [{'name': 'generated seed %s' % seed, 'hosts': 'all', 'gather_facts': False, 'tasks': tasks}]
    with open(path, 'w') as f:
        f.write('# generated by gen.py -s %s: %s\n' % (seed, ' '.join('%s=%s' % (c.id, c.module) for c in chunk)))
        yaml.safe_dump(play, f, default_flow_style=False, sort_keys=False, width=200)


def setup(bd, scratch):
    """make the initial tree of a batch in scratch"""
    import grp
    import pwd
    init = json.load(open(os.path.join(bd, 'init.json')))
    for cid, c in sorted(init.items()):
        base = os.path.join(scratch, cid)
        os.makedirs(base, exist_ok=True)
        for e in c['init']:
            if e['type'] in gen_sys.SETUP:
                gen_sys.setup_entry(base, e)
                continue
            p = os.path.join(base, e['path'])
            if os.path.lexists(p):
                continue  # the first entry drawn for a path wins
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if e['type'] == 'file':
                with open(p, 'w') as f:
                    f.write(e['text'])
                os.chmod(p, e['mode'])
                if e.get('owner'):
                    os.chown(p, pwd.getpwnam(e['owner']).pw_uid, grp.getgrnam('nogroup' if e['owner'] == 'nobody' else 'root').gr_gid)
            elif e['type'] == 'dir':
                os.mkdir(p)
                os.chmod(p, e['mode'])
            elif e['type'] == 'link':
                os.symlink(e['target'], p)
            elif e['type'] == 'hard':
                os.link(os.path.join(base, e['target']), p)
            elif e['type'] in ('tar', 'tgz', 'zip'):
                archive(p, e['type'], e['members'])


def archive(p, kind, members):
    """an archive of the given members, the same bytes at every setup
    (fixed times, owners and modes), so both tools extract alike"""
    import gzip
    import io
    import tarfile
    import zipfile
    if kind == 'zip':
        with zipfile.ZipFile(p, 'w') as z:
            for m in members:
                i = zipfile.ZipInfo(m, (2020, 1, 2, 3, 4, 6))
                i.external_attr = ((0o40755 if m.endswith('/') else 0o100755 if m.endswith('.sh') else 0o100644) << 16)
                z.writestr(i, '' if m.endswith('/') else m + '\n')
        return
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as t:
        for m in members:
            i = tarfile.TarInfo(m.rstrip('/'))
            i.mtime = 1577934246
            i.uname = i.gname = 'root'
            if m.endswith('/'):
                i.type, i.mode = tarfile.DIRTYPE, 0o755
                t.addfile(i)
            else:
                data = (m + '\n').encode()
                i.size, i.mode = len(data), 0o755 if m.endswith('.sh') else 0o644
                t.addfile(i, io.BytesIO(data))
    with open(p, 'wb') as f:
        if kind == 'tgz':
            # gzip's header holds a time, which tarfile sets to now: 0 here
            with gzip.GzipFile(fileobj=f, mode='wb', mtime=0) as g:
                g.write(buf.getvalue())
        else:
            f.write(buf.getvalue())


def main(argv):
    if argv[:1] == ['--setup']:
        setup(argv[1], argv[2])
        return 0
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument('-s', '--seed', type=int, default=1)
    ap.add_argument('-n', '--cases', type=int, default=100)
    ap.add_argument('-b', '--batch', type=int, default=40)
    ap.add_argument('-o', '--out', required=True)
    ap.add_argument('modules', nargs='*')
    a = ap.parse_args(argv)
    # "new" stands for the modules given generators last (NEW_MODULES),
    # "all" for every one; a module named twice is drawn twice as often
    mods = []
    for m in a.modules or MODULES:
        mods += {'new': NEW_MODULES, 'all': MODULES + NEW_MODULES, 'sys': gen_sys.SYS_MODULES}.get(m, [m])
    for m in mods:
        if m not in GEN:
            sys.stderr.write('gen.py: no generator for module %r (have: %s)\n' % (m, ' '.join(GEN)))
            return 2
    generate(a.seed, a.cases, a.out, a.batch, mods)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
