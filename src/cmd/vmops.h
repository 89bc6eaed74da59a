/* vmops.h: start, stop and reboot of VMs, shared by the commands start,
 * stop (every VM of an infrastructure) and startvm, stopvm, rebootvm (one
 * VM): they differ only in the operation (enum vmop, deploy/deploy.h) and
 * the scope. */
#ifndef IMC_CMD_VMOPS_H
#define IMC_CMD_VMOPS_H

#include "cmd/cmd.h"
#include "deploy/deploy.h"

/* Runs the command on a->in, on VM a->vm when the command's entry has
 * CMD_NEEDS_VM, else on every VM. */
int vmop_command(struct cmd_args *a, enum vmop op);

#endif
