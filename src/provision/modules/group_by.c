/* group_by.c: the `group_by` module: puts the host in the group named by
 * key (spaces become dashes), under the parents groups (default "all"),
 * in the run's in-memory inventory; changed is whether the inventory
 * changed, as Ansible reports it; the result's add_group and
 * parent_groups say what was asked. */
#include "config.h"

#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *dashed(const char *s)
{
	char *c = xstrdup(s);
	for (char *p = c; *p; p++)
		if (*p == ' ')
			*p = '-';
	json_t *r = json_string(c);
	free(c);
	return r;
}

static json_t *group_by_run(struct exec_ctx *x, json_t *args)
{
	static const char *const valid[] = { "key", "parents", NULL };
	json_t *bad = res_bad_options(args, "group_by", valid);
	if (bad)
		return bad;
	if (!json_object_get(args, "key"))
		return res_fail("the 'key' param is required when using group_by");
	char *key = args_strdup(args, "key");
	json_t *pv = json_object_get(args, "parents");
	json_t *parents = json_array();
	if (!pv)
		json_array_append_new(parents, json_string("all"));
	else if (json_is_string(pv))
		json_array_append_new(parents, dashed(json_string_value(pv)));
	else if (json_is_array(pv)) {
		size_t i;
		json_t *e;
		json_array_foreach(pv, i, e) {
			if (!json_is_string(e)) {
				free(key);
				json_decref(parents);
				return res_fail("group_by: parents must be names");
			}
			json_array_append_new(parents, dashed(json_string_value(e)));
		}
	} else {
		free(key);
		json_decref(parents);
		return res_fail("group_by: parents must be a name or a list of names");
	}
	json_t *group = dashed(key ? key : "");
	free(key);
	bool changed = inventory_group_by(x->run, x->host, json_string_value(group), parents);
	json_t *res = res_new(changed);
	json_object_set_new(res, "add_group", group);
	json_object_set_new(res, "parent_groups", parents);
	return res;
}

const struct task_module mod_group_by = {
	.name = "group_by", .controller = true, .same_in_check_mode = true, .run = group_by_run,
};
