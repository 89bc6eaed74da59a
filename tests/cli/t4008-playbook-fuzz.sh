#!/bin/sh
# t4008: the recipe loader's fuzz harness (fuzz-playbook: a configure
# block's YAML into plays and tasks, with and without IM's header) on its
# committed inputs (seeds that use the loader's keywords,
# tests/fuzz/corpus/fuzz-playbook, and the regression inputs) and, in the
# fuzz build, a short fuzzing run from them (tests/cli/fuzz-lib.sh).
# Longer runs: scripts/fuzz 600 fuzz-playbook.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-playbook
done_testing
