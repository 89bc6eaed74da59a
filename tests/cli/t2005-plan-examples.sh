#!/bin/sh
# t2005: 'imc plan' of every valid RADL of the conformance corpus
# (tests/radl/conformance; IM's own examples first of all) succeeds, in
# text and --json; and the plan of known files says what IM would do
# (numbering, names, steps).
. "$top_srcdir/tests/cli/lib.sh"
# IM's examples name Galaxy roles that only ansible-playbook can run: plan
# must accept them as IM does, so the fallback is on here
export IMC_NO_FALLBACK=0
C="$top_srcdir/tests/radl/conformance"
R="$top_srcdir/tests/cli/data"
: "${PYTHON3:=python3}"

expect_exit 0 "plan of the test cluster" -- "$IMC" plan "$R/t2-cluster.radl"
expect_grep '^  VM 0: system front, front.localdomain, cloud dummy' "$TMPD/out" "VM 0 is the front"
expect_grep '^  VM 2: system wn, wn-2.cluster, cloud dummy' "$TMPD/out" "#N# and the domain of wn-2"
expect_grep '^  step 1: front on VM 0' "$TMPD/out" "the front's own configure runs at step 1"
expect_exit 0 "plan --cloud local" -- "$IMC" plan --cloud local --json "$R/t2-cluster.radl"
expect_no_grep '"cloud": "dummy"' "$TMPD/out" "--cloud retargets every system"
[ -n "$(ls -A "$IMC_HOME" 2>/dev/null)" ] && not_ok "plan creates nothing" || ok "plan creates nothing"

# the corpus is part of the repository: without it the test fails
[ -f "$C/im_example_hadoop.radl" ] && ok "the conformance corpus is here" ||
	{ not_ok "no conformance corpus at $C"; exit 1; }
n=0; bad=0
for f in "$C"/*.radl; do
	e=${f%.radl}.expected.json
	"$PYTHON3" -c 'import json,sys; sys.exit(0 if isinstance(json.load(open(sys.argv[1])), list) else 1)' "$e" || continue
	case $(basename "$f") in
	im_example_*|imtest_*|imload_*) ;;
	*) "$IMC" validate "$f" >/dev/null 2>&1 || continue ;; # the parser's business, tested there
	esac
	n=$((n + 1))
	if ! "$IMC" plan "$f" >"$TMPD/p.out" 2>"$TMPD/p.err" || ! "$IMC" plan --json "$f" >"$TMPD/p.json" 2>>"$TMPD/p.err" ||
	   ! "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["format"] == 1 and "vms" in d' "$TMPD/p.json"; then
		bad=$((bad + 1)); echo "# plan failed: $(basename "$f")"; sed 's/^/#   /' "$TMPD/p.err" | head -5
	fi
done
[ "$n" -gt 20 ] && ok "$n valid corpus files found" || not_ok "only $n valid corpus files found"
[ "$bad" -eq 0 ] && ok "plan succeeds on every valid file" || not_ok "plan failed on $bad of $n files"

expect_exit 0 "plan of IM's hadoop example" -- "$IMC" plan "$C/im_example_hadoop.radl"
expect_grep 'VM 0: system front, hadoopmaster.localdomain' "$TMPD/out" "hadoop: the master's name"
expect_grep 'VM 2: system wn, wn-2.localdomain' "$TMPD/out" "hadoop: wn-#N# numbered across the infrastructure"
expect_exit 0 "plan of a contextualize with steps" -- "$IMC" plan --json "$C/contextualize_full.radl"
"$PYTHON3" -c '
import json,sys
d=json.load(open(sys.argv[1]))
steps=[s["step"] for s in d["contextualize"]["steps"]]
assert steps == sorted(steps), steps
' "$TMPD/out" && ok "steps are in ascending order" || not_ok "steps are in ascending order"
expect_exit 0 "plan of contextualize ()" -- "$IMC" plan "$C/contextualize_empty.radl"
expect_grep '^Contextualization: disabled$' "$TMPD/out" "contextualize () disables contextualization"
done_testing
