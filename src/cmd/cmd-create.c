/* cmd-create.c: 'imc create FILE' validates the RADL (with IM's
 * @input.KEY@ filled from -e KEY=VALUE, or asked on a terminal), plans it,
 * loads and checks every recipe the plan will run (before any cloud call,
 * so that a recipe that cannot load costs no VM), records the
 * infrastructure and its pending VMs and networks in the store, generates
 * the infrastructure's SSH key, and hands the deployment to a detached
 * worker. It prints the infrastructure id first, then follows the
 * worker until the infrastructure is configured or failed (-d: returns
 * right after the id; Ctrl-C stops following, not the deployment). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cloud/cloud.h"
#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "deploy/recipes.h"
#include "deploy/spawn.h"
#include "plan/plan.h"
#include "util/sshkey.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Records the infrastructure, networks and VMs of plan p in one transaction. */
static int store_plan(struct state_store *st, const struct state_infra *in, const struct plan *p,
		      struct diag *d)
{
	if (state_begin(st, d) < 0)
		return -1;
	if (state_infra_insert(st, in, d) < 0)
		goto fail;
	for (size_t i = 0; i < p->nnets; i++) {
		if (!p->nets[i].cloud)
			continue;
		struct state_net net = { .infra_id = in->id, .name = (char *)(uintptr_t)p->nets[i].name,
					 .cloud = p->nets[i].cloud, .cidr = (char *)(uintptr_t)p->nets[i].cidr,
					 .public = p->nets[i].public,
					 .outports = (char *)(uintptr_t)p->nets[i].outports };
		if (state_net_upsert(st, &net, d) < 0)
			goto fail;
	}
	for (size_t i = 0; i < p->nvms; i++) {
		json_t *spec = plan_vm_to_json(&p->vms[i]);
		char *s = json_dumps(spec, JSON_COMPACT);
		json_decref(spec);
		struct state_vm vm = { .infra_id = in->id, .num = p->vms[i].num,
				       .system = (char *)(uintptr_t)p->vms[i].system, .cloud = p->vms[i].cloud,
				       .cloud_cred = p->vms[i].cloud_cred, .state = VM_PENDING,
				       .user = p->vms[i].user, .spec = s, .ctxt = -1 };
		int rc = state_vm_insert(st, &vm, d);
		free(s);
		if (rc < 0)
			goto fail;
	}
	return state_commit(st, d);
fail:
	state_rollback(st);
	return -1;
}

/* Every VM must go to a cloud this imc has. */
static int check_clouds(const struct plan *p, struct diag *d)
{
	int rc = 0;
	for (size_t i = 0; i < p->nvms; i++)
		if (!cloud_driver_find(p->vms[i].cloud)) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "VM %d (system '%s') would go to cloud '%s', which this imc does not support"
				   " (try --cloud local)", p->vms[i].num, p->vms[i].system, p->vms[i].cloud);
			rc = -1;
			break;
		}
	return rc;
}

enum { OPT_CLOUD, OPT_EXTRA_VAR, OPT_DETACH };

static const struct cmd_option options[] = {
	[OPT_CLOUD] = CMD_OPTION_CLOUD,
	[OPT_EXTRA_VAR] = CMD_OPTION_EXTRA_VAR,
	[OPT_DETACH] = CMD_OPTION_DETACH,
	{ 0 },
};

static int run(struct cmd_args *a)
{
	const char *file = a->operands[0], *cloud = a->opt[OPT_CLOUD].val;
	bool detach = a->opt[OPT_DETACH].set;
	json_t *vars = json_object();
	struct auth_file *af = NULL;
	struct radl_doc *doc = NULL;
	struct plan *p = NULL;
	struct state_infra in = { 0 };
	char *text = NULL, *auth_path = NULL, *home = state_default_home(a->ctx->home);
	char *id = NULL, *key = NULL, *dir = NULL, *abs = NULL, *ev = NULL;
	int lock = -1, rc = IMC_EXIT_OK;
	if (cli_extra_vars(&vars, &a->opt[OPT_EXTRA_VAR], a->d) < 0)
		goto out;
	if (deploy_auth(a->ctx->auth_file, home, NULL, &af, &auth_path, a->d) < 0)
		goto out;
	doc = deploy_load_radl(file, vars, true, &text, a->d);
	if (!doc)
		goto out;
	struct plan_opts o = { .cloud_override = cloud, .auth = af };
	p = plan_build(doc, &o, a->d);
	if (!p || check_clouds(p, a->d) < 0)
		goto out;
	/* the recipes load before anything exists: a bad one costs no VM */
	abs = realpath(file, NULL);
	if (recipes_precheck(p, doc->file, abs, a->d) < 0)
		goto out;
	a->st = state_open(home, a->d);
	if (!a->st)
		goto out;
	id = deploy_new_id();
	if (state_lock_infra(a->st, id, true, &lock, a->d) != 0)
		goto out;
	dir = state_infra_dir(a->st, id, a->d);
	key = deploy_key_path(home, id);
	if (!dir || sshkey_generate(key, id, a->d) < 0)
		goto out;
	char *pub = xasprintf("%s.pub", key);
	chmod(pub, 0600); /* everything in $IMC_HOME is 0600 */
	free(pub);
	ev = json_object_size(vars) ? json_dumps(vars, JSON_COMPACT) : NULL;
	in.id = id;
	in.radl = text;
	in.radl_path = abs;
	in.cloud = (char *)(uintptr_t)cloud;
	in.extra_vars = ev;
	in.auth_path = auth_path;
	in.phase = PHASE_NEW;
	in.next_vm = (int)p->nvms;
	in.ctxt_max = p->sched.max_time;
	if (store_plan(a->st, &in, p, a->d) < 0)
		goto out;
	/* before the worker exists: a Ctrl-C from then on stops following */
	if (!detach)
		deploy_follow_catch_interrupt();
	if (deploy_spawn(&a->st, id, lock, WORKER_DEPLOY, NULL, a->d) < 0)
		goto out;
	state_unlock_infra(lock);
	lock = -1;
	if (!a->ctx->json) {
		printf("%s\n", id);
		fflush(stdout);
	}
	if (detach) {
		if (a->ctx->json) {
			json_t *j = cli_json_doc();
			json_object_set_new(j, "id", json_string(id));
			cli_json_print(j);
		}
		goto out;
	}
	enum vm_state final = VM_UNKNOWN;
	int w = deploy_follow(a->st, id, 0, !a->ctx->json, &final, a->d);
	if (w < 0)
		goto out;
	if (w == 2) {
		fprintf(stderr, "imc create: stopped following; the deployment goes on ('imc wait %s')\n", id);
		rc = IMC_EXIT_TEMPFAIL;
		goto out;
	}
	cli_print_state(a->ctx, a->st, id, true, a->d);
	if (!diag_has_errors(a->d) && final != VM_CONFIGURED)
		rc = IMC_EXIT_FAILED;
out:
	state_unlock_infra(lock);
	plan_free(p);
	radl_doc_free(doc);
	auth_file_free(af);
	json_decref(vars);
	free(text);
	free(auth_path);
	free(home);
	free(id);
	free(key);
	free(dir);
	free(abs);
	free(ev);
	return rc;
}

const struct imc_cmd cmd_create_entry = {
	.name = "create", .synopsis = "[-d] [--cloud ID] [-e KEY=VALUE]... FILE",
	.summary = "deploy an infrastructure and follow it until configured",
	.options = options, .flags = CMD_ERRORS_ONLY, .run = run,
};
