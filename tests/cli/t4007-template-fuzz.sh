#!/bin/sh
# t4007: short runs of the templating engine's fuzz harnesses (built with
# --enable-fuzzing): fuzz-template (templates, task-argument text, result
# typing) and fuzz-expr (bare expressions, the static check, Python
# literals), each from seeds that reach filters, tests, loops and lookups.
# Longer runs: tests/fuzz/fuzz-template -max_total_time=60 DIR.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_require fuzz-template fuzz-expr

mkdir -p "$TMPD/seeds-tmpl" "$TMPD/seeds-expr"
n=0
for t in "{{ s | lower | replace('world', 'x') }}" \
	"{% for o in objs | sort(attribute='n') %}{{ o.name }}{% if not loop.last %},{% endif %}{% endfor %}" \
	"{{ d | dict2items | map(attribute='key') | join(',') }}" \
	"{% set x = l | max %}{{ x * f }} {{ '%05d' | format(i) }} {{ ver is version('1.2', '>=') }}" \
	"{{ t1 }} {{ r.stdout | int + 1 }} {{ (r is changed) | ternary('y', 'n') }}" \
	"{{ names | select('match', '^[ab]') | list | to_json }} {{ lookup('env', 'HOME') | length > 0 }}" \
	"{% raw %}{{ x }}{% endraw %}{# comment #}{{ e | default('empty', true) }}"; do
	n=$((n + 1)); printf '%s' "$t" >"$TMPD/seeds-tmpl/$n"
done
for e in "i > 3 and s is search('W')" "l | sum + (d.b | length)" "r.rc == 0 or r is failed" \
	"[1, 'a', {'k': none}] | length" "names | difference(['a']) | first" \
	"ver is version('2.0', '<') and not (n is defined and n)" "{'a': (1, 2.5e3, -0x10)}"; do
	n=$((n + 1)); printf '%s' "$e" >"$TMPD/seeds-expr/$n"
done

fuzz_run fuzz-template "$TMPD/seeds-tmpl" 2048
fuzz_run fuzz-expr "$TMPD/seeds-expr" 2048
done_testing
