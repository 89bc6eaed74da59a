/* mod-get_url.c: `get_url` and `unarchive`, both working on the node:
 * get_url downloads with curl (or wget) to a temporary file next to dest,
 * checks the checksum, and replaces dest only when the content differs;
 * unarchive extracts a controller archive (sent over the connection), a
 * node path or a URL with tar/unzip, skipping when `creates` exists. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/task.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *get_url_run(struct exec_ctx *x, json_t *args)
{
	const char *url = args_str(args, "url");
	const char *dest = args_str(args, "dest");
	if (!url || !dest)
		return res_fail("missing required arguments: url, dest");
	bool force = args_bool(json_object_get(args, "force"), false);
	const char *checksum = args_str(args, "checksum");
	json_t *tv = json_object_get(args, "timeout");
	long timeout = tv ? (json_is_integer(tv) ? (long)json_integer_value(tv)
			     : strtol(json_string_value(tv) ? json_string_value(tv) : "10", NULL, 10)) : 10;
	bool validate = args_bool(json_object_get(args, "validate_certs"), true);
	const char *user = args_str(args, "url_username");
	const char *pass = args_str(args, "url_password");
	if (pass)
		secret_register(pass);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "u=");
	sh_quote(&c, url);
	strbuf_addstr(&c, "; d=");
	sh_quote(&c, dest);
	strbuf_addstr(&c, "; if [ -d \"$d\" ]; then f=${u##*/}; f=${f%%\\?*}; d=\"$d/$f\"; fi; echo \"__imc_dest__=$d\"; ");
	char algo[16] = "", sum[160] = "";
	if (checksum) {
		const char *colon = strchr(checksum, ':');
		if (!colon || colon - checksum >= (long)sizeof(algo))
			return strbuf_release(&c), res_fail("checksum must be ALGORITHM:HEX");
		snprintf(algo, sizeof(algo), "%.*s", (int)(colon - checksum), checksum);
		snprintf(sum, sizeof(sum), "%s", colon + 1);
		strbuf_addf(&c, "if [ -f \"$d\" ] && [ \"$(%ssum < \"$d\" | cut -d' ' -f1)\" = '%s' ]; then echo __imc_ok__; exit 0; fi; ",
			    algo, sum);
	} else if (!force)
		strbuf_addstr(&c, "if [ -f \"$d\" ]; then echo __imc_ok__; exit 0; fi; ");
	strbuf_addstr(&c, "t=$(mktemp \"$(dirname \"$d\")/.imc_dl.XXXXXX\") || exit 1; ");
	strbuf_addf(&c, "if command -v curl >/dev/null 2>&1; then curl -fsSL%s --max-time %ld",
		    validate ? "" : " -k", timeout * 6);
	if (user) {
		strbuf_addstr(&c, " -u ");
		struct strbuf up = STRBUF_INIT;
		strbuf_addf(&up, "%s:%s", user, pass ? pass : "");
		sh_quote(&c, up.buf);
		strbuf_release(&up);
	}
	json_t *headers = json_object_get(args, "headers");
	if (json_is_object(headers)) {
		const char *k;
		json_t *v;
		json_object_foreach(headers, k, v) {
			strbuf_addstr(&c, " -H ");
			struct strbuf h = STRBUF_INIT;
			strbuf_addf(&h, "%s: %s", k, json_string_value(v) ? json_string_value(v) : "");
			sh_quote(&c, h.buf);
			strbuf_release(&h);
		}
	}
	strbuf_addf(&c, " -o \"$t\" \"$u\" || { rm -f \"$t\"; exit 1; }; else wget -q%s -T %ld -O \"$t\" \"$u\" || { rm -f \"$t\"; exit 1; }; fi; ",
		    validate ? "" : " --no-check-certificate", timeout);
	if (checksum)
		strbuf_addf(&c, "[ \"$(%ssum < \"$t\" | cut -d' ' -f1)\" = '%s' ] || { rm -f \"$t\"; echo 'checksum mismatch' >&2; exit 2; }; ",
			    algo, sum);
	strbuf_addstr(&c, "echo \"__imc_size__=$(wc -c < \"$t\")\"; if [ -f \"$d\" ] && cmp -s \"$t\" \"$d\"; then rm -f \"$t\"; echo __imc_ok__; "
			  "else chmod 644 \"$t\"; mv -f \"$t\" \"$d\" || exit 1; echo __imc_changed__; fi");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		const char *o = strbuf_str(&cr.out);
		const char *dp = strstr(o, "__imc_dest__=");
		char *rdest = dp ? xstrndup(dp + 13, strcspn(dp + 13, "\n")) : xstrdup(dest);
		if (cr.rc != 0) {
			res = res_fail("Request failed: %s", cr.err.len ? strbuf_str(&cr.err) : "download error");
			json_object_set_new(res, "url", json_string(url));
			json_object_set_new(res, "dest", json_string(rdest));
		} else {
			bool changed = strstr(o, "__imc_changed__") != NULL;
			const char *sz = strstr(o, "__imc_size__=");
			long size = sz ? strtol(sz + 13, NULL, 10) : 0;
			if (mod_attrs(x, rdest, args, &changed, &res) == 0) {
				res = res_new(changed);
				json_object_set_new(res, "url", json_string(url));
				json_object_set_new(res, "dest", json_string(rdest));
				json_object_set_new(res, "status_code", json_integer(changed ? 200 : 304));
				char *m = xasprintf("OK (%ld bytes)", size);
				json_object_set_new(res, "msg", json_string(changed || sz ? m : "file already exists"));
				free(m);
			}
		}
		free(rdest);
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}

const struct task_module mod_get_url = { .name = "get_url", .run = get_url_run };

static json_t *unarchive_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src");
	const char *dest = args_str(args, "dest");
	if (!src || !dest)
		return res_fail("missing required arguments: src, dest");
	const char *creates = args_str(args, "creates");
	json_t *res = NULL;
	if (creates) {
		struct node_stat st;
		if (mod_stat(x, creates, true, false, &st, &res) < 0)
			return res;
		if (st.exists) {
			res = res_new(false);
			json_object_set_new(res, "dest", json_string(dest));
			json_object_set_new(res, "src", json_string(src));
			json_object_set_new(res, "msg", json_string("skipped, since creates exists"));
			return res;
		}
	}
	bool remote = args_bool(json_object_get(args, "remote_src"), false) ||
		      (json_object_get(args, "copy") && !args_bool(json_object_get(args, "copy"), true));
	bool is_url = !strncmp(src, "http://", 7) || !strncmp(src, "https://", 8) || !strncmp(src, "ftp://", 6);
	struct strbuf data = STRBUF_INIT;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "d=");
	sh_quote(&c, dest);
	strbuf_addstr(&c, "; [ -d \"$d\" ] || { echo \"Destination '$d' is not a directory\" >&2; exit 3; }; t=$(mktemp /tmp/.imc_ar.XXXXXX) || exit 1; ");
	if (is_url) {
		strbuf_addstr(&c, "if command -v curl >/dev/null 2>&1; then curl -fsSL -o \"$t\" ");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; else wget -q -O \"$t\" ");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; fi || { rm -f \"$t\"; exit 1; }; ");
	} else if (remote) {
		strbuf_addstr(&c, "cp -- ");
		sh_quote(&c, src);
		strbuf_addstr(&c, " \"$t\" || { rm -f \"$t\"; exit 1; }; ");
	} else {
		char *path = mod_find_src(x, "files", src);
		if (!path || strbuf_read_file(&data, path) < 0) {
			free(path);
			strbuf_release(&c);
			strbuf_release(&data);
			return res_fail("Could not find or access '%s' on the Ansible Controller.", src);
		}
		free(path);
		strbuf_addstr(&c, "cat > \"$t\"; ");
	}
	const char *extra = NULL;
	json_t *eo = json_object_get(args, "extra_opts");
	struct strbuf ex = STRBUF_INIT;
	if (json_is_array(eo)) {
		size_t i;
		json_t *e;
		json_array_foreach(eo, i, e) {
			strbuf_addch(&ex, ' ');
			sh_quote(&ex, json_string_value(e) ? json_string_value(e) : "");
		}
		extra = ex.buf;
	} else if (json_is_string(eo)) {
		strbuf_addch(&ex, ' ');
		strbuf_addstr(&ex, json_string_value(eo));
		extra = ex.buf;
	}
	const char *lower = src;
	size_t sl = strlen(lower);
	bool zip = sl > 4 && !strcasecmp(lower + sl - 4, ".zip");
	if (zip)
		strbuf_addf(&c, "unzip -o -q%s \"$t\" -d \"$d\"; rc=$?; ", extra ? extra : "");
	else
		strbuf_addf(&c, "tar -xf \"$t\" -C \"$d\"%s; rc=$?; ", extra ? extra : "");
	strbuf_addstr(&c, "rm -f \"$t\"; exit $rc");
	struct conn_result cr;
	conn_result_init(&cr);
	if (mod_sh(x, c.buf, data.buf, data.len, &cr, &res) == 0) {
		if (cr.rc != 0)
			res = res_fail("Failed to unpack %s into %s: %s", src, dest, strbuf_str(&cr.err));
		else {
			bool changed = true;
			if (mod_attrs(x, dest, args, &changed, &res) == 0) {
				res = res_new(true);
				json_object_set_new(res, "dest", json_string(dest));
				json_object_set_new(res, "src", json_string(src));
				json_object_set_new(res, "extract_results", json_pack("{s:i}", "rc", 0));
			}
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	strbuf_release(&data);
	strbuf_release(&ex);
	return res;
}

const struct task_module mod_unarchive = { .name = "unarchive", .run = unarchive_run };
