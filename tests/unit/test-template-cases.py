# test-template-cases.py: the inputs of test-template-cases.json. Each case is
# a template (typed: task-argument templating; text: template-module file;
# cond: a `when:` expression) over one set of variables. Regenerate with
#   python3 test-template-cases.py            # writes cases.json
#   /usr/bin/python3 test-template-oracle.py cases.json > golden.json
# (the oracle needs ansible-core), then convert golden.json to the test file
# format {"vars": ..., "cases": [{mode, tmpl, ok, result|error}]}.
import json
V = {
 "ps_nodes": 2, "worker_nodes": 3, "names": ["b", "a", "c"],
 "users": {"u1": {"name": "alice", "ip": "10.0.0.1"}, "u2": {"name": "bob", "ip": "10.0.0.2"}},
 "ver": "1.33.2", "yes_str": "yes", "n": None, "i": 7, "f": 1.5, "s": "Hello World", "b": True, "bf": False,
 "l": [3, 1, 2], "empty": [], "ed": {}, "es": "", "d": {"a": 1, "b": [1, 2], "c": {"x": "y"}},
 "groups": {"all": ["h1", "h2"], "front": ["h1"], "wn": ["h2", "h3"]},
 "hostvars": {"h1": {"IM_NODE_PRIVATE_IP": "10.0.0.1", "ansible_hostname": "front"}, "h2": {"IM_NODE_PRIVATE_IP": "10.0.0.2"}},
 "inventory_hostname": "h1", "ansible_hostname": "wn-3", "node_type": "master", "launch_training": True,
 "r_ok": {"changed": True, "rc": 0, "stdout": "3", "stdout_lines": ["3"], "failed": False},
 "r_bad": {"changed": True, "rc": 1, "failed": True, "msg": "non-zero return code"},
 "r_skip": {"changed": False, "skipped": True, "skip_reason": "Conditional result was False"},
 "r_loop": {"changed": False, "results": [{"changed": False}, {"changed": True}]},
 "job": {"started": 1, "finished": 0, "ansible_job_id": "j1"},
 "job2": {"started": 1, "finished": 1, "rc": 0},
 "tmplvar": "{{ i + 1 }}", "tmpllist": ["{{ i }}", "x"], "num_gpu": "1", "mode": "0644",
 "ansible_distribution": "Ubuntu", "ansible_distribution_major_version": "22", "ansible_os_family": "Debian",
 "lines": "a\nb\nc", "csv": "a,b,,c", "path": "/etc/ssh/sshd_config", "pairs": [["a", 1], ["b", 2]],
 "items": [{"key": "a", "value": 1}, {"key": "b", "value": 2}],
 "objs": [{"name": "x", "n": 3, "on": True}, {"name": "y", "n": 1, "on": False}, {"name": "z", "n": 2, "on": True}],
 "nested": [[1, 2], [3, [4, 5]], None],
 "mixed": ["B", "a", "C"], "dup": ["a", "A", "b", "a"], "text": "foo=1 bar=22 baz=333",
 "url": "https://example.com/hadoop-3.3.6.tar.gz", "unicode": "caf\u00e9",
}
typed = r"""
{{ 1 + 1 }}
{{ names | sort }}
{{ 1 == 1 }}
{{ ps_nodes }}-{{ worker_nodes }}
[1, 2]
{{ ps_nodes }}
{{ b }}
{{ n }}
{{ f }}
{{ s }}
{{ l }}
{{ d }}
{{ d.a }}
{{ d['b'] }}
{{ d.b[1] }}
{{ d.c.x }}
{{ d['c']['x'] }}
{{ d.b.0 }}
{{ hostvars[groups['front'][0]]['IM_NODE_PRIVATE_IP'] }}
{{ hostvars['h2'].IM_NODE_PRIVATE_IP }}
{{ groups['wn'] | length }}
{{ groups.all }}
{{ ansible_hostname[-1] }}
{{ ansible_hostname[-1] | int }}
{{ ansible_hostname[3:] }}
{{ s[:5] }}
{{ s[::-1] }}
{{ l[1:] }}
{{ l[-2:] }}
{{ l[::2] }}
{{ 7 // 2 }}
{{ -7 // 2 }}
{{ 7 % 3 }}
{{ -7 % 3 }}
{{ 7 / 2 }}
{{ 6 / 2 }}
{{ 2 ** 10 }}
{{ 2 ** -1 }}
{{ 2.5 * 2 }}
{{ 1 + 2.0 }}
{{ 'a' ~ 1 ~ none ~ true }}
{{ 'ab' * 3 }}
{{ [1] * 3 }}
{{ [1, 2] + [3] }}
{{ 'a' + 'b' }}
{{ -i }}
{{ +i }}
{{ not b }}
{{ b and 'x' }}
{{ bf or 'y' }}
{{ bf and 'x' }}
{{ 0 or '' }}
{{ 'yes' if b else 'no' }}
{{ 'yes' if bf else 'no' }}
{{ 'a' if bf }}
{{ 1 < 2 < 3 }}
{{ 3 > 2 > 2 }}
{{ 1 == 1.0 }}
{{ true == 1 }}
{{ 'a' < 'b' }}
{{ [1, 2] < [1, 3] }}
{{ 'b' in ['a', 'b'] }}
{{ 'x' not in 'abc' }}
{{ 'a' in d }}
{{ 2 in l }}
{{ 'ell' in s }}
{{ {'a': 1, 'b': [true, none]} }}
{{ {'k': i} }}
{{ [i, f, s] }}
{{ (1, 2) | list }}
{{ 0x1F }}
{{ 1_000 }}
{{ 1e3 }}
{{ .5 if false else 2.50 }}
{{ 'it''s' }}
{{ "a" "b" }}
{{ '\n' | length }}
{{ 'a\tb' }}
{{ tmplvar }}
{{ tmpllist }}
{{ tmplvar | int + 1 }}
{{ undefined_thing | default('dflt') }}
{{ '' | default('dflt') }}
{{ '' | default('dflt', true) }}
{{ n | default('x') }}
{{ n | default('x', true) }}
{{ undefined_thing | d(5) }}
{{ undefined_thing.sub | default('deep') }}
{{ d.missing | default('m') }}
{{ d.missing.deeper | default('m2') }}
{{ l[10] | default('oob') }}
{{ undefined_thing is defined }}
{{ undefined_thing is undefined }}
{{ d.a is defined }}
{{ d.zz is not defined }}
{{ n is none }}
{{ i is number }}
{{ f is number }}
{{ s is string }}
{{ d is mapping }}
{{ l is iterable }}
{{ l is sequence }}
{{ s is sequence }}
{{ i is integer }}
{{ f is float }}
{{ b is boolean }}
{{ i is odd }}
{{ i is even }}
{{ 9 is divisibleby 3 }}
{{ 9 is divisibleby(4) }}
{{ 3 is in l }}
{{ l is contains 3 }}
{{ i is eq 7 }}
{{ i is equalto 7 }}
{{ i is gt 3 }}
{{ i is lt 3 }}
{{ 's' is lower }}
{{ 'S' is upper }}
{{ r_ok is succeeded }}
{{ r_ok is success }}
{{ r_ok is changed }}
{{ r_ok is failed }}
{{ r_ok is not failed }}
{{ r_bad is failed }}
{{ r_bad is failure }}
{{ r_bad is succeeded }}
{{ r_skip is skipped }}
{{ r_skip is succeeded }}
{{ r_skip is changed }}
{{ r_loop is changed }}
{{ job is finished }}
{{ job2 is finished }}
{{ job is started }}
{{ ver is version('1.30', '>=') }}
{{ ver is version('1.33.10', '<') }}
{{ ver is version('1.33.2', 'eq') }}
{{ ver is version_compare('2.0', 'lt') }}
{{ '2.9' is version('2.10', '<') }}
{{ '1.0.0' is version('1.0', '>') }}
{{ s is search('World') }}
{{ s is match('World') }}
{{ s is match('Hello') }}
{{ s is regex('w.rld', ignorecase=true) }}
{{ 'abc' is search('^b') }}
{{ [1, 2] is subset([1, 2, 3]) }}
{{ [1, 2, 3] is superset([2]) }}
{{ 1 is truthy }}
{{ '' is falsy }}
{{ [true, 1] is all }}
{{ [false, 0, 1] is any }}
{{ names | join(',') }}
{{ names | join }}
{{ l | join('-') }}
{{ names | first }}
{{ names | last }}
{{ names | length }}
{{ names | count }}
{{ s | length }}
{{ d | length }}
{{ unicode | length }}
{{ '42' | int + 1 }}
{{ 'x' | int }}
{{ 'x' | int(5) }}
{{ '3.7' | int }}
{{ ' 12 ' | int }}
{{ '0x1f' | int(base=16) }}
{{ '0x1f' | int(0, 16) }}
{{ 3.99 | int }}
{{ true | int }}
{{ n | int }}
{{ 42 | string }}
{{ n | string }}
{{ l | string }}
{{ '1.5' | float }}
{{ 'x' | float }}
{{ 2 | float }}
{{ yes_str | bool }}
{{ 'On' | bool }}
{{ 'no' | bool }}
{{ 1 | bool }}
{{ 2 | bool }}
{{ '1' | bool }}
{{ n | bool }}
{{ 'AbC' | lower }}
{{ 'AbC' | upper }}
{{ 'hello world' | capitalize }}
{{ 'hello big world' | title }}
{{ 'a-b-c' | replace('-', '_') }}
{{ 'a-b-c' | replace('-', '_', 1) }}
{{ 'aaa' | replace('', '.') }}
{{ '  x ' | trim }}
{{ 'xxhixx' | trim('x') }}
{{ users | dict2items | map(attribute='value.name') | list }}
{{ ['u1', 'u2'] | map('extract', users, 'ip') | list }}
{{ ['u1', 'u2'] | map('extract', users) | map(attribute='name') | list }}
{{ [1, 2, 3, 4] | select('odd') | list }}
{{ [1, 2, 3, 4] | reject('odd') | list }}
{{ [0, 1, '', 'a'] | select | list }}
{{ users | dict2items | selectattr('value.name', 'equalto', 'bob') | map(attribute='key') | list }}
{{ objs | selectattr('on') | map(attribute='name') | list }}
{{ objs | rejectattr('on') | map(attribute='name') | list }}
{{ objs | selectattr('n', 'gt', 1) | map(attribute='name') | list }}
{{ objs | map(attribute='n') | sum }}
{{ objs | map(attribute='missing', default='dd') | list }}
{{ l | map('string') | list }}
{{ ['1', '2'] | map('int') | list }}
{{ names | map('upper') | list }}
{{ names | map('replace', 'a', 'A') | list }}
{{ [1, 1, 2] | unique }}
{{ dup | unique }}
{{ [1] | union([2]) }}
{{ [1, 2] | difference([2]) }}
{{ [1, 2, 3] | intersect([3, 2, 9]) }}
{{ [1, 2] | symmetric_difference([2, 3]) }}
{{ {'a': 1} | combine({'b': 2}) }}
{{ {'a': {'x': 1}} | combine({'a': {'y': 2}}, recursive=true) }}
{{ {'a': {'x': 1}} | combine({'a': {'y': 2}}) }}
{{ {'a': [1]} | combine({'a': [2]}, list_merge='append') }}
{{ [{'a': 1}, {'b': 2}] | combine }}
{{ users.u1 | to_json }}
{{ users | to_json(sort_keys=true) }}
{{ d | to_nice_json }}
{{ d | to_nice_json(indent=2) }}
{{ unicode | to_json }}
{{ 'a"b\\c' | to_json }}
{{ [1.0, 2.5, none, true] | to_json }}
{{ ('{"k": [1]}' | from_json).k }}
{{ '[1, "a", null, true, 1.5]' | from_json }}
{{ 'hadoop-2.9.0.tar.gz' | regex_replace('^hadoop-([\d.]+)\.tar\.gz$', '\1') }}
{{ 'x hadoop-3.3.6.tar.gz y' | regex_search('hadoop-[\d.]+\.tar\.gz') }}
{{ 'abc' | regex_search('z') }}
{{ text | regex_search('bar=(\d+)', '\1') }}
{{ text | regex_search('(?P<k>\w+)=(?P<v>\d+)', '\g<k>', '\g<v>') }}
{{ text | regex_findall('\d+') }}
{{ text | regex_findall('(\w+)=(\d+)') }}
{{ text | regex_findall('=(\d)') }}
{{ 'Hello' | regex_replace('h', 'J', ignorecase=true) }}
{{ 'a.b' | regex_escape }}
{{ 'abc' | regex_replace('', '-') }}
{{ 'line1\nline2' | regex_replace('^l', 'L', multiline=true) }}
{{ 'ab12' | regex_replace('(?P<letters>[a-z]+)(\d+)', '\2\g<letters>') }}
{{ '/a/b/c.txt' | basename }}
{{ '/a/b/c.txt' | dirname }}
{{ '/a/b/' | dirname }}
{{ '/a/b/' | basename }}
{{ 'c.txt' | dirname }}
{{ '/' | dirname }}
{{ 'hi' | b64encode }}
{{ 'aGk=' | b64decode }}
{{ unicode | b64encode }}
{{ 'Y2Fmw6k=' | b64decode }}
{{ (ps_nodes > 1) | ternary('many', 'one') }}
{{ n | ternary('t', 'f', 'none') }}
{{ bf | ternary('t', 'f') }}
{{ 'many' if ps_nodes > 1 else 'one' }}
{{ 'w-' ~ ps_nodes }}
{{ (ps_nodes + worker_nodes - 1) * 2 // 3 }}
{{ 'worker-7'[-1] | int }}
{{ l | sort }}
{{ l | sort(reverse=true) }}
{{ mixed | sort }}
{{ mixed | sort(case_sensitive=true) }}
{{ objs | sort(attribute='n') | map(attribute='name') | list }}
{{ l | min }}
{{ l | max }}
{{ mixed | min }}
{{ objs | max(attribute='n') }}
{{ l | sum }}
{{ l | sum(start=10) }}
{{ [[1], [2, 3]] | sum(start=[]) }}
{{ -3 | abs }}
{{ 2.5 | round }}
{{ 3.5 | round }}
{{ 2.567 | round(2) }}
{{ 2.1 | round(0, 'ceil') }}
{{ 2.9 | round(0, 'floor') }}
{{ 2.6 | round | int }}
{{ nested | flatten }}
{{ nested | flatten(levels=1) }}
{{ [1, [2, [3]], none, 'null'] | flatten }}
{{ [1, 2] | zip(['a', 'b']) | list }}
{{ [1, 2, 3] | zip(['a']) | list }}
{{ [1, 2] | zip_longest(['a'], fillvalue='-') | list }}
{{ d | dict2items }}
{{ items | items2dict }}
{{ d | dictsort }}
{{ d.keys() | list }}
{{ d.values() | list | length }}
{{ d.items() | list }}
{{ d.get('a') }}
{{ d.get('zz', 'dflt') }}
{{ 'a b  c' | split }}
{{ csv | split(',') }}
{{ 'a b c' | split(' ', 1) }}
{{ s.split() }}
{{ csv.split(',') }}
{{ s.split(' ', 1) }}
{{ s.startswith('Hell') }}
{{ s.endswith('x') }}
{{ s.endswith(('x', 'ld')) }}
{{ '  pad  '.strip() }}
{{ 'xxpadxx'.strip('x') }}
{{ '  pad'.lstrip() }}
{{ s.lower() }}
{{ s.upper() }}
{{ s.replace('l', 'L') }}
{{ s.find('World') }}
{{ s.count('l') }}
{{ '{} and {}'.format('a', 'b') }}
{{ '%s-%d' % ('a', 5) }}
{{ '%05.2f' % 3.14159 }}
{{ '%s' | format('x') }}
{{ '%s=%s' | format('k', 'v') }}
{{ lines.splitlines() }}
{{ '42'.isdigit() }}
{{ ','.join(names) }}
{{ 'ab' | reverse }}
{{ l | reverse | list }}
{{ [1, 2, 3, 4, 5] | batch(2) | list }}
{{ 'a b' | quote }}
{{ "it's" | quote }}
{{ 'safe-path/x.y' | quote }}
{{ '' | quote }}
{{ 'hello' | center(11) }}
{{ 'a\nb' | indent(2) }}
{{ 'a\nb' | indent(2, true) }}
{{ 'one two three' | wordcount }}
{{ d | type_debug }}
{{ l | type_debug }}
{{ i | type_debug }}
{{ f | type_debug }}
{{ b | type_debug }}
{{ n | type_debug }}
{{ 1 | type_debug }}
{{ range(3) | list }}
{{ range(1, 4) | list }}
{{ range(10, 0, -3) | list }}
{{ range(0) | list }}
{{ lookup('sequence', 'start=0 count={{ ps_nodes }} format=ps-%d:2222', wantlist=True) }}
{{ lookup('sequence', 'start={{ ps_nodes }} count={{ worker_nodes }} format=worker-%d:2222', wantlist=True) }}
{{ lookup('sequence', 'start=0 count=' ~ worker_nodes ~ ' format=worker-%d:2222', wantlist=True) | join(',') }}
{{ lookup('sequence', 'start=1 end=3') }}
{{ lookup('sequence', 'start=1 end=3 format=w%02d', wantlist=True) }}
{{ lookup('sequence', '4-8/2') }}
{{ lookup('sequence', '0x0a-0x0c:h%x') }}
{{ lookup('sequence', 'count=0') }}
{{ lookup('sequence', 'start=5 end=1 stride=-2', wantlist=True) }}
{{ query('sequence', 'end=2') }}
{{ q('sequence', 'count=3 start=10') }}
{{ lookup('items', [1, 2]) }}
{{ lookup('items', ['a', 'b']) }}
{{ lookup('items', ['a']) }}
{{ query('items', [1, [2, 3]]) }}
{{ lookup('list', ['a', 'b'], wantlist=True) }}
{{ lookup('dict', users) | map(attribute='key') | list }}
{{ query('together', [1, 2], ['a']) }}
{{ query('nested', [1, 2], ['a', 'b']) }}
{{ query('indexed_items', ['a', 'b']) }}
{{ query('flattened', [1, [2, [3]]]) }}
{{ lookup('env', 'IMC_JINJA_SURELY_UNSET_VAR') }}
{{ lookup('env', 'IMC_JINJA_SURELY_UNSET_VAR', default='dd') }}
{{ query('vars', 'i', 's') }}
{{ lookup('vars', 'i') }}
{{ dict(a=1, b='x') }}
{{ dict([['a', 1], ['b', 2]]) }}
{{ inventory_hostname in hostvars }}
{{ groups['all'] | length > 1 }}
{{ 'éa' | upper }}
{{ 'ÉÀ' | lower }}
{{ 'straße' | title }}
{{ 'a.b.c' | splitext | first }}
{{ 'x/.bashrc' | splitext | last }}
{{ {'z': 1, 'a': 2} | dictsort | first | first }}
{{ '{{ i }}' }}
{{ unicode }}
{{ [unicode] }}
{{ ['a\nb', 'tab\there'] }}
{{ 1.0 / 3 }}
{{ 1e16 }}
{{ 1e-5 }}
{{ 123456789.123 }}
{{ 0.1 + 0.2 }}
{{ 100.0 }}
{{ [1.5, 2.0] }}
{{ 3 - 5 }}
{{ 'a' if 'x' in s else 'b' }}
{{ s | lower | replace(' ', '_') | upper }}
{{ num_gpu | int > 0 }}
{{ ansible_distribution == 'Ubuntu' and ansible_distribution_major_version | int >= 20 }}
{{ r_ok.rc }}
{{ r_ok.stdout | int >= 3 }}
{{ r_ok.stdout_lines | length }}
{{ l | random(seed='x') in l }}
{{ 5 | random(seed=1) < 5 }}
{{ url | regex_search('hadoop-[\d.]+') }}
{{ url | urlsplit('hostname') if false else 'skip' }}
{{ objs | map(attribute='name') | join(', ') }}
{{ objs | json_query('[].name') if false else 'nq' }}
{{ items | items2dict(key_name='key', value_name='value') }}
{{ [{'k': 'a', 'v': 1}] | items2dict(key_name='k', value_name='v') }}
{{ d | dict2items(key_name='k', value_name='v') | first }}
{{ [3, 1, 2] | sort | first }}
{{ names | list | last }}
{{ 'abc' | list }}
{{ d | list }}
{{ [] | first | default('none') }}
{{ ed | length }}
{{ empty | length }}
{{ es | length }}
{{ ('a', 'b') | join }}
{{ [[1, 'a'], [2, 'b']] | map('first') | list }}
{{ 'x' * 0 }}
{{ 0 == false }}
{{ none == none }}
{{ [] == [] }}
{{ {'a': 1} == {'a': 1} }}
{{ '1' == 1 }}
{{ 2 != 3 }}
"""
errors = r"""
{{ nope }}
{{ nope.x }}
{{ d.zz }}
{{ l[10] }}
{{ 1 + 'a' }}
{{ 'a' + 1 }}
{{ 1 < 'a' }}
{{ 5 in 'abc' }}
{{ 1 / 0 }}
{{ 1 // 0 }}
{{ x | nosuchfilter }}
{{ i | nosuchfilter }}
{{ i is nosuchtest }}
{{ }}
{{ 1 + }}
{{ (1 }}
{{ [1, 2 }}
{{ 'abc }}
{{ i.foo }}
{{ s.foo }}
{{ n.x }}
{{ lookup('nosuchlookup', 'x') }}
{{ lookup('sequence', 'start=1') }}
{{ lookup('sequence', 'start=1 end=3 count=2') }}
{{ lookup('sequence', 'start=5 end=1') }}
{{ lookup('sequence', 'start=x end=2') }}
{{ lookup('sequence', 'end=3 foo=1') }}
{{ lookup('file', '/nonexistent/imc/file') }}
{{ 'x' | from_json }}
{{ 'abc' | b64decode }}
{{ 5 | length }}
{{ d | items2dict }}
{{ l | dict2items }}
{{ [1, 'a'] | sort }}
{{ [] | max }}
{{ [] | first }}
{{ ver is version('1.0', 'bogus') }}
{{ 'x' | regex_search('(') }}
{{ i is failed }}
{{ range(1, 2, 0) }}
{{ range('a') }}
{{ undefined_thing | mandatory }}
{{ [1, 2] | combine({'a': 1}) }}
{{ foo(1) }}
{{ tmplvar + 1 }}
{% if %}
{% for x in %}{% endfor %}
{% if true %}
{% endif %}
{% frobnicate %}
{{ 1 is defined is defined }}
"""
text = [
 "{% for h in names %}\nhost{{ loop.index0 }} = {{ h }}\n{% endfor %}\n",
 "{% if b %}\ngpus = {{ num_gpu | int }}\n{% else %}\ngpus = 0\n{% endif %}\n",
 "    {% if true %}indented{% endif %}\n\nnext\n",
 "{% raw %}literal = {{ not_rendered }}{% endraw %}\nlast = {{ ps_nodes * 2 }}\n",
 "no trailing newline {{ ps_nodes }}",
 "{% for n in names %}{{ n }}{% if not loop.last %}+{% endif %}{% endfor %}",
 "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
 "{% for k in d %}{{ k }}{% endfor %}",
 "{% for x in empty %}x{% else %}empty{% endfor %}",
 "{% for x in l if x > 1 %}{{ x }}{{ loop.length }}{% endfor %}",
 "{% for x in l %}{{ loop.index }}/{{ loop.revindex }}/{{ loop.first }}/{{ loop.last }} {% endfor %}",
 "{% for x in names %}{{ loop.cycle('odd', 'even') }} {% endfor %}",
 "{% for a, b in pairs %}{{ a }}{{ b }}{% endfor %}",
 "{% for (a, b) in pairs %}{{ a }}{{ b }}{% endfor %}",
 "{% set x = 5 %}{{ x }}",
 "{% set a, b = 1, 2 %}{{ a }}{{ b }}",
 "{% set x = 1 %}{% for i in l %}{% set x = i %}{% endfor %}{{ x }}",
 "{% set ns = namespace(found=false) %}{% for i in l %}{% if i == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.found }}",
 "{% set block %}inner {{ i }}{% endset %}[{{ block }}]",
 "{% set up | upper %}shout{% endset %}{{ up }}",
 "{# comment #}after",
 "a {#- trimmed -#} b",
 "a\n  {%- if true -%}\n  b\n  {%- endif %}\nc",
 "x {{- ' y ' -}} z",
 "{% if bf %}a{% elif b %}b{% else %}c{% endif %}",
 "{% if bf %}a{% elif bf %}b{% else %}c{% endif %}",
 "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('a') }} {{ greet('b', '?') }}",
 "{% filter upper %}up {{ s }}{% endfilter %}",
 "{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}",
 "{% for x in names %}{{ x }}\n{% endfor %}",
 "line1\n{% if true %}\nline2\n{% endif %}\nline3\n",
 "{{ names }} {{ d }} {{ b }} {{ n }} {{ f }}",
 "{{ '{{' }} literal {{ '}}' }}",
 "value: {{ 'a\\nb' }}",
 "{% for i in range(3) %}{{ i }}{% endfor %}",
 "{% for u in users | dict2items %}{{ u.key }}:{{ u.value.name }} {% endfor %}",
 "{% for x in [1,2,3] %}{{ loop.previtem | default('-') }}{{ loop.nextitem | default('-') }} {% endfor %}",
 "{% for h in groups['all'] %}{{ hostvars[h]['IM_NODE_PRIVATE_IP'] }} {{ h }}\n{% endfor %}",
 "{% for i in range(ps_nodes) %}ps-{{ i }}:2222{% if not loop.last %},{% endif %}{% endfor %}",
 "{% if 'b' in names and names | length == 3 %}ok{% endif %}",
 "{%+ if true %}plus{% endif +%}\nafter",
 "{{ 'a' }}\n{{ 'b' }}\n",
 "{% if true %}yes{% endif %}\n",
 "{% for x in l %}\n  {{ x }}\n{% endfor %}\n",
 "{% for key, value in users.items() %}{{ key }}={{ value.ip }}\n{% endfor %}",
 "{{ lookup('sequence', 'start=0 count=2 format=ps-%d:2222', wantlist=True) }}",
 "x{% if false %}\n{% endif %}y",
 "{{ 'x' if false }}|",
 "{% for x in 'ab' %}{{ x }}.{% endfor %}",
 "a{# multi\nline #}b",
]
textonly_errors = [
 "{{ nope }}",
 "{% for x in i %}{% endfor %}",
 "{% for a, b in l %}{% endfor %}",
 "{% if true %}never closed",
 "{% endfor %}",
 "{{ 1 +",
 "{% raw %}no end",
 "{# unclosed",
]
conds = r"""
node_type == "master" and launch_training
'b' in ['a', 'b']
(1 + 1 == 2 and not false) or undefined_var is defined
'10' | int > 9
launch_training
r_skip is succeeded and node_type == "master"
r_ok.rc == 0
r_ok.rc == '0'
r_ok.stdout | int < 5
r_bad is failed
r_bad is not failed
ansible_os_family == "Debian"
ansible_os_family != "RedHat"
undefined_var is not defined
job.finished
job2.finished
bf
not bf
i > 5
s
es
n
l
empty
0
'false'
groups['wn'] | length > 1
inventory_hostname == groups['front'][0]
r_ok.stdout_lines[0] == '3'
nope
nope == 1
1 +
d.zz
d.zz is defined
'\n' | length == 1
"""
typed += '\n{{ \'abc\' | hash(\'sha256\') }}\n{{ \'abc\' | hash }}\n{{ \'abc\' | hash(\'md5\') }}\n{{ \'abc\' | md5 }}\n{{ \'abc\' | sha1 }}\n{{ \'abc\' | checksum }}\n{{ (\'a\' * 100) | hash(\'sha256\') }}\n{{ unicode | hash(\'sha256\') }}\n{{ names | select(\'equalto\', \'a\') | list }}\n{{ names | select(\'match\', \'^[ab]\') | list }}\n{{ names | reject(\'search\', \'b\') | list }}\n{{ names | map(\'regex_replace\', \'^\', \'x-\') | list }}\n{{ objs | selectattr(\'name\', \'defined\') | list | length }}\n{{ objs | selectattr(\'missing\', \'undefined\') | list | length }}\n{{ objs | selectattr(\'name\', \'in\', [\'x\', \'z\']) | map(attribute=\'n\') | list }}\n{{ objs | map(attribute=\'name\') | select(\'ne\', \'y\') | list }}\n{{ d | to_yaml }}\n{{ d | to_nice_yaml }}\n{{ names | to_yaml }}\n{{ \'yes\' | to_yaml }}\n{{ {\'a\': \'1\', \'b\': \'on\', \'c\': \'\', \'d\': \'x: y\', \'e\': none} | to_yaml }}\n{{ {\'k\': [{\'a\': 1}, {\'b\': [1, 2]}]} | to_nice_yaml }}\n{{ \'a: 1\\nb: [x, y]\\nc: {d: true}\' | from_yaml }}\n{{ \'- 1\\n- two\\n- 3.5\\n- null\\n- yes\' | from_yaml }}\n{{ \'x: 0644\' | from_yaml }}\n{{ \'---\\na: 1\\n---\\nb: 2\' | from_yaml_all | list }}\n{{ \'ab\' | regex_findall(\'(a)|(b)\') }}\n{{ \'key=val\' | regex_replace(\'^(?P<k>\\w+)=(?P<v>\\w+)$\', \'\\g<v>=\\g<k>\') }}\n{{ \'a1b22\' | regex_findall(\'[0-9]+\') | map(\'int\') | sum }}\n{{ \'Hello\' | regex_search(\'L+\', ignorecase=true) }}\n{{ \'a\\nb\' | regex_findall(\'^b\', multiline=true) }}\n{{ \'caf\\u00e9\' }}\n{{ unicode[-1] }}\n{{ unicode[1:3] }}\n{{ unicode | reverse }}\n{{ unicode | upper }}\n{{ unicode | to_json(ensure_ascii=false) }}\n{{ \'x\' if i > 10 else \'y\' if i > 5 else \'z\' }}\n{{ 1 in [1, 2] in [true] }}\n{{ [1, 2, 3][1:] | sum }}\n{{ (names | sort)[0] }}\n{{ {\'b\': 1, \'a\': 2} | dictsort(by=\'value\') }}\n{{ {\'b\': 1, \'a\': 2} | dictsort(reverse=true) }}\n{{ pairs | map(\'last\') | list }}\n{{ pairs | map(\'join\', \'=\') | list }}\n{{ d | dict2items | map(attribute=\'key\') | join(\',\') }}\n{{ hostvars | dict2items | selectattr(\'value.IM_NODE_PRIVATE_IP\', \'defined\') | map(attribute=\'key\') | list }}\n{{ groups[\'all\'] | map(\'extract\', hostvars, \'IM_NODE_PRIVATE_IP\') | list }}\n{{ groups[\'wn\'] | map(\'extract\', hostvars) | list | length }}\n{{ groups.all | union(groups.wn) }}\n{{ groups.all | intersect(groups.wn) }}\n{{ groups.all | difference(groups.front) }}\n{{ (groups.all + groups.wn) | unique | sort }}\n{{ groups.all | zip(groups.wn) | list }}\n{{ l | map(\'string\') | join(\'\') | int + 1 }}\n{{ l | sort | last }}\n{{ l | length is even }}\n{{ s | replace(\'World\', \'There\') | lower }}\n{{ s.split()[1] }}\n{{ s.split(\' \')[-1][0] }}\n{{ path.split(\'/\')[-1] }}\n{{ path | basename | splitext | first }}\n{{ path.endswith(\'_config\') }}\n{{ \'a,b\' .split(\',\') | length }}\n{{ [\'a\', \'b\'] | join(\', \') | upper }}\n{{ \'abc\'.upper().lower().startswith(\'a\') }}\n{{ d.b | length }}\n{{ d.c.x | upper }}\n{{ d[\'c\'].get(\'x\') }}\n{{ d.get(\'c\', {}).get(\'zz\', \'none\') }}\n{{ i | string | length }}\n{{ f | int }}\n{{ f | round | int }}\n{{ -f | abs }}\n{{ i // 2 * 2 == i }}\n{{ (i / 2) | int }}\n{{ i ** 2 }}\n{{ i % 2 == 1 }}\n{{ \'%03d\' % i }}\n{{ \'%-5s|\' % \'ab\' }}\n{{ \'%x\' % 255 }}\n{{ \'%.1f%%\' % 12.345 }}\n{{ \'{:>5}\'.format(\'a\') if false else \'fmt\' }}\n{{ l | min + l | max }}\n{{ [l | min, l | max] }}\n{{ objs | sort(attribute=\'name\', reverse=true) | map(attribute=\'n\') | list }}\n{{ objs | map(attribute=\'n\') | max }}\n{{ objs | rejectattr(\'n\', \'lt\', 2) | map(attribute=\'name\') | list }}\n{{ objs | selectattr(\'on\', \'true\') | list | length }}\n{{ objs | selectattr(\'on\', \'false\') | list | length }}\n{{ objs | selectattr(\'n\', \'even\') | map(attribute=\'name\') | first }}\n{{ [none, 1] | select(\'none\') | list }}\n{{ [\'a\', 1, 1.5, [], {}] | map(\'type_debug\') | list }}\n{{ [1, 2] | map(\'pow\', 2) | list }}\n{{ 16 | root }}\n{{ 8 | log(2) }}\n{{ 100 | log(10) }}\n{{ [3, 1] | sort | map(\'string\') | list }}\n{{ [\'b\', \'a\'] | sort | first | upper }}\n{{ names | batch(2) | list }}\n{{ names | batch(2, \'x\') | list }}\n{{ \'abc\' | center(7) }}\n{{ \'a\\n\\nb\' | indent(2, blank=true) }}\n{{ \'hello world foo\' | truncate(9) }}\n{{ \'hello world foo\' | truncate(9, true) }}\n{{ \'hello\' | truncate(3, true, \'..\', 0) }}\n{{ \'a<b>&"\' | e }}\n{{ \'x\' | safe }}\n{{ d | items | list }}\n{{ [1, 2, 3] | product([\'a\']) | list }}\n{{ [[1, 2], [3]] | flatten | sum }}\n{{ [1, [2]] | flatten(0) }}\n{{ items | items2dict | dict2items | length }}\n{{ {\'a\': 1} | combine({\'a\': none}) }}\n{{ {\'a\': [1, 2]} | combine({\'a\': [3]}, list_merge=\'prepend\') }}\n{{ {\'a\': [1, 2]} | combine({\'a\': [3]}, list_merge=\'keep\') }}\n{{ {\'x\': {\'y\': {\'z\': 1}}} | combine({\'x\': {\'y\': {\'w\': 2}}}, recursive=true) }}\n{{ \'a\' ~ \'b\' == \'ab\' }}\n{{ none is none and not (0 is none) }}\n{{ \'\' is string }}\n{{ 1.0 is float and 1 is integer and true is boolean }}\n{{ true is integer }}\n{{ 1 is boolean }}\n{{ \'abc\' is iterable and 3 is not iterable }}\n{{ {} is mapping and [] is not mapping }}\n{{ \'a\' is sameas \'a\' if false else true is sameas true }}\n{{ r_ok is reachable }}\n{{ r_ok is unreachable }}\n{{ \'1.2.3\' is version(\'1.2.3\', \'==\', strict=true) }}\n{{ \'1.2a1\' is version(\'1.2\', \'<\', strict=true) }}\n{{ \'1.2.10\' is version(\'1.2.9\', \'>\') }}\n{{ \'2.0.0-rc1\' is version(\'2.0.0\', \'<\') }}\n{{ ansible_distribution_major_version is version(\'20\', \'>=\') }}\n{{ ansible_distribution_major_version | int >= 20 }}\n{{ [] | list == [] }}\n{{ lookup(\'sequence\', \'start=0 end=4 stride=2\', wantlist=True) | map(\'int\') | list }}\n{{ query(\'sequence\', \'start=0 count=3 format=%02x\') }}\n{{ lookup(\'sequence\', \'3\') }}\n{{ lookup(\'sequence\', \'2-4:node%d\') }}\n{{ lookup(\'indexed_items\', names) }}\n{{ query(\'dict\', {\'k\': \'v\'}) }}\n{{ lookup(\'vars\', \'missing_var\', default=\'dv\') }}\n{{ range(2) | map(\'string\') | list }}\n{{ range(5)[1:3] | list }}\n{{ range(3) | length }}\n{{ range(3) | reverse | list }}\n{{ dict(zip([\'a\', \'b\'], [1, 2])) }}\n{{ names | zip(l) | list | first | list }}\n'
errors += "\n{{ 'abc' | hash('nope') }}\n{{ d | to_yaml(indent=2) | from_yaml | from_json }}\n{{ 'a: [1' | from_yaml }}\n{{ 'x' | regex_replace('(', 'y') }}\n{{ 'x' | regex_replace('x', '\\9') }}\n{{ range(3)[5] }}\n{{ objs | map(attribute='missing') | list }}\n{{ names | map('nosuchfilter') | list }}\n{{ names | select('nosuchtest') | list }}\n{{ '%d' % 'x' }}\n{{ '%s %s' % ('a',) }}\n{{ names.nosuchmethod() }}\n{{ 5() }}\n{{ s[1:2:0] }}\n{{ d[[1]] }}\n{{ {[1]: 2} }}\n{{ i | batch(0) }}\n"
text += ['{% for x in l %}{{ loop.revindex0 }}{{ loop.depth }}{% endfor %}', '{% for k, v in d | dictsort %}{{ k }}:{{ v }}\n{% endfor %}', '{% for x in names | sort %}{{ x }}{% else %}none{% endfor %}', '{% for x in [] if x %}{{ x }}{% else %}filtered-empty{% endfor %}', '{% set items2 = [] %}{% for x in l %}{% set items2 = items2 + [x] %}{% endfor %}{{ items2 }}', "{% set t = {'a': 1} %}{{ t.a }} {{ t['a'] + 1 }}", '{% if i is defined and i > 5 %}big{% elif i is defined %}small{% endif %}', '{% if undefined_var is defined %}{{ undefined_var }}{% else %}fallback{% endif %}', '{% for x in l %}{% if loop.first %}[{% endif %}{{ x }}{% if loop.last %}]{% else %},{% endif %}{% endfor %}', '{%- for x in l -%}\n  {{ x }}\n{%- endfor -%}\n', 'a\n{%- raw -%}\n  {{ x }}\n{%- endraw -%}\nb', '{% macro li(x) -%}\n<li>{{ x }}</li>\n{%- endmacro %}{% for n in names %}{{ li(n) }}{% endfor %}', '{% macro m(a, b=2) %}{{ a + b }}{% endmacro %}{{ m(1) }} {{ m(1, b=5) }}', '{% set s2 %}{% for x in l %}{{ x }}{% endfor %}{% endset %}{{ s2 | length }}', "{{ 'x' }}{#- comment -#}   {{ 'y' }}", 'key = "{{ s }}"\nlist = {{ names | to_json }}\n', "{% for host in groups['wn'] %}{{ host }}{{ ',' if not loop.last }}{% endfor %}", "{% for h in groups['all'] if hostvars[h] is defined %}{{ h }} {% endfor %}", '{{ d | to_nice_json }}\n', '{{ d | to_nice_yaml }}', "Tab\\tin {{ 'text' }}\\n", "{{ '\\u00e9\\x41\\101' }}", '{{ "dq \'single\' inside" }}', "{% for a in [1, 2] %}{% for b in ['x', 'y'] %}{{ a }}{{ b }}{{ loop.index }}{% endfor %}{{ loop.index }};{% endfor %}", '{% for a in [[1, 2], [3, 4]] %}{{ a[0] + a[1] }}{% endfor %}', "{% set x = 'outer' %}{% for i in [1] %}{% set x = 'inner' %}{{ x }}{% endfor %}{{ x }}", '{% if true %}{% set y = 1 %}{% endif %}{{ y }}', "{% with %}{% set z = 1 %}{{ z }}{% endwith %}{{ z | default('gone') }}", '  {%- if true %} kept {% endif -%}  \nend', '{% if false %}x{% endif %}\n\n\ny\n']
conds += "\ngroups['all'] | length == 2\n'h1' in groups['front']\n'h9' not in groups['front']\nhostvars['h1']['ansible_hostname'] == 'front'\nd.c.x == 'y' and d.a == 1\nd.b | length > 1 and d.b[0] == 1\n(i > 5 and s is search('World')) or bf\nnot (bf or n)\nl | max == 3\nnames | sort | first == 'a'\nr_ok.stdout_lines | length == 1 and r_ok.stdout_lines[0] | int == 3\nansible_distribution in ['Ubuntu', 'Debian']\nansible_distribution_major_version | int in [20, 22]\njob.finished == 0\njob is not finished\nr_loop.results | selectattr('changed') | list | length == 1\ni is divisibleby 7\ns | length > 5\n'World' in s\ns.startswith('Hello') and s.endswith('World')\n['a'] | intersect(names) | length > 0\nnone\n'0'\n[0]\n{}\n"
typed += r"""
{{ users | dict2items | json_query('[?value.name==`bob`].key') }}
{{ r_loop | json_query('results[?changed].changed') }}
{{ objs | json_query('[*].name') }}
{{ objs | json_query('[?n > `1`].name') }}
{{ objs | json_query('[?on].n | [0]') }}
{{ objs | json_query('sort_by(@, &n)[*].name') }}
{{ objs | json_query('max_by(@, &n).name') }}
{{ objs | json_query('length(@)') }}
{{ objs | json_query('[].{k: name, v: n}') }}
{{ objs | json_query('[0:2].name') }}
{{ objs | json_query('[-1].name') }}
{{ users | json_query('*.ip') }}
{{ users | json_query('u1.[name, ip]') }}
{{ nested | json_query('[]') }}
{{ objs | json_query("[?name=='x'].n") }}
{{ objs | json_query('[?!on].name') }}
{{ objs | json_query('join(`,`, [].name)') }}
{{ objs | json_query('[?contains(name, `z`)].n') }}
{{ objs | json_query('sum([].n)') }}
{{ d | json_query('c.x') }}
{{ d | json_query('missing.deeper') }}
{{ hostvars | json_query('*.IM_NODE_PRIVATE_IP') }}
"""
errors += r"""
{{ objs | json_query('[') }}
{{ objs | json_query('nosuchfn(@)') }}
"""

# Ansible's formatting filters (filters-format.c)
typed += r"""
{{ 'a\nb' | comment }}
{{ 'a' | comment('c') }}
{{ 'a\n\nb' | comment('cblock') }}
{{ 'x' | comment('xml') }}
{{ 'x' | comment('erlang') }}
{{ 'x' | comment(decoration='; ') }}
{{ 'x' | comment('plain', prefix='#!', prefix_count=2, postfix_count=0) }}
{{ 'x' | comment(beginning='BEGIN', end='END') }}
{{ 'x' | comment('nope') }}
{{ 'a\nb' | comment(newline='\r\n') }}
{{ 'x' | comment(prefix='\n') }}
{{ 'x\ny' | comment(decoration='') }}
{{ 'x' | comment(prefix_count='3') }}
{{ 'x' | comment(style='c', postfix='//--') }}
{{ 5 | comment }}
{{ '%Y-%m-%d %H:%M:%S' | strftime(0, utc=true) }}
{{ '%Y-%m-%d' | strftime(1700000000, true) }}
{{ '%A %B %j %U %w %y %p %I %a %b %d %e %%' | strftime(86400 * 45 + 3600 * 15, utc=true) }}
{{ '%H' | strftime('abc') }}
{{ '%Y' | strftime(1.9e9, utc=true) }}
{{ '' | strftime(0) }}
{{ '%Y' | strftime(' 12 ', utc=true) }}
{{ '%M:%S' | strftime(59.9, utc=true) }}
{{ ('%Y' | strftime) | int > 2000 }}
{{ 5 | strftime }}
{{ 1 | human_readable }}
{{ 1024 | human_readable }}
{{ 1536 | human_readable }}
{{ (10 * 1024 * 1024) | human_readable }}
{{ (1024 ** 3 * 2.5) | human_readable }}
{{ 1048576 | human_readable(unit='K') }}
{{ 1048576 | human_readable(isbits=true) }}
{{ 1048576 | human_readable(true, 'G') }}
{{ 0 | human_readable }}
{{ (-5) | human_readable }}
{{ 1000 | human_readable(unit='X') }}
{{ 1024 | human_readable(unit='KB') }}
{{ '1024' | human_readable }}
{{ true | human_readable }}
{{ 1.5 | human_readable }}
{{ (1024 ** 5) | human_readable }}
{{ '1K' | human_to_bytes }}
{{ '1 MB' | human_to_bytes }}
{{ '1.5G' | human_to_bytes }}
{{ '10' | human_to_bytes }}
{{ '1KB' | human_to_bytes }}
{{ '1Kb' | human_to_bytes }}
{{ '1Mb' | human_to_bytes(isbits=true) }}
{{ '1MB' | human_to_bytes(isbits=true) }}
{{ '2 bytes' | human_to_bytes }}
{{ '2 kilobyte' | human_to_bytes }}
{{ 'abc' | human_to_bytes }}
{{ '10' | human_to_bytes('M') }}
{{ 10 | human_to_bytes(default_unit='K') }}
{{ ' 3.5 k' | human_to_bytes }}
{{ '1X' | human_to_bytes }}
{{ '.5K' | human_to_bytes }}
{{ '1.K' | human_to_bytes }}
{{ '0.1' | human_to_bytes }}
{{ '2.5' | human_to_bytes }}
{{ '3.5' | human_to_bytes }}
{{ '1e3' | human_to_bytes }}
{{ '1 b' | human_to_bytes }}
{{ '1 Bit' | human_to_bytes(isbits=true) }}
{{ '5 TB' | human_to_bytes }}
{{ 'a b/c?d=e&f' | urlencode }}
{{ {'a': 'b c', 'd': 1} | urlencode }}
{{ [['x', 'y z'], ['q', '/']] | urlencode }}
{{ unicode | urlencode }}
{{ 5 | urlencode }}
{{ 'a~b_c.d-e+' | urlencode }}
{{ none | urlencode }}
{{ true | urlencode }}
{{ ['ab', 'cd'] | urlencode }}
{{ {'k': [1, 2]} | urlencode }}
{{ 'a%20b+c' | urldecode }}
{{ 'caf%C3%A9' | urldecode }}
{{ '%zz%4' | urldecode }}
{{ '%E2%82' | urldecode }}
{{ '%FF%41' | urldecode }}
{{ '%ED%A0%80' | urldecode }}
{{ '%F0%9F%98%80' | urldecode }}
{{ '%E2%82%C3%A9' | urldecode }}
{{ 'x y' | urlencode | urldecode }}
{{ 'k=v%26w' | urldecode }}
{{ 'example.com' | to_uuid }}
{{ 'x' | to_uuid(namespace='6ba7b810-9dad-11d1-80b4-00c04fd430c8') }}
{{ 'x' | to_uuid('{6ba7b810-9dad-11d1-80b4-00c04fd430c8}') }}
{{ 'x' | to_uuid('urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8') }}
{{ 'x' | to_uuid('6BA7B8109DAD11D180B400C04FD430C8') }}
{{ 'x' | to_uuid('nope') }}
{{ 5 | to_uuid }}
{{ unicode | to_uuid }}
{{ 'secret' | password_hash('sha512', 'mysalt') }}
{{ 'secret' | password_hash('sha256', 'mysalt') }}
{{ 'secret' | password_hash('md5', 'mysalt') }}
{{ 'secret' | password_hash('sha512_crypt', 'mysalt') }}
{{ 'secret' | password_hash('sha512', 'mysalt', rounds=10000) }}
{{ 'secret' | password_hash('sha512', 'mysalt', rounds=656000) }}
{{ 'secret' | password_hash('sha512', 'bad salt!') }}
{{ 'secret' | password_hash('sha512', 'xxxxxxxxxxxxxxxxx') }}
{{ 'secret' | password_hash('nope') }}
{{ 'secret' | password_hash | length }}
{{ 'secret' | password_hash('sha512') is match('^\\$6\\$[./0-9A-Za-z]{16}\\$') }}
{{ 'secret' | password_hash('sha512', salt_size=8) | length }}
{{ 'secret' | password_hash('sha512', salt_size=20) }}
{{ 'secret' | password_hash('md5') | length }}
{{ unicode | password_hash('sha256', 'abc') }}
{{ 'secret' | password_hash('sha512', 'mysalt', ident='6') }}
{{ 'secret' | password_hash('blowfish', 'abcdefghijklmnopqrstuv') }}
{{ 5 | password_hash('sha512', 'mysalt') }}
"""
# Ansible's and Jinja2's tests: nan, issubset/issuperset, uri/url/urn, mount, same_file, link_exists, vault_encrypted, filter/test (tests.c)
typed += r"""
{{ 1.5 is nan }}
{{ 'nan' is nan }}
{{ 5 is nan }}
{{ none is isnan }}
{{ [1, 2] is issubset([1, 2, 3]) }}
{{ [1, 4] is issubset([1, 2, 3]) }}
{{ [3, 2, 1] is issuperset([1, 2]) }}
{{ [3, 2] is issuperset([1, 2]) }}
{{ 'ab' is issubset('abc') }}
{{ [] is issubset([]) }}
{{ [[1]] is issubset([[1]]) }}
{{ 5 is issubset([1]) }}
{{ [1, 2] is subset([2, 1]) }}
{{ {'a': 1} is issubset(['a', 'b']) }}
{{ 'https://example.com/a?b=c#d' is uri }}
{{ 'example.com' is uri }}
{{ 'example.com' is url }}
{{ 'https://example.com' is url }}
{{ 'file:///etc/hosts' is url }}
{{ 'mailto:a@b.c' is url }}
{{ 'mailto:a@b.c' is uri(['mailto']) }}
{{ 'mailto:a@b.c' is uri(schemes=['http']) }}
{{ 'http://[::1]:80/' is url }}
{{ 'http://[::1/' is uri }}
{{ 'http://[1.2.3.4]/' is uri }}
{{ 'http://[v1.x]/' is url }}
{{ 'http://[fe80::1%eth0]/' is url }}
{{ 'http://x[::1]/' is uri }}
{{ 'http://[::1]x/' is uri }}
{{ 'http://a]b/' is uri }}
{{ 'HTTP://EXAMPLE.com' is url(['http']) }}
{{ 'urn:isbn:0451450523' is urn }}
{{ 'URN:x' is urn }}
{{ 'http://x' is urn }}
{{ 5 is uri }}
{{ none is uri }}
{{ none is url }}
{{ [] is uri }}
{{ [1] is uri }}
{{ '' is uri }}
{{ ' \thttps://x.y' is url }}
{{ '//host/path' is url }}
{{ '1http://x' is url }}
{{ 'ht_tp://x' is url }}
{{ '/' is mount }}
{{ '/proc' is mount }}
{{ '/etc' is mount }}
{{ '/nonexistent' is is_mount }}
{{ 5 is mount }}
{{ '/etc/hosts' is same_file('/etc/../etc/hosts') }}
{{ '/etc/hosts' is is_same_file('/etc/hostname') }}
{{ '/etc/hosts' is same_file('/nonexistent') }}
{{ '/etc/hosts' is link_exists }}
{{ '/bin' is link_exists }}
{{ '/nonexistent' is link_exists }}
{{ 5 is link_exists }}
{{ 'x' is vault_encrypted }}
{{ 5 is vault_encrypted }}
{{ 'upper' is filter }}
{{ 'ansible.builtin.to_json' is filter }}
{{ 'nosuch' is filter }}
{{ 'defined' is test }}
{{ 'nosuch' is test }}
{{ 5 is filter }}
"""
# Ansible's path and URL filters: expandvars, relpath, fileglob, win_*, urlsplit (filters-path.c)
typed += r"""
{{ '$HOME/x' | expandvars }}
{{ '${HOME}/x' | expandvars }}
{{ '$IMC_NO_SUCH_VAR/x ${IMC_NO_SUCH_VAR} $' | expandvars }}
{{ 'a$ b ${ c $1 ${HOME' | expandvars }}
{{ 5 | expandvars }}
{{ '/etc/ssh/sshd_config' | relpath('/etc') }}
{{ '/etc' | relpath('/etc/ssh/x') }}
{{ '/a/b/../c/./d' | relpath('/a//e') }}
{{ '/a' | relpath('/a') }}
{{ '/' | relpath('/usr/lib') }}
{{ '' | relpath('/a') }}
{{ 5 | relpath('/a') }}
{{ '/a' | relpath(5) }}
{{ '/etc/host*' | fileglob | sort }}
{{ '/etc/nosuch*' | fileglob }}
{{ '/etc/*/sshd_confi?' | fileglob }}
{{ '/etc' | fileglob }}
{{ '/etc/hosts' | fileglob }}
{{ '/etc/host[s]' | fileglob }}
{{ '' | fileglob }}
{{ 5 | fileglob }}
{{ 'C:\\Users\\x\\file.txt' | win_basename }}
{{ 'C:\\Users\\x\\file.txt' | win_dirname }}
{{ 'C:\\Users\\x\\file.txt' | win_splitdrive | list }}
{{ 'C:/Users/x/' | win_basename }}
{{ 'C:/Users/x/' | win_dirname }}
{{ 'C:\\' | win_dirname }}
{{ 'C:' | win_splitdrive | list }}
{{ 'file.txt' | win_dirname }}
{{ 'file.txt' | win_splitdrive | list }}
{{ '\\\\server\\share\\dir\\f.txt' | win_splitdrive | list }}
{{ '\\\\server\\share\\dir\\f.txt' | win_dirname }}
{{ '//server/share' | win_splitdrive | list }}
{{ '\\\\server' | win_splitdrive | list }}
{{ '\\\\?\\UNC\\server\\share\\x' | win_splitdrive | list }}
{{ '\\\\.\\device\\x' | win_splitdrive | list }}
{{ 'x\\\\\\y' | win_dirname }}
{{ '\\\\\\' | win_dirname }}
{{ 'é:x' | win_splitdrive | list }}
{{ 5 | win_basename }}
{{ 'https://user:pw@Example.COM:8080/a/b?x=1&y=2#frag' | urlsplit }}
{{ 'https://example.com/a' | urlsplit('hostname') }}
{{ 'https://example.com:443/a' | urlsplit('port') }}
{{ 'https://example.com/a' | urlsplit('port') }}
{{ url | urlsplit('path') }}
{{ 'https://example.com/a' | urlsplit('nope') }}
{{ 'http://h:abc/' | urlsplit }}
{{ 'http://h:99999/' | urlsplit }}
{{ 'http://h:/' | urlsplit('port') }}
{{ 'http://[::1]:8/p' | urlsplit }}
{{ 'http://[::1/p' | urlsplit }}
{{ 'mailto:a@b.c' | urlsplit }}
{{ 'a/b?c#d' | urlsplit }}
{{ 'http://u@h/' | urlsplit('password') }}
{{ 'http://:p@h/' | urlsplit('username') }}
{{ ' http://h\n/p' | urlsplit('path') }}
{{ 5 | urlsplit }}
{{ ('C:\\x' | win_splitdrive)[0] }}
{{ 'C:\\x' | win_splitdrive | last }}
{{ '//server/share/dir/f' | win_splitdrive | list }}
{{ '//?/UNC/server/share/x' | win_splitdrive | list }}
{{ '//?/unc/server/share/x' | win_splitdrive | list }}
{{ '//?/UNC/server' | win_splitdrive | list }}
{{ '//server' | win_splitdrive | list }}
{{ '//server/' | win_splitdrive | list }}
{{ '//server/share/dir/f' | win_dirname }}
{{ '//server/share/' | win_dirname }}
{{ '//server/share' | win_basename }}
{{ '/x' | win_splitdrive | list }}
{{ 'a:' | win_basename }}
"""
# Ansible's to_datetime and the datetime/timedelta values it makes (filters-datetime.c)
typed += r"""
{{ '2024-03-01 12:30:45' | to_datetime }}
{{ '2024-03-01' | to_datetime('%Y-%m-%d') }}
{{ ('2024-03-01 12:00:00' | to_datetime - '2024-02-28 11:00:00' | to_datetime) }}
{{ ('2024-03-01 12:00:00' | to_datetime - '2024-02-28 11:00:00' | to_datetime).days }}
{{ ('2024-03-01 12:00:00' | to_datetime - '2024-02-28 11:00:00' | to_datetime).seconds }}
{{ ('2024-03-01 12:00:00' | to_datetime - '2024-02-28 11:00:00' | to_datetime).microseconds }}
{{ ('2024-03-01 12:00:00' | to_datetime - '2024-02-28 11:00:00' | to_datetime).total_seconds() }}
{{ ('2024-02-28 11:00:00' | to_datetime - '2024-03-01 12:00:00' | to_datetime) }}
{{ ('2024-02-28 11:00:00' | to_datetime - '2024-03-01 12:00:00' | to_datetime).days }}
{{ ('2024-02-28 11:00:00' | to_datetime - '2024-03-01 12:00:00' | to_datetime).seconds }}
{{ ('2024-02-28 11:00:00' | to_datetime - '2024-03-01 12:00:00' | to_datetime).total_seconds() }}
{{ ('2024-01-01 00:00:01' | to_datetime - '2024-01-01 00:00:00' | to_datetime) }}
{{ ('2024-01-01' | to_datetime('%Y-%m-%d') - '2024-01-01' | to_datetime('%Y-%m-%d')) }}
{{ ('2024-01-01' | to_datetime('%Y-%m-%d') - '2024-01-01' | to_datetime('%Y-%m-%d')) | bool }}
{{ ('2024-01-02' | to_datetime('%Y-%m-%d') - '2024-01-01' | to_datetime('%Y-%m-%d')) | string }}
{{ (('2024-01-03' | to_datetime('%Y-%m-%d')) - ('2024-01-01' | to_datetime('%Y-%m-%d'))).days > 1 }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') > '2024-01-01' | to_datetime('%Y-%m-%d') }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') == '2024-01-03 00:00:00' | to_datetime }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') > '2024-01-01' }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') == '2024-01-03' }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') - 1 }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') + '2024-01-03' | to_datetime('%Y-%m-%d') }}
{{ [('2024-01-03' | to_datetime('%Y-%m-%d'))] }}
{{ {'a': ('2024-01-03' | to_datetime('%Y-%m-%d'))} }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') | type_debug }}
{{ ('2024-01-02' | to_datetime('%Y-%m-%d') - '2024-01-01' | to_datetime('%Y-%m-%d')) | type_debug }}
{{ 'x' ~ ('2024-01-03' | to_datetime('%Y-%m-%d')) }}
{{ ('2024-01-03 04:05:06' | to_datetime).year }}
{{ ('2024-01-03 04:05:06' | to_datetime).month }}
{{ ('2024-01-03 04:05:06' | to_datetime).day }}
{{ ('2024-01-03 04:05:06' | to_datetime).hour }}
{{ ('2024-01-03 04:05:06' | to_datetime).minute }}
{{ ('2024-01-03 04:05:06' | to_datetime).second }}
{{ ('2024-01-03 04:05:06' | to_datetime).microsecond }}
{{ ('2024-01-03 04:05:06' | to_datetime).nosuch | default('undef') }}
{{ ('2024-01-03 04:05:06' | to_datetime).strftime('%d/%m/%Y %H.%M %f %j %a %A %b %B %w %z%Z|%%') }}
{{ ('2024-01-03 04:05:06' | to_datetime).isoformat() }}
{{ ('2024-01-03 04:05:06.5' | to_datetime('%Y-%m-%d %H:%M:%S.%f')).isoformat(' ') }}
{{ ('2024-01-03 04:05:06' | to_datetime).weekday() }}
{{ ('2024-01-07 04:05:06' | to_datetime).isoweekday() }}
{{ ('2024-01-03 04:05:06' | to_datetime).nosuch() }}
{{ '2024-01-03 04:05:06.123' | to_datetime('%Y-%m-%d %H:%M:%S.%f') }}
{{ '2024-01-03 04:05:06.000001' | to_datetime('%Y-%m-%d %H:%M:%S.%f') }}
{{ '2024-01-03 04:05:06.1234567' | to_datetime('%Y-%m-%d %H:%M:%S.%f') }}
{{ '24-1-3' | to_datetime('%y-%m-%d') }}
{{ '69-1-3' | to_datetime('%y-%m-%d') }}
{{ '03 Jan 2024' | to_datetime('%d %b %Y') }}
{{ '03 january 2024' | to_datetime('%d %B %Y') }}
{{ '03 MAY 2024' | to_datetime('%d %b %Y') }}
{{ 'Wed, 03 Jan 2024 04:05:06' | to_datetime('%a, %d %b %Y %H:%M:%S') }}
{{ 'Wednesday 3 Jan 2024' | to_datetime('%A %d %b %Y') }}
{{ '12:30 AM' | to_datetime('%I:%M %p') }}
{{ '12:30 pm' | to_datetime('%I:%M %p') }}
{{ '1:30 PM' | to_datetime('%I:%M %p') }}
{{ '1:30' | to_datetime('%I:%M') }}
{{ '2024 060' | to_datetime('%Y %j') }}
{{ '2023 365' | to_datetime('%Y %j') }}
{{ '2023 366' | to_datetime('%Y %j') }}
{{ '2024-02-30' | to_datetime('%Y-%m-%d') }}
{{ '2023-02-29' | to_datetime('%Y-%m-%d') }}
{{ '2024-02-29' | to_datetime('%Y-%m-%d') }}
{{ '02-29' | to_datetime('%m-%d') }}
{{ '2024-01-01 00:00:60' | to_datetime }}
{{ '0000-01-01' | to_datetime('%Y-%m-%d') }}
{{ '2024-01-01' | to_datetime }}
{{ '2024-01-01 00:00:00 extra' | to_datetime }}
{{ '2024-01-01   10:00:00' | to_datetime }}
{{ '2024-01-01' | to_datetime('%Y-%m-%Q') }}
{{ '2024-01-01' | to_datetime('%Y-%m-%') }}
{{ '2024.01.01' | to_datetime('%Y.%m.%d') }}
{{ '2024(01)' | to_datetime('%Y(%m)') }}
{{ '100%' | to_datetime('%d%%') }}
{{ '112' | to_datetime('%d%m') }}
{{ ' 5/1/2024' | to_datetime('%d/%m/%Y') }}
{{ 5 | to_datetime }}
{{ none | to_datetime }}
{{ '2024' | to_datetime(5) }}
{{ '' | to_datetime('') }}
{{ 'x' | to_datetime('') }}
{{ ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) * 2 }}
{{ ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) / 3 }}
{{ ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) / 2.5 }}
{{ ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) // 7 }}
{{ ('2024-01-03 00:00:00' | to_datetime - ('2024-01-01 12:00:00' | to_datetime)) / ('2024-01-02' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ ('2024-01-03 00:00:00' | to_datetime - ('2024-01-01 12:00:00' | to_datetime)) // ('2024-01-02' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ ('2024-01-03 00:00:00' | to_datetime - ('2024-01-01 12:00:00' | to_datetime)) % ('2024-01-02' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ 3 * ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) / 0 }}
{{ ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) + 1 }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') + ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ '2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ ('0001-01-01' | to_datetime('%Y-%m-%d')) - ('2024-01-03' | to_datetime('%Y-%m-%d') - ('2024-01-01' | to_datetime('%Y-%m-%d'))) }}
{{ ['2024-01-03', '2023-05-01', '2024-01-01'] | map('to_datetime', '%Y-%m-%d') | max }}
{{ ['2024-01-03', '2023-05-01', '2024-01-01'] | map('to_datetime', '%Y-%m-%d') | sort | first }}
{{ ('2024-01-03 10:00:00' | to_datetime - '2024-01-03 09:00:00' | to_datetime).total_seconds() / 60 }}
{{ (('2024-01-03 10:00:00' | to_datetime) - ('2024-01-03 09:59:59.5' | to_datetime('%Y-%m-%d %H:%M:%S.%f'))) }}
{{ (('2024-01-03 10:00:00' | to_datetime) - ('2024-01-03 09:59:59.5' | to_datetime('%Y-%m-%d %H:%M:%S.%f'))).total_seconds() }}
{{ (('2024-01-03 09:59:59.5' | to_datetime('%Y-%m-%d %H:%M:%S.%f')) - ('2024-01-03 10:00:00' | to_datetime)) }}
{{ '2024-01-03 04:05:06' | to_datetime | to_json }}
{{ {'t': ('2024-01-03 04:05:06.25' | to_datetime('%Y-%m-%d %H:%M:%S.%f'))} | to_nice_json }}
{{ ('2024-01-03 04:05:06' | to_datetime) | string }}
{{ ('2024-01-03 04:05:06' | to_datetime).strftime('%s') | int > 0 }}
{{ ('2024-01-03 04:05:06' | to_datetime) is string }}
{{ ('2024-01-03 04:05:06' | to_datetime) in ['2024-01-03 04:05:06' | to_datetime] }}
{{ ('2024-01-03 04:05:06' | to_datetime) != ('2024-01-03 04:05:07' | to_datetime) }}
{{ ('2024-01-03 04:05:06' | to_datetime) <= ('2024-01-03 04:05:06' | to_datetime) }}
{{ ('2024-01-03 04:05:06' | to_datetime) < ('2024-01-03 04:05:06' | to_datetime) - ('2024-01-03 04:05:06' | to_datetime) }}
{{ '%Y' | strftime(('2024-01-03 04:05:06' | to_datetime).timestamp(), utc=true) }}
"""
# Jinja2's groupby (filters-sort.c) and slice (filters-list.c), Ansible's combinations, permutations, rekey_on_member (filters-seq.c)
typed += r"""
{{ [1, 2, 3] | combinations(2) }}
{{ [1, 2, 3, 4] | combinations(3) }}
{{ [1, 2, 3] | combinations(0) }}
{{ [1, 2, 3] | combinations(4) }}
{{ [1, 2, 3] | combinations(r=1) }}
{{ 'abc' | combinations(2) }}
{{ {'a': 1, 'b': 2} | combinations(2) }}
{{ [] | combinations(1) }}
{{ [] | combinations(0) }}
{{ [1, 2] | combinations(-1) }}
{{ [1, 2] | combinations('2') }}
{{ [1, 2] | combinations }}
{{ 5 | combinations(1) }}
{{ [1, 2] | combinations(true) }}
{{ [1, 2, 3] | permutations }}
{{ [1, 2, 3] | permutations(2) }}
{{ [1, 2, 3] | permutations(0) }}
{{ [1, 2, 3] | permutations(4) }}
{{ 'ab' | permutations | map('join') | list }}
{{ [1, 1] | permutations }}
{{ [1, 2] | permutations(-1) }}
{{ [1, 2] | permutations(none) }}
{{ 5 | permutations }}
{{ [1, 2, 3, 4, 5] | slice(2) }}
{{ [1, 2, 3, 4, 5] | slice(3) }}
{{ [1, 2, 3, 4, 5] | slice(3, 'x') }}
{{ [1, 2, 3, 4, 5, 6] | slice(3, 'x') }}
{{ [1, 2] | slice(4) }}
{{ [1, 2] | slice(4, 0) }}
{{ [] | slice(2) }}
{{ 'abcde' | slice(2) }}
{{ [1, 2] | slice(0) }}
{{ [1, 2] | slice('2') }}
{{ 5 | slice(2) }}
{{ [1, 2, 3] | slice(1) }}
{{ objs | groupby('on') }}
{{ objs | groupby('name') | map('first') | list }}
{{ [{'k': 'B', 'v': 1}, {'k': 'b', 'v': 2}, {'k': 'a', 'v': 3}] | groupby('k') }}
{{ [{'k': 'B', 'v': 1}, {'k': 'b', 'v': 2}, {'k': 'a', 'v': 3}] | groupby('k', case_sensitive=true) }}
{{ [{'k': 1, 'v': 1}, {'v': 2}] | groupby('k') }}
{{ [{'k': 1, 'v': 1}, {'v': 2}] | groupby('k', default=0) }}
{{ [{'k': 1, 'v': 1}, {'k': 'x', 'v': 2}] | groupby('k') }}
{{ [{'k': 1.0}, {'k': 1}, {'k': true}] | groupby('k') }}
{{ [{'a': {'b': 2}}, {'a': {'b': 1}}] | groupby('a.b') }}
{{ [[1, 'x'], [0, 'y'], [1, 'z']] | groupby(0) }}
{{ [] | groupby('x') }}
{{ 5 | groupby('x') }}
{{ users | rekey_on_member('name') }}
{{ objs | rekey_on_member('name') }}
{{ [{'n': 'a', 'v': 1}, {'n': 'a', 'v': 2}] | rekey_on_member('n') }}
{{ [{'n': 'a', 'v': 1}, {'n': 'a', 'v': 2}] | rekey_on_member('n', duplicates='overwrite') }}
{{ [{'n': 'a'}] | rekey_on_member('n', 'bogus') }}
{{ [{'n': 'a'}] | rekey_on_member('x') }}
{{ [{'n': 'a'}, 5] | rekey_on_member('n') }}
{{ 'abc' | rekey_on_member('n') }}
{{ 5 | rekey_on_member('n') }}
{{ [{'n': 5}] | rekey_on_member('n') }}
{{ [{'n': [1]}] | rekey_on_member('n') }}
{{ [] | rekey_on_member('n') }}
"""
# Jinja2's filesizeformat (filters-format.c), striptags and xmlattr (filters-markup.c), forceescape
typed += r"""
{{ 0 | filesizeformat }}
{{ 1 | filesizeformat }}
{{ 1.0 | filesizeformat }}
{{ 999 | filesizeformat }}
{{ 1000 | filesizeformat }}
{{ 1023 | filesizeformat(true) }}
{{ 1024 | filesizeformat(true) }}
{{ 123456789 | filesizeformat }}
{{ 123456789 | filesizeformat(binary=true) }}
{{ 1e30 | filesizeformat }}
{{ 1e24 | filesizeformat }}
{{ (1024 ** 8) | filesizeformat(true) }}
{{ '2048' | filesizeformat }}
{{ ' 1.5e3 ' | filesizeformat }}
{{ 'abc' | filesizeformat }}
{{ none | filesizeformat }}
{{ true | filesizeformat }}
{{ (-5.5) | filesizeformat }}
{{ (-5000) | filesizeformat }}
{{ 1950 | filesizeformat }}
{{ 1050 | filesizeformat }}
{{ [1] | filesizeformat }}
{{ '<p>Hello <b>World</b></p>' | striptags }}
{{ '<!-- c --> a  <br/>\n b ' | striptags }}
{{ 'a < b and c > d' | striptags }}
{{ 'x <unclosed' | striptags }}
{{ '&lt;tag&gt; &amp;amp; &quot;q&quot; &#39;s&#39; &#x41;&#66;' | striptags }}
{{ 'a&nbsp;b &bogus; & &#; &#x; &ampx &lt &apos &gt;' | striptags }}
{{ '&#0; &#128; &#150; &#xD800; &#1114112; &#1;x &#13;' | striptags }}
{{ '<a href="x>y">link</a>' | striptags }}
{{ '<!-- a <b> -->text<!-- -->' | striptags }}
{{ 5 | striptags }}
{{ none | striptags }}
{{ ['<b>x</b>'] | striptags }}
{{ 'caf\u00e9 <i>x</i>' | striptags }}
{{ {'class': 'my list', 'id': 'x"y', 'missing': none} | xmlattr }}
{{ {'a': 1, 'b': true, 'c': [1, 'x']} | xmlattr }}
{{ {'a': 'b'} | xmlattr(false) }}
{{ {'a': 'b', 'c': 'd'} | xmlattr(autospace=false) }}
{{ {} | xmlattr }}
{{ {'n': none} | xmlattr }}
{{ {'a b': 1} | xmlattr }}
{{ {'a=': 1} | xmlattr }}
{{ {'a/': 1} | xmlattr }}
{{ {'<a': '<&>'} | xmlattr }}
{{ 'x' | xmlattr }}
{{ [1] | xmlattr }}
{{ '<a href="x">&</a>' | forceescape }}
{{ 5 | forceescape }}
{{ none | forceescape }}
{{ "it's" | forceescape }}
{{ 1e27 | filesizeformat }}
{{ 999999999999999999999999999 | filesizeformat }}
{{ (1024 ** 9) | filesizeformat(true) }}
"""
# Jinja2's wordwrap (filters-wrap.c)
typed += r"""
{{ 'The quick brown fox jumps over the lazy dog' | wordwrap(10) }}
{{ 'The quick brown fox jumps over the lazy dog' | wordwrap(10, wrapstring='|') }}
{{ 'short' | wordwrap }}
{{ ('word ' * 30) | wordwrap }}
{{ 'a\nb c d e f\n\ng' | wordwrap(3) }}
{{ 'Supercalifragilisticexpialidocious is long' | wordwrap(10) }}
{{ 'Supercalifragilisticexpialidocious is long' | wordwrap(10, false) }}
{{ 'Supercalifragilisticexpialidocious is long' | wordwrap(10, break_long_words=false) }}
{{ 'a well-known long-hyphenated-word-chain here' | wordwrap(12) }}
{{ 'a well-known long-hyphenated-word-chain here' | wordwrap(12, break_on_hyphens=false) }}
{{ 'Hello there -- you goof-ball, use the -b option!' | wordwrap(8) }}
{{ 'x---y--z  a  b' | wordwrap(4) }}
{{ '   leading and trailing   ' | wordwrap(7) }}
{{ 'tabs\there\tand more words' | wordwrap(6) }}
{{ 'abcdefghij-klmnopqrst' | wordwrap(8) }}
{{ '---------- x' | wordwrap(4) }}
{{ 'caf\u00e9 caf\u00e9 caf\u00e9 caf\u00e9' | wordwrap(9) }}
{{ '\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9' | wordwrap(3) }}
{{ 'line1\r\nline2\rline3' | wordwrap(20, wrapstring='/') }}
{{ 'end with newline\n' | wordwrap(20, wrapstring='/') }}
{{ '' | wordwrap }}
{{ '\n' | wordwrap(5, wrapstring='/') }}
{{ 'a b' | wordwrap(0) }}
{{ '' | wordwrap(0) }}
{{ 'a b' | wordwrap(-1) }}
{{ 5 | wordwrap }}
{{ 'ab cd' | wordwrap(1) }}
{{ 'ab cd' | wordwrap(2) }}
{{ 'one two three four' | wordwrap(width=9, wrapstring='<br>') }}
{{ 'x' * 100 | wordwrap(30) }}
{{ text | wordwrap(7) }}
{{ 'e.g. one-two, three--four' | wordwrap(5) }}
{{ lines | wordwrap(3) }}
{{ lines | wordwrap(1, wrapstring='+') }}
"""
# wordwrap over real line breaks (text mode reads the escapes)
text += [
    "{{ 'a\\nb c d e f\\n\\ng' | wordwrap(3) }}",
    "{{ 'line1\\r\\nline2\\rline3\\x0bline4\\x1cline5' | wordwrap(20, wrapstring='/') }}",
    "{{ 'end with newline\\n' | wordwrap(20, wrapstring='/') }}",
    "{{ '\\n' | wordwrap(5, wrapstring='/') }}",
    "{{ '\\n\\n' | wordwrap(5, wrapstring='/') }}",
    "{{ 'tabs\\there\\tand more words' | wordwrap(6) }}",
    "{{ 'caf\\u00e9 caf\\u00e9 caf\\u00e9 caf\\u00e9' | wordwrap(9) }}",
    "{{ '\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9' | wordwrap(3) }}",
    "{{ '\\u00e9\\u00e9\\u00e9-\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9' | wordwrap(5) }}",
    "{{ 'a\\u2028b\\u2029c\\x85d' | wordwrap(5, wrapstring='/') }}",
    "{{ 'x\\u00a0y z' | wordwrap(2) }}",
]
# Jinja2's pprint (filters-pprint.c)
typed += r"""
{{ d | pprint }}
{{ users | pprint }}
{{ objs | pprint }}
{{ hostvars | pprint }}
{{ 5 | pprint }}
{{ 'x' | pprint }}
{{ none | pprint }}
{{ 1.5 | pprint }}
{{ range(40) | list | pprint }}
{{ objs * 3 | pprint }}
{{ (objs * 3) | pprint }}
{{ {'zeta': range(30) | list, 'alpha': 'short', 'mid': {'k': range(25) | list}} | pprint }}
{{ ('word ' * 40) | pprint }}
{{ ['word ' * 40] | pprint }}
{{ {'k': 'word ' * 40} | pprint }}
{{ ['a' * 100] | pprint }}
{{ [[1, 2], [3, [4, 5]], 'x' * 70] | pprint }}
{{ groups | pprint }}
{{ [] | pprint }}
{{ {} | pprint }}
{{ '' | pprint }}
{{ {'b': 1, 'a': 2, 'B': 3} | pprint }}
{{ unicode | pprint }}
{{ [unicode * 30] | pprint }}
{{ {'x': none, 'y': true, 'z': [1.5, 'q']} | pprint }}
{{ [{'name': 'n' * 50, 'items': range(12) | list}, {'name': 'm', 'items': []}] | pprint }}
{{ 'aaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb cc' | pprint }}
{{ range(100) | list | map('string') | list | pprint }}
"""
# pprint layouts (text mode: typed mode reads most of them back as values)
text += [
    "{{ 'line one\\nline two ' ~ ('z' * 80) ~ '\\nthree' | pprint }}",
    "{{ ['line one\\nline two ' ~ ('z' * 80) ~ ' end\\nthree'] | pprint }}",
    "{{ {'k': 'a\\tb ' * 30} | pprint }}",
    '{{ d | pprint }}',
    '{{ \'it\\\'s "q" \' * 12 | pprint }}',
    '{{ users | pprint }}',
    '{{ objs | pprint }}',
    '{{ hostvars | pprint }}',
    '{{ 5 | pprint }}',
    "{{ 'x' | pprint }}",
    '{{ none | pprint }}',
    '{{ 1.5 | pprint }}',
    '{{ range(40) | list | pprint }}',
    '{{ (objs * 3) | pprint }}',
    "{{ {'zeta': range(30) | list, 'alpha': 'short', 'mid': {'k': range(25) | list}} | pprint }}",
    "{{ ('word ' * 40) | pprint }}",
    "{{ ['word ' * 40] | pprint }}",
    "{{ {'k': 'word ' * 40} | pprint }}",
    "{{ ['a' * 100] | pprint }}",
    "{{ [[1, 2], [3, [4, 5]], 'x' * 70] | pprint }}",
    '{{ groups | pprint }}',
    '{{ [] | pprint }}',
    '{{ {} | pprint }}',
    "{{ '' | pprint }}",
    "{{ {'b': 1, 'a': 2, 'B': 3} | pprint }}",
    '{{ unicode | pprint }}',
    '{{ [unicode * 30] | pprint }}',
    "{{ {'x': none, 'y': true, 'z': [1.5, 'q']} | pprint }}",
    "{{ [{'name': 'n' * 50, 'items': range(12) | list}, {'name': 'm', 'items': []}] | pprint }}",
    "{{ 'aaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb cc' | pprint }}",
    "{{ range(100) | list | map('string') | list | pprint }}",
    '{{ (\'it\\\'s "q" \' * 12) | pprint }}',
    "{{ [['a', ('b ' * 37) ~ 'b']] | pprint }}",
    "{{ [['a', ('b ' * 36) ~ 'b']] | pprint }}",
    "{{ [{'k': ('b ' * 34) ~ 'bbb', 'j': 1}] | pprint }}",
    "{{ [{'j': 1, 'k': ('b ' * 34) ~ 'bbb'}] | pprint }}",
    "{{ [('b ' * 37) ~ 'b', 'a'] | pprint }}",
]
# call arguments spread from a list (*) and a dict (**), as Jinja2 allows
# (the loops target: lookup("list", wantlist=True, *phrases))
typed += r"""
{{ lookup('list', wantlist=True, *names) }}
{{ range(*[1, 4]) | list }}
{{ l | join(**{'d': '-'}) }}
{{ 'x,y'.split(*[',']) }}
{{ dict(**d, e=5) | length if false else dict(e=5, **d) | length }}
"""
errors += r"""
{{ range(*[1], *[2]) }}
{{ range(1, **{'x': 1}, 2) }}
"""
# the type tests on an undefined value: false, as Jinja's isinstance and
# `is` checks are for Ansible's undefined; iterable uses the value and fails
conds += "\nundef_x is sequence\nundef_x is number\nundef_x.y is string\nundef_x is mapping\nundef_x is none\nundef_x is true\nundef_x is false\nundef_x is integer\nundef_x is float\nundef_x is boolean\nundef_x is sameas(none)\nundef_x is iterable\n"
# NaN and the infinities, which Python floats hold (test_mathstuff asserts
# 'nan' | float is nan): their text, arithmetic, comparisons, conversions,
# JSON/YAML both ways. N, I, M are made from a variable, since Jinja folds
# constant expressions when it compiles and a folded NaN used further on
# is written into Python code as the bare name nan, which fails there.
N = "((es ~ 'nan') | float)"
I = "((es ~ 'inf') | float)"
M = "((es ~ '-inf') | float)"
nan_typed = [
 "{{ 'nan' | float }}", "{{ 'NaN' | float }}", "{{ ' -Infinity ' | float }}", "{{ '+nan' | float }}",
 "{{ '1_000.5' | float }}", "{{ '0x10' | float }}", "{{ 'nan(1)' | float }}", "{{ '1e999' | float }}", "{{ '1__0' | float }}",
 "{{ %s }}" % N, "{{ %s }}" % I, "{{ %s }}" % M, "{{ [1.0, %s] }}" % I, "{{ {'k': %s} }}" % M,
 "{{ %s - %s }}" % (I, I), "{{ 1 / %s }}" % I, "{{ %s * 0 }}" % I, "{{ %s // 1 }}" % I, "{{ %s %% 2 }}" % I,
 "{{ 2 %% %s }}" % I, "{{ -2 %% %s }}" % I, "{{ -1 // %s }}" % I, "{{ 1 // %s }}" % I, "{{ 7.5 // 2 }}", "{{ -7.5 // 2 }}", "{{ -7.5 % 2 }}",
 "{{ %s | int }}" % N, "{{ %s | int }}" % I, "{{ 'inf' | int }}", "{{ 'nan' | int }}", "{{ %s | round }}" % N, "{{ %s | round(2) }}" % I,
 "{{ 1e308 | round(2) }}", "{{ [%s, 1] | max }}" % N, "{{ [1, %s] | max }}" % N, "{{ [%s, 1] | min }}" % N, "{{ [%s, 1, %s] | sort }}" % (I, M),
 "{{ %s | abs }}" % M, "{{ %s | log }}" % I, "{{ %s | log }}" % N, "{{ %s | pow(0) }}" % N, "{{ 10 | pow(400) }}", "{{ -8 | pow(0.5) }}", "{{ -4 | root }}",
 "{{ %s | string }}" % N, "{{ %s ~ 'x' }}" % I, "{{ [%s, %s] | string }}" % (N, I), "{{ %s | type_debug }}" % N,
 "{{ {'a': %s, 'b': %s, 'c': %s} | to_json }}" % (N, I, M), "{{ {'a': %s} | to_nice_json }}" % N, "{{ %s | to_yaml }}" % N, "{{ [%s, %s] | to_yaml }}" % (I, M),
 "{{ '[NaN, Infinity, -Infinity]' | from_json }}", "{{ '{\"a\": NaN, \"b\": \"NaN\"}' | from_json }}", "{{ '1e999' | from_json }}", "{{ '-1e999' | from_json }}",
 "{{ ('[NaN]' | from_json)[0] is nan }}", "{{ '.nan' | from_yaml }}", "{{ '[.inf, -.inf]' | from_yaml }}", "{{ [%s] | sum }}" % N, "{{ [%s, %s] | sum }}" % (I, M),
 "{{ %s | bool }}" % N, "{{ 10.0 ** 400 }}", "{{ 1e308 * 10 }}", "{{ %s | human_readable }}" % N,
]
nan_conds = [
 "'nan' | float is nan", "'nan' | float is isnan", "'bad' is not nan", "1.1 | float is not nan", "%s is nan" % N, "%s is nan" % I,
 "%s == %s" % (N, N), "%s != %s" % (N, N), "%s < 1" % N, "%s <= 1" % N, "%s > 1" % N, "%s >= 1" % N, "%s == %s" % (I, I), "%s > 1e308" % I,
 "%s < %s" % (M, I), "%s is number" % N, "%s is float" % I, "%s is integer" % I, "%s" % N, "%s in [%s]" % (N, N), "[%s] == [%s]" % (N, N),
 "%s is divisibleby(2)" % I, "7.5 is divisibleby(2.5)", "1.5 is odd", "3.0 is odd", "-3 is odd", "4.0 is even", "-7 is divisibleby(-1)",
 "'x' is odd", "3 is divisibleby(0)", "3.0 is divisibleby(0)", "%s is odd" % I, "-1.5 is divisibleby(-0.5)", "%s is lt(1)" % N, "%s is le(1)" % N, "%s is ge(1)" % N, "[%s] <= [1]" % N,
]
typed += "\n" + "\n".join(nan_typed) + "\n"
conds += "\n" + "\n".join(nan_conds) + "\n"
cases = []
for t in [x for x in typed.split('\n') if x]:
    cases.append({"vars": V, "mode": "typed", "tmpl": t})
for t in [x for x in errors.split('\n') if x]:
    cases.append({"vars": V, "mode": "typed", "tmpl": t})
for t in text + textonly_errors:
    cases.append({"vars": V, "mode": "text", "tmpl": t})
for t in [x for x in conds.split('\n') if x]:
    cases.append({"vars": V, "mode": "cond", "tmpl": t})
json.dump(cases, open('cases.json', 'w'))
print(len(cases))
