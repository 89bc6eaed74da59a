/* add.c: new VMs for an existing infrastructure, what 'imc addresource'
 * and `imc serve`'s POST /infrastructures/ID both do (see deploy.h,
 * deploy_add). The RADL added may define new systems, networks and
 * configures or refer (without a body) to those of the infrastructure;
 * the new VMs get the next numbers (never reused), are recorded 'pending'
 * with the stored RADL grown by what was added, and a deployment worker
 * creates them and contextualizes the whole infrastructure again, as IM
 * does (or only creates them, IM's context=0). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/cloud.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "plan/plan.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The stored RADL plus what FILE adds: sentences with new ids, and its deploys. */
static char *merged_radl(const struct state_infra *in, const struct radl_doc *base, const struct radl_doc *add)
{
	struct strbuf sb = STRBUF_INIT;
	const char *t = in->radl ? in->radl : "";
	size_t k = strspn(t, " \t\r\n");
	if (t[k] == '[' || t[k] == '{')
		radl_print_doc(&sb, base); /* created from RADL-JSON: go on in RADL */
	else
		strbuf_addstr(&sb, t);
	if (sb.len && sb.buf[sb.len - 1] != '\n')
		strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, "\n");
	for (size_t i = 0; i < add->nnetworks; i++)
		if (!add->networks[i].reference && !radl_find_network(base, add->networks[i].id)) {
			radl_print_aspect(&sb, &add->networks[i]);
			strbuf_addch(&sb, '\n');
		}
	for (size_t i = 0; i < add->nsystems; i++)
		if (!add->systems[i].reference && !radl_find_system(base, add->systems[i].id)) {
			radl_print_aspect(&sb, &add->systems[i]);
			strbuf_addch(&sb, '\n');
		}
	for (size_t i = 0; i < add->nconfigures; i++)
		if (!add->configures[i].reference && !radl_find_configure(base, add->configures[i].id)) {
			radl_print_configure(&sb, &add->configures[i]);
			strbuf_addch(&sb, '\n');
		}
	for (size_t i = 0; i < add->ndeploys; i++) {
		radl_print_deploy(&sb, &add->deploys[i]);
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

int deploy_add(struct state_store **st, const char *id, const struct deploy_submission *req, bool no_context,
	       int **nums, size_t *nnums, struct diag *d)
{
	struct auth_file *af = NULL;
	struct radl_doc *base = NULL, *add = NULL;
	struct plan *p = NULL;
	struct state_infra in = { 0 };
	json_t *vars = NULL;
	char *text = NULL, *merged = NULL;
	int lock = -1, rc = -1;
	*nums = NULL;
	*nnums = 0;
	/* read again under the lock: the numbers and the RADL taken are
	 * the current ones */
	if (deploy_lock_live(*st, id, &lock, &in, d) < 0)
		goto out;
	vars = in.extra_vars ? json_loads(in.extra_vars, 0, NULL) : NULL;
	if (!vars)
		vars = json_object();
	if (req->vars)
		json_object_update(vars, req->vars);
	if (deploy_auth(req->auth_given, state_home(*st), in.auth_path, &af, NULL, d) < 0 || !(base = deploy_radl(&in, d)))
		goto out;
	if (req->text)
		add = deploy_parse_radl(req->file, req->text, req->len, vars, true, &text, d);
	else
		add = deploy_load_radl(req->file, vars, req->interactive, &text, d);
	if (!add)
		goto out;
	struct plan_opts o = { .first_num = in.next_vm, .cloud_override = in.cloud, .auth = af, .base = base };
	p = plan_build(add, &o, d);
	if (!p)
		goto out;
	if (p->nvms == 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s' deploys no VM", req->file);
		goto out;
	}
	for (size_t i = 0; i < p->nvms; i++)
		if (!cloud_driver_find(p->vms[i].cloud)) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d would go to cloud '%s', which this imc does not support",
				   p->vms[i].num, p->vms[i].cloud);
			goto out;
		}
	merged = merged_radl(&in, base, add);
	int first;
	if (state_begin(*st, d) < 0)
		goto out;
	if (state_infra_take_nums(*st, in.id, (int)p->nvms, &first, d) < 0 || state_infra_set_radl(*st, in.id, merged, d) < 0)
		goto fail;
	struct state_net *nets = NULL;
	size_t nn = 0;
	state_net_list(*st, in.id, &nets, &nn, d);
	for (size_t i = 0; i < p->nnets; i++) {
		bool have = false;
		for (size_t k = 0; k < nn; k++)
			have = have || (strcmp(nets[k].name, p->nets[i].name) == 0 && p->nets[i].cloud &&
					strcmp(nets[k].cloud, p->nets[i].cloud) == 0);
		if (have || !p->nets[i].cloud)
			continue;
		struct state_net net = { .infra_id = in.id, .name = (char *)(uintptr_t)p->nets[i].name,
					 .cloud = p->nets[i].cloud, .cidr = (char *)(uintptr_t)p->nets[i].cidr,
					 .public = p->nets[i].public, .outports = (char *)(uintptr_t)p->nets[i].outports };
		if (state_net_upsert(*st, &net, d) < 0) {
			state_net_list_free(nets, nn);
			goto fail;
		}
	}
	state_net_list_free(nets, nn);
	*nums = xcalloc(p->nvms, sizeof(**nums));
	for (size_t i = 0; i < p->nvms; i++) {
		json_t *spec = plan_vm_to_json(&p->vms[i]);
		char *s = json_dumps(spec, JSON_COMPACT);
		json_decref(spec);
		struct state_vm vm = { .infra_id = in.id, .num = p->vms[i].num,
				       .system = (char *)(uintptr_t)p->vms[i].system, .cloud = p->vms[i].cloud,
				       .cloud_cred = p->vms[i].cloud_cred, .state = VM_PENDING,
				       .user = p->vms[i].user, .spec = s, .ctxt = -1 };
		int r = state_vm_insert(*st, &vm, d);
		free(s);
		if (r < 0)
			goto fail;
		(*nums)[(*nnums)++] = p->vms[i].num;
	}
	if (state_infra_set_phase(*st, in.id, PHASE_NEW, d) < 0 || state_commit(*st, d) < 0)
		goto fail;
	if (deploy_spawn(st, in.id, lock, no_context ? WORKER_CREATE : WORKER_DEPLOY, NULL, d) < 0)
		goto out;
	rc = 0;
	goto out;
fail:
	state_rollback(*st);
out:
	if (rc < 0) {
		free(*nums);
		*nums = NULL;
		*nnums = 0;
	}
	state_unlock_infra(lock);
	state_infra_release(&in);
	plan_free(p);
	radl_doc_free(add);
	radl_doc_free(base);
	auth_file_free(af);
	json_decref(vars);
	free(text);
	free(merged);
	return rc;
}
