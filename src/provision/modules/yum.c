/* yum.c: the `yum` module: the rpm package script of module-pkg.c run
 * with yum. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *yum_run(struct exec_ctx *x, json_t *args)
{
	return pkg_rpm_run(x, args, "yum");
}

/* what run implements (module.h) */
static const char *const yum_params[] = {
	"name", "pkg", "package", "state", "update_cache", NULL
};

const struct task_module mod_yum = {
	.name = "yum",
	.params = yum_params,
	.run = yum_run,
};
