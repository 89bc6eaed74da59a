/* exec-fallback.c: the per-task fallback. A task whose module imc does
 * not implement (or whose arguments its module does not) is run, for that
 * one task on that one host, by Ansible itself: a one-task play over the
 * same connection (local, or SSH to the same address, port, user and key,
 * with the host key imc pinned), the same become, environment, check and
 * diff modes. Its JSON result comes back as the module's result, so
 * everything around the module (loops, when, until, changed_when,
 * failed_when, register, notify, ignore_errors) stays imc's and behaves as
 * for a native module. The arguments arrive already templated by imc and
 * are written tagged !unsafe, so that Ansible does not template them a
 * second time: a value holding '{{' arrives as written.
 *
 * At load time, fallback_resolve() says whether Ansible knows a module
 * name, as its plugin loader resolves it (ansible.builtin modules and
 * action plugins, its routing table, the configured module paths, the
 * installed collections and their routing), from the files themselves:
 * ansible-doc would take seconds per name. The installation's paths come
 * from one 'ansible --version', and every answer is cached for the life of
 * the process. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provision/args.h"
#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/play.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

bool fallback_disabled(void)
{
	const char *no = getenv("IMC_NO_FALLBACK");
	return no && *no && strcmp(no, "0") != 0;
}

bool fallback_available(void)
{
	return !fallback_disabled() && which_found("ansible-playbook");
}

/* ---- where Ansible is installed ------------------------------------------ */

struct ansible_install {
	char *pymod;          /* the ansible Python package directory */
	json_t *mod_paths;    /* configured module search path (array of strings) */
	json_t *coll_roots;   /* directories holding ansible_collections/ */
	json_t *routing;      /* ansible.builtin's plugin_routing.modules */
	json_t *coll_routing; /* "ns.coll" -> its plugin_routing.modules (cache) */
	json_t *known;        /* "libdirs|name" -> bool (cache) */
};

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ansible_install inst;

/* Runs a shell command line on this machine, its output in cr. */
static int run_here(const char *cmd, struct conn_result *cr)
{
	struct task_conn *c = conn_local_open();
	struct diag d = DIAG_INIT;
	int rc = c->ops->exec(c, cmd, NULL, 0, cr, &d);
	diag_release(&d);
	conn_close(c);
	return rc;
}

/* The value after "KEY = " on a line of out, malloc'd, or NULL. */
static char *version_field(const char *out, const char *key)
{
	const char *p = strstr(out, key);
	if (!p)
		return NULL;
	p += strlen(key);
	p += strspn(p, " =");
	return xstrndup(p, strcspn(p, "\n"));
}

/* The plugin_routing.modules of a runtime.yml file (new reference; an
 * empty object when the file is missing or unreadable). */
static json_t *routing_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *r = NULL;
	if (strbuf_read_file(&sb, path) == 0) {
		struct diag d = DIAG_INIT;
		json_t *doc = yaml_load(sb.buf ? sb.buf : "", sb.len, path, 0, NULL, &d);
		diag_release(&d);
		json_t *m = json_object_get(json_object_get(doc, "plugin_routing"), "modules");
		if (json_is_object(m))
			r = json_incref(m);
		json_decref(doc);
	}
	strbuf_release(&sb);
	return r ? r : json_object();
}

static void probe(void)
{
	inst.mod_paths = json_array();
	inst.coll_roots = json_array();
	inst.coll_routing = json_object();
	inst.known = json_object();
	struct conn_result cr;
	conn_result_init(&cr);
	if (run_here("ANSIBLE_NOCOLOR=1 ansible --version 2>/dev/null", &cr) < 0 || cr.rc != 0) {
		conn_result_release(&cr);
		inst.routing = json_object();
		return;
	}
	const char *out = strbuf_str(&cr.out);
	inst.pymod = version_field(out, "ansible python module location");
	/* ['/a', '/b'] */
	char *mp = version_field(out, "configured module search path");
	for (char *p = mp; p && (p = strchr(p, '\'')); ) {
		char *e = strchr(p + 1, '\'');
		if (!e)
			break;
		json_array_append_new(inst.mod_paths, json_stringn(p + 1, (size_t)(e - p - 1)));
		p = e + 1;
	}
	free(mp);
	char *cp = version_field(out, "ansible collection location"), *save = NULL;
	for (char *t = cp ? strtok_r(cp, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
		json_array_append_new(inst.coll_roots, json_string(t));
	free(cp);
	/* the collections installed beside the ansible package (Debian's
	 * ansible, pip's ansible) are on Python's path, which Ansible also
	 * searches */
	if (inst.pymod) {
		char *sl = strrchr(inst.pymod, '/');
		if (sl)
			json_array_append_new(inst.coll_roots,
					      json_stringn(inst.pymod, (size_t)(sl - inst.pymod)));
		char *rt = xasprintf("%s/config/ansible_builtin_runtime.yml", inst.pymod);
		inst.routing = routing_file(rt);
		free(rt);
	} else
		inst.routing = json_object();
	conn_result_release(&cr);
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/NAME.py, or dir/NAME as such (a module in another language). */
static bool module_in(const char *dir, const char *name)
{
	char *a = xasprintf("%s/%s.py", dir, name), *b = xasprintf("%s/%s", dir, name);
	bool r = is_file(a) || is_file(b);
	free(a);
	free(b);
	return r;
}

static int resolve(const char *name, const char *libdirs, int depth);

/* A routing entry: a redirect resolves where it points, a tombstone (a
 * removed module) resolves nowhere; -1 when there is none. */
static int routed(json_t *entry, const char *libdirs, int depth)
{
	if (!json_is_object(entry))
		return -1;
	if (json_object_get(entry, "tombstone"))
		return 0;
	const char *to = json_string_value(json_object_get(entry, "redirect"));
	return to ? resolve(to, libdirs, depth + 1) : -1;
}

static int resolve_builtin(const char *name, const char *libdirs, bool legacy, int depth)
{
	if (legacy) {
		char *dirs = xstrdup(libdirs ? libdirs : ""), *save = NULL;
		bool hit = false;
		for (char *t = strtok_r(dirs, ":", &save); t && !hit; t = strtok_r(NULL, ":", &save))
			hit = module_in(t, name);
		free(dirs);
		if (hit)
			return 1;
		size_t i;
		json_t *e;
		json_array_foreach(inst.mod_paths, i, e)
			if (module_in(json_string_value(e), name))
				return 1;
	}
	if (inst.pymod) {
		char *m = xasprintf("%s/modules", inst.pymod), *a = xasprintf("%s/plugins/action", inst.pymod);
		bool hit = module_in(m, name) || module_in(a, name);
		free(m);
		free(a);
		if (hit)
			return 1;
	}
	int r = routed(json_object_get(inst.routing, name), libdirs, depth);
	return r < 0 ? 0 : r;
}

static int resolve_collection(const char *ns, const char *coll, const char *rest,
			      const char *libdirs, int depth)
{
	char *sub = xstrdup(rest);
	for (char *p = sub; *p; p++)
		if (*p == '.')
			*p = '/';
	char *key = xasprintf("%s.%s", ns, coll);
	json_t *routing = json_object_get(inst.coll_routing, key);
	bool found_coll = false;
	int r = 0;
	size_t i;
	json_t *e;
	json_array_foreach(inst.coll_roots, i, e) {
		char *base = xasprintf("%s/ansible_collections/%s/%s", json_string_value(e), ns, coll);
		struct stat st;
		if (stat(base, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *m = xasprintf("%s/plugins/modules", base), *a = xasprintf("%s/plugins/action", base);
			if (!found_coll && !routing) {
				char *rt = xasprintf("%s/meta/runtime.yml", base);
				routing = routing_file(rt);
				json_object_set_new(inst.coll_routing, key, routing);
				free(rt);
			}
			found_coll = true;
			r = module_in(m, sub) || module_in(a, sub);
			free(m);
			free(a);
		}
		free(base);
		if (found_coll)
			break; /* the first root holding the collection is the one Ansible loads */
	}
	if (found_coll && !r) {
		int x = routed(json_object_get(routing, rest), libdirs, depth);
		r = x < 0 ? 0 : x;
	}
	free(key);
	free(sub);
	return r;
}

/* 1 when Ansible resolves name to a module or action, else 0. Called
 * with cache_lock held. */
static int resolve(const char *name, const char *libdirs, int depth)
{
	if (depth > 8)
		return 0;
	const char *d1 = strchr(name, '.');
	if (!d1)
		return resolve_builtin(name, libdirs, true, depth);
	const char *d2 = strchr(d1 + 1, '.');
	if (!d2 || !d2[1])
		return 0;
	char *ns = xstrndup(name, (size_t)(d1 - name));
	char *coll = xstrndup(d1 + 1, (size_t)(d2 - d1 - 1));
	int r;
	if (!strcmp(ns, "ansible") && (!strcmp(coll, "builtin") || !strcmp(coll, "legacy")))
		r = resolve_builtin(d2 + 1, libdirs, !strcmp(coll, "legacy"), depth);
	else
		r = resolve_collection(ns, coll, d2 + 1, libdirs, depth);
	free(ns);
	free(coll);
	return r;
}

bool fallback_resolve(const char *name, const char *libdirs)
{
	pthread_once(&probe_once, probe);
	char *key = xasprintf("%s|%s", libdirs ? libdirs : "", name);
	pthread_mutex_lock(&cache_lock);
	json_t *v = json_object_get(inst.known, key);
	bool r;
	if (v)
		r = json_is_true(v);
	else {
		r = resolve(name, libdirs, 0) == 1;
		json_object_set_new(inst.known, key, json_boolean(r));
	}
	pthread_mutex_unlock(&cache_lock);
	free(key);
	return r;
}

char *fallback_libdirs(const struct task_playbook *pb, const struct task_role *role)
{
	struct strbuf sb = STRBUF_INIT;
	if (role && role->dir)
		strbuf_addf(&sb, "%s/library", role->dir);
	if (pb && pb->dir)
		strbuf_addf(&sb, "%s%s/library", sb.len ? ":" : "", pb->dir);
	return strbuf_detach(&sb);
}

/* ---- running one task ------------------------------------------------------ */

/* v as YAML flow text with every string tagged !unsafe: Ansible's loader
 * marks such values as never to be templated. JSON string escapes are YAML
 * double-quoted escapes; a real gets !!float so that YAML 1.1 does not
 * read 1e+20 as a string. */
static void unsafe_yaml(struct strbuf *sb, json_t *v)
{
	if (json_is_object(v)) {
		const char *k;
		json_t *e;
		bool first = true;
		strbuf_addch(sb, '{');
		json_object_foreach(v, k, e) {
			json_t *ks = json_string(k);
			char *kq = json_dumps(ks, JSON_ENCODE_ANY);
			strbuf_addf(sb, "%s%s: ", first ? "" : ", ", kq);
			free(kq);
			json_decref(ks);
			unsafe_yaml(sb, e);
			first = false;
		}
		strbuf_addch(sb, '}');
	} else if (json_is_array(v)) {
		const char *sep = "[";
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			strbuf_addstr(sb, sep);
			unsafe_yaml(sb, e);
			sep = ", ";
		}
		strbuf_addstr(sb, json_array_size(v) ? "]" : "[]");
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		if (json_is_string(v))
			strbuf_addstr(sb, "!unsafe ");
		else if (json_is_real(v))
			strbuf_addstr(sb, "!!float ");
		strbuf_addstr(sb, s ? s : "null");
		free(s);
	}
}

/* A new file only its owner reads: the play holds the task's arguments,
 * which may be secrets. */
static int write_private(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	FILE *fp = fdopen(fd, "w");
	if (!fp) {
		close(fd);
		return -1;
	}
	bool ok = fputs(text, fp) >= 0;
	return fclose(fp) == 0 && ok ? 0 : -1;
}

/* The inventory of the one host: how Ansible reaches the node x->conn
 * reaches (new reference), or NULL with *res set. */
static json_t *host_vars(struct exec_ctx *x, const char *dir, json_t **res)
{
	json_t *hv = json_object();
	struct conn_ssh_opts o;
	if (x->conn && !strcmp(x->conn->ops->name, "local")) {
		json_object_set_new(hv, "ansible_connection", json_string("local"));
		json_object_set_new(hv, "ansible_python_interpreter", json_string("/usr/bin/python3"));
	} else if (x->conn && conn_ssh_target(x->conn, &o) == 0) {
		char *kh = xasprintf("%s/known_hosts", dir);
		struct strbuf line = STRBUF_INIT;
		if (o.pinned_key) {
			if (o.port == 22)
				strbuf_addf(&line, "%s %s\n", o.host, o.pinned_key);
			else
				strbuf_addf(&line, "[%s]:%d %s\n", o.host, o.port, o.pinned_key);
		}
		int w = write_private(kh, strbuf_str(&line));
		strbuf_release(&line);
		if (w < 0) {
			*res = res_fail("cannot write '%s' for Ansible: %s", kh, strerror(errno));
			free(kh);
			json_decref(hv);
			return NULL;
		}
		json_object_set_new(hv, "ansible_connection", json_string("ssh"));
		json_object_set_new(hv, "ansible_host", json_string(o.host));
		json_object_set_new(hv, "ansible_port", json_integer(o.port));
		json_object_set_new(hv, "ansible_user", json_string(o.user));
		if (o.key_path && *o.key_path)
			json_object_set_new(hv, "ansible_ssh_private_key_file", json_string(o.key_path));
		/* the host key imc pinned, and nothing else: never the user's
		 * known_hosts; no connection master left behind */
		char *common = xasprintf("-o UserKnownHostsFile=%s -o GlobalKnownHostsFile=/dev/null "
					 "-o StrictHostKeyChecking=yes -o IdentitiesOnly=yes", kh);
		json_object_set_new(hv, "ansible_ssh_common_args", json_string(common));
		json_object_set_new(hv, "ansible_ssh_args",
				    json_string("-o ControlMaster=no -o ControlPath=none"));
		json_object_set_new(hv, "ansible_python_interpreter", json_string("auto_silent"));
		free(common);
		free(kh);
	} else {
		*res = res_refused("task '%s': imc cannot give Ansible its connection to '%s': not supported by imc",
				x->task->display, x->host->name);
		json_decref(hv);
		return NULL;
	}
	/* become as imc applies it: none needed for root when already root */
	if (x->become_user && !(x->conn->is_root && !strcmp(x->become_user, "root"))) {
		/* the task's become_method (templated), else Ansible's default */
		json_t *bm = exec_keyword(x->run, x->task, "become_method");
		struct diag bd = DIAG_INIT;
		json_t *method = bm ? xt_value(x, bm, &bd) : NULL;
		diag_release(&bd);
		json_object_set_new(hv, "ansible_become", json_true());
		json_object_set_new(hv, "ansible_become_method",
				    json_string(json_is_string(method) ? json_string_value(method) : "sudo"));
		json_decref(method);
		json_object_set_new(hv, "ansible_become_user", json_string(x->become_user));
	}
	return hv;
}

/* A relative src of the modules that read it on the controller, found
 * where imc finds it (role files/ or templates/, the task's and the
 * playbook's directories): Ansible, running a play of its own elsewhere,
 * would look beside that play instead. */
static void absolute_src(struct exec_ctx *x, const char *module, json_t *args)
{
	static const char *const files[] = { "copy", "unarchive", "assemble", NULL };
	const char *m = module, *dot = strrchr(m, '.');
	const char *base = dot ? dot + 1 : m;
	const char *sub = !strcmp(base, "template") ? "templates" : NULL;
	for (const char *const *f = files; *f && !sub; f++)
		if (!strcmp(base, *f))
			sub = "files";
	const char *src = json_string_value(json_object_get(args, "src"));
	if (!sub || !src || src[0] == '/' || args_bool(json_object_get(args, "remote_src"), false))
		return;
	char *found = mod_find_src(x, sub, src);
	if (found)
		json_object_set_new(args, "src", json_string(found));
	free(found);
}

/* Whether module reads the task's variables itself (a template's
 * content, debug's var, assert's conditions, the controller's own
 * modules): the one-task play carries only the arguments imc templated,
 * so Ansible would see none of them and quietly do something else. */
static bool needs_task_vars(const char *module)
{
	const char *dot = strrchr(module, '.');
	const char *base = dot ? dot + 1 : module;
	if (dot && strncmp(module, "ansible.builtin.", 16) && strncmp(module, "ansible.legacy.", 15))
		return false;
	const struct task_module *mod = task_module_find(base);
	return !strcmp(base, "template") || (mod && mod->controller);
}

/* The one-task play (YAML text, malloc'd). */
static char *play_text(struct exec_ctx *x, const char *module, json_t *args)
{
	struct ptask *t = x->task;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "[{\"hosts\": \"all\", \"gather_facts\": false, \"tasks\": [{");
	json_t *mn = json_string(module);
	char *mq = json_dumps(mn, JSON_ENCODE_ANY);
	json_decref(mn);
	strbuf_addf(&sb, "%s: ", mq);
	free(mq);
	json_t *a = json_deep_copy(args);
	absolute_src(x, module, a);
	unsafe_yaml(&sb, a);
	json_decref(a);
	if (x->env && json_object_size(x->env)) {
		strbuf_addstr(&sb, ", \"environment\": ");
		unsafe_yaml(&sb, x->env);
	}
	strbuf_addf(&sb, ", \"check_mode\": %s", x->check_mode ? "true" : "false");
	if (mod_diff_wanted(x))
		strbuf_addstr(&sb, ", \"diff\": true");
	if (args_bool(exec_keyword(x->run, t, "no_log"), false))
		strbuf_addstr(&sb, ", \"no_log\": true");
	if (x->deadline > 0) {
		double left = x->deadline - task_now();
		strbuf_addf(&sb, ", \"timeout\": %ld", left > 1 ? (long)left : 1L);
	}
	strbuf_addstr(&sb, "}]}]\n");
	return strbuf_detach(&sb);
}

/* Ansible's result of the task from the json callback's document (new
 * reference), or NULL. */
static json_t *task_result(const char *out)
{
	json_error_t je;
	json_t *doc = json_loads(out, 0, &je);
	json_t *hosts = json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(doc, "plays"), 0), "tasks"), 0), "hosts");
	const char *k;
	json_t *v, *r = NULL;
	json_object_foreach(hosts, k, v) {
		r = json_deep_copy(v);
		break;
	}
	json_decref(doc);
	if (!json_is_object(r)) {
		json_decref(r);
		return NULL;
	}
	/* what Ansible strips before it registers a result, and the callback's own */
	json_t *drop = json_array();
	json_object_foreach(r, k, v)
		if (!strncmp(k, "_ansible_", 9) || !strcmp(k, "action"))
			json_array_append_new(drop, json_string(k));
	size_t i;
	json_array_foreach(drop, i, v)
		json_object_del(r, json_string_value(v));
	json_decref(drop);
	return r;
}

/* The first line of Ansible's own error output, for a run that gave no result. */
static json_t *no_result(const struct conn_result *cr, const char *module)
{
	const char *err = strbuf_str(&cr->err), *e = strstr(err, "ERROR!");
	if (!e)
		e = err;
	int n = (int)strcspn(e, "\n");
	return res_fail("Ansible ran no task for module '%s' (status %d)%s%.*s", module, cr->rc,
			n ? ": " : "", n, e);
}

json_t *fallback_run(struct exec_ctx *x, const char *module, json_t *args)
{
	struct ptask *t = x->task;
	if (needs_task_vars(module))
		return res_refused("task '%s': module '%s' would run under Ansible here, but Ansible would "
				"need the task's variables, which imc does not hand it: not supported by imc",
				t->display, module);
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/imc-fallback.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	json_t *res = NULL, *hv = NULL;
	char *play = NULL, *inv_text = NULL, *libdirs = NULL;
	struct strbuf cmd = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	if (!mkdtemp(dir)) {
		res = res_fail("cannot create a directory for Ansible: %s", strerror(errno));
		free(dir);
		return res;
	}
	char *invp = xasprintf("%s/inventory.yml", dir), *playp = xasprintf("%s/play.yml", dir);
	hv = host_vars(x, dir, &res);
	if (!hv)
		goto out;
	json_t *inv = json_pack("{s:{s:{s:O}}}", "all", "hosts", x->host->name, hv);
	inv_text = json_dumps(inv, JSON_COMPACT);
	json_decref(inv);
	play = play_text(x, module, args);
	if (write_private(invp, inv_text) < 0 || write_private(playp, play) < 0) {
		res = res_fail("cannot write the play for Ansible in '%s': %s", dir, strerror(errno));
		goto out;
	}
	/* the environment of ansible-playbook: its json callback on stdout,
	 * its files under dir, the task's role and playbook library/ */
	strbuf_addstr(&cmd, "ANSIBLE_STDOUT_CALLBACK=ansible.posix.json ANSIBLE_NOCOLOR=1 "
			    "ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOAD_CALLBACK_PLUGINS=1 "
			    "ANSIBLE_LOCAL_TEMP=");
	sh_quote(&cmd, dir);
	libdirs = fallback_libdirs(x->run->pb, t->role);
	if (*libdirs) {
		/* ANSIBLE_LIBRARY replaces the configured module path: keep it */
		struct strbuf lib = STRBUF_INIT;
		strbuf_addstr(&lib, libdirs);
		pthread_once(&probe_once, probe);
		size_t i;
		json_t *e;
		json_array_foreach(inst.mod_paths, i, e)
			strbuf_addf(&lib, ":%s", json_string_value(e));
		strbuf_addstr(&cmd, " ANSIBLE_LIBRARY=");
		sh_quote(&cmd, lib.buf);
		strbuf_release(&lib);
	}
	strbuf_addstr(&cmd, " ansible-playbook -i ");
	sh_quote(&cmd, invp);
	strbuf_addch(&cmd, ' ');
	sh_quote(&cmd, playp);
	log_info("provision", "[%s] task '%s': module '%s' runs under Ansible", x->host->name,
		 t->display, module);
	if (run_here(cmd.buf, &cr) < 0) {
		res = res_fail("ansible-playbook could not be started");
		goto out;
	}
	res = task_result(strbuf_str(&cr.out));
	if (!res)
		res = no_result(&cr, module);
	/* facts the module returned become the host's, as variables and
	 * under ansible_facts, as Ansible's (module output: never templated
	 * again) */
	json_t *facts = json_object_get(res, "ansible_facts");
	if (json_is_object(facts) && !json_is_true(json_object_get(res, "failed"))) {
		struct task_host *fh = x->facts_host ? x->facts_host : x->host;
		const char *k;
		json_t *v;
		json_object_foreach(facts, k, v)
			exec_module_fact(x->run, fh, k, v);
	}
	pthread_mutex_lock(&task_facts_lock);
	if (!x->host->fallbacks)
		x->host->fallbacks = json_array();
	bool seen = false;
	size_t i;
	json_t *e;
	json_array_foreach(x->host->fallbacks, i, e)
		seen |= !strcmp(json_string_value(e), t->display);
	if (!seen)
		json_array_append_new(x->host->fallbacks, json_string(t->display));
	pthread_mutex_unlock(&task_facts_lock);
out:
	unlink(invp);
	unlink(playp);
	char *kh = xasprintf("%s/known_hosts", dir);
	unlink(kh);
	free(kh);
	/* Ansible removes its own ansible-local-* directory; anything left
	 * there is removed with it */
	strbuf_reset(&cmd);
	strbuf_addstr(&cmd, "rm -rf -- ");
	sh_quote(&cmd, dir);
	conn_result_release(&cr);
	conn_result_init(&cr);
	run_here(cmd.buf, &cr);
	conn_result_release(&cr);
	strbuf_release(&cmd);
	json_decref(hv);
	free(inv_text);
	free(play);
	free(libdirs);
	free(invp);
	free(playp);
	free(dir);
	return res;
}
