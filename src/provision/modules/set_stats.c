/* set_stats.c: the `set_stats` module: data (a mapping whose keys are
 * variable names), per_host (default false), aggregate (default true),
 * returned as ansible_stats, which the run gathers into its custom stats
 * (custom-stats.c) and prints after the recap when
 * ANSIBLE_SHOW_CUSTOM_STATS asks for them (output.c). */
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

const struct task_module mod_set_stats = {
	.name = "set_stats", .controller = true, .same_in_check_mode = true, .run = set_stats_run,
};
