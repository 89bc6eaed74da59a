/* ping.c: ping, as Ansible's: proves that the node answers (a no-op
 * command runs there as the task's user) and returns {"ping": DATA},
 * "pong" by default; data=crash fails as Ansible's does: the module
 * raises an exception it does not catch ("MODULE FAILURE", rc 1). */
#include "config.h"

#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

static json_t *ping_run(struct exec_ctx *x, json_t *args)
{
	/* data is a str parameter: a number or a boolean is converted as
	 * Python's str() does */
	struct strbuf ds = STRBUF_INIT;
	json_t *dv = json_object_get(args, "data");
	if (dv && !json_is_null(dv))
		args_pystr(&ds, dv);
	else
		strbuf_addstr(&ds, "pong");
	const char *data = strbuf_str(&ds);
	if (!strcmp(data, "crash")) {
		/* what the module's uncaught exception leaves: its traceback
		 * as the module's stderr and as exception, no stdout */
		strbuf_release(&ds);
		json_t *res = res_module_failure();
		const char *tb = "Traceback (most recent call last):\n"
				 "  File \"ansible/modules/ping.py\", line 79, in main\n"
				 "Exception: boom\n";
		json_object_set_new(res, "module_stdout", json_string(""));
		json_object_set_new(res, "module_stderr", json_string(tb));
		json_object_set_new(res, "exception", json_string(tb));
		return res;
	}
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, "true", NULL, 0, &cr, &res) < 0) {
		conn_result_release(&cr);
		strbuf_release(&ds);
		return res;
	}
	if (cr.rc != 0)
		res = res_fail("the node could not run a command (exit %d)", cr.rc);
	else {
		res = res_new(false);
		json_object_set_new(res, "ping", json_string(data));
	}
	conn_result_release(&cr);
	strbuf_release(&ds);
	return res;
}

/* what run implements (module.h) */
static const char *const ping_params[] = { "data", NULL };

const struct task_module mod_ping = {
	.name = "ping", .params = ping_params, .run = ping_run, .same_in_check_mode = true,
};
