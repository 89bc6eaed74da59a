/* fail.c: the `fail` module: fails the task with msg; runs on the controller only. */
#include "config.h"

#include "provision/module.h"
#include "util/banned.h"

static json_t *fail_run(struct exec_ctx *x, json_t *args)
{
	(void)x;
	json_t *res = res_fail("Failed as requested from task");
	/* Ansible's action returns msg as given: a list or a mapping too */
	json_t *m = json_object_get(args, "msg");
	if (m)
		json_object_set(res, "msg", m);
	return res;
}

const struct task_module mod_fail = {
	.name = "fail", .controller = true, .same_in_check_mode = true, .run = fail_run,
};
