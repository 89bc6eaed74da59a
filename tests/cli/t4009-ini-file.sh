#!/bin/sh
# t4009: the ini_file module (community.general's, which IM's recipes use)
# against Ansible's own: 30 cases of starting file and arguments (set,
# add, commented-out and duplicate options, values lists, absent options and
# sections, the lines before any section (absent too), new files and
# directories, no final newline, error messages) must give the same file,
# changed, failed and msg. Live against ansible-playbook, or in the sanitizer pass against
# the results recorded from it (t4009-ini-file.golden.json).
. "$top_srcdir/tests/cli/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mode=""
# Live against ansible-playbook (community.general's ini_file, from Debian's
# 'ansible' package that scripts/install-deps installs): ~15 s, so not in the
# sanitizer pass (IMC_TEST_LONG=0), which compares with the recorded results.
if [ "${IMC_TEST_LONG:-1}" = 1 ]; then
	if command -v ansible-doc >/dev/null 2>&1 &&
		timeout 60 ansible-doc -t module community.general.ini_file >/dev/null 2>&1; then
		mode=--live
	else
		not_ok "community.general's ini_file is not installed (Debian package 'ansible': scripts/install-deps)"
		exit 1
	fi
fi
"$PY" "$top_srcdir/tests/cli/t4009-ini-file.py" "$IMC" "$TMPD/work" \
	"$top_srcdir/tests/cli/t4009-ini-file.golden.json" $mode
