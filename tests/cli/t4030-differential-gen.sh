#!/bin/sh
# t4030: a fixed-seed sample of the generated differential cases
# (tests/differential/gen: 60 cases over every generated module, seed
# 4030) run live by ansible-playbook -c local and by imc play
# --no-fallback on the same initial trees: every case gives the same
# registered results and files, both runs (the second is the idempotence
# check). A case listed in gen/known-divergent (with why) is a divergence
# not fixed yet: it must still diverge, so that a fix removes it from the
# list rather than hiding a new one behind it. The long run (1000 cases and
# more) is `tests/differential/gen/run.sh`, outside make check.
. "$top_srcdir/tests/cli/lib.sh"
GEN=$top_srcdir/tests/differential/gen
PY=/usr/bin/python3
command -v ansible-playbook >/dev/null 2>&1 && ok "ansible-playbook to compare with" ||
	{ not_ok "needs ansible-playbook (scripts/install-deps: ansible-core, ansible)"; exit 1; }
PYTHON3=$PY sh "$GEN/run.sh" -n 60 -b 30 -s 4030 -j 2 --show 1000 --imc "$IMC" -o "$TMPD/work" \
	>"$TMPD/out.txt" 2>&1
rc=$?
sed -n '/^total /p' "$TMPD/out.txt" | sed 's/^/# /'
grep -q '^total  *cases=60 ' "$TMPD/out.txt" && ok "60 cases compared" ||
	{ not_ok "the run compared no 60 cases (rc=$rc)"; sed 's/^/#  /' "$TMPD/out.txt" | head -40; }
known=$(sed -n 's/^\(c[0-9][0-9]*\) .*/\1/p' "$GEN/known-divergent")
divergent=$(sed -n 's/^--- [a-z_]* \(c[0-9][0-9]*\) .*/\1/p' "$TMPD/out.txt")
for c in $divergent; do
	case " $(echo $known) " in
	*" $c "*) ;;
	*)	not_ok "$c diverges from Ansible"
		sed -n "/^--- [a-z_]* $c /,/^---/p" "$TMPD/out.txt" | head -30 | sed 's/^/#  /' ;;
	esac
done
for c in $known; do
	case " $(echo $divergent) " in
	*" $c "*) ok "$c still diverges, as gen/known-divergent says" ;;
	*) not_ok "$c no longer diverges: take it out of gen/known-divergent" ;;
	esac
done
[ -z "$divergent" ] && ok "no case diverges"
grep -q "^--- " "$TMPD/out.txt" || [ "$rc" -eq 0 ] && ok "run.sh's exit status agrees" ||
	not_ok "run.sh exited $rc with no divergence shown"
done_testing
