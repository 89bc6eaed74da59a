/* dummy.c: the 'dummy' cloud backend, a mock for tests of the state machine
 * (libvirt's test driver). Its VMs exist only in the state store: creating
 * one is instant and gives it deterministic addresses; nothing listens on
 * them, so the backend has no CLOUD_CAP_SSH and the deployment worker skips
 * the provisioner for its VMs (they go straight to 'configured').
 *
 * Failures on demand, so tests can drive every transition:
 *   - the image URL: disk.0.image.url = 'dummy://fail-create' (or a comma
 *     list after dummy://: fail-create, fail-stop, fail-start, fail-reboot,
 *     fail-alter, fail-destroy, off) applies to the VMs of that system;
 *   - the environment: IMC_DUMMY_FAIL=LIST (same words) applies to every
 *     dummy VM of the process that reads it, e.g. to make a later destroy
 *     fail; IMC_DUMMY_FAIL_VM=N restricts it to VM number N.
 * 'off' makes a VM look terminated behind imc's back on the next update. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cloud/cloud.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n == wl && strncmp(p, word, n) == 0)
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* Whether operation 'word' must fail for vm. */
static bool should(const struct cloud_vm *vm, const char *word)
{
	if (vm->image && strncmp(vm->image, "dummy://", 8) == 0 && has_word(vm->image + 8, word))
		return true;
	const char *env = getenv("IMC_DUMMY_FAIL");
	if (env && has_word(env, word)) {
		const char *only = getenv("IMC_DUMMY_FAIL_VM");
		if (!only || !*only || strtol(only, NULL, 10) == vm->num)
			return true;
	}
	return false;
}

static int dummy_net_create(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	(void)d;
	free(net->cloud_id);
	net->cloud_id = xasprintf("dummy-%.8s-%s", s->infra_id, net->name);
	free(net->cidr_assigned);
	net->cidr_assigned = xstrdup(net->cidr ? net->cidr : "10.0.0.0/24");
	return 0;
}

static int dummy_net_destroy(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	(void)s; (void)net; (void)d;
	return 0;
}

static int dummy_vm_create(struct cloud_session *s, struct cloud_vm *vms, size_t n, struct diag *d)
{
	for (size_t i = 0; i < n; i++) {
		struct cloud_vm *vm = &vms[i];
		if (should(vm, "fail-create")) {
			vm->state = VM_FAILED;
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "dummy cloud: creating VM %d failed (requested by 'fail-create')", vm->num);
			continue;
		}
		free(vm->cloud_id);
		vm->cloud_id = xasprintf("dummy-%.8s-%d", s->infra_id, vm->num);
		for (size_t k = 0; k < vm->nnics; k++) {
			free(vm->nics[k].ip);
			vm->nics[k].ip = xasprintf("10.%d.%d.%d", 100 + vm->nics[k].index,
						   (vm->num + 2) / 250, (vm->num + 2) % 250);
		}
		free(vm->private_ip);
		vm->private_ip = xstrdup(vm->nnics && vm->nics[0].ip ? vm->nics[0].ip : "10.100.0.2");
		vm->state = VM_RUNNING;
	}
	return 0;
}

static int dummy_vm_update(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	(void)s; (void)d;
	if (should(vm, "off"))
		vm->state = VM_OFF;
	/* otherwise the state the caller loaded from the store is the truth */
	return 0;
}

static int simple_op(struct cloud_vm *vm, const char *word, enum vm_state to, struct diag *d)
{
	if (should(vm, word)) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "dummy cloud: %s of VM %d failed (requested by '%s')",
			   word + 5, vm->num, word);
		return -1;
	}
	vm->state = to;
	return 0;
}

static int dummy_vm_stop(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	(void)s;
	return simple_op(vm, "fail-stop", VM_STOPPED, d);
}

static int dummy_vm_start(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	(void)s;
	return simple_op(vm, "fail-start", VM_RUNNING, d);
}

static int dummy_vm_reboot(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	(void)s;
	return simple_op(vm, "fail-reboot", VM_RUNNING, d);
}

/* A dummy VM is its stored record, so the new size the caller stores is the
 * whole change; fail-alter makes it fail. */
static int dummy_vm_alter(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	(void)s;
	return simple_op(vm, "fail-alter", vm->state, d);
}

static int dummy_vm_destroy(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	(void)s;
	return simple_op(vm, "fail-destroy", VM_OFF, d);
}

static int dummy_cleanup_infra(struct cloud_session *s, struct diag *d)
{
	(void)s; (void)d;
	return 0;
}

const struct cloud_driver cloud_dummy = {
	.name = "dummy",
	.caps = CLOUD_CAP_STOP | CLOUD_CAP_NETWORKS,
	.net_create = dummy_net_create,
	.net_destroy = dummy_net_destroy,
	.vm_create = dummy_vm_create,
	.vm_update = dummy_vm_update,
	.vm_stop = dummy_vm_stop,
	.vm_start = dummy_vm_start,
	.vm_reboot = dummy_vm_reboot,
	.vm_alter = dummy_vm_alter,
	.vm_destroy = dummy_vm_destroy,
	.cleanup_infra = dummy_cleanup_infra,
};
