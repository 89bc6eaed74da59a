#!/bin/sh
# t0001: the imc skeleton: help, version, usage errors and exit codes.
. "$top_srcdir/tests/cli/lib.sh"

expect_exit 0 "imc --help exits 0" -- "$IMC" --help
expect_grep '^usage: imc' "$TMPD/out" "--help prints usage on stdout"
expect_grep 'getstate' "$TMPD/out" "--help lists the commands"
expect_exit 0 "imc --version exits 0" -- "$IMC" --version
expect_grep '^imc [0-9]+\.[0-9]+' "$TMPD/out" "--version prints the version"
expect_exit 0 "imc help create exits 0" -- "$IMC" help create
expect_grep 'usage: imc .*create' "$TMPD/out" "help create shows create's usage"
expect_exit 64 "unknown command is a usage error" -- "$IMC" frobnicate
expect_grep "unknown command 'frobnicate'" "$TMPD/err" "unknown command is named"
expect_exit 64 "no command is a usage error" -- "$IMC"
expect_exit 64 "unknown global option is a usage error" -- "$IMC" --bogus
expect_exit 64 "help of an unknown command is a usage error" -- "$IMC" help frobnicate
expect_exit 0 "every command answers -h" -- sh -c 'for c in validate radl plan create getstate destroy play; do "$0" "$c" -h >/dev/null || exit 1; done' "$IMC"
done_testing
