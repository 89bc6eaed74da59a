#!/bin/sh
# t4007: the templating engine's fuzz harnesses: fuzz-template (templates,
# task-argument text, result typing) and fuzz-expr (bare expressions, the
# static check, Python literals), each on its committed inputs (seeds that
# reach filters, tests, loops and lookups, tests/fuzz/corpus, and the
# regression inputs) and, in the fuzz build, a short fuzzing run from them
# (tests/cli/fuzz-lib.sh). Longer runs: scripts/fuzz 600 fuzz-template fuzz-expr.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-template fuzz-expr
done_testing
