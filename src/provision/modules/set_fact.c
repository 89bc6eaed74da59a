/* mod-control.c: the modules that run on the controller only and never
 * touch the node: set_fact (Ansible's typing of templated values, stored as
 * host facts), debug (msg or var), fail, assert and pause. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provision/task.h"
#include "template/template.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *set_fact_run(struct exec_ctx *x, json_t *args)
{
	json_t *facts = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v) {
		if (!strcmp(k, "cacheable") || !strcmp(k, "_raw_params"))
			continue;
		json_object_set(facts, k, v);
		exec_set_fact(x->run, x->host, k, v);
		json_t *src = json_object_get(x->task->args, k);
		exec_mark_native(x->host, k, json_is_string(src) &&
				 tmpl_has_template(json_string_value(src)));
	}
	json_t *res = res_new(false);
	json_object_set_new(res, "ansible_facts", facts);
	return res;
}

const struct task_module mod_set_fact = {
	.name = "set_fact", .controller = true, .run = set_fact_run,
};

static json_t *debug_run(struct exec_ctx *x, json_t *args)
{
	json_t *res = res_new(false);
	json_t *var = json_object_get(args, "var");
	if (var && json_is_string(var)) {
		const char *name = json_string_value(var);
		struct diag d = DIAG_INIT;
		json_t *v = xt_expr(x, name, &d);
		if (!v)
			json_object_set_new(res, name, json_string("VARIABLE IS NOT DEFINED!"));
		else {
			/* debug: var prints the templated text */
			if (json_is_string(v) && tmpl_has_template(json_string_value(v))) {
				json_t *r = xt_value(x, v, &d);
				if (r) {
					json_decref(v);
					v = r;
				}
			}
			json_object_set_new(res, name, v);
		}
		diag_release(&d);
		return res;
	}
	json_t *msg = json_object_get(args, "msg");
	if (!msg)
		msg = json_object_get(args, "_raw_params");
	json_object_set(res, "msg", msg ? msg : json_string("Hello world!"));
	if (!msg)
		json_decref(json_object_get(res, "msg"));
	return res;
}

const struct task_module mod_debug = {
	.name = "debug", .controller = true, .run = debug_run,
};

static json_t *fail_run(struct exec_ctx *x, json_t *args)
{
	(void)x;
	const char *m = args_str(args, "msg");
	return res_fail("%s", m ? m : "Failed as requested from task");
}

const struct task_module mod_fail = {
	.name = "fail", .controller = true, .run = fail_run,
};

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
		if (xt_cond(x, e, &ok, &d) < 0) {
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
	.name = "assert", .controller = true, .run = assert_run,
};

static json_t *pause_run(struct exec_ctx *x, json_t *args)
{
	(void)x;
	double s = 0;
	json_t *sv = json_object_get(args, "seconds"), *mv = json_object_get(args, "minutes");
	if (sv)
		s = json_is_number(sv) ? json_number_value(sv) : strtod(json_string_value(sv) ? json_string_value(sv) : "0", NULL);
	if (mv)
		s += 60 * (json_is_number(mv) ? json_number_value(mv) : strtod(json_string_value(mv) ? json_string_value(mv) : "0", NULL));
	if (!sv && !mv && json_object_get(args, "prompt"))
		return res_fail("pause with a prompt needs a terminal; imc runs unattended");
	if (s > 0)
		usleep((useconds_t)(s * 1e6));
	json_t *res = res_new(false);
	json_object_set_new(res, "delta", json_integer((json_int_t)s));
	json_object_set_new(res, "stdout", json_string("Paused"));
	return res;
}

const struct task_module mod_pause = {
	.name = "pause", .controller = true, .run = pause_run,
};
