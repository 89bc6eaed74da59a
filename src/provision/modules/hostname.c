/* mod-hostname.c: `hostname` (the node's name, /etc/hostname and the
 * running kernel name, with hostnamectl when systemd runs) and
 * `authorized_key` (a public key line in ~USER/.ssh/authorized_keys,
 * present or absent, exclusive). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/task.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *simple(struct exec_ctx *x, const char *cmd, const char *what)
{
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, cmd, NULL, 0, &cr, &res) == 0) {
		if (cr.rc)
			res = res_fail("%s failed: %s", what, strbuf_str(&cr.err));
		else
			res = res_new(strstr(strbuf_str(&cr.out), "__imc_changed__") != NULL);
	}
	conn_result_release(&cr);
	return res;
}

static json_t *hostname_run(struct exec_ctx *x, json_t *args)
{
	const char *name = args_str(args, "name");
	if (!name)
		return res_fail("missing required arguments: name");
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "n=");
	sh_quote(&c, name);
	strbuf_addstr(&c, "; if [ \"$(hostname)\" != \"$n\" ] || [ \"$(cat /etc/hostname 2>/dev/null)\" != \"$n\" ]; then "
			  "if [ -d /run/systemd/system ] && command -v hostnamectl >/dev/null 2>&1; then hostnamectl set-hostname \"$n\" || exit 1; "
			  "else echo \"$n\" > /etc/hostname && hostname \"$n\" || exit 1; fi; echo __imc_changed__; fi");
	json_t *res = simple(x, c.buf, "hostname");
	strbuf_release(&c);
	if (!json_is_true(json_object_get(res, "failed")))
		json_object_set_new(res, "name", json_string(name));
	return res;
}

const struct task_module mod_hostname = { .name = "hostname", .run = hostname_run };

static json_t *authkey_run(struct exec_ctx *x, json_t *args)
{
	const char *user = args_str(args, "user");
	const char *key = args_str(args, "key");
	if (!user || !key)
		return res_fail("missing required arguments: user, key");
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
	json_t *res = simple(x, c.buf, "authorized_key");
	strbuf_release(&c);
	if (!json_is_true(json_object_get(res, "failed")))
		json_object_set_new(res, "user", json_string(user));
	return res;
}

const struct task_module mod_authorized_key = { .name = "authorized_key", .run = authkey_run };
