#!/bin/sh
# t4133: the INI inventory reader's fuzz harness (fuzz-inventory: sections,
# shlex host lines, Python literal values, host ranges, the run's groups)
# on its committed inputs (tests/fuzz/corpus/fuzz-inventory and the
# regression inputs) and, in the fuzz build, a short fuzzing run from them
# (tests/cli/fuzz-lib.sh). Longer runs: scripts/fuzz 600 fuzz-inventory.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-inventory
done_testing
