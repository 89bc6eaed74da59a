/* async_status.c: the `async_status` module: the state of a job started
 * with async (finished, its result, or still running), or mode=cleanup to
 * remove the job's files on the node. */
#include "config.h"

#include <string.h>

#include "provision/task.h"
#include "util/banned.h"

static json_t *async_status_run(struct exec_ctx *x, json_t *args)
{
	const char *jid = args_str(args, "jid");
	if (!jid)
		return res_fail("missing required arguments: jid");
	const char *mode = args_str(args, "mode");
	if (mode && !strcmp(mode, "cleanup")) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "rm -f \"$HOME/.ansible_async/\"");
		sh_quote(&c, jid);
		strbuf_addstr(&c, ".*");
		struct conn_result cr;
		conn_result_init(&cr);
		json_t *res = NULL;
		if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0)
			res = json_pack("{s:b, s:s, s:b}", "changed", 0, "ansible_job_id", jid, "erased", 1);
		conn_result_release(&cr);
		strbuf_release(&c);
		return res;
	}
	return exec_async_status(x, jid);
}

const struct task_module mod_async_status = {
	.name = "async_status", .run = async_status_run,
};
