/* mod-fetch.c: `fetch` (a node file copied to the controller, under
 * dest/<inventory_hostname>/<src> unless flat), `slurp` (base64 content)
 * and `wait_for` (a port, a path or a regex in a file, polled on the node
 * until a timeout). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provision/task.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	free(p);
	return 0;
}

static json_t *fetch_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src");
	const char *dest = args_str(args, "dest");
	if (!src || !dest)
		return res_fail("missing required arguments: src, dest");
	bool flat = args_bool(json_object_get(args, "flat"), false);
	bool fail_missing = args_bool(json_object_get(args, "fail_on_missing"), true);
	struct strbuf data = STRBUF_INIT;
	bool exists;
	json_t *res = NULL;
	if (mod_read(x, src, &data, &exists, &res) < 0) {
		strbuf_release(&data);
		return res;
	}
	if (!exists) {
		strbuf_release(&data);
		if (fail_missing)
			return res_fail("the remote file does not exist, not transferring, ignored");
		res = res_new(false);
		json_object_set_new(res, "msg", json_string("the remote file does not exist, not transferring, ignored"));
		return res;
	}
	char *local;
	size_t dl = strlen(dest);
	if (flat)
		local = dl && dest[dl - 1] == '/' ? xasprintf("%s%s", dest, strrchr(src, '/') ? strrchr(src, '/') + 1 : src)
						  : xstrdup(dest);
	else {
		const char *base = dest;
		if (x->run->output_dir && dest[0] != '/')
			local = xasprintf("%s/%s/%s%s%s", x->run->output_dir, dest, x->host->name,
					  src[0] == '/' ? "" : "/", src);
		else
			local = xasprintf("%s%s%s%s%s", base, dl && dest[dl - 1] == '/' ? "" : "/",
					  x->host->name, src[0] == '/' ? "" : "/", src);
	}
	char sum[41], old[41] = "";
	mod_sha1_hex(data.buf ? data.buf : "", data.len, sum);
	struct strbuf cur = STRBUF_INIT;
	if (strbuf_read_file(&cur, local) == 0)
		mod_sha1_hex(cur.buf ? cur.buf : "", cur.len, old);
	strbuf_release(&cur);
	bool changed = strcmp(sum, old) != 0;
	if (changed) {
		FILE *fp = NULL;
		if (mkdirs(local) == 0)
			fp = fopen(local, "wb");
		if (!fp || fwrite(data.buf ? data.buf : "", 1, data.len, fp) != data.len || fclose(fp) != 0) {
			res = res_fail("cannot write '%s': %s", local, strerror(errno));
			free(local);
			strbuf_release(&data);
			return res;
		}
	}
	res = res_new(changed);
	json_object_set_new(res, "checksum", json_string(sum));
	json_object_set_new(res, "remote_checksum", json_string(sum));
	json_object_set_new(res, "dest", json_string(local));
	if (changed) {
		char md5[33];
		mod_md5_hex(data.buf ? data.buf : "", data.len, md5);
		json_object_set_new(res, "md5sum", json_string(md5));
	}
	free(local);
	strbuf_release(&data);
	return res;
}

const struct task_module mod_fetch = { .name = "fetch", .run = fetch_run };

static json_t *slurp_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src");
	if (!src)
		src = args_str(args, "path");
	if (!src)
		return res_fail("missing required arguments: src");
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "base64 -w0 -- ");
	sh_quote(&c, src);
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		if (cr.rc)
			res = res_fail("file not found: %s", src);
		else {
			res = res_new(false);
			json_object_set_new(res, "content", json_string(strbuf_str(&cr.out)));
			json_object_set_new(res, "encoding", json_string("base64"));
			json_object_set_new(res, "source", json_string(src));
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}

const struct task_module mod_slurp = { .name = "slurp", .run = slurp_run };

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

const struct task_module mod_wait_for = { .name = "wait_for", .run = wait_for_run };
