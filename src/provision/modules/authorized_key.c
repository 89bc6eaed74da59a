/* authorized_key.c: the `authorized_key` module: a public key line in
 * ~USER/.ssh/authorized_keys, present or absent, exclusive. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *authkey_run(struct exec_ctx *x, json_t *args)
{
	const char *user = args_str(args, "user");
	const char *key = args_str(args, "key");
	if (!user || !key)
		return res_fail("missing required arguments: %s", !user && !key ? "user, key" : !user ? "user" : "key");
	const char *state = args_str(args, "state");
	bool absent = state && !strcmp(state, "absent");
	bool exclusive = args_bool(json_object_get(args, "exclusive"), false);
	const char *path = args_str(args, "path");
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "u=");
	sh_quote(&c, user);
	strbuf_addstr(&c, "; k=");
	sh_quote(&c, key);
	if (path) {
		strbuf_addstr(&c, "; f=");
		sh_quote(&c, path);
	} else
		strbuf_addstr(&c, "; h=$(getent passwd \"$u\" | cut -d: -f6); [ -n \"$h\" ] || { echo \"no user $u\" >&2; exit 1; }; f=\"$h/.ssh/authorized_keys\"");
	strbuf_addstr(&c, "; d=$(dirname \"$f\"); ");
	if (absent)
		strbuf_addstr(&c, "[ -f \"$f\" ] || exit 0; t=$(mktemp) || exit 1; echo \"$k\" | while IFS= read -r l; do [ -n \"$l\" ] && printf '%s\\n' \"$l\"; done > \"$t.k\"; "
				  "grep -vxF -f \"$t.k\" \"$f\" > \"$t\"; if ! cmp -s \"$t\" \"$f\"; then cat \"$t\" > \"$f\"; echo __imc_changed__; fi; rm -f \"$t\" \"$t.k\"");
	else {
		strbuf_addstr(&c, "[ -d \"$d\" ] || { mkdir -p \"$d\" && chmod 700 \"$d\" && chown \"$u\" \"$d\"; } || exit 1; "
				  "[ -f \"$f\" ] || { : > \"$f\" && chmod 600 \"$f\" && chown \"$u\" \"$f\"; } || exit 1; ");
		if (exclusive)
			strbuf_addstr(&c, "if [ \"$(cat \"$f\")\" != \"$k\" ]; then printf '%s\\n' \"$k\" > \"$f\"; echo __imc_changed__; fi");
		else
			strbuf_addstr(&c, "echo \"$k\" | while IFS= read -r l; do [ -z \"$l\" ] && continue; grep -qxF \"$l\" \"$f\" || { printf '%s\\n' \"$l\" >> \"$f\"; echo __imc_changed__; }; done");
	}
	json_t *res = mod_sh_changed(x, c.buf, "authorized_key");
	strbuf_release(&c);
	if (!json_is_true(json_object_get(res, "failed")))
		json_object_set_new(res, "user", json_string(user));
	return res;
}

/* what run implements (module.h) */
static const char *const authorized_key_params[] = {
	"exclusive", "key", "path", "state", "user", NULL
};

const struct task_module mod_authorized_key = {
	.name = "authorized_key",
	.params = authorized_key_params,
	.run = authkey_run,
};
