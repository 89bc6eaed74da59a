/* raw.c: the `raw` module (IM's basic.yml bootstraps the node with it):
 * the text goes to the node's shell as is, no wrapper, no chdir; stdout is
 * kept unstripped as Ansible keeps it; always changed; skipped in check
 * mode. */
#include "config.h"

#include "provision/module.h"
#include "util/banned.h"

static json_t *raw_run(struct exec_ctx *x, json_t *args)
{
	const char *cmd = args_str(args, "_raw_params");
	if (!cmd)
		return res_fail("no command given");
	/* Ansible's raw action skips itself in check mode, nothing else said */
	if (x->check_mode)
		return json_pack("{s:b, s:b}", "changed", 0, "skipped", 1);
	struct strbuf c = STRBUF_INIT;
	const char *exe = args_str(args, "executable");
	if (exe) {
		strbuf_addstr(&c, "exec ");
		sh_quote(&c, exe);
		strbuf_addstr(&c, " -c ");
		sh_quote(&c, cmd);
	} else
		strbuf_addstr(&c, cmd);
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh_as_is(x, c.buf, NULL, 0, &cr, &res) < 0) {
		strbuf_release(&c);
		conn_result_release(&cr);
		return res;
	}
	strbuf_release(&c);
	res = json_object();
	json_object_set_new(res, "changed", json_true());
	res_set_output(res, &cr);
	json_object_set_new(res, "stdout", json_stringn(cr.out.buf ? cr.out.buf : "", cr.out.len));
	json_object_set_new(res, "stderr", json_stringn(cr.err.buf ? cr.err.buf : "", cr.err.len));
	/* the executor's splitlines of the output as it came: "a\n\n" is
	 * ["a", ""] */
	json_object_set_new(res, "stdout_lines", mod_splitlines(strbuf_str(&cr.out)));
	json_object_set_new(res, "stderr_lines", mod_splitlines(strbuf_str(&cr.err)));
	if (cr.rc != 0) {
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "msg", json_string("non-zero return code"));
	}
	conn_result_release(&cr);
	return res;
}

const struct task_module mod_raw = {
	.name = "raw", .free_form = true, .check_mode_native = true, .run = raw_run,
};
