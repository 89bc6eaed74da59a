/* contextualize.c: the deployment worker's contextualization (see
 * worker.h), in the order it happens: pick the VMs that take part and
 * build the schedule of their configures; record the intent (each VM's
 * state, a 'pending' row per step) before anything runs; build the
 * provisioner's job; run the provisioner in a child process and wait for
 * it within the RADL's time limit; record the outcome. Each stage is one
 * function over one struct ctxt, so a stage can be read, changed and
 * tested without the others. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cloud/cloud.h"
#include "deploy/deploy.h"
#include "deploy/recipes.h"
#include "deploy/worker.h"
#include "plan/plan.h"
#include "provision/provision.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "worker"

/* The provisioning child, killed with the worker when destroy cancels it. */
static volatile pid_t prov_child;

void deploy_kill_provisioner(void)
{
	pid_t c = prov_child;
	if (c > 0)
		kill(c, SIGKILL);
}

static double now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* ---- the provisioner's callbacks: store writes ---- */

struct run {
	struct state_store *st;
	const char *id;
	pthread_mutex_t lock;
	int *vm_num;          /* host index -> VM number */
	bool *failed;         /* host index -> a step failed */
	double *last;         /* host index -> when its previous step ended */
	size_t nhosts;
	const struct plan_schedule *sched;
	const size_t *host_of; /* schedule VM index -> host index (or SIZE_MAX) */
	const int *sched_num;  /* schedule VM index -> VM number */
};

static void cb_log(void *opaque, int host, const char *text)
{
	struct run *r = opaque;
	struct diag d = DIAG_INIT;
	pthread_mutex_lock(&r->lock);
	int vm = host >= 0 && (size_t)host < r->nhosts ? r->vm_num[host] : -1;
	if (state_log_add(r->st, r->id, vm, text, &d) < 0)
		log_warn(MOD, "%s", diag_first_message(&d));
	pthread_mutex_unlock(&r->lock);
	diag_release(&d);
}

static void cb_hostkey(void *opaque, int host, const char *key)
{
	struct run *r = opaque;
	struct diag d = DIAG_INIT;
	if (host < 0 || (size_t)host >= r->nhosts)
		return;
	pthread_mutex_lock(&r->lock);
	if (state_vm_set_hostkey(r->st, r->id, r->vm_num[host], key, &d) < 0)
		log_warn(MOD, "%s", diag_first_message(&d));
	pthread_mutex_unlock(&r->lock);
	diag_release(&d);
}

static void cb_step(void *opaque, int host, int step, bool ok, const char *error)
{
	struct run *r = opaque;
	struct diag d = DIAG_INIT;
	if (host < 0 || (size_t)host >= r->nhosts)
		return;
	pthread_mutex_lock(&r->lock);
	double t = now();
	int vm = r->vm_num[host];
	/* every configure of this (step, VM) gets the same timing */
	for (size_t s = 0; s < r->sched->nsteps; s++) {
		const struct plan_step *ps = &r->sched->steps[s];
		if (ps->step != step)
			continue;
		for (size_t k = 0; k < ps->nitems; k++) {
			if (r->sched_num[ps->items[k].vm] != vm)
				continue;
			struct state_step row = { .step = step, .vm = vm, .configure = (char *)(uintptr_t)ps->items[k].conf->id,
						  .status = ok ? STEP_OK : STEP_FAILED, .started = r->last[host],
						  .ended = t, .error = (char *)(uintptr_t)(ok ? NULL : error) };
			if (state_step_set(r->st, r->id, &row, &d) < 0)
				log_warn(MOD, "%s", diag_first_message(&d));
		}
	}
	r->last[host] = t;
	if (!ok) {
		r->failed[host] = true;
		char *msg = xasprintf("step %d failed: %s", step, error ? error : "error");
		state_log_add(r->st, r->id, vm, msg, &d);
		free(msg);
	}
	pthread_mutex_unlock(&r->lock);
	diag_release(&d);
}

/* ---- outputs: what the recipes fetched back ---- */

static void record_outputs_dir(struct state_store *st, const char *id, const char *dir, const char *rel,
			       struct diag *d)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		char *name = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		struct stat sb;
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			record_outputs_dir(st, id, path, name, d);
		} else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
			struct strbuf val = STRBUF_INIT;
			char *value = NULL;
			if (sb.st_size <= 4096 && strbuf_read_file(&val, path) == 0) {
				bool text = true;
				for (size_t i = 0; i < val.len; i++)
					if ((unsigned char)val.buf[i] < 9 && val.buf[i] != '\0')
						text = false;
				if (text && memchr(val.buf ? val.buf : "", '\0', val.len) == NULL)
					value = strbuf_detach(&val);
			}
			strbuf_release(&val);
			state_output_set(st, id, name, path, value, d);
			/* a fetched JSON object (the trainer's summary.json, an
			 * outputs.json): each scalar member becomes a named output */
			size_t nl = strlen(e->d_name);
			if (nl > 5 && strcmp(e->d_name + nl - 5, ".json") == 0 && sb.st_size <= 65536) {
				json_t *o = json_load_file(path, 0, NULL);
				const char *k;
				json_t *v;
				json_object_foreach(o, k, v) {
					if (json_is_object(v) || json_is_array(v))
						continue;
					char *sv = json_is_string(v) ? xstrdup(json_string_value(v))
								     : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
					state_output_set(st, id, k, NULL, sv, d);
					free(sv);
				}
				json_decref(o);
			}
			free(value);
		}
		free(path);
		free(name);
	}
	closedir(dh);
}

/* Records how the contextualization ended: steps never reported become
 * skipped (or failed when everything stopped, prc < 0), each host still
 * 'running' becomes configured or unconfigured, outputs are collected. */
static int record_outcome(struct state_store *st, const char *id, const int *host_num, bool *failed,
			  size_t nh, int prc, const char *outdir, struct diag *d)
{
	if (state_begin(st, d) < 0)
		return -1;
	struct state_step *steps = NULL;
	size_t nst = 0;
	state_step_list(st, id, &steps, &nst, d);
	for (size_t i = 0; i < nst; i++)
		if (steps[i].status == STEP_PENDING || steps[i].status == STEP_RUNNING) {
			steps[i].status = prc < 0 ? STEP_FAILED : STEP_SKIPPED;
			state_step_set(st, id, &steps[i], d);
			for (size_t h = 0; h < nh; h++)
				if (host_num[h] == steps[i].vm && prc < 0)
					failed[h] = true;
		}
	state_step_list_free(steps, nst);
	for (size_t h = 0; h < nh; h++) {
		bool bad = failed[h] || prc < 0;
		struct state_vm cur;
		if (state_vm_get(st, id, host_num[h], &cur, d) == 0) {
			if (cur.state == VM_RUNNING) {
				cur.state = bad ? VM_UNCONFIGURED : VM_CONFIGURED;
				cur.ctxt = bad ? 0 : 1;
				state_vm_update(st, &cur, d);
			}
			state_vm_release(&cur);
		}
	}
	record_outputs_dir(st, id, outdir, "", d);
	state_log_add(st, id, -1, prc == 0 ? "Contextualization finished" : "Contextualization finished with errors", d);
	return state_commit(st, d);
}

bool deploy_in_list(const char *list, int num)
{
	if (!list || !*list)
		return true;
	for (const char *p = list; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end != p && v == num)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/* ---- the stages ---- */

/* One contextualization: what each stage finds and leaves for the next. */
struct ctxt {
	struct state_store *st;
	struct state_infra *in;
	const char *only;        /* comma list of VM numbers, or NULL: all */
	struct state_vm *vms;
	size_t n;
	struct radl_doc *doc;
	/* select_vms: the VMs that take part (schedule VM index k) */
	size_t *sel;             /* k -> index in vms */
	const char **systems;    /* k -> system name */
	int *nums;               /* k -> VM number */
	size_t ns;
	struct plan_schedule sched;
	bool *ctxt;              /* k -> the RADL contextualizes it */
	/* record_intent: the hosts the provisioner connects to */
	size_t *host_of;         /* k -> host index, or SIZE_MAX */
	struct prov_host *hosts;
	int *host_num;           /* host index -> VM number */
	size_t nh;
	json_t *specs;           /* every VM's spec */
	json_t *sel_specs;       /* k -> spec */
	char *key;
	/* build_job: the provisioner's input */
	struct prov_job job;
	struct prov_configure *confs;
	size_t nconf;
	json_t *host_specs;
	char *etc_hosts;
	char *roles_path;
	char *idir;
	char *outdir;
	char *recdir;
	char **roles;
	struct prov_recipes recipes;
	struct run r;
	bool have_run;           /* r.lock initialised */
};

/* The VMs that take part (alive, and in c->only when given), the RADL,
 * and the schedule of their configures; its notes go to the log. */
static int select_vms(struct ctxt *c, struct diag *d)
{
	if (state_vm_list(c->st, c->in->id, &c->vms, &c->n, d) < 0)
		return -1;
	c->doc = deploy_radl(c->in, d);
	if (!c->doc)
		return -1;
	c->sel = xcalloc(c->n + 1, sizeof(*c->sel));
	c->systems = xcalloc(c->n + 1, sizeof(*c->systems));
	c->nums = xcalloc(c->n + 1, sizeof(*c->nums));
	for (size_t i = 0; i < c->n; i++) {
		enum vm_state s = c->vms[i].state;
		if ((s == VM_RUNNING || s == VM_CONFIGURED || s == VM_UNCONFIGURED) &&
		    deploy_in_list(c->only, c->vms[i].num)) {
			c->sel[c->ns] = i;
			c->systems[c->ns] = c->vms[i].system;
			c->nums[c->ns] = c->vms[i].num;
			c->ns++;
		}
	}
	c->ctxt = xcalloc(c->ns + 1, sizeof(*c->ctxt));
	plan_schedule_build(c->doc, c->systems, c->ns, &c->sched, c->ctxt, d);
	for (size_t i = 0; i < c->sched.nnotes; i++)
		state_log_add(c->st, c->in->id, -1, c->sched.notes[i], d);
	return 0;
}

/* In one transaction, before anything runs: the old step rows go, each VM
 * not contextualized (disabled, or on a cloud without SSH) becomes
 * configured, each other one 'running' with its contextualization
 * unfinished (what deploy_recover reads after a crash) and becomes a
 * host; every (step, VM, configure) of a host gets a 'pending' row. */
static int record_intent(struct ctxt *c, struct diag *d)
{
	struct state_store *st = c->st;
	const char *id = c->in->id;
	c->host_of = xcalloc(c->ns + 1, sizeof(*c->host_of));
	c->hosts = xcalloc(c->ns + 1, sizeof(*c->hosts));
	c->host_num = xcalloc(c->ns + 1, sizeof(*c->host_num));
	c->specs = deploy_vm_specs(c->vms, c->n);
	c->sel_specs = json_array();
	for (size_t k = 0; k < c->ns; k++)
		json_array_append(c->sel_specs, json_array_get(c->specs, c->sel[k]));
	c->key = deploy_key_path(state_home(st), id);
	if (state_begin(st, d) < 0)
		return -1;
	state_step_clear(st, id, d);
	for (size_t k = 0; k < c->ns; k++) {
		struct state_vm *vm = &c->vms[c->sel[k]];
		const struct cloud_driver *drv = cloud_driver_find(vm->cloud);
		c->host_of[k] = (size_t)-1;
		if (!c->ctxt[k] || c->sched.disabled) {
			vm->state = VM_CONFIGURED;
			vm->ctxt = 1;
			state_vm_update(st, vm, d);
			state_log_add(st, id, vm->num, c->sched.disabled
				      ? "Contextualization disabled by the RADL template."
				      : "Contextualization disabled", d);
			continue;
		}
		if (!drv || !(drv->caps & CLOUD_CAP_SSH)) {
			vm->state = VM_CONFIGURED;
			vm->ctxt = 1;
			state_vm_update(st, vm, d);
			char *msg = xasprintf("Contextualization skipped: cloud '%s' has no SSH access", vm->cloud);
			state_log_add(st, id, vm->num, msg, d);
			free(msg);
			continue;
		}
		vm->state = VM_RUNNING;
		vm->ctxt = -1;
		state_vm_update(st, vm, d);
		c->host_of[k] = c->nh;
		c->host_num[c->nh] = vm->num;
		struct prov_host *h = &c->hosts[c->nh];
		json_t *sp = json_array_get(c->sel_specs, k);
		h->name = json_string_value(json_object_get(sp, "fqdn"));
		h->vm_num = vm->num;
		h->system = vm->system;
		h->address = vm->public_ip ? vm->public_ip : vm->private_ip;
		h->port = vm->ssh_port;
		h->user = vm->user ? vm->user : json_string_value(json_object_get(sp, "user"));
		h->key_path = c->key;
		h->hostkey = vm->hostkey;
		h->vars = plan_host_vars(c->sel_specs, k, id);
		c->nh++;
	}
	/* the step rows, before anything runs */
	for (size_t s = 0; s < c->sched.nsteps; s++)
		for (size_t i = 0; i < c->sched.steps[s].nitems; i++) {
			const struct plan_item *it = &c->sched.steps[s].items[i];
			if (c->host_of[it->vm] == (size_t)-1)
				continue;
			struct state_step row = { .step = c->sched.steps[s].step, .vm = c->nums[it->vm],
						  .configure = (char *)(uintptr_t)it->conf->id, .status = STEP_PENDING };
			state_step_set(st, id, &row, d);
		}
	return state_commit(st, d);
}

/* The provisioner's job: the hosts' groups and variables, the steps with
 * the recipes loaded as 'imc create' checked them (recipes.c), the role
 * path, the output directory, IM's NAME.yml of every configure, and the
 * callbacks that write each step's outcome to the store. */
static void build_job(struct ctxt *c, struct diag *d)
{
	struct state_store *st = c->st;
	struct state_infra *in = c->in;
	struct prov_job *job = &c->job;
	c->confs = recipes_configures(c->doc, in->radl_path ? in->radl_path : "infrastructure.radl", &c->nconf);
	job->infra_id = in->id;
	job->hosts = c->hosts;
	job->nhosts = c->nh;
	c->host_specs = json_array();
	for (size_t k = 0; k < c->ns; k++)
		if (c->host_of[k] != (size_t)-1)
			json_array_append(c->host_specs, json_array_get(c->sel_specs, k));
	job->groups = plan_groups(c->host_specs);
	job->vars = plan_infra_vars(c->sel_specs, plan_master(c->sel_specs), in->id, c->doc);
	/* the job secret's path (its content is never put in a variable); an
	 * infrastructure created before there were secrets has none */
	char *secret = deploy_secret_path(state_home(st), in->id);
	if (access(secret, R_OK) == 0) {
		deploy_secret_register(secret);
		json_object_set_new(job->vars, "IMC_JOB_SECRET", json_string(secret));
	}
	free(secret);
	/* the path of the infrastructure's SSH key, every VM's login: a job
	 * that starts its processes over SSH itself (mpirun) copies it to
	 * the node that launches them */
	if (c->key && access(c->key, R_OK) == 0)
		json_object_set_new(job->vars, "IMC_SSH_KEY", json_string(c->key));
	job->extra_vars = in->extra_vars ? json_loads(in->extra_vars, 0, NULL) : json_object();
	c->etc_hosts = plan_etc_hosts(c->specs);
	job->etc_hosts = c->etc_hosts;
	job->steps = xcalloc(c->sched.nsteps + 1, sizeof(*job->steps));
	for (size_t s = 0; s < c->sched.nsteps; s++) {
		struct prov_step *ps = &job->steps[job->nsteps];
		ps->step = c->sched.steps[s].step;
		ps->items = xcalloc(c->sched.steps[s].nitems + 1, sizeof(*ps->items));
		for (size_t i = 0; i < c->sched.steps[s].nitems; i++) {
			const struct plan_item *it = &c->sched.steps[s].items[i];
			if (c->host_of[it->vm] == (size_t)-1)
				continue;
			const struct prov_configure *conf = recipes_find(c->confs, c->nconf, it->conf->id);
			if (!conf)
				continue;
			ps->items[ps->nitems].host = c->host_of[it->vm];
			ps->items[ps->nitems].conf = conf;
			ps->items[ps->nitems].tool = it->tool;
			ps->nitems++;
		}
		if (ps->nitems)
			job->nsteps++;
		else
			free(ps->items);
	}
	job->max_time = c->sched.max_time;
	c->roles_path = recipes_roles_path(in->radl_path);
	job->roles_path = c->roles_path;
	c->idir = state_infra_dir(st, in->id, d);
	c->outdir = xasprintf("%s/outputs", c->idir ? c->idir : state_home(st));
	mkdir(c->outdir, 0700);
	job->output_dir = c->outdir;
	/* IM's NAME.yml of every configure, in the recipes' own directory */
	c->recdir = xasprintf("%s/recipes", c->idir ? c->idir : state_home(st));
	mkdir(c->recdir, 0700);
	size_t nroles = 0;
	c->roles = recipes_runtime_roles(c->doc, &nroles);
	c->recipes = (struct prov_recipes){ .dir = c->recdir, .confs = c->confs, .nconfs = c->nconf,
					    .runtime_roles = c->roles, .nruntime_roles = nroles };
	struct diag wd = DIAG_INIT;
	if (provision_recipes_write(&c->recipes, &wd) < 0)
		state_log_add(st, in->id, -1, diag_first_message(&wd), d);
	diag_release(&wd);
	job->recipes = &c->recipes;
	c->r = (struct run){ .st = st, .id = in->id, .vm_num = c->host_num, .nhosts = c->nh, .sched = &c->sched,
			     .host_of = c->host_of, .sched_num = c->nums };
	pthread_mutex_init(&c->r.lock, NULL);
	c->have_run = true;
	c->r.failed = xcalloc(c->nh + 1, sizeof(*c->r.failed));
	c->r.last = xcalloc(c->nh + 1, sizeof(*c->r.last));
	double t0 = now();
	for (size_t h = 0; h < c->nh; h++)
		c->r.last[h] = t0;
	job->on_log = cb_log;
	job->on_hostkey = cb_hostkey;
	job->on_step_done = cb_step;
	job->opaque = &c->r;
}

/* The provisioner runs in a child process of its own, so that a crash in
 * it (or in a recipe's module) is recorded as such by the worker instead
 * of taking the worker down. The child writes through its own connection
 * and records the outcome itself; it dies with the worker
 * (PR_SET_PDEATHSIG). Returns the child (-1 when fork failed) and its
 * wait status in *status. */
static pid_t run_provisioner(struct ctxt *c, int *status, struct diag *d)
{
	struct state_store *st = c->st;
	const char *id = c->in->id;
	*status = 0;
	pid_t child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(3);
		struct diag cd = DIAG_INIT;
		c->r.st = state_open(state_home(st), &cd);
		if (!c->r.st)
			_exit(3);
		/* relative 'fetch' destinations land in the output directory */
		if (chdir(c->outdir) < 0)
			log_warn(MOD, "cannot enter '%s'", c->outdir);
		struct diag pd = DIAG_INIT;
		int prc = provision_run(&c->job, &pd);
		pthread_mutex_lock(&c->r.lock);
		if (prc < 0) {
			char *msg = xasprintf("Contextualization stopped: %s", diag_first_message(&pd));
			state_log_add(c->r.st, id, -1, msg, &cd);
			free(msg);
		}
		int orc = record_outcome(c->r.st, id, c->host_num, c->r.failed, c->nh, prc, c->outdir, &cd);
		pthread_mutex_unlock(&c->r.lock);
		_exit(orc < 0 ? 3 : 0);
	}
	if (child < 0) {
		state_log_add(st, id, -1, "Contextualization not run: cannot fork", d);
		return child;
	}
	prov_child = child;
	/* contextualize MAX: the provisioner enforces it; should it not
	 * return, the worker stops it a little later (IM's wording) */
	double deadline = c->sched.max_time > 0 ? now() + c->sched.max_time + 30 : 0;
	bool expired = false;
	for (;;) {
		pid_t w = waitpid(child, status, deadline > 0 ? WNOHANG : 0);
		if (w == child || (w < 0 && errno != EINTR))
			break;
		if (w == 0 && now() >= deadline && !expired) {
			expired = true;
			kill(child, SIGKILL);
			state_log_add(st, id, -1, "ERROR: Max contextualization time passed.", d);
		}
		if (w == 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	prov_child = 0;
	return child;
}

/* When the provisioner's child did not record the outcome (it could not
 * start, crashed, was killed or failed), the worker does: every host
 * failed. */
static int record_failure(struct ctxt *c, pid_t child, int status, struct diag *d)
{
	char *msg = child > 0 && WIFSIGNALED(status)
		? xasprintf("Contextualization stopped: the provisioner %s (signal %d)",
			    WTERMSIG(status) == SIGKILL ? "was stopped" : "crashed", WTERMSIG(status))
		: xstrdup("Contextualization stopped: the provisioner failed");
	state_log_add(c->st, c->in->id, -1, msg, d);
	free(msg);
	for (size_t h = 0; h < c->nh; h++)
		c->r.failed[h] = true;
	return record_outcome(c->st, c->in->id, c->host_num, c->r.failed, c->nh, -1, c->outdir, d);
}

static void ctxt_release(struct ctxt *c)
{
	if (c->have_run) {
		pthread_mutex_unlock(&c->r.lock);
		pthread_mutex_destroy(&c->r.lock);
	}
	free(c->r.failed);
	free(c->r.last);
	for (size_t s = 0; s < c->job.nsteps; s++)
		free(c->job.steps[s].items);
	free(c->job.steps);
	free(c->confs);
	json_decref(c->job.groups);
	json_decref(c->job.vars);
	json_decref(c->job.extra_vars);
	json_decref(c->host_specs);
	free(c->etc_hosts);
	free(c->roles_path);
	free(c->idir);
	free(c->outdir);
	free(c->recdir);
	recipes_roles_free(c->roles);
	for (size_t h = 0; h < c->nh; h++)
		json_decref(c->hosts[h].vars);
	free(c->hosts);
	free(c->host_num);
	free(c->host_of);
	free(c->key);
	json_decref(c->specs);
	json_decref(c->sel_specs);
	plan_schedule_release(&c->sched);
	free(c->ctxt);
	free(c->sel);
	free(c->systems);
	free(c->nums);
	radl_doc_free(c->doc);
	state_vm_list_free(c->vms, c->n);
}

/* The roles the RADL declares in disk.0.applications, installed before
 * the first step into the infrastructure's roles/, which the recipes then
 * search first (IM installs them on the master before it runs them).
 * -1 when one cannot be: the log says which, and no recipe runs. */
static int install_roles(struct ctxt *c, struct diag *d)
{
	size_t nroles = 0;
	char **roles = recipes_runtime_roles(c->doc, &nroles);
	recipes_roles_free(roles);
	if (!nroles || !c->idir)
		return 0;
	char *dir = xasprintf("%s/roles", c->idir);
	struct diag rd = DIAG_INIT;
	int rc = recipes_roles_install(c->doc, dir, &rd);
	if (rc < 0) {
		for (size_t i = 0; i < rd.n; i++)
			if (rd.items[i].level == DIAG_ERROR) {
				char *msg = xasprintf("Contextualization stopped: %s", rd.items[i].msg);
				state_log_add(c->st, c->in->id, -1, msg, d);
				free(msg);
			}
	} else {
		char *rp = xasprintf("%s:%s", dir, c->roles_path);
		free(c->roles_path);
		c->roles_path = rp;
		c->job.roles_path = rp;
	}
	diag_release(&rd);
	free(dir);
	return rc;
}

int deploy_contextualize(struct state_store *st, struct state_infra *in, const char *only, struct diag *d)
{
	struct ctxt c = { .st = st, .in = in, .only = only };
	int rc = 0;
	if (select_vms(&c, d) < 0) {
		rc = -1;
		goto out;
	}
	/* a store error recording the intent is in d; nothing ran, and the
	 * worker goes on to its final write */
	if (record_intent(&c, d) < 0 || c.nh == 0)
		goto out;
	deploy_pause_at("configure");
	build_job(&c, d);
	state_log_add(st, in->id, -1, "Contextualization started", d);
	if (install_roles(&c, d) < 0) {
		for (size_t h = 0; h < c.nh; h++)
			c.r.failed[h] = true;
		if (record_outcome(st, in->id, c.host_num, c.r.failed, c.nh, -1, c.outdir, d) < 0)
			rc = -1;
		goto out;
	}
	int status;
	pid_t child = run_provisioner(&c, &status, d);
	if ((child < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) && record_failure(&c, child, status, d) < 0)
		rc = -1;
out:
	ctxt_release(&c);
	return rc;
}
