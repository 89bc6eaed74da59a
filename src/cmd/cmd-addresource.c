/* cmd-addresource.c: 'imc addresource ID FILE' adds the VMs FILE deploys
 * to an infrastructure. FILE may define new systems, networks and
 * configures or refer (without a body) to those of the infrastructure. The
 * new VMs get the next numbers (never reused), are recorded 'pending', and
 * a deployment worker creates them and contextualizes the whole
 * infrastructure again, as IM does (--no-context: the new VMs are only
 * created and stay 'running', IM's context=0). Prints IM's "Resources with IDs: N,M
 * successfully added." once they are deployed (-d: right away). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/cloud.h"
#include "cmd/cmd.h"
#include "cmd/infra.h"
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

int cmd_addresource(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	const char **evars = NULL;
	size_t nev = 0;
	bool detach = false, no_context = false;
	const struct infra_opt opts[] = {
		{ .lng = "no-context", .flag = &no_context },
		{ .lng = "extra-var", .shrt = 'e', .list = &evars, .nlist = &nev },
		{ .lng = "detach", .shrt = 'd', .flag = &detach },
		{ 0 },
	};
	char *pos[2];
	int npos, rc = infra_args(ctx, argc, argv, opts, pos, 2, 2, &npos);
	if (rc) {
		free(evars);
		return rc;
	}
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct auth_file *af = NULL;
	struct radl_doc *base = NULL, *add = NULL;
	struct plan *p = NULL;
	json_t *vars = NULL;
	char *text = NULL, *merged = NULL;
	int lock = -1;
	struct strbuf ids = STRBUF_INIT;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0 || deploy_recover(st, &in, &d) < 0)
		goto out;
	vars = in.extra_vars ? json_loads(in.extra_vars, 0, NULL) : NULL;
	if (!vars)
		vars = json_object();
	for (size_t i = 0; i < nev; i++)
		if (plan_parse_extra_var(&vars, evars[i], &d) < 0)
			goto out;
	if (state_lock_infra(st, in.id, true, &lock, &d) != 0)
		goto out;
	state_infra_release(&in);
	if (infra_lookup(st, pos[0], &in, &d) < 0 ||
	    deploy_auth(ctx->auth_file, state_home(st), in.auth_path, &af, NULL, &d) < 0 || !(base = deploy_radl(&in, &d)))
		goto out;
	add = deploy_load_radl(pos[1], vars, true, &text, &d);
	if (!add)
		goto out;
	struct plan_opts o = { .first_num = in.next_vm, .cloud_override = in.cloud, .auth = af, .base = base };
	p = plan_build(add, &o, &d);
	if (!p)
		goto out;
	if (p->nvms == 0) {
		diag_error(&d, IMC_EXIT_DATAERR, NULL, "'%s' deploys no VM", pos[1]);
		goto out;
	}
	for (size_t i = 0; i < p->nvms; i++)
		if (!cloud_driver_find(p->vms[i].cloud)) {
			diag_error(&d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d would go to cloud '%s', which this imc does not support",
				   p->vms[i].num, p->vms[i].cloud);
			goto out;
		}
	merged = merged_radl(&in, base, add);
	int first;
	if (state_begin(&*st, &d) < 0)
		goto out;
	if (state_infra_take_nums(st, in.id, (int)p->nvms, &first, &d) < 0 || state_infra_set_radl(st, in.id, merged, &d) < 0)
		goto fail;
	struct state_net *nets = NULL;
	size_t nn = 0;
	state_net_list(st, in.id, &nets, &nn, &d);
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
		if (state_net_upsert(st, &net, &d) < 0) {
			state_net_list_free(nets, nn);
			goto fail;
		}
	}
	state_net_list_free(nets, nn);
	for (size_t i = 0; i < p->nvms; i++) {
		json_t *spec = plan_vm_to_json(&p->vms[i]);
		char *s = json_dumps(spec, JSON_COMPACT);
		json_decref(spec);
		struct state_vm vm = { .infra_id = in.id, .num = p->vms[i].num,
				       .system = (char *)(uintptr_t)p->vms[i].system, .cloud = p->vms[i].cloud,
				       .cloud_cred = p->vms[i].cloud_cred, .state = VM_PENDING,
				       .user = p->vms[i].user, .spec = s, .ctxt = -1 };
		int r = state_vm_insert(st, &vm, &d);
		free(s);
		if (r < 0)
			goto fail;
		strbuf_addf(&ids, "%s%d", i ? "," : "", p->vms[i].num);
	}
	if (state_infra_set_phase(st, in.id, PHASE_NEW, &d) < 0 || state_commit(st, &d) < 0)
		goto fail;
	if (deploy_spawn(&st, in.id, lock, no_context ? WORKER_CREATE : WORKER_DEPLOY, NULL, &d) < 0)
		goto out;
	state_unlock_infra(lock);
	lock = -1;
	enum vm_state final = VM_CONFIGURED;
	if (!detach && deploy_follow(st, in.id, 0, false, &final, &d) < 0)
		goto out;
	bool bad = false;
	for (size_t i = 0; i < p->nvms && !detach; i++) {
		struct state_vm vm;
		if (state_vm_get(st, in.id, p->vms[i].num, &vm, &d) == 0) {
			bad = bad || vm.state == VM_FAILED || vm.state == VM_UNCONFIGURED;
			state_vm_release(&vm);
		}
	}
	if (ctx->json) {
		json_t *j = infra_json_doc(), *a = json_array();
		for (size_t i = 0; i < p->nvms; i++)
			json_array_append_new(a, json_integer(p->vms[i].num));
		json_object_set_new(j, "id", json_string(in.id));
		json_object_set_new(j, "added", a);
		infra_json_print(j);
	} else
		printf("Resources with IDs: %s successfully added.\n", ids.buf);
	if (bad)
		rc = IMC_EXIT_FAILED;
	goto out;
fail:
	state_rollback(st);
out:
	if (d.n) {
		int r = cmd_report(ctx, &d);
		if (r)
			rc = r;
	}
	state_unlock_infra(lock);
	strbuf_release(&ids);
	plan_free(p);
	radl_doc_free(add);
	radl_doc_free(base);
	auth_file_free(af);
	json_decref(vars);
	free(text);
	free(merged);
	free(evars);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
