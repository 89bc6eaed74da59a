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

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { OPT_NO_CONTEXT };

static const struct cmd_option options[] = {
	[OPT_NO_CONTEXT] = { "no-context", 0, CMD_OPT_FLAG, NULL,
			     "do not contextualize the VMs left again" },
	{ 0 },
};

/* The numbers of "VM[,VM...]" (malloc'd): 0, or -1 with d set. */
static int parse_vms(const char *list, int **nums, int *nnums, struct diag *d)
{
	*nums = NULL;
	*nnums = 0;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		char *tok = xstrndup(p, len);
		int num;
		int rc = cli_vm_arg(tok, &num, d);
		free(tok);
		if (rc < 0)
			return -1;
		*nums = xreallocarray(*nums, (size_t)*nnums + 1, sizeof(**nums));
		(*nums)[(*nnums)++] = num;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The VM list is checked before the store is opened. */
static int check_operands(struct cmd_args *a)
{
	int *nums, nnums;
	parse_vms(a->operands[1], &nums, &nnums, a->d);
	free(nums);
	return 0;
}

static int run(struct cmd_args *a)
{
	bool no_context = a->opt[OPT_NO_CONTEXT].set;
	struct auth_file *af = NULL;
	struct state_vm *vms = NULL;
	size_t n = 0;
	int *nums = NULL, nnums = 0, lock = -1;
	bool *gone = NULL;
	struct strbuf done = STRBUF_INIT;
	strbuf_addstr(&done, "");
	json_t *removed = json_array();
	parse_vms(a->operands[1], &nums, &nnums, a->d);
	if (state_lock_infra(a->st, a->in->id, true, &lock, a->d) != 0 ||
	    deploy_auth(a->ctx->auth_file, state_home(a->st), a->in->auth_path, &af, NULL, a->d) < 0 ||
	    state_vm_list(a->st, a->in->id, &vms, &n, a->d) < 0)
		goto out;
	for (int k = 0; k < nnums; k++) {
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found = found || vms[i].num == nums[k];
		if (!found) {
			diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id, nums[k]);
			goto out;
		}
	}
	gone = xcalloc(n + 1, sizeof(*gone));
	for (int k = 0; k < nnums; k++)
		for (size_t i = 0; i < n; i++) {
			struct state_vm *vm = &vms[i];
			if (vm->num != nums[k] || gone[i])
				continue;
			enum vm_state before = vm->state;
			if (state_vm_set_state(a->st, a->in->id, vm->num, VM_DELETING, a->d) < 0)
				goto out;
			struct cloud_session s;
			int ok = -1;
			if (deploy_cloud_open(a->st, a->in, vm->cloud, vm->cloud_cred, af, &s, a->d) == 0) {
				ok = 0;
				if (s.drv->vm_destroy) {
					json_t *spec;
					struct cloud_vm cv;
					deploy_cloud_vm(vm, &spec, &cv);
					ok = s.drv->vm_destroy(&s, &cv, a->d);
					deploy_cloud_vm_release(&cv);
					json_decref(spec);
				}
				deploy_cloud_close(&s);
			}
			if (ok < 0) {
				state_vm_set_state(a->st, a->in->id, vm->num, before, a->d);
				continue;
			}
			char *msg = xasprintf("VM %d removed", vm->num);
			state_log_add(a->st, a->in->id, -1, msg, a->d);
			free(msg);
			if (state_vm_delete(a->st, a->in->id, vm->num, a->d) < 0)
				goto out;
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
		if (state_infra_set_phase(a->st, a->in->id, PHASE_NEW, a->d) < 0 ||
		    deploy_spawn(&a->st, a->in->id, lock, WORKER_CONFIGURE, NULL, a->d) < 0)
			goto out;
	}
	if (done.len) {
		if (a->ctx->json) {
			json_t *j = cli_json_doc();
			json_object_set_new(j, "id", json_string(a->in->id));
			json_object_set_new(j, "removed", json_incref(removed));
			cli_json_print(j);
		} else
			printf("Resources with IDs: %s successfully deleted.\n", done.buf);
	}
out:
	state_unlock_infra(lock);
	json_decref(removed);
	strbuf_release(&done);
	free(nums);
	free(gone);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_removeresource_entry = {
	.name = "removeresource", .synopsis = "[--no-context] ID VM[,VM...]",
	.summary = "remove VMs from an infrastructure",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER,
	.check = check_operands, .run = run,
};
