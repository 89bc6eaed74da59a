/* cloud.c: the registry of cloud backends (curl's available_backends[]). */
#include "config.h"

#include <stdlib.h>
#include <strings.h>

#include "cloud/cloud.h"
#include "util/banned.h"

const struct cloud_driver *const cloud_drivers[] = {
	&cloud_local,
	&cloud_dummy,
	&cloud_ec2,
	NULL,
};

const struct cloud_driver *cloud_driver_find(const char *type)
{
	for (size_t i = 0; type && cloud_drivers[i]; i++)
		if (strcasecmp(cloud_drivers[i]->name, type) == 0)
			return cloud_drivers[i];
	return NULL;
}

void cloud_vm_release(struct cloud_vm *vm)
{
	if (!vm)
		return;
	for (size_t i = 0; i < vm->nnics; i++) {
		free(vm->nics[i].ip);
		vm->nics[i].ip = NULL;
	}
	free(vm->cloud_id);
	free(vm->public_ip);
	free(vm->private_ip);
	free(vm->note);
	free(vm->data);
	vm->cloud_id = vm->public_ip = vm->private_ip = vm->note = vm->data = NULL;
}

void cloud_net_release(struct cloud_net *net)
{
	if (!net)
		return;
	free(net->cloud_id);
	free(net->cidr_assigned);
	net->cloud_id = net->cidr_assigned = NULL;
}
