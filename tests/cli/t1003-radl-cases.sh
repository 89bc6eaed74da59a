#!/bin/sh
# t1003: imc's own RADL cases in tests/radl: NAME.radl with NAME.json (the
# expected RADL-JSON, compared semantically) or NAME.err (the exact
# diagnostics of 'imc validate', source lines and carets included). Fuzzer
# finds are kept here as regression cases (NAME.err or NAME.json too). A
# NAME.radl may hold RADL-JSON: imc reads either, chosen by content.
. "$top_srcdir/tests/cli/lib.sh"

: "${PYTHON3:=python3}"
command -v "$PYTHON3" >/dev/null 2>&1 || skip_all "python3 is needed to compare JSON"
cd "$top_srcdir/tests/radl" || skip_all "no tests/radl"

for f in *.radl; do
	name=${f%.radl}
	if [ -f "$name.json" ]; then
		if "$IMC" radl --json "$f" >"$TMPD/out" 2>"$TMPD/err" &&
		   "$PYTHON3" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$TMPD/out" "$name.json"; then
			ok "$name: RADL-JSON as expected"
		else
			not_ok "$name: RADL-JSON differs"; sed 's/^/#   /' "$TMPD/err" | head -10
		fi
	elif [ -f "$name.err" ]; then
		"$IMC" validate "$f" >"$TMPD/out" 2>"$TMPD/err"
		rc=$?
		if [ $rc -eq 65 ] && [ ! -s "$TMPD/out" ] && cmp -s "$TMPD/err" "$name.err"; then
			ok "$name: rejected with the expected diagnostics"
		else
			not_ok "$name: exit $rc"; diff "$name.err" "$TMPD/err" | sed 's/^/#   /' | head -20
		fi
	else
		# no expectation: must not crash (fuzz finds): exit 0 or 65
		"$IMC" validate "$f" >/dev/null 2>&1
		rc=$?
		if [ $rc -eq 0 ] || [ $rc -eq 65 ]; then ok "$name: handled (exit $rc)"; else not_ok "$name: exit $rc"; fi
	fi
done
done_testing
