/* get_url.c: the `get_url` module, working on the node: downloads with curl (or
 * wget) to a temporary file next to dest, checks the checksum, and replaces
 * dest only when the content differs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
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

/* what run implements (module.h) */
static const char *const get_url_params[] = {
	"checksum", "dest", "force", "headers", "timeout", "url", "url_password",
	"url_username", "validate_certs", "mode", "owner", "group", "unsafe_writes", NULL
};

const struct task_module mod_get_url = {
	.name = "get_url",
	.params = get_url_params,
	.run = get_url_run,
};
