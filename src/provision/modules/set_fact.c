/* set_fact.c: the `set_fact` module: Ansible's typing of templated values, stored as
 * host facts; it runs on the controller only and never touches the node. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "provision/module.h"
#include "util/banned.h"

static json_t *set_fact_run(struct exec_ctx *x, json_t *args)
{
	json_t *facts = json_object();
	bool cacheable = args_bool(json_object_get(args, "cacheable"), false);
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v) {
		if (!strcmp(k, "cacheable") || !strcmp(k, "_raw_params"))
			continue;
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
		json_t *src = json_object_get(x->task->args, k);
		exec_mark_native(x->facts_host ? x->facts_host : x->host, k, json_is_string(src) &&
				 xt_is_template(json_string_value(src)));
	}
	json_t *res = res_new(false);
	json_object_set_new(res, "ansible_facts", facts);
	return res;
}

const struct task_module mod_set_fact = {
	.name = "set_fact", .controller = true, .same_in_check_mode = true, .run = set_fact_run,
};
