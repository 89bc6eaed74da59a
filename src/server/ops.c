/* ops.c: the operations of `imc serve` on running infrastructures (IM's
 * REST.rst): PUT /infrastructures/ID/start|stop (every live VM) and PUT
 * /infrastructures/ID/vms/N/start|stop|reboot (one VM), through
 * deploy_vms_op as the commands start, stop, startvm, stopvm, rebootvm;
 * PUT /infrastructures/ID/reconfigure (configures replaced by the body's,
 * when it has a RADL, then the contextualization run again in the
 * background on the VMs of vm_list, default all, through
 * deploy_reconfigure as 'imc reconfigure -d'). IM answers an empty body
 * when the operation was done or started. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "server/server.h"
#include "util/banned.h"

static enum vmop op_named(const char *name)
{
	return strcmp(name, "start") == 0 ? VMOP_START : strcmp(name, "stop") == 0 ? VMOP_STOP : VMOP_REBOOT;
}

/* Runs op on VM num (< 0: every VM) of the infrastructure of segment 1. */
static void run_op(struct srv_request *r, struct srv_reply *out, enum vmop op, int num, const char *what)
{
	struct state_infra in;
	struct diag d = DIAG_INIT;
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	if (deploy_vms_op(r->st, &in, r->user.auth_path, num, op, &d) < 0)
		srv_reply_diag(r, out, d.code == IMC_EXIT_NOINPUT ? 404 : 400, what, &d);
	else
		srv_reply_empty(r, out);
	state_infra_release(&in);
	diag_release(&d);
}

void srv_infra_op(struct srv_request *r, struct srv_reply *out)
{
	enum vmop op = op_named(r->seg[2]);
	run_op(r, out, op, -1, op == VMOP_START ? "Error starting Inf." : "Error stopping Inf.");
}

void srv_vm_op(struct srv_request *r, struct srv_reply *out)
{
	static const char *const what[] = { [VMOP_START] = "Error starting VM", [VMOP_STOP] = "Error stopping VM",
					    [VMOP_REBOOT] = "Error rebooting VM" };
	enum vmop op = op_named(r->seg[4]);
	int num;
	if (srv_vm_number(r->seg[3], strlen(r->seg[3]), &num) < 0) {
		srv_reply_error(r, out, 404, "%s: Invalid VM ID or access not granted.", what[op]);
		return;
	}
	run_op(r, out, op, num, what[op]);
}

void srv_infra_reconfigure(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error reconfiguring Inf.";
	const char *list = srv_query(r, "vm_list");
	struct state_infra in;
	struct diag d = DIAG_INIT;
	if (list && (!*list || strspn(list, "0123456789,") != strlen(list))) {
		srv_reply_error(r, out, 400, "%s: Incorrect value in vm_list parameter", what);
		return;
	}
	if (srv_radl_body(r, out) < 0)
		return;
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	/* a body of blanks only is no RADL: the configures stay */
	bool radl = r->len && strspn(r->body, " \t\r\n") < r->len;
	struct deploy_submission req = { .file = "body", .text = radl ? r->body : NULL, .len = r->len };
	if (deploy_reconfigure(&r->st, in.id, radl ? &req : NULL, list, &d) < 0)
		srv_reply_diag(r, out, 400, what, &d);
	else
		srv_reply_empty(r, out);
	state_infra_release(&in);
	diag_release(&d);
}
