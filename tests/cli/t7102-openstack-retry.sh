#!/bin/sh
# t7102: the openstack backend under throttling and failing services: a
# 429 with Retry-After and a 503 are retried (with the server's delay or
# backoff, scaled to 0 here) and the command succeeds; a service that keeps
# failing is given up after the retry policy's attempts with a clear
# error; an expired token is replaced once (one new Keystone request) and
# the request goes through; a rejected password stops at once (exit 77)
# without printing it.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/openstack/lib-openstack.sh"

: >"$TMPD/all-output"
NETS="net:pub:public net:priv:private"
VMS="vm:1:fe:$OS_IMG host:1:fe nics:1:pub vm:2:wn:$OS_IMG host:2:wn nics:2:priv"

# throttling: 2 x 429 on the server list, 1 x 429 on floating IPs, 503 on a group rule
start_fake --inject 'GET:/servers/detail$:429:2' --inject 'POST:/floatingips$:429:1' \
	--inject 'POST:/security-group-rules$:503:1'
os_drive $NETS $VMS create
drive_ok "create succeeds through 429s and a 503"
expect_eq "$(grep -c '^vm [12] running ' "$DOUT")" 2 "both VMs run"
expect_eq "$(os_count GET '/servers/detail$' 429)" 2 "the server list was throttled twice"
expect_eq "$(os_count POST '/floatingips$' 429)" 1 "the floating IP allocation was throttled once"
expect_eq "$(os_count POST '/floatingips$')" 1 "and then made once"
expect_eq "$(os_count POST '/security-group-rules$' 503)" 1 "a rule answered 503 once"
expect_eq "$(os_py 'st["servers_created"]')" 2 "two servers, no more"
os_drive -a "$OS_AUTH" $NETS $VMS destroy >/dev/null
expect_eq "$(os_left)" 0/0/0/0 "destroy leaves nothing"

# the server's Retry-After (1 s) is waited rather than the shorter first
# backoff (under 1 s); the log gives the nominal delay
start_fake --inject 'GET:/servers/detail$:429:1'
IMC_LOG=info os_drive $NETS $VMS create destroy
expect_grep 'GET /servers/detail: HTTP 429, retrying after 1\.00s \(attempt 2 of 5\)' "$DERR" \
	"a 429 is retried after the server's Retry-After"
expect_eq "$(os_left)" 0/0/0/0 "destroy leaves nothing"

# a network service that keeps failing: 5 attempts, then a clear error
start_fake --inject 'GET:/networks$:500:99'
os_drive $NETS $VMS create
expect_eq "$DRC" 69 "a service that keeps answering 500 fails the command with exit 69 (unavailable)"
expect_grep 'openstack: cannot list networks: HTTP 500 computeFault' "$DERR" "the error names the call and the fault"
expect_eq "$(os_count GET '/networks$' 500)" 10 "the call was tried 5 times for each of the 2 VMs"
expect_eq "$(os_py 'st["servers_created"]')" 0 "no server was made without its network"
os_drive $NETS $VMS destroy >/dev/null
expect_eq "$(os_left)" 0/0/0/0 "destroy after the failure leaves nothing (groups and key pair too)"

# tokens that expire after 6 requests: each expiry costs one new token
start_fake --token-uses 6
os_drive $NETS $VMS create update destroy
drive_ok "create, update and destroy with tokens expiring every 6 requests"
expect_eq "$(os_py 'sum(1 for e in log if e["status"] == 401) == sum(1 for e in log if e["path"].endswith("/auth/tokens")) - 1')" \
	True "every 401 was followed by exactly one new token"
expect_eq "$(os_py 'sum(1 for e in log if e["path"].endswith("/auth/tokens")) > 3')" True "the tokens did expire during the run"
expect_eq "$(os_left)" 0/0/0/0 "nothing left"

# a wrong password: one Keystone request, exit 77, the password never printed
BAD="type = OpenStack; host = http://127.0.0.1:$OS_PORT/identity; username = $OS_USER; password = wRoNg-$OS_PASS; tenant = $OS_PROJECT; auth_version = 3.x_password"
: >"$OS_LOG"
os_drive -a "$BAD" $NETS $VMS create
expect_eq "$DRC" 77 "a rejected password exits 77"
expect_grep 'HTTP 401 Unauthorized: The request you have made requires authentication' "$DERR" "Keystone's error is shown"
expect_eq "$(os_count POST '/auth/tokens$' 401)" 1 "a rejected credential is not retried"
if grep -qF "wRoNg-" "$TMPD/all-output"; then not_ok "the wrong password is not printed"; else ok "the wrong password is not printed"; fi
expect_no_secret "neither the password nor a token is in any output"
done_testing
