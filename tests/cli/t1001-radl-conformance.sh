#!/bin/sh
# t1001: the RADL conformance corpus (tests/radl/conformance): every case
# must match the reference's result (compare.py), and every valid case must
# survive RADL -> JSON -> RADL -> JSON unchanged.
. "$top_srcdir/tests/cli/lib.sh"

corpus="$top_srcdir/tests/radl/conformance"
[ -f "$corpus/compare.py" ] || skip_all "no conformance corpus at $corpus"
: "${PYTHON3:=python3}"
command -v "$PYTHON3" >/dev/null 2>&1 || skip_all "python3 is needed to run compare.py"

"$PYTHON3" "$corpus/compare.py" "$IMC" "$corpus" >"$TMPD/compare" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/compare"
if [ $rc -eq 0 ] && grep -qE '^[0-9]+ passed, 0 failed$' "$TMPD/compare"; then
	ok "compare.py: $(tail -n 1 "$TMPD/compare")"
else
	not_ok "compare.py: $(tail -n 1 "$TMPD/compare")"
fi

same_json() {
	"$PYTHON3" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$1" "$2"
}

n=0 bad=0
for f in "$corpus"/*.radl; do
	"$IMC" radl --json "$f" >"$TMPD/j1" 2>/dev/null || continue
	n=$((n + 1))
	if ! "$IMC" radl --radl "$TMPD/j1" >"$TMPD/r2" 2>"$TMPD/e" ||
	   ! "$IMC" radl --json "$TMPD/r2" >"$TMPD/j2" 2>>"$TMPD/e" ||
	   ! same_json "$TMPD/j1" "$TMPD/j2"; then
		bad=$((bad + 1)); echo "# round trip through JSON changed $(basename "$f")"; sed 's/^/#   /' "$TMPD/e" | head -5
	fi
	# RADL text printed from the AST keeps every constraint and means the same
	if ! "$IMC" radl --radl --from radl "$f" >"$TMPD/t1" 2>"$TMPD/e" ||
	   ! "$IMC" radl --json "$TMPD/t1" >"$TMPD/j3" 2>>"$TMPD/e" ||
	   ! same_json "$TMPD/j1" "$TMPD/j3"; then
		bad=$((bad + 1)); echo "# round trip through RADL text changed $(basename "$f")"; sed 's/^/#   /' "$TMPD/e" | head -5
	fi
done
if [ $n -gt 0 ] && [ $bad -eq 0 ]; then ok "round trips of $n valid cases are stable"; else not_ok "round trips: $bad failures over $n cases"; fi
done_testing
