/* recipe-load.c: the one loader of RADL recipes (configures), shared by the
 * provisioner (before it touches any host) and by 'imc create' and 'imc
 * plan' (before any cloud call), so that what the check accepts is exactly
 * what the provisioner will run. On top of the playbook loader
 * (play-load.c) it does what is particular to a RADL recipe: IM's NAME.yml
 * of every configure in the recipes' directory (and errors in them mapped
 * back to RADL lines), Ansible Vault recipes decrypted with the systems'
 * vault.password (util/vault.c; the same password for what the recipe
 * reads), Galaxy roles installed at run time, the fallback to
 * ansible-playbook for what the built-in executor does not implement. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provision/provision.h"
#include "provision/exec.h"
#include "provision/play.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* IMC_NO_FALLBACK=1 (fallback_disabled()): what the built-in executor
 * cannot run is an error, as without Ansible, so that a test of imc's
 * executor cannot pass through Ansible unnoticed. */
bool provision_have_ansible(void)
{
	return fallback_available();
}

/* Writes all of text to fd: 0, or -1 with errno set. */
static int write_text(int fd, const char *text)
{
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

static char *recipe_path(const struct prov_recipes *r, const char *name)
{
	return xasprintf("%s/%s.yml", r->dir, name);
}

int provision_recipes_write(const struct prov_recipes *r, struct diag *d)
{
	for (size_t i = 0; i < r->nconfs; i++) {
		const struct prov_configure *c = &r->confs[i];
		char *path = recipe_path(r, c->name);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		bool ok = fd >= 0 && write_text(fd, c->recipe ? c->recipe : "") == 0;
		if (!ok && fd >= 0) {
			int e = errno;
			close(fd);
			errno = e;
		} else if (ok && close(fd) < 0)
			ok = false;
		if (!ok) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path, strerror(errno));
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

void provision_recipes_remove(const struct prov_recipes *r)
{
	if (!r || !r->dir)
		return;
	for (size_t i = 0; i < r->nconfs; i++) {
		char *path = recipe_path(r, r->confs[i].name);
		unlink(path);
		free(path);
	}
	rmdir(r->dir);
}

/* The RADL position of a diagnostic: DIR/NAME.yml is configure NAME's
 * recipe, shifted to its RADL lines; no position at all is the configure's. */
static struct src_loc radl_loc(const char *file, int line, int col, const struct prov_configure *c,
			       const struct prov_recipes *r)
{
	struct src_loc loc = { file, line, col };
	size_t dl = r && r->dir ? strlen(r->dir) : 0;
	if (file && dl && !strncmp(file, r->dir, dl) && file[dl] == '/')
		for (size_t i = 0; i < r->nconfs; i++) {
			const struct prov_configure *o = &r->confs[i];
			size_t nl = strlen(o->name);
			if (!strncmp(file + dl + 1, o->name, nl) && !strcmp(file + dl + 1 + nl, ".yml")) {
				loc.file = o->file;
				loc.line = line > 0 ? line + (o->line > 0 ? o->line - 1 : 0) : o->line;
				break;
			}
		}
	if (!loc.file) {
		loc.file = c->file;
		loc.line = c->line;
		loc.col = 1;
	}
	return loc;
}

/* An Ansible Vault file, as ansible-vault writes it: its first line. */
static int vault_line(const char *text)
{
	int line = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		size_t sp = strspn(p, " \t\r");
		if (sp < n) {
			if (!strncmp(p + sp, "$ANSIBLE_VAULT;", 15))
				return line;
			return -1;
		}
		p += n;
		if (*p)
			p++;
		line++;
	}
	return -1;
}

/* Whether every error of d is about a role the RADL declares for
 * installation at run time, or about what only ansible-playbook runs. A
 * module no one knows yet counts too when the RADL installs roles at run
 * time: a role's library/ gives its modules to the whole play, so only
 * the run, after the roles are installed, can tell. */
static bool runtime_only(const struct diag *d, const struct prov_recipes *r)
{
	static const char pre[] = "the role '";
	if (!d->nerrors)
		return false;
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_item *it = &d->items[i];
		if (it->level != DIAG_ERROR)
			continue;
		struct diag one = DIAG_INIT;
		diag_error(&one, IMC_EXIT_DATAERR, NULL, "%s", it->msg);
		bool unsupported = play_error_unsupported(&one) ||
				   (r && r->nruntime_roles && strstr(it->msg, "couldn't resolve module/action"));
		diag_release(&one);
		if (unsupported)
			continue;
		bool declared = false;
		if (r && !strncmp(it->msg, pre, sizeof(pre) - 1)) {
			const char *name = it->msg + sizeof(pre) - 1;
			size_t nl = strcspn(name, "'");
			for (size_t k = 0; k < r->nruntime_roles && !declared; k++)
				declared = strlen(r->runtime_roles[k]) == nl && !strncmp(name, r->runtime_roles[k], nl) &&
					   !strncmp(name + nl, "' was not found", 15);
		}
		if (!declared)
			return false;
	}
	return true;
}

int provision_load_configure(const struct prov_configure *c, const char *tool, const char *roles_path,
			  const struct prov_recipes *recipes, bool have_ansible, struct task_playbook **pb,
			  char **why, char **plain, struct diag *d)
{
	*pb = NULL;
	*why = NULL;
	*plain = NULL;
	const char *text = c->recipe ? c->recipe : "";
	char *label = NULL;
	if (tool && strcasecmp(tool, "ansible")) {
		struct src_loc loc = { c->file, c->line, 1 };
		diag_error(d, IMC_EXIT_DATAERR, &loc,
			   "contextualization tool '%s' of configure '%s' is not supported "
			   "(only Ansible recipes are)", tool, c->name);
		return -1;
	}
	/* IM decrypts such recipes with the systems' vault.password; the plain
	 * text is then loaded like any recipe, its lines its own */
	/* the password also decrypts what the recipe reads (!vault values,
	 * vars and task files), as Ansible's loader would with it */
	struct vault_keyring ring = { 0 };
	if (c->vault_password) {
		vault_keyring_add(&ring, "default", c->vault_password, strlen(c->vault_password));
		vault_keyring_use(&ring);
	}
	int vl = vault_line(text);
	if (vl >= 0) {
		struct src_loc loc = { c->file, c->line + vl, 1 };
		const char *vt = text + strspn(text, " \t\r\n");
		char *err = NULL;
		size_t np = 0;
		if (!c->vault_password)
			err = xstrdup("no vault password is available (vault.password)");
		else if (vault_decrypt(vt, strlen(vt), NULL, plain, &np, &err) < 0) {
			free(err);
			err = xstrdup("the vault.password cannot decrypt it");
		} else if (strlen(*plain) != np) {
			err = xstrdup("its decrypted text holds a NUL byte");
			vault_free_plain(*plain, np);
			*plain = NULL;
		}
		if (!*plain) {
			diag_error(d, IMC_EXIT_DATAERR, &loc,
				   "configure '%s': the recipe is encrypted with Ansible Vault and %s", c->name, err);
			free(err);
			vault_keyring_use(NULL);
			vault_keyring_release(&ring);
			return -1;
		}
		text = *plain;
		label = xasprintf("configure '%s' (decrypted)", c->name);
	}
	struct diag cd = DIAG_INIT;
	if (label)
		*pb = play_load_text(text, label, 0, recipes ? recipes->dir : NULL, roles_path, true, &cd);
	else
		*pb = play_load_text(text, c->file ? c->file : c->name, c->line > 0 ? c->line - 1 : 0,
				     recipes ? recipes->dir : NULL, roles_path, true, &cd);
	int rc = 0;
	if (!*pb) {
		bool unsupported = runtime_only(&cd, recipes);
		if (have_ansible && unsupported) {
			*why = xstrdup(diag_first_message(&cd));
		} else {
			/* copy the errors and their notes, at RADL positions */
			bool keep = false;
			for (size_t e = 0; e < cd.n; e++) {
				const struct diag_item *it = &cd.items[e];
				struct src_loc loc = radl_loc(it->file, it->line, it->col, c, recipes);
				if (it->level == DIAG_ERROR) {
					/* the loader's message may say it already (an unknown module) */
					diag_error(d, IMC_EXIT_DATAERR, &loc, "configure '%s': %s%s", c->name, it->msg,
						   !unsupported || strstr(it->msg, " (and ") ? ""
						   : fallback_disabled() ? " (and IMC_NO_FALLBACK forbids running it under ansible-playbook)"
						   : " (and ansible-playbook is not installed to run it instead)");
					keep = true;
					/* in a role's file: which RADL configure loaded it */
					if (c->file && loc.file && strcmp(loc.file, c->file)) {
						struct src_loc cloc = { c->file, c->line, 1 };
						diag_note(d, &cloc, "while loading configure '%s'", c->name);
					}
				} else if (it->level == DIAG_NOTE && keep)
					diag_note(d, loc.line ? &loc : NULL, "%s", it->msg);
			}
			rc = -1;
		}
	}
	diag_release(&cd);
	free(label);
	vault_keyring_use(NULL);
	vault_keyring_release(&ring);
	if (rc < 0) {
		free(*plain);
		*plain = NULL;
	}
	return rc;
}

int provision_check_configure(const struct prov_configure *c, const char *tool, const char *roles_path,
			      const struct prov_recipes *recipes, bool have_ansible, struct diag *d)
{
	struct task_playbook *pb = NULL;
	char *why = NULL, *plain = NULL;
	int rc = provision_load_configure(c, tool, roles_path, recipes, have_ansible, &pb, &why, &plain, d);
	/* the static check lists the tasks Ansible will run, where they are */
	size_t i;
	json_t *e;
	json_array_foreach(pb ? pb->fallbacks : NULL, i, e) {
		struct src_loc loc = radl_loc(json_string_value(json_object_get(e, "file")),
					      (int)json_integer_value(json_object_get(e, "line")), 1, c, recipes);
		diag_warning(d, &loc, "configure '%s': task '%s' will run under Ansible (module '%s': %s)",
			     c->name, json_string_value(json_object_get(e, "task")),
			     json_string_value(json_object_get(e, "module")),
			     json_string_value(json_object_get(e, "why")));
	}
	play_free(pb);
	free(why);
	free(plain);
	return rc;
}

