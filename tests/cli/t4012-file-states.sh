#!/bin/sh
# t4012: the file module against Ansible's own: every state (file,
# directory, link, hard, touch, absent, none) over every kind of existing
# path (absent, file, empty and non-empty directory, link, dangling link,
# link to a directory, hard links), with force, follow and mode, must give
# the same changed, failed, msg, returned keys and resulting files. Live
# against ansible-playbook outside the sanitizer pass, else against the
# results recorded from it (t4012-file-states.golden.json, written by
# t4012-file-states.py --record).
. "$top_srcdir/tests/cli/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mode=""
[ "${IMC_TEST_LONG:-1}" = 1 ] && mode=--live
"$PY" "$top_srcdir/tests/cli/t4012-file-states.py" "$IMC" "$TMPD/work" \
	"$top_srcdir/tests/cli/t4012-file-states.golden.json" $mode
