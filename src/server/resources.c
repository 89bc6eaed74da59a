/* resources.c: changing which VMs an infrastructure has, in `imc serve`
 * (IM's REST.rst): POST /infrastructures/ID adds the VMs its body's RADL
 * deploys (through deploy_add, as 'imc addresource'; context=no: only
 * created) and answers their URIs; DELETE /infrastructures/ID/vms/N[,M...]
 * removes VMs (through deploy_remove, as 'imc removeresource'; context=no:
 * the others are not contextualized again); PUT /infrastructures/ID/vms/N
 * changes a VM's features (through deploy_alter, as 'imc alter') and
 * answers the VM as it is then. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

void srv_infra_add(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Adding resources";
	bool context;
	struct state_infra in;
	struct diag d = DIAG_INIT;
	int *nums = NULL;
	size_t n = 0;
	if (srv_query_flag(r, "context", true, &context) < 0) {
		srv_reply_error(r, out, 400, "%s: Incorrect value in context parameter", what);
		return;
	}
	if (srv_radl_body(r, out) < 0)
		return;
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	struct deploy_submission req = { .file = "body", .text = r->body, .len = r->len,
					 .auth_given = r->user.auth_path };
	if (deploy_add(&r->st, in.id, &req, !context, &nums, &n, &d) < 0) {
		srv_reply_diag(r, out, 400, what, &d);
		goto out;
	}
	log_info("serve", "%zu VM(s) added to %s for user '%s'", n, in.id, r->user.username);
	deploy_wait_created(r->st, in.id, r->cfg->create_wait);
	char **paths = xcalloc(n ? n : 1, sizeof(*paths));
	for (size_t i = 0; i < n; i++)
		paths[i] = xasprintf("infrastructures/%s/vms/%d", in.id, nums[i]);
	srv_reply_uris(r, out, paths, n);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
out:
	free(nums);
	state_infra_release(&in);
	diag_release(&d);
}

/* The numbers of "N[,M...]" (malloc'd); -1 when one is not a VM number. */
static int parse_vms(const char *list, int **nums, size_t *n)
{
	*nums = NULL;
	*n = 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		*nums = xreallocarray(*nums, *n + 1, sizeof(**nums));
		if (srv_vm_number(p, len, &(*nums)[*n]) < 0) {
			free(*nums);
			*nums = NULL;
			*n = 0;
			return -1;
		}
		(*n)++;
		p += len;
		if (!*p)
			return 0;
	}
}

void srv_vm_remove(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Removing resources";
	bool context;
	struct state_infra in;
	struct diag d = DIAG_INIT;
	int *nums = NULL, *removed = NULL;
	size_t n = 0, nremoved = 0;
	if (srv_query_flag(r, "context", true, &context) < 0) {
		srv_reply_error(r, out, 400, "%s: Incorrect value in context parameter", what);
		return;
	}
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	if (parse_vms(r->seg[3], &nums, &n) < 0) {
		srv_reply_error(r, out, 404, "%s: Invalid VM ID or access not granted.", what);
		goto out;
	}
	int rc = deploy_remove(&r->st, &in, r->user.auth_path, nums, n, !context, &removed, &nremoved, &d);
	if (rc < 0 && d.code == IMC_EXIT_NOINPUT)
		srv_reply_error(r, out, 404, "%s: Invalid VM ID or access not granted.", what);
	else if (rc < 0 || diag_has_errors(&d))
		srv_reply_diag(r, out, 400, what, &d);
	else
		srv_reply_empty(r, out);
out:
	free(nums);
	free(removed);
	state_infra_release(&in);
	diag_release(&d);
}

void srv_vm_alter(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error modifying the VM";
	struct state_infra in;
	struct state_vm vm = { 0 };
	struct diag d = DIAG_INIT;
	struct radl_doc *doc = NULL;
	struct strbuf sb = STRBUF_INIT;
	json_t *spec = NULL, *j = NULL;
	int *nums = NULL;
	size_t n = 0;
	if (srv_radl_body(r, out) < 0)
		return;
	if (srv_infra(r, r->seg[1], what, false, &in, out) < 0)
		return;
	if (parse_vms(r->seg[3], &nums, &n) < 0 || n != 1) {
		srv_reply_error(r, out, 404, "%s: Invalid VM ID or access not granted.", what);
		goto out;
	}
	struct deploy_submission req = { .file = "body", .text = r->body, .len = r->len,
					 .auth_given = r->user.auth_path };
	if (deploy_alter(r->st, &in, nums[0], &req, &spec, &d) < 0) {
		srv_reply_diag(r, out, d.code == IMC_EXIT_NOINPUT ? 404 : 400, what, &d);
		goto out;
	}
	/* IM answers the VM as it is now: its RADL, or {"radl": RADL-JSON} */
	if (state_vm_get(r->st, in.id, nums[0], &vm, &d) != 0 || !(doc = deploy_radl(&in, &d)) ||
	    deploy_vm_info(doc, &vm, NULL, &sb, &j, NULL, &d) < 0)
		srv_reply_diag(r, out, 400, what, &d);
	else
		srv_reply_prop(r, out, "radl", strbuf_str(&sb), json_incref(json_object_get(j, "radl")));
out:
	json_decref(spec);
	json_decref(j);
	strbuf_release(&sb);
	radl_doc_free(doc);
	state_vm_release(&vm);
	free(nums);
	state_infra_release(&in);
	diag_release(&d);
}
