/* vms.c: the VMs of an infrastructure in `imc serve` (IM's REST.rst):
 * GET /infrastructures/ID/vms/N (its RADL with the runtime features, as
 * 'imc getvminfo'; RADL-JSON with Accept: application/json) and GET
 * /infrastructures/ID/vms/N/PROPERTY (contmsg as 'imc getvmcontmsg',
 * state, or any feature of its system as 'imc getvminfo ID N ATTRIBUTE');
 * PUT .../vms/N/disks/D/snapshot is answered IM's 400: no backend of imc
 * makes disk snapshots. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "deploy/deploy.h"
#include "server/server.h"
#include "util/banned.h"

/* The VM of segment 3 of infrastructure in: 0, or -1 with IM's 404. */
static int find_vm(struct srv_request *r, const struct state_infra *in, const char *what, struct state_vm *vm,
		   struct srv_reply *out)
{
	struct diag d = DIAG_INIT;
	int num, g = 1;
	if (srv_vm_number(r->seg[3], strlen(r->seg[3]), &num) == 0)
		g = state_vm_get(r->st, in->id, num, vm, &d);
	if (g < 0)
		srv_reply_diag(r, out, 400, what, &d);
	else if (g > 0)
		srv_reply_error(r, out, 404, "%s: Invalid VM ID or access not granted.", what);
	diag_release(&d);
	return g == 0 ? 0 : -1;
}

void srv_vm_info(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Getting VM info";
	struct state_infra in;
	struct state_vm vm = { 0 };
	struct diag d = DIAG_INIT;
	struct radl_doc *doc = NULL;
	struct strbuf sb = STRBUF_INIT;
	json_t *j = NULL;
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	deploy_refresh(r->st, &in, r->user.auth_path, &d);
	if (find_vm(r, &in, what, &vm, out) < 0)
		goto out;
	if (!(doc = deploy_radl(&in, &d)) || deploy_vm_info(doc, &vm, NULL, &sb, &j, NULL, &d) < 0) {
		srv_reply_diag(r, out, 400, what, &d);
		goto out;
	}
	/* IM: the RADL text, or {"radl": RADL-JSON} */
	srv_reply_prop(r, out, "radl", strbuf_str(&sb), json_incref(json_object_get(j, "radl")));
out:
	json_decref(j);
	strbuf_release(&sb);
	radl_doc_free(doc);
	state_vm_release(&vm);
	state_infra_release(&in);
	diag_release(&d);
}

void srv_vm_prop(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Getting VM property";
	const char *prop = r->seg[4];
	struct state_infra in;
	struct state_vm vm = { 0 };
	struct diag d = DIAG_INIT;
	struct radl_doc *doc = NULL;
	struct strbuf sb = STRBUF_INIT;
	char *value = NULL;
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	if (find_vm(r, &in, what, &vm, out) < 0)
		goto out;
	if (strcmp(prop, "contmsg") == 0) {
		if (state_log_get(r->st, in.id, vm.num, &sb, &d) < 0)
			srv_reply_diag(r, out, 400, what, &d);
		else
			srv_reply_prop(r, out, "contmsg", strbuf_str(&sb), NULL);
		goto out;
	}
	if (strcmp(prop, "state") == 0) {
		srv_reply_prop(r, out, "state", vm_state_name(vm.state), NULL);
		goto out;
	}
	if (!(doc = deploy_radl(&in, &d)) || deploy_vm_info(doc, &vm, prop, NULL, NULL, &value, &d) < 0)
		srv_reply_diag(r, out, 400, what, &d);
	else if (!value)
		srv_reply_error(r, out, 404, "%s: VM %d has no property '%s'", what, vm.num, prop);
	else
		srv_reply_prop(r, out, prop, value, NULL);
out:
	free(value);
	strbuf_release(&sb);
	radl_doc_free(doc);
	state_vm_release(&vm);
	state_infra_release(&in);
	diag_release(&d);
}

void srv_vm_snapshot(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error creating snapshot";
	struct state_infra in;
	struct state_vm vm = { 0 };
	if (srv_infra(r, r->seg[1], what, false, &in, out) < 0)
		return;
	if (find_vm(r, &in, what, &vm, out) == 0) {
		if (!srv_query(r, "image_name") || !*srv_query(r, "image_name"))
			srv_reply_error(r, out, 400, "%s: the image_name parameter is mandatory", what);
		else
			/* IM's connectors make them; imc's backends do not yet */
			srv_reply_error(r, out, 400, "%s: the %s cloud of VM %d cannot make disk snapshots", what,
					vm.cloud, vm.num);
	}
	state_vm_release(&vm);
	state_infra_release(&in);
}
