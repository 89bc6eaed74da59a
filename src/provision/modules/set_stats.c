/* set_stats.c: the `set_stats` module: data (a mapping whose keys are
 * variable names), per_host (default false), aggregate (default true),
 * returned as ansible_stats. The custom stats they would add to are shown
 * by neither Ansible's default nor its json callback unless
 * show_custom_stats is configured, which imc does not offer: the result
 * is all there is to see. Asked for through the environment
 * (ANSIBLE_SHOW_CUSTOM_STATS), the playbook is not supported. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

/* Ansible's non-strict boolean: only 1 among numbers is true. */
static bool loose_bool(json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v) == 1;
	if (json_is_real(v))
		return json_real_value(v) == 1.0;
	return args_bool(v, false);
}

static json_t *set_stats_run(struct exec_ctx *x, json_t *args)
{
	(void)x;
	static const char *const valid[] = { "data", "per_host", "aggregate", NULL };
	json_t *bad = res_bad_options(args, "set_stats", valid);
	if (bad)
		return bad;
	json_t *data = json_object_get(args, "data");
	const char *k;
	json_t *v;
	if (data && !json_is_object(data))
		return res_fail("The 'data' option needs to be a dictionary/hash");
	json_object_foreach(data, k, v)
		if (!args_identifier(k))
			return res_fail("The variable name '%s' is not valid. Variables must start with a letter or underscore character, and contain only letters, numbers and underscores.", k);
	json_t *ph = json_object_get(args, "per_host"), *ag = json_object_get(args, "aggregate");
	json_t *stats = json_pack("{s:o, s:b, s:b}", "data", data ? json_incref(data) : json_object(),
				  "per_host", ph && !json_is_null(ph) ? loose_bool(ph) : false,
				  "aggregate", ag && !json_is_null(ag) ? loose_bool(ag) : true);
	json_t *res = res_new(false);
	json_object_set_new(res, "ansible_stats", stats);
	return res;
}

static int set_stats_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	(void)args;
	const char *show = getenv("ANSIBLE_SHOW_CUSTOM_STATS");
	json_t *v = show ? json_string(show) : NULL;
	bool on = args_bool(v, false);
	json_decref(v);
	if (!on)
		return 0;
	diag_error(d, IMC_EXIT_DATAERR, loc,
		   "set_stats with ANSIBLE_SHOW_CUSTOM_STATS (custom stats in the recap) is not supported");
	return -1;
}

const struct task_module mod_set_stats = {
	.name = "set_stats", .controller = true, .same_in_check_mode = true, .check = set_stats_check, .run = set_stats_run,
};
