/* cmd-getinfo.c: 'imc getinfo ID [ATTRIBUTE]': for every VM, IM's "Info
 * about VM with ID: N" and its RADL with the runtime features (state,
 * addresses, cloud id), or only the value of ATTRIBUTE (e.g.
 * net_interface.0.ip). Secrets never appear. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

enum { OPT_SYSTEM };

static const struct cmd_option options[] = {
	[OPT_SYSTEM] = { "system", 's', CMD_OPT_VALUE, "SYSTEM",
			 "only the VMs of this system (IM's client -s)" },
	{ 0 },
};

static int run(struct cmd_args *a)
{
	const char *system = a->opt[OPT_SYSTEM].val;
	const char *attr = a->noperands > 1 ? a->operands[1] : NULL;
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct radl_doc *doc = NULL;
	if (state_vm_list(a->st, a->in->id, &vms, &n, a->d) < 0 || !(doc = deploy_radl(a->in, a->d)))
		goto out;
	json_t *arr = json_array();
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (system && strcmp(system, vms[i].system) != 0)
			continue;
		json_t *j = NULL;
		char *value = NULL;
		struct strbuf one = STRBUF_INIT;
		if (deploy_vm_info(doc, &vms[i], attr, &one, &j, attr ? &value : NULL, a->d) < 0) {
			strbuf_release(&one);
			continue;
		}
		strbuf_addf(&sb, "Info about VM with ID: %d\n", vms[i].num);
		if (attr) {
			strbuf_addf(&sb, "%s\n", value ? value : "");
			json_decref(j);
			j = json_pack("{s:i, s:o}", "id", vms[i].num, "value", value ? json_string(value) : json_null());
		} else
			strbuf_addstr(&sb, strbuf_str(&one));
		json_array_append_new(arr, j);
		free(value);
		strbuf_release(&one);
	}
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		if (attr)
			json_object_set_new(j, "attribute", json_string(attr));
		json_object_set_new(j, "vms", arr);
		cli_json_print(j);
	} else {
		char *safe = redact(strbuf_str(&sb));
		fputs(safe, stdout);
		free(safe);
		json_decref(arr);
	}
	strbuf_release(&sb);
out:
	radl_doc_free(doc);
	state_vm_list_free(vms, n);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getinfo_entry = {
	.name = "getinfo", .synopsis = "[-s SYSTEM] ID [ATTRIBUTE]",
	.summary = "RADL of every VM of the infrastructure",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER | CMD_REFRESH, .run = run,
};
