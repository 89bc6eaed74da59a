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
#include "cmd/cli.h"
#include "cmd/cmd.h"
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

enum { OPT_NO_CONTEXT, OPT_EXTRA_VAR, OPT_DETACH };

static const struct cmd_option options[] = {
	[OPT_NO_CONTEXT] = { "no-context", 0, CMD_OPT_FLAG, NULL,
			     "only create the new VMs (they stay running)" },
	[OPT_EXTRA_VAR] = CMD_OPTION_EXTRA_VAR,
	[OPT_DETACH] = CMD_OPTION_DETACH,
	{ 0 },
};

static int run(struct cmd_args *a)
{
	bool detach = a->opt[OPT_DETACH].set, no_context = a->opt[OPT_NO_CONTEXT].set;
	struct auth_file *af = NULL;
	struct radl_doc *base = NULL, *add = NULL;
	struct plan *p = NULL;
	json_t *vars = NULL;
	char *text = NULL, *merged = NULL;
	int lock = -1, rc = IMC_EXIT_OK;
	struct strbuf ids = STRBUF_INIT;
	vars = a->in->extra_vars ? json_loads(a->in->extra_vars, 0, NULL) : NULL;
	if (!vars)
		vars = json_object();
	if (cli_extra_vars(&vars, &a->opt[OPT_EXTRA_VAR], a->d) < 0)
		goto out;
	if (state_lock_infra(a->st, a->in->id, true, &lock, a->d) != 0)
		goto out;
	state_infra_release(a->in);
	if (cli_lookup(a->st, a->operands[0], a->in, a->d) < 0 ||
	    deploy_auth(a->ctx->auth_file, state_home(a->st), a->in->auth_path, &af, NULL, a->d) < 0 || !(base = deploy_radl(a->in, a->d)))
		goto out;
	add = deploy_load_radl(a->operands[1], vars, true, &text, a->d);
	if (!add)
		goto out;
	struct plan_opts o = { .first_num = a->in->next_vm, .cloud_override = a->in->cloud, .auth = af, .base = base };
	p = plan_build(add, &o, a->d);
	if (!p)
		goto out;
	if (p->nvms == 0) {
		diag_error(a->d, IMC_EXIT_DATAERR, NULL, "'%s' deploys no VM", a->operands[1]);
		goto out;
	}
	for (size_t i = 0; i < p->nvms; i++)
		if (!cloud_driver_find(p->vms[i].cloud)) {
			diag_error(a->d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d would go to cloud '%s', which this imc does not support",
				   p->vms[i].num, p->vms[i].cloud);
			goto out;
		}
	merged = merged_radl(a->in, base, add);
	int first;
	if (state_begin(a->st, a->d) < 0)
		goto out;
	if (state_infra_take_nums(a->st, a->in->id, (int)p->nvms, &first, a->d) < 0 || state_infra_set_radl(a->st, a->in->id, merged, a->d) < 0)
		goto fail;
	struct state_net *nets = NULL;
	size_t nn = 0;
	state_net_list(a->st, a->in->id, &nets, &nn, a->d);
	for (size_t i = 0; i < p->nnets; i++) {
		bool have = false;
		for (size_t k = 0; k < nn; k++)
			have = have || (strcmp(nets[k].name, p->nets[i].name) == 0 && p->nets[i].cloud &&
					strcmp(nets[k].cloud, p->nets[i].cloud) == 0);
		if (have || !p->nets[i].cloud)
			continue;
		struct state_net net = { .infra_id = a->in->id, .name = (char *)(uintptr_t)p->nets[i].name,
					 .cloud = p->nets[i].cloud, .cidr = (char *)(uintptr_t)p->nets[i].cidr,
					 .public = p->nets[i].public, .outports = (char *)(uintptr_t)p->nets[i].outports };
		if (state_net_upsert(a->st, &net, a->d) < 0) {
			state_net_list_free(nets, nn);
			goto fail;
		}
	}
	state_net_list_free(nets, nn);
	for (size_t i = 0; i < p->nvms; i++) {
		json_t *spec = plan_vm_to_json(&p->vms[i]);
		char *s = json_dumps(spec, JSON_COMPACT);
		json_decref(spec);
		struct state_vm vm = { .infra_id = a->in->id, .num = p->vms[i].num,
				       .system = (char *)(uintptr_t)p->vms[i].system, .cloud = p->vms[i].cloud,
				       .cloud_cred = p->vms[i].cloud_cred, .state = VM_PENDING,
				       .user = p->vms[i].user, .spec = s, .ctxt = -1 };
		int r = state_vm_insert(a->st, &vm, a->d);
		free(s);
		if (r < 0)
			goto fail;
		strbuf_addf(&ids, "%s%d", i ? "," : "", p->vms[i].num);
	}
	if (state_infra_set_phase(a->st, a->in->id, PHASE_NEW, a->d) < 0 || state_commit(a->st, a->d) < 0)
		goto fail;
	if (deploy_spawn(&a->st, a->in->id, lock, no_context ? WORKER_CREATE : WORKER_DEPLOY, NULL, a->d) < 0)
		goto out;
	state_unlock_infra(lock);
	lock = -1;
	enum vm_state final = VM_CONFIGURED;
	if (!detach && deploy_follow(a->st, a->in->id, 0, false, &final, a->d) < 0)
		goto out;
	bool bad = false;
	for (size_t i = 0; i < p->nvms && !detach; i++) {
		struct state_vm vm;
		if (state_vm_get(a->st, a->in->id, p->vms[i].num, &vm, a->d) == 0) {
			bad = bad || vm.state == VM_FAILED || vm.state == VM_UNCONFIGURED;
			state_vm_release(&vm);
		}
	}
	if (a->ctx->json) {
		json_t *j = cli_json_doc(), *added = json_array();
		for (size_t i = 0; i < p->nvms; i++)
			json_array_append_new(added, json_integer(p->vms[i].num));
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "added", added);
		cli_json_print(j);
	} else
		printf("Resources with IDs: %s successfully added.\n", ids.buf);
	if (bad)
		rc = IMC_EXIT_FAILED;
	goto out;
fail:
	state_rollback(a->st);
out:
	state_unlock_infra(lock);
	strbuf_release(&ids);
	plan_free(p);
	radl_doc_free(add);
	radl_doc_free(base);
	auth_file_free(af);
	json_decref(vars);
	free(text);
	free(merged);
	return rc;
}

const struct imc_cmd cmd_addresource_entry = {
	.name = "addresource", .synopsis = "[-d] [--no-context] [-e KEY=VALUE]... ID FILE",
	.summary = "add VMs to an infrastructure",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
