/* systemd.c: the `systemd` module (systemd_service): the service module's
 * run (service.c), which uses systemctl when the node runs systemd and
 * knows daemon_reload and masked. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

const struct task_module mod_systemd = { .name = "systemd", .run = service_module_run };
