# tests/cli/fuzz-lib.sh: short runs of libFuzzer harnesses (sourced after
# lib.sh). The harnesses are built only with CC=clang --enable-fuzzing;
# without them the test is skipped.

# fuzz_require NAME...: skips the test unless tests/fuzz/NAME are built.
fuzz_require() {
	for h in "$@"; do
		[ -x "$top_builddir/tests/fuzz/$h" ] ||
			skip_all "tests/fuzz/$h not built (configure with CC=clang --enable-fuzzing)"
	done
}

# fuzz_run NAME SEEDS MAXLEN: 3000 runs of tests/fuzz/NAME from the seed
# files in directory SEEDS (a fixed -seed, so a run can be repeated); one
# check, with the harness's report when it found something.
fuzz_run() {
	local name=$1 seeds=$2 maxlen=$3
	mkdir -p "$TMPD/corpus-$name"
	if "$top_builddir/tests/fuzz/$name" -runs=3000 -seed=1 -max_len="$maxlen" \
		"$TMPD/corpus-$name" "$seeds" >"$TMPD/$name.log" 2>&1; then
		ok "$name: 3000 runs without a crash"
	else
		not_ok "$name found a problem"; tail -30 "$TMPD/$name.log" | sed 's/^/#   /'
	fi
}
