/* cmd-getvminfo.c: 'imc getvminfo ID VM [ATTRIBUTE]': one VM's RADL with its
 * runtime features, or the value of one attribute (IM's GET
 * /infrastructures/ID/vms/VM[/ATTRIBUTE]). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	int num = a->vm;
	const char *attr = a->noperands > 2 ? a->operands[2] : NULL;
	struct state_vm vm = { 0 };
	struct radl_doc *doc = NULL;
	struct strbuf sb = STRBUF_INIT;
	json_t *j = NULL;
	char *value = NULL;
	int g = state_vm_get(a->st, a->in->id, num, &vm, a->d);
	if (g > 0)
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id, num);
	if (g != 0 || !(doc = deploy_radl(a->in, a->d)) ||
	    deploy_vm_info(doc, &vm, attr, &sb, &j, attr ? &value : NULL, a->d) < 0)
		goto out;
	if (attr && !value) {
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "VM %d has no attribute '%s'", num, attr);
		goto out;
	}
	if (a->ctx->json) {
		json_t *doc_j = cli_json_doc();
		if (attr) {
			json_object_set_new(doc_j, "id", json_integer(num));
			json_object_set_new(doc_j, "attribute", json_string(attr));
			json_object_set_new(doc_j, "value", json_string(value));
		} else {
			json_object_update(doc_j, j);
		}
		cli_json_print(doc_j);
	} else if (attr)
		printf("%s\n", value);
	else {
		char *safe = redact(strbuf_str(&sb));
		fputs(safe, stdout);
		free(safe);
	}
out:
	json_decref(j);
	free(value);
	strbuf_release(&sb);
	radl_doc_free(doc);
	state_vm_release(&vm);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getvminfo_entry = {
	.name = "getvminfo", .synopsis = "ID VM [ATTRIBUTE]", .summary = "RADL of one VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM | CMD_RECOVER | CMD_REFRESH, .run = run,
};
