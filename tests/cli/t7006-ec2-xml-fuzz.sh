#!/bin/sh
# t7006: the ec2 reply readers' fuzz harness (fuzz-ec2-xml: error
# documents, instance lists, set values) on its committed inputs
# (tests/fuzz/corpus/fuzz-ec2-xml, the recorded EC2 replies in
# tests/vectors/ec2, and the regression inputs) and, in
# the fuzz build, a short fuzzing run from them (tests/cli/fuzz-lib.sh).
# Longer runs: scripts/fuzz 600 fuzz-ec2-xml.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_test fuzz-ec2-xml
done_testing
