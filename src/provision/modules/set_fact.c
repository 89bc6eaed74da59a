/* set_fact.c: the `set_fact` module: Ansible's typing of templated values, stored as
 * host facts under their templated names; it runs on the controller only and never
 * touches the node. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "provision/module.h"
#include "util/banned.h"

/* The fact name an argument key gives: Ansible's action templates it
 * (new reference; NULL with *res set on a failure). */
static json_t *fact_name(struct exec_ctx *x, const char *k, json_t **res)
{
	json_t *name = json_string(k);
	if (xt_is_template(k)) {
		struct diag d = DIAG_INIT;
		json_t *t = xt_value(x, name, &d);
		json_decref(name);
		name = t;
		if (!name)
			*res = res_fail("%s", diag_first_message(&d));
		diag_release(&d);
		if (!name)
			return NULL;
	}
	const char *n = json_is_string(name) ? json_string_value(name) : "";
	if (!args_identifier(n)) {
		*res = res_fail("The variable name '%s' is not valid. Variables must start with a letter or underscore character, and contain only letters, numbers and underscores.", n);
		json_decref(name);
		return NULL;
	}
	return name;
}

static json_t *set_fact_run(struct exec_ctx *x, json_t *args)
{
	json_t *facts = json_object();
	bool cacheable = args_bool(json_object_get(args, "cacheable"), false);
	const char *ak;
	json_t *v;
	json_object_foreach(args, ak, v) {
		if (!strcmp(ak, "cacheable") || !strcmp(ak, "_raw_params"))
			continue;
		json_t *fail = NULL;
		json_t *name = fact_name(x, ak, &fail);
		if (!name) {
			json_decref(facts);
			return fail;
		}
		const char *k = json_string_value(name);
		/* Ansible's set_fact (jinja2_native off, its default) turns the
		 * strings true/false/yes/no, any case, into booleans */
		const char *sv = json_string_value(v);
		json_t *conv = NULL;
		if (sv && (!strcasecmp(sv, "true") || !strcasecmp(sv, "yes")))
			conv = json_true();
		else if (sv && (!strcasecmp(sv, "false") || !strcasecmp(sv, "no")))
			conv = json_false();
		if (conv)
			v = conv;
		json_object_set(facts, k, v);
		exec_set_fact(x->run, x->facts_host ? x->facts_host : x->host, k, v);
		if (cacheable)
			exec_cache_fact(x->facts_host ? x->facts_host : x->host, k, v);
		json_t *src = json_object_get(x->task->args, ak);
		exec_mark_native(x->facts_host ? x->facts_host : x->host, k, json_is_string(src) &&
				 xt_is_template(json_string_value(src)));
		json_decref(name);
	}
	json_t *res = res_new(false);
	json_object_set_new(res, "ansible_facts", facts);
	return res;
}

const struct task_module mod_set_fact = {
	.name = "set_fact", .controller = true, .same_in_check_mode = true, .run = set_fact_run,
};
