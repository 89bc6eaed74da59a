#!/bin/sh
# t6007: imc-train's fuzz harnesses: the wire protocol decoders (fuzz-wire)
# and the cluster and model spec readers (fuzz-trainer-config), each on its
# committed inputs (a selector byte, then a valid message or file:
# tests/fuzz/corpus, and the regression inputs) and, in the fuzz build, a
# short fuzzing run from them (tests/cli/fuzz-lib.sh). Longer runs:
# scripts/fuzz 600 fuzz-wire fuzz-trainer-config.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-wire fuzz-trainer-config
done_testing
