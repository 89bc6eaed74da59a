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

#include "cmd/cli.h"
#include "cmd/cmd.h"
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

enum { OPT_DETACH };

static const struct cmd_option options[] = {
	[OPT_DETACH] = CMD_OPTION_DETACH,
	{ 0 },
};

/* Operands 1 and 2: a RADL file (one that exists) and a VM list, in either
 * order: 0, or the usage status. */
static int file_and_list(struct cmd_args *a, const char **file, const char **list)
{
	*file = *list = NULL;
	for (int i = 1; i < a->noperands; i++) {
		if (!*file && access(a->operands[i], F_OK) == 0)
			*file = a->operands[i];
		else if (!*list && is_vm_list(a->operands[i]))
			*list = a->operands[i];
		else
			return cmd_usage_error(a->cmd, "'%s' is neither a RADL file nor a VM list",
					       a->operands[i]);
	}
	return 0;
}

static int check_operands(struct cmd_args *a)
{
	const char *file, *list;
	return file_and_list(a, &file, &list);
}

static int run(struct cmd_args *a)
{
	bool detach = a->opt[OPT_DETACH].set;
	const char *file, *list;
	struct radl_doc *old = NULL, *add = NULL, *check = NULL;
	char *text = NULL, *merged = NULL;
	json_t *vars = NULL;
	int lock = -1, rc = IMC_EXIT_OK;
	file_and_list(a, &file, &list);
	if (state_lock_infra(a->st, a->in->id, true, &lock, a->d) != 0)
		goto out;
	state_infra_release(a->in);
	if (cli_lookup(a->st, a->operands[0], a->in, a->d) < 0)
		goto out;
	if (file) {
		vars = a->in->extra_vars ? json_loads(a->in->extra_vars, 0, NULL) : json_object();
		if (!(old = deploy_radl(a->in, a->d)) || !(add = deploy_load_radl_unchecked(file, vars, true, &text, a->d)))
			goto out;
		merged = replace_configures(old, add);
		struct diag cd = DIAG_INIT;
		check = radl_parse(a->in->radl_path ? a->in->radl_path : "infrastructure.radl", merged, strlen(merged), &cd);
		if (!check || radl_check(check, &cd) < 0) {
			diag_error(a->d, IMC_EXIT_DATAERR, NULL, "the configures of '%s' do not fit the infrastructure: %s",
				   file, diag_first_message(&cd));
			diag_release(&cd);
			goto out;
		}
		diag_release(&cd);
		if (state_infra_set_radl(a->st, a->in->id, merged, a->d) < 0)
			goto out;
	}
	if (state_infra_set_phase(a->st, a->in->id, PHASE_NEW, a->d) < 0 ||
	    deploy_spawn(&a->st, a->in->id, lock, WORKER_CONFIGURE, list, a->d) < 0)
		goto out;
	state_unlock_infra(lock);
	lock = -1;
	enum vm_state final = VM_CONFIGURED;
	if (!detach && deploy_follow(a->st, a->in->id, 0, false, &final, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "state", json_string(detach ? "running" : vm_state_name(final)));
		cli_json_print(j);
	} else
		printf("Infrastructure successfully reconfigured.\n");
	if (!detach && final != VM_CONFIGURED)
		rc = IMC_EXIT_FAILED;
out:
	state_unlock_infra(lock);
	radl_doc_free(old);
	radl_doc_free(add);
	radl_doc_free(check);
	json_decref(vars);
	free(text);
	free(merged);
	return rc;
}

const struct imc_cmd cmd_reconfigure_entry = {
	.name = "reconfigure", .synopsis = "[-d] ID [FILE] [VM,...]",
	.summary = "run the contextualization again",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER,
	.check = check_operands, .run = run,
};
