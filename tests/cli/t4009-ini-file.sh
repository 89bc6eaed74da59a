#!/bin/sh
# t4009: the ini_file module (community.general's, which IM's recipes use)
# against Ansible's own: 28 cases of starting file and arguments (set,
# add, commented-out and duplicate options, values lists, absent options and
# sections, the lines before any section, new files and directories, no
# final newline, error messages) must give the same file, changed, failed
# and msg. Live against ansible-playbook when it has the module, else
# against the results recorded from it (t4009-ini-file.golden.json).
. "$top_srcdir/tests/cli/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mode=""
# live costs ~15 s of ansible-playbook: not in the sanitizer pass
if [ "${IMC_TEST_LONG:-1}" = 1 ] && command -v ansible-doc >/dev/null 2>&1 &&
	timeout 60 ansible-doc -t module ini_file >/dev/null 2>&1; then
	mode=--live
fi
"$PY" "$top_srcdir/tests/cli/t4009-ini-file.py" "$IMC" "$TMPD/work" \
	"$top_srcdir/tests/cli/t4009-ini-file.golden.json" $mode
