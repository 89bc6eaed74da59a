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
 * 'off' makes a VM look terminated behind imc's back on the next update.
 *
 * Its call log, so that a test can tell whether imc called the cloud at all
 * (e.g. zero calls when a recipe fails to load): with IMC_DUMMY_LOG=FILE,
 * every operation appends one line "OP VM-NUMBER" or "OP NETWORK-NAME" to
 * FILE (net_create, net_destroy, vm_create, vm_update, vm_stop, vm_start,
 * vm_reboot, vm_alter, vm_destroy; cleanup_infra with the infrastructure
 * id), failed or not, in the order they were made. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloud/cloud.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* One line to $IMC_DUMMY_LOG, written by one append so that concurrent
 * processes (a command and a worker) never interleave within a line. */
static void call_log(const char *op, const char *what)
{
	const char *path = getenv("IMC_DUMMY_LOG");
	if (!path || !*path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	char *line = xasprintf("%s %s\n", op, what ? what : "-");
	ssize_t w = write(fd, line, strlen(line));
	(void)w; /* a test log: a short write shows as a missing line */
	free(line);
	close(fd);
}

static void call_log_vm(const char *op, const struct cloud_vm *vm)
{
	char num[24];
	snprintf(num, sizeof(num), "%d", vm->num);
	call_log(op, num);
}

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
	call_log("net_create", net->name);
	free(net->cloud_id);
	net->cloud_id = xasprintf("dummy-%.8s-%s", s->infra_id, net->name);
	free(net->cidr_assigned);
	net->cidr_assigned = xstrdup(net->cidr ? net->cidr : "10.0.0.0/24");
	return 0;
}

static int dummy_net_destroy(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	(void)s; (void)d;
	call_log("net_destroy", net->name);
	return 0;
}

static int dummy_vm_create(struct cloud_session *s, struct cloud_vm *vms, size_t n, struct diag *d)
{
	for (size_t i = 0; i < n; i++) {
		struct cloud_vm *vm = &vms[i];
		call_log_vm("vm_create", vm);
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
	call_log_vm("vm_update", vm);
	if (should(vm, "off"))
		vm->state = VM_OFF;
	/* otherwise the state the caller loaded from the store is the truth */
	return 0;
}

/* word is "fail-OP": the operation logged is "vm_OP". */
static int simple_op(struct cloud_vm *vm, const char *word, enum vm_state to, struct diag *d)
{
	char *op = xasprintf("vm_%s", word + 5);
	call_log_vm(op, vm);
	free(op);
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
	(void)d;
	call_log("cleanup_infra", s->infra_id);
	return 0;
}

const struct cloud_driver cloud_dummy = {
	.name = "dummy",
	.caps = CLOUD_CAP_STOP | CLOUD_CAP_NETWORKS | CLOUD_CAP_NO_CREDENTIALS,
	.schemes = (const char *const[]){ "dummy", NULL },
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
