/* provision.c: provision_run(), IM's contextualization over SSH with the
 * built-in executor: every configure is loaded and statically checked
 * before any VM is touched (recipe-load.c, the loader 'imc create' checks
 * recipes with too: unsupported constructs go to ansible-playbook when it
 * is installed, else stop everything with an error at the RADL line); then one SSH session per VM is opened (waiting for sshd, pinning
 * or verifying host keys), the cluster's /etc/hosts installed, and the
 * steps run strictly in order, all VMs of a step in parallel (bounded),
 * a VM that fails a step skipping its later ones, within contextualize MAX.
 * Logs go to job->on_log in Ansible's shape. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "provision/provision.h"
#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/output.h"
#include "provision/play.h"
#include "provision/run.h"
#include "util/log.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define PROV_MAX_PARALLEL 16
#define PROV_SSH_WAIT 300 /* seconds to wait for a VM's sshd */

struct conf_state {
	const struct prov_configure *conf;
	struct task_playbook *pb;  /* NULL: runs under ansible-playbook */
	char *why;                 /* why it falls back */
	char *text;                /* the decrypted recipe of a Vault one, or NULL */
};

struct prov {
	struct prov_job *job;
	struct task_host **hosts;
	struct conf_state *confs;
	size_t nconfs;
	double deadline;
	bool *dead;                /* host failed a step or is unreachable */
	pthread_mutex_t lock;
	bool have_ansible;
};

struct log_ctx {
	struct prov *pv;
	int host;
};

static void plog(void *opaque, int host, const char *text)
{
	struct log_ctx *lc = opaque;
	struct prov_job *job = lc->pv->job;
	if (job->on_log)
		job->on_log(job->opaque, host < 0 ? lc->host : host, text);
}

static void infra_log(struct prov *pv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void infra_log(struct prov *pv, const char *fmt, ...)
{
	if (!pv->job->on_log)
		return;
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	char *r = redact(sb.buf);
	pv->job->on_log(pv->job->opaque, -1, r);
	free(r);
	strbuf_release(&sb);
}

/* The static check's list of the tasks of a configure Ansible will run,
 * in the infrastructure's log before any host is touched. */
static void list_fallbacks(struct prov *pv, const struct conf_state *cs)
{
	size_t i;
	json_t *e;
	json_array_foreach(cs->pb->fallbacks, i, e)
		infra_log(pv, "configure '%s': task '%s' (%s:%d) will run under Ansible (module '%s': %s)",
			  cs->conf->name, json_string_value(json_object_get(e, "task")),
			  json_string_value(json_object_get(e, "file")),
			  (int)json_integer_value(json_object_get(e, "line")),
			  json_string_value(json_object_get(e, "module")),
			  json_string_value(json_object_get(e, "why")));
}

static int check_confs(struct prov *pv, struct diag *d)
{
	struct prov_job *job = pv->job;
	int rc = 0;
	for (size_t s = 0; s < job->nsteps; s++)
		for (size_t i = 0; i < job->steps[s].nitems; i++) {
			struct prov_item *it = &job->steps[s].items[i];
			if (it->host >= job->nhosts) {
				diag_error(d, IMC_EXIT_SOFTWARE, NULL, "provision: item names host %zu of %zu",
					   it->host, job->nhosts);
				return -1;
			}
			bool seen = false;
			for (size_t k = 0; k < pv->nconfs; k++)
				if (pv->confs[k].conf == it->conf)
					seen = true;
			if (seen)
				continue;
			pv->confs = xreallocarray(pv->confs, pv->nconfs + 1, sizeof(*pv->confs));
			struct conf_state *cs = &pv->confs[pv->nconfs++];
			memset(cs, 0, sizeof(*cs));
			cs->conf = it->conf;
			if (provision_load_configure(it->conf, it->tool, job->roles_path, job->recipes, pv->have_ansible,
					   &cs->pb, &cs->why, &cs->text, d) < 0)
				rc = -1;
			else if (cs->why)
				log_info("provision", "configure '%s' runs under ansible-playbook: %s",
					 it->conf->name, cs->why);
			else
				list_fallbacks(pv, cs);
		}
	return rc;
}

/* ---- connecting -------------------------------------------------------------- */

struct hk_ctx {
	struct prov *pv;
	int host;
};

static void on_key(void *opaque, const char *key)
{
	struct hk_ctx *hc = opaque;
	if (hc->pv->job->on_hostkey)
		hc->pv->job->on_hostkey(hc->pv->job->opaque, hc->host, key);
}

/* Work queue over host indexes, run by up to PROV_MAX_PARALLEL threads. */
struct pool {
	struct prov *pv;
	size_t *todo;
	size_t n, next;
	void (*fn)(struct prov *pv, size_t host, void *arg);
	void *arg;
	pthread_mutex_t lock;
};

static void *pool_worker(void *a)
{
	struct pool *p = a;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		p->fn(p->pv, p->todo[i], p->arg);
	}
}

static void pool_run(struct prov *pv, size_t *todo, size_t n,
		     void (*fn)(struct prov *pv, size_t host, void *arg), void *arg)
{
	struct pool p = { .pv = pv, .todo = todo, .n = n, .fn = fn, .arg = arg };
	pthread_mutex_init(&p.lock, NULL);
	size_t nt = n < PROV_MAX_PARALLEL ? n : PROV_MAX_PARALLEL;
	pthread_t th[PROV_MAX_PARALLEL];
	size_t started = 0;
	for (size_t i = 0; i < nt && nt > 1; i++)
		if (pthread_create(&th[i], NULL, pool_worker, &p) == 0)
			started++;
	if (!started)
		pool_worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
}

static void mark_dead(struct prov *pv, size_t h, int step, const char *why)
{
	pthread_mutex_lock(&pv->lock);
	bool was = pv->dead[h];
	pv->dead[h] = true;
	pthread_mutex_unlock(&pv->lock);
	if (!was && pv->job->on_step_done)
		pv->job->on_step_done(pv->job->opaque, (int)h, step, false, why);
}

static double remaining(struct prov *pv)
{
	return pv->deadline > 0 ? pv->deadline - task_now() : 1e9;
}

static void connect_one(struct prov *pv, size_t h, void *arg)
{
	struct prov_host *ph = &pv->job->hosts[h];
	int first_step = *(int *)arg;
	struct hk_ctx *hc = xcalloc(1, sizeof(*hc));
	hc->pv = pv;
	hc->host = (int)h;
	struct diag d = DIAG_INIT;
	double rem = remaining(pv);
	struct conn_ssh_opts o = {
		.host = ph->address, .port = ph->port > 0 ? ph->port : 22,
		.user = ph->user ? ph->user : "root", .key_path = ph->key_path,
		.pinned_key = ph->hostkey,
		.timeout = rem < PROV_SSH_WAIT ? (int)(rem > 1 ? rem : 1) : PROV_SSH_WAIT,
		.on_hostkey = on_key, .opaque = hc,
	};
	struct task_conn *c = conn_ssh_open(&o, &d);
	struct task_host *th = pv->hosts[h];
	if (!c) {
		char *m = xasprintf("%s: %s", ph->name, diag_first_message(&d));
		struct log_ctx lc = { pv, (int)h };
		plog(&lc, (int)h, m);
		th->unreachable = true;
		th->st.unreachable++;
		mark_dead(pv, h, first_step, m);
		free(m);
	} else
		th->conn = c;
	diag_release(&d);
	/* hc stays referenced by the connection (reconnects pin again): kept until exit */
	pthread_mutex_lock(&pv->lock);
	th->ssh.opaque = hc;
	pthread_mutex_unlock(&pv->lock);
}

/* Installs the cluster's /etc/hosts lines in a marked block (idempotent). */
static void etc_hosts_one(struct prov *pv, size_t h, void *arg)
{
	int first_step = *(int *)arg;
	struct task_host *th = pv->hosts[h];
	if (pv->dead[h] || !th->conn)
		return;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "f=/etc/hosts; b='# BEGIN imc cluster hosts'; e='# END imc cluster hosts'; "
			  "t=$(mktemp) || exit 1; { if [ -f \"$f\" ]; then sed \"/^$b\\$/,/^$e\\$/d\" \"$f\"; fi; "
			  "echo \"$b\"; cat; echo \"$e\"; } > \"$t\" && cat \"$t\" > \"$f\"; rc=$?; rm -f \"$t\"; exit $rc");
	char *cmd;
	if (th->conn->is_root)
		cmd = strbuf_detach(&c);
	else {
		struct strbuf w = STRBUF_INIT;
		strbuf_addstr(&w, "sudo -n /bin/sh -c ");
		sh_quote(&w, c.buf);
		strbuf_release(&c);
		cmd = strbuf_detach(&w);
	}
	const char *lines = pv->job->etc_hosts;
	struct conn_result cr;
	conn_result_init(&cr);
	struct diag d = DIAG_INIT;
	int rc = th->conn->ops->exec(th->conn, cmd, lines, strlen(lines), &cr, &d);
	if (rc < 0 || cr.rc != 0) {
		char *m = xasprintf("%s: cannot install /etc/hosts: %s", th->name,
				    rc < 0 ? diag_first_message(&d) : strbuf_str(&cr.err));
		struct log_ctx lc = { pv, (int)h };
		plog(&lc, (int)h, m);
		mark_dead(pv, h, first_step, m);
		free(m);
	}
	diag_release(&d);
	conn_result_release(&cr);
	free(cmd);
}

/* ---- running one configure on one VM -------------------------------------------- */

static json_t *host_extra(struct prov *pv, size_t h)
{
	json_t *e = pv->job->extra_vars ? json_deep_copy(pv->job->extra_vars) : json_object();
	json_object_set_new(e, "IM_HOST", json_string(pv->job->hosts[h].name));
	return e;
}

/* The contextualization log names the tasks Ansible ran on the host
 * (exec-fallback.c), so that getcontmsg tells what imc did not run itself. */
static void report_fallbacks(struct log_ctx *lc, size_t h, const struct conf_state *cs,
			     struct task_host *th)
{
	struct strbuf sb = STRBUF_INIT;
	pthread_mutex_lock(&task_facts_lock);
	size_t i;
	json_t *e;
	json_array_foreach(th->fallbacks, i, e)
		strbuf_addf(&sb, "%s'%s'", i ? ", " : "", json_string_value(e));
	pthread_mutex_unlock(&task_facts_lock);
	if (sb.len) {
		char *m = xasprintf("configure '%s': tasks run by Ansible (fallback) on %s: %s",
				    cs->conf->name, th->name, sb.buf);
		plog(lc, (int)h, m);
		free(m);
	}
	strbuf_release(&sb);
}

static int run_builtin(struct prov *pv, size_t h, struct conf_state *cs, char **err)
{
	struct task_run *run = task_run_new();
	struct task_out out;
	out_init(&out);
	struct log_ctx lc = { pv, (int)h };
	out.on_log = plog;
	out.opaque = &lc;
	run->out = &out;
	run->hosts = pv->hosts;
	run->nhosts = pv->job->nhosts;
	run->borrowed_hosts = true;
	run->limit = pv->job->hosts[h].name;
	run->deadline = pv->deadline;
	run->output_dir = pv->job->output_dir;
	json_decref(run->groups);
	run->groups = pv->job->groups ? json_incref(pv->job->groups) : json_object();
	json_decref(run->global_vars);
	run->global_vars = pv->job->vars ? json_incref(pv->job->vars) : json_object();
	json_decref(run->extra_vars);
	run->extra_vars = host_extra(pv, h);
	struct task_host *th = pv->hosts[h];
	memset(&th->st, 0, sizeof(th->st));
	free(th->error);
	th->error = NULL;
	struct diag d = DIAG_INIT;
	pthread_mutex_lock(&task_facts_lock);
	json_decref(th->fallbacks);
	th->fallbacks = NULL;
	pthread_mutex_unlock(&task_facts_lock);
	int rc = task_run_playbook(run, cs->pb, &d);
	report_fallbacks(&lc, h, cs, th);
	if (rc < 0)
		*err = xstrdup(diag_first_message(&d));
	else if (rc > 0 || th->failed)
		*err = xasprintf("configure '%s' failed on %s: %s", cs->conf->name, th->name,
				 th->error ? th->error : "a task failed");
	diag_release(&d);
	run->hosts = NULL;
	task_run_free(run);
	out_release(&out);
	return *err ? -1 : 0;
}

/* Ends the SSH connection masters ansible-playbook left in cpdir (its
 * ControlPersist), so that no ssh or sshd process outlives the run. */
static void close_ssh_masters(const char *cpdir)
{
	DIR *dp = opendir(cpdir);
	struct dirent *e;
	while (dp && (e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		char *sock = xasprintf("%s/%s", cpdir, e->d_name);
		char *opt = xasprintf("ControlPath=%s", sock);
		pid_t pid = fork();
		if (pid == 0) {
			int nul = open("/dev/null", O_RDWR);
			if (nul >= 0) {
				dup2(nul, 1);
				dup2(nul, 2);
			}
			execlp("ssh", "ssh", "-o", opt, "-O", "exit", "imc-master", (char *)NULL);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		unlink(sock);
		free(opt);
		free(sock);
	}
	if (dp)
		closedir(dp);
	rmdir(cpdir);
}

/* The configure under the real ansible-playbook, with IM's inventory shape. */
static int run_ansible(struct prov *pv, size_t h, struct conf_state *cs, char **err)
{
	struct prov_job *job = pv->job;
	char dir[] = "/tmp/imc-ansible.XXXXXX";
	if (!mkdtemp(dir)) {
		*err = xasprintf("cannot create a temporary directory: %s", strerror(errno));
		return -1;
	}
	struct diag d = DIAG_INIT;
	const char *text = cs->text ? cs->text : cs->conf->recipe ? cs->conf->recipe : "";
	json_t *plays = yaml_load(text, strlen(text), cs->conf->name, 0,
				  NULL, &d);
	diag_release(&d);
	if (!json_is_array(plays)) {
		json_decref(plays);
		plays = json_array();
	}
	size_t i;
	json_t *p;
	json_array_foreach(plays, i, p)
		/* an import_playbook entry is no play: the plays it brings are
		 * the imported file's, and Ansible refuses hosts on it */
		if (json_is_object(p) && !play_action_value(p, "import_playbook")) {
			json_object_set_new(p, "hosts", json_string("{{ IM_HOST }}"));
			if (!json_object_get(p, "gather_facts"))
				json_object_set_new(p, "gather_facts", json_false());
			if (!json_object_get(p, "become"))
				json_object_set_new(p, "become", json_true());
		}
	json_t *hosts = json_object();
	for (size_t k = 0; k < job->nhosts; k++) {
		struct prov_host *ph = &job->hosts[k];
		json_t *hv = ph->vars ? json_deep_copy(ph->vars) : json_object();
		json_object_set_new(hv, "ansible_host", json_string(ph->address));
		json_object_set_new(hv, "ansible_port", json_integer(ph->port > 0 ? ph->port : 22));
		json_object_set_new(hv, "ansible_user", json_string(ph->user ? ph->user : "root"));
		if (ph->key_path)
			json_object_set_new(hv, "ansible_ssh_private_key_file", json_string(ph->key_path));
		json_object_set_new(hosts, ph->name, hv);
	}
	json_t *children = json_object();
	const char *g;
	json_t *members;
	json_object_foreach(job->groups, g, members) {
		if (!strcmp(g, "all"))
			continue;
		json_t *gh = json_object();
		size_t k;
		json_t *m;
		json_array_foreach(members, k, m)
			json_object_set_new(gh, json_string_value(m), json_object());
		json_object_set_new(children, g, json_pack("{s:o}", "hosts", gh));
	}
	json_t *inv = json_pack("{s:{s:o, s:O, s:o}}", "all", "hosts", hosts, "vars",
				job->vars ? job->vars : json_object(), "children", children);
	char *invp = xasprintf("%s/inventory.yml", dir), *playp = xasprintf("%s/play.yml", dir);
	char *extp = xasprintf("%s/extra.json", dir), *cfgp = xasprintf("%s/ansible.cfg", dir);
	char *cpdir = xasprintf("%s/cp", dir);
	json_t *extra = host_extra(pv, h);
	int ok = json_dump_file(inv, invp, JSON_INDENT(1)) == 0 &&
		 json_dump_file(plays, playp, JSON_INDENT(1)) == 0 &&
		 json_dump_file(extra, extp, 0) == 0;
	FILE *fp = fopen(cfgp, "w");
	if (fp) {
		fprintf(fp, "[defaults]\nhost_key_checking = False\ntimeout = 30\nretry_files_enabled = False\n"
			    "interpreter_python = auto_silent\n%s%s%s\n[ssh_connection]\npipelining = True\n"
			    "ssh_args = -o ControlMaster=auto -o ControlPersist=900s -o UserKnownHostsFile=/dev/null\n"
			    "control_path_dir = %s\n",
			job->roles_path ? "roles_path = " : "", job->roles_path ? job->roles_path : "",
			job->roles_path ? "\n" : "", cpdir);
		ok &= fclose(fp) == 0;
	} else
		ok = 0;
	json_decref(inv);
	json_decref(plays);
	json_decref(extra);
	int rc = -1;
	if (!ok) {
		*err = xstrdup("cannot write the ansible-playbook inputs");
		goto out;
	}
	struct log_ctx lc = { pv, (int)h };
	char *note = xasprintf("configure '%s' runs under ansible-playbook: %s", cs->conf->name, cs->why);
	plog(&lc, (int)h, note);
	free(note);
	int pfd[2];
	if (pipe(pfd) < 0) {
		*err = xstrdup("cannot create a pipe");
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		setenv("ANSIBLE_CONFIG", cfgp, 1);
		setenv("ANSIBLE_NOCOLOR", "1", 1);
		char *ex = xasprintf("@%s", extp);
		execlp("ansible-playbook", "ansible-playbook", "-i", invp, "-e", ex, playp, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		*err = xstrdup("cannot fork");
		goto out;
	}
	FILE *in = fdopen(pfd[0], "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (in && (n = getline(&line, &cap, in)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[n - 1] = 0;
		plog(&lc, (int)h, line);
	}
	free(line);
	if (in)
		fclose(in);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		rc = 0;
	else
		*err = xasprintf("configure '%s' failed on %s under ansible-playbook (status %d)",
				 cs->conf->name, job->hosts[h].name, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
out:
	close_ssh_masters(cpdir);
	free(cpdir);
	unlink(invp);
	unlink(playp);
	unlink(extp);
	unlink(cfgp);
	rmdir(dir);
	free(invp);
	free(playp);
	free(extp);
	free(cfgp);
	return rc;
}

struct step_arg {
	struct prov_step *step;
};

static struct conf_state *conf_of(struct prov *pv, const struct prov_configure *c)
{
	for (size_t i = 0; i < pv->nconfs; i++)
		if (pv->confs[i].conf == c)
			return &pv->confs[i];
	return NULL;
}

/* One VM's items of a step, in order. */
static void step_one(struct prov *pv, size_t h, void *arg)
{
	struct prov_step *st = ((struct step_arg *)arg)->step;
	char *err = NULL;
	for (size_t i = 0; i < st->nitems && !err; i++) {
		if (st->items[i].host != h)
			continue;
		struct conf_state *cs = conf_of(pv, st->items[i].conf);
		if (pv->deadline > 0 && task_now() > pv->deadline) {
			err = xstrdup("contextualization timed out (contextualize MAX reached)");
			break;
		}
		if (cs->pb)
			run_builtin(pv, h, cs, &err);
		else
			run_ansible(pv, h, cs, &err);
	}
	if (err) {
		mark_dead(pv, h, st->step, err);
		free(err);
	} else if (pv->job->on_step_done)
		pv->job->on_step_done(pv->job->opaque, (int)h, st->step, true, NULL);
}

int provision_run(struct prov_job *job, struct diag *d)
{
	signal(SIGPIPE, SIG_IGN);
	struct prov pv = { .job = job };
	pthread_mutex_init(&pv.lock, NULL);
	pv.have_ansible = provision_have_ansible();
	int rc = 0;
	double start = task_now();
	pv.deadline = job->max_time > 0 ? start + job->max_time : 0;
	pv.dead = xcalloc(job->nhosts + 1, sizeof(*pv.dead));
	pv.hosts = xcalloc(job->nhosts + 1, sizeof(*pv.hosts));
	size_t *todo = xcalloc(job->nhosts + 1, sizeof(*todo));
	/* the RADL's vault.password (one for every configure) decrypts what
	 * the tasks read at run time too: included files, copy and template
	 * sources, the unvault lookup */
	struct vault_keyring vault = { 0 };
	for (size_t s = 0; s < job->nsteps && !vault.n; s++)
		for (size_t i = 0; i < job->steps[s].nitems && !vault.n; i++) {
			const char *pw = job->steps[s].items[i].conf->vault_password;
			if (pw)
				vault_keyring_add(&vault, "default", pw, strlen(pw));
		}
	vault_keyring_set_default(&vault);

	/* 1. everything is checked before any VM is touched */
	if (check_confs(&pv, d) < 0) {
		rc = -1;
		goto out;
	}
	if (!job->nsteps)
		goto out;

	/* 2. the hosts that take part, their sessions */
	bool *used = xcalloc(job->nhosts + 1, sizeof(*used));
	for (size_t s = 0; s < job->nsteps; s++)
		for (size_t i = 0; i < job->steps[s].nitems; i++)
			used[job->steps[s].items[i].host] = true;
	size_t n = 0;
	for (size_t h = 0; h < job->nhosts; h++) {
		pv.hosts[h] = task_host_new(job->hosts[h].name, NULL, job->hosts[h].vars);
		pv.hosts[h]->index = (int)h;
		json_object_set_new(pv.hosts[h]->vars, "ansible_host", json_string(job->hosts[h].address));
		json_object_set_new(pv.hosts[h]->vars, "ansible_port",
				    json_integer(job->hosts[h].port > 0 ? job->hosts[h].port : 22));
		json_object_set_new(pv.hosts[h]->vars, "ansible_user",
				    json_string(job->hosts[h].user ? job->hosts[h].user : "root"));
		if (used[h])
			todo[n++] = h;
		else
			pv.dead[h] = true;
	}
	free(used);
	/* vars of the job's hosts are borrowed: task_host_new took a reference;
	 * the extra keys above go to a private copy */
	for (size_t h = 0; h < job->nhosts; h++) {
		json_t *own = json_deep_copy(pv.hosts[h]->vars);
		json_decref(pv.hosts[h]->vars);
		pv.hosts[h]->vars = own;
	}
	int first = job->steps[0].step;
	infra_log(&pv, "connecting to %zu VM(s)", n);
	pool_run(&pv, todo, n, connect_one, &first);
	if (job->etc_hosts && *job->etc_hosts) {
		size_t m = 0;
		for (size_t k = 0; k < n; k++)
			if (!pv.dead[todo[k]])
				todo[m++] = todo[k];
		pool_run(&pv, todo, m, etc_hosts_one, &first);
	}

	/* 3. steps strictly in order, the VMs of a step in parallel */
	for (size_t s = 0; s < job->nsteps; s++) {
		struct prov_step *st = &job->steps[s];
		size_t m = 0;
		for (size_t i = 0; i < st->nitems; i++) {
			size_t h = st->items[i].host;
			bool dup = false;
			for (size_t k = 0; k < m; k++)
				if (todo[k] == h)
					dup = true;
			if (!dup && !pv.dead[h])
				todo[m++] = h;
		}
		infra_log(&pv, "step %d: %zu VM(s)", st->step, m);
		struct step_arg sa = { st };
		pool_run(&pv, todo, m, step_one, &sa);
	}
	for (size_t h = 0; h < job->nhosts; h++)
		if (pv.dead[h] && pv.hosts[h] && (pv.hosts[h]->unreachable || pv.hosts[h]->failed ||
						  pv.hosts[h]->error))
			rc = 1;
	for (size_t s = 0; s < job->nsteps; s++)
		for (size_t i = 0; i < job->steps[s].nitems; i++)
			if (pv.dead[job->steps[s].items[i].host])
				rc = 1;
	infra_log(&pv, "contextualization %s in %.1f s", rc ? "failed" : "finished",
		  task_now() - start);
out:
	for (size_t h = 0; h < job->nhosts; h++)
		if (pv.hosts[h]) {
			conn_close(pv.hosts[h]->conn);
			pv.hosts[h]->conn = NULL;
			free(pv.hosts[h]->ssh.opaque);
			task_host_free(pv.hosts[h]);
		}
	for (size_t i = 0; i < pv.nconfs; i++) {
		play_free(pv.confs[i].pb);
		free(pv.confs[i].why);
		free(pv.confs[i].text);
	}
	free(pv.confs);
	free(pv.hosts);
	free(pv.dead);
	free(todo);
	vault_keyring_set_default(NULL);
	vault_keyring_release(&vault);
	pthread_mutex_destroy(&pv.lock);
	return rc;
}
