#!/bin/sh
# t1004: the RADL parser's fuzz harness (fuzz-radl: RADL text and
# RADL-JSON, with the round trips 'imc radl' promises) on its committed
# inputs (tests/radl, the conformance corpus when present, the regression
# inputs) and, in the fuzz build, a short fuzzing run from them
# (tests/cli/fuzz-lib.sh). Longer runs: scripts/fuzz 600 fuzz-radl.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-radl
done_testing
