/* group.c: the `group` module with groupadd/groupmod/groupdel on the node,
 * as Ansible 2.14's: state=present adds the group (gid, system,
 * non_unique) or changes its gid when it differs, state=absent deletes
 * it; the result holds name, state, changed, the command's stdout and
 * stderr when not empty, and, when the group exists afterwards, system
 * (the parameter) and its gid. Check mode is native: what would be added
 * or deleted is reported changed and nothing else (Ansible's module exits
 * there), a gid change is reported changed with the group's present gid,
 * and nothing is run. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

/* Whether group name exists on the node (getent: the NSS lookup Ansible's
 * grp.getgrnam does) and its gid. 0, or -1 unreachable/failed (*res). */
static int group_lookup(struct exec_ctx *x, const char *name, bool *exists, long long *gid,
			json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "getent group ");
	sh_quote(&c, name);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0) {
		/* NAME:PASSWD:GID:MEMBERS */
		const char *o = strbuf_str(&cr.out);
		const char *f = strchr(o, ':');
		f = f ? strchr(f + 1, ':') : NULL;
		*exists = cr.rc == 0 && f;
		*gid = *exists ? strtoll(f + 1, NULL, 10) : -1;
		if (cr.rc != 0 && cr.rc != 2) {
			*res = res_fail("getent group failed: %s", strbuf_str(&cr.err));
			rc = -1;
		}
	}
	conn_result_release(&cr);
	return rc;
}

static json_t *group_run(struct exec_ctx *x, json_t *args)
{
	const char *name = args_str(args, "name");
	if (!name)
		return res_fail("missing required arguments: name");
	const char *state = args_str(args, "state");
	if (!state)
		state = "present";
	if (strcmp(state, "present") && strcmp(state, "absent"))
		return res_fail("value of state must be one of: absent, present, got: %s", state);
	json_t *gv = json_object_get(args, "gid");
	long long gid = -1;
	if (gv && !json_is_null(gv)) {
		char *end = NULL;
		const char *s = json_string_value(gv);
		if (json_is_integer(gv))
			gid = (long long)json_integer_value(gv);
		else if (!s || (gid = strtoll(s, &end, 10), !*s || *end))
			return res_fail("argument 'gid' is of type %s and we were unable to convert to int: "
					"%s cannot be converted to an int", s ? "<class 'str'>" : "<class 'float'>",
					s ? "<class 'str'>" : "<class 'float'>");
	}
	bool system = args_bool(json_object_get(args, "system"), false);
	bool non_unique = args_bool(json_object_get(args, "non_unique"), false);
	if (non_unique && gid < 0)
		return res_fail("non_unique is True but all of the following are missing: gid");

	json_t *res = NULL;
	bool exists;
	long long cur;
	if (group_lookup(x, name, &exists, &cur, &res) < 0)
		return res;
	struct strbuf c = STRBUF_INIT;
	bool absent = !strcmp(state, "absent");
	if (absent && exists)
		strbuf_addstr(&c, "groupdel");
	else if (!absent && !exists) {
		strbuf_addstr(&c, "groupadd");
		if (gid >= 0)
			strbuf_addf(&c, " -g %lld%s", gid, non_unique ? " -o" : "");
		if (system)
			strbuf_addstr(&c, " -r");
	} else if (!absent && gid >= 0 && cur != gid)
		strbuf_addf(&c, "groupmod -g %lld%s", gid, non_unique ? " -o" : "");
	bool changed = c.len > 0;
	/* Ansible's module exits with changed alone before adding or deleting */
	if (x->check_mode && changed && !(exists && !absent)) {
		res = res_new(true);
		goto out;
	}
	res = json_object();
	json_object_set_new(res, "name", json_string(name));
	json_object_set_new(res, "state", json_string(state));
	if (changed && !x->check_mode) {
		strbuf_addch(&c, ' ');
		sh_quote(&c, name);
		struct conn_result cr;
		conn_result_init(&cr);
		json_t *ur = NULL;
		if (mod_sh(x, c.buf, NULL, 0, &cr, &ur) < 0) {
			json_decref(res);
			res = ur;
			conn_result_release(&cr);
			goto out;
		}
		if (cr.rc != 0) {
			json_decref(res);
			res = res_fail("%s", strbuf_str(&cr.err));
			json_object_set_new(res, "name", json_string(name));
			conn_result_release(&cr);
			goto out;
		}
		if (cr.out.len)
			json_object_set_new(res, "stdout", json_string(strbuf_str(&cr.out)));
		if (cr.err.len)
			json_object_set_new(res, "stderr", json_string(strbuf_str(&cr.err)));
		conn_result_release(&cr);
		json_t *ur2 = NULL;
		if (group_lookup(x, name, &exists, &cur, &ur2) < 0) {
			json_decref(res);
			res = ur2;
			goto out;
		}
	}
	json_object_set_new(res, "changed", json_boolean(changed));
	if (exists) {
		json_object_set_new(res, "system", json_boolean(system));
		json_object_set_new(res, "gid", json_integer(cur));
	}
out:
	strbuf_release(&c);
	return res;
}

/* what run implements (module.h) */
static const char *const group_params[] = { "gid", "name", "non_unique", "state", "system", NULL };

const struct task_module mod_group = {
	.name = "group", .params = group_params, .check_mode_native = true, .run = group_run,
};
