#!/bin/sh
# t2007: a short run of the auth file reader's fuzz harness (fuzz-auth:
# never a crash, never a secret in what is printed), from seeds in IM's line
# format and the JSON form. Longer runs: tests/fuzz/fuzz-auth -max_total_time=60 DIR.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_require fuzz-auth

mkdir -p "$TMPD/seeds"
cat >"$TMPD/seeds/im" <<'AUTH'
# IM's format
id = one; type = InfrastructureManager; username = user; password = "s3cr3t pass"
id = ec2; type = EC2; username = AKIAEXAMPLE; password = 'wJalrXUtnFEMI/K7MDENG'; region = us-east-1
type = OpenStack; host = https://keystone:5000; username = u; tenant = t; auth_version = 3.x_password
id = loc; type = Local
AUTH
printf '%s\n' '[{"id": "ec2", "type": "EC2", "username": "AKIA", "password": "secretvalue"},' \
	' {"type": "Docker", "host": "unix:///var/run/docker.sock", "token": "tok-abcdef"}]' >"$TMPD/seeds/json"
printf 'id = a; type = EC2; password = "unterminated\n' >"$TMPD/seeds/bad"
fuzz_run fuzz-auth "$TMPD/seeds" 4096
done_testing
