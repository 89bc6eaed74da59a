/* script.c: the `script` module: a controller-side script copied to the node
 * and run there. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Ansible's AnsibleActionSkip: skipped, not changed, msg the reason */
static json_t *skipped_because(const char *path, const char *why)
{
	json_t *res = res_new(false);
	json_object_set_new(res, "skipped", json_true());
	json_object_set_new(res, "msg", json_sprintf("%s %s", path, why));
	return res;
}

static json_t *script_run(struct exec_ctx *x, json_t *args)
{
	/* as Ansible's script action: creates/removes are looked at first
	 * (before the script is looked for), and a match skips the task, the
	 * result saying why in Ansible's words */
	const char *creates = args_str(args, "creates");
	const char *removes = args_str(args, "removes");
	struct node_stat st;
	json_t *res = NULL;
	if (creates) {
		if (mod_stat(x, creates, true, false, &st, &res) < 0)
			return res;
		if (st.exists)
			return skipped_because(creates, "exists, matching creates option");
	}
	if (removes) {
		if (mod_stat(x, removes, true, false, &st, &res) < 0)
			return res;
		if (!st.exists)
			return skipped_because(removes, "does not exist, matching removes option");
	}
	/* a relative chdir would depend on the node's login directory */
	const char *chdir = args_str(args, "chdir");
	if (chdir && chdir[0] != '/')
		return res_fail("chdir %s must be an absolute path for a Unix-aware remote node", chdir);
	const char *raw = args_str(args, "_raw_params");
	if (!raw)
		raw = args_str(args, "cmd");
	if (!raw)
		return res_fail("no script given");
	json_t *words = args_shlex(raw);
	if (!words || !json_array_size(words)) {
		json_decref(words);
		return res_fail("cannot parse '%s'", raw);
	}
	const char *src = json_string_value(json_array_get(words, 0));
	char *path = mod_find_src(x, "files", src);
	struct strbuf data = STRBUF_INIT;
	if (!path || mod_read_src(path, &data, &res) < 0) {
		if (!res)
			res = res_fail("Could not find or access '%s'", src);
		goto out;
	}
	/* check mode, as Ansible's action: with creates or removes (which did
	 * not skip the task above) the script would run, so changed; without,
	 * what the script would do is unknown, so the task is skipped */
	if (x->check_mode) {
		if (creates || removes) {
			res = res_new(true);
		} else {
			res = res_new(false);
			json_object_set_new(res, "skipped", json_true());
			json_object_set_new(res, "msg", json_string("Check mode is not supported for this task."));
		}
		goto out;
	}
	/* copy to a temp file on the node, run it, remove it */
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "t=$(mktemp /tmp/.imc_script.XXXXXX) || exit 1; cat > \"$t\"; chmod 700 \"$t\"; ");
	if (chdir) {
		strbuf_addstr(&c, "cd ");
		sh_quote(&c, chdir);
		strbuf_addstr(&c, " || exit 1; ");
	}
	const char *exe = args_str(args, "executable");
	if (exe) {
		sh_quote(&c, exe);
		strbuf_addch(&c, ' ');
	}
	strbuf_addstr(&c, "\"$t\"");
	size_t i;
	json_t *w;
	json_array_foreach(words, i, w) {
		if (i == 0)
			continue;
		strbuf_addch(&c, ' ');
		sh_quote(&c, json_string_value(w) ? json_string_value(w) : "");
	}
	strbuf_addstr(&c, " </dev/null; rc=$?; rm -f \"$t\"; exit $rc");
	struct conn_result cr;
	conn_result_init(&cr);
	if (mod_sh(x, c.buf, data.buf, data.len, &cr, &res) == 0) {
		res = json_object();
		json_object_set_new(res, "changed", json_true());
		res_set_output(res, &cr);
		/* the action returns what the script printed unstripped */
		json_object_set_new(res, "stdout", json_stringn(cr.out.buf ? cr.out.buf : "", cr.out.len));
		json_object_set_new(res, "stderr", json_stringn(cr.err.buf ? cr.err.buf : "", cr.err.len));
		if (cr.rc != 0) {
			json_object_set_new(res, "failed", json_true());
			json_object_set_new(res, "msg", json_string("non-zero return code"));
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
out:
	strbuf_release(&data);
	free(path);
	json_decref(words);
	return res;
}

const struct task_module mod_script = {
	.name = "script", .free_form = true, .check_mode_native = true, .run = script_run,
};
