#!/bin/sh
# t4074: the apt_repository module (ansible.builtin.apt_repository) run
# natively by imc gives the results and files ansible-playbook gives
# (recorded in t4074-apt-repository.expect): a disabled source enabled,
# new sources in files named after the URL (user, password, scheme and
# options dropped) or filename=, mode=, check mode with its diff, removal
# (with the module's way of removing one of two equal lines), every file
# rewritten normalised and an empty one removed, the cache updated through
# python-apt from a file: repository, its failure (retried, then the
# sources reverted), and Ansible's failures. Contained: APT_CONFIG (the
# play's environment) points Dir::Etc, Dir::State and Dir::Cache at a root
# under the test's temp dir, so the machine's sources and lists are never
# read or written; the cache updates read file: repositories only (no
# network). A PPA needs Launchpad and is not implemented: the play stops
# when loaded under --no-fallback (checked).
# IMC_TEST_RECORD=1 runs ansible-playbook instead and rewrites the .expect file.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t407-lib-recorded.sh"
# new files get 0666 & ~umask (the recorded modes are with 022)
umask 022
/usr/bin/python3 -c 'import apt' 2>/dev/null || { not_ok "needs python3-apt (Debian's ansible depends on it)"; exit 1; }
expect="$top_srcdir/tests/cli/t4074-apt-repository.expect"
# mkroot DIR: apt's configuration and sources under DIR/root
mkroot() {
	R=$1/root
	mkdir -p "$R/etc/apt/sources.list.d" "$R/etc/apt/apt.conf.d" "$R/state/lists/partial" \
		"$R/cache/archives/partial" "$R/repo" "$R/repo2"
	: >"$R/repo/Packages"
	: >"$R/repo2/Packages"
	cat >"$R/apt.conf" <<EOC
Dir::Etc "$R/etc/apt";
Dir::State "$R/state";
Dir::Cache "$R/cache";
APT::Sandbox::User "root";
EOC
}
: >"$TMPD/got"
for n in 1 2; do
	d="$TMPD/w$n"
	mkroot "$d"
	if [ $n = 1 ]; then
		printf 'deb  [trusted=yes] file:%s/repo ./   # local\n#deb http://deb.example.invalid/debian bookworm main\n\n# plain comment\n   #  indented\n' \
			"$d/root" >"$d/root/etc/apt/sources.list"
		printf 'deb http://old.example.invalid/debian bookworm main\ndeb http://old.example.invalid/debian bookworm main\n' \
			>"$d/root/etc/apt/sources.list.d/old.list"
		: >"$d/root/etc/apt/sources.list.d/empty.list"
	else
		printf 'deb [trusted=yes] file:%s/repo ./\n' "$d/root" >"$d/root/etc/apt/sources.list"
	fi
	expect_exit 0 "play $n runs on apt's sources under the temp dir" -- \
		$run -e d="$d" "$top_srcdir/tests/cli/t4074-apt-repository-$n.yml"
	sed "s#$d#@D@#g" "$d/results" >>"$TMPD/got"
done
recorded_check "$TMPD/got" "$expect" "results and files as ansible-playbook's"

cat >"$TMPD/ppa.yml" <<'EOY'
- hosts: all
  gather_facts: false
  tasks:
    - apt_repository: { repo: "ppa:imc/test", codename: jammy }
EOY
if [ "$recording" != 1 ]; then
	expect_exit 65 "a PPA is refused when the play is loaded" -- \
		"$IMC" play --no-fallback --connection local "$TMPD/ppa.yml"
	expect_grep "apt_repository: unsupported repo 'ppa:imc/test'" "$TMPD/err" "... naming it"
fi
done_testing
