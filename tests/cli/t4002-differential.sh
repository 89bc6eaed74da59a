#!/bin/sh
# t4002: the shared differential scenarios (real ansible-playbook golden
# results) reproduced by imc play --connection local: same files, same
# registered results, same recap.
. "$top_srcdir/tests/cli/lib.sh"
DIFF=$top_srcdir/../shared/research/differential-tests
[ -d "$DIFF/scenarios" ] || skip_all "no shared differential tests at $DIFF"
PY=${PYTHON3:-python3}
command -v "$PY" >/dev/null 2>&1 || skip_all "python3 is needed by compare.py"
PYTHON3=$PY sh "$top_srcdir/tests/differential/run.sh" "$IMC" "$DIFF" "$TMPD/out-diff" >"$TMPD/diff.txt" 2>&1
for name in $(cd "$DIFF/scenarios" && ls -d */ | tr -d /); do
	if grep -q "^PASS $name\$" "$TMPD/diff.txt"; then ok "$name"
	else
		not_ok "$name"
		sed -n "/^FAIL $name\$/,/^[PF]A[SI][SL] /p" "$TMPD/diff.txt" | head -30 | sed 's/^/#  /'
	fi
done
done_testing
