/* cmd-list.c: 'imc list [REGEX]': the infrastructures in the store, in IM's
 * words ("Infrastructure IDs:" then one per line, or "No
 * Infrastructures."). REGEX (POSIX extended) filters on the id and the
 * RADL text, as IM's filter was meant to. */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/banned.h"

int cmd_list(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[1];
	int npos, rc = infra_args(ctx, argc, argv, NULL, pos, 0, 1, &npos);
	if (rc)
		return rc;
	regex_t re;
	if (npos && regcomp(&re, pos[0], REG_EXTENDED | REG_NOSUB) != 0)
		return cmd_usage_error("list", "invalid regular expression '%s'", pos[0]);
	struct diag d = DIAG_INIT;
	char **ids = NULL;
	size_t n = 0;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || state_infra_list(st, &ids, &n, &d) < 0)
		goto out;
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		struct state_infra in;
		if (state_infra_get(st, ids[i], &in, &d) != 0)
			continue;
		deploy_recover(st, &in, &d);
		bool match = !npos || regexec(&re, in.id, 0, NULL, 0) == 0 ||
			     (in.radl && regexec(&re, in.radl, 0, NULL, 0) == 0);
		if (match) {
			struct state_vm *vms = NULL;
			size_t nv = 0;
			state_vm_list(st, in.id, &vms, &nv, &d);
			json_array_append_new(arr, json_pack("{s:s, s:s, s:i}", "id", in.id, "state",
							     vm_state_name(deploy_state(&in, vms, nv)), "vms", (int)nv));
			state_vm_list_free(vms, nv);
		}
		state_infra_release(&in);
	}
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "infrastructures", arr);
		infra_json_print(j);
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
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	if (npos)
		regfree(&re);
	state_close(st);
	diag_release(&d);
	return rc;
}
