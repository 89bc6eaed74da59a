#!/bin/sh
# tests/unit/valgrind.sh: the LOG_COMPILER of the unit tests in a build
# configured with --enable-valgrind: runs one test program under valgrind's
# memcheck, so that an invalid read or write, a use of uninitialised
# memory or a leak fails the test (exit status 99, automake's hard error)
# even when every cmocka assertion passed.
#
# Leaks: definite, indirect and possible ones are errors; memory still
# reachable at exit (libraries' global state) is not a leak. Forked
# children are not checked (--child-silent-after-fork): the tests fork only
# to exec a command (system(), sshd), whose half-copied parent heap
# would otherwise be reported as the child's. Each suppression in
# valgrind.supp says why it is there.
#
# usage: valgrind.sh TEST-PROGRAM [ARGS...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec "${VALGRIND:-valgrind}" --quiet --tool=memcheck --error-exitcode=99 \
	--leak-check=full --show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible \
	--track-origins=yes --child-silent-after-fork=yes \
	--suppressions="$here/valgrind.supp" --gen-suppressions=all \
	"$@"
