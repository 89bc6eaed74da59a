#!/usr/bin/python3
"""tests/differential/gen/run.py: the generated differential run (run.sh's body).

Usage: run.py [-n CASES] [-s SEED] [-b BATCH] [-j JOBS] [-o WORKDIR] [--imc IMC]
              [--cache DIR] [--strict] [--show N] [MODULE...]
Generates the cases (gen.py), runs every batch twice on one scratch tree
with ansible-playbook -c local and twice with imc play --connection local
--no-fallback, normalises and snapshots each run (normalize.py,
snapshot.py --owners), and prints cases.py's per-module counts and first
divergences. Exit 0 when every case is identical, 1 when one diverges, 2
when a tool cannot be run at all.

Why a cache: Ansible's results depend only on the batch's files and the
Ansible version, and take most of the time; with --cache DIR they are
kept under the checksum of both, so that rerunning the same seed after a
fix in imc runs imc alone. make check passes no cache: it compares live.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DIFF = os.path.dirname(HERE)
PY = sys.executable or '/usr/bin/python3'
sys.path.insert(0, HERE)
import sandbox  # noqa: E402  (the namespaces the system modules' batches run in)


def ansible_version():
    try:
        out = subprocess.run(['ansible-playbook', '--version'], capture_output=True, text=True).stdout
    except OSError:
        return None
    return out.splitlines()[0] if out else None


def batch_key(bd, version):
    h = hashlib.sha1(version.encode())
    # results hold the batch's absolute paths (included files, a script's
    # working directory): another work directory is another key
    h.update(os.path.abspath(bd).encode())
    for name in ('play.yml', 'init.json'):
        h.update(open(os.path.join(bd, name), 'rb').read())
    td = os.path.join(bd, 'templates')
    for name in sorted(os.listdir(td)):
        sub = os.path.join(td, name)
        # include_vars' directories: their files, named below the directory
        for f in sorted(os.listdir(sub)) if os.path.isdir(sub) else ['']:
            h.update(os.path.join(name, f).rstrip('/').encode() + open(os.path.join(sub, f).rstrip('/'), 'rb').read())
    for name in ('normalize.py', 'snapshot.py'):
        h.update(open(os.path.join(DIFF, name), 'rb').read())
    for name in ('gen.py', 'gen_sys.py', 'sandbox.py', 'httpd.py'):
        h.update(open(os.path.join(HERE, name), 'rb').read())
    return h.hexdigest()


def post(out, run, scratch, result):
    with open(os.path.join(out, 'tree%d.json' % run), 'w') as f:
        subprocess.run([PY, os.path.join(DIFF, 'snapshot.py'), '--owners', scratch], stdout=f, check=True)
    if sandbox.active():
        # the accounts, repositories and chains the cases made, as
        # entries of their directories' trees
        tree_path = os.path.join(out, 'tree%d.json' % run)
        tree = json.load(open(tree_path))
        tree = sandbox.git_summary(tree, scratch)
        tree.update(sandbox.snapshot(os.listdir(scratch)))
        with open(tree_path, 'w') as f:
            json.dump(tree, f, indent=1, sort_keys=True)
    with open(os.path.join(out, 'run%d.norm.json' % run), 'w') as f, \
            open(os.path.join(out, 'norm%d.err' % run), 'w') as e:
        subprocess.run([PY, os.path.join(DIFF, 'normalize.py'), result, scratch], stdout=f, stderr=e)


def run_imc(imc, bd, play, scratch, result, out, run, env):
    cmd = [imc, 'play', '--no-fallback', '--connection', 'local', '-q', '-e', 'scratch=' + scratch,
           '--results', result, play]
    with open(os.path.join(out, 'run%d.out' % run), 'a') as o, \
            open(os.path.join(out, 'run%d.err' % run), 'a') as e:
        return subprocess.run(cmd, cwd=bd, env=env, stdout=o, stderr=e).returncode


def results_in(path):
    try:
        with open(path) as f:
            return json.load(f).get('plays') is not None
    except (OSError, ValueError, AttributeError):
        return False


def singles(imc, bd, scratch, result, out, run, env):
    """imc refused the batch before running it: each case alone, their
    results put together (a case imc refuses shows its error as a task
    'cNNNN.0 imc refused', which Ansible has not: divergent)"""
    doc = {'plays': [{'play': {'name': 'singles'}, 'tasks': []}], 'stats': {}}
    tasks = doc['plays'][0]['tasks']
    for name in sorted(os.listdir(bd)):
        if not name.startswith('single-'):
            continue
        cid = name[len('single-'):-len('.yml')]
        one = os.path.join(out, 'single-%s.run%d.json' % (cid, run))
        errf = os.path.join(out, 'run%d.err' % run)
        start = os.path.getsize(errf) if os.path.exists(errf) else 0
        run_imc(imc, bd, name, scratch, one, out, run, env)
        if results_in(one):
            for p in json.load(open(one))['plays']:
                tasks.extend(p['tasks'])
        else:
            with open(errf) as f:
                f.seek(start)
                msg = f.read().strip()
            tasks.append({'task': {'name': '%s.0 imc refused' % cid}, 'hosts': {'localhost': {'failed': True, 'msg': msg}}})
    with open(result, 'w') as f:
        json.dump(doc, f)


def json_only(path):
    """the pause module writes its "Pausing for N seconds" and
    "(ctrl+C then ...)" lines to Ansible's stdout, before the json
    callback's document: what precedes the document's first line is
    dropped"""
    with open(path) as f:
        text = f.read()
    at = 0 if text.startswith('{') else text.find('\n{\n') + 1
    if at > 0:
        with open(path, 'w') as f:
            f.write(text[at:])


def run_tool(tool, bd, out, imc, work):
    """both runs of one batch with one tool, results in out; a batch
    of the modules that change the machine (gen.py wrote 'sandbox' in
    it) runs in namespaces of its own, made for these two runs"""
    if not sandbox.active():
        shutil.rmtree(out, ignore_errors=True)
    if os.path.exists(os.path.join(bd, 'sandbox')) and not sandbox.active():
        os.makedirs(out)
        with open(os.path.join(out, 'sandbox.err'), 'w') as e:
            rc = subprocess.run(sandbox.wrap([PY, os.path.abspath(__file__), '--inner', tool, bd, out, imc, work]),
                                stderr=e).returncode
        if rc:
            sys.stderr.write('run.sh: the sandbox of %s failed (%s/sandbox.err)\n' % (bd, out))
        return
    scratch = os.path.join(out, 'scratch')
    os.makedirs(scratch)
    subprocess.run([PY, os.path.join(HERE, 'gen.py'), '--setup', bd, scratch], check=True)
    env = dict(os.environ)
    if tool == 'ansible':
        home = os.path.join(work, 'ansible_home')
        env.update(ANSIBLE_STDOUT_CALLBACK='ansible.posix.json', ANSIBLE_HOME=home,
                   ANSIBLE_LOCAL_TEMP=os.path.join(home, 'tmp'),
                   ANSIBLE_REMOTE_TEMP=os.path.join(work, 'remote_tmp'),
                   ANSIBLE_RETRY_FILES_ENABLED='0', ANSIBLE_NOCOLOR='1',
                   ANSIBLE_PYTHON_INTERPRETER='/usr/bin/python3', ANSIBLE_DEPRECATION_WARNINGS='0',
                   ANSIBLE_HOST_KEY_CHECKING='0', ANSIBLE_CALLBACKS_ENABLED='',
                   ANSIBLE_PIPELINING='1')  # no module file written per task: faster, same results
    else:
        # imc's own state (IMC_HOME) stays in the batch's directory; HOME
        # is the one Ansible ran with, as a command's ~ and $HOME expand
        # to it under both tools
        env['IMC_HOME'] = os.path.join(out, '.imc')
    for run in (1, 2):
        result = os.path.join(out, 'run%d.json' % run)
        if tool == 'ansible':
            cmd = ['ansible-playbook', '-i', 'localhost,', '-c', 'local', '-e', 'scratch=' + scratch, 'play.yml']
            with open(result, 'w') as f, open(os.path.join(out, 'run%d.err' % run), 'w') as e:
                rc = subprocess.run(cmd, cwd=bd, env=env, stdout=f, stderr=e).returncode
            json_only(result)
        else:
            rc = run_imc(imc, bd, 'play.yml', scratch, result, out, run, env)
            if not results_in(result):
                singles(imc, bd, scratch, result, out, run, env)
        with open(os.path.join(out, 'run%d.rc' % run), 'w') as f:
            f.write('rc=%d\n' % rc)
        post(out, run, scratch, result)
    shutil.copy(os.path.join(bd, 'init.json'), out)


def inner(tool, bd, out, imc, work):
    """run_tool's body in the sandbox: the namespace made private, the
    batch's HTTP server started, then both runs"""
    sandbox.enter(work)
    httpd = sandbox.http_server(os.path.join(bd, 'templates'))
    try:
        run_tool(tool, bd, out, imc, work)
    finally:
        httpd.terminate()
        httpd.wait()
    return 0


def do_batch(name, a):
    bd = os.path.join(a.work, 'cases', name)
    ad = os.path.join(a.work, 'ansible', name)
    if a.cache:
        cd = os.path.join(a.cache, batch_key(bd, a.version))
        if os.path.exists(os.path.join(cd, 'tree2.json')):
            shutil.rmtree(ad, ignore_errors=True)
            shutil.copytree(cd, ad)
        else:
            run_tool('ansible', bd, ad, a.imc, a.work)
            shutil.rmtree(cd, ignore_errors=True)
            shutil.copytree(ad, cd, ignore=shutil.ignore_patterns('scratch'))
    else:
        run_tool('ansible', bd, ad, a.imc, a.work)
    run_tool('imc', bd, os.path.join(a.work, 'imc', name), a.imc, a.work)
    return name


def main(argv):
    if argv[:1] == ['--inner']:
        return inner(*argv[1:6])
    ap = argparse.ArgumentParser(prog='run.sh')
    ap.add_argument('-n', '--cases', type=int, default=1000)
    ap.add_argument('-s', '--seed', type=int, default=1)
    ap.add_argument('-b', '--batch', type=int, default=40)
    ap.add_argument('-j', '--jobs', type=int, default=2)
    ap.add_argument('-o', '--work')
    ap.add_argument('--imc', default=os.environ.get('IMC', 'imc'))
    ap.add_argument('--cache')
    ap.add_argument('--strict', action='store_true')
    ap.add_argument('--show', type=int, default=10)
    ap.add_argument('modules', nargs='*')
    a = ap.parse_args(argv)
    a.version = ansible_version()
    if not a.version:
        sys.stderr.write('run.sh: ansible-playbook cannot be run (scripts/install-deps installs it)\n')
        return 2
    if not shutil.which(a.imc):
        sys.stderr.write('run.sh: no imc at %s (--imc or IMC=)\n' % a.imc)
        return 2
    a.imc = os.path.abspath(shutil.which(a.imc))
    if not a.work:
        a.work = tempfile.mkdtemp(prefix='imc-diffgen.')
    a.work = os.path.abspath(a.work)
    for sub in ('cases', 'ansible', 'imc'):
        shutil.rmtree(os.path.join(a.work, sub), ignore_errors=True)
    if a.cache:
        a.cache = os.path.abspath(a.cache)
        os.makedirs(a.cache, exist_ok=True)
    rc = subprocess.run([PY, os.path.join(HERE, 'gen.py'), '-s', str(a.seed), '-n', str(a.cases), '-b', str(a.batch),
                         '-o', os.path.join(a.work, 'cases')] + a.modules).returncode
    if rc:
        return 2
    batches = sorted(os.listdir(os.path.join(a.work, 'cases')))
    # the machine's /etc must come out of a run as it went in
    sandboxed = any(os.path.exists(os.path.join(a.work, 'cases', b, 'sandbox')) for b in batches)
    etc_before = sandbox.etc_sum() if sandboxed else None
    if sandboxed:
        sandbox.base_etc(a.work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for f in [ex.submit(do_batch, b, a) for b in batches]:
            f.result()
    print('work directory: %s' % a.work)
    if sandboxed:
        etc_after = sandbox.etc_sum()
        print('/etc checksum before and after: %s %s' % (etc_before, etc_after))
        if etc_after != etc_before:
            sys.stderr.write('run.sh: the machine\'s /etc changed during the run\n')
    sys.stdout.flush()
    cmd = [PY, os.path.join(HERE, 'cases.py'), '--show', str(a.show)] + (['--strict'] if a.strict else []) + \
        [os.path.join(a.work, 'ansible'), os.path.join(a.work, 'imc')] + batches
    return subprocess.run(cmd).returncode


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
