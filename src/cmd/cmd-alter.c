/* cmd-alter.c: 'imc alter ID VM FILE' changes the features of a VM (IM's
 * PUT .../vms/VM): FILE holds a system whose cpu.count, memory.size,
 * gpu.count and instance_type replace the VM's. The VM's cloud makes the
 * change real (its vm_alter operation: cgroup limits on the local cloud, a
 * new instance type on EC2); only once it is in effect does the store take
 * the new values. A cloud without vm_alter refuses, never pretending. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	int num = a->vm;
	struct state_vm vm = { 0 };
	struct radl_doc *doc = NULL;
	json_t *vars = json_object(), *spec = NULL;
	char *text = NULL;
	struct auth_file *af = NULL;
	struct cloud_session s;
	struct cloud_vm cv;
	bool opened = false, have_cv = false;
	int lock = -1;
	if (!(doc = deploy_load_radl(a->operands[2], vars, true, &text, a->d)) ||
	    state_lock_infra(a->st, a->in->id, true, &lock, a->d) != 0)
		goto out;
	int g = state_vm_get(a->st, a->in->id, num, &vm, a->d);
	if (g > 0)
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id, num);
	if (g != 0)
		goto out;
	const struct radl_aspect *sys = NULL;
	for (size_t i = 0; i < doc->nsystems && !sys; i++)
		if (!doc->systems[i].reference)
			sys = &doc->systems[i];
	if (!sys) {
		diag_error(a->d, IMC_EXIT_DATAERR, NULL, "'%s' has no system with features to apply", a->operands[2]);
		goto out;
	}
	if (vm.state != VM_RUNNING && vm.state != VM_CONFIGURED && vm.state != VM_UNCONFIGURED &&
	    vm.state != VM_STOPPED) {
		diag_error(a->d, IMC_EXIT_FAILED, NULL, "VM %d is %s: it cannot be altered", num,
			   vm_state_name(vm.state));
		goto out;
	}
	if (deploy_auth(a->ctx->auth_file, state_home(a->st), a->in->auth_path, &af, NULL, a->d) < 0 ||
	    deploy_cloud_open(a->st, a->in, vm.cloud, vm.cloud_cred, af, &s, a->d) < 0)
		goto out;
	opened = true;
	if (!s.drv->vm_alter) {
		diag_error(a->d, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' cannot resize its VMs", vm.cloud);
		goto out;
	}
	deploy_cloud_vm(&vm, &spec, &cv);
	have_cv = true;
	double v;
	bool resized = false;
	if (radl_get_number_min(&sys->body, "cpu.count", &v) == 0 || radl_get_number(&sys->body, "cpu.count", &v) == 0) {
		json_object_set_new(spec, "cpus", json_integer((json_int_t)ceil(v)));
		resized = true;
	}
	if (radl_get_number_min(&sys->body, "memory.size", &v) == 0 || radl_get_number(&sys->body, "memory.size", &v) == 0) {
		json_object_set_new(spec, "memory", json_integer((json_int_t)v));
		resized = true;
	}
	if (radl_get_number_min(&sys->body, "gpu.count", &v) == 0 || radl_get_number(&sys->body, "gpu.count", &v) == 0)
		json_object_set_new(spec, "gpus", json_integer((json_int_t)ceil(v)));
	const char *it = radl_get_string(&sys->body, "instance_type");
	if (it)
		json_object_set_new(spec, "instance_type", json_string(it));
	else if (resized)
		/* a new size without a named type: let the cloud choose again */
		json_object_del(spec, "instance_type");
	cv.cpus = (int)json_integer_value(json_object_get(spec, "cpus"));
	cv.memory_bytes = (long long)json_integer_value(json_object_get(spec, "memory"));
	cv.gpus = (int)json_integer_value(json_object_get(spec, "gpus"));
	cv.instance_type = json_string_value(json_object_get(spec, "instance_type"));
	if (s.drv->vm_alter(&s, &cv, a->d) < 0)
		goto out;
	if (cv.instance_type)
		json_object_set_new(spec, "instance_type", json_string(cv.instance_type));
	deploy_vm_take(&vm, &cv);
	free(vm.spec);
	vm.spec = json_dumps(spec, JSON_COMPACT);
	if (state_vm_update(a->st, &vm, a->d) < 0 || state_log_add(a->st, a->in->id, num, "VM altered", a->d) < 0)
		goto out;
	/* a change that took effect with an error (e.g. an EC2 instance resized
	 * but not started again) is stored, and reported as the error */
	if (diag_has_errors(a->d))
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "vm", json_integer(num));
		json_object_set_new(j, "spec", json_incref(spec));
		cli_json_print(j);
	} else
		printf("VM successfully modified.\n");
out:
	state_unlock_infra(lock);
	if (have_cv)
		deploy_cloud_vm_release(&cv);
	if (opened)
		deploy_cloud_close(&s);
	auth_file_free(af);
	json_decref(spec);
	json_decref(vars);
	free(text);
	radl_doc_free(doc);
	state_vm_release(&vm);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_alter_entry = {
	.name = "alter", .synopsis = "ID VM FILE", .summary = "change the features of a VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM, .run = run,
};
