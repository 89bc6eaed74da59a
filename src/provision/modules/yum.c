/* yum.c: the `yum` module: the rpm package script of module-pkg.c run
 * with yum. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *yum_run(struct exec_ctx *x, json_t *args)
{
	return pkg_rpm_run(x, args, "yum");
}

/* The parameters the run implements: any other is unsupported, so the
 * task goes to Ansible (or, without it, fails naming it), never ignored. */
static const char *const yum_params[] = {
	"name", "pkg", "package", "state", "update_cache", NULL
};

static int yum_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	return mod_check_params("yum", args, yum_params, d, loc);
}

const struct task_module mod_yum = {
	.name = "yum",
	.check = yum_check,
	.run = yum_run,
};
