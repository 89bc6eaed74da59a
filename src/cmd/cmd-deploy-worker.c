/* cmd-deploy-worker.c: 'imc deploy-worker HOME ID TASK VMS READY_FD', not
 * for people (hidden): the deployment worker when deploy_spawn execs it
 * rather than running it in the fork, as imc serve has it do (see
 * deploy/spawn.h, deploy_spawn_exec). */
#include "config.h"

#include "cmd/cmd.h"
#include "deploy/spawn.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	return deploy_worker_exec_main(a->noperands, a->operands);
}

const struct imc_cmd cmd_deploy_worker_entry = {
	.name = DEPLOY_WORKER_COMMAND, .synopsis = "HOME ID TASK VMS READY_FD",
	.summary = "the deployment worker, as imc serve starts it",
	.flags = CMD_HIDDEN, .run = run,
};
