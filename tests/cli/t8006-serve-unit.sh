#!/bin/sh
# t8006: contrib/imc-serve.service, the systemd unit of imc serve: systemd
# reads it without a complaint (systemd-analyze verify, its ExecStart
# pointed at the imc under test), it runs imc serve with IMC_HOME set, and
# its ExecStart's arguments are ones imc serve takes: the server started
# with them (the port made free) answers.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/t8-serve-lib.sh"
UNIT="$top_srcdir/contrib/imc-serve.service"
command -v systemd-analyze >/dev/null 2>&1 || { not_ok "systemd-analyze is needed (package systemd)"; done_testing; }

sed -e "s|^ExecStart=/usr/local/bin/imc |ExecStart=$IMC |" -e '/^Documentation=/d' "$UNIT" >"$TMPD/imc-serve.service"
grep -q "^ExecStart=$IMC serve " "$TMPD/imc-serve.service" && ok "the unit runs imc serve" || not_ok "ExecStart: $(grep ExecStart "$UNIT")"
expect_exit 0 "systemd-analyze verify reads the unit without a complaint" -- systemd-analyze verify "$TMPD/imc-serve.service"
[ ! -s "$TMPD/err" ] && ok "and says nothing" || { not_ok "verify said:"; sed 's/^/#   /' "$TMPD/err"; }
grep -q '^Environment=IMC_HOME=/var/lib/imc$' "$UNIT" && grep -q '^StateDirectory=imc$' "$UNIT" &&
	ok "IMC_HOME is the unit's state directory" || not_ok "IMC_HOME or StateDirectory missing"
grep -q '^User=' "$UNIT" && ok "it runs as a user of its own" || not_ok "no User="
# the unit's arguments, with the port made free and a pid file added
args=$(sed -n "s|^ExecStart=/usr/local/bin/imc serve ||p" "$UNIT" | sed 's/--port [0-9]*//')
# shellcheck disable=SC2086
serve_start s1 $args
curl -sS -o /dev/null -w '%{http_code}' "$URL/version" >"$TMPD/v.code"
[ "$(cat "$TMPD/v.code")" = 200 ] && ok "imc serve started with the unit's arguments answers" || not_ok "version: $(cat "$TMPD/v.code")"
done_testing
