#!/bin/sh
# tests/differential/run.sh: runs the differential scenarios (scenarios/
# and golden/ next to this file) with `imc play --connection local`,
# twice on the same scratch directory as the golden runs were made, then
# normalizes, snapshots and compares with the golden Ansible results using
# the scenarios' own normalize.py / snapshot.py / compare.py.
# Usage: run.sh IMC DIFFDIR OUTDIR [SCENARIO...]; prints one line per
# scenario ("PASS name" / "FAIL name") and the diff of failures; exits 0
# when all pass. With DIFF_SSH_HOST=USER@ADDR[:PORT] and DIFF_SSH_KEY=FILE
# the plays run over SSH (-c ssh) on that host instead (named localhost, as in the
# golden runs; the scratch directory must be the same path there).
set -u
IMC=$1 DIFF=$2 OUT=$3
shift 3
PY=${PYTHON3:-python3}
[ $# -gt 0 ] || set -- $(cd "$DIFF/scenarios" && ls -d */ | tr -d /)
pass=0 fail=0
for name in "$@"; do
	d=$OUT/$name
	rm -rf "$d"
	mkdir -p "$d/scratch"
	# the golden runs used a scratch dir whose path is replaced by <scratch>;
	# the async dir lives in $HOME: give each scenario its own
	# --no-fallback: a scenario imc stopped loading must fail here, not be
	# run by ansible-playbook and match the golden results that way
	if [ -n "${DIFF_SSH_HOST:-}" ]; then
		set -- --connection ssh -H "localhost=$DIFF_SSH_HOST" --key "$DIFF_SSH_KEY" \
			${DIFF_SSH_KNOWN_HOSTS:+--known-hosts "$DIFF_SSH_KNOWN_HOSTS"}
	else
		set -- --connection local
	fi
	for run in 1 2; do
		(cd "$DIFF/scenarios" && HOME="$d" "$IMC" play --no-fallback "$@" -q \
			-e scratch="$d/scratch" --results "$d/run$run.json" "$name/play.yml") \
			>"$d/run$run.out" 2>"$d/run$run.err"
		echo "rc=$?" >"$d/run$run.rc"
		"$PY" "$DIFF/snapshot.py" "$d/scratch" >"$d/tree$run.json"
		"$PY" "$DIFF/normalize.py" "$d/run$run.json" "$d/scratch" >"$d/run$run.norm.json" 2>"$d/norm$run.err"
	done
	if "$PY" "$DIFF/compare.py" "$DIFF/golden/local/$name" "$d" >"$d/compare.txt" 2>&1; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$d/compare.txt" | head -40
		for run in 1 2; do
			echo "    run $run: $(cat "$d/run$run.rc"); imc play's errors:"
			sed 's/^/      /' "$d/run$run.err" | head -10
		done
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
