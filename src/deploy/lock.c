/* lock.c: taking an infrastructure for a change (see deploy.h,
 * deploy_lock_live): its lock, then its row read again, since what was
 * read before the lock (its RADL, its next VM number, whether it still
 * exists) may have changed while another process held it. */
#include "config.h"

#include "deploy/deploy.h"
#include "util/banned.h"

int deploy_lock_live(struct state_store *st, const char *id, int *lock, struct state_infra *in, struct diag *d)
{
	*lock = -1;
	if (state_lock_infra(st, id, true, lock, d) != 0)
		return -1;
	int g = state_infra_get(st, id, in, d);
	if (g > 0 || (g == 0 && in->deleted))
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' does not exist%s", id,
			   g == 0 ? " (it was destroyed)" : "");
	if (g == 0 && !in->deleted)
		return 0;
	state_infra_release(in);
	state_unlock_infra(*lock);
	*lock = -1;
	return -1;
}
