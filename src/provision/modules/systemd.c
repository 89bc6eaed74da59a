/* systemd.c: the `systemd` module (systemd_service): the service module's
 * run (service.c), which uses systemctl when the node runs systemd and
 * knows daemon_reload and masked. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

/* The parameters the run implements: any other is unsupported, so the
 * task goes to Ansible (or, without it, fails naming it), never ignored. */
static const char *const systemd_params[] = {
	"name", "state", "enabled", "daemon_reload", "daemon-reload", "masked", NULL
};

static int systemd_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	return mod_check_params("systemd", args, systemd_params, d, loc);
}

const struct task_module mod_systemd = {
	.name = "systemd",
	.check = systemd_check,
	.run = service_module_run,
};
