/* exec-free.c: Ansible's free strategy (plugins/strategy/free.py): in a
 * serial batch, each host goes through the play's tasks without waiting
 * for the others, up to forks hosts at a time. exec-play.c runs a host's
 * whole play (exec_free_batch hands it one host at a time) with the same
 * code as the linear strategy, which on one host is what free does: the
 * play iterator, blocks, includes and handlers are per host in both. What
 * free does differently, exec-play.c asks here or tests run->free_play
 * for:
 *  - run_once is not supported: a warning, and every host runs the task;
 *    its registered result and facts still go to every host of the batch,
 *    the last to finish winning, and its failure fails them all for the
 *    rest of the play (Ansible's _process_pending_results);
 *  - a module that bypasses the host loop (add_host) is an error that
 *    ends the run;
 *  - any_errors_fatal and max_fail_percentage do nothing but warn;
 *  - every meta task runs per host, with its own when (end_play and
 *    end_batch end every host of the batch, after its current task);
 *  - identical includes are not merged across hosts (each host loads its
 *    own), which running each host alone gives;
 *  - a task's banner is printed with its first result, only when the
 *    banner printed last is another task's (the default callback's
 *    lazy banner under free): a task with no result line (an acted meta)
 *    shows none.
 * When several hosts run at once, what one host does to the others
 * (end_play, a failed run_once task, add_host) meets them wherever they
 * are, as in Ansible, whose outcome depends on timing too.
 *
 * host_pinned is free with each host kept on one worker until its play
 * ends, and no new host started while forks are busy. imc runs each host
 * on one thread until its play ends already, and starts a host only when
 * a thread is free: the two are the same run here, so host_pinned is
 * run as free. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "provision/exec.h"
#include "provision/module.h"
#include "provision/output.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A batch's hosts, taken one at a time by the threads that run them. */
struct free_job {
	struct task_run *run;
	struct task_host **hosts;
	size_t n, next;
	void (*body)(struct task_run *run, struct task_host *h, void *arg);
	void *arg;
	pthread_mutex_t lock;
};

static void *free_worker(void *a)
{
	struct free_job *j = a;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			break;
		j->body(j->run, j->hosts[i], j->arg);
		/* a banner this host's last task did not print must not be
		 * printed by the next host's or play's first line */
		if (j->run->out)
			out_task_lazy_drop(j->run->out);
	}
	return NULL;
}

void exec_free_batch(struct task_run *run, struct task_host **hosts, size_t n,
		     void (*body)(struct task_run *run, struct task_host *h, void *arg), void *arg)
{
	struct free_job j = { .run = run, .hosts = hosts, .n = n, .body = body, .arg = arg };
	pthread_mutex_init(&j.lock, NULL);
	size_t forks = run->forks > 0 ? (size_t)run->forks : 1;
	size_t nth = (forks < n ? forks : n);
	pthread_t *th = xcalloc(nth + 1, sizeof(*th));
	size_t started = 0;
	if (run->out)
		run->out->per_thread = true;
	/* the caller's thread is one of the forks */
	while (started + 1 < nth && pthread_create(&th[started], NULL, free_worker, &j) == 0)
		started++;
	free_worker(&j);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (run->out)
		run->out->per_thread = false;
	free(th);
	pthread_mutex_destroy(&j.lock);
}

int exec_free_admit(struct task_run *run, struct ptask *t, bool once, bool fatal)
{
	const struct task_module *mod = t->module ? task_module_find(t->module) : NULL;
	if (mod && mod->bypass_host_loop) {
		char *m = xasprintf("The '%s' module bypasses the host loop, which is currently not supported in "
				    "the free strategy and would instead execute for every host in the inventory list.",
				    t->module);
		char *full = ansible_task_error(t, m);
		task_run_abort(run, full);
		run->raised = true;
		free(full);
		free(m);
		return -1;
	}
	/* the strategy warns from Ansible's main process: once, whichever
	 * host's thread (and task run, for a task of an include) gets here */
	unsigned long scope = out_warning_scope_main();
	if (once)
		exec_warning(run, "Using run_once with the free strategy is not currently supported. "
				 "This task will still be executed for every host in the inventory list.");
	if (fatal)
		exec_warning(run, "Using any_errors_fatal with the free strategy is not supported, "
				 "as tasks are executed independently on each host");
	out_warning_scope_leave(scope);
	return 0;
}
