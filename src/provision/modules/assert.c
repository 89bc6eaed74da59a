/* assert.c: the `assert` module: fails with fail_msg unless every condition of
 * `that` holds; runs on the controller only. */
#include "config.h"

#include <stdlib.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* fail_msg (or msg) and success_msg: a string or a list of strings, kept
 * as they are in the result's msg; anything else fails the task before a
 * condition is looked at, in the words of Ansible's assert action (an
 * action's error: no "changed"). NULL when v is fine. */
static json_t *bad_msg(json_t *v, const char *what)
{
	char *m = NULL;
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (!json_is_string(e) && !m)
				m = xasprintf("Type of one of the elements in %s list is not string type.", what);
	} else if (v && !json_is_null(v) && !json_is_string(v))
		m = xasprintf("Incorrect type for %s, expected a string or list and got <class '%s'>", what,
			      mod_pytype(v));
	if (!m)
		return NULL;
	json_t *r = json_pack("{s:b, s:s}", "failed", 1, "msg", m);
	free(m);
	return r;
}

static json_t *assert_run(struct exec_ctx *x, json_t *args)
{
	/* 'that' is not templated as a value: its items are bare expressions */
	json_t *that = json_object_get(x->task->args, "that");
	if (!that)
		return res_fail("missing required arguments: that");
	json_t *fm = json_object_get(args, "fail_msg");
	if (!fm)
		fm = json_object_get(args, "msg");
	json_t *sm = json_object_get(args, "success_msg");
	json_t *bad = bad_msg(fm, "fail_msg or msg");
	if (!bad)
		bad = bad_msg(sm, "success_msg");
	if (bad)
		return bad;
	/* a single condition is templated with the other arguments before
	 * Ansible's action evaluates it (so it is evaluated, and named in
	 * the result, as templated); a list's items are not */
	json_t *targs = json_object_get(args, "that");
	if (json_is_string(that) && json_is_string(targs))
		that = targs;
	json_t *list = json_is_array(that) ? json_incref(that) : json_pack("[O]", that);
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		bool ok = false;
		struct diag d = DIAG_INIT;
		if (xt_conditional(x, e, &ok, &d) < 0) {
			/* an error of the action: no "changed" */
			json_t *r = json_pack("{s:b, s:s}", "failed", 1, "msg", diag_first_message(&d));
			diag_release(&d);
			json_decref(list);
			return r;
		}
		diag_release(&d);
		if (!ok) {
			json_t *r = res_fail("Assertion failed");
			if (fm && !json_is_null(fm))
				json_object_set(r, "msg", fm);
			json_object_set(r, "assertion", e);
			json_object_set_new(r, "evaluated_to", json_false());
			json_decref(list);
			return r;
		}
	}
	json_decref(list);
	json_t *res = res_new(false);
	if (sm && !json_is_null(sm))
		json_object_set(res, "msg", sm);
	else
		json_object_set_new(res, "msg", json_string("All assertions passed"));
	return res;
}

const struct task_module mod_assert = {
	.name = "assert", .controller = true, .same_in_check_mode = true, .run = assert_run,
};
