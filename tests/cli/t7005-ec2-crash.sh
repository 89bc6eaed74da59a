#!/bin/sh
# t7005: crash safety of the ec2 backend through the CLI. The deployment
# worker is killed with SIGKILL while the cloud has launched VM 1 but its
# RunInstances reply is still on the way (the endpoint holds it), so the
# store never learnt any instance id. 'imc destroy' must still find both
# launched instances (by their deterministic ClientToken and tag) and leave
# nothing behind: no instance, security group or key pair.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/ec2/lib-ec2.sh"

cat >"$TMPD/c.radl" <<RADL
network public (outbound = 'yes')
system node (
    instance_type = 't3.micro' and
    net_interface.0.connection = 'public' and net_interface.0.dns_name = 'node-#N#' and
    disk.0.image.url = '$IMG' and disk.0.os.credentials.username = 'ubuntu'
)
deploy node 3
contextualize ()
RADL

P="$TMPD/pause"
mkdir "$P"
mkfifo "$P/reached" "$P/resume" "$TMPD/hung"
start_endpoint --hang RunInstances:2 --hang-fifo "$TMPD/hung"
printf '%s\n' "$AUTH" >"$TMPD/auth.dat"

IMC_TEST_PAUSE_AT=vms-intent IMC_TEST_PAUSE_DIR="$P" \
	"$IMC" -a "$TMPD/auth.dat" create -d "$TMPD/c.radl" >"$TMPD/create.out" 2>"$TMPD/create.err" &
CREATE=$!
# a fifo line, or "" after 60 s (a broken worker must fail the test, not hang it)
fifo_line() { timeout 60 sh -c 'read -r l <"$0" && echo "$l"' "$1"; }
line=$(fifo_line "$P/reached")
point=${line% *}; WORKER=${line#* }
expect_eq "$point" vms-intent "the worker reached the VM-creation intent"
[ -n "$line" ] || { wait "$CREATE"; done_testing; exit 1; }
timeout 60 sh -c ': >"$0"' "$P/resume"
held=$(fifo_line "$TMPD/hung")
expect_eq "$held" RunInstances "the second RunInstances was carried out and its reply held"
kill -9 "$WORKER"
wait "$CREATE"
ID=$(head -n1 "$TMPD/create.out")
expect_eq "$(ep_left launched)" 2 "two instances were launched before the crash"

"$IMC" -a "$TMPD/auth.dat" destroy "$ID" >"$TMPD/out" 2>"$TMPD/err"
RC=$?
expect_eq "$RC" 0 "imc destroy after the crash exits 0"
[ "$RC" -eq 0 ] || sed 's/^/#   /' "$TMPD/err" | head -10
expect_eq "$(ep_count TerminateInstances)" 2 "both launched instances were found and terminated"
expect_eq "$(ep_left3)" 0/0/0 "no instance, security group or key pair is left"
expect_no_violations
done_testing
