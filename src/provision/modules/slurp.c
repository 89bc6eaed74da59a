/* slurp.c: the `slurp` module: a node file's content, base64-encoded, in the
 * result; a file it cannot read fails in the words Ansible's gives for the
 * error (missing, a directory, not readable). */
#include "config.h"

#include "provision/module.h"
#include "util/banned.h"

static json_t *slurp_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src");
	if (!src)
		src = args_str(args, "path");
	if (!src)
		return res_fail("missing required arguments: src");
	struct strbuf c = STRBUF_INIT;
	/* the errno Ansible's open() would meet, as its exit status */
	strbuf_addstr(&c, "p=");
	sh_quote(&c, src);
	strbuf_addstr(&c, "; [ -d \"$p\" ] && exit 21; [ -e \"$p\" ] || exit 2; [ -r \"$p\" ] || exit 13; "
			 "base64 -w0 -- \"$p\" || exit 1");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		if (cr.rc == 21)
			res = res_fail("source is a directory and must be a file: %s", src);
		else if (cr.rc == 13)
			res = res_fail("file is not readable: %s", src);
		else if (cr.rc == 2)
			res = res_fail("file not found: %s", src);
		else if (cr.rc)
			res = res_fail("unable to slurp file: %s", strbuf_str(&cr.err));
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

/* what run implements (module.h) */
static const char *const slurp_params[] = { "path", "src", NULL };

static const char *const slurp_node_paths[] = { "src", "path", NULL };

const struct task_module mod_slurp = {
	.name = "slurp",
	.params = slurp_params,
	.run = slurp_run,
	.same_in_check_mode = true,
	.node_paths = slurp_node_paths,
};
