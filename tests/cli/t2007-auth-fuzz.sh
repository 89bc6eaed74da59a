#!/bin/sh
# t2007: the auth file reader's fuzz harness (fuzz-auth: never a crash,
# never a secret in what is printed) on its committed inputs (IM's line
# format and the JSON form, tests/fuzz/corpus/fuzz-auth, and the regression
# inputs) and, in the fuzz build, a short fuzzing run from them
# (tests/cli/fuzz-lib.sh). Longer runs: scripts/fuzz 600 fuzz-auth.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-auth
done_testing
