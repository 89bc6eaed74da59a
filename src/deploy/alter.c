/* alter.c: changing the features of a VM, what 'imc alter' and `imc
 * serve`'s PUT /infrastructures/ID/vms/N both do (see deploy.h,
 * deploy_alter, IM's AlterVM): the RADL's system gives the cpu.count,
 * memory.size, gpu.count and instance_type that replace the VM's. The
 * VM's cloud makes the change real (its vm_alter operation: cgroup limits
 * on the local cloud, a new instance type on EC2); only once it is in
 * effect does the store take the new values. A cloud without vm_alter
 * refuses, never pretending. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "deploy/deploy.h"
#include "util/banned.h"

int deploy_alter(struct state_store *st, const struct state_infra *in, int num, const struct deploy_submission *req,
		 json_t **new_spec, struct diag *d)
{
	struct state_vm vm = { 0 };
	struct radl_doc *doc = NULL;
	json_t *vars = json_object(), *spec = NULL;
	char *text = NULL;
	struct auth_file *af = NULL;
	struct cloud_session s;
	struct cloud_vm cv;
	bool opened = false, have_cv = false;
	int lock = -1, rc = -1;
	*new_spec = NULL;
	if (req->text)
		doc = deploy_parse_radl(req->file, req->text, req->len, vars, true, &text, d);
	else
		doc = deploy_load_radl(req->file, vars, req->interactive, &text, d);
	if (!doc || state_lock_infra(st, in->id, true, &lock, d) != 0)
		goto out;
	int g = state_vm_get(st, in->id, num, &vm, d);
	if (g > 0)
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in->id, num);
	if (g != 0)
		goto out;
	const struct radl_aspect *sys = NULL;
	for (size_t i = 0; i < doc->nsystems && !sys; i++)
		if (!doc->systems[i].reference)
			sys = &doc->systems[i];
	if (!sys) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s' has no system with features to apply", req->file);
		goto out;
	}
	if (vm.state != VM_RUNNING && vm.state != VM_CONFIGURED && vm.state != VM_UNCONFIGURED &&
	    vm.state != VM_STOPPED) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "VM %d is %s: it cannot be altered", num,
			   vm_state_name(vm.state));
		goto out;
	}
	if (deploy_auth(req->auth_given, state_home(st), in->auth_path, &af, NULL, d) < 0 ||
	    deploy_cloud_open(st, in, vm.cloud, vm.cloud_cred, af, &s, d) < 0)
		goto out;
	opened = true;
	if (!s.drv->vm_alter) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' cannot resize its VMs", vm.cloud);
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
	if (s.drv->vm_alter(&s, &cv, d) < 0)
		goto out;
	if (cv.instance_type)
		json_object_set_new(spec, "instance_type", json_string(cv.instance_type));
	deploy_vm_take(&vm, &cv);
	free(vm.spec);
	vm.spec = json_dumps(spec, JSON_COMPACT);
	if (state_vm_update(st, &vm, d) < 0 || state_log_add(st, in->id, num, "VM altered", d) < 0)
		goto out;
	/* a change that took effect with an error (e.g. an EC2 instance resized
	 * but not started again) is stored, and reported as the error */
	if (diag_has_errors(d))
		goto out;
	*new_spec = json_incref(spec);
	rc = 0;
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
	return rc;
}
