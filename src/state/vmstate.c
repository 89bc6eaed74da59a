/* vmstate.c: names of VM states (IM's wording). */
#include "config.h"

#include <string.h>

#include "state/vmstate.h"
#include "util/banned.h"

static const char *const names[] = {
	[VM_PENDING] = "pending", [VM_RUNNING] = "running",
	[VM_CONFIGURED] = "configured", [VM_UNCONFIGURED] = "unconfigured",
	[VM_STOPPED] = "stopped", [VM_OFF] = "off", [VM_FAILED] = "failed",
	[VM_UNKNOWN] = "unknown", [VM_DELETING] = "deleting",
};

const char *vm_state_name(enum vm_state s)
{
	if ((unsigned)s < sizeof(names) / sizeof(names[0]) && names[s])
		return names[s];
	return "unknown";
}

int vm_state_parse(const char *name, enum vm_state *out)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && strcmp(names[i], name) == 0) {
			*out = (enum vm_state)i;
			return 0;
		}
	return -1;
}
