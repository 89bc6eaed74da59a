/* exec-play.c: the linear strategy: plays in order; in a play, pre_tasks,
 * roles, tasks and post_tasks with handler flushes between them; each task
 * runs on every remaining host (in parallel, bounded by forks, on a pool
 * of threads kept for the playbook) before the next starts; blocks with rescue/always; include_tasks/include_role
 * expanded at run time; handlers run once, in definition order, for the
 * hosts that notified them; run_once and add_host run on the first host
 * only. Plays select among the caller's hosts and those add_host added.
 * A failed host leaves the rest of the play. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

#include "provision/args.h"
#include "provision/exec.h"
#include "provision/exec-tags.h"
#include "provision/module.h"
#include "provision/output.h"
#include "provision/play.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "template/template.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Run-time state of the current play (handlers, include caches). */
struct play_state {
	struct ptask **handlers;
	/* the list each handler came with (a role's, the play's, an
	 * included role's), numbered in the order they were added */
	size_t *hgroup;
	/* a templated handler name, templated when first searched (then
	 * kept, as Ansible caches it), or NULL */
	char **hname;
	size_t nhandlers, ahandlers, ngroups;
	struct inc_cache {
		struct ptask *inc;
		char *key;
		struct ptask **tasks;
		size_t ntasks;
		struct ptask *wrapper;
	} *inc;
	size_t ninc;
	/* force_handlers: a host that failed still runs the handlers it was
	 * notified of at the end of its section (pre_tasks, roles and tasks,
	 * post_tasks), which Ansible wraps in a block whose always flushes */
	bool force;
	pthread_mutex_t lock;
};

/* ---- handlers ------------------------------------------------------------ */

/* An import_tasks or a block under handlers: the handlers it holds are
 * notified and run one by one, under its keywords (Ansible imports them
 * as handlers, and runs a handler block's block, not its rescue or
 * always). */
static bool handlers_holder(const struct ptask *h)
{
	return h->is_block && !h->module &&
	       (json_object_get(h->raw, "block") || play_action_value(h->raw, "import_tasks"));
}

static void add_handlers_locked(struct play_state *ps, struct ptask **h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (handlers_holder(h[i])) {
			add_handlers_locked(ps, h[i]->block, h[i]->nblock);
			continue;
		}
		if (ps->nhandlers == ps->ahandlers) {
			ps->ahandlers = ps->ahandlers ? ps->ahandlers * 2 : 16;
			ps->handlers = xreallocarray(ps->handlers, ps->ahandlers, sizeof(*ps->handlers));
			ps->hgroup = xreallocarray(ps->hgroup, ps->ahandlers, sizeof(*ps->hgroup));
			ps->hname = xreallocarray(ps->hname, ps->ahandlers, sizeof(*ps->hname));
		}
		ps->hgroup[ps->nhandlers] = ps->ngroups;
		ps->hname[ps->nhandlers] = NULL;
		ps->handlers[ps->nhandlers++] = h[i];
	}
}

static void add_handlers(struct play_state *ps, struct ptask **h, size_t n)
{
	pthread_mutex_lock(&ps->lock);
	add_handlers_locked(ps, h, n);
	ps->ngroups++;
	pthread_mutex_unlock(&ps->lock);
}

static void add_role_handlers(struct play_state *ps, struct ptask *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nblock; i++)
		if (w->block[i]->is_block && w->block[i]->role && w->block[i]->role != w->role &&
		    !w->block[i]->module)
			add_role_handlers(ps, w->block[i]);
	if (w->role && w->role->nhandlers)
		add_handlers(ps, w->role->handlers, w->role->nhandlers);
}

/* Whether t is an import_role: a static wrapper of the role instance it
 * brings (its one block) */
static bool is_import_role(const struct ptask *t)
{
	return t->is_block && !t->module && t->nblock == 1 && t->block[0]->role &&
	       play_action_value(t->raw, "import_role");
}

/* The handlers of the roles the import_role tasks of ts bring, nested
 * ones included, in the order Ansible's parser meets them: it adds them
 * to the play's handlers as it loads each import_role. */
static void add_imported_role_handlers(struct play_state *ps, struct ptask **ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ptask *t = ts[i];
		if (!t->is_block)
			continue;
		if (is_import_role(t))
			add_role_handlers(ps, t->block[0]);
		add_imported_role_handlers(ps, t->block, t->nblock);
		add_imported_role_handlers(ps, t->rescue, t->nrescue);
		add_imported_role_handlers(ps, t->always, t->nalways);
	}
}

/* text templated with host h's variables as task t sees them: a new
 * string, or NULL (d says why, unless the result is no string). */
static char *template_text(struct task_run *run, struct task_host *h, struct ptask *t, const char *text,
			   struct diag *d)
{
	struct exec_ctx x = { .run = run, .host = h, .task = t };
	x.vars = exec_build_vars(run, h, t, NULL);
	json_t *s = json_string(text);
	json_t *r = xt_value(&x, s, d);
	char *out = r && json_is_string(r) ? xstrdup(json_string_value(r)) : NULL;
	json_decref(r);
	json_decref(s);
	json_decref(x.vars);
	return out;
}

/* The name handler i of ps answers to: its own, templated the first
 * time it is searched with the notifying host's variables and kept; NULL
 * when it cannot be templated (Ansible's warning: the handler can then
 * only be notified through listen). */
static const char *handler_name(struct task_run *run, struct play_state *ps, size_t i,
				struct task_host *h)
{
	struct ptask *hd = ps->handlers[i];
	const char *n = json_string_value(json_object_get(hd->raw, "name"));
	if (!n || !tmpl_has_template(n))
		return n;
	if (ps->hname[i])
		return ps->hname[i];
	struct diag d = DIAG_INIT;
	ps->hname[i] = template_text(run, h, hd, n, &d);
	if (!ps->hname[i] && !json_object_get(hd->raw, "listen")) {
		/* the engine's "AnsibleUndefinedVariable: M (in 'T', column
		 * N)" is Ansible's UndefinedError, whose text says M twice */
		static const char pre[] = "AnsibleUndefinedVariable: ";
		const char *e = d.nerrors ? diag_first_message(&d) : "not a string";
		int el = (int)strlen(e);
		if (!strncmp(e, pre, sizeof(pre) - 1)) {
			e += sizeof(pre) - 1;
			const char *in = strstr(e, " (in '");
			el = in ? (int)(in - e) : (int)strlen(e);
		}
		char *m = xasprintf("Handler '%s' is unusable because it has no listen topics and the name could "
				    "not be templated (host-specific variables are not supported in handler names). "
				    "The error: %.*s%s%.*s", n, el, e, e[el] ? ". " : "", e[el] ? el : 0, e);
		unsigned long scope = out_warning_scope_main();
		exec_warning(run, m);
		out_warning_scope_leave(scope);
		free(m);
	}
	diag_release(&d);
	return ps->hname[i];
}

/* Whether handler hd, named hn (templated), answers to name by its name,
 * or by it shown with its role's */
static bool handler_named(const struct ptask *hd, const char *hn, const char *name)
{
	if (!hn)
		return false;
	if (!strcmp(hn, name))
		return true;
	if (!hd->role)
		return false;
	size_t rl = strlen(hd->role->name);
	return !strncmp(name, hd->role->name, rl) && !strncmp(name + rl, " : ", 3) && !strcmp(name + rl + 3, hn);
}

/* Whether handler h listens to name */
static bool handler_listens(struct ptask *h, const char *name)
{
	json_t *l = json_object_get(h->raw, "listen");
	if (json_is_string(l) && !strcmp(json_string_value(l), name))
		return true;
	if (json_is_array(l)) {
		size_t i;
		json_t *e;
		json_array_foreach(l, i, e)
			if (json_is_string(e) && !strcmp(json_string_value(e), name))
				return true;
	}
	return false;
}

static void notify_one(struct task_host *h, struct ptask *hd)
{
	char key[32];
	snprintf(key, sizeof(key), "%p", (void *)hd);
	json_object_set_new(h->notified, key, json_true());
}

/* A notification, as Ansible's strategy answers it: every handler
 * listening to name, and one handler by its name (or its name with its
 * role's): the lists of handlers searched from the last added (an
 * included role's, then imported roles', the play's, the roles'), each
 * from its first handler, so that of two of one name in a list the first
 * runs, and a role's task may notify another instance's handler. */
static void play_notify(struct task_run *run, struct task_host *h, const char *name)
{
	struct play_state *ps = run->ps;
	if (!ps)
		return;
	pthread_mutex_lock(&ps->lock);
	bool found = false;
	size_t by_name = (size_t)-1;
	for (size_t i = 0; i < ps->nhandlers; i++) {
		struct ptask *hd = ps->handlers[i];
		if (handler_listens(hd, name)) {
			notify_one(h, hd);
			found = true;
		}
		if (handler_named(hd, handler_name(run, ps, i, h), name) &&
		    (by_name == (size_t)-1 || ps->hgroup[i] != ps->hgroup[by_name]))
			by_name = i;
	}
	if (by_name != (size_t)-1) {
		notify_one(h, ps->handlers[by_name]);
		found = true;
	}
	pthread_mutex_unlock(&ps->lock);
	if (!found && run->missing_handler_warns) {
		/* Ansible's strategy warns, in its main process: once a run */
		char *m = xasprintf("The requested handler '%s' was not found in either the main handlers list nor "
				    "in the listening handlers list", name);
		unsigned long scope = out_warning_scope_main();
		exec_warning(run, m);
		out_warning_scope_leave(scope);
		free(m);
	} else if (!found) {
		/* Ansible's strategy raises it: the run ends there, the task's
		 * result unprinted, no recap; imc play prints it ("ERROR! ...") */
		char *m = xasprintf("The requested handler '%s' was not found in either the main handlers list nor "
				    "in the listening handlers list", name);
		task_run_abort(run, m);
		run->raised = true;
		free(m);
	}
}

/* ---- parallel execution of one task on many hosts -------------------------- */

/* One task's hosts, taken one at a time by whoever runs it. */
struct par {
	struct task_run *run;
	struct ptask *t;
	struct task_host **hosts;
	size_t n;
	size_t next;
	bool rescuable;
	json_t *inc_params;
	pthread_mutex_t lock;
};

static void par_work(struct par *p)
{
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			break;
		exec_task_host(p->run, p->t, p->hosts[i], p->rescuable, p->inc_params, NULL);
	}
}

/* The run's workers: forks - 1 threads started with the playbook and kept
 * until its end (the caller's thread is the last worker), so that a task
 * costs no thread creation per host or per task. Each task is a round:
 * run_parallel posts it, every worker takes hosts from it until none is
 * left and checks out; the round ends when all have, so that none still
 * holds the task when the next is posted. */
struct host_pool {
	pthread_mutex_t lock;
	pthread_cond_t posted, finished;
	pthread_t *th;
	size_t nth;
	struct par *job;      /* the current round's task */
	unsigned long round;  /* bumped when a task is posted */
	size_t out;           /* workers done with the current round */
	bool quit;
};

static void *pool_worker(void *arg)
{
	struct host_pool *pl = arg;
	unsigned long seen = 0;
	pthread_mutex_lock(&pl->lock);
	for (;;) {
		while (!pl->quit && pl->round == seen)
			pthread_cond_wait(&pl->posted, &pl->lock);
		if (pl->quit)
			break;
		seen = pl->round;
		struct par *job = pl->job;
		pthread_mutex_unlock(&pl->lock);
		par_work(job);
		pthread_mutex_lock(&pl->lock);
		if (++pl->out == pl->nth)
			pthread_cond_signal(&pl->finished);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

/* Starts up to n - 1 workers; NULL when none could start (every task then
 * runs on the caller's thread alone). */
static struct host_pool *pool_start(size_t n)
{
	if (n < 2)
		return NULL;
	struct host_pool *pl = xcalloc(1, sizeof(*pl));
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->posted, NULL);
	pthread_cond_init(&pl->finished, NULL);
	pl->th = xcalloc(n - 1, sizeof(*pl->th));
	while (pl->nth < n - 1 && pthread_create(&pl->th[pl->nth], NULL, pool_worker, pl) == 0)
		pl->nth++;
	if (pl->nth)
		return pl;
	free(pl->th);
	pthread_cond_destroy(&pl->posted);
	pthread_cond_destroy(&pl->finished);
	pthread_mutex_destroy(&pl->lock);
	free(pl);
	return NULL;
}

static void pool_stop(struct host_pool *pl)
{
	if (!pl)
		return;
	pthread_mutex_lock(&pl->lock);
	pl->quit = true;
	pthread_cond_broadcast(&pl->posted);
	pthread_mutex_unlock(&pl->lock);
	for (size_t i = 0; i < pl->nth; i++)
		pthread_join(pl->th[i], NULL);
	free(pl->th);
	pthread_cond_destroy(&pl->posted);
	pthread_cond_destroy(&pl->finished);
	pthread_mutex_destroy(&pl->lock);
	free(pl);
}

static void run_parallel(struct task_run *run, struct ptask *t, struct task_host **hosts, size_t n,
			 bool rescuable, json_t *inc_params)
{
	struct par p = { .run = run, .t = t, .hosts = hosts, .n = n, .rescuable = rescuable,
			 .inc_params = inc_params };
	pthread_mutex_init(&p.lock, NULL);
	struct host_pool *pl = run->pool;
	if (n <= 1 || !pl)
		par_work(&p);
	else {
		pthread_mutex_lock(&pl->lock);
		pl->job = &p;
		pl->out = 0;
		pl->round++;
		pthread_cond_broadcast(&pl->posted);
		pthread_mutex_unlock(&pl->lock);
		par_work(&p);
		pthread_mutex_lock(&pl->lock);
		while (pl->out < pl->nth)
			pthread_cond_wait(&pl->finished, &pl->lock);
		pl->job = NULL;
		pthread_mutex_unlock(&pl->lock);
	}
	pthread_mutex_destroy(&p.lock);
}

/* ---- lists, blocks, includes -------------------------------------------- */

static void run_list(struct task_run *run, struct ptask **list, size_t n, struct task_host **hosts,
		     size_t nh, bool rescuable, json_t *inc_params);

static size_t alive(struct task_host **hosts, size_t nh, struct task_host **out)
{
	size_t k = 0;
	for (size_t i = 0; i < nh; i++)
		if (!hosts[i]->failed)
			out[k++] = hosts[i];
	return k;
}

static bool past_deadline(struct task_run *run)
{
	return run->deadline > 0 && task_now() > run->deadline;
}

/* Counts the hosts (only those of only[0..nonly) when only is not NULL)
 * in or out of a rescue or always section (task_host.spared). */
static void spare(struct task_host **hosts, size_t n, struct task_host **only, size_t nonly,
		  int by)
{
	for (size_t i = 0; i < n; i++) {
		bool in = !only;
		for (size_t j = 0; !in && j < nonly; j++)
			in = only[j] == hosts[i];
		if (in)
			hosts[i]->spared += (unsigned)by;
	}
}

/* A role instance's wrapper: the hosts it already ran on to its end in
 * this play do not run it again (its tasks are skipped silently, as
 * the linear strategy skips a role that has_run), unless its meta
 * allows duplicates; the others mark it run when they finish it. */
static bool role_ran(struct task_host *h, struct ptask *t)
{
	return t->role_start && !t->role->allow_duplicates && h->roles_ran &&
	       json_object_get(h->roles_ran, t->role->key);
}

static void run_block(struct task_run *run, struct ptask *t, struct task_host **hosts, size_t nh,
		      bool rescuable, json_t *inc_params)
{
	struct task_host **in = xcalloc(nh + 1, sizeof(*in));
	size_t nin = 0;
	for (size_t i = 0; i < nh; i++)
		if (!hosts[i]->failed && !role_ran(hosts[i], t))
			in[nin++] = hosts[i];
	if (!nin) {
		free(in);
		return;
	}
	bool has_rescue = t->nrescue > 0;
	run_list(run, t->block, t->nblock, in, nin, rescuable || has_rescue, inc_params);
	if (run->refused || run->aborted) {
		free(in);
		return;
	}
	if (has_rescue) {
		struct task_host **rh = xcalloc(nin + 1, sizeof(*rh));
		size_t nr = 0;
		for (size_t i = 0; i < nin; i++)
			if (in[i]->failed && !in[i]->unreachable) {
				in[i]->failed = false;
				free(in[i]->error);
				in[i]->error = NULL;
				json_t *ft = in[i]->fail_task ? in[i]->fail_task : json_object();
				json_t *fr = in[i]->fail_result ? in[i]->fail_result : json_object();
				exec_set_fact(run, in[i], "ansible_failed_task", ft);
				exec_set_fact(run, in[i], "ansible_failed_result", fr);
				/* a task result is data: a "{{" in its msg (the
				 * failing template's text) is not templated again */
				exec_mark_registered(in[i], "ansible_failed_result");
				if (!in[i]->fail_task)
					json_decref(ft);
				if (!in[i]->fail_result)
					json_decref(fr);
				rh[nr++] = in[i];
			}
		/* rescued was counted when the task failed (exec_task_host);
		 * while the rescue runs, the block's other hosts wait in its
		 * always, when it has one: any_errors_fatal spares both */
		if (nr) {
			spare(in, nin, t->nalways ? NULL : rh, nr, 1);
			run_list(run, t->rescue, t->nrescue, rh, nr, rescuable, inc_params);
			spare(in, nin, t->nalways ? NULL : rh, nr, -1);
		}
		free(rh);
	}
	if (t->nalways) {
		/* always runs for every host that entered the block */
		bool *was = xcalloc(nin, sizeof(*was));
		for (size_t i = 0; i < nin; i++) {
			was[i] = in[i]->failed;
			if (!in[i]->unreachable)
				in[i]->failed = false;
		}
		unsigned cleared = run->cleared;
		spare(in, nin, NULL, 0, 1);
		run_list(run, t->always, t->nalways, in, nin, rescuable, inc_params);
		spare(in, nin, NULL, 0, -1);
		for (size_t i = 0; cleared == run->cleared && i < nin; i++)
			in[i]->failed |= was[i];
		free(was);
	}
	for (size_t i = 0; t->role_start && i < nin; i++)
		if (!in[i]->failed && !in[i]->ended) {
			if (!in[i]->roles_ran)
				in[i]->roles_ran = json_object();
			json_object_set_new(in[i]->roles_ran, t->role->key, json_true());
		}
	free(in);
}

static struct inc_cache *inc_lookup(struct play_state *ps, struct ptask *inc, const char *key)
{
	for (size_t i = 0; i < ps->ninc; i++)
		if (ps->inc[i].inc == inc && !strcmp(ps->inc[i].key, key))
			return &ps->inc[i];
	return NULL;
}

/* Where an include_tasks file name points (role tasks/, the including file's dir, play dir). */
static char *resolve_include(struct task_run *run, struct ptask *t, const char *f)
{
	if (f[0] == '/')
		return xstrdup(f);
	const char *dirs[4] = { t->dir, NULL, run->pb->dir, NULL };
	char *rt = NULL;
	for (struct ptask *p = t; p; p = p->parent)
		if (p->role) {
			rt = xasprintf("%s/tasks", p->role->dir);
			break;
		}
	dirs[1] = rt;
	char *r = NULL;
	for (int i = 0; i < 3 && !r; i++) {
		if (!dirs[i])
			continue;
		char *p = xasprintf("%s/%s", dirs[i], f);
		if (access(p, R_OK) == 0) {
			char *rp = realpath(p, NULL);
			r = rp ? rp : xstrdup(p);
		}
		free(p);
	}
	free(rt);
	return r;
}

struct inc_group {
	char *key;
	struct task_host **hosts;
	size_t n;
	json_t *params;
};

static void print_banner(struct task_run *run, struct ptask *t, struct task_host *first)
{
	const char *disp = t->display;
	char *own = NULL;
	if (strstr(disp, "{{") && first) {
		struct diag d = DIAG_INIT;
		own = template_text(run, first, t, disp, &d);
		diag_release(&d);
	}
	const char *kind = t->is_handler ? "RUNNING HANDLER" : "TASK";
	/* -vv: where the task is written, its file's absolute path */
	char *path = NULL;
	if (run->out && run->out->verbosity >= 2 && t->file && t->line > 0) {
		char *rp = realpath(t->file, NULL);
		path = xasprintf("task path: %s:%d", rp ? rp : t->file, t->line);
		free(rp);
	}
	if (run->free_play) {
		if (run->out)
			out_task_lazy(run->out, kind, own ? own : disp, t, path);
	} else {
		out_task(run->out, kind, own ? own : disp);
		if (path)
			out_line(run->out, -1, "%s", path);
	}
	free(path);
	free(own);
}

/* A task that fails with msg on h before any module runs. refused: a
 * construct imc lacks, met after the run started: printed the same, but
 * the run stops (see task_run.refused), since no rescue or ignore_errors
 * may stand in for what Ansible would have run. */
static void include_fail_as(struct task_run *run, struct task_host *h, struct ptask *t, const char *msg,
			    bool refused)
{
	json_t *r = res_fail("%s", msg);
	char *js = out_json_compact(r);
	out_line(run->out, h->index, "fatal: [%s]: FAILED! => %s", h->name, js);
	free(js);
	out_record(run->out, h, r);
	json_decref(r);
	if (refused) {
		task_run_refuse(run, t->display, msg);
	} else if (args_bool(exec_keyword(run, t, "ignore_errors"), false)) {
		h->st.ok++;
		h->st.ignored++;
		return;
	}
	h->st.failed++;
	h->failed = true;
	if (!h->error)
		h->error = xasprintf("task '%s' failed: %s", t->display, msg);
}

/* The variables a legacy include gives the tasks it brings: its templated
 * arguments but the file (TaskInclude.get_vars); NULL for include_tasks
 * and for an include with none. */
static json_t *legacy_include_vars(const struct ptask *t, json_t *args)
{
	if (!t->action || strcmp(play_short_module(t->action), "include") || !json_is_object(args))
		return NULL;
	json_t *vars = json_deep_copy(args);
	json_object_del(vars, "_raw_params");
	json_object_del(vars, "file");
	if (!json_object_size(vars)) {
		json_decref(vars);
		return NULL;
	}
	return vars;
}

/* An include_tasks file that is not there: Ansible's strategy fails the
 * host with a "reason" naming the path it tried (the role's tasks/, else
 * the including file's directory), ignore_errors or not (its block's
 * rescue still runs). */
static void include_not_found(struct task_run *run, struct task_host *h, struct ptask *t, const char *f)
{
	char *path = NULL;
	if (f[0] == '/')
		path = xstrdup(f);
	for (struct ptask *p = t; p && !path; p = p->parent)
		if (p->role)
			path = xasprintf("%s/tasks/%s", p->role->dir, f);
	if (!path)
		path = xasprintf("%s/%s", t->dir ? t->dir : run->pb->dir, f);
	char *reason = xasprintf("Could not find or access '%s' on the Ansible Controller.", path);
	json_t *r = json_pack("{s:s}", "reason", reason);
	char *js = out_json_compact(r);
	out_line(run->out, h->index, "fatal: [%s]: FAILED! => %s", h->name, js);
	free(js);
	json_object_set_new(r, "failed", json_true());
	out_record(run->out, h, r);
	json_decref(r);
	h->st.failed++;
	h->failed = true;
	if (!h->error)
		h->error = xasprintf("task '%s' failed: %s", t->display, reason);
	free(reason);
	free(path);
}

static void include_fail(struct task_run *run, struct task_host *h, struct ptask *t, const char *msg)
{
	include_fail_as(run, h, t, msg, false);
}

static void include_refuse(struct task_run *run, struct task_host *h, struct ptask *t, const char *msg)
{
	include_fail_as(run, h, t, msg, true);
}

static bool has_loop_kw(json_t *raw)
{
	const char *k;
	json_t *v;
	json_object_foreach(raw, k, v)
		if (!strcmp(k, "loop") || !strncmp(k, "with_", 5))
			return true;
	return false;
}

/* include_tasks with loop/with_*: per host and item, in order (IM's disk
 * mounts: with_dict over ansible_devices). */
/* The include cache's key of an include_role: the role and the files its
 * *_from arguments pick (malloc'd). */
static char *role_key(const char *name, json_t *args)
{
	const char *k[] = { "tasks_from", "handlers_from", "vars_from", "defaults_from" };
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "role:%s", name);
	for (size_t i = 0; i < 4; i++)
		strbuf_addf(&sb, ":%s", args_str(args, k[i]) ? args_str(args, k[i]) : "");
	return strbuf_detach(&sb);
}

static void run_include_loop(struct task_run *run, struct ptask *t, struct task_host **hosts,
			     size_t nh, bool rescuable, json_t *inc_params)
{
	print_banner(run, t, hosts[0]);
	out_begin_task(run->out, t->display);
	for (size_t i = 0; i < nh; i++) {
		struct task_host *h = hosts[i];
		if (h->failed)
			continue;
		struct exec_ctx x = { .run = run, .host = h, .task = t };
		x.vars = exec_build_vars(run, h, t, inc_params);
		struct diag d = DIAG_INIT;
		bool has;
		json_t *items = exec_loop_items(&x, &d, &has);
		json_t *lc = items ? exec_loop_control(&x, &d) : NULL;
		if (!lc) {
			include_fail(run, h, t, diag_first_message(&d));
			json_decref(items);
			goto next;
		}
		h->st.ok++;
		json_t *rec = json_pack("{s:b, s:s}", "changed", 0, "msg", "All items completed");
		out_record(run->out, h, rec);
		json_decref(rec);
		size_t k;
		json_t *item;
		json_array_foreach(items, k, item) {
			if (h->failed)
				break;
			exec_loop_item_vars(&x, lc, items, k, x.vars);
			bool w;
			exec_when(&x, t, &w, &d);
			char *label = tmpl_to_text(item);
			if (!w) {
				out_line(run->out, h->index, "skipping: [%s] => (item=%s) ", h->name, label);
				free(label);
				continue;
			}
			json_t *args = xt_value(&x, t->args, &d);
			const char *f = args ? args_str(args, "_raw_params") : NULL;
			if (!f && args)
				f = args_str(args, "file");
			char *path = f ? resolve_include(run, t, f) : NULL;
			if (!path) {
				if (f)
					include_not_found(run, h, t, f);
				else
					include_fail(run, h, t, args ? "Could not find or access '(no file)'"
								     : diag_first_message(&d));
				json_decref(args);
				free(label);
				break;
			}
			out_line(run->out, h->index, "included: %s for %s => (item=%s)", path, h->name, label);
			free(label);
			struct play_state *ps = run->ps;
			pthread_mutex_lock(&ps->lock);
			struct inc_cache *c = inc_lookup(ps, t, path);
			pthread_mutex_unlock(&ps->lock);
			if (!c) {
				struct inc_cache nc = { .inc = t, .key = xstrdup(path) };
				struct diag ld = DIAG_INIT;
				if (play_load_tasks_file(run->pb, path, t->role, t, &nc.tasks, &nc.ntasks, &ld) < 0) {
					if (ld.code == IMC_EXIT_DATAERR)
						task_run_abort_diag(run, &ld);
					else
						include_fail(run, h, t, diag_first_message(&ld));
					diag_release(&ld);
					free(nc.key);
					free(path);
					json_decref(args);
					break;
				}
				diag_release(&ld);
				add_imported_role_handlers(ps, nc.tasks, nc.ntasks);
				pthread_mutex_lock(&ps->lock);
				ps->inc = xreallocarray(ps->inc, ps->ninc + 1, sizeof(*ps->inc));
				ps->inc[ps->ninc++] = nc;
				c = &ps->inc[ps->ninc - 1];
				pthread_mutex_unlock(&ps->lock);
			}
			json_t *params = inc_params ? json_deep_copy(inc_params) : json_object();
			json_t *own = legacy_include_vars(t, args);
			if (own)
				json_object_update(params, own);
			json_decref(own);
			exec_loop_item_vars(&x, lc, items, k, params);
			/* the included tasks see the loop and index variables
			 * and ansible_loop, not ansible_loop_var nor
			 * ansible_index_var (Ansible passes only those on) */
			json_object_del(params, "ansible_loop_var");
			json_object_del(params, "ansible_index_var");
			struct ptask **tasks = c->tasks;
			size_t ntasks = c->ntasks;
			run_list(run, tasks, ntasks, &hosts[i], 1, rescuable, params);
			json_decref(params);
			json_decref(args);
			free(path);
		}
		json_decref(items);
		json_decref(lc);
next:
		diag_release(&d);
		json_decref(x.vars);
	}
}

/* The role an include_role names (args: its templated arguments) loaded
 * into *wrapper, its handlers added to the play's: 0, or -1 with d set. */
static int load_included_role(struct task_run *run, struct ptask *t, json_t *args, struct ptask **wrapper,
			      struct diag *d)
{
	const char *rn = args_str(args, "name");
	if (!rn)
		rn = args_str(args, "role");
	struct task_role *r = play_load_role(run->pb, rn, NULL, t->dir, args, wrapper, t, d);
	if (!r)
		return -1;
	/* the handlers of the roles its tasks import (added as Ansible's
	 * parser loads them), then its own, even for a role listed with the
	 * same params: Ansible's role cache tells an included role from a
	 * listed one */
	add_imported_role_handlers(run->ps, (*wrapper)->block, (*wrapper)->nblock);
	add_role_handlers(run->ps, *wrapper);
	return 0;
}

/* The include cache's entry of an included role (key: role_key), loaded
 * on first use: the entry, or NULL with d set. */
static struct inc_cache *included_role(struct task_run *run, struct ptask *t, const char *key, json_t *args,
				       struct diag *d)
{
	struct play_state *ps = run->ps;
	pthread_mutex_lock(&ps->lock);
	struct inc_cache *c = inc_lookup(ps, t, key);
	pthread_mutex_unlock(&ps->lock);
	if (c)
		return c;
	struct inc_cache nc = { .inc = t, .key = xstrdup(key) };
	if (load_included_role(run, t, args, &nc.wrapper, d) < 0) {
		free(nc.key);
		return NULL;
	}
	pthread_mutex_lock(&ps->lock);
	ps->inc = xreallocarray(ps->inc, ps->ninc + 1, sizeof(*ps->inc));
	ps->inc[ps->ninc++] = nc;
	c = &ps->inc[ps->ninc - 1];
	pthread_mutex_unlock(&ps->lock);
	return c;
}

/* One item of an include_role loop on one host: the role (its cache key
 * and templated arguments) and the loop variables its tasks see. */
struct role_item {
	char *key;
	json_t *args;
	json_t *params;
};

static bool role_items_equal(const struct role_item *a, size_t na, const struct role_item *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t k = 0; k < na; k++)
		if (strcmp(a[k].key, b[k].key) || !json_equal(a[k].args, b[k].args) ||
		    !json_equal(a[k].params, b[k].params))
			return false;
	return true;
}

/* include_role with loop/with_*: each item includes the role (templated
 * with the item, so each may name another), its tasks seeing the loop
 * variables. As in Ansible, the include itself is not counted in the
 * recap, a skipped item prints "skipping ... (item=...)" uncounted, and
 * the registered result lists each item's include_args. Hosts whose items
 * are the same run each included role together, as Ansible's linear
 * strategy merges identical includes; otherwise each host runs its own
 * in turn. */
static void run_include_role_loop(struct task_run *run, struct ptask *t, struct task_host **hosts, size_t nh,
				  bool rescuable, json_t *inc_params)
{
	print_banner(run, t, hosts[0]);
	out_begin_task(run->out, t->display);
	struct role_item **seq = xcalloc(nh, sizeof(*seq));
	size_t *nseq = xcalloc(nh, sizeof(*nseq));
	for (size_t i = 0; i < nh; i++) {
		struct task_host *h = hosts[i];
		if (h->failed)
			continue;
		struct exec_ctx x = { .run = run, .host = h, .task = t };
		x.vars = exec_build_vars(run, h, t, inc_params);
		struct diag d = DIAG_INIT;
		bool has;
		json_t *items = exec_loop_items(&x, &d, &has);
		json_t *lc = items ? exec_loop_control(&x, &d) : NULL;
		json_t *results = json_array();
		size_t k;
		json_t *item;
		if (!lc) {
			include_fail(run, h, t, diag_first_message(&d));
			goto next;
		}
		seq[i] = xcalloc(json_array_size(items) + 1, sizeof(**seq));
		json_array_foreach(items, k, item) {
			exec_loop_item_vars(&x, lc, items, k, x.vars);
			const char *loop_var = json_string_value(json_object_get(x.vars, "ansible_loop_var"));
			bool w;
			if (exec_when(&x, t, &w, &d) < 0) {
				include_fail(run, h, t, diag_first_message(&d));
				break;
			}
			if (!w) {
				char *label = tmpl_to_text(item);
				out_line(run->out, h->index, "skipping: [%s] => (item=%s) ", h->name, label);
				free(label);
				json_array_append_new(results, json_pack("{s:s, s:b, s:O, s:s, s:b}", "ansible_loop_var",
									 loop_var ? loop_var : "item", "changed", 0,
									 loop_var ? loop_var : "item", item, "skip_reason",
									 "Conditional result was False", "skipped", 1));
				continue;
			}
			json_t *args = xt_value(&x, t->args, &d);
			const char *name = args ? args_str(args, "name") : NULL;
			if (!name && args)
				name = args_str(args, "role");
			if (!name) {
				include_fail(run, h, t, args ? "'name' is a required field for include_role."
							     : diag_first_message(&d));
				json_decref(args);
				break;
			}
			struct role_item *ri = &seq[i][nseq[i]++];
			ri->key = role_key(name, args);
			ri->args = args;
			ri->params = inc_params ? json_deep_copy(inc_params) : json_object();
			exec_loop_item_vars(&x, lc, items, k, ri->params);
			json_array_append_new(results, json_pack("{s:s, s:O, s:O}", "ansible_loop_var",
								 loop_var ? loop_var : "item", "include_args", args,
								 loop_var ? loop_var : "item", item));
		}
		/* no item included: the task is skipped, as Ansible's executor
		 * reports a loop whose items all were (or that had none) */
		bool none = !nseq[i] && !diag_has_errors(&d) && !h->failed;
		json_t *rec = !json_array_size(items)
				      ? json_pack("{s:b, s:b, s:s, s:[]}", "changed", 0, "skipped", 1, "skipped_reason",
						  "No items in the list", "results")
				      : json_pack("{s:b, s:s, s:O, s:b}", "changed", 0, "msg", "All items completed",
						  "results", results, "skipped", none);
		if (none) {
			out_line(run->out, h->index, "skipping: [%s]", h->name);
			h->st.skipped++;
		}
		out_record(run->out, h, rec);
		const char *reg = json_string_value(json_object_get(t->raw, "register"));
		if (reg) {
			exec_set_fact(run, h, reg, rec);
			exec_mark_registered(h, reg);
		}
		json_decref(rec);
next:
		json_decref(results);
		json_decref(items);
		json_decref(lc);
		diag_release(&d);
		json_decref(x.vars);
	}
	/* the hosts still going, and whether they all include the same */
	struct task_host **group = xcalloc(nh, sizeof(*group));
	size_t ng = 0, first = nh;
	bool same = true;
	for (size_t i = 0; i < nh; i++) {
		if (hosts[i]->failed || !seq[i])
			continue;
		if (first == nh)
			first = i;
		else if (!role_items_equal(seq[first], nseq[first], seq[i], nseq[i]))
			same = false;
		group[ng++] = hosts[i];
	}
	for (size_t i = 0; i < nh && !run->aborted; i++) {
		size_t who = same ? first : i;
		if (who >= nh || !seq[who] || (!same && hosts[i]->failed))
			continue;
		for (size_t k = 0; k < nseq[who]; k++) {
			struct role_item *ri = &seq[who][k];
			struct diag d = DIAG_INIT;
			struct inc_cache *c = included_role(run, t, ri->key, ri->args, &d);
			struct task_host **on = same ? group : &hosts[i];
			size_t non = same ? ng : 1;
			if (!c) {
				/* Ansible's strategy raises it: the run ends */
				task_run_abort(run, diag_first_message(&d));
				diag_release(&d);
				break;
			}
			diag_release(&d);
			run_list(run, &c->wrapper, 1, on, non, rescuable, ri->params);
		}
		if (same)
			break;
	}
	for (size_t i = 0; i < nh; i++) {
		for (size_t k = 0; k < nseq[i]; k++) {
			free(seq[i][k].key);
			json_decref(seq[i][k].args);
			json_decref(seq[i][k].params);
		}
		free(seq[i]);
	}
	free(seq);
	free(nseq);
	free(group);
}

static void run_include(struct task_run *run, struct ptask *t, struct task_host **hosts, size_t nh,
			bool rescuable, json_t *inc_params)
{
	if (has_loop_kw(t->raw)) {
		if (!strcmp(t->module, "include_role")) {
			run_include_role_loop(run, t, hosts, nh, rescuable, inc_params);
			return;
		}
		run_include_loop(run, t, hosts, nh, rescuable, inc_params);
		return;
	}
	bool is_role = !strcmp(t->module, "include_role");
	print_banner(run, t, hosts[0]);
	out_begin_task(run->out, t->display);
	struct inc_group *groups = NULL;
	size_t ng = 0;
	for (size_t i = 0; i < nh; i++) {
		struct task_host *h = hosts[i];
		struct exec_ctx x = { .run = run, .host = h, .task = t };
		x.vars = exec_build_vars(run, h, t, inc_params);
		struct diag d = DIAG_INIT;
		bool w;
		if (exec_when(&x, t, &w, &d) < 0) {
			json_t *r = exec_when_failure(&d);
			char *js = out_json_compact(r);
			out_line(run->out, h->index, "fatal: [%s]: FAILED! => %s", h->name, js);
			free(js);
			out_record(run->out, h, r);
			json_decref(r);
			h->st.failed++;
			h->failed = true;
			if (!h->error)
				h->error = xasprintf("task '%s' failed", t->display);
			goto next;
		}
		if (!w) {
			out_line(run->out, h->index, "skipping: [%s]", h->name);
			json_t *r = json_pack("{s:b, s:s, s:b}", "changed", 0, "skip_reason",
					      "Conditional result was False", "skipped", 1);
			out_record(run->out, h, r);
			json_decref(r);
			h->st.skipped++;
			goto next;
		}
		json_t *args = xt_value(&x, t->args, &d);
		const char *f = NULL;
		if (args) {
			f = args_str(args, is_role ? "name" : "_raw_params");
			if (!f)
				f = args_str(args, is_role ? "role" : "file");
		}
		char *path = NULL;
		if (f && !is_role)
			path = resolve_include(run, t, f);
		if (args && f && !is_role && !path) {
			include_not_found(run, h, t, f);
			json_decref(args);
			goto next;
		}
		if (!args || !f || (!is_role && !path)) {
			json_t *r = args ? res_fail("Could not find or access '%s'", f ? f : "(no file)")
					 : res_fail("%s", diag_first_message(&d));
			char *js = out_json_compact(r);
			out_line(run->out, h->index, "fatal: [%s]: FAILED! => %s", h->name, js);
			free(js);
			out_record(run->out, h, r);
			json_decref(r);
			if (!args_bool(exec_keyword(run, t, "ignore_errors"), false)) {
				h->st.failed++;
				h->failed = true;
				if (!h->error)
					h->error = xasprintf("task '%s' failed: cannot include '%s'", t->display,
							     f ? f : "");
			}
			json_decref(args);
			free(path);
			goto next;
		}
		char *key = is_role ? role_key(f, args)
			    : xstrdup(path);
		if (!is_role) {
			out_line(run->out, h->index, "included: %s for %s", path, h->name);
			json_t *r = json_pack("{s:b, s:s}", "changed", 0, "include", f);
			out_record(run->out, h, r);
			json_decref(r);
			h->st.ok++;
		} else {
			json_t *r = json_pack("{s:b, s:s}", "changed", 0, "include_role", f);
			out_record(run->out, h, r);
			json_decref(r);
		}
		/* hosts share an include when they include the same file with
		 * the same parameters (Ansible's IncludedFile equality) */
		json_t *params = is_role ? json_incref(args) : legacy_include_vars(t, args);
		size_t gi;
		for (gi = 0; gi < ng; gi++)
			if (!strcmp(groups[gi].key, key) &&
			    (is_role || (!params && !groups[gi].params) ||
			     (params && groups[gi].params && json_equal(params, groups[gi].params))))
				break;
		if (gi == ng) {
			groups = xreallocarray(groups, ng + 1, sizeof(*groups));
			memset(&groups[ng], 0, sizeof(groups[ng]));
			groups[ng].key = key;
			groups[ng].hosts = xcalloc(nh, sizeof(struct task_host *));
			groups[ng].params = params;
			ng++;
		} else {
			free(key);
			json_decref(params);
		}
		groups[gi].hosts[groups[gi].n++] = h;
		json_decref(args);
		free(path);
next:
		diag_release(&d);
		json_decref(x.vars);
	}
	for (size_t g = 0; g < ng; g++) {
		struct play_state *ps = run->ps;
		pthread_mutex_lock(&ps->lock);
		struct inc_cache *c = inc_lookup(ps, t, groups[g].key);
		pthread_mutex_unlock(&ps->lock);
		if (!c) {
			struct diag d = DIAG_INIT;
			struct inc_cache nc = { .inc = t, .key = xstrdup(groups[g].key) };
			int rc;
			if (is_role)
				rc = load_included_role(run, t, groups[g].params, &nc.wrapper, &d);
			else
				rc = play_load_tasks_file(run->pb, groups[g].key, t->role, t, &nc.tasks,
							  &nc.ntasks, &d);
			if (rc < 0 && is_role) {
				/* Ansible's strategy raises it: the run ends */
				task_run_abort(run, diag_first_message(&d));
				diag_release(&d);
				free(nc.key);
				break;
			}
			if (rc < 0 && d.code == IMC_EXIT_DATAERR) {
				/* a parser error: the strategy re-raises it, the
				 * run ends there, no recap */
				task_run_abort_diag(run, &d);
				diag_release(&d);
				free(nc.key);
				break;
			}
			if (rc < 0) {
				for (size_t i = 0; i < groups[g].n; i++) {
					struct task_host *h = groups[g].hosts[i];
					out_line(run->out, h->index, "fatal: [%s]: FAILED! => {\"msg\": \"%s\"}",
						 h->name, diag_first_message(&d));
					h->st.failed++;
					h->failed = true;
					if (!h->error)
						h->error = xstrdup(diag_first_message(&d));
				}
				diag_release(&d);
				free(nc.key);
				continue;
			}
			diag_release(&d);
			add_imported_role_handlers(ps, nc.tasks, nc.ntasks);
			pthread_mutex_lock(&ps->lock);
			ps->inc = xreallocarray(ps->inc, ps->ninc + 1, sizeof(*ps->inc));
			ps->inc[ps->ninc++] = nc;
			c = &ps->inc[ps->ninc - 1];
			pthread_mutex_unlock(&ps->lock);
		}
		if (c->wrapper)
			run_list(run, &c->wrapper, 1, groups[g].hosts, groups[g].n, rescuable, inc_params);
		else {
			/* a legacy include's parameters are its tasks' variables */
			json_t *vars = inc_params ? json_deep_copy(inc_params) : NULL;
			if (groups[g].params) {
				if (!vars)
					vars = json_object();
				json_object_update(vars, groups[g].params);
			}
			run_list(run, c->tasks, c->ntasks, groups[g].hosts, groups[g].n, rescuable,
				 vars ? vars : inc_params);
			json_decref(vars);
		}
	}
	for (size_t g = 0; g < ng; g++) {
		free(groups[g].key);
		free(groups[g].hosts);
		json_decref(groups[g].params);
	}
	free(groups);
}

/* A meta task's when for host h, as Ansible evaluates it on the task and
 * the blocks around it; an error counts as false, with a warning. */
static bool meta_when(struct task_run *run, struct ptask *t, struct task_host *h)
{
	struct exec_ctx x = { .run = run, .host = h, .task = t };
	x.vars = exec_build_vars(run, h, t, NULL);
	struct diag d = DIAG_INIT;
	bool w;
	if (exec_when(&x, t, &w, &d) < 0)
		out_warning(run->out, diag_first_message(&d));
	diag_release(&d);
	json_decref(x.vars);
	return w;
}

/* A meta task's outcome on host h: Ansible's callback shows a skipped
 * one ("skipping: [h]"), never an acted one, and neither is counted in
 * the recap; -vv prints "META: " and the message or the skip reason. */
static void meta_result(struct task_run *run, struct ptask *t, struct task_host *h, const char *what,
			bool acted, const char *msg, const char *skip_tail)
{
	char *reason = xasprintf("%s conditional evaluated to False%s", what, skip_tail);
	/* under free the banner waits for a result line: the META line is
	 * not one (Ansible's Display prints it, not its callback) */
	if (run->free_play && run->out)
		out_task_lazy_drop(run->out);
	if (run->out && run->out->verbosity >= 2)
		out_line(run->out, h->index, "META: %s", acted ? msg : reason);
	if (!acted && run->free_play)
		print_banner(run, t, h);
	if (!acted) {
		json_t *r = json_pack("{s:s, s:b, s:s}", "msg", msg, "skipped", 1, "skip_reason", reason);
		char *vb = out_verbose(run->out, r, "meta", false);
		out_line(run->out, h->index, "skipping: [%s]%s", h->name, vb);
		free(vb);
		out_record(run->out, h, r);
		json_decref(r);
	}
	free(reason);
}

static void flush_handlers(struct task_run *run, struct task_host **hosts, size_t nh, bool section);

/* meta: as the linear strategy runs it: noop, flush_handlers and end_host
 * per host (a banner each), the others (end_play, end_batch,
 * clear_host_errors) once, with the first host's when, for the batch;
 * any other action fails the task where it would act, not skipped
 * silently. */
static void run_meta(struct task_run *run, struct ptask *t, struct task_host **live, size_t n)
{
	const char *what = args_str(t->args, "_raw_params");
	static const char *const per_host[] = { "noop", "flush_handlers", "end_host", NULL };
	static const char *const once[] = { "end_play", "end_batch", "clear_host_errors", NULL };
	bool each = false, first = false;
	for (size_t i = 0; what && per_host[i]; i++)
		each = each || !strcmp(what, per_host[i]);
	for (size_t i = 0; what && once[i]; i++)
		first = first || !strcmp(what, once[i]);
	/* free runs every meta on each host as it reaches it (n is 1): the
	 * first host's is this host's; end_play and end_batch end the
	 * batch's other hosts wherever they are */
	bool all = run->free_play && first;
	if (!each && !first) {
		char *m = xasprintf("meta: %s is not supported by imc", what ? what : "(no action)");
		print_banner(run, t, live[0]);
		for (size_t i = 0; i < n; i++)
			include_refuse(run, live[i], t, m);
		free(m);
		return;
	}
	if (each) {
		struct task_host **sel = xcalloc(n + 1, sizeof(*sel));
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			struct task_host *h = live[i];
			print_banner(run, t, h);
			if (!strcmp(what, "noop")) {
				/* when is not supported on noop: Ansible ignores it */
				meta_result(run, t, h, what, true, "noop", "");
				continue;
			}
			bool w = meta_when(run, t, h);
			char *msg, *tail;
			if (!strcmp(what, "end_host")) {
				msg = xasprintf(w ? "ending play for %s"
						  : "end_host conditional evaluated to false, "
						    "continuing execution for %s", h->name);
				tail = xasprintf(", continuing execution for %s", h->name);
				if (w)
					h->ended = true;
			} else if (w && t->is_handler) {
				/* the strategy raises it while running handlers:
				 * the run ends there */
				task_run_abort(run, "flush_handlers cannot be used as a handler");
				run->raised = true;
				break;
			} else {
				msg = xasprintf(w ? "triggered running handlers for %s" : "flush_handlers",
						h->name);
				tail = xasprintf(", not running handlers for %s", h->name);
				if (w)
					sel[k++] = h;
			}
			meta_result(run, t, h, what, w, msg, tail);
			free(msg);
			free(tail);
		}
		if (k)
			flush_handlers(run, sel, k, false);
		free(sel);
		return;
	}
	print_banner(run, t, live[0]);
	bool w = meta_when(run, t, live[0]);
	if (!strcmp(what, "clear_host_errors")) {
		if (w) {
			/* every host of the play is back (its recap keeps its failures) */
			run->cleared++;
			for (size_t i = 0; i < inventory_nhosts(run); i++) {
				struct task_host *h = inventory_host(run, i);
				h->failed = h->unreachable = false;
				free(h->error);
				h->error = NULL;
			}
		}
		char *tail = xasprintf(", not clearing host error state for %s", live[0]->name);
		meta_result(run, t, live[0], what, w, w ? "cleared host errors" : what, tail);
		free(tail);
		return;
	}
	bool play = !strcmp(what, "end_play");
	if (w && all) {
		for (size_t i = 0; i < run->nbatch; i++)
			if (!run->batch[i]->unreachable)
				__atomic_store_n(&run->batch[i]->ended, true, __ATOMIC_RELAXED);
		if (play)
			run->play_ended = true;
	} else if (w) {
		for (size_t i = 0; i < n; i++)
			live[i]->ended = true;
		/* end_play ends the play's later batches too, end_batch not */
		if (play)
			run->play_ended = true;
	}
	meta_result(run, t, live[0], what, w, w ? (play ? "ending play" : "ending batch") : what,
		    play ? ", continuing play" : ", continuing current batch");
}

/* run_once, and modules that bypass the host loop (add_host): the first
 * host runs the task and only it prints, records and counts the result.
 * With run_once the other hosts get its registered result and its facts
 * (unless delegate_facts sent them elsewhere), and fail with it. */
/* A run_once task's result res (rc: exec_task_host's) on src given to
 * the hosts live[0..n) other than src: its registered result, its facts,
 * its failure. */
static void share_once(struct task_run *run, struct ptask *t, struct task_host *src, json_t *res, int rc,
		       struct task_host **live, size_t n)
{
	const char *reg = json_string_value(json_object_get(t->raw, "register"));
	json_t *facts = json_object_get(res, "ansible_facts");
	bool own_facts = !args_bool(exec_keyword(run, t, "delegate_facts"), false) &&
			 strcmp(t->module, "debug");
	for (size_t i = 0; res && i < n; i++) {
		if (live[i] == src)
			continue;
		if (reg) {
			json_t *stored = json_deep_copy(res);
			if (!json_object_get(stored, "failed") &&
			    !json_is_true(json_object_get(stored, "skipped")))
				json_object_set_new(stored, "failed", json_false());
			exec_set_fact(run, live[i], reg, stored);
			exec_mark_registered(live[i], reg);
			json_decref(stored);
		}
		const char *k;
		json_t *v;
		bool clean = exec_clean_facts(t->module);
		if (own_facts && json_is_object(facts))
			json_object_foreach(facts, k, v) {
				if (clean)
					exec_set_fact(run, live[i], k, v);
				else
					exec_module_fact(run, live[i], k, v);
			}
		if (rc < 0 && !live[i]->unreachable && !live[i]->failed) {
			/* under free, for the rest of the play only (see
			 * task_host.failed_by_once) */
			if (run->free_play)
				live[i]->failed_by_once = true;
			live[i]->failed = true;
			if (!live[i]->error)
				live[i]->error = xasprintf("task '%s' failed on %s (run_once)", t->display,
							   src->name);
		}
	}
}

static void run_first_host(struct task_run *run, struct ptask *t, struct task_host **live, size_t n,
			   bool once, bool rescuable, json_t *inc_params)
{
	json_t *res = NULL;
	int rc = exec_task_host(run, t, live[0], rescuable, inc_params, &res);
	if (once)
		share_once(run, t, live[0], res, rc, live, n);
	json_decref(res);
}

/* A run_once task under free: this host runs it as any task (warned in
 * exec_free_admit); what it registers and its facts go to every host of
 * the batch all the same, and its failure fails them all (Ansible's
 * _process_pending_results reads run_once whatever the strategy). The
 * others are reached wherever they are, under the facts lock. */
static void run_once_free(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
			  json_t *inc_params)
{
	json_t *res = NULL;
	int rc = exec_task_host(run, t, h, rescuable, inc_params, &res);
	struct task_host **others = xcalloc(run->nbatch + 1, sizeof(*others));
	size_t k = 0;
	for (size_t i = 0; i < run->nbatch; i++)
		if (run->batch[i] != h && !run->batch[i]->unreachable)
			others[k++] = run->batch[i];
	pthread_mutex_lock(&run->lock);
	share_once(run, t, h, res, rc, others, k);
	pthread_mutex_unlock(&run->lock);
	free(others);
	json_decref(res);
}

static void flush_handlers(struct task_run *run, struct task_host **hosts, size_t nh, bool section);

/* any_errors_fatal as Ansible's linear strategy reads it: the play's
 * templated to a boolean (play-load.c admits only a boolean there), a
 * task's or block's as written, with Python's truth: any non-empty
 * string is true, "{{ false }}" and "no" too. */
static bool any_errors_fatal(struct task_run *run, struct ptask *t)
{
	for (struct ptask *p = t; p; p = p->parent) {
		json_t *v = json_object_get(p->raw, "any_errors_fatal");
		if (!v)
			continue;
		if (json_is_string(v))
			return json_string_length(v) > 0;
		if (json_is_integer(v))
			return json_integer_value(v) != 0;
		return json_is_true(v);
	}
	return args_bool(json_object_get(run->play->raw, "any_errors_fatal"), false);
}

/* Whether a host failing task t goes on to the always section of a
 * block around it (Ansible's iterator state is ALWAYS then, which
 * any_errors_fatal spares). */
static bool pending_always(struct ptask *t)
{
	for (struct ptask *c = t; c && c->parent; c = c->parent) {
		struct ptask *p = c->parent;
		if (!p->is_block || !p->nalways)
			continue;
		bool in_always = false;
		for (size_t i = 0; i < p->nalways; i++)
			in_always = in_always || p->always[i] == c;
		if (!in_always)
			return true;
	}
	return false;
}

/* The linear strategy's checks after task t ran on hosts[0..n) (none of
 * them failed before it): any_errors_fatal (a run_once task counts as
 * one), when a host failed for good or became unreachable, fails every
 * host of the batch that is not in a rescue or always section and stops
 * the playbook after this play; max_fail_percentage, when more than that
 * share of the batch failed (rescued hosts not counted), fails the
 * batch's hosts and stops the playbook. */
static void after_task(struct task_run *run, struct ptask *t, struct task_host **hosts, size_t n,
		       bool rescuable)
{
	/* free warns about both and does neither (exec-free.c) */
	if (!run->batch || !run->play || run->free_play)
		return;
	bool fresh = false;
	for (size_t i = 0; i < n; i++)
		if (hosts[i]->unreachable || (hosts[i]->failed && !rescuable))
			fresh = true;
	const struct task_module *mod = t->module ? task_module_find(t->module) : NULL;
	bool once = args_bool(exec_keyword(run, t, "run_once"), false) ||
		    (mod && mod->bypass_host_loop);
	bool fatal = (any_errors_fatal(run, t) || once) &&
		     !args_bool(exec_keyword(run, t, "ignore_errors"), false);
	bool all_failed = true;
	if (fatal && fresh) {
		bool hit = false;
		bool to_always = pending_always(t);
		for (size_t i = 0; i < run->nbatch; i++) {
			struct task_host *h = run->batch[i];
			if (h->unreachable)
				continue;
			bool here = false;
			for (size_t j = 0; j < n; j++)
				here = here || hosts[j] == h;
			/* the hosts that ran t go on to the always around it */
			if ((!h->failed && h->spared) || (here && to_always)) {
				all_failed = false;
				continue;
			}
			hit = true;
			if (!h->failed) {
				h->failed = true;
				if (!h->error)
					h->error = xasprintf("task '%s' failed on another host "
							     "(any_errors_fatal)", t->display);
			}
		}
		if (hit) {
			run->stopped = true;
			if (all_failed)
				out_banner(run->out, "NO MORE HOSTS LEFT");
		}
	}
	double pct;
	json_t *mfp = json_object_get(run->play->raw, "max_fail_percentage");
	if (!mfp || !play_percent(mfp, &pct) || !run->nbatch)
		return;
	size_t failed = 0;
	for (size_t i = 0; i < run->nbatch; i++) {
		struct task_host *h = run->batch[i];
		bool mine = false;
		for (size_t j = 0; rescuable && j < n; j++)
			mine = mine || hosts[j] == h;
		if (h->failed && !h->unreachable && !mine)
			failed++;
	}
	failed -= failed < run->batch_failed0 ? failed : run->batch_failed0;
	if ((double)failed / (double)run->nbatch <= pct / 100.0)
		return;
	for (size_t i = 0; i < run->nbatch; i++) {
		struct task_host *h = run->batch[i];
		if (!h->failed) {
			h->failed = true;
			if (!h->error)
				h->error = xasprintf("task '%s': more than %g%% of the hosts failed "
						     "(max_fail_percentage)", t->display, pct);
		}
	}
	run->stopped = true;
	/* Ansible announces it twice: once for the percentage, once because
	 * every host has now failed */
	out_banner(run->out, "NO MORE HOSTS LEFT");
	out_banner(run->out, "NO MORE HOSTS LEFT");
}

static void run_node_hosts(struct task_run *run, struct ptask *t, struct task_host **live, size_t n,
			   bool rescuable, json_t *inc_params);

static void run_node(struct task_run *run, struct ptask *t, struct task_host **hosts, size_t nh,
		     bool rescuable, json_t *inc_params)
{
	if (t->is_block) {
		run_block(run, t, hosts, nh, rescuable, inc_params);
		return;
	}
	struct task_host **live = xcalloc(nh + 1, sizeof(*live));
	size_t n = alive(hosts, nh, live);
	if (n) {
		run_node_hosts(run, t, live, n, rescuable, inc_params);
		after_task(run, t, live, n, rescuable);
	}
	free(live);
}

/* Task t (not a block) on the hosts that have not failed. */
static void run_node_hosts(struct task_run *run, struct ptask *t, struct task_host **live, size_t n,
			   bool rescuable, json_t *inc_params)
{
	if (t->is_block) {
		run_block(run, t, live, n, rescuable, inc_params);
		return;
	}
	if (past_deadline(run)) {
		for (size_t i = 0; i < n; i++) {
			live[i]->failed = true;
			live[i]->st.failed++;
			if (!live[i]->error)
				live[i]->error = xstrdup("contextualization timed out (contextualize MAX reached)");
		}
		return;
	}
	if (!strcmp(t->module, "meta")) {
		run_meta(run, t, live, n);
		return;
	}
	bool once = args_bool(exec_keyword(run, t, "run_once"), false);
	if (run->free_play && exec_free_admit(run, t, once, any_errors_fatal(run, t)) < 0)
		return;
	if (!strcmp(t->module, "include_tasks") || !strcmp(t->module, "include_role")) {
		run_include(run, t, live, n, rescuable, inc_params);
		return;
	}
	print_banner(run, t, live[0]);
	out_begin_task(run->out, t->display);
	const struct task_module *mod = task_module_find(t->module);
	if (run->free_play && once) {
		run_once_free(run, t, live[0], rescuable, inc_params);
		return;
	}
	if (once || (mod && mod->bypass_host_loop)) {
		run_first_host(run, t, live, n, once, rescuable, inc_params);
		return;
	}
	if (mod && !strcmp(mod->name, "group_by")) {
		/* whether a host's group_by changed the inventory depends on the
		 * hosts before it: they go in the play's host order */
		for (size_t i = 0; i < n; i++)
			exec_task_host(run, t, live[i], rescuable, inc_params, NULL);
		return;
	}
	run_parallel(run, t, live, n, rescuable, inc_params);
}

static void run_list(struct task_run *run, struct ptask **list, size_t n, struct task_host **hosts,
		     size_t nh, bool rescuable, json_t *inc_params)
{
	for (size_t i = 0; i < n && !run->refused && !run->aborted; i++) {
		struct task_host **live = xcalloc(nh + 1, sizeof(*live));
		size_t k = 0;
		for (size_t j = 0; j < nh; j++)
			if (!hosts[j]->failed && !hosts[j]->ended)
				live[k++] = hosts[j];
		if (k && (list[i]->is_block || exec_tags_select(run, list[i], live[0], inc_params)) &&
		    !exec_start_skip(run, list[i]))
			run_node(run, list[i], live, k, rescuable, inc_params);
		free(live);
		if (!k)
			break;
	}
}

/* Runs the handlers hosts[0..nh) were notified of. At the end of a
 * section (section true) with force_handlers, the hosts that failed run
 * theirs too, unless any_errors_fatal or max_fail_percentage stopped the
 * play: Ansible's strategy returns at once then. */
static void flush_handlers(struct task_run *run, struct task_host **hosts, size_t nh, bool section)
{
	struct play_state *ps = run->ps;
	if (run->refused || run->aborted)
		return;
	bool force = section && ps->force && !run->stopped;
	for (size_t i = 0; i < ps->nhandlers; i++) {
		struct ptask *hd = ps->handlers[i];
		char key[32];
		snprintf(key, sizeof(key), "%p", (void *)hd);
		struct task_host **sel = xcalloc(nh + 1, sizeof(*sel));
		size_t k = 0;
		for (size_t j = 0; j < nh; j++)
			if (json_object_get(hosts[j]->notified, key)) {
				json_object_del(hosts[j]->notified, key);
				if (!hosts[j]->failed || (force && !hosts[j]->unreachable))
					sel[k++] = hosts[j];
			}
		/* a failed host runs the handler forced, and stays failed */
		bool *was = xcalloc(k + 1, sizeof(*was));
		for (size_t j = 0; j < k; j++) {
			was[j] = sel[j]->failed;
			sel[j]->failed = false;
		}
		if (k)
			run_node(run, hd, sel, k, false, NULL);
		for (size_t j = 0; j < k; j++)
			sel[j]->failed |= was[j];
		free(was);
		free(sel);
	}
}

/* ---- plays -------------------------------------------------------------------- */

/* A list setting's value as Ansible's config reads it: split on commas,
 * each item stripped of blanks and of one pair of enclosing quotes (not
 * when the closing one is escaped: its unquote). */
static json_t *setting_list(const char *text)
{
	json_t *l = json_array();
	for (const char *s = text;; s++) {
		size_t n = strcspn(s, ",");
		const char *b = s, *e = s + n;
		while (b < e && strchr(" \t\n\r\v\f", *b))
			b++;
		while (e > b && strchr(" \t\n\r\v\f", e[-1]))
			e--;
		if (e - b >= 2 && (*b == '"' || *b == '\'') && e[-1] == *b && e[-2] != '\\') {
			b++;
			e--;
		}
		json_array_append_new(l, json_stringn(b, (size_t)(e - b)));
		s += n;
		if (!*s)
			break;
	}
	return l;
}

/* The implicit gathering's setup arguments, as Ansible's play iterator
 * gives them: the play's gather_subset and gather_timeout, whose
 * defaults are the settings DEFAULT_GATHER_SUBSET and
 * DEFAULT_GATHER_TIMEOUT (imc play exports them as their variables); a
 * keyword given null passes nothing, so setup's own default (or
 * module_defaults') holds. The marks tell setup to fail as Ansible's
 * gather_facts action, and to read a gather_subset from the keyword as
 * the play's list field (a string is one subset, not split on commas
 * as setup's argument). */
static json_t *gather_args(const struct task_play *p)
{
	json_t *args = json_pack("{s:b}", "_imc_gather_facts", 1);
	json_t *gs = json_object_get(p->raw, "gather_subset");
	const char *env = getenv("ANSIBLE_GATHER_SUBSET");
	if (gs && !json_is_null(gs)) {
		json_object_set(args, "gather_subset", gs);
		json_object_set_new(args, "_imc_gather_subset_keyword", json_true());
	} else if (!gs && env) {
		json_object_set_new(args, "gather_subset", setting_list(env));
	}
	json_t *to = json_object_get(p->raw, "gather_timeout");
	env = getenv("ANSIBLE_GATHER_TIMEOUT");
	if (to && !json_is_null(to))
		json_object_set(args, "gather_timeout", to);
	else if (!to && env)
		json_object_set_new(args, "gather_timeout", json_string(env));
	return args;
}

static void gather_facts(struct task_run *run, struct task_play *p, struct task_host **hosts, size_t n)
{
	static struct ptask setup_task;
	static json_t *raw;
	if (!raw) {
		raw = json_object();
		setup_task.raw = raw;
		setup_task.module = "setup";
		static char gf[] = "Gathering Facts";
		setup_task.display = gf;
	}
	/* an imported play's gathering runs under its import's when */
	struct ptask t = setup_task;
	t.args = gather_args(p);
	json_t *cond = p->gather_when ? json_pack("{s:O}", "when", p->gather_when) : NULL;
	if (cond)
		t.raw = cond;
	if (run->free_play && exec_free_admit(run, &t, false, any_errors_fatal(run, &t)) < 0) {
		json_decref(cond);
		json_decref(t.args);
		return;
	}
	print_banner(run, &t, NULL);
	out_begin_task(run->out, "Gathering Facts");
	run_parallel(run, &t, hosts, n, false, NULL);
	after_task(run, &t, hosts, n, false);
	json_decref(cond);
	json_decref(t.args);
}

/* The recap lists hosts by name, as Ansible's does (and the play's
 * order 'sorted'). */
static int cmp_host_name(const void *a, const void *b)
{
	return strcmp((*(struct task_host *const *)a)->name, (*(struct task_host *const *)b)->name);
}

/* The play keyword order applied to its hosts h[0..n), in inventory
 * order: Ansible sorts by name with Python's sorted() (code points, as
 * strcmp), reverses, or shuffles (a random order, unseeded as Ansible's). */
static void order_hosts(struct task_host **h, size_t n, const char *order)
{
	if (!order || n < 2)
		return;
	bool reverse = !strcmp(order, "reverse_inventory") || !strcmp(order, "reverse_sorted");
	if (!strcmp(order, "sorted") || !strcmp(order, "reverse_sorted"))
		qsort(h, n, sizeof(*h), cmp_host_name);
	else if (!strcmp(order, "shuffle"))
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = arc4random_uniform((uint32_t)(i + 1));
			struct task_host *t = h[i];
			h[i] = h[j];
			h[j] = t;
		}
	for (size_t i = 0; reverse && i < n / 2; i++) {
		struct task_host *t = h[i];
		h[i] = h[n - 1 - i];
		h[n - 1 - i] = t;
	}
}

/* Play p's sections on hosts[0..nh): facts, pre_tasks, roles and tasks,
 * post_tasks, each followed by its handlers. */
static void play_sections(struct task_run *run, struct task_play *p, struct task_host **hosts, size_t nh)
{
	if (p->gather_facts && exec_tags_gather(run) && (!run->start_at || run->start_task))
		gather_facts(run, p, hosts, nh);
	run_list(run, p->pre_tasks, p->npre, hosts, nh, false, NULL);
	flush_handlers(run, hosts, nh, true);
	run_list(run, p->roles, p->nroles, hosts, nh, false, NULL);
	run_list(run, p->tasks, p->ntasks, hosts, nh, false, NULL);
	flush_handlers(run, hosts, nh, true);
	run_list(run, p->post_tasks, p->npost, hosts, nh, false, NULL);
	flush_handlers(run, hosts, nh, true);
}

/* The free strategy: one host's whole play (exec_free_batch). */
static void free_host(struct task_run *run, struct task_host *h, void *arg)
{
	play_sections(run, arg, &h, 1);
}

/* One serial batch of play p: its hosts bh[0..nb), those failed before
 * it included (they count in the batch, as in Ansible, but run nothing). */
static void run_batch(struct task_run *run, struct task_play *p, struct task_host **bh, size_t nb)
{
	struct task_host **hosts = xcalloc(nb + 1, sizeof(*hosts));
	size_t nh = 0;
	for (size_t i = 0; i < nb; i++)
		if (!bh[i]->failed)
			hosts[nh++] = bh[i];
	run->batch = bh;
	run->nbatch = nb;
	run->batch_failed0 = nb - nh;
	out_begin_play(run->out, p->name);
	char *pname = exec_play_name(run, p, nh ? hosts[0] : NULL);
	out_play(run->out, pname);
	free(pname);
	if (!nh) {
		out_line(run->out, -1, "skipping: no hosts matched");
		goto out;
	}
	struct play_state ps = { 0 };
	pthread_mutex_init(&ps.lock, NULL);
	json_t *fh = json_object_get(p->raw, "force_handlers");
	ps.force = fh && !json_is_null(fh) ? args_bool(fh, false) : run->force_handlers;
	run->ps = &ps;
	run->notify = play_notify;
	for (size_t i = 0; i < p->nroles; i++)
		add_role_handlers(&ps, p->roles[i]);
	add_handlers(&ps, p->handlers, p->nhandlers);
	for (size_t i = 0; i < p->nroles; i++)
		add_imported_role_handlers(&ps, p->roles[i]->block, p->roles[i]->nblock);
	add_imported_role_handlers(&ps, p->pre_tasks, p->npre);
	add_imported_role_handlers(&ps, p->tasks, p->ntasks);
	add_imported_role_handlers(&ps, p->post_tasks, p->npost);
	for (size_t i = 0; i < nh; i++) {
		json_decref(hosts[i]->notified);
		hosts[i]->notified = json_object();
		hosts[i]->spared = 0;
	}

	/* --start-at-task: a play without the task runs nothing, not even
	 * its fact gathering (as Ansible's iterator) */
	if (run->start_at)
		exec_start_at_play(run, p, hosts[0]);
	if (run->free_play) {
		json_t *mfp = json_object_get(p->raw, "max_fail_percentage");
		if (mfp && !json_is_null(mfp))
			exec_warning(run, "Using max_fail_percentage with the free strategy is not supported, as "
					  "tasks are executed independently on each host");
		exec_free_batch(run, hosts, nh, free_host, p);
	} else
		play_sections(run, p, hosts, nh);

	run->ps = NULL;
	run->notify = NULL;
	for (size_t i = 0; i < ps.ninc; i++)
		free(ps.inc[i].key);
	free(ps.inc);
	free(ps.handlers);
	free(ps.hgroup);
	for (size_t i = 0; i < ps.nhandlers; i++)
		free(ps.hname[i]);
	free(ps.hname);
	pthread_mutex_destroy(&ps.lock);
	/* a host a run_once task of another failed goes on to the next play */
	for (size_t i = 0; i < nh; i++) {
		if (hosts[i]->failed_by_once && hosts[i]->failed) {
			hosts[i]->failed = false;
			free(hosts[i]->error);
			hosts[i]->error = NULL;
		}
		hosts[i]->failed_by_once = false;
	}
	/* a batch whose every host failed in it ends the playbook (Ansible's
	 * executor breaks out of its plays) */
	size_t failed = 0;
	for (size_t i = 0; i < nh; i++)
		if (hosts[i]->failed || hosts[i]->unreachable)
			failed++;
	if (failed == nb)
		run->stopped = true;
out:
	run->batch = NULL;
	run->nbatch = 0;
	free(hosts);
}

/* Whether play p runs free (run->free_play): its strategy keyword, or
 * ANSIBLE_STRATEGY's (run->free) when it has none. A strategy given as a
 * template (strategy: "{{ s | default('linear') }}") is templated as the
 * play starts, as Ansible's play fields are; one imc lacks stops the
 * playbook with an error (it can no longer go to ansible-playbook whole).
 * --start-at-task is per host under free: imc refuses it on more than
 * one host. 0, or -1 with d set. */
static int play_strategy(struct task_run *run, struct task_play *p, struct task_host *h, size_t nhosts,
			 struct diag *d)
{
	run->free_play = run->free;
	const char *s = json_string_value(json_object_get(p->raw, "strategy"));
	if (s && !tmpl_has_template(s))
		run->free_play = play_strategy_free(s) > 0;
	int rc = 0;
	if (s && tmpl_has_template(s) && h) {
		/* a task standing for the play (the templating reads its task) */
		struct ptask pt = { .raw = json_object(), .display = p->name, .dir = run->pb->dir };
		struct exec_ctx x = { .run = run, .host = h, .task = &pt };
		x.vars = exec_build_vars(run, h, &pt, NULL);
		json_t *v = json_string(s);
		struct diag td = DIAG_INIT;
		json_t *r = xt_value(&x, v, &td);
		json_decref(v);
		json_decref(x.vars);
		json_decref(pt.raw);
		const char *rs = json_string_value(r);
		int f = rs ? play_strategy_free(rs) : -1;
		if (!r) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "play '%s': strategy: %s", p->name,
				   diag_first_message(&td));
			rc = -1;
		} else if (f < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "play '%s': unsupported strategy '%s' (imc runs the linear, free and "
				   "host_pinned strategies)", p->name, rs ? rs : "?");
			rc = -1;
		}
		run->free_play = f > 0;
		json_decref(r);
		diag_release(&td);
	}
	if (rc == 0 && run->free_play && run->start_at && nhosts > 1) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "play '%s': --start-at-task with the free strategy on %zu hosts is not supported by imc "
			   "(each host would start there on its own)", p->name, nhosts);
		rc = -1;
	}
	return rc;
}

static int run_play(struct task_run *run, struct task_play *p, struct diag *d)
{
	/* every host of the inventory, those add_host put there included */
	inventory_implicit(run, p->hosts);
	size_t all = inventory_nhosts(run);
	struct task_host **hosts = xcalloc(all + 1, sizeof(*hosts));
	size_t nh = 0;
	json_decref(run->play_hosts);
	run->play_hosts = json_array();
	for (size_t i = 0; i < all; i++) {
		struct task_host *h = inventory_host(run, i);
		if (inventory_selected(run, p->hosts, h->name) &&
		    (!run->limit || !strcmp(run->limit, h->name)) &&
		    (!run->subset || inventory_selected(run, run->subset, h->name))) {
			h->ended = false;
			/* Ansible's role cache is the play's */
			json_decref(h->roles_ran);
			h->roles_ran = NULL;
			hosts[nh++] = h;
		}
	}
	order_hosts(hosts, nh, json_string_value(json_object_get(p->raw, "order")));
	for (size_t i = 0; i < nh; i++)
		if (!hosts[i]->failed)
			json_array_append_new(run->play_hosts, json_string(hosts[i]->name));
	run->play = p;
	if (play_strategy(run, p, nh ? hosts[0] : NULL, nh, d) < 0) {
		free(hosts);
		return -1;
	}
	json_t *serial = json_object_get(p->raw, "serial");
	size_t start = 0;
	run->play_ended = false;
	for (size_t b = 0; (start < nh || !start) && !run->stopped && !run->play_ended; b++) {
		long size = 0;
		if (serial && !play_serial_size(serial, b, nh, &size))
			size = 0;
		size_t n = size <= 0 || (size_t)size > nh - start ? nh - start : (size_t)size;
		run_batch(run, p, hosts + start, n);
		start += n;
		if (!n)
			break;
	}
	free(hosts);
	(void)d;
	return 0;
}

int task_run_playbook(struct task_run *run, struct task_playbook *pb, struct diag *d)
{
	run->pb = pb;
	/* forks workers in all, the caller's thread one of them; started
	 * even when the inventory has one host (add_host may add more) */
	run->pool = pool_start((size_t)(run->forks > 0 ? run->forks : 1));
	run->stopped = false;
	if (run->out && run->out->verbosity >= 2 && pb->file) {
		/* ansible-playbook -vv: the playbook's banner, its play count */
		const char *base = strrchr(pb->file, '/');
		char *b = xasprintf("PLAYBOOK: %s", base ? base + 1 : pb->file);
		out_banner(run->out, b);
		free(b);
		out_line(run->out, -1, "%zu plays in %s", pb->nplays, pb->file);
	}
	for (size_t i = 0; i < pb->nplays && !run->stopped; i++) {
		if (run_play(run, pb->plays[i], d) < 0) {
			pool_stop(run->pool);
			run->pool = NULL;
			return -1;
		}
	}
	pool_stop(run->pool);
	run->pool = NULL;
	if (run->refused) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s (the run stopped there: Ansible would have run it)",
			   run->refused);
		return -1;
	}
	/* the recap: the hosts that ran a task, the caller's and the added
	 * ones (Ansible's recap lists the hosts it processed: not one that
	 * no play, --limit or --start-at-task let run) */
	size_t all = inventory_nhosts(run);
	struct task_host **rh = xcalloc(all + 1, sizeof(*rh));
	size_t nr = 0;
	for (size_t i = 0; i < all; i++) {
		struct task_host *h = inventory_host(run, i);
		const struct task_stats *s = &h->st;
		if (!(s->ok || s->changed || s->unreachable || s->failed ||
					  s->skipped || s->rescued || s->ignored))
			continue;
		if ((!run->limit || !strcmp(run->limit, h->name)) &&
		    (!run->subset || inventory_selected(run, run->subset, h->name)))
			rh[nr++] = h;
	}
	qsort(rh, nr, sizeof(*rh), cmp_host_name);
	if (!run->raised)
		out_recap(run->out, rh, nr);
	if (run->aborted) {
		free(rh);
		if (run->aborted_at) {
			diag_move(d, run->aborted_at);
			d->code = IMC_EXIT_FAILED;
		} else
			diag_error(d, IMC_EXIT_FAILED, NULL, "%s", run->aborted);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < nr; i++)
		if (rh[i]->failed || rh[i]->unreachable)
			rc = 1;
	free(rh);
	return rc;
}
