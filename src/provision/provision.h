/* provision.h: the contract between the deployment worker (which owns the
 * state store and the plan) and the provisioner (which runs the
 * contextualization over SSH). The worker builds a prov_job from the plan
 * and the store; provision_run() steps through it and reports back through
 * the callbacks, which the worker turns into store writes. The provisioner
 * never touches the store itself.
 *
 * Ownership: the job and everything it points to belong to the caller and
 * must stay valid during provision_run(). */
#ifndef IMC_PROVISION_H
#define IMC_PROVISION_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/diag.h"

/* A job's progress, as the provisioner logs it while a task waits for the
 * job (exec-progress.c): one line "PROGRESS: [HOST] {JSON}" per poll that
 * saw news, the object holding "step" and, when known, "epoch", "loss",
 * "examples_per_sec", "accuracy", "fraction" (0..1) and "eta_s" (seconds
 * left). The deployment's followers read these lines back from the log. */
#define PROV_PROGRESS_PREFIX "PROGRESS: "

struct prov_host {
	const char *name;          /* inventory name: the VM's FQDN (IM's) */
	int vm_num;
	const char *system;        /* RADL system id (its group) */
	const char *address;       /* address to SSH to */
	int port;                  /* 0 = 22 */
	const char *user;          /* login user */
	const char *key_path;      /* private key file (ed25519, 0600) */
	const char *hostkey;       /* pinned host key "TYPE BASE64", or NULL: pin on first contact */
	json_t *vars;              /* host variables: IM_NODE_* ... (borrowed) */
};

struct prov_configure {
	const char *name;          /* RADL configure id */
	const char *recipe;        /* the YAML recipe text (between @begin/@end) */
	const char *file;          /* RADL file name for error messages */
	int line;                  /* RADL line of the recipe's first line */
	const char *vault_password; /* the systems' vault.password (a secret), or NULL */
};

/* Every configure of the RADL, also visible to the recipes as DIR/NAME.yml
 * (IM writes them so, for an 'include: NAME.yml' of another configure).
 * DIR is the recipes' own directory: their relative imports and files
 * resolve there. Errors in DIR/NAME.yml are reported at NAME's RADL lines. */
struct prov_recipes {
	const char *dir;
	const struct prov_configure *confs;
	size_t nconfs;
	/* Galaxy roles the RADL declares (disk.0.applications contains
	 * (name='ansible.roles.NAME')): IM installs them at run time, so one
	 * absent now is no error; its configure goes to ansible-playbook. */
	char *const *runtime_roles;
	size_t nruntime_roles;
};

struct prov_item {
	size_t host;               /* index into job->hosts */
	const struct prov_configure *conf;
	const char *tool;          /* 'with TOOL' (NULL = Ansible) */
};

struct prov_step {
	int step;                  /* contextualize step number */
	struct prov_item *items;   /* run in parallel */
	size_t nitems;
};

struct prov_job {
	const char *infra_id;
	struct prov_host *hosts;
	size_t nhosts;
	json_t *groups;            /* {"GROUP": ["name", ...], ...}: one per system, plus "all" */
	json_t *vars;              /* infrastructure variables: IM_INFRASTRUCTURE_ID, IM_MASTER_* ... */
	json_t *extra_vars;        /* -e KEY=VALUE: highest precedence */
	const char *etc_hosts;     /* the cluster's /etc/hosts lines (IM's format), installed first */
	struct prov_step *steps;   /* in ascending step order */
	size_t nsteps;
	int max_time;              /* contextualize MAX in seconds, 0 = none */
	const char *roles_path;    /* ':'-separated role directories, searched first */
	const struct prov_recipes *recipes; /* NULL: no NAME.yml, recipes relative to "." */
	const char *output_dir;    /* where 'fetch' puts files ($IMC_HOME/infra/ID/outputs) */

	/* Callbacks (may be NULL); called from provisioner threads, so they
	 * must be thread-safe. host is an index into hosts, or -1 for the
	 * infrastructure's own log. */
	void (*on_log)(void *opaque, int host, const char *text);
	/* First contact with a host whose hostkey was NULL: pin this key. */
	void (*on_hostkey)(void *opaque, int host, const char *hostkey);
	/* A host finished a step (ok) or failed it (error says why); a failed
	 * host skips its later steps. */
	void (*on_step_done)(void *opaque, int host, int step, bool ok, const char *error);
	void *opaque;
};

/* Writes every configure of r as r->dir/NAME.yml (files 0600: recipes may
 * hold secrets); r->dir must exist. */
int provision_recipes_write(const struct prov_recipes *r, struct diag *d);
/* Removes what provision_recipes_write() wrote, and r->dir when it is empty. */
void provision_recipes_remove(const struct prov_recipes *r);

/* Whether ansible-playbook is installed (the fallback for what the built-in
 * executor does not implement) and allowed (not IMC_NO_FALLBACK). */
bool provision_have_ansible(void);

struct task_playbook;
/* The loader itself (recipe-load.c): 0 with *pb the loaded playbook, or
 * with *pb NULL and *why saying why it runs under ansible-playbook; *plain
 * is the decrypted text of a Vault recipe (else NULL). -1 with errors in d.
 * The caller frees *pb (play_free), *why and *plain. */
int provision_load_configure(const struct prov_configure *c, const char *tool, const char *roles_path,
			     const struct prov_recipes *recipes, bool have_ansible, struct task_playbook **pb,
			     char **why, char **plain, struct diag *d);

/* Loads one configure's recipe (run with 'with TOOL', NULL = Ansible) and
 * checks it statically, exactly as provision_run() does before it touches
 * any host: plays, static imports, roles, module arguments, templates. What
 * only ansible-playbook can run is not an error when have_ansible. Errors
 * go to d at RADL positions ("configure 'NAME': ..."). This is the one
 * loader of RADL recipes: 'imc create' and 'imc plan' call it before any
 * cloud call, the provisioner before any SSH connection. */
int provision_check_configure(const struct prov_configure *c, const char *tool, const char *roles_path,
			      const struct prov_recipes *recipes, bool have_ansible, struct diag *d);

/* Runs every step; returns 0 when all hosts succeeded, 1 when some host
 * failed (reported through on_step_done), -1 on an error that stopped
 * everything (in d). */
int provision_run(struct prov_job *job, struct diag *d);

#endif
