/* cloud.c: the registry of cloud backends (curl's available_backends[]),
 * and the questions callers ask about a cloud type (cloud.h), answered from
 * the backends' tables so that no caller tests a backend's name. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/cloud.h"
#include "util/banned.h"

/* Each backend's table, defined at the end of its own file. */
extern const struct cloud_driver cloud_local;
extern const struct cloud_driver cloud_dummy;
extern const struct cloud_driver cloud_ec2;
extern const struct cloud_driver cloud_openstack;
extern const struct cloud_driver cloud_docker;

const struct cloud_driver *const cloud_drivers[] = {
	&cloud_local,
	&cloud_dummy,
	&cloud_ec2,
	&cloud_openstack,
	&cloud_docker,
	NULL,
};

/* IM's connectors that imc does not implement: no operations, never in
 * cloud_drivers[], described only so that an image URL of theirs plans to
 * them (and create then says the cloud is not supported), their default
 * login user is IM's, and the secrets of their auth lines are registered.
 * A backend added for one of them takes precedence over its entry here,
 * which can then go. */
#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })
static const struct cloud_driver im_connectors[] = {
	{ .name = "openstack", .schemes = LIST("ost", "egi", "appdb"), .default_user = "cloudadm" },
	{ .name = "opennebula", .schemes = LIST("one") },
	{ .name = "gce", .schemes = LIST("gce") },
	{ .name = "azure", .schemes = LIST("azr") },
	{ .name = "kubevirt", .schemes = LIST("kvr"), .default_user = "cloudadm" },
	{ .name = "vsphere", .schemes = LIST("vsp") },
	{ .name = "cloudstack", .schemes = LIST("cst"), .default_user = "cloudadm" },
	{ .name = "linode", .schemes = LIST("lin") },
	{ .name = "orange", .schemes = LIST("ora") },
	{ .name = "oscar", .schemes = LIST("oscar") },
	/* LibCloud's lines carry the access key in 'username', as EC2's */
	{ .name = "libcloud", .secret_keys = LIST("username") },
};

const struct cloud_driver *cloud_driver_find(const char *type)
{
	for (size_t i = 0; type && cloud_drivers[i]; i++)
		if (strcasecmp(cloud_drivers[i]->name, type) == 0)
			return cloud_drivers[i];
	return NULL;
}

/* A registered backend, else IM's connector of that type, else NULL. */
static const struct cloud_driver *cloud_known(const char *type)
{
	const struct cloud_driver *drv = cloud_driver_find(type);
	for (size_t i = 0; !drv && type && i < sizeof(im_connectors) / sizeof(im_connectors[0]); i++)
		if (strcasecmp(im_connectors[i].name, type) == 0)
			drv = &im_connectors[i];
	return drv;
}

static bool has_scheme(const struct cloud_driver *drv, const char *scheme, size_t n)
{
	for (size_t k = 0; drv->schemes && drv->schemes[k]; k++)
		if (strlen(drv->schemes[k]) == n && strncasecmp(drv->schemes[k], scheme, n) == 0)
			return true;
	return false;
}

const struct cloud_driver *cloud_embedded(void)
{
	for (size_t i = 0; cloud_drivers[i]; i++)
		if (cloud_drivers[i]->caps & CLOUD_CAP_EMBEDDED)
			return cloud_drivers[i];
	/* cloud_drivers[] is fixed at build time: a registry without an
	 * embedded backend is a bug of the build, not of the input */
	abort();
}

const char *cloud_type_of_scheme(const char *scheme, size_t n)
{
	for (size_t i = 0; cloud_drivers[i]; i++)
		if (has_scheme(cloud_drivers[i], scheme, n))
			return cloud_drivers[i]->name;
	for (size_t i = 0; i < sizeof(im_connectors) / sizeof(im_connectors[0]); i++)
		if (has_scheme(&im_connectors[i], scheme, n))
			return im_connectors[i].name;
	return NULL;
}

bool cloud_needs_credentials(const char *type)
{
	const struct cloud_driver *drv = cloud_driver_find(type);
	return !drv || !(drv->caps & CLOUD_CAP_NO_CREDENTIALS);
}

const char *cloud_default_user(const char *type)
{
	const struct cloud_driver *drv = cloud_known(type);
	return drv && drv->default_user ? drv->default_user : "root";
}

bool cloud_auth_key_is_secret(const char *type, const char *key)
{
	const struct cloud_driver *drv = cloud_known(type);
	for (size_t k = 0; drv && drv->secret_keys && drv->secret_keys[k]; k++)
		if (strcasecmp(drv->secret_keys[k], key) == 0)
			return true;
	return false;
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
