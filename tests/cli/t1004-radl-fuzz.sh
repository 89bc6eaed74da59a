#!/bin/sh
# t1004: a short run of the RADL fuzz harness (built with --enable-fuzzing)
# over a seed corpus made of tests/radl and, when present, the conformance
# corpus. Longer runs: tests/fuzz/fuzz-radl -max_total_time=60 DIR.
. "$top_srcdir/tests/cli/lib.sh"

fuzzer="$top_builddir/tests/fuzz/fuzz-radl"
[ -x "$fuzzer" ] || skip_all "fuzz-radl not built (configure with CC=clang --enable-fuzzing)"
mkdir -p "$TMPD/corpus" "$TMPD/seeds"
cp "$top_srcdir"/tests/radl/*.radl "$TMPD/seeds/"
corpus="$top_srcdir/../shared/conformance/radl"
[ -d "$corpus" ] && cp "$corpus"/*.radl "$TMPD/seeds/"
if "$fuzzer" -runs=2000 -seed=1 -max_len=4096 "$TMPD/corpus" "$TMPD/seeds" >"$TMPD/log" 2>&1; then
	ok "fuzz-radl: 2000 runs without a crash"
else
	not_ok "fuzz-radl found a problem"; tail -30 "$TMPD/log" | sed 's/^/#   /'
fi
done_testing
