/* assert.c: the `assert` module: fails with fail_msg unless every condition of
 * `that` holds; runs on the controller only. */
#include "config.h"

#include "provision/module.h"
#include "util/banned.h"

static json_t *assert_run(struct exec_ctx *x, json_t *args)
{
	/* 'that' is not templated as a value: its items are bare expressions */
	json_t *that = json_object_get(x->task->args, "that");
	if (!that)
		return res_fail("missing required arguments: that");
	json_t *list = json_is_array(that) ? json_incref(that) : json_pack("[O]", that);
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		bool ok = false;
		struct diag d = DIAG_INIT;
		if (xt_assert_cond(x, e, &ok, &d) < 0) {
			json_t *r = res_fail("%s", diag_first_message(&d));
			diag_release(&d);
			json_decref(list);
			return r;
		}
		diag_release(&d);
		if (!ok) {
			json_t *fm = json_object_get(args, "fail_msg");
			if (!fm)
				fm = json_object_get(args, "msg");
			json_t *r = res_fail("%s", json_is_string(fm) ? json_string_value(fm)
						   : "Assertion failed");
			json_object_set(r, "assertion", e);
			json_object_set_new(r, "evaluated_to", json_false());
			json_decref(list);
			return r;
		}
	}
	json_decref(list);
	json_t *res = res_new(false);
	const char *sm = args_str(args, "success_msg");
	json_object_set_new(res, "msg", json_string(sm ? sm : "All assertions passed"));
	return res;
}

const struct task_module mod_assert = {
	.name = "assert", .controller = true, .same_in_check_mode = true, .run = assert_run,
};
