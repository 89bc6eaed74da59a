# tests/cli/fuzz-lib.sh: the fuzz harnesses in make check (sourced after
# lib.sh). Every build runs each harness on its committed inputs (seed
# corpus and regression inputs, tests/fuzz/harnesses.sh): the fuzz build
# (CC=clang --enable-fuzzing) with the libFuzzer binary tests/fuzz/NAME,
# every other build with the plain replay driver tests/fuzz/replay-NAME
# (tests/fuzz/replay.c, under ASan in the sanitizer pass), so that a
# crash once found stays fixed in every pass. The fuzz build also gives
# the harness a short fuzzing run of a fixed number of executions.
. "$top_srcdir/tests/fuzz/harnesses.sh"

# executions of the short fuzzing run (fixed, and a fixed -seed, so that a
# run can be repeated); scripts/fuzz makes the long ones
FUZZ_RUNS=3000

# fuzz_test NAME...: for each harness, one check that it ran every committed
# input without a problem and, in the fuzz build, one that FUZZ_RUNS
# executions found nothing.
fuzz_test() {
	local h
	for h in "$@"; do
		fuzz_seeds "$h" "$top_srcdir" "$TMPD/seeds-$h"
		if [ -x "$top_builddir/tests/fuzz/$h" ]; then
			fuzz_replay "$h" "$top_builddir/tests/fuzz/$h"
			fuzz_run "$h"
		elif [ -x "$top_builddir/tests/fuzz/replay-${h#fuzz-}" ]; then
			fuzz_replay "$h" "$top_builddir/tests/fuzz/replay-${h#fuzz-}"
		else
			not_ok "$h: neither tests/fuzz/$h nor tests/fuzz/replay-${h#fuzz-} is built"
		fi
	done
}

# fuzz_replay NAME BINARY: runs BINARY once on every seed file, and checks
# that it ran them all (a libFuzzer binary given files runs each once).
fuzz_replay() {
	local h=$1 bin=$2 n ran
	find "$TMPD/seeds-$h" -type f | sort >"$TMPD/inputs-$h"
	n=$(wc -l <"$TMPD/inputs-$h")
	# shellcheck disable=SC2046
	if "$bin" $(cat "$TMPD/inputs-$h") >"$TMPD/replay-$h.log" 2>&1; then
		# replay.c says "replay: N inputs", libFuzzer "Executed FILE" for each
		ran=$(sed -n 's/^replay: \([0-9]*\) inputs without a problem$/\1/p' "$TMPD/replay-$h.log")
		[ -n "$ran" ] || ran=$(grep -c '^Executed .* in [0-9]* ms$' "$TMPD/replay-$h.log")
		if [ "$n" -gt 0 ] && [ "$ran" = "$n" ]; then
			ok "$h: its $n committed inputs run without a problem"
		else
			not_ok "$h: ran $ran of its $n committed inputs"; tail -5 "$TMPD/replay-$h.log" | sed 's/^/#   /'
		fi
	else
		not_ok "$h: a committed input fails"; tail -30 "$TMPD/replay-$h.log" | sed 's/^/#   /'
	fi
}

# fuzz_run NAME: FUZZ_RUNS executions of tests/fuzz/NAME from its seeds.
fuzz_run() {
	local h=$1
	mkdir -p "$TMPD/corpus-$h"
	if "$top_builddir/tests/fuzz/$h" -runs=$FUZZ_RUNS -seed=1 -max_len="$(fuzz_max_len "$h")" \
		-artifact_prefix="$TMPD/" "$TMPD/corpus-$h" "$TMPD/seeds-$h" >"$TMPD/$h.log" 2>&1; then
		ok "$h: $FUZZ_RUNS runs without a crash"
	else
		not_ok "$h found a problem"; tail -30 "$TMPD/$h.log" | sed 's/^/#   /'
	fi
}
