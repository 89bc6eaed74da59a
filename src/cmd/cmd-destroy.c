/* cmd-destroy.c: 'imc destroy [--force] ID' deletes every VM and network
 * of the infrastructure on its clouds, then anything the backends find
 * tagged with it (orphans of a crash), then the store rows and
 * $IMC_HOME/infra/ID. A running deployment worker is cancelled first (by
 * the PID the store recorded, verified by its start time). Idempotent:
 * destroying a destroyed infrastructure succeeds and does nothing. It asks
 * no question. --force forgets what a cloud that cannot be reached still
 * holds, and says what that may be. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

/* Takes the lock of id, cancelling its worker if one runs. */
static int lock_cancelling(struct state_store *st, const char *id, int *fd, struct diag *d)
{
	int waited = 0;
	bool termed = false;
	pid_t killed = 0;
	for (;;) {
		int rc = state_lock_infra(st, id, false, fd, d);
		if (rc <= 0)
			return rc;
		struct state_infra in;
		if (state_infra_get(st, id, &in, d) < 0)
			return -1;
		if (state_worker_alive(in.worker_pid, in.worker_start)) {
			if (!termed || killed != in.worker_pid) {
				log_info("destroy", "cancelling deployment worker %d", (int)in.worker_pid);
				kill(in.worker_pid, SIGTERM);
				termed = true;
				killed = in.worker_pid;
				waited = 0;
			} else if (waited == 100) {
				/* 5 s after SIGTERM */
				kill(in.worker_pid, SIGKILL);
			}
		}
		state_infra_release(&in);
		/* waiting for another process to let go of the lock */
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		waited++;
	}
}

enum { OPT_FORCE, OPT_YES };

static const struct cmd_option options[] = {
	[OPT_FORCE] = { "force", 'f', CMD_OPT_FLAG, NULL,
			"forget what a cloud that cannot be reached still holds\n"
			"(reported as warnings)" },
	/* IM's client -y: accepted, never asked anyway */
	[OPT_YES] = { "yes", 'y', CMD_OPT_FLAG, NULL,
		      "accepted for IM's client; imc asks no question" },
	{ 0 },
};

static int run(struct cmd_args *a)
{
	bool force = a->opt[OPT_FORCE].set;
	struct auth_file *af = NULL;
	char *id = NULL;
	int lock = -1;
	bool already = false;
	int r = state_infra_resolve(a->st, a->operands[0], &id, a->d);
	if (r < 0)
		goto out;
	if (r > 0) {
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' does not exist", a->operands[0]);
		goto out;
	}
	if (lock_cancelling(a->st, id, &lock, a->d) < 0)
		goto out;
	if (state_infra_get(a->st, id, a->in, a->d) != 0)
		goto out;
	if (a->in->deleted) {
		already = true;
		deploy_remove_dir(state_home(a->st), id); /* the lock file taken just now */
		goto done;
	}
	if (deploy_auth(a->ctx->auth_file, state_home(a->st), a->in->auth_path, &af, NULL, a->d) < 0 && !force)
		goto out;
	enum infra_phase before = a->in->phase;
	if (state_infra_set_phase(a->st, id, PHASE_DESTROYING, a->d) < 0 ||
	    state_log_add(a->st, id, -1, "destroying the infrastructure", a->d) < 0)
		goto out;
	if (deploy_teardown(a->st, a->in, af, force, a->d) < 0) {
		state_infra_set_phase(a->st, id, before == PHASE_DONE ? PHASE_DONE : PHASE_INTERRUPTED, a->d);
		goto out;
	}
	if (state_infra_tombstone(a->st, id, a->d) < 0)
		goto out;
	deploy_remove_dir(state_home(a->st), id);
done:
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(id));
		json_object_set_new(j, "destroyed", json_true());
		json_object_set_new(j, "already_destroyed", json_boolean(already));
		cli_json_print(j);
	} else if (already)
		printf("Infrastructure %s was already destroyed\n", id);
	else
		printf("Infrastructure successfully destroyed\n");
out:
	state_unlock_infra(lock);
	auth_file_free(af);
	free(id);
	return IMC_EXIT_OK; /* a->d, also the warnings of --force, is reported by the caller */
}

const struct imc_cmd cmd_destroy_entry = {
	.name = "destroy", .synopsis = "[-f|--force] [-y|--yes] ID",
	.summary = "delete the infrastructure and everything it created",
	.options = options, .flags = CMD_NEEDS_STORE, .run = run,
};
