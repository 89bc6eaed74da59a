#!/bin/sh
# t4002: the differential scenarios (tests/differential: real
# ansible-playbook golden results) reproduced by imc play --connection
# local, without fallback: same files, same registered results, same recap.
. "$top_srcdir/tests/cli/lib.sh"
DIFF=$top_srcdir/tests/differential
PY=${PYTHON3:-python3}
# both are in the repository and scripts/install-deps: missing is a failure
[ -d "$DIFF/scenarios" ] && [ -d "$DIFF/golden/local" ] && ok "the scenarios and golden runs are here" ||
	{ not_ok "no differential scenarios at $DIFF"; exit 1; }
command -v "$PY" >/dev/null 2>&1 && ok "python3 for compare.py" || { not_ok "no $PY for compare.py"; exit 1; }
PYTHON3=$PY sh "$top_srcdir/tests/differential/run.sh" "$IMC" "$DIFF" "$TMPD/out-diff" >"$TMPD/diff.txt" 2>&1
for name in $(cd "$DIFF/scenarios" && ls -d */ | tr -d /); do
	if grep -q "^PASS $name\$" "$TMPD/diff.txt"; then ok "$name"
	else
		not_ok "$name"
		sed -n "/^FAIL $name\$/,/^[PF]A[SI][SL] /p" "$TMPD/diff.txt" | head -30 | sed 's/^/#  /'
	fi
done
done_testing
