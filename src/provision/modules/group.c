/* group.c: the `group` module with groupadd/groupdel (gid, system) on the node. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

static json_t *group_run(struct exec_ctx *x, json_t *args)
{
	const char *name = args_str(args, "name");
	if (!name)
		return res_fail("missing required arguments: name");
	const char *state = args_str(args, "state");
	char *gid = args_strdup(args, "gid");
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "g=");
	sh_quote(&c, name);
	if (state && !strcmp(state, "absent"))
		strbuf_addstr(&c, "; if getent group \"$g\" >/dev/null; then groupdel \"$g\" || exit 1; echo __imc_changed__; fi");
	else {
		strbuf_addstr(&c, "; if ! getent group \"$g\" >/dev/null; then groupadd");
		mod_sh_flag(&c, "-g", gid);
		if (args_bool(json_object_get(args, "system"), false))
			strbuf_addstr(&c, " -r");
		strbuf_addstr(&c, " \"$g\" || exit 1; echo __imc_changed__; fi");
	}
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		res = cr.rc ? res_fail("%s", strbuf_str(&cr.err))
			    : res_new(strstr(strbuf_str(&cr.out), "__imc_changed__") != NULL);
		json_object_set_new(res, "name", json_string(name));
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	free(gid);
	return res;
}

/* what run implements (module.h) */
static const char *const group_params[] = { "gid", "name", "state", "system", NULL };

const struct task_module mod_group = { .name = "group", .params = group_params, .run = group_run };
