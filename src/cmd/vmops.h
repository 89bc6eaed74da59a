/* vmops.h: start, stop and reboot of VMs, shared by the commands start,
 * stop (every VM of an infrastructure) and startvm, stopvm, rebootvm (one
 * VM): they differ only in the operation (enum vmop, deploy/deploy.h) and
 * the scope. */
#ifndef IMC_CMD_VMOPS_H
#define IMC_CMD_VMOPS_H

#include "cmd/cmd.h"
#include "deploy/deploy.h"

/* Runs the command (argv: NAME ID, or NAME ID VM when one_vm). */
int vmop_command(struct imc_ctx *ctx, int argc, char **argv, enum vmop op, bool one_vm);

#endif
