/* module-table.c: the table of task modules (one file per module, NAME.c),
 * looked up by name when a play is loaded. Names given with a collection
 * prefix (ansible.builtin.copy) are shortened by the loader. */
#include "config.h"

#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

extern const struct task_module mod_command, mod_shell, mod_raw, mod_script, mod_copy,
	mod_template, mod_file, mod_lineinfile, mod_stat_module, mod_set_fact, mod_debug, mod_fail,
	mod_assert, mod_pause, mod_async_status, mod_setup, mod_apt, mod_package, mod_yum, mod_dnf,
	mod_pip, mod_git, mod_service, mod_systemd, mod_user, mod_group, mod_get_url, mod_unarchive,
	mod_fetch, mod_slurp, mod_wait_for, mod_blockinfile, mod_replace, mod_hostname,
	mod_authorized_key, mod_ping, mod_ini_file, mod_tempfile, mod_find, mod_assemble,
	mod_cron, mod_mount, mod_include_vars,
	mod_add_host, mod_group_by, mod_set_stats,
	mod_uri, mod_service_facts, mod_iptables, mod_reboot;
/* issue 17's modules of real recipes (modules-a) */
extern const struct task_module mod_sysctl, mod_modprobe, mod_timezone, mod_apt_key,
	mod_apt_repository;

const struct task_module *const task_modules[] = {
	&mod_command, &mod_shell, &mod_raw, &mod_script, &mod_copy, &mod_template, &mod_file,
	&mod_lineinfile, &mod_stat_module, &mod_set_fact, &mod_debug, &mod_fail, &mod_assert,
	&mod_pause, &mod_async_status, &mod_setup, &mod_apt, &mod_package, &mod_yum, &mod_dnf,
	&mod_pip, &mod_git, &mod_service, &mod_systemd, &mod_user, &mod_group, &mod_get_url,
	&mod_unarchive, &mod_fetch, &mod_slurp, &mod_wait_for, &mod_blockinfile, &mod_replace,
	&mod_hostname, &mod_authorized_key, &mod_ping, &mod_ini_file, &mod_tempfile, &mod_find,
	&mod_assemble, &mod_cron, &mod_mount, &mod_include_vars,
	&mod_add_host, &mod_group_by, &mod_set_stats,
	&mod_uri, &mod_service_facts, &mod_iptables, &mod_reboot,
	&mod_sysctl, &mod_modprobe, &mod_timezone, &mod_apt_key, &mod_apt_repository,
	NULL,
};

const struct task_module *task_module_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct task_module *const *m = task_modules; *m; m++) {
		if (!strcmp((*m)->name, name))
			return *m;
		if ((*m)->aliases)
			for (const char *const *a = (*m)->aliases; *a; a++)
				if (!strcmp(*a, name))
					return *m;
	}
	return NULL;
}
