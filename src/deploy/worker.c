/* worker.c: the deployment worker (see worker.h). One process per
 * infrastructure at a time, detached from the terminal (setsid, double
 * fork), logging to $IMC_HOME/infra/ID/worker.log. It writes the intent of
 * each cloud call before making it and the result right after, so that a
 * kill at any point leaves a store from which getstate tells the truth
 * (infra_recover) and destroy finds everything. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cloud/cloud.h"
#include "cmd/infra.h"
#include "cmd/recipes.h"
#include "cmd/worker.h"
#include "plan/plan.h"
#include "provision/provision.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "worker"

/* The provisioning child, killed with the worker when destroy cancels it. */
static volatile pid_t prov_child;

static void on_term(int sig)
{
	pid_t c = prov_child;
	if (c > 0)
		kill(c, SIGKILL);
	_exit(128 + sig);
}

static void pause_at(const char *point)
{
	const char *want = getenv("IMC_TEST_PAUSE_AT");
	const char *dir = getenv("IMC_TEST_PAUSE_DIR");
	if (!want || !dir || strcmp(want, point) != 0)
		return;
	char *reached = xasprintf("%s/reached", dir), *resume = xasprintf("%s/resume", dir);
	int fd = open(reached, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		char buf[96];
		int n = snprintf(buf, sizeof(buf), "%s %d\n", point, (int)getpid());
		if (write(fd, buf, (size_t)n) < 0)
			log_warn(MOD, "test hook: cannot write '%s'", reached);
		close(fd);
	}
	fd = open(resume, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char c;
		while (read(fd, &c, 1) > 0)
			;
		close(fd);
	}
	free(reached);
	free(resume);
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

/* ---- contextualization ---- */

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

static bool in_list(const char *list, int num)
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

static int contextualize(struct state_store *st, struct state_infra *in, const char *only, struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	int rc = 0;
	struct radl_doc *doc = NULL;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0)
		return -1;
	doc = infra_radl(in, d);
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
		if ((s == VM_RUNNING || s == VM_CONFIGURED || s == VM_UNCONFIGURED) && in_list(only, vms[i].num)) {
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
	json_t *specs = infra_vm_specs(vms, n);
	json_t *sel_specs = json_array();
	for (size_t k = 0; k < ns; k++)
		json_array_append(sel_specs, json_array_get(specs, sel[k]));
	char *key = infra_key_path(state_home(st), in->id);
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

	pause_at("configure");
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

/* ---- creation ---- */

static void log_diag(struct state_store *st, const char *id, int vm, struct diag *ld, struct diag *d)
{
	for (size_t i = 0; i < ld->n; i++)
		state_log_add(st, id, vm, ld->items[i].msg, d);
}

static int create_networks(struct state_store *st, struct state_infra *in, const struct auth_file *af,
			   struct infra_sessions *ss, struct diag *d)
{
	struct state_net *nets = NULL;
	size_t nn = 0;
	if (state_net_list(st, in->id, &nets, &nn, d) < 0)
		return -1;
	for (size_t i = 0; i < nn; i++) {
		struct state_net *net = &nets[i];
		if (net->cloud_id)
			continue;
		const char *err = NULL;
		struct cloud_session *s = infra_session(ss, st, in, net->cloud, NULL, af, &err, NULL);
		if (!s) {
			char *msg = xasprintf("network '%s' not created: %s", net->name, err ? err : "no cloud");
			state_log_add(st, in->id, -1, msg, d);
			free(msg);
			continue;
		}
		if (!s->drv->net_create || !(s->drv->caps & CLOUD_CAP_NETWORKS))
			continue;
		struct cloud_net cn = { .name = net->name, .public = net->public, .outports = net->outports,
					.cidr = net->cidr };
		struct diag ld = DIAG_INIT;
		if (s->drv->net_create(s, &cn, &ld) < 0) {
			char *msg = xasprintf("network '%s' not created: %s", net->name, diag_first_message(&ld));
			state_log_add(st, in->id, -1, msg, d);
			free(msg);
		} else {
			free(net->cloud_id);
			net->cloud_id = cn.cloud_id ? xstrdup(cn.cloud_id) : xstrdup(net->name);
			if (cn.cidr_assigned) {
				free(net->cidr);
				net->cidr = xstrdup(cn.cidr_assigned);
			}
			state_net_upsert(st, net, d);
		}
		cloud_net_release(&cn);
		diag_release(&ld);
	}
	state_net_list_free(nets, nn);
	return 0;
}

static int create_vms(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		      struct infra_sessions *ss, struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0)
		return -1;
	bool *done = xcalloc(n + 1, sizeof(*done));
	for (size_t i = 0; i < n; i++) {
		if (done[i] || vms[i].state != VM_PENDING || vms[i].cloud_id) {
			done[i] = true;
			continue;
		}
		/* one batch per (cloud, credential), so backends can parallelise */
		size_t *batch = xcalloc(n + 1, sizeof(*batch));
		size_t nb = 0;
		for (size_t k = i; k < n; k++)
			if (!done[k] && vms[k].state == VM_PENDING && !vms[k].cloud_id &&
			    strcmp(vms[k].cloud, vms[i].cloud) == 0 &&
			    strcmp(vms[k].cloud_cred ? vms[k].cloud_cred : "", vms[i].cloud_cred ? vms[i].cloud_cred : "") == 0) {
				batch[nb++] = k;
				done[k] = true;
			}
		const char *err = NULL;
		struct cloud_session *s = infra_session(ss, st, in, vms[i].cloud, vms[i].cloud_cred, af, &err, NULL);
		struct cloud_vm *cvs = xcalloc(nb + 1, sizeof(*cvs));
		json_t **specs = xcalloc(nb + 1, sizeof(*specs));
		for (size_t b = 0; b < nb; b++)
			infra_cloud_vm(&vms[batch[b]], &specs[b], &cvs[b]);
		struct diag ld = DIAG_INIT;
		int rc = -1;
		if (s && s->drv->vm_create) {
			pause_at("vms-intent");
			rc = s->drv->vm_create(s, cvs, nb, &ld);
		} else if (s)
			diag_error(&ld, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' cannot create VMs in this build",
				   vms[i].cloud);
		else
			diag_error(&ld, IMC_EXIT_UNAVAILABLE, NULL, "%s", err ? err : "cloud unavailable");
		if (state_begin(st, d) < 0) {
			diag_release(&ld);
			free(batch);
			free(cvs);
			free(specs);
			break;
		}
		for (size_t b = 0; b < nb; b++) {
			struct state_vm *vm = &vms[batch[b]];
			if (rc < 0 || cvs[b].state == VM_PENDING) {
				if (rc < 0 || !cvs[b].cloud_id)
					cvs[b].state = VM_FAILED;
			}
			infra_vm_take(vm, &cvs[b]);
			if (vm->state == VM_FAILED) {
				log_diag(st, in->id, vm->num, &ld, d);
				if (!ld.n)
					state_log_add(st, in->id, vm->num, "the cloud could not create this VM", d);
			} else {
				char *msg = xasprintf("VM created on cloud '%s' (id %s)", vm->cloud,
						      vm->cloud_id ? vm->cloud_id : "?");
				state_log_add(st, in->id, vm->num, msg, d);
				free(msg);
				if (cvs[b].note)
					state_log_add(st, in->id, vm->num, cvs[b].note, d);
			}
			state_vm_update(st, vm, d);
			infra_cloud_vm_release(&cvs[b]);
			json_decref(specs[b]);
		}
		state_commit(st, d);
		diag_release(&ld);
		free(batch);
		free(cvs);
		free(specs);
	}
	free(done);
	state_vm_list_free(vms, n);
	return 0;
}

static int worker_main(const char *home, const char *id, int ready_fd, enum worker_task task, const char *only)
{
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	struct state_infra in = { 0 };
	struct auth_file *af = NULL;
	struct infra_sessions ss = { 0 };
	int rc = 1;
	if (!st)
		goto out;
	if (state_infra_get(st, id, &in, &d) != 0)
		goto out;
	if (state_infra_set_worker(st, id, getpid(), state_proc_start_time(getpid()), &d) < 0 ||
	    state_infra_set_phase(st, id, task == WORKER_DEPLOY ? PHASE_CREATING : PHASE_CONFIGURING, &d) < 0)
		goto out;
	in.phase = task == WORKER_DEPLOY ? PHASE_CREATING : PHASE_CONFIGURING;
	if (write(ready_fd, "1", 1) < 0)
		log_warn(MOD, "cannot tell the parent the worker started");
	close(ready_fd);
	ready_fd = -1;
	log_info(MOD, "worker %d for infrastructure %s", (int)getpid(), id);
	pause_at("started");
	if (in.auth_path) {
		af = auth_file_load(in.auth_path, &d);
		if (!af) {
			char *msg = xasprintf("cannot read the auth file: %s", diag_first_message(&d));
			state_log_add(st, id, -1, msg, &d);
			free(msg);
		}
	}
	if (task == WORKER_DEPLOY || task == WORKER_CREATE) {
		create_networks(st, &in, af, &ss, &d);
		pause_at("networks");
		create_vms(st, &in, af, &ss, &d);
		pause_at("vms");
		state_infra_set_phase(st, id, PHASE_CONFIGURING, &d);
	}
	struct diag cd = DIAG_INIT;
	if (task == WORKER_CREATE) {
		/* IM's context=0: the new VMs stay 'running', nothing is run */
		state_log_add(st, id, -1, "VMs added without contextualization", &d);
	} else if (contextualize(st, &in, only, &cd) < 0) {
		char *msg = xasprintf("contextualization not run: %s", diag_first_message(&cd));
		state_log_add(st, id, -1, msg, &d);
		free(msg);
		/* nothing ran: running VMs stay unconfigured */
		struct state_vm *vms = NULL;
		size_t n = 0;
		state_vm_list(st, id, &vms, &n, &d);
		for (size_t i = 0; i < n; i++)
			if (vms[i].state == VM_RUNNING && in_list(only, vms[i].num)) {
				vms[i].state = VM_UNCONFIGURED;
				vms[i].ctxt = 0;
				state_vm_update(st, &vms[i], &d);
			}
		state_vm_list_free(vms, n);
	}
	diag_release(&cd);
	pause_at("done");
	if (state_begin(st, &d) == 0) {
		state_infra_set_phase(st, id, PHASE_DONE, &d);
		state_infra_set_worker(st, id, 0, 0, &d);
		state_commit(st, &d);
	}
	rc = 0;
out:
	if (diag_has_errors(&d))
		diag_print(&d, stderr);
	if (ready_fd >= 0)
		close(ready_fd);
	infra_sessions_free(&ss);
	auth_file_free(af);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}

/* The worker keeps nothing of its parent but stdio and the lock: no pipe
 * of a build's job server, no terminal, nothing a VM daemon could inherit. */
static void close_inherited(int keep1, int keep2)
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return;
	int *fds = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd <= 2 || fd == keep1 || fd == keep2 || fd == dirfd(dir))
			continue;
		fds = xreallocarray(fds, n + 1, sizeof(*fds));
		fds[n++] = (int)fd;
	}
	closedir(dir);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

int worker_spawn(struct imc_ctx *ctx, struct state_store **st, const char *id, int lock_fd,
		 enum worker_task task, const char *vms, struct diag *d)
{
	(void)ctx;
	char *home = xstrdup(state_home(*st));
	char *dir = state_infra_dir(*st, id, d);
	if (!dir) {
		free(home);
		return -1;
	}
	char *logpath = xasprintf("%s/worker.log", dir);
	free(dir);
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "pipe: %s", strerror(errno));
		free(home);
		free(logpath);
		return -1;
	}
	state_close(*st);
	*st = NULL;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		*st = state_open(home, d);
		free(home);
		free(logpath);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		setsid();
		pid_t pid2 = fork();
		if (pid2 != 0) {
			free(home);
			free(logpath);
			_exit(pid2 < 0 ? 1 : 0);
		}
		/* the worker: keeps lock_fd (the infrastructure's lock) open */
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		close_inherited(lock_fd, p[1]);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, on_term);
		signal(SIGPIPE, SIG_IGN);
		int wrc = worker_main(home, id, p[1], task, vms);
		free(home);
		free(logpath);
		_exit(wrc);
	}
	close(p[1]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char c;
	ssize_t r;
	while ((r = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	*st = state_open(home, d);
	free(home);
	free(logpath);
	if (r != 1) {
		if (diag_has_errors(d) || !*st)
			return -1;
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "the deployment worker did not start (see %s/infra/%s/worker.log)",
			   state_home(*st), id);
		return -1;
	}
	return *st ? 0 : -1;
}

static volatile sig_atomic_t follow_stop;

static void on_interrupt(int sig)
{
	(void)sig;
	follow_stop = 1;
}

void worker_follow_catch_interrupt(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* The live status line on a terminal: counts of VMs per state. */
static void status_line(const struct state_vm *vms, size_t n, double elapsed)
{
	int count[VM_DELETING + 1] = { 0 };
	for (size_t i = 0; i < n; i++)
		if ((unsigned)vms[i].state <= VM_DELETING)
			count[vms[i].state]++;
	printf("\r\033[K%zu VM%s:", n, n == 1 ? "" : "s");
	const char *sep = " ";
	for (int s = 0; s <= VM_DELETING; s++)
		if (count[s]) {
			printf("%s%d %s", sep, count[s], vm_state_name((enum vm_state)s));
			sep = ", ";
		}
	printf(" (%.0f s)", elapsed);
	fflush(stdout);
}

int worker_follow(struct state_store *st, const char *id, double max_seconds, bool verbose,
		  enum vm_state *final, struct diag *d)
{
	bool live = verbose && isatty(STDOUT_FILENO);
	double t0 = now();
	int *seen_num = NULL;
	enum vm_state *seen = NULL;
	size_t nseen = 0;
	int rc = -1;
	for (;;) {
		struct state_infra in;
		int g = state_infra_get(st, id, &in, d);
		if (g != 0) {
			if (g > 0)
				diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' disappeared", id);
			break;
		}
		if (in.deleted) {
			*final = VM_OFF;
			state_infra_release(&in);
			rc = 0;
			break;
		}
		if (infra_recover(st, &in, d) < 0) {
			state_infra_release(&in);
			break;
		}
		struct state_vm *vms = NULL;
		size_t n = 0;
		if (state_vm_list(st, id, &vms, &n, d) < 0) {
			state_infra_release(&in);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			while (k < nseen && seen_num[k] != vms[i].num)
				k++;
			if (k == nseen) {
				seen_num = xreallocarray(seen_num, nseen + 1, sizeof(*seen_num));
				seen = xreallocarray(seen, nseen + 1, sizeof(*seen));
				seen_num[nseen] = vms[i].num;
				seen[nseen] = (enum vm_state)-1;
				nseen++;
			}
			if (seen[k] != vms[i].state) {
				if (verbose) {
					if (live)
						fputs("\r\033[K", stdout);
					printf("VM %d (%s): %s\n", vms[i].num, vms[i].system, vm_state_name(vms[i].state));
					fflush(stdout);
				}
				seen[k] = vms[i].state;
			}
		}
		bool working = in.phase == PHASE_NEW || in.phase == PHASE_CREATING ||
			       in.phase == PHASE_CONFIGURING || in.phase == PHASE_DESTROYING;
		enum vm_state s = infra_state(&in, vms, n);
		if (live && working)
			status_line(vms, n, now() - t0);
		state_vm_list_free(vms, n);
		state_infra_release(&in);
		if (follow_stop) {
			*final = s;
			rc = 2;
			break;
		}
		if (!working) {
			*final = s;
			rc = 0;
			break;
		}
		if (max_seconds > 0 && now() - t0 >= max_seconds) {
			*final = s;
			rc = 1;
			break;
		}
		/* following a separate process: poll the store */
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (live) {
		fputs("\r\033[K", stdout);
		fflush(stdout);
	}
	free(seen_num);
	free(seen);
	return rc;
}
