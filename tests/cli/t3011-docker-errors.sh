#!/bin/sh
# t3011: the docker backend's reports of a daemon's error answers, from the
# recorded bodies (tests/vectors/docker) served by tests/docker/fake-dockerd.py
# on a unix socket: a pull that fails inside its 200 stream (read a few
# bytes at a time), a create refused with 404 "No such image", a removal
# refused with 409, a daemon failing with 500, and no daemon at all. Each
# error names the daemon, the HTTP status and the daemon's message, with
# the exit status of its kind; destroy of what the daemon does not have
# succeeds.
. "$top_srcdir/tests/cli/lib.sh"
DRIVE="$top_builddir/tests/helper/cloud-drive"
SOCK="$TMPD/d.sock"
LOG="$TMPD/requests"
ID=$(cat /proc/sys/kernel/random/uuid)
FAKE_PID=""
stop_fake() {
	[ -n "$FAKE_PID" ] || return 0
	kill "$FAKE_PID" 2>/dev/null
	wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=""
	rm -f "$SOCK"
}
at_exit stop_fake
# fake SCENARIO: a fake daemon answering as SCENARIO says
fake() {
	stop_fake
	: >"$LOG"
	"$PYTHON3" "$top_srcdir/tests/docker/fake-dockerd.py" "$SOCK" "$top_srcdir/tests/vectors/docker" "$1" "$LOG" &
	FAKE_PID=$!
	end=$(($(date +%s) + 30))
	until [ -S "$SOCK" ] || [ "$(date +%s)" -gt "$end" ]; do sleep 0.05; done
	[ -S "$SOCK" ] || not_ok "the fake daemon ($1) listens"
}
# drive STATUS DESCRIPTION ARGS...: cloud-drive on the fake, exit STATUS
drive() {
	want=$1 desc=$2
	shift 2
	expect_exit "$want" "$desc" -- "$DRIVE" -a "type = Docker; host = unix://$SOCK" -H "$IMC_HOME" -i "$ID" -k "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAf/R5m1IgyQJRUQzDcLJIcFsDDMJJ+ctUYtBjbt1T0p t" "$@"
}

fake pull-error
drive 1 "create with a pull that fails inside its 200 stream fails" vm:1:n:docker://busybox create
expect_grep "cannot pull image 'busybox': Invalid\.\.\." "$TMPD/err" "the stream's error line is the reported reason"
expect_grep '^vm 1 failed ' "$TMPD/out" "the VM is failed"
expect_grep '^POST /images/create\?fromImage=busybox&tag=latest$' "$LOG" "the pull asks for the image, tag 'latest' when the URL has none"
expect_no_grep '^POST /containers/create' "$LOG" "no container is created without its image"

fake no-image
drive 1 "create refused with 404 fails" vm:1:n:docker://busybox create
expect_grep "cannot create the container: HTTP 404: No such image: c2ada9df5af8" "$TMPD/err" "the daemon's status and message are reported"
expect_grep '^GET /containers/json\?all=1&filters=' "$LOG" "the failed VM's leftovers are swept by label"
drive 0 "destroy of a VM the daemon does not have succeeds" vm:1:n destroy
expect_grep '^vm 1 off ' "$TMPD/out" "and the VM is off"

fake busy
drive 1 "destroy refused with 409 fails" vm:1:n destroy
expect_grep 'HTTP 409: You cannot remove a running container: c2ada9df5af8\. Stop the container before attempting removal or force remove$' "$TMPD/err" "the 409's message is reported, on one line"

fake server
drive 69 "a daemon failing with 500 exits 69" vm:1:n update
expect_grep "docker \(unix://$SOCK\): cannot inspect the container: HTTP 500: page not found" "$TMPD/err" "the 500 is reported with the daemon's message"

stop_fake
drive 69 "no daemon at the socket exits 69" vm:1:n update
expect_grep "cannot reach the daemon at unix://$SOCK" "$TMPD/err" "an unreachable daemon is named"

expect_exit 65 "an https daemon is refused" -- "$DRIVE" -a "type = Docker; host = https://h:2376" -H "$IMC_HOME" -i "$ID" vm:1:n update
expect_grep "only unix://PATH, tcp://HOST:PORT and http://HOST:PORT" "$TMPD/err" "with the forms it takes"
done_testing
