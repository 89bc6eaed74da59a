/* cmd-getinfo.c: 'imc getinfo ID [ATTRIBUTE]': for every VM, IM's "Info
 * about VM with ID: N" and its RADL with the runtime features (state,
 * addresses, cloud id), or only the value of ATTRIBUTE (e.g.
 * net_interface.0.ip). Secrets never appear. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

int cmd_getinfo(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	const char *system = NULL;
	const struct infra_opt opts[] = {
		{ .lng = "system", .shrt = 's', .val = &system }, /* IM's client -s: only this system's VMs */
		{ 0 },
	};
	char *pos[2];
	int npos, rc = infra_args(ctx, argc, argv, opts, pos, 1, 2, &npos);
	if (rc)
		return rc;
	const char *attr = npos > 1 ? pos[1] : NULL;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct radl_doc *doc = NULL;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0 || deploy_recover(st, &in, &d) < 0 ||
	    deploy_refresh(st, &in, ctx->auth_file, &d) < 0 || state_vm_list(st, in.id, &vms, &n, &d) < 0 || !(doc = deploy_radl(&in, &d)))
		goto out;
	json_t *arr = json_array();
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (system && strcmp(system, vms[i].system) != 0)
			continue;
		json_t *j = NULL;
		char *value = NULL;
		struct strbuf one = STRBUF_INIT;
		if (deploy_vm_info(doc, &vms[i], attr, &one, &j, attr ? &value : NULL, &d) < 0) {
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
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "id", json_string(in.id));
		if (attr)
			json_object_set_new(j, "attribute", json_string(attr));
		json_object_set_new(j, "vms", arr);
		infra_json_print(j);
	} else {
		char *safe = redact(strbuf_str(&sb));
		fputs(safe, stdout);
		free(safe);
		json_decref(arr);
	}
	strbuf_release(&sb);
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	radl_doc_free(doc);
	state_vm_list_free(vms, n);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
