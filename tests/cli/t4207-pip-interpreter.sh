#!/bin/sh
# t4207: pip without executable or virtualenv runs the pip module of the
# host's Python, `INTERPRETER -m pip.__main__`, as Ansible's _get_pip does,
# and pip3 on PATH only when that Python has no pip (imc ran the first pip3
# on PATH, another Python's, so it installed where the play's modules do
# not look). Fake interpreters record how they are called.
. "$top_srcdir/tests/cli/lib.sh"
D="$TMPD/pb"
mkdir -p "$D/bin"
cd "$D" || exit 1
# a Python whose pip module is there (has_pip=0) or not, and a pip3
mkpy() {
	cat >"$1" <<EOF_PY
#!/bin/sh
echo "\$(basename "\$0") \$*" >>"$D/calls"
case "\$1" in -c) exit $2 ;; esac
exit 0
EOF_PY
	chmod +x "$1"
}
mkpy "$D/py-with-pip" 0
mkpy "$D/py-without-pip" 1
mkpy "$D/bin/pip3" 0
cat >p.yml <<'EOF_PB'
- hosts: localhost
  gather_facts: false
  tasks:
    - pip: { name: somepkg }
EOF_PB
: >"$D/calls"
expect_exit 0 "pip with a Python that has pip" -- env PATH="$D/bin:$PATH" "$IMC" play p.yml --no-fallback -e ansible_python_interpreter="$D/py-with-pip"
expect_grep '^py-with-pip -m pip.__main__ install -q somepkg$' "$D/calls" "... runs that Python's pip module"
if grep -q '^pip3' "$D/calls"; then not_ok "... and not pip3 on PATH"; else ok "... and not pip3 on PATH"; fi
: >"$D/calls"
expect_exit 0 "pip with a Python without pip" -- env PATH="$D/bin:$PATH" "$IMC" play p.yml --no-fallback -e ansible_python_interpreter="$D/py-without-pip"
expect_grep '^pip3 install -q somepkg$' "$D/calls" "... runs pip3 from PATH"
done_testing
