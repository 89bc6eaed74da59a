/* vmstate.c: names of VM states (IM's wording) and how an infrastructure's
 * state follows from its VMs'. */
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

/* Rank of each state in the precedence of vm_state_aggregate (higher wins). */
static const int rank[] = {
	[VM_CONFIGURED] = 0, [VM_STOPPED] = 1, [VM_UNCONFIGURED] = 2,
	[VM_RUNNING] = 3, [VM_PENDING] = 4, [VM_UNKNOWN] = 5, [VM_OFF] = 6,
	[VM_FAILED] = 7, [VM_DELETING] = 8,
};

enum vm_state vm_state_aggregate(const enum vm_state *states, int n, enum vm_state empty)
{
	if (n <= 0)
		return empty;
	enum vm_state best = states[0];
	for (int i = 1; i < n; i++)
		if ((unsigned)states[i] < sizeof(rank) / sizeof(rank[0]) && rank[states[i]] > rank[best])
			best = states[i];
	return best;
}
