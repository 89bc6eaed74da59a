/* recipes.h: the configures of a RADL as the provisioner takes them, for
 * the deployment worker and for the check 'imc create' and 'imc plan' make
 * before any cloud call (recipes.c). */
#ifndef IMC_DEPLOY_RECIPES_H
#define IMC_DEPLOY_RECIPES_H

#include <stddef.h>

#include "parser/radl.h"
#include "plan/plan.h"
#include "provision/provision.h"
#include "util/diag.h"

/* The role search path of the recipes of the RADL at radl_path (absolute,
 * or NULL): roles/ and recipes/roles/ next to it, $IMC_ROLES_PATH, then
 * imc's own. malloc'd. */
char *recipes_roles_path(const char *radl_path);

/* Every configure of doc (one without a recipe has an empty one), named
 * 'file' in messages. The array (free() it) borrows from doc and file. */
struct prov_configure *recipes_configures(const struct radl_doc *doc, const char *file, size_t *n);
/* The Galaxy roles the systems of doc declare in disk.0.applications
 * ('ansible.roles.NAME[,VERSION]' or 'ansible.roles.URL|NAME'), which IM
 * installs at run time. A NULL-terminated array; recipes_roles_free(). */
char **recipes_runtime_roles(const struct radl_doc *doc, size_t *n);
/* The same entries as written after 'ansible.roles.' (NAME[,VERSION] or
 * URL|NAME); recipes_roles_free(). */
char **recipes_role_specs(const struct radl_doc *doc, size_t *n);
void recipes_roles_free(char **roles);
/* roles.c: installs those roles into dir (created when needed), each one
 * not already there: with ansible-galaxy when installed, else git for a
 * 'git+URL|NAME'. 0, or -1 with one error per role that could not be
 * installed (naming it) in d. */
int recipes_roles_install(const struct radl_doc *doc, const char *dir, struct diag *d);
/* The entry of confs for configure id, or NULL. */
const struct prov_configure *recipes_find(const struct prov_configure *confs, size_t n, const char *id);

/* Loads and checks every configure the schedule of p runs, with the
 * provisioner's own loader (provision_check_configure), the worker's role
 * path and IM's NAME.yml files of every configure, in a temporary
 * directory removed before returning. file names the RADL in messages;
 * radl_path is its absolute path (for the role path). 0, or -1 with the
 * errors at RADL positions in d (exit status 65). */
int recipes_precheck(const struct plan *p, const char *file, const char *radl_path, struct diag *d);

#endif
