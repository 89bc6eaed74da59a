#!/bin/sh
# t4073: the apt_key module (ansible.builtin.apt_key) run natively by imc
# gives the results ansible-playbook gives (recorded in
# t4073-apt-key.expect): keys added from inline data and from a file (in
# check mode too), found by short, long and full ids (0x, lower case),
# removed, and Ansible's failures (bad data, a missing file, invalid ids,
# mutually exclusive arguments, an id no source provides). Contained: the
# keyring is a file under the test's temp dir (keyring=), and HOME is the
# temp dir too (gpg --with-colons makes ~/.gnupg); apt's own keyrings are
# never read or written. A url or keyserver needs the network and is not
# implemented: the play stops when loaded under --no-fallback (checked).
# IMC_TEST_RECORD=1 runs ansible-playbook instead and rewrites the .expect file.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t407-lib-recorded.sh"
for c in apt-key gpg; do
	command -v $c >/dev/null || { not_ok "needs $c (scripts/install-deps)"; exit 1; }
done
play="$top_srcdir/tests/cli/t4073-apt-key.yml"
expect="$top_srcdir/tests/cli/t4073-apt-key.expect"
d="$TMPD/w"
mkdir -p "$d"
cp "$top_srcdir/tests/cli/t4073-apt-key.k1.asc" "$d/k1.asc"
gpg --dearmor <"$top_srcdir/tests/cli/t4073-apt-key.k2.asc" >"$d/k2.gpg"
expect_exit 0 "the play runs on a keyring in the temp dir" -- \
	env HOME="$d" $run -e d="$d" "$play"
sed "s#$d#@D@#g" "$d/results" >"$TMPD/got"
recorded_check "$TMPD/got" "$expect" "results as ansible-playbook's"

cat >"$TMPD/url.yml" <<EOY
- hosts: all
  gather_facts: false
  tasks:
    - apt_key: { url: "http://127.0.0.1:9/key.asc", keyring: "$d/k.gpg" }
EOY
if [ "$recording" != 1 ]; then
	expect_exit 65 "url is refused when the play is loaded" -- \
		"$IMC" play --no-fallback --connection local "$TMPD/url.yml"
	expect_grep "apt_key: unsupported parameter 'url'" "$TMPD/err" "... naming the parameter"
fi
done_testing
