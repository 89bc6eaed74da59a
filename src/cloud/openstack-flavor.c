/* openstack-flavor.c: the flavor of a server, chosen as IM chooses it:
 * an instance_type is a flavor name or an fnmatch pattern over the names;
 * without one, the enabled flavors that have at least the RADL's CPUs,
 * memory and root disk (disk.0.size, else 0) are sorted by (vcpus, ram,
 * disk) and the first wins. Nova has no price to sort by first. Flavors
 * come from GET /flavors/detail (Nova's "flavors" array). */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/openstack.h"
#include "util/xalloc.h"
#include "util/banned.h"

void os_flavor_release(struct os_flavor *f)
{
	free(f->id);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

static bool smaller(json_t *a, json_t *b)
{
	static const char *const keys[] = { "vcpus", "ram", "disk" };
	for (size_t i = 0; i < 3; i++) {
		json_int_t x = json_integer_value(json_object_get(a, keys[i]));
		json_int_t y = json_integer_value(json_object_get(b, keys[i]));
		if (x != y)
			return x < y;
	}
	return false;
}

int os_flavor_pick(json_t *flavors, const char *instance_type, int cpus, long long memory_bytes,
		   long long disk_bytes, struct os_flavor *out, struct diag *d)
{
	json_t *list = json_object_get(flavors, "flavors"), *f, *best = NULL;
	bool pattern = instance_type && strpbrk(instance_type, "*?[");
	long long ram_mib = (memory_bytes + (1LL << 20) - 1) >> 20;
	long long disk_gib = (disk_bytes + (1LL << 30) - 1) >> 30;
	size_t i;

	memset(out, 0, sizeof(*out));
	json_array_foreach(list, i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		const char *id = json_string_value(json_object_get(f, "id"));
		if (!name || !id || json_is_true(json_object_get(f, "OS-FLV-DISABLED:disabled")))
			continue;
		if (instance_type && *instance_type && !pattern) {
			if (strcmp(name, instance_type) == 0) {
				best = f;
				break;
			}
			continue;
		}
		if (pattern && fnmatch(instance_type, name, 0) != 0)
			continue;
		if (json_integer_value(json_object_get(f, "vcpus")) < cpus ||
		    json_integer_value(json_object_get(f, "ram")) < ram_mib ||
		    json_integer_value(json_object_get(f, "disk")) < disk_gib)
			continue;
		if (!best || smaller(f, best))
			best = f;
	}
	if (!best) {
		if (instance_type && *instance_type && !pattern)
			diag_error(d, IMC_EXIT_DATAERR, NULL, "openstack: the cloud has no flavor named '%s'",
				   instance_type);
		else
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "openstack: no flavor%s%s%s has %d CPUs, %lld MiB of memory and a %lld GiB disk; set instance_type",
				   pattern ? " matching '" : "", pattern ? instance_type : "",
				   pattern ? "'" : "", cpus, ram_mib, disk_gib);
		return -1;
	}
	out->id = xstrdup(json_string_value(json_object_get(best, "id")));
	out->name = xstrdup(json_string_value(json_object_get(best, "name")));
	out->vcpus = (int)json_integer_value(json_object_get(best, "vcpus"));
	out->ram_mib = json_integer_value(json_object_get(best, "ram"));
	out->disk_gib = json_integer_value(json_object_get(best, "disk"));
	return 0;
}
