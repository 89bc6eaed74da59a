/* dnf.c: the `dnf` module: the rpm package script of module-pkg.c run
 * with dnf. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *dnf_run(struct exec_ctx *x, json_t *args)
{
	return pkg_rpm_run(x, args, "dnf");
}

/* what run implements (module.h) */
static const char *const dnf_params[] = {
	"name", "pkg", "package", "state", "update_cache", NULL
};

const struct task_module mod_dnf = {
	.name = "dnf",
	.params = dnf_params,
	.run = dnf_run,
};
