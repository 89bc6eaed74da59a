/* local.c: the 'local' cloud backend, the embedded default: each VM is a
 * real host on this machine (a network namespace with its own addresses,
 * hostname and /etc/hosts, running its own OpenSSH sshd that accepts the
 * infrastructure's key), reached over real SSH like any cloud VM; without
 * root or network namespaces, one sshd per VM on its own loopback address
 * (rootless mode, IMC_LOCAL_MODE=rootless forces it). This file holds the
 * driver operations and the table; the work is in local-net.c (bridges,
 * veths, namespaces), local-sshd.c (sshd), local-ready.c (readiness),
 * local-vmfile.c (what is remembered, /etc/hosts), local-proc.c (processes)
 * and local-cgroup.c (limits). Naming and crash safety: see local.h. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <jansson.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/mkdir.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define DEFAULT_NET "local-default"
#define ROOTLESS_PORT 2222

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static double ready_timeout(void)
{
	const char *e = getenv("IMC_LOCAL_READY_TIMEOUT");
	double v = e ? strtod(e, NULL) : 0;
	return v > 0 ? v : 60.0;
}

static enum local_mode pick_mode(struct diag *d, int *bad)
{
	const char *m = getenv("IMC_LOCAL_MODE");
	*bad = 0;
	if (m && !strcmp(m, "rootless"))
		return LOCAL_ROOTLESS;
	bool can = geteuid() == 0 && access("/proc/self/ns/net", F_OK) == 0 &&
		   access("/run", W_OK) == 0;
	if (m && !strcmp(m, "netns")) {
		if (!can) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "IMC_LOCAL_MODE=netns needs root and network namespaces");
			*bad = 1;
		}
		return LOCAL_NETNS;
	}
	if (m && *m && strcmp(m, "auto")) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "IMC_LOCAL_MODE must be 'netns', 'rootless' or 'auto', not '%s'", m);
		*bad = 1;
	}
	return can ? LOCAL_NETNS : LOCAL_ROOTLESS;
}

int local_ctx_init(struct local_ctx *c, struct cloud_session *s, struct diag *d)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	if (!s || !s->home || !s->infra_id) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "local cloud: session without home or id");
		return -1;
	}
	if (!local_valid_word(s->infra_id, 128) || local_tag(s->infra_id, c->tag, d) < 0) {
		if (!diag_has_errors(d))
			diag_error(d, IMC_EXIT_SOFTWARE, NULL, "invalid infrastructure id '%s'",
				   s->infra_id);
		return -1;
	}
	int bad;
	c->mode = pick_mode(d, &bad);
	if (bad)
		return -1;
	c->infra_dir = xasprintf("%s/infra/%s", s->home, s->infra_id);
	c->local_dir = xasprintf("%s/local", c->infra_dir);
	const char *rd = getenv("IMC_LOCAL_RUNDIR");
	if (rd && *rd == '/')
		c->run_dir = xstrdup(rd);
	else if (geteuid() == 0)
		c->run_dir = xstrdup("/run/imc-local");
	else if (getenv("XDG_RUNTIME_DIR") && *getenv("XDG_RUNTIME_DIR") == '/')
		c->run_dir = xasprintf("%s/imc-local", getenv("XDG_RUNTIME_DIR"));
	else
		c->run_dir = xasprintf("/tmp/imc-local-%u", (unsigned)geteuid());
	if (mkdir_p(c->local_dir, 0700, d) < 0 || mkdir_p(c->run_dir, 0700, d) < 0) {
		local_ctx_release(c);
		return -1;
	}
	struct stat st;
	if (stat(c->run_dir, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "run directory '%s' is not private to this user",
			   c->run_dir);
		local_ctx_release(c);
		return -1;
	}
	return 0;
}

void local_ctx_release(struct local_ctx *c)
{
	free(c->infra_dir);
	free(c->local_dir);
	free(c->run_dir);
	c->infra_dir = c->local_dir = c->run_dir = NULL;
}

/* The user imc logs in as: root (or the RADL's user, an alias of root in
 * the VM) in netns mode; the invoking user in rootless mode. */
static char *login_user(const struct local_ctx *c, const struct local_vm *lv)
{
	if (lv && lv->user)
		return xstrdup(lv->user);
	if (c->mode == LOCAL_NETNS || geteuid() == 0)
		return xstrdup("root");
	/* getpwuid_r: getpwuid's answer is shared by the threads of imc serve */
	struct passwd pwbuf, *pw = NULL;
	char buf[4096];
	if (getpwuid_r(geteuid(), &pwbuf, buf, sizeof(buf), &pw) != 0)
		pw = NULL;
	return xstrdup(pw ? pw->pw_name : "root");
}

static int infra_lock(const struct local_ctx *c, struct diag *d)
{
	char *p = xasprintf("%s/lock", c->local_dir);
	int fd = local_lock(p, d);
	free(p);
	return fd;
}

/* The remembered VM num, or a fresh record for it. */
static int load_vm(const struct local_ctx *c, int num, struct local_vm *lv, struct diag *d)
{
	char *dir = local_vm_dir(c, num);
	int r = local_vm_load(dir, lv);
	free(dir);
	if (r < 0)
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "local VM %d of '%s' does not exist", num,
			   c->s->infra_id);
	return r;
}

/* Copies what the backend knows into the caller's struct. */
static void fill_vm(const struct local_ctx *c, const struct local_vm *lv, struct cloud_vm *vm)
{
	free(vm->cloud_id);
	vm->cloud_id = local_netns_name(c->tag, lv->num);
	free(vm->public_ip);
	free(vm->private_ip);
	vm->public_ip = vm->private_ip = NULL;
	for (size_t k = 0; k < lv->nnics; k++) {
		const struct local_nic *n = &lv->nics[k];
		if (n->public && !vm->public_ip)
			vm->public_ip = xstrdup(n->ip);
		if (!n->public && !vm->private_ip)
			vm->private_ip = xstrdup(n->ip);
		for (size_t j = 0; j < vm->nnics; j++)
			if (vm->nics[j].index == n->index) {
				free(vm->nics[j].ip);
				vm->nics[j].ip = xstrdup(n->ip);
			}
	}
	vm->ssh_port = lv->mode == LOCAL_ROOTLESS ? lv->port : 0;
	json_t *o = json_object();
	char *user = login_user(c, lv);
	char *hk = local_host_pubkey(lv);
	json_object_set_new(o, "mode", json_string(lv->mode == LOCAL_NETNS ? "netns" : "rootless"));
	json_object_set_new(o, "user", json_string(user));
	if (lv->netns)
		json_object_set_new(o, "netns", json_string(lv->netns));
	if (hk)
		json_object_set_new(o, "host_key", json_string(hk));
	free(vm->data);
	vm->data = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	free(user);
	free(hk);
}

static void set_note(struct cloud_vm *vm, const char *note)
{
	free(vm->note);
	vm->note = note ? xstrdup(note) : NULL;
}

static int pick_port(const struct local_vm *lv)
{
	for (int port = ROOTLESS_PORT; port < ROOTLESS_PORT + 2000; port++) {
		bool ok = true;
		for (size_t k = 0; ok && k < lv->nnics; k++) {
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			int one = 1;
			struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
			inet_pton(AF_INET, lv->nics[k].ip, &sa.sin_addr);
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
			if (fd >= 0)
				close(fd);
		}
		if (ok)
			return port;
	}
	return -1;
}

/* Builds lv from the caller's VM and the networks; -1 with d set. */
static int plan_vm(struct local_ctx *c, const struct cloud_vm *vm, struct local_net *nets,
		   size_t nnets, struct local_vm *lv, struct diag *d)
{
	memset(lv, 0, sizeof(*lv));
	lv->num = vm->num;
	lv->mode = c->mode;
	lv->netns = local_netns_name(c->tag, vm->num);
	lv->dir = local_vm_dir(c, vm->num);
	const char *host = vm->hostname;
	if (!host && vm->nnics > 0)
		host = vm->nics[0].hostname;
	if (host && !local_valid_word(host, 63)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "VM %d: hostname '%s' is not a valid host name", vm->num, host);
		return -1;
	}
	if (vm->domain && !local_valid_word(vm->domain, 190)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "VM %d: domain '%s' is not a valid domain",
			   vm->num, vm->domain);
		return -1;
	}
	lv->hostname = host ? xstrdup(host) : xasprintf("vm%d", vm->num);
	lv->domain = vm->domain ? xstrdup(vm->domain) : NULL;
	lv->cpus = vm->cpus;
	lv->memory = vm->memory_bytes;
	if (c->mode == LOCAL_NETNS && vm->user && strcmp(vm->user, "root")) {
		if (!local_valid_word(vm->user, 32)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "VM %d: login user '%s' is not a valid user name",
				   vm->num, vm->user);
			return -1;
		}
		lv->user = xstrdup(vm->user);
	} else {
		lv->user = login_user(c, NULL);
	}
	size_t nn = vm->nnics ? vm->nnics : 1;
	lv->nics = xcalloc(nn, sizeof(*lv->nics));
	for (size_t k = 0; k < nn; k++) {
		const struct cloud_nic *cn = vm->nnics ? &vm->nics[k] : NULL;
		struct local_nic *n = &lv->nics[lv->nnics++];
		n->index = cn ? cn->index : 0;
		n->net = xstrdup(cn && cn->net ? cn->net : DEFAULT_NET);
		if (n->index < 0 || n->index >= LOCAL_MAX_NICS) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "VM %d: net_interface.%d: at most %d interfaces",
				   vm->num, n->index, LOCAL_MAX_NICS);
			return -1;
		}
		if (cn && cn->hostname && !local_valid_word(cn->hostname, 63)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "VM %d: net_interface.%d: '%s' is not a valid host name", vm->num,
				   n->index, cn->hostname);
			return -1;
		}
		if (cn && cn->domain && !local_valid_word(cn->domain, 190)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "VM %d: net_interface.%d: '%s' is not a valid domain", vm->num,
				   n->index, cn->domain);
			return -1;
		}
		n->host = cn && cn->hostname ? xstrdup(cn->hostname) : NULL;
		n->domain = cn && cn->domain ? xstrdup(cn->domain) : NULL;
		if (!n->host && k == 0)
			n->host = xstrdup(lv->hostname);
		if (!n->domain && k == 0 && lv->domain)
			n->domain = xstrdup(lv->domain);
		const struct local_net *net = NULL;
		for (size_t i = 0; i < nnets; i++)
			if (!strcmp(nets[i].name, n->net))
				net = &nets[i];
		if (!net) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: network '%s' is not available",
				   vm->num, n->net);
			return -1;
		}
		uint32_t size = net->prefix >= 32 ? 1 : (uint32_t)1 << (32 - net->prefix);
		if ((uint32_t)vm->num + 3 > size) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "VM %d does not fit in the /%d subnet of network '%s'", vm->num,
				   net->prefix, n->net);
			return -1;
		}
		n->ip = local_ip_str(net->base + 2 + (uint32_t)vm->num);
		n->prefix = net->prefix;
		n->public = net->public;
		snprintf(n->bridge, sizeof(n->bridge), "%s", net->bridge);
		if (c->mode == LOCAL_NETNS)
			local_veth_name(c->tag, vm->num, n->index, n->veth);
	}
	if (c->mode == LOCAL_ROOTLESS) {
		lv->port = pick_port(lv);
		if (lv->port < 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: no free port on %s", vm->num,
				   lv->nics[0].ip);
			return -1;
		}
	}
	return 0;
}

/* Parallel part of vm_create: one job per VM. */
struct job {
	struct local_ctx *c;
	struct local_vm *lv;
	const char *user;
	double timeout;
	bool skip;
	int ok;
	struct diag d;
};

struct pool {
	struct job *jobs;
	size_t n;
	size_t next;
	pthread_mutex_t mu;
	int (*fn)(struct job *j);
};

/* Crash injection for tests (a crash at each point must leave nothing
 * that destroy cannot find):
 * IMC_LOCAL_FAULT=plumb|sshd kills this process with SIGKILL right after
 * the namespaces are plumbed, or after the first sshd started. */
static void fault_point(const char *where)
{
	const char *f = getenv("IMC_LOCAL_FAULT");
	if (f && !strcmp(f, where)) {
		log_warn(LOCAL_LOG, "IMC_LOCAL_FAULT=%s: killing this process", where);
		raise(SIGKILL);
	}
}

static int job_boot(struct job *j)
{
	if (j->lv->mode == LOCAL_NETNS && local_net_configure_vm(j->c, j->lv, &j->d) < 0)
		return -1;
	/* creating again what exists (a retried create) keeps its sshd */
	bool started = false;
	if (!local_sshd_running(j->lv)) {
		if (local_sshd_start(j->c, j->lv, &j->d) < 0)
			return -1;
		started = true;
	}
	fault_point("sshd");
	if (local_wait_ready(j->lv, j->user, j->c->s->pubkey, j->timeout, &j->d) < 0)
		return -1;
	/* a new VM is handed over with its one sshd, the probe's session gone */
	if (started)
		local_sshd_settle(j->lv, 5.0);
	return 0;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			return NULL;
		if (!p->jobs[i].skip)
			p->jobs[i].ok = p->fn(&p->jobs[i]) == 0;
	}
}

static void run_pool(struct job *jobs, size_t n, int (*fn)(struct job *))
{
	struct pool p = { jobs, n, 0, PTHREAD_MUTEX_INITIALIZER, fn };
	const char *e = getenv("IMC_LOCAL_THREADS");
	long nt = e ? strtol(e, NULL, 10) : 16;
	if (nt < 1)
		nt = 1;
	if ((size_t)nt > n)
		nt = (long)n;
	pthread_t *th = xcalloc((size_t)nt, sizeof(*th));
	long started = 0;
	for (long i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, worker, &p) == 0)
			started++;
		else
			break;
	if (started == 0)
		worker(&p);
	for (long i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_destroy(&p.mu);
}

static int local_vm_create(struct cloud_session *s, struct cloud_vm *vms, size_t n,
			   struct diag *d)
{
	struct local_ctx c;
	if (local_sshd_check(d) < 0)
		return -1;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	int ret = -1;
	struct local_net *nets = NULL;
	size_t nnets = 0;
	struct local_vm *lvs = xcalloc(n ? n : 1, sizeof(*lvs));
	struct job *jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	bool *failed = xcalloc(n ? n : 1, sizeof(*failed));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);

	int lk = infra_lock(&c, d);
	if (lk < 0)
		goto out;
	log_info(LOCAL_LOG, "creating %zu VM(s) of %s in %s mode", n, s->infra_id,
		 c.mode == LOCAL_NETNS ? "netns" : "rootless (loopback addresses, no namespaces)");
	for (size_t i = 0; i < n; i++)
		diag_init(&jobs[i].d);
	/* the networks the VMs use (created here when net_create was not called) */
	for (size_t i = 0; i < n; i++) {
		size_t nn = vms[i].nnics ? vms[i].nnics : 1;
		for (size_t k = 0; k < nn; k++) {
			const char *name = vms[i].nnics && vms[i].nics[k].net ? vms[i].nics[k].net
									     : DEFAULT_NET;
			bool have = false;
			for (size_t j = 0; j < nnets && !have; j++)
				have = !strcmp(nets[j].name, name);
			if (have)
				continue;
			struct local_net net;
			if (local_net_ensure(&c, name, NULL, NULL, &net, &jobs[i].d) == 0) {
				nets = xreallocarray(nets, nnets + 1, sizeof(*nets));
				nets[nnets++] = net;
			}
		}
	}
	/* plan, files, host keys */
	for (size_t i = 0; i < n; i++) {
		vms[i].state = VM_PENDING;
		if (vms[i].num < 0 || vms[i].num > LOCAL_MAX_VMNUM) {
			diag_error(&jobs[i].d, IMC_EXIT_SOFTWARE, NULL, "VM number %d out of range",
				   vms[i].num);
			failed[i] = true;
			continue;
		}
		if (diag_has_errors(&jobs[i].d) ||
		    plan_vm(&c, &vms[i], nets, nnets, &lvs[i], &jobs[i].d) < 0 ||
		    local_sshd_prepare(&c, &lvs[i], &jobs[i].d) < 0 ||
		    local_vm_save(&lvs[i], &jobs[i].d) < 0)
			failed[i] = true;
	}
	{
		struct diag tmp = DIAG_INIT;
		local_hosts_update(&c, &tmp);
		diag_release(&tmp);
	}
	log_debug(LOCAL_LOG, "files and keys ready after %.3f s", since(&t0));
	if (c.mode == LOCAL_NETNS) {
		/* plumb only the VMs still going */
		struct local_vm *go = xcalloc(n ? n : 1, sizeof(*go));
		size_t *idx = xcalloc(n ? n : 1, sizeof(*idx));
		size_t ngo = 0;
		for (size_t i = 0; i < n; i++)
			if (!failed[i]) {
				go[ngo] = lvs[i];
				idx[ngo++] = i;
			}
		bool *f2 = xcalloc(ngo ? ngo : 1, sizeof(*f2));
		struct diag tmp = DIAG_INIT;
		if (ngo)
			local_net_plumb(&c, go, ngo, f2, &tmp);
		for (size_t k = 0; k < ngo; k++)
			if (f2[k]) {
				failed[idx[k]] = true;
				diag_error(&jobs[idx[k]].d, IMC_EXIT_UNAVAILABLE, NULL,
					   "VM %d: cannot create its namespace and links", lvs[idx[k]].num);
			}
		diag_release(&tmp);
		free(f2);
		free(idx);
		free(go);
	}
	local_unlock(lk);
	lk = -1;
	log_debug(LOCAL_LOG, "namespaces and links ready after %.3f s", since(&t0));
	fault_point("plumb");

	for (size_t i = 0; i < n; i++) {
		jobs[i].c = &c;
		jobs[i].lv = &lvs[i];
		jobs[i].user = lvs[i].user ? lvs[i].user : "root";
		jobs[i].timeout = ready_timeout();
		jobs[i].skip = failed[i];
	}
	run_pool(jobs, n, job_boot);
	log_debug(LOCAL_LOG, "sshds ready after %.3f s", since(&t0));

	size_t nok = 0;
	for (size_t i = 0; i < n; i++) {
		if (!failed[i] && jobs[i].ok) {
			fill_vm(&c, &lvs[i], &vms[i]);
			vms[i].state = VM_RUNNING;
			struct local_cgroups cg = { 0 };
			char *note = NULL;
			/* the limits note, recomputed cheaply (no cgroup is created twice) */
			if (lvs[i].cpus > 0 || lvs[i].memory > 0)
				local_cgroup_setup(&c, &lvs[i], &cg, &note);
			char *mode_note = c.mode == LOCAL_ROOTLESS
				? xasprintf("rootless mode: sshd on %s:%d as the invoking user, no network namespace%s%s",
					    lvs[i].nics[0].ip, lvs[i].port, note ? "; " : "", note ? note : "")
				: xasprintf("netns mode: network namespace %s, sshd on port 22, login '%s'%s%s",
					    lvs[i].netns, lvs[i].user ? lvs[i].user : "root",
					    note ? "; " : "", note ? note : "");
			set_note(&vms[i], mode_note);
			free(mode_note);
			local_cgroups_release(&cg);
			free(note);
			nok++;
		} else {
			vms[i].state = VM_FAILED;
			const char *msg = diag_has_errors(&jobs[i].d) ? diag_first_message(&jobs[i].d)
								      : "creation failed";
			set_note(&vms[i], msg);
			diag_error(d, jobs[i].d.code ? jobs[i].d.code : IMC_EXIT_UNAVAILABLE, NULL,
				   "%s", msg);
		}
	}
	{
		struct diag tmp = DIAG_INIT;
		local_hosts_update(&c, &tmp);
		diag_release(&tmp);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_info(LOCAL_LOG, "%zu of %zu VM(s) running in %.3f s", nok, n,
		 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ret = 0;
out:
	local_unlock(lk);
	for (size_t i = 0; i < n; i++) {
		local_vm_release(&lvs[i]);
		diag_release(&jobs[i].d);
	}
	for (size_t i = 0; i < nnets; i++)
		local_net_release(&nets[i]);
	free(nets);
	free(lvs);
	free(jobs);
	free(failed);
	local_ctx_release(&c);
	return ret;
}

static int local_vm_update(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	struct local_vm lv;
	struct diag tmp = DIAG_INIT;
	if (load_vm(&c, vm->num, &lv, &tmp) < 0) {
		vm->state = VM_OFF;
		diag_release(&tmp);
		local_ctx_release(&c);
		return 0;
	}
	diag_release(&tmp);
	bool exists = true;
	if (lv.mode == LOCAL_NETNS) {
		char *p = xasprintf("/run/netns/%s", lv.netns);
		exists = access(p, F_OK) == 0;
		free(p);
	}
	fill_vm(&c, &lv, vm);
	if (!exists)
		vm->state = VM_OFF;
	else if (!local_sshd_running(&lv))
		vm->state = VM_STOPPED;
	else if (vm->state != VM_CONFIGURED && vm->state != VM_UNCONFIGURED)
		vm->state = VM_RUNNING;
	local_vm_release(&lv);
	local_ctx_release(&c);
	return 0;
}

static int local_vm_stop(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	struct local_vm lv;
	int ret = -1;
	if (load_vm(&c, vm->num, &lv, d) == 0) {
		/* stopped means no process of the VM is left, not asked to go */
		if (local_vm_kill(&c, &lv, d) == 0) {
			fill_vm(&c, &lv, vm);
			vm->state = VM_STOPPED;
			log_info(LOCAL_LOG, "VM %d stopped", vm->num);
			ret = 0;
		}
		local_vm_release(&lv);
	}
	local_ctx_release(&c);
	return ret;
}

static int local_vm_start(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	struct local_vm lv;
	int ret = -1;
	if (load_vm(&c, vm->num, &lv, d) < 0)
		goto out_ctx;
	char *user = login_user(&c, &lv);
	if (local_sshd_running(&lv)) {
		ret = 0;
	} else if ((lv.mode != LOCAL_NETNS || local_net_configure_vm(&c, &lv, d) == 0) &&
		   local_sshd_start(&c, &lv, d) == 0 &&
		   local_wait_ready(&lv, user, s->pubkey, ready_timeout(), d) == 0) {
		local_sshd_settle(&lv, 5.0);
		ret = 0;
	}
	free(user);
	if (ret == 0) {
		fill_vm(&c, &lv, vm);
		vm->state = VM_RUNNING;
		log_info(LOCAL_LOG, "VM %d started", vm->num);
	}
	local_vm_release(&lv);
out_ctx:
	local_ctx_release(&c);
	return ret;
}

static int local_vm_reboot(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	if (local_vm_stop(s, vm, d) < 0)
		return -1;
	return local_vm_start(s, vm, d);
}

/* IM's alter on a local VM: the new cpu.count and memory.size become the
 * limits of the running VM's cgroups (made and joined now when it had
 * none) and are kept in its record, so a stop and start keeps them. A
 * stopped VM has no process to limit (a real cloud resizes those; here
 * start would, but the user asked for a running VM's change), and a
 * rootless VM no cgroup: both are refused. */
static int local_vm_alter(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	struct local_vm lv;
	struct local_cgroups cgs = { 0 };
	char *note = NULL;
	int ret = -1;
	if (load_vm(&c, vm->num, &lv, d) < 0)
		goto out_ctx;
	if (lv.mode != LOCAL_NETNS || geteuid() != 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
			   "VM %d runs in rootless mode: it has no cgroup to resize", vm->num);
		goto out;
	}
	if (!local_sshd_running(&lv)) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "VM %d is not running: start it before altering it",
			   vm->num);
		goto out;
	}
	int old_cpus = lv.cpus;
	long long old_mem = lv.memory;
	if (vm->cpus > 0)
		lv.cpus = vm->cpus;
	if (vm->memory_bytes > 0)
		lv.memory = vm->memory_bytes;
	int r = local_cgroup_setup(&c, &lv, &cgs, &note);
	if (r != 0 || local_vm_join_cgroups(&lv, &cgs, d) < 0) {
		if (r != 0)
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: %s", vm->num,
				   note ? note : "cannot set its limits");
		/* put the old limits back where they were */
		struct local_cgroups back = { 0 };
		char *n2 = NULL;
		lv.cpus = old_cpus;
		lv.memory = old_mem;
		local_cgroup_setup(&c, &lv, &back, &n2);
		local_cgroups_release(&back);
		free(n2);
		goto out;
	}
	if (local_vm_save(&lv, d) < 0)
		goto out;
	fill_vm(&c, &lv, vm);
	log_info(LOCAL_LOG, "VM %d altered: %d cpu(s), %lld bytes of memory", vm->num, lv.cpus,
		 lv.memory);
	ret = 0;
out:
	local_cgroups_release(&cgs);
	free(note);
	local_vm_release(&lv);
out_ctx:
	local_ctx_release(&c);
	return ret;
}

static int local_vm_destroy(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	int ret = 0;
	struct local_vm lv;
	char *vdir = local_vm_dir(&c, vm->num);
	int have = local_vm_load(vdir, &lv);
	free(vdir);
	if (have < 0) {
		/* no record (crash before it was written): derive from the name */
		local_vm_release(&lv);
		memset(&lv, 0, sizeof(lv));
		lv.num = vm->num;
		lv.mode = c.mode;
		lv.netns = local_netns_name(c.tag, vm->num);
		lv.dir = local_vm_dir(&c, vm->num);
	}
	/* each step confirms what it removed: destroy returns only once the
	 * VM's processes, links, namespace, files and cgroups are gone */
	if (local_vm_kill(&c, &lv, d) < 0)
		ret = -1;
	int lk = infra_lock(&c, d);
	if (local_net_remove_vm(&c, vm->num, d) < 0)
		ret = -1;
	char *etc = xasprintf("/etc/netns/%s", lv.netns);
	if (local_rmtree(etc) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove '%s'", etc);
		ret = -1;
	}
	free(etc);
	if (local_cgroup_remove(c.tag, vm->num, d) < 0)
		ret = -1;
	if (local_rmtree(lv.dir) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove '%s'", lv.dir);
		ret = -1;
	}
	if (local_net_gc(&c, false, d) < 0)
		ret = -1;
	local_unlock(lk);
	struct diag tmp = DIAG_INIT;
	local_hosts_update(&c, &tmp);
	diag_release(&tmp);
	if (ret == 0) {
		vm->state = VM_OFF;
		log_info(LOCAL_LOG, "VM %d destroyed", vm->num);
	}
	local_vm_release(&lv);
	local_ctx_release(&c);
	return ret;
}

static size_t sshd_procs(void *prefix, pid_t **pids)
{
	return local_sshd_pids(prefix, 0, pids);
}

static int local_cleanup_infra(struct cloud_session *s, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	int lk = infra_lock(&c, d);
	/* every sshd started from this infrastructure's files, any mode */
	char *prefix = xasprintf("%s/vm/", c.infra_dir);
	int ret = 0;
	if (local_end_all(sshd_procs, prefix) < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "processes of '%s' survive SIGKILL",
			   s->infra_id);
		ret = -1;
	}
	free(prefix);
	if (local_net_cleanup(&c, d) < 0)
		ret = -1;
	if (local_cgroup_cleanup(c.tag, d) < 0)
		ret = -1;
	char *vmroot = xasprintf("%s/vm", c.infra_dir);
	if (local_rmtree(vmroot) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove '%s'", vmroot);
		ret = -1;
	}
	free(vmroot);
	local_unlock(lk);
	if (local_rmtree(c.local_dir) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove '%s'", c.local_dir);
		ret = -1;
	}
	log_info(LOCAL_LOG, "infrastructure %s cleaned up", s->infra_id);
	local_ctx_release(&c);
	return ret;
}

static int local_net_create_op(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	int lk = infra_lock(&c, d);
	struct local_net ln;
	bool pub = net->public;
	int ret = -1;
	if (lk >= 0 && local_net_ensure(&c, net->name, &pub, net->cidr, &ln, d) == 0) {
		char *ip = local_ip_str(ln.base);
		free(net->cloud_id);
		free(net->cidr_assigned);
		net->cloud_id = ln.bridge[0] ? xstrdup(ln.bridge) : xasprintf("loopback:%s", ip);
		net->cidr_assigned = xasprintf("%s/%d", ip, ln.prefix);
		free(ip);
		local_net_release(&ln);
		ret = 0;
	}
	local_unlock(lk);
	local_ctx_release(&c);
	return ret;
}

static int local_net_destroy_op(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	struct local_ctx c;
	if (local_ctx_init(&c, s, d) < 0)
		return -1;
	int lk = infra_lock(&c, d);
	int ret = lk < 0 ? -1 : local_net_destroy(&c, net->name, d);
	local_unlock(lk);
	local_ctx_release(&c);
	return ret;
}

const struct cloud_driver cloud_local = {
	.name = "local",
	.caps = CLOUD_CAP_SSH | CLOUD_CAP_STOP | CLOUD_CAP_NETWORKS | CLOUD_CAP_NO_CREDENTIALS |
		CLOUD_CAP_EMBEDDED,
	.schemes = (const char *const[]){ "local", NULL },
	.net_create = local_net_create_op,
	.net_destroy = local_net_destroy_op,
	.vm_create = local_vm_create,
	.vm_update = local_vm_update,
	.vm_stop = local_vm_stop,
	.vm_start = local_vm_start,
	.vm_reboot = local_vm_reboot,
	.vm_alter = local_vm_alter,
	.vm_destroy = local_vm_destroy,
	.cleanup_infra = local_cleanup_infra,
};
