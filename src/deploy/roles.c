/* roles.c: the roles a RADL declares in disk.0.applications
 * ('ansible.roles.NAME[,VERSION]', 'ansible.roles.URL|NAME'), installed
 * before the first contextualization step into the infrastructure's own
 * roles directory, as IM installs them on the master before it runs the
 * recipes: with ansible-galaxy when it is installed, else with git for a
 * git URL ('git+URL|NAME'). A role already there is kept (a reconfigure
 * does not fetch it again). A role that cannot be fetched is an error
 * naming it, before any recipe runs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "deploy/recipes.h"
#include "provision/conn/conn.h"
#include "util/strbuf.h"
#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* url without the user information a private repository's URL may hold
 * (a token): what messages show. malloc'd. */
static char *shown_url(const char *url)
{
	const char *s = strstr(url, "://");
	if (!s)
		return xstrdup(url);
	const char *host = s + 3, *at = strchr(host, '@'), *slash = strchr(host, '/');
	if (!at || (slash && at > slash))
		return xstrdup(url);
	return xasprintf("%.*s***%s", (int)(host - url), url, at);
}

/* Runs a command line here; 0 when it exited 0, else -1 with its first
 * line of error output in *why (malloc'd). */
static int run_cmd(const char *cmd, char **why)
{
	struct task_conn *c = conn_local_open();
	struct conn_result cr;
	conn_result_init(&cr);
	struct diag d = DIAG_INIT;
	int rc = c->ops->exec(c, cmd, NULL, 0, &cr, &d);
	if (rc < 0)
		*why = xstrdup(diag_first_message(&d));
	else if (cr.rc != 0) {
		/* ansible-galaxy says why in a warning, then a generic ERROR! */
		const char *e = strbuf_str(&cr.err);
		const char *err = strstr(e, "NOT installed successfully: ");
		if (err)
			err += strlen("NOT installed successfully: ");
		else if (!(err = strstr(e, "ERROR!")))
			err = *e ? e : strbuf_str(&cr.out);
		*why = xasprintf("status %d: %.*s", cr.rc, (int)strcspn(err, "\n"), err);
		rc = -1;
	}
	diag_release(&d);
	conn_result_release(&cr);
	conn_close(c);
	return rc;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One 'ansible.roles.' entry (spec: what follows the prefix) into dir. */
static int install_one(const char *spec, const char *dir, struct diag *d)
{
	const char *bar = strrchr(spec, '|');
	char *name = bar ? xstrdup(bar + 1) : xstrndup(spec, strcspn(spec, ","));
	char *src = bar ? xstrndup(spec, (size_t)(bar - spec)) : xstrdup(spec);
	char *dest = xasprintf("%s/%s", dir, name);
	char *why = NULL;
	struct strbuf cmd = STRBUF_INIT;
	int rc = 0;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		why = xstrdup("not a role name");
		rc = -1;
		goto out;
	}
	if (is_dir(dest))
		goto out;
	if (which_found("ansible-galaxy")) {
		/* Galaxy's role spec: SRC[,VERSION[,NAME]]; a URL gets the name
		 * the RADL gives it */
		struct strbuf arg = STRBUF_INIT;
		if (bar)
			strbuf_addf(&arg, "%s,,%s", src, name);
		else
			strbuf_addstr(&arg, src);
		strbuf_addstr(&cmd, "ANSIBLE_NOCOLOR=1 ansible-galaxy role install -p ");
		sh_quote(&cmd, dir);
		strbuf_addch(&cmd, ' ');
		sh_quote(&cmd, arg.buf);
		strbuf_release(&arg);
	} else if (bar && !strncmp(src, "git+", 4)) {
		strbuf_addstr(&cmd, "git clone -q --depth 1 -- ");
		sh_quote(&cmd, src + 4);
		strbuf_addch(&cmd, ' ');
		sh_quote(&cmd, dest);
	} else {
		why = xstrdup(bar ? "a URL that is not git+URL needs ansible-galaxy, which is not installed"
				  : "a Galaxy role needs ansible-galaxy, which is not installed");
		rc = -1;
		goto out;
	}
	rc = run_cmd(cmd.buf, &why);
	if (rc == 0 && !is_dir(dest)) {
		why = xstrdup("it was fetched but holds no role of that name");
		rc = -1;
	}
out:
	if (rc < 0) {
		char *shown = shown_url(src);
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "role '%s' cannot be installed from '%s': %s",
			   name, shown, why);
		free(shown);
	}
	strbuf_release(&cmd);
	free(why);
	free(name);
	free(src);
	free(dest);
	return rc;
}

int recipes_roles_install(const struct radl_doc *doc, const char *dir, struct diag *d)
{
	size_t n = 0;
	char **specs = recipes_role_specs(doc, &n);
	int rc = 0;
	if (n && mkdir(dir, 0700) < 0 && !is_dir(dir)) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s'", dir);
		n = 0;
		rc = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (install_one(specs[i], dir, d) < 0)
			rc = -1;
	recipes_roles_free(specs);
	return rc;
}
