/* recipes.c: the configures of a RADL as the provisioner takes them (see
 * recipes.h). The deployment worker and the check before any cloud call
 * build them here, with one role path, so that both load exactly the same
 * recipes with the same loader: a recipe that cannot load fails 'imc
 * create' before it costs a VM, not after. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deploy/recipes.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *recipes_roles_path(const char *radl_path)
{
	struct strbuf sb = STRBUF_INIT;
	if (radl_path) {
		char *dir = xstrdup(radl_path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else {
			free(dir);
			dir = xstrdup(".");
		}
		strbuf_addf(&sb, "%s/roles:%s/recipes/roles", dir, dir);
		free(dir);
	}
	const char *env = getenv("IMC_ROLES_PATH");
	if (env && *env)
		strbuf_addf(&sb, "%s%s", sb.len ? ":" : "", env);
	strbuf_addf(&sb, "%s%s/roles:%s/recipes/roles", sb.len ? ":" : "", IMC_DATADIR, IMC_SRCDIR);
	return strbuf_detach(&sb);
}

struct prov_configure *recipes_configures(const struct radl_doc *doc, const char *file, size_t *n)
{
	/* IM decrypts Vault recipes with the vault.password of the systems */
	const char *vault = NULL;
	for (size_t i = 0; i < doc->nsystems && !vault; i++)
		vault = radl_aspect_string(&doc->systems[i], "vault.password");
	struct prov_configure *c = xcalloc(doc->nconfigures + 1, sizeof(*c));
	*n = 0;
	for (size_t i = 0; i < doc->nconfigures; i++) {
		/* 'configure x ()' and references too: an empty recipe, as IM */
		const struct radl_configure *rc = &doc->configures[i];
		struct prov_configure *e = &c[(*n)++];
		e->name = rc->id;
		e->recipe = rc->recipe;
		e->file = file;
		e->line = rc->recipe_line;
		e->vault_password = vault;
	}
	return c;
}

char **recipes_role_specs(const struct radl_doc *doc, size_t *n)
{
	static const char pre[] = "ansible.roles.";
	char **v = xcalloc(1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < doc->nsystems; i++) {
		const struct radl_body *apps[64];
		size_t na = radl_get_contains(&doc->systems[i].body, "disk.0.applications", apps, 64);
		for (size_t k = 0; k < na && k < 64; k++) {
			const char *name = radl_get_string(apps[k], "name");
			if (!name || strncmp(name, pre, sizeof(pre) - 1))
				continue;
			v = xreallocarray(v, *n + 2, sizeof(*v));
			v[(*n)++] = xstrdup(name + sizeof(pre) - 1);
			v[*n] = NULL;
		}
	}
	return v;
}

char **recipes_runtime_roles(const struct radl_doc *doc, size_t *n)
{
	char **v = recipes_role_specs(doc, n);
	for (size_t i = 0; i < *n; i++) {
		const char *bar = strrchr(v[i], '|');
		char *role = bar ? xstrdup(bar + 1) : xstrndup(v[i], strcspn(v[i], ","));
		free(v[i]);
		v[i] = role;
	}
	return v;
}

void recipes_roles_free(char **roles)
{
	for (size_t i = 0; roles && roles[i]; i++)
		free(roles[i]);
	free(roles);
}

const struct prov_configure *recipes_find(const struct prov_configure *confs, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(confs[i].name, id))
			return &confs[i];
	return NULL;
}

int recipes_precheck(const struct plan *p, const char *file, const char *radl_path, struct diag *d)
{
	const struct plan_schedule *s = &p->sched;
	if (s->disabled || !s->nsteps)
		return 0;
	size_t n = 0;
	struct prov_configure *confs = recipes_configures(p->doc, file, &n);
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/imc-recipes.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	size_t nroles = 0;
	char **roles = recipes_runtime_roles(p->doc, &nroles);
	struct prov_recipes r = { .confs = confs, .nconfs = n, .runtime_roles = roles, .nruntime_roles = nroles };
	char *rp = recipes_roles_path(radl_path);
	const struct prov_configure **done = xcalloc(n + 1, sizeof(*done));
	size_t ndone = 0;
	int rc = -1;
	if (!mkdtemp(dir)) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create a temporary directory '%s': %s", dir,
			   strerror(errno));
		goto out;
	}
	r.dir = dir;
	if (provision_recipes_write(&r, d) < 0)
		goto out;
	bool have_ansible = provision_have_ansible();
	rc = 0;
	for (size_t k = 0; k < s->nsteps; k++)
		for (size_t i = 0; i < s->steps[k].nitems; i++) {
			const struct plan_item *it = &s->steps[k].items[i];
			const struct prov_configure *c = recipes_find(confs, n, it->conf->id);
			bool seen = false;
			for (size_t j = 0; j < ndone; j++)
				if (done[j] == c)
					seen = true;
			if (!c || seen)
				continue;
			done[ndone++] = c;
			if (provision_check_configure(c, it->tool, rp, &r, have_ansible, d) < 0)
				rc = -1;
		}
	/* the RADL lines under the errors, as the RADL checks show them */
	if (rc < 0 && p->doc->source && p->doc->file && !strcmp(p->doc->file, file))
		diag_add_source(d, file, p->doc->source, p->doc->source_len);
out:
	provision_recipes_remove(&r);
	free(done);
	free(rp);
	free(dir);
	free(confs);
	recipes_roles_free(roles);
	return rc;
}
