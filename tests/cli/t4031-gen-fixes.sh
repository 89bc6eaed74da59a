#!/bin/sh
# t4031: divergences the generated differential run (tests/differential/gen,
# issue 17) showed and imc fixed, each on a small play run by imc and
# compared with what ansible-playbook returned for the same play and the
# same initial tree (t4031-gen-fixes/golden.json, recorded with ansible-core
# 2.14.18 as Debian 12 packages it, -c local, by running play.yml on the
# tree setup.sh makes): an undefined variable in a task's options (Ansible's
# message with "The error appears to be in", the lines, "^ here" and the
# hint; no "changed"; a loop failing as a whole), a bad mode applied after
# owner and group, copy's validate failure and a dest under a file,
# ini_file's path attributes, slurp of a directory, assemble into a
# directory, assert's list message, replace naming a group its regexp
# lacks, find's follow; and (templates.yml, on an empty tree) the template
# module's trim_blocks, lstrip_blocks, newline_sequence and
# variable_start/end_string; (asm-ini.yml) assemble from the controller,
# in check mode and its source checked before validate, ini_file in check
# mode and dying as the reference does; (copy-tmpl.yml) template without
# force into a directory, copy content to a directory; (lineinfile-re.yml)
# lineinfile's bad regexps. The play's file is part of the expected
# messages (line and column), so it is used as it is.
. "$top_srcdir/tests/cli/lib.sh"
D=$top_srcdir/tests/cli/t4031-gen-fixes
PY=/usr/bin/python3
# PLAY GOLDEN [SETUP]: imc runs PLAY on a scratch tree (made by SETUP, or
# empty), then its results and tree are compared
run_case() {
	S=$TMPD/scratch-${1%.yml}
	if [ -n "${3:-}" ]; then
		sh "$D/$3" "$S" || { not_ok "$3"; return; }
	else
		mkdir -p "$S"
	fi
	"$IMC" play --no-fallback --connection local -q -e "s=$S" --results "$TMPD/$1.json" "$D/$1" \
		>"$TMPD/out.txt" 2>&1
	[ -s "$TMPD/$1.json" ] && ok "imc ran $1" || { not_ok "imc ran $1"; sed 's/^/#  /' "$TMPD/out.txt"; }
	"$PY" "$top_srcdir/tests/cli/t4031-gen-fixes.py" "$TMPD/$1.json" "$S" "$D/$1" "$D/$2" \
		>"$TMPD/cmp.txt" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$1: ${line#ok }" ;;
		"not ok "*) not_ok "$1: ${line#not ok }" ;;
		*) echo "$line" ;;
		esac
	done <"$TMPD/cmp.txt"
}
run_case play.yml golden.json setup.sh
# the template module's Jinja options, on eight templates (CRLF ones too)
run_case templates.yml golden-templates.json
# copy of a directory on the node (remote_src) into a missing dest, an
# existing directory, a link and a dest/ made with directory_mode; and
# find's follow with depth, slurp, assemble, copy, assert and replace again
run_case more.yml golden-more.json more-setup.sh
# assemble from the controller (remote_src false: the copy module's
# result), in check mode (skipped), its source checked before validate;
# ini_file in check mode and dying on values without an option
run_case asm-ini.yml golden-asm-ini.json asm-ini-setup.sh
# template without force into a directory (the answer names the dest
# given), copy content to a directory (the action's error)
run_case copy-tmpl.yml golden-copy-tmpl.json copy-tmpl-setup.sh
# lineinfile: the file's existence checked before the regexps are
# compiled, one Python's re refuses a module failure
run_case lineinfile-re.yml golden-lineinfile-re.json lineinfile-re-setup.sh
# (diffgen5.yml) command's ~ and $VAR expansion, debug var of an
# expression, find's refused regex in Python's words, file touch through a
# link and a hard link of a directory, copy content in check mode into a
# missing directory, validate with a bad mode (copy, template), copy
# remote_src in check mode (directories, a file, a link, missing parents)
# and onto a dangling link/ or a file/
run_case diffgen5.yml golden-diffgen5.json diffgen5-setup.sh
# (diffgen6.yml) copy remote_src of a file as Ansible's module: dest/
# made with owner, over a dangling link, into file/, validate on src
# after its mode and owner, no force onto a link, backup before a
# validate without %s; copy from the controller skipped without force
# (the src found) and into a dangling link/ (the module dies, the
# action's checksum); file touch of a dangling link owned first;
# lineinfile refusing a directory before its parameters
run_case diffgen6.yml golden-diffgen6.json diffgen6-setup.sh
# (diffgen6b.yml) the modules given generators last: wait_for on a path
# (a regex over the whole file and its groups, timeout 0, absent, an empty
# file, stopped refused), fail's list message, pause's answer, tempfile's
# errors and path information, fetch's checksums changed and unchanged,
# include_vars of a missing absolute file, authorized_key's missing
# argument, raw skipped in check mode, script's output unstripped, mount
# unmounted where nothing is mounted
run_case diffgen6b.yml golden-diffgen6b.json diffgen6b-setup.sh
# (diffgen7.yml) seed 601's: authorized_key as the collection's module
# parses the key file (options and comment replacing the key's, a
# differing key moved to the end, exclusive dropping comments, absent by
# blob, manage_dir, check mode, an invalid key); unarchive of a zip
# compared member by member (extracted, unchanged, check mode,
# keep_newer) and every handler's reason for a file none reads; get_url's
# failure and check mode with dest's information; mount's check mode
# making the fstab; ping's crash; fetch of a missing file and of a
# directory; raw's output lines; include_vars' merge failure naming the
# YAML or JSON type
run_case diffgen7.yml golden-diffgen7.json diffgen7-setup.sh
# (diffgen8.yml) seed 801's and by hand: cron's check mode (a missing cron
# file, a job already there, absent emptying a file, a variable) and a
# cron file that is a directory (read as empty, the write a module
# failure), and the variables listed as get_envnames matches them
run_case diffgen8.yml golden-diffgen8.json diffgen8-setup.sh
# (git.yml, sysmods-8's sandboxed run) the git module command by command
# as Ansible's: clone (bare, single_branch, the depth of a branch or tag,
# a hash's depth ignored with the warning), update to a tag or a branch,
# a missing ref failing as the checkout, local modifications refused and
# reset with force, update: no, a missing remote, clone: no, a missing
# repository failing as ls-remote
run_case git.yml golden-git.json git-setup.sh
done_testing
