/* vms.c: a stored VM row as the clouds and the planner take it, and back
 * (see deploy.h). The row keeps the VM's spec as JSON; a driver gets a
 * struct cloud_vm built from it and reports into the same struct, which
 * deploy_vm_take copies back into the row. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

void deploy_cloud_vm(const struct state_vm *vm, json_t **spec, struct cloud_vm *cv)
{
	memset(cv, 0, sizeof(*cv));
	*spec = vm->spec ? json_loads(vm->spec, 0, NULL) : NULL;
	if (!*spec)
		*spec = json_object();
	json_t *sp = *spec;
	cv->infra_id = vm->infra_id;
	cv->num = vm->num;
	cv->system = vm->system;
	cv->hostname = jstr(sp, "hostname");
	cv->domain = jstr(sp, "domain");
	cv->image = jstr(sp, "image");
	cv->instance_type = jstr(sp, "instance_type");
	cv->cpus = (int)json_integer_value(json_object_get(sp, "cpus"));
	cv->memory_bytes = (long long)json_integer_value(json_object_get(sp, "memory"));
	cv->gpus = (int)json_integer_value(json_object_get(sp, "gpus"));
	cv->user = vm->user ? vm->user : jstr(sp, "user");
	json_t *nics = json_object_get(sp, "nics"), *disks = json_object_get(sp, "disks");
	cv->nnics = json_array_size(nics);
	cv->nics = xcalloc(cv->nnics + 1, sizeof(*cv->nics));
	for (size_t i = 0; i < cv->nnics; i++) {
		json_t *n = json_array_get(nics, i);
		cv->nics[i].index = (int)json_integer_value(json_object_get(n, "index"));
		cv->nics[i].net = jstr(n, "net");
		cv->nics[i].hostname = jstr(n, "hostname");
		cv->nics[i].domain = jstr(n, "domain");
	}
	cv->ndisks = json_array_size(disks);
	cv->disks = xcalloc(cv->ndisks + 1, sizeof(*cv->disks));
	for (size_t i = 0; i < cv->ndisks; i++) {
		json_t *k = json_array_get(disks, i);
		cv->disks[i].index = (int)json_integer_value(json_object_get(k, "index"));
		cv->disks[i].size_bytes = (long long)json_integer_value(json_object_get(k, "size"));
		cv->disks[i].device = jstr(k, "device");
		cv->disks[i].mount_path = jstr(k, "mount_path");
	}
	cv->state = vm->state;
	cv->cloud_id = vm->cloud_id ? xstrdup(vm->cloud_id) : NULL;
	cv->public_ip = vm->public_ip ? xstrdup(vm->public_ip) : NULL;
	cv->private_ip = vm->private_ip ? xstrdup(vm->private_ip) : NULL;
	cv->ssh_port = vm->ssh_port;
	cv->data = vm->data ? xstrdup(vm->data) : NULL;
	json_t *ips = vm->nic_ips ? json_loads(vm->nic_ips, 0, NULL) : NULL;
	for (size_t i = 0; i < cv->nnics && ips; i++) {
		const char *ip = json_string_value(json_array_get(ips, (size_t)cv->nics[i].index));
		if (ip && *ip)
			cv->nics[i].ip = xstrdup(ip);
	}
	json_decref(ips);
}

void deploy_cloud_vm_release(struct cloud_vm *cv)
{
	cloud_vm_release(cv);
	free(cv->nics);
	free(cv->disks);
	cv->nics = NULL;
	cv->disks = NULL;
}

static void replace(char **dst, const char *src)
{
	if (!src)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

void deploy_vm_take(struct state_vm *vm, const struct cloud_vm *cv)
{
	vm->state = cv->state;
	replace(&vm->cloud_id, cv->cloud_id);
	replace(&vm->public_ip, cv->public_ip);
	replace(&vm->private_ip, cv->private_ip);
	replace(&vm->data, cv->data);
	replace(&vm->note, cv->note);
	vm->ssh_port = cv->ssh_port;
	json_t *ips = json_array();
	bool any = false;
	for (size_t i = 0; i < cv->nnics; i++) {
		size_t idx = (size_t)cv->nics[i].index;
		while (json_array_size(ips) <= idx)
			json_array_append_new(ips, json_null());
		if (cv->nics[i].ip) {
			json_array_set_new(ips, idx, json_string(cv->nics[i].ip));
			any = true;
		}
	}
	if (any) {
		free(vm->nic_ips);
		vm->nic_ips = json_dumps(ips, JSON_COMPACT);
	}
	json_decref(ips);
}


json_t *deploy_vm_specs(const struct state_vm *vms, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *s = vms[i].spec ? json_loads(vms[i].spec, 0, NULL) : NULL;
		if (!s)
			s = json_pack("{s:i, s:s}", "num", vms[i].num, "system", vms[i].system);
		if (vms[i].public_ip)
			json_object_set_new(s, "public_ip", json_string(vms[i].public_ip));
		if (vms[i].private_ip)
			json_object_set_new(s, "private_ip", json_string(vms[i].private_ip));
		json_t *ips = vms[i].nic_ips ? json_loads(vms[i].nic_ips, 0, NULL) : NULL;
		if (ips)
			json_object_set_new(s, "nic_ips", ips);
		json_array_append_new(arr, s);
	}
	return arr;
}
