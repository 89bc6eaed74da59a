/* submit.c: a new infrastructure handed to the deployment engine, what
 * 'imc create' and `imc serve`'s POST /infrastructures both do (see
 * deploy.h, deploy_submit): the RADL validated (with IM's @input.KEY@
 * filled), planned, every recipe the plan will run loaded and checked
 * before any cloud call (so a recipe that cannot load costs no VM), the
 * infrastructure with its pending VMs and networks recorded in the store,
 * its SSH key generated, and the deployment given to a detached worker.
 * One implementation, so the command and the server cannot drift apart. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cloud/cloud.h"
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

int deploy_submit(const struct deploy_submission *req, const char *home, struct state_store **st, char **idp,
		  struct diag *d)
{
	struct auth_file *af = NULL;
	struct radl_doc *doc = NULL;
	struct plan *p = NULL;
	struct state_infra in = { 0 };
	char *text = NULL, *auth_path = NULL, *id = NULL, *key = NULL, *dir = NULL, *abs = NULL, *ev = NULL;
	int lock = -1, rc = -1;
	*idp = NULL;
	if (deploy_auth(req->auth_given, home, NULL, &af, &auth_path, d) < 0)
		goto out;
	if (req->text)
		doc = deploy_parse_radl(req->file, req->text, req->len, req->vars, true, &text, d);
	else
		doc = deploy_load_radl(req->file, req->vars, req->interactive, &text, d);
	if (!doc)
		goto out;
	struct plan_opts o = { .cloud_override = req->cloud, .auth = af };
	p = plan_build(doc, &o, d);
	if (!p || check_clouds(p, d) < 0)
		goto out;
	/* the recipes load before anything exists: a bad one costs no VM; a
	 * RADL received as text has no directory of its own for roles */
	abs = req->text ? NULL : realpath(req->file, NULL);
	if (recipes_precheck(p, doc->file, abs, d) < 0)
		goto out;
	if (!*st)
		*st = state_open(home, d);
	if (!*st)
		goto out;
	id = deploy_new_id();
	if (state_lock_infra(*st, id, true, &lock, d) != 0)
		goto out;
	dir = state_infra_dir(*st, id, d);
	key = deploy_key_path(home, id);
	if (!dir || sshkey_generate(key, id, d) < 0)
		goto out;
	char *pub = xasprintf("%s.pub", key);
	chmod(pub, 0600); /* everything in $IMC_HOME is 0600 */
	free(pub);
	/* the job secret imc-train's tasks authenticate with, delivered to
	 * the VMs by the recipes that want it (IMC_JOB_SECRET) */
	char *secret = deploy_secret_path(home, id);
	int src = deploy_secret_create(secret, d);
	free(secret);
	if (src < 0)
		goto out;
	ev = req->vars && json_object_size(req->vars) ? json_dumps(req->vars, JSON_COMPACT) : NULL;
	in.id = id;
	in.radl = text;
	in.radl_path = abs;
	in.cloud = (char *)(uintptr_t)req->cloud;
	in.extra_vars = ev;
	in.auth_path = auth_path;
	in.owner = (char *)(uintptr_t)req->owner;
	in.phase = PHASE_NEW;
	in.next_vm = (int)p->nvms;
	in.ctxt_max = p->sched.max_time;
	if (store_plan(*st, &in, p, d) < 0)
		goto out;
	/* before the worker exists: a Ctrl-C from then on stops following */
	if (req->catch_interrupt)
		deploy_follow_catch_interrupt();
	if (deploy_spawn(st, id, lock, WORKER_DEPLOY, NULL, d) < 0)
		goto out;
	*idp = id;
	id = NULL;
	rc = 0;
out:
	state_unlock_infra(lock);
	plan_free(p);
	radl_doc_free(doc);
	auth_file_free(af);
	free(text);
	free(auth_path);
	free(id);
	free(key);
	free(dir);
	free(abs);
	free(ev);
	return rc;
}
