/* cmd-removeresource.c: 'imc removeresource ID VM[,VM...]' deletes VMs of
 * an infrastructure on their cloud, then their rows. Their numbers are
 * never given again. Every VM named must exist before any is touched.
 * The VMs left are contextualized again in the background, as IM does
 * (--no-context: not). Prints IM's "Resources with IDs: N successfully
 * deleted." */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

int cmd_removeresource(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	bool no_context = false;
	const struct infra_opt opts[] = { { .lng = "no-context", .flag = &no_context }, { 0 } };
	char *pos[2];
	int npos, rc = infra_args(ctx, argc, argv, opts, pos, 2, 2, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct auth_file *af = NULL;
	struct state_vm *vms = NULL;
	size_t n = 0;
	int *nums = NULL, nnums = 0, lock = -1;
	bool *gone = NULL;
	struct strbuf done = STRBUF_INIT;
	strbuf_addstr(&done, "");
	json_t *removed = json_array();
	/* the VM list */
	for (char *p = pos[1]; *p;) {
		size_t len = strcspn(p, ",");
		char *tok = xstrndup(p, len);
		int num;
		if (infra_vm_arg(tok, &num, &d) < 0) {
			free(tok);
			goto out;
		}
		free(tok);
		nums = xreallocarray(nums, (size_t)nnums + 1, sizeof(*nums));
		nums[nnums++] = num;
		p += len;
		if (*p == ',')
			p++;
	}
	struct state_store *st = infra_store(ctx, &d);
	if (!st)
		goto out;
	if (infra_lookup(st, pos[0], &in, &d) < 0 || deploy_recover(st, &in, &d) < 0 ||
	    state_lock_infra(st, in.id, true, &lock, &d) != 0 ||
	    deploy_auth(ctx->auth_file, state_home(st), in.auth_path, &af, NULL, &d) < 0 ||
	    state_vm_list(st, in.id, &vms, &n, &d) < 0)
		goto close;
	for (int k = 0; k < nnums; k++) {
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found = found || vms[i].num == nums[k];
		if (!found) {
			diag_error(&d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in.id, nums[k]);
			goto close;
		}
	}
	gone = xcalloc(n + 1, sizeof(*gone));
	for (int k = 0; k < nnums; k++)
		for (size_t i = 0; i < n; i++) {
			struct state_vm *vm = &vms[i];
			if (vm->num != nums[k] || gone[i])
				continue;
			enum vm_state before = vm->state;
			if (state_vm_set_state(st, in.id, vm->num, VM_DELETING, &d) < 0)
				goto close;
			struct cloud_session s;
			int ok = -1;
			if (deploy_cloud_open(st, &in, vm->cloud, vm->cloud_cred, af, &s, &d) == 0) {
				ok = 0;
				if (s.drv->vm_destroy) {
					json_t *spec;
					struct cloud_vm cv;
					deploy_cloud_vm(vm, &spec, &cv);
					ok = s.drv->vm_destroy(&s, &cv, &d);
					deploy_cloud_vm_release(&cv);
					json_decref(spec);
				}
				deploy_cloud_close(&s);
			}
			if (ok < 0) {
				state_vm_set_state(st, in.id, vm->num, before, &d);
				continue;
			}
			char *msg = xasprintf("VM %d removed", vm->num);
			state_log_add(st, in.id, -1, msg, &d);
			free(msg);
			if (state_vm_delete(st, in.id, vm->num, &d) < 0)
				goto close;
			strbuf_addf(&done, "%s%d", done.len ? "," : "", vm->num);
			json_array_append_new(removed, json_integer(vm->num));
			gone[i] = true; /* listed twice: once is enough */
		}
	/* As IM: the VMs left are contextualized again (their /etc/hosts and
	 * groups lose the removed ones), when any of them is reachable over
	 * SSH; in the background, like a create -d. */
	bool ssh = false;
	for (size_t i = 0; i < n; i++) {
		const struct cloud_driver *drv = cloud_driver_find(vms[i].cloud);
		ssh = ssh || (!gone[i] && drv && (drv->caps & CLOUD_CAP_SSH) &&
			      (vms[i].state == VM_CONFIGURED || vms[i].state == VM_UNCONFIGURED));
	}
	if (done.len && ssh && !no_context) {
		if (state_infra_set_phase(st, in.id, PHASE_NEW, &d) < 0 ||
		    deploy_spawn(&st, in.id, lock, WORKER_CONFIGURE, NULL, &d) < 0)
			goto close;
	}
	if (done.len) {
		if (ctx->json) {
			json_t *j = infra_json_doc();
			json_object_set_new(j, "id", json_string(in.id));
			json_object_set_new(j, "removed", json_incref(removed));
			infra_json_print(j);
		} else
			printf("Resources with IDs: %s successfully deleted.\n", done.buf);
	}
close:
	state_unlock_infra(lock);
	state_close(st);
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	json_decref(removed);
	strbuf_release(&done);
	free(nums);
	free(gone);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	state_infra_release(&in);
	diag_release(&d);
	return rc;
}
