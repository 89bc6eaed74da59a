/* dnf.c: the `dnf` module: the rpm package script of module-pkg.c run
 * with dnf. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *dnf_run(struct exec_ctx *x, json_t *args)
{
	return pkg_rpm_run(x, args, "dnf");
}

/* The parameters the run implements: any other is unsupported, so the
 * task goes to Ansible (or, without it, fails naming it), never ignored. */
static const char *const dnf_params[] = {
	"name", "pkg", "package", "state", "update_cache", NULL
};

static int dnf_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	return mod_check_params("dnf", args, dnf_params, d, loc);
}

const struct task_module mod_dnf = {
	.name = "dnf",
	.check = dnf_check,
	.run = dnf_run,
};
