/* contextualize.c: the deployment worker's contextualization (see
 * worker.h): the VMs that take part, the schedule of their configures, the
 * intent recorded before anything runs, the provisioner run in a child
 * process within the RADL's time limit, and the outcome recorded. */
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

void worker_kill_provisioner(void)
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

bool worker_in_list(const char *list, int num)
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

int worker_contextualize(struct state_store *st, struct state_infra *in, const char *only, struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	int rc = 0;
	struct radl_doc *doc = NULL;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0)
		return -1;
	doc = deploy_radl(in, d);
	if (!doc) {
		state_vm_list_free(vms, n);
		return -1;
	}
	/* the VMs that take part: alive, and in the VM list when one was given */
	size_t *sel = xcalloc(n + 1, sizeof(*sel));
	const char **systems = xcalloc(n + 1, sizeof(*systems));
	int *nums = xcalloc(n + 1, sizeof(*nums));
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		enum vm_state s = vms[i].state;
		if ((s == VM_RUNNING || s == VM_CONFIGURED || s == VM_UNCONFIGURED) && worker_in_list(only, vms[i].num)) {
			sel[ns] = i;
			systems[ns] = vms[i].system;
			nums[ns] = vms[i].num;
			ns++;
		}
	}
	struct plan_schedule sched;
	bool *ctxt = xcalloc(ns + 1, sizeof(*ctxt));
	plan_schedule_build(doc, systems, ns, &sched, ctxt, d);
	for (size_t i = 0; i < sched.nnotes; i++)
		state_log_add(st, in->id, -1, sched.notes[i], d);

	/* hosts: contextualized VMs on clouds reachable over SSH */
	size_t *host_of = xcalloc(ns + 1, sizeof(*host_of));
	struct prov_host *hosts = xcalloc(ns + 1, sizeof(*hosts));
	int *host_num = xcalloc(ns + 1, sizeof(*host_num));
	size_t nh = 0;
	json_t *specs = deploy_vm_specs(vms, n);
	json_t *sel_specs = json_array();
	for (size_t k = 0; k < ns; k++)
		json_array_append(sel_specs, json_array_get(specs, sel[k]));
	char *key = deploy_key_path(state_home(st), in->id);
	if (state_begin(st, d) < 0)
		goto out;
	state_step_clear(st, in->id, d);
	for (size_t k = 0; k < ns; k++) {
		struct state_vm *vm = &vms[sel[k]];
		const struct cloud_driver *drv = cloud_driver_find(vm->cloud);
		host_of[k] = (size_t)-1;
		if (!ctxt[k] || sched.disabled) {
			vm->state = VM_CONFIGURED;
			vm->ctxt = 1;
			state_vm_update(st, vm, d);
			state_log_add(st, in->id, vm->num, sched.disabled
				      ? "Contextualization disabled by the RADL template."
				      : "Contextualization disabled", d);
			continue;
		}
		if (!drv || !(drv->caps & CLOUD_CAP_SSH)) {
			vm->state = VM_CONFIGURED;
			vm->ctxt = 1;
			state_vm_update(st, vm, d);
			char *msg = xasprintf("Contextualization skipped: cloud '%s' has no SSH access", vm->cloud);
			state_log_add(st, in->id, vm->num, msg, d);
			free(msg);
			continue;
		}
		vm->state = VM_RUNNING;
		vm->ctxt = -1;
		state_vm_update(st, vm, d);
		host_of[k] = nh;
		host_num[nh] = vm->num;
		struct prov_host *h = &hosts[nh];
		json_t *sp = json_array_get(sel_specs, k);
		h->name = json_string_value(json_object_get(sp, "fqdn"));
		h->vm_num = vm->num;
		h->system = vm->system;
		h->address = vm->public_ip ? vm->public_ip : vm->private_ip;
		h->port = vm->ssh_port;
		h->user = vm->user ? vm->user : json_string_value(json_object_get(sp, "user"));
		h->key_path = key;
		h->hostkey = vm->hostkey;
		h->vars = plan_host_vars(sel_specs, k, in->id);
		nh++;
	}
	/* the step rows, before anything runs */
	for (size_t s = 0; s < sched.nsteps; s++)
		for (size_t i = 0; i < sched.steps[s].nitems; i++) {
			const struct plan_item *it = &sched.steps[s].items[i];
			if (host_of[it->vm] == (size_t)-1)
				continue;
			struct state_step row = { .step = sched.steps[s].step, .vm = nums[it->vm],
						  .configure = (char *)(uintptr_t)it->conf->id, .status = STEP_PENDING };
			state_step_set(st, in->id, &row, d);
		}
	if (state_commit(st, d) < 0)
		goto out;
	if (nh == 0)
		goto out;

	worker_pause_at("configure");
	struct prov_job job = { 0 };
	/* the recipes, loaded as 'imc create' checked them (recipes.c) */
	size_t nconf = 0;
	struct prov_configure *confs = recipes_configures(doc, in->radl_path ? in->radl_path : "infrastructure.radl",
							  &nconf);
	job.infra_id = in->id;
	job.hosts = hosts;
	job.nhosts = nh;
	json_t *host_specs = json_array();
	for (size_t k = 0; k < ns; k++)
		if (host_of[k] != (size_t)-1)
			json_array_append(host_specs, json_array_get(sel_specs, k));
	job.groups = plan_groups(host_specs);
	job.vars = plan_infra_vars(sel_specs, plan_master(sel_specs), in->id, doc);
	job.extra_vars = in->extra_vars ? json_loads(in->extra_vars, 0, NULL) : json_object();
	char *etc_hosts = plan_etc_hosts(specs);
	job.etc_hosts = etc_hosts;
	job.steps = xcalloc(sched.nsteps + 1, sizeof(*job.steps));
	for (size_t s = 0; s < sched.nsteps; s++) {
		struct prov_step *ps = &job.steps[job.nsteps];
		ps->step = sched.steps[s].step;
		ps->items = xcalloc(sched.steps[s].nitems + 1, sizeof(*ps->items));
		for (size_t i = 0; i < sched.steps[s].nitems; i++) {
			const struct plan_item *it = &sched.steps[s].items[i];
			if (host_of[it->vm] == (size_t)-1)
				continue;
			const struct prov_configure *c = recipes_find(confs, nconf, it->conf->id);
			if (!c)
				continue;
			ps->items[ps->nitems].host = host_of[it->vm];
			ps->items[ps->nitems].conf = c;
			ps->items[ps->nitems].tool = it->tool;
			ps->nitems++;
		}
		if (ps->nitems)
			job.nsteps++;
		else
			free(ps->items);
	}
	job.max_time = sched.max_time;
	char *rp = recipes_roles_path(in->radl_path);
	job.roles_path = rp;
	char *idir = state_infra_dir(st, in->id, d);
	char *outdir = xasprintf("%s/outputs", idir ? idir : state_home(st));
	mkdir(outdir, 0700);
	job.output_dir = outdir;
	/* IM's NAME.yml of every configure, in the recipes' own directory */
	char *recdir = xasprintf("%s/recipes", idir ? idir : state_home(st));
	mkdir(recdir, 0700);
	size_t nroles = 0;
	char **roles = recipes_runtime_roles(doc, &nroles);
	struct prov_recipes recipes = { .dir = recdir, .confs = confs, .nconfs = nconf, .runtime_roles = roles,
					.nruntime_roles = nroles };
	struct diag wd = DIAG_INIT;
	if (provision_recipes_write(&recipes, &wd) < 0)
		state_log_add(st, in->id, -1, diag_first_message(&wd), d);
	diag_release(&wd);
	job.recipes = &recipes;
	struct run r = { .st = st, .id = in->id, .vm_num = host_num, .nhosts = nh, .sched = &sched,
			 .host_of = host_of, .sched_num = nums };
	pthread_mutex_init(&r.lock, NULL);
	r.failed = xcalloc(nh + 1, sizeof(*r.failed));
	r.last = xcalloc(nh + 1, sizeof(*r.last));
	double t0 = now();
	for (size_t h = 0; h < nh; h++)
		r.last[h] = t0;
	job.on_log = cb_log;
	job.on_hostkey = cb_hostkey;
	job.on_step_done = cb_step;
	job.opaque = &r;
	state_log_add(st, in->id, -1, "Contextualization started", d);
	/* The provisioner runs in a child process of its own, so that a crash in
	 * it (or in a recipe's module) is recorded as such by the worker instead
	 * of taking the worker down. The child writes through its own
	 * connection; it dies with the worker (PR_SET_PDEATHSIG). */
	pid_t child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(3);
		struct diag cd = DIAG_INIT;
		r.st = state_open(state_home(st), &cd);
		if (!r.st)
			_exit(3);
		/* relative 'fetch' destinations land in the output directory */
		if (chdir(outdir) < 0)
			log_warn(MOD, "cannot enter '%s'", outdir);
		struct diag pd = DIAG_INIT;
		int prc = provision_run(&job, &pd);
		pthread_mutex_lock(&r.lock);
		if (prc < 0) {
			char *msg = xasprintf("Contextualization stopped: %s", diag_first_message(&pd));
			state_log_add(r.st, in->id, -1, msg, &cd);
			free(msg);
		}
		int orc = record_outcome(r.st, in->id, host_num, r.failed, nh, prc, outdir, &cd);
		pthread_mutex_unlock(&r.lock);
		_exit(orc < 0 ? 3 : 0);
	}
	int status = 0;
	if (child < 0) {
		state_log_add(st, in->id, -1, "Contextualization not run: cannot fork", d);
		status = -1;
	} else {
		prov_child = child;
		/* contextualize MAX: the provisioner enforces it; should it not
		 * return, the worker stops it a little later (IM's wording) */
		double deadline = sched.max_time > 0 ? now() + sched.max_time + 30 : 0;
		bool expired = false;
		for (;;) {
			pid_t w = waitpid(child, &status, deadline > 0 ? WNOHANG : 0);
			if (w == child || (w < 0 && errno != EINTR))
				break;
			if (w == 0 && now() >= deadline && !expired) {
				expired = true;
				kill(child, SIGKILL);
				state_log_add(st, in->id, -1, "ERROR: Max contextualization time passed.", d);
			}
			if (w == 0) {
				struct timespec ts = { 0, 100 * 1000 * 1000 };
				nanosleep(&ts, NULL);
			}
		}
		prov_child = 0;
	}
	if (child < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *msg = child > 0 && WIFSIGNALED(status)
			? xasprintf("Contextualization stopped: the provisioner %s (signal %d)",
				    WTERMSIG(status) == SIGKILL ? "was stopped" : "crashed", WTERMSIG(status))
			: xstrdup("Contextualization stopped: the provisioner failed");
		state_log_add(st, in->id, -1, msg, d);
		free(msg);
		for (size_t h = 0; h < nh; h++)
			r.failed[h] = true;
		if (record_outcome(st, in->id, host_num, r.failed, nh, -1, outdir, d) < 0)
			rc = -1;
	}
	pthread_mutex_unlock(&r.lock);
	pthread_mutex_destroy(&r.lock);
	free(r.failed);
	free(r.last);
	for (size_t s = 0; s < job.nsteps; s++)
		free(job.steps[s].items);
	free(job.steps);
	free(confs);
	json_decref(job.groups);
	json_decref(job.vars);
	json_decref(job.extra_vars);
	json_decref(host_specs);
	free(etc_hosts);
	free(rp);
	free(idir);
	free(outdir);
	free(recdir);
	recipes_roles_free(roles);
out:
	for (size_t h = 0; h < nh; h++)
		json_decref(hosts[h].vars);
	free(hosts);
	free(host_num);
	free(host_of);
	free(key);
	json_decref(specs);
	json_decref(sel_specs);
	plan_schedule_release(&sched);
	free(ctxt);
	free(sel);
	free(systems);
	free(nums);
	radl_doc_free(doc);
	state_vm_list_free(vms, n);
	return rc;
}
