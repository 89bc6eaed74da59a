/* hostname.c: the `hostname` module: the node's name, /etc/hostname and the
 * running kernel name, with hostnamectl when systemd runs. */
#include "config.h"

#include "provision/module.h"
#include "util/banned.h"

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
	json_t *res = mod_sh_changed(x, c.buf, "hostname");
	strbuf_release(&c);
	if (!json_is_true(json_object_get(res, "failed")))
		json_object_set_new(res, "name", json_string(name));
	return res;
}

/* what run implements (module.h) */
static const char *const hostname_params[] = { "name", NULL };

const struct task_module mod_hostname = {
	.name = "hostname",
	.params = hostname_params,
	.run = hostname_run,
};
