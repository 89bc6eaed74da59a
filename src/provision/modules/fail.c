/* fail.c: the `fail` module: fails the task with msg; runs on the controller only. */
#include "config.h"

#include "provision/module.h"
#include "util/banned.h"

static json_t *fail_run(struct exec_ctx *x, json_t *args)
{
	(void)x;
	const char *m = args_str(args, "msg");
	return res_fail("%s", m ? m : "Failed as requested from task");
}

const struct task_module mod_fail = {
	.name = "fail", .controller = true, .same_in_check_mode = true, .run = fail_run,
};
