/* run.c: the run state the executor and the modules share: a run and its
 * hosts (new, free), a host's facts (set_fact, and which facts hold
 * registered results or templated values) under the one lock that guards
 * every host's facts, and the monotonic clock deadlines are measured on.
 * It calls nothing else of the executor, so that modules may set facts
 * without reaching back into the play loop. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "provision/conn/conn.h"
#include "provision/run.h"
#include "util/xalloc.h"
#include "util/banned.h"

pthread_mutex_t task_facts_lock = PTHREAD_MUTEX_INITIALIZER;

double task_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct task_run *task_run_new(void)
{
	struct task_run *run = xcalloc(1, sizeof(*run));
	pthread_mutex_init(&run->lock, NULL);
	run->groups = json_object();
	run->global_vars = json_object();
	run->extra_vars = json_object();
	run->forks = 16;
	return run;
}

struct task_host *task_host_new(const char *name, struct task_conn *conn, json_t *vars)
{
	struct task_host *h = xcalloc(1, sizeof(*h));
	h->name = xstrdup(name);
	h->conn = conn;
	h->vars = vars ? json_incref(vars) : json_object();
	h->included = json_object();
	h->facts = json_object();
	h->cached = json_object();
	h->registered = json_object();
	h->native = json_object();
	h->notified = json_object();
	return h;
}

void task_host_free(struct task_host *h)
{
	if (!h)
		return;
	conn_close(h->conn);
	free(h->name);
	json_decref(h->vars);
	json_decref(h->included);
	json_decref(h->facts);
	json_decref(h->cached);
	json_decref(h->registered);
	json_decref(h->native);
	json_decref(h->notified);
	json_decref(h->roles_ran);
	json_decref(h->fallbacks);
	json_decref(h->fail_task);
	json_decref(h->fail_result);
	free(h->error);
	strbuf_release(&h->log);
	free(h);
}

void task_run_refuse(struct task_run *run, const char *task, const char *msg)
{
	pthread_mutex_lock(&run->lock);
	if (!run->refused)
		run->refused = xasprintf("task '%s': %s", task, msg);
	run->stopped = true;
	pthread_mutex_unlock(&run->lock);
}

void task_run_abort(struct task_run *run, const char *msg)
{
	pthread_mutex_lock(&run->lock);
	if (!run->aborted)
		run->aborted = xstrdup(msg);
	run->stopped = true;
	pthread_mutex_unlock(&run->lock);
}

void task_run_abort_diag(struct task_run *run, struct diag *d)
{
	pthread_mutex_lock(&run->lock);
	if (!run->aborted) {
		run->aborted = xstrdup(diag_first_message(d));
		run->aborted_at = xmalloc(sizeof(*run->aborted_at));
		diag_init(run->aborted_at);
		diag_move(run->aborted_at, d);
	}
	run->stopped = true;
	run->raised = true;
	pthread_mutex_unlock(&run->lock);
}

void task_run_free(struct task_run *run)
{
	if (!run)
		return;
	if (!run->borrowed_hosts)
		for (size_t i = 0; i < run->nhosts; i++)
			task_host_free(run->hosts[i]);
	free(run->hosts);
	for (size_t i = 0; i < run->nadded; i++)
		task_host_free(run->added[i]);
	free(run->added);
	free(run->refused);
	if (run->aborted_at) {
		diag_release(run->aborted_at);
		free(run->aborted_at);
	}
	free(run->aborted);
	json_decref(run->groups);
	json_decref(run->group_parents);
	json_decref(run->global_vars);
	json_decref(run->inv_vars);
	json_decref(run->extra_vars);
	json_decref(run->only_tags);
	json_decref(run->skip_tags);
	json_decref(run->play_hosts);
	pthread_mutex_destroy(&run->lock);
	free(run);
}

void exec_set_fact(struct task_run *run, struct task_host *h, const char *name, json_t *v)
{
	(void)run;
	pthread_mutex_lock(&task_facts_lock);
	json_object_set(h->facts, name, v);
	json_object_del(h->registered, name); /* a set_fact value is templated data */
	pthread_mutex_unlock(&task_facts_lock);
}

void exec_cache_fact(struct task_host *h, const char *name, json_t *v)
{
	pthread_mutex_lock(&task_facts_lock);
	json_object_set(h->cached, name, v);
	pthread_mutex_unlock(&task_facts_lock);
}

void exec_module_fact(struct task_run *run, struct task_host *h, const char *name, json_t *v)
{
	exec_cache_fact(h, name, v);
	if (run && run->facts_not_vars)
		return;
	exec_set_fact(run, h, name, v);
	exec_mark_registered(h, name);
}

bool exec_clean_facts(const char *module)
{
	return !strcmp(module, "set_fact") || !strcmp(module, "include_vars");
}

json_t *exec_ansible_facts(struct task_host *h)
{
	json_t *o = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(h->cached, k, v) {
		bool strip = !strncmp(k, "ansible_", 8) && strcmp(k, "ansible_local");
		json_object_set(o, strip ? k + 8 : k, v);
	}
	return o;
}

void exec_mark_native(struct task_host *h, const char *name, bool templated)
{
	pthread_mutex_lock(&task_facts_lock);
	if (templated)
		json_object_set_new(h->native, name, json_true());
	else
		json_object_del(h->native, name);
	pthread_mutex_unlock(&task_facts_lock);
}

void exec_mark_registered(struct task_host *h, const char *name)
{
	pthread_mutex_lock(&task_facts_lock);
	json_object_set_new(h->registered, name, json_true());
	pthread_mutex_unlock(&task_facts_lock);
}
