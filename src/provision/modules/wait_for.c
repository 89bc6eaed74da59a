/* wait_for.c: the `wait_for` module: a port, a path or a regex in a file, polled
 * on the node until a timeout. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* wait_for on a path, as Ansible's module polls it: state absent until
 * the path is gone; present/started until it exists and, with
 * search_regex (Python's re with MULTILINE), until its content matches,
 * whose groups (and named groups) the result returns (an empty file makes
 * the module die: mmap raises). The deadline counts
 * from before delay, and the first look happens only before it: timeout 0
 * times out at once. The result is the module's, with the path's
 * information (its state "absent" when it is missing). */
static json_t *wait_path(struct exec_ctx *x, json_t *args, const char *path, const char *state, long timeout,
			 long delay, long sleep_s)
{
	const char *regex = args_str(args, "search_regex"), *msg = args_str(args, "msg");
	json_t *res = NULL, *groups = json_array(), *named = json_object();
	pcre2_code *re = NULL;
	pcre2_match_data *md = NULL;
	if (regex) {
		int ec;
		/* Python's re.compile with MULTILINE, on the file's bytes */
		PCRE2_SIZE eo;
		re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE, &ec, &eo, NULL);
		if (!re) {
			PCRE2_UCHAR buf[256];
			pcre2_get_error_message(ec, buf, sizeof(buf));
			res = res_fail("Invalid regular expression: %s at position %zu", (const char *)buf, (size_t)eo);
			goto out;
		}
		md = pcre2_match_data_create_from_pattern(re, NULL);
	}
	if (!strcmp(state, "stopped") || !strcmp(state, "drained")) {
		res = res_fail("state=%s should only be used for checking a port in the wait_for module", state);
		json_object_set_new(res, "elapsed", json_integer(0));
		goto out;
	}
	bool absent = !strcmp(state, "absent");
	double start = now_s(), end = start + (double)timeout;
	if (delay > 0)
		sleep((unsigned)delay);
	bool met = false;
	while (!met && now_s() < end) {
		struct node_stat st;
		if (mod_stat(x, path, true, false, &st, &res) < 0)
			goto out;
		if (absent)
			met = !st.exists;
		else if (st.exists && !re)
			met = true;
		else if (st.exists && !st.isdir) {
			struct strbuf data = STRBUF_INIT;
			bool exists;
			if (mod_read(x, path, &data, &exists, &res) < 0) {
				strbuf_release(&data);
				goto out;
			}
			if (exists && !data.len) {
				/* mmap of an empty file raises: the module dies */
				strbuf_release(&data);
				res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
				json_object_set_new(res, "rc", json_integer(1));
				goto out;
			}
			if (exists && pcre2_match(re, (PCRE2_SPTR)data.buf, data.len, 0, 0, md, NULL) > 0) {
				PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
				uint32_t n = 0;
				pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &n);
				for (uint32_t i = 1; i <= n; i++) {
					if (ov[2 * i] == PCRE2_UNSET)
						json_array_append_new(groups, json_null());
					else
						json_array_append_new(groups, json_stringn(data.buf + ov[2 * i],
											   ov[2 * i + 1] - ov[2 * i]));
				}
				uint32_t nn, esz;
				PCRE2_SPTR tab;
				pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &nn);
				pcre2_pattern_info(re, PCRE2_INFO_NAMEENTRYSIZE, &esz);
				pcre2_pattern_info(re, PCRE2_INFO_NAMETABLE, &tab);
				for (uint32_t i = 0; i < nn; i++) {
					PCRE2_SPTR e = tab + i * esz;
					uint32_t g = ((uint32_t)e[0] << 8) | e[1];
					json_object_set(named, (const char *)e + 2, json_array_get(groups, g - 1));
				}
				met = true;
			}
			strbuf_release(&data);
		}
		if (!met)
			sleep((unsigned)(sleep_s > 0 ? sleep_s : 1));
	}
	long elapsed = (long)(now_s() - start);
	if (!met) {
		if (msg)
			res = res_fail("%s", msg);
		else if (absent)
			res = res_fail("Timeout when waiting for %s to be absent.", path);
		else if (regex)
			res = res_fail("Timeout when waiting for search string %s in %s", regex, path);
		else
			res = res_fail("Timeout when waiting for file %s", path);
		json_object_set_new(res, "elapsed", json_integer(elapsed));
		goto out;
	}
	res = res_new(false);
	json_object_set_new(res, "state", json_string(state));
	json_object_set_new(res, "port", json_null());
	json_object_set_new(res, "search_regex", regex ? json_string(regex) : json_null());
	json_object_set_new(res, "match_groups", json_incref(groups));
	json_object_set_new(res, "match_groupdict", json_incref(named));
	json_object_set_new(res, "path", json_string(path));
	json_object_set_new(res, "elapsed", json_integer(elapsed));
	if (absent)
		json_object_set_new(res, "state", json_string("absent"));
	else
		mod_path_info(x, res);
out:
	json_decref(groups);
	json_decref(named);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return res;
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
	if (path && !port)
		return wait_path(x, args, path, state, timeout, delay, sleep_s);
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

static const char *const wait_for_node_paths[] = { "path", NULL };

const struct task_module mod_wait_for = {
	.name = "wait_for",
	.params = wait_for_params,
	.run = wait_for_run,
	.node_paths = wait_for_node_paths,
};
