/* cmd-getvminfo.c: 'imc getvminfo ID VM [ATTRIBUTE]': one VM's RADL with its
 * runtime features, or the value of one attribute (IM's GET
 * /infrastructures/ID/vms/VM[/ATTRIBUTE]). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

int cmd_getvminfo(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[3];
	int npos, num, rc = infra_args(ctx, argc, argv, NULL, pos, 2, 3, &npos);
	if (rc)
		return rc;
	const char *attr = npos > 2 ? pos[2] : NULL;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_vm vm = { 0 };
	struct radl_doc *doc = NULL;
	struct strbuf sb = STRBUF_INIT;
	json_t *j = NULL;
	char *value = NULL;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_vm_arg(pos[1], &num, &d) < 0 || infra_lookup(st, pos[0], &in, &d) < 0 ||
	    deploy_recover(st, &in, &d) < 0 || deploy_refresh(st, &in, ctx->auth_file, &d) < 0)
		goto out;
	int g = state_vm_get(st, in.id, num, &vm, &d);
	if (g > 0)
		diag_error(&d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in.id, num);
	if (g != 0 || !(doc = deploy_radl(&in, &d)) ||
	    deploy_vm_info(doc, &vm, attr, &sb, &j, attr ? &value : NULL, &d) < 0)
		goto out;
	if (attr && !value) {
		diag_error(&d, IMC_EXIT_NOINPUT, NULL, "VM %d has no attribute '%s'", num, attr);
		goto out;
	}
	if (ctx->json) {
		json_t *doc_j = infra_json_doc();
		if (attr) {
			json_object_set_new(doc_j, "id", json_integer(num));
			json_object_set_new(doc_j, "attribute", json_string(attr));
			json_object_set_new(doc_j, "value", json_string(value));
		} else {
			json_object_update(doc_j, j);
		}
		infra_json_print(doc_j);
	} else if (attr)
		printf("%s\n", value);
	else {
		char *safe = redact(strbuf_str(&sb));
		fputs(safe, stdout);
		free(safe);
	}
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	json_decref(j);
	free(value);
	strbuf_release(&sb);
	radl_doc_free(doc);
	state_vm_release(&vm);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
