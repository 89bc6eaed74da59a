/* tempfile.c: `tempfile`, as Ansible's: creates a uniquely named file
 * (or directory, state=directory) on the node, in path (default the node's
 * TMPDIR, else /tmp) named prefix + 8 random characters + suffix (prefix
 * "ansible." by default), mode 0600 (0700), and returns its path. Always
 * changed. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *tempfile_run(struct exec_ctx *x, json_t *args)
{
	const char *state = args_str(args, "state");
	if (state && strcmp(state, "file") && strcmp(state, "directory"))
		return res_fail("value of state must be one of: file, directory, got: %s", state);
	/* the module declares no check mode: once its arguments are
	 * validated, it says so and is skipped */
	if (x->check_mode)
		return json_pack("{s:b, s:b, s:s}", "changed", 0, "skipped", 1, "msg",
				 "remote module (tempfile) does not support check mode");
	bool dir = state && !strcmp(state, "directory");
	const char *path = args_str(args, "path"), *prefix = args_str(args, "prefix");
	const char *suffix = args_str(args, "suffix");
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "d=");
	if (path)
		sh_quote(&c, path);
	else
		strbuf_addstr(&c, "\"${TMPDIR:-/tmp}\"");
	strbuf_addstr(&c, "; sfx=");
	sh_quote(&c, suffix ? suffix : "");
	strbuf_addstr(&c, "; tmpl=");
	struct strbuf tmpl = STRBUF_INIT;
	strbuf_addf(&tmpl, "%sXXXXXXXX", prefix ? prefix : "ansible.");
	sh_quote(&c, tmpl.buf);
	strbuf_release(&tmpl);
	/* a missing directory: Python's mkstemp/mkdtemp raising, its message
	 * naming the name it drew (removed from the path is the trailing
	 * "/" that os.path.join does not double) */
	strbuf_addstr(&c, "; [ -d \"$d\" ] || { n=$(mktemp -u -p / --suffix=\"$sfx\" \"$tmpl\") && "
			 "printf \"[Errno 2] No such file or directory: '%s%s'\" \"${d%/}\" \"$n\" >&2; exit 1; }");
	strbuf_addf(&c, "; mktemp %s-p \"$d\" --suffix=\"$sfx\" \"$tmpl\"", dir ? "-d " : "");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		const char *o = strbuf_str(&cr.out);
		char *out = xstrndup(o, strcspn(o, "\n"));
		if (cr.rc != 0 || !*out) {
			const char *err = strbuf_str(&cr.err);
			res = res_fail("%s", *err ? err : "mktemp failed");
		} else {
			res = res_new(true);
			json_object_set_new(res, "path", json_string(out));
			json_object_set_new(res, "state", json_string(dir ? "directory" : "file"));
			/* the module's exit_json adds the path's information */
			mod_path_info(x, res);
		}
		free(out);
	}
	strbuf_release(&c);
	conn_result_release(&cr);
	return res;
}

/* what run implements (module.h) */
static const char *const tempfile_params[] = { "path", "prefix", "state", "suffix", NULL };

static const char *const tempfile_node_paths[] = { "path", NULL };

const struct task_module mod_tempfile = {
	.name = "tempfile",
	.params = tempfile_params,
	.check_mode_native = true,
	.run = tempfile_run,
	.node_paths = tempfile_node_paths,
};
