/* destroy.c: destroying an infrastructure, what 'imc destroy' and `imc
 * serve`'s DELETE /infrastructures/ID both do (see deploy.h,
 * deploy_destroy): its running deployment worker cancelled first (by the
 * PID the store recorded, verified by its start time), every VM and
 * network deleted on its clouds, then anything the backends find tagged
 * with it (orphans of a crash), then the store rows (a tombstone stays,
 * so that destroying twice succeeds and does nothing) and
 * $IMC_HOME/infra/ID. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <time.h>

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

int deploy_destroy(struct state_store *st, const char *id, const char *auth_given, bool force, bool *already,
		   struct diag *d)
{
	struct auth_file *af = NULL;
	struct state_infra in = { 0 };
	int lock = -1, rc = -1;
	char *summary = NULL;
	*already = false;
	if (lock_cancelling(st, id, &lock, d) < 0)
		goto out;
	if (state_infra_get(st, id, &in, d) != 0)
		goto out;
	if (in.deleted) {
		*already = true;
		deploy_remove_dir(state_home(st), id); /* the lock file taken just now */
		rc = 0;
		goto out;
	}
	if (deploy_auth(auth_given, state_home(st), in.auth_path, &af, NULL, d) < 0 && !force)
		goto out;
	enum infra_phase before = in.phase;
	if (state_infra_set_phase(st, id, PHASE_DESTROYING, d) < 0 ||
	    state_log_add(st, id, -1, "destroying the infrastructure", d) < 0)
		goto out;
	/* what it had, kept in the tombstone for statistics (GET /stats) */
	json_t *had = deploy_infra_stats(st, &in, af, d);
	if (!had)
		goto out;
	json_object_set_new(had, "last_date", json_real((double)time(NULL)));
	json_object_del(had, "deleted");
	summary = json_dumps(had, JSON_COMPACT);
	json_decref(had);
	if (deploy_teardown(st, &in, af, force, d) < 0) {
		state_infra_set_phase(st, id, before == PHASE_DONE ? PHASE_DONE : PHASE_INTERRUPTED, d);
		goto out;
	}
	if (state_infra_tombstone(st, id, summary, d) < 0)
		goto out;
	deploy_remove_dir(state_home(st), id);
	rc = 0;
out:
	state_unlock_infra(lock);
	state_infra_release(&in);
	auth_file_free(af);
	free(summary);
	return rc;
}
