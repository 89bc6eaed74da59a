/* vmstate.h: the states of a VM and of an infrastructure, with IM's names
 * (pending, running, configured, unconfigured, stopped, off, failed,
 * unknown, deleting). Shared by the state store, the backends and the
 * provisioner. Implemented in src/state/vmstate.c. */
#ifndef IMC_VMSTATE_H
#define IMC_VMSTATE_H

enum vm_state {
	VM_PENDING,      /* being created; not reachable yet */
	VM_RUNNING,      /* exists and reachable; not (yet) contextualized */
	VM_CONFIGURED,   /* every step it takes part in succeeded */
	VM_UNCONFIGURED, /* a step failed on it */
	VM_STOPPED,      /* stopped by the user; can be started */
	VM_OFF,          /* gone from the cloud (terminated behind our back) */
	VM_FAILED,       /* the cloud could not create it */
	VM_UNKNOWN,      /* the cloud cannot tell */
	VM_DELETING,     /* being destroyed */
};

/* IM's lowercase name ("pending", ...). Never NULL. */
const char *vm_state_name(enum vm_state s);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int vm_state_parse(const char *name, enum vm_state *out);

/* The state of an infrastructure from the states of its n VMs. Unlike IM
 * (whose answer depends on VM order), the result is the VM state that ranks
 * highest in this precedence, whatever the order:
 *   deleting > failed > off > unknown > pending > running > unconfigured
 *   > stopped > configured
 * i.e. the infrastructure is configured only when every VM is, and the
 * worst news wins. With no VMs the result is 'empty'. */
enum vm_state vm_state_aggregate(const enum vm_state *states, int n, enum vm_state empty);

#endif
