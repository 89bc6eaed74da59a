/* wait_for.c: the `wait_for` module: a port, a path or a regex in a file, polled
 * on the node until a timeout. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

static long num(json_t *args, const char *k, long dflt)
{
	json_t *v = json_object_get(args, k);
	if (!v)
		return dflt;
	if (json_is_integer(v))
		return (long)json_integer_value(v);
	if (json_is_string(v))
		return strtol(json_string_value(v), NULL, 10);
	return dflt;
}

static json_t *wait_for_run(struct exec_ctx *x, json_t *args)
{
	const char *host = args_str(args, "host");
	char *port = args_strdup(args, "port");
	const char *path = args_str(args, "path");
	const char *regex = args_str(args, "search_regex");
	const char *state = args_str(args, "state");
	if (!state)
		state = "started";
	long timeout = num(args, "timeout", 300), delay = num(args, "delay", 0);
	long sleep_s = num(args, "sleep", 1);
	bool want_absent = !strcmp(state, "stopped") || !strcmp(state, "absent") || !strcmp(state, "drained");
	struct strbuf c = STRBUF_INIT;
	strbuf_addf(&c, "sleep %ld; s=$(date +%%s); ", delay);
	if (port) {
		strbuf_addstr(&c, "h=");
		sh_quote(&c, host ? host : "127.0.0.1");
		strbuf_addstr(&c, "; p=");
		sh_quote(&c, port);
		strbuf_addstr(&c, "; chk() { if command -v nc >/dev/null 2>&1; then nc -z -w 5 \"$h\" \"$p\" >/dev/null 2>&1; "
				  "elif command -v bash >/dev/null 2>&1; then timeout 5 bash -c \"</dev/tcp/$h/$p\" 2>/dev/null; "
				  "else python3 -c \"import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 5)\" \"$h\" \"$p\" 2>/dev/null; fi; }; ");
	} else if (path) {
		strbuf_addstr(&c, "f=");
		sh_quote(&c, path);
		if (regex) {
			strbuf_addstr(&c, "; chk() { [ -e \"$f\" ] && grep -Eq ");
			sh_quote(&c, regex);
			strbuf_addstr(&c, " \"$f\"; }; ");
		} else
			strbuf_addstr(&c, "; chk() { [ -e \"$f\" ]; }; ");
	} else
		strbuf_addstr(&c, "chk() { true; }; ");
	strbuf_addf(&c, "while :; do if chk; then [ %d = 0 ] && break; else [ %d = 1 ] && break; fi; "
		    "[ $(( $(date +%%s) - s )) -ge %ld ] && exit 3; sleep %ld; done; echo \"__imc_elapsed__=$(( $(date +%%s) - s ))\"",
		    want_absent ? 1 : 0, want_absent ? 1 : 0, timeout, sleep_s > 0 ? sleep_s : 1);
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		if (cr.rc == 3) {
			const char *m = args_str(args, "msg");
			if (m)
				res = res_fail("%s", m);
			else if (port)
				res = res_fail("Timeout when waiting for %s:%s", host ? host : "127.0.0.1", port);
			else
				res = res_fail("Timeout when waiting for file %s", path ? path : "");
			json_object_set_new(res, "elapsed", json_integer(timeout));
		} else if (cr.rc != 0)
			res = res_fail("wait_for failed: %s", strbuf_str(&cr.err));
		else {
			const char *el = strstr(strbuf_str(&cr.out), "__imc_elapsed__=");
			res = res_new(false);
			json_object_set_new(res, "elapsed", json_integer(el ? strtol(el + 16, NULL, 10) : 0));
			json_object_set_new(res, "state", json_string(state));
			if (port)
				json_object_set_new(res, "port", json_integer(strtol(port, NULL, 10)));
			if (path)
				json_object_set_new(res, "path", json_string(path));
			if (regex)
				json_object_set_new(res, "search_regex", json_string(regex));
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	free(port);
	return res;
}

/* what run implements (module.h) */
static const char *const wait_for_params[] = {
	"delay", "host", "msg", "path", "port", "search_regex", "sleep", "state", "timeout",
	NULL
};

const struct task_module mod_wait_for = {
	.name = "wait_for",
	.params = wait_for_params,
	.run = wait_for_run,
};
