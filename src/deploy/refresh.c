/* refresh.c: asking the clouds how the VMs of an idle infrastructure are
 * (see deploy.h), so that getstate shows a VM someone stopped or deleted
 * behind imc's back. Only while nobody holds the infrastructure: a worker
 * or a command changing it records its own states. */
#include "config.h"

#include <stdlib.h>

#include "deploy/deploy.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

int deploy_refresh(struct state_store *st, const struct state_infra *in, const char *auth_given,
		   struct diag *d)
{
	if (in->phase != PHASE_DONE && in->phase != PHASE_INTERRUPTED)
		return 0;
	int fd;
	int rc = state_lock_infra(st, in->id, false, &fd, d);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* someone is changing it: they will record */
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct auth_file *af = NULL;
	struct diag ad = DIAG_INIT;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0) {
		state_unlock_infra(fd);
		return -1;
	}
	bool auth_ok = deploy_auth(auth_given, state_home(st), in->auth_path, &af, NULL, &ad) == 0;
	diag_release(&ad);
	for (size_t i = 0; i < n && auth_ok; i++) {
		struct state_vm *vm = &vms[i];
		if (!vm->cloud_id || vm->state == VM_FAILED || vm->state == VM_OFF ||
		    vm->state == VM_DELETING || vm->state == VM_PENDING)
			continue;
		struct cloud_session s;
		struct diag ld = DIAG_INIT;
		if (deploy_cloud_open(st, in, vm->cloud, vm->cloud_cred, af, &s, &ld) < 0) {
			diag_release(&ld);
			continue;
		}
		if (s.drv->vm_update) {
			json_t *spec;
			struct cloud_vm cv;
			deploy_cloud_vm(vm, &spec, &cv);
			if (s.drv->vm_update(&s, &cv, &ld) == 0) {
				enum vm_state was = vm->state, now_s = cv.state;
				if (now_s == VM_RUNNING && (was == VM_CONFIGURED || was == VM_UNCONFIGURED))
					cv.state = was;
				else if (now_s == VM_RUNNING && was == VM_STOPPED)
					cv.state = vm->ctxt > 0 ? VM_CONFIGURED : vm->ctxt == 0 ? VM_UNCONFIGURED : VM_RUNNING;
				if (cv.state != was) {
					deploy_vm_take(vm, &cv);
					char *msg = xasprintf("the cloud reports this VM %s (was %s)", vm_state_name(cv.state),
							      vm_state_name(was));
					state_vm_update(st, vm, d);
					state_log_add(st, in->id, vm->num, msg, d);
					free(msg);
				}
			} else
				log_info("refresh", "VM %d: %s", vm->num, diag_first_message(&ld));
			deploy_cloud_vm_release(&cv);
			json_decref(spec);
		}
		deploy_cloud_close(&s);
		diag_release(&ld);
	}
	auth_file_free(af);
	state_vm_list_free(vms, n);
	state_unlock_infra(fd);
	return 0;
}
