/* package.c: the `package` module, which dispatches on the node's package
 * manager (the ansible_pkg_mgr fact, or a probe for apt-get, dnf and yum)
 * to apt's run or the yum/dnf script. */
#include "config.h"

#include <string.h>

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static const char *pkg_mgr(struct exec_ctx *x)
{
	const char *f = json_string_value(json_object_get(x->vars, "ansible_pkg_mgr"));
	if (f && *f && strcmp(f, "unknown"))
		return f;
	struct conn_result cr;
	conn_result_init(&cr);
	static const char *const mgrs[] = { "apt", "dnf", "yum", NULL };
	const char *r = "apt";
	if (mod_sh(x, "for m in apt-get dnf yum; do command -v $m >/dev/null 2>&1 && { echo $m; exit 0; }; done; echo none",
		   NULL, 0, &cr, NULL) == 0) {
		const char *o = strbuf_str(&cr.out);
		for (const char *const *m = mgrs; *m; m++)
			if (!strncmp(o, *m, strlen(*m)))
				r = *m;
	}
	conn_result_release(&cr);
	return r;
}

static json_t *package_run(struct exec_ctx *x, json_t *args)
{
	const char *use = args_str(args, "use");
	const char *m = use && strcmp(use, "auto") ? use : pkg_mgr(x);
	if (!strcmp(m, "apt"))
		return apt_module_run(x, args);
	if (!strcmp(m, "dnf") || !strcmp(m, "yum"))
		return pkg_rpm_run(x, args, m);
	return res_fail("package manager '%s' is not supported", m);
}

/* what run implements (module.h) */
static const char *const package_params[] = {
	"name", "pkg", "package", "state", "update_cache", "use", NULL
};

const struct task_module mod_package = {
	.name = "package",
	.params = package_params,
	.run = package_run,
};
