/* fetch.c: the `fetch` module: a node file copied to the controller, under
 * dest/<inventory_hostname>/<src> unless flat. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "util/mkdir.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *fetch_run(struct exec_ctx *x, json_t *args)
{
	/* Ansible's fetch action skips itself in check mode */
	if (x->check_mode)
		return json_pack("{s:b, s:b, s:s}", "changed", 0, "skipped", 1, "msg",
				 "check mode not (yet) supported for this module");
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
		/* mod_read's directory failure (rc 256): the action's own
		 * words, and with fail_on_missing off not failed */
		if (json_integer_value(json_object_get(res, "rc")) == 256) {
			json_decref(res);
			if (fail_missing)
				return res_fail("remote file is a directory, fetch cannot work on directories");
			res = res_new(false);
			json_object_set_new(res, "msg", json_string("remote file is a directory, fetch cannot work on "
								    "directories, not transferring, ignored"));
		}
		return res;
	}
	if (!exists) {
		strbuf_release(&data);
		if (fail_missing)
			return res_fail("the remote file does not exist, not transferring, ignored");
		/* the action names the source when it ignores the failure */
		res = res_new(false);
		json_object_set_new(res, "file", json_string(src));
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
	hash_sha1_hex(data.buf ? data.buf : "", data.len, sum);
	struct strbuf cur = STRBUF_INIT;
	if (strbuf_read_file(&cur, local) == 0)
		hash_sha1_hex(cur.buf ? cur.buf : "", cur.len, old);
	strbuf_release(&cur);
	bool changed = strcmp(sum, old) != 0;
	if (changed) {
		FILE *fp = NULL;
		char *dir = xstrdup(local);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		struct diag d = DIAG_INIT;
		int made = slash && slash != dir ? mkdir_p(dir, 0755, &d) : 0;
		free(dir);
		if (made < 0) {
			res = res_fail("%s", diag_first_message(&d));
			diag_release(&d);
			free(local);
			strbuf_release(&data);
			return res;
		}
		fp = fopen(local, "wb");
		if (!fp || fwrite(data.buf ? data.buf : "", 1, data.len, fp) != data.len || fclose(fp) != 0) {
			res = res_fail("cannot write '%s': %s", local, strerror(errno));
			free(local);
			strbuf_release(&data);
			return res;
		}
	}
	/* Ansible's fetch action: a transfer names both checksums (no
	 * remote md5), an unchanged copy the source file instead */
	res = res_new(changed);
	char md5[33];
	hash_md5_hex(data.buf ? data.buf : "", data.len, md5);
	json_object_set_new(res, "checksum", json_string(sum));
	json_object_set_new(res, "dest", json_string(local));
	json_object_set_new(res, "md5sum", json_string(md5));
	if (changed) {
		json_object_set_new(res, "remote_checksum", json_string(sum));
		json_object_set_new(res, "remote_md5sum", json_null());
	} else
		json_object_set_new(res, "file", json_string(src));
	free(local);
	strbuf_release(&data);
	return res;
}

static const char *const fetch_home_paths[] = { "src", NULL };
static const char *const fetch_node_paths[] = { "src", NULL };

const struct task_module mod_fetch = {
	.name = "fetch", .check_mode_native = true, .run = fetch_run,
	.node_paths = fetch_node_paths, .action_home_paths = fetch_home_paths,
};
