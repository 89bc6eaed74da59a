/* cmd-reconfigure.c: 'imc reconfigure ID [FILE] [VM,...]' runs the
 * contextualization again (on the VMs listed, default all), after
 * replacing the infrastructure's configure sections and contextualize
 * sentence by those of FILE when one is given. Prints IM's "Infrastructure
 * successfully reconfigured." once the worker is done (-d: right away);
 * exits 1 when a VM ends unconfigured. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool is_vm_list(const char *s)
{
	return *s && strspn(s, "0123456789,") == strlen(s);
}

/* The stored document with FILE's configures and contextualize in place. */
static char *replace_configures(const struct radl_doc *old, const struct radl_doc *add)
{
	struct strbuf sb = STRBUF_INIT;
	if (old->description) {
		radl_print_aspect(&sb, old->description);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nansibles; i++) {
		radl_print_aspect(&sb, &old->ansibles[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nnetworks; i++) {
		radl_print_aspect(&sb, &old->networks[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nsystems; i++) {
		radl_print_aspect(&sb, &old->systems[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nconfigures; i++) {
		const struct radl_configure *c = radl_find_configure(add, old->configures[i].id);
		radl_print_configure(&sb, c && !c->reference ? c : &old->configures[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < add->nconfigures; i++)
		if (!add->configures[i].reference && !radl_find_configure(old, add->configures[i].id)) {
			radl_print_configure(&sb, &add->configures[i]);
			strbuf_addch(&sb, '\n');
		}
	for (size_t i = 0; i < old->ndeploys; i++) {
		radl_print_deploy(&sb, &old->deploys[i]);
		strbuf_addch(&sb, '\n');
	}
	if (add->ctxt.present)
		radl_print_contextualize(&sb, &add->ctxt);
	else if (old->ctxt.present)
		radl_print_contextualize(&sb, &old->ctxt);
	return strbuf_detach(&sb);
}

int cmd_reconfigure(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	bool detach = false;
	const struct infra_opt opts[] = { { .lng = "detach", .shrt = 'd', .flag = &detach }, { 0 } };
	char *pos[3];
	int npos, rc = infra_args(ctx, argc, argv, opts, pos, 1, 3, &npos);
	if (rc)
		return rc;
	const char *file = NULL, *list = NULL;
	for (int i = 1; i < npos; i++) {
		if (!file && access(pos[i], F_OK) == 0)
			file = pos[i];
		else if (!list && is_vm_list(pos[i]))
			list = pos[i];
		else
			return cmd_usage_error("reconfigure", "'%s' is neither a RADL file nor a VM list", pos[i]);
	}
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct radl_doc *old = NULL, *add = NULL, *check = NULL;
	char *text = NULL, *merged = NULL;
	json_t *vars = NULL;
	int lock = -1;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0 || deploy_recover(st, &in, &d) < 0 ||
	    state_lock_infra(st, in.id, true, &lock, &d) != 0)
		goto out;
	state_infra_release(&in);
	if (infra_lookup(st, pos[0], &in, &d) < 0)
		goto out;
	if (file) {
		vars = in.extra_vars ? json_loads(in.extra_vars, 0, NULL) : json_object();
		if (!(old = deploy_radl(&in, &d)) || !(add = deploy_load_radl_unchecked(file, vars, true, &text, &d)))
			goto out;
		merged = replace_configures(old, add);
		struct diag cd = DIAG_INIT;
		check = radl_parse(in.radl_path ? in.radl_path : "infrastructure.radl", merged, strlen(merged), &cd);
		if (!check || radl_check(check, &cd) < 0) {
			diag_error(&d, IMC_EXIT_DATAERR, NULL, "the configures of '%s' do not fit the infrastructure: %s",
				   file, diag_first_message(&cd));
			diag_release(&cd);
			goto out;
		}
		diag_release(&cd);
		if (state_infra_set_radl(st, in.id, merged, &d) < 0)
			goto out;
	}
	if (state_infra_set_phase(st, in.id, PHASE_NEW, &d) < 0 ||
	    deploy_spawn(&st, in.id, lock, WORKER_CONFIGURE, list, &d) < 0)
		goto out;
	state_unlock_infra(lock);
	lock = -1;
	enum vm_state final = VM_CONFIGURED;
	if (!detach && deploy_follow(st, in.id, 0, false, &final, &d) < 0)
		goto out;
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "id", json_string(in.id));
		json_object_set_new(j, "state", json_string(detach ? "running" : vm_state_name(final)));
		infra_json_print(j);
	} else
		printf("Infrastructure successfully reconfigured.\n");
	if (!detach && final != VM_CONFIGURED)
		rc = IMC_EXIT_FAILED;
out:
	if (d.n) {
		int r = cmd_report(ctx, &d);
		if (r)
			rc = r;
	}
	state_unlock_infra(lock);
	radl_doc_free(old);
	radl_doc_free(add);
	radl_doc_free(check);
	json_decref(vars);
	free(text);
	free(merged);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
