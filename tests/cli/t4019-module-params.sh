#!/bin/sh
# t4019: a parameter (or a state) that a native module does not implement
# stops the play when it is loaded, with an "unsupported" error naming
# it (the kind the fallback to ansible-playbook takes), before any task
# runs; it is never silently ignored. One playbook per case, run with
# --no-fallback so that the error itself is seen.
. "$top_srcdir/tests/cli/lib.sh"

n=0
refused() { # WHAT MESSAGE-REGEX TASK-YAML
	n=$((n + 1))
	cat >"$TMPD/pb$n.yml" <<PB
- hosts: all
  gather_facts: false
  tasks:
    - name: runs only if the play loads
      file: path=$TMPD/ran$n state=touch
    - $3
PB
	expect_exit 65 "$1 is refused" -- "$IMC" play --no-fallback --connection local "$TMPD/pb$n.yml"
	expect_grep "$2" "$TMPD/err" "$1: the error names it"
	if [ -e "$TMPD/ran$n" ]; then not_ok "$1: no task ran"; else ok "$1: no task ran"; fi
}
refused "find unknown" "find: unsupported parameter 'colour'" "find: paths=/tmp colour=red"
# modules whose parameters were read without a check: each lists what it implements
refused "user seuser" "user: unsupported parameter 'seuser'" "user: name=imc-t4019 seuser=x"
refused "get_url unknown" "get_url: unsupported parameter 'colour'" "get_url: url=http://127.0.0.1:9/x dest=/tmp/x colour=red"
refused "blockinfile attributes" "blockinfile: unsupported parameter 'attributes'" "blockinfile: path=/tmp/x block=y attributes=+i"
refused "assemble unknown" "assemble: unsupported parameter 'follow'" "assemble: src=x dest=/tmp/y follow=no"
refused "cron without cron_file" "cron: unsupported without cron_file" "cron: name=x job=/bin/true user=root"
refused "cron backup" "cron: unsupported parameter 'backup'" \
	"cron: name=x job=/bin/true user=root cron_file=/tmp/x backup=yes"
refused "mount mounted" "mount: unsupported state 'mounted'" \
	"mount: path=/mnt/x src=/dev/x fstype=ext4 state=mounted fstab=/tmp/fstab"
refused "mount remounted" "mount: unsupported state 'remounted'" "mount: path=/mnt/x state=remounted"
refused "mount unknown" "mount: unsupported parameter 'dumb'" "mount: path=/mnt/x state=present dumb=1"

# the same module with what it implements loads and runs
cat >"$TMPD/ok.yml" <<PB
- hosts: all
  gather_facts: false
  tasks:
    - find: paths=$TMPD patterns=ran* file_type=file
      register: f
    - assert:
        that: f.matched == 0 and f.examined > 0
PB
expect_exit 0 "implemented parameters load and run" -- "$IMC" play --no-fallback --connection local "$TMPD/ok.yml"
done_testing
