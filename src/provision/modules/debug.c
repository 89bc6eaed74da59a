/* debug.c: the `debug` module: prints msg or the value of var; runs on the
 * controller only. imc runs at Ansible's verbosity 0 (it has no -v): a
 * debug with a higher verbosity is skipped, as ansible-playbook without -v
 * skips it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *debug_run(struct exec_ctx *x, json_t *args)
{
	json_t *vb = json_object_get(args, "verbosity");
	long level = json_is_integer(vb) ? (long)json_integer_value(vb)
		     : json_is_string(vb) ? strtol(json_string_value(vb), NULL, 10) : 0;
	if (level > 0)
		return json_pack("{s:b, s:b, s:s}", "changed", 0, "skipped", 1, "skipped_reason",
				 "Verbosity threshold not met.");
	json_t *res = res_new(false);
	json_t *var = json_object_get(args, "var");
	if (var && json_is_string(var)) {
		const char *name = json_string_value(var);
		struct diag d = DIAG_INIT;
		json_t *v = xt_expr(x, name, &d);
		if (!v) {
			/* only an undefined variable is "not defined": another
			 * error fails the task as Ansible's templar words it, on
			 * the "{{NAME}}" debug makes of var (no "changed") */
			char *t = xasprintf("{{%s}}", name);
			json_t *tv = json_string(t);
			struct diag d2 = DIAG_INIT;
			json_t *r = xt_value(x, tv, &d2);
			const char *m = diag_first_message(&d2);
			if (!r && m && !strncmp(m, "Unexpected templating type error", 32)) {
				json_decref(res);
				res = json_pack("{s:b, s:s}", "failed", 1, "msg", m);
			} else
				json_object_set_new(res, name, json_string("VARIABLE IS NOT DEFINED!"));
			json_decref(r);
			json_decref(tv);
			diag_release(&d2);
			free(t);
		} else {
			/* an expression, not a bare variable name, is templated
			 * as "{{NAME}}" is, its value made text as Ansible's
			 * templar makes it (where the name of a variable holding
			 * a number or a boolean keeps its type) */
			if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]) {
				char *t = xasprintf("{{%s}}", name);
				json_t *tv = json_string(t);
				json_t *r = xt_value(x, tv, &d);
				if (r) {
					json_decref(v);
					v = r;
				}
				json_decref(tv);
				free(t);
			} else if (json_is_string(v) && xt_is_template(json_string_value(v))) {
				/* debug: var prints the templated text */
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
	.name = "debug", .controller = true, .same_in_check_mode = true, .run = debug_run,
};
