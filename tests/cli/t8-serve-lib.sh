# t8-serve-lib.sh: what the tests of `imc serve` after t8001 share, sourced
# after lib.sh: serve_start starts a server on a free loopback port and
# sets SPID and URL; it is killed by that PID at exit. req, answer, jget
# and expect_same read and check the server's answers.

[ -n "${PYTHON3:-}" ] || PYTHON3=python3
command -v curl >/dev/null 2>&1 || skip_all "curl is needed (scripts/install-deps)"
"$PYTHON3" -c 'import requests' 2>/dev/null || skip_all "python3-requests is needed (scripts/install-deps)"

# serve_start NAME [SERVE ARGS...]: the server's output in $TMPD/NAME.log;
# the scheme of URL is https when --tls-cert is among the arguments
serve_start() {
	_name=$1
	shift
	rm -f "$TMPD/$_name.pid"
	"$IMC" serve --bind 127.0.0.1 --port 0 --pid-file "$TMPD/$_name.pid" "$@" \
		>"$TMPD/$_name.out" 2>"$TMPD/$_name.log" &
	SPID=$!
	at_exit "stop_child $SPID"
	_deadline=$(($(date +%s) + 30))
	while [ ! -s "$TMPD/$_name.pid" ] && kill -0 "$SPID" 2>/dev/null && [ "$(date +%s)" -lt "$_deadline" ]; do
		sleep 0.1 # polling for the pid file, which the server writes once it listens
	done
	if [ ! -s "$TMPD/$_name.pid" ] || [ "$(cat "$TMPD/$_name.pid")" != "$SPID" ]; then
		not_ok "the server $_name did not start"
		sed 's/^/#   /' "$TMPD/$_name.log"
		exit 1
	fi
	URL=$(sed -n 's|^imc serve: listening on \(https*://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$TMPD/$_name.log")
}

# serve_stop: SIGTERM to the server, waited for: it must exit 0 (in the
# sanitizer build, LeakSanitizer's report at exit would fail it)
serve_stop() {
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	_rc=$?
	if [ "$_rc" = 0 ]; then ok "the server stops cleanly on SIGTERM"; else
		not_ok "the server exited $_rc"
		grep -A15 -E 'Sanitizer|ERROR' "$TMPD/$_name.log" | sed 's/^/#   /' | head -30
	fi
}

# req NAME METHOD PATH [CURL ARGS...]: the answer of $URL's PATH, its status
# and media type in $TMPD/NAME.meta ("200 text/plain"), its body in
# $TMPD/NAME.body
req() {
	_n=$1 _m=$2 _p=$3
	shift 3
	curl -sS -o "$TMPD/$_n.body" -w '%{http_code} %{content_type}\n' -X "$_m" "$@" "$URL$_p" >"$TMPD/$_n.meta" 2>"$TMPD/$_n.err" ||
		echo "000 curl-failed" >"$TMPD/$_n.meta"
}
# answer NAME "STATUS TYPE" DESCRIPTION
answer() {
	if [ "$(cat "$TMPD/$1.meta")" = "$2" ]; then ok "$3: $2"; else
		not_ok "$3: got '$(cat "$TMPD/$1.meta")', want '$2'"; sed 's/^/#   /' "$TMPD/$1.body" | head -5
	fi
}
# jget NAME EXPR: the Python expression EXPR over the JSON body d of NAME
jget() { "$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$TMPD/$1.body" "$2"; }
# expect_same GOT WANT DESCRIPTION
expect_same() { if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3: got '$1', want '$2'"; fi; }
