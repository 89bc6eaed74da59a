/* cmd-list.c: 'imc list [REGEX]': the infrastructures in the store, in IM's
 * words ("Infrastructure IDs:" then one per line, or "No
 * Infrastructures."). REGEX (POSIX extended) filters on the id and the
 * RADL text, as IM's filter was meant to. */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

/* A bad REGEX is refused before the store is opened (or created). */
static int check_operands(struct cmd_args *a)
{
	regex_t re;
	if (a->noperands && regcomp(&re, a->operands[0], REG_EXTENDED | REG_NOSUB) != 0)
		return cmd_usage_error(a->cmd, "invalid regular expression '%s'", a->operands[0]);
	if (a->noperands)
		regfree(&re);
	return 0;
}

static int run(struct cmd_args *a)
{
	int npos = a->noperands;
	regex_t re;
	if (npos && regcomp(&re, a->operands[0], REG_EXTENDED | REG_NOSUB) != 0)
		return IMC_EXIT_SOFTWARE; /* compiled once by check_operands */
	char **ids = NULL;
	size_t n = 0;
	if (state_infra_list(a->st, &ids, &n, a->d) < 0)
		goto out;
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		struct state_infra in;
		if (state_infra_get(a->st, ids[i], &in, a->d) != 0)
			continue;
		deploy_recover(a->st, &in, a->d);
		bool match = !npos || regexec(&re, in.id, 0, NULL, 0) == 0 ||
			     (in.radl && regexec(&re, in.radl, 0, NULL, 0) == 0);
		if (match) {
			struct state_vm *vms = NULL;
			size_t nv = 0;
			state_vm_list(a->st, in.id, &vms, &nv, a->d);
			json_array_append_new(arr, json_pack("{s:s, s:s, s:i}", "id", in.id, "state",
							     vm_state_name(deploy_state(&in, vms, nv)), "vms", (int)nv));
			state_vm_list_free(vms, nv);
		}
		state_infra_release(&in);
	}
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "infrastructures", arr);
		cli_json_print(j);
	} else {
		if (json_array_size(arr) == 0)
			printf("No Infrastructures.\n");
		else {
			printf("Infrastructure IDs: \n");
			size_t i;
			json_t *o;
			json_array_foreach(arr, i, o)
				printf("  %s\n", json_string_value(json_object_get(o, "id")));
		}
		json_decref(arr);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	if (npos)
		regfree(&re);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_list_entry = {
	.name = "list", .synopsis = "[REGEX]", .summary = "list the infrastructures",
	.flags = CMD_NEEDS_STORE, .check = check_operands, .run = run,
};
