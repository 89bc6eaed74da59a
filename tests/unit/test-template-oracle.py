# test-template-oracle.py: runs the cases of test-template-cases.py through
# ansible-core's own Templar, so that the expected results of the engine's
# unit tests are what real Ansible (2.14) produces, not what we believe.
# Runs every case through ansible-core's Templar and prints a JSON list of
# {vars, mode, tmpl, ok, result|error}.
import sys, json
from ansible.template import Templar
from ansible.parsing.dataloader import DataLoader
from ansible.errors import AnsibleError
cases = json.load(open(sys.argv[1]))
out = []
for c in cases:
    v = c['vars']; mode = c['mode']; s = c['tmpl']
    t = Templar(loader=DataLoader(), variables=v)
    r = dict(c)
    try:
        if mode == 'typed':
            res = t.template(s)
        elif mode == 'text':
            res = t.template(s, preserve_trailing_newlines=True, escape_backslashes=False, convert_data=False)
            res = str(res)
        elif mode == 'cond':
            res = t.template("{%% if %s %%} True {%% else %%} False {%% endif %%}" % s).strip() == "True"
        r['ok'] = True
        try:
            json.dumps(res)
            r['result'] = res
        except TypeError:
            r['result'] = repr(res); r['unjson'] = True
    except Exception as e:
        r['ok'] = False
        msg = str(e)
        r['error'] = msg
    out.append(r)
json.dump(out, sys.stdout, indent=0)
