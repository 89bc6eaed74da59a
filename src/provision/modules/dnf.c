/* dnf.c: the `dnf` module: the rpm package script of module-pkg.c run
 * with dnf. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *dnf_run(struct exec_ctx *x, json_t *args)
{
	return pkg_rpm_run(x, args, "dnf");
}

const struct task_module mod_dnf = { .name = "dnf", .run = dnf_run };
