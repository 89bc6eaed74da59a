/* systemd.c: the `systemd` module (systemd_service): the service module's
 * run (service.c), which uses systemctl when the node runs systemd and
 * knows daemon_reload and masked. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

/* what run implements (module.h) */
static const char *const systemd_params[] = {
	"name", "state", "enabled", "daemon_reload", "daemon-reload", "masked", NULL
};

const struct task_module mod_systemd = {
	.name = "systemd",
	.params = systemd_params,
	.run = service_module_run,
};
