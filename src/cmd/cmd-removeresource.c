/* cmd-removeresource.c: 'imc removeresource ID VM[,VM...]' deletes VMs of
 * an infrastructure through deploy_remove (deploy/remove.c: every VM named
 * must exist before any is touched; each deleted on its cloud, then its
 * row; the VMs left contextualized again in the background, as IM does;
 * --no-context: not). Prints IM's "Resources with IDs: N successfully
 * deleted." */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { OPT_NO_CONTEXT };

static const struct cmd_option options[] = {
	[OPT_NO_CONTEXT] = { "no-context", 0, CMD_OPT_FLAG, NULL,
			     "do not contextualize the VMs left again" },
	{ 0 },
};

/* The numbers of "VM[,VM...]" (malloc'd): 0, or -1 with d set. */
static int parse_vms(const char *list, int **nums, int *nnums, struct diag *d)
{
	*nums = NULL;
	*nnums = 0;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		char *tok = xstrndup(p, len);
		int num;
		int rc = cli_vm_arg(tok, &num, d);
		free(tok);
		if (rc < 0)
			return -1;
		*nums = xreallocarray(*nums, (size_t)*nnums + 1, sizeof(**nums));
		(*nums)[(*nnums)++] = num;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The VM list is checked before the store is opened. */
static int check_operands(struct cmd_args *a)
{
	int *nums, nnums;
	parse_vms(a->operands[1], &nums, &nnums, a->d);
	free(nums);
	return 0;
}

static int run(struct cmd_args *a)
{
	bool no_context = a->opt[OPT_NO_CONTEXT].set;
	int *nums = NULL, nnums = 0, *removed = NULL;
	size_t nremoved = 0;
	parse_vms(a->operands[1], &nums, &nnums, a->d);
	if (deploy_remove(&a->st, a->in, a->ctx->auth_file, nums, (size_t)nnums, no_context, &removed, &nremoved,
			  a->d) < 0 || !nremoved)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc(), *arr = json_array();
		for (size_t i = 0; i < nremoved; i++)
			json_array_append_new(arr, json_integer(removed[i]));
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "removed", arr);
		cli_json_print(j);
	} else {
		struct strbuf done = STRBUF_INIT;
		for (size_t i = 0; i < nremoved; i++)
			strbuf_addf(&done, "%s%d", i ? "," : "", removed[i]);
		printf("Resources with IDs: %s successfully deleted.\n", done.buf);
		strbuf_release(&done);
	}
out:
	free(nums);
	free(removed);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_removeresource_entry = {
	.name = "removeresource", .synopsis = "[--no-context] ID VM[,VM...]",
	.summary = "remove VMs from an infrastructure",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER,
	.check = check_operands, .run = run,
};
