/* exec-vars.c: the variables a task sees on one host, merged in Ansible's
 * precedence order (low to high): role defaults, inventory "all" vars,
 * inventory group and host vars (with group_vars/ and host_vars/:
 * inventory.c), play vars, role vars, block/include/task vars,
 * include_vars, facts (gathered, set_fact, register), role params, extra
 * vars; plus the magic variables (inventory_hostname, groups, playbook_dir,
 * omit, ...).
 * Values are put in raw: the template engine templates them lazily when an
 * expression reads them, as Ansible does. hostvars is built on demand. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/play.h"
#include "provision/output.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "template/template.h"
#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Whether p is a dynamic include (include, include_tasks, include_role),
 * whose vars Ansible gives the tasks it brings as include params, above
 * set_fact and registered results, where a block's or an import's are
 * task vars. */
static bool dynamic_include(const struct ptask *p)
{
	return p->module && (!strcmp(p->module, "include") || !strcmp(p->module, "include_tasks") ||
			     !strcmp(p->module, "include_role"));
}

/* The vars of t and the tasks around it, outermost first: those of
 * dynamic includes only when includes is set, the others only when not. */
static void add_chain_vars(json_t *v, struct ptask *t, bool includes)
{
	if (!t)
		return;
	add_chain_vars(v, t->parent, includes);
	json_t *tv = json_object_get(t->raw, "vars");
	if (json_is_object(tv) && dynamic_include(t) == includes)
		json_object_update(v, tv);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The groups host is in but "all" ("ungrouped" included, as Ansible
 * has it), sorted as Ansible sorts group_names (new reference). */
static json_t *group_names(json_t *groups, const char *host)
{
	const char **names = xcalloc(json_object_size(groups) + 1, sizeof(*names));
	size_t nn = 0;
	const char *g;
	json_t *members;
	json_object_foreach(groups, g, members) {
		if (!strcmp(g, "all"))
			continue;
		size_t i;
		json_t *m;
		json_array_foreach(members, i, m)
			if (json_is_string(m) && !strcmp(json_string_value(m), host)) {
				names[nn++] = g;
				break;
			}
	}
	qsort(names, nn, sizeof(*names), cmp_str);
	json_t *gn = json_array();
	for (size_t i = 0; i < nn; i++)
		json_array_append_new(gn, json_string(names[i]));
	free(names);
	return gn;
}

static struct task_role *nearest_role(struct ptask *t)
{
	for (; t; t = t->parent)
		if (t->role)
			return t->role;
	return NULL;
}

static bool in_list(json_t *a, const char *s)
{
	size_t i;
	json_t *e;
	json_array_foreach(a, i, e)
		if (strcmp(json_string_value(e), s) == 0)
			return true;
	return false;
}

/* ansible_search_path: the directories a relative file of this task is
 * looked up in, innermost first: the directory of each role the task sits
 * in (the task's own role, then the roles enclosing it), then the directory
 * of the file the task was written in, each once. */
static json_t *search_path(struct ptask *t)
{
	json_t *a = json_array();
	for (struct ptask *p = t; p; p = p->parent)
		if (p->role && !in_list(a, p->role->dir))
			json_array_append_new(a, json_string(p->role->dir));
	if (t && t->dir && !in_list(a, t->dir))
		json_array_append_new(a, json_string(t->dir));
	return a;
}

static json_t *ansible_version(void)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:i}", "string", "2.16.6", "full", "2.16.6",
			 "major", 2, "minor", 16, "revision", 6);
}

/* The play's hosts split into those that have not failed (*live: Ansible's
 * ansible_play_hosts, play_hosts, ansible_play_batch and
 * ansible_current_hosts) and those that have (*failed); both new arrays.
 * ansible_play_hosts_all keeps every one. */
static void split_play_hosts(struct task_run *run, json_t **live, json_t **failed)
{
	*live = json_array();
	*failed = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(run->play_hosts, i, e) {
		bool f = false;
		for (size_t k = 0; k < run->nhosts; k++)
			if (!strcmp(run->hosts[k]->name, json_string_value(e)))
				f = run->hosts[k]->failed;
		json_array_append(f ? *failed : *live, e);
	}
}

/* Whether p is the wrapper of a role instance (its dependencies, then its
 * tasks), rather than a block inside one. */
static bool role_wrapper(const struct ptask *p)
{
	return p->is_block && p->role && (!p->parent || p->parent->role != p->role);
}

static struct ptask *wrapper_of(struct ptask *t)
{
	for (; t; t = t->parent)
		if (role_wrapper(t))
			return t;
	return NULL;
}

/* Ansible's dep_chain of role wrapper w: the roles w is a meta dependency
 * of, outermost first (at most max; the count). */
static size_t dep_chain(struct ptask *w, struct task_role **chain, size_t max)
{
	size_t n = 0;
	for (struct ptask *p = w; p && p->role_start && n < max;) {
		struct ptask *pw = wrapper_of(p->parent);
		if (!pw)
			break;
		chain[n++] = pw->role;
		p = pw;
	}
	for (size_t i = 0; i < n / 2; i++) {
		struct task_role *x = chain[i];
		chain[i] = chain[n - 1 - i];
		chain[n - 1 - i] = x;
	}
	return n;
}

/* The defaults (or vars/main.yml) of w's meta dependencies, each after its
 * own dependencies': what Ansible's get_default_vars and get_vars merge
 * before the role's own. */
static void deps_layer(json_t *v, const struct ptask *w, bool defaults)
{
	for (size_t i = 0; i < w->nblock; i++) {
		const struct ptask *c = w->block[i];
		if (!role_wrapper(c) || !c->role_start)
			continue;
		deps_layer(v, c, defaults);
		json_object_update(v, defaults ? c->role->defaults : c->role->vars);
	}
}

#define MAX_DEP_CHAIN 32

/* ansible_parent_role_names and _paths: for a task under import_role or
 * include_role tasks of another role, that role, then the role around
 * that one's own import, and so on (Ansible's include params). */
static void parent_role_vars(struct ptask *t, json_t *v)
{
	json_t *names = NULL, *paths = NULL;
	for (struct ptask *p = t; p; p = p->parent) {
		if (!role_wrapper(p) || p->role_start)
			continue;
		struct task_role *pr = nearest_role(p->parent);
		if (!pr)
			continue;
		if (!names) {
			names = json_array();
			paths = json_array();
		}
		json_array_append_new(names, json_string(pr->name));
		json_array_append_new(paths, json_string(pr->dir));
	}
	if (names) {
		json_object_set_new(v, "ansible_parent_role_names", names);
		json_object_set_new(v, "ansible_parent_role_paths", paths);
	}
}

/* Ansible's get_all_dependencies of role wrapper w: each dependency's own,
 * then that dependency, depth first (names appended to deps). */
static void role_deps(const struct ptask *w, json_t *deps)
{
	for (size_t i = 0; i < w->nblock; i++) {
		const struct ptask *c = w->block[i];
		if (!role_wrapper(c) || !c->role_start)
			continue;
		role_deps(c, deps);
		json_array_append_new(deps, json_string(c->role->name));
	}
}

/* Collects the import_role wrappers under v, in the order Ansible loads
 * them, each after those its own tasks import. */
static void imported_roles(struct ptask *const *v, size_t n, const struct ptask ***out, size_t *nout)
{
	for (size_t i = 0; i < n; i++) {
		const struct ptask *p = v[i];
		if (!p->is_block)
			continue;
		imported_roles(p->block, p->nblock, out, nout);
		imported_roles(p->rescue, p->nrescue, out, nout);
		imported_roles(p->always, p->nalways, out, nout);
		if (role_wrapper(p) && !p->role_start) {
			*out = xreallocarray(*out, *nout + 1, sizeof(**out));
			(*out)[(*nout)++] = p;
		}
	}
}

/* Ansible's play.roles, as role wrappers (a new array, *n of them): the
 * roles: section's, then each imported role as Ansible appends it when it
 * loads it. (Ansible also adds, when an include_role runs, the roles the
 * included role imports: imc has those it knows at load.) */
static const struct ptask **play_roles(const struct task_play *play, size_t *n)
{
	const struct ptask **out = NULL;
	*n = 0;
	for (size_t i = 0; i < play->nroles; i++) {
		if (!play->roles[i]->role)
			continue;
		out = xreallocarray(out, *n + 1, sizeof(*out));
		out[(*n)++] = play->roles[i];
	}
	imported_roles(play->roles, play->nroles, &out, n);
	imported_roles(play->pre_tasks, play->npre, &out, n);
	imported_roles(play->tasks, play->ntasks, &out, n);
	imported_roles(play->post_tasks, play->npost, &out, n);
	imported_roles(play->handlers, play->nhandlers, &out, n);
	return out;
}

/* The defaults (defaults true) or vars/main.yml of every role of the play,
 * each after its dependencies': Ansible gives them to every task of the
 * play (private_role_vars off, its default). */
static void play_roles_layer(const struct task_play *play, json_t *v, bool defaults)
{
	size_t n;
	const struct ptask **w = play_roles(play, &n);
	for (size_t i = 0; i < n; i++) {
		deps_layer(v, w[i], defaults);
		json_object_update(v, defaults ? w[i]->role->defaults : w[i]->role->vars);
	}
	free(w);
}

static void add_unique(json_t *to, json_t *from)
{
	size_t i;
	json_t *e;
	json_array_foreach(from, i, e)
		if (!in_list(to, json_string_value(e)))
			json_array_append(to, e);
}

/* Ansible's role name variables of a play: ansible_play_role_names (its
 * roles, play_roles), role_names (the same), ansible_dependent_role_names
 * (their dependencies, all levels) and ansible_role_names (both). Ansible
 * builds the last two from Python sets, in no order of its own: here,
 * first seen first. */
static void role_name_vars(const struct task_play *play, json_t *v)
{
	json_t *names = json_array(), *deps = json_array(), *all = json_array();
	size_t n;
	const struct ptask **w = play_roles(play, &n);
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(names, json_string(w[i]->role->name));
		role_deps(w[i], deps);
	}
	free(w);
	json_t *udeps = json_array();
	add_unique(udeps, deps);
	json_decref(deps);
	add_unique(all, udeps);
	add_unique(all, names);
	json_object_set(v, "ansible_play_role_names", names);
	json_object_set_new(v, "role_names", names);
	json_object_set_new(v, "ansible_dependent_role_names", udeps);
	json_object_set_new(v, "ansible_role_names", all);
}

/* The magic variables Ansible defines for every task that the other ones
 * here do not cover: the play's name, the run's options, the hosts that
 * failed, and the connection's (a host's address is its inventory name
 * unless ansible_host says otherwise). */
static void run_magic_vars(struct task_run *run, struct task_host *host, json_t *v)
{
	if (run->play && run->play->name)
		json_object_set_new(v, "ansible_play_name", json_string(run->play->name));
	if (run->play)
		role_name_vars(run->play, v);
	json_object_set_new(v, "ansible_forks", json_integer(run->forks));
	json_object_set_new(v, "ansible_run_tags",
			    run->only_tags ? json_copy(run->only_tags) : json_pack("[s]", "all"));
	json_object_set_new(v, "ansible_skip_tags", run->skip_tags ? json_copy(run->skip_tags) : json_array());
	json_object_set_new(v, "ansible_verbosity", json_integer(run->out ? run->out->verbosity : 0));
	if (!json_object_get(v, "ansible_host"))
		json_object_set_new(v, "ansible_host", json_string(host->name));
}

json_t *exec_build_vars(struct task_run *run, struct task_host *host, struct ptask *t,
			json_t *include_params)
{
	json_t *v = json_object();
	struct task_role *role = nearest_role(t);
	/* a role's variables as Ansible's Role gives them: its dependencies'
	 * and the roles it is a dependency of (dep_chain) around its own */
	struct ptask *w = role ? wrapper_of(t) : NULL;
	struct task_role *chain[MAX_DEP_CHAIN];
	size_t nchain = w ? dep_chain(w, chain, MAX_DEP_CHAIN) : 0;
	if (run->play)
		play_roles_layer(run->play, v, true);
	if (w)
		deps_layer(v, w, true);
	for (size_t i = 0; i < nchain; i++)
		json_object_update(v, chain[i]->defaults);
	if (role)
		json_object_update(v, role->defaults);
	json_object_update(v, run->global_vars);
	json_t *iv = inventory_vars(run, host);
	json_object_update(v, iv);
	json_decref(iv);
	if (run->play) {
		json_object_update(v, run->play->vars);
		play_roles_layer(run->play, v, false);
	}
	for (size_t i = 0; i < nchain; i++)
		json_object_update(v, chain[i]->vars);
	if (w)
		deps_layer(v, w, false);
	if (role)
		json_object_update(v, role->vars);
	add_chain_vars(v, t, false);
	pthread_mutex_lock(&task_facts_lock);
	json_object_update(v, host->included);
	json_object_update(v, host->facts);
	json_object_set_new(v, "ansible_facts", exec_ansible_facts(host));
	/* add_host and group_by swap the groups object under this lock */
	json_t *groups = json_incref(run->groups);
	pthread_mutex_unlock(&task_facts_lock);
	for (size_t i = 0; i < nchain; i++)
		json_object_update(v, chain[i]->params);
	if (role)
		json_object_update(v, role->params);
	add_chain_vars(v, t, true);
	if (include_params)
		json_object_update(v, include_params);
	parent_role_vars(t, v);
	json_object_update(v, run->extra_vars);

	json_object_set_new(v, "inventory_hostname", json_string(host->name));
	char *short_name = xstrndup(host->name, strcspn(host->name, "."));
	json_object_set_new(v, "inventory_hostname_short", json_string(short_name));
	free(short_name);
	json_object_set_new(v, "groups", groups);
	json_object_set_new(v, "group_names", group_names(groups, host->name));
	if (run->play_hosts) {
		json_t *live, *failed;
		split_play_hosts(run, &live, &failed);
		json_object_set(v, "play_hosts", live);
		json_object_set(v, "ansible_play_hosts", live);
		/* serial: the current batch's hosts only */
		json_t *batch = run->batch ? json_array() : json_incref(live);
		for (size_t i = 0; run->batch && i < run->nbatch; i++)
			if (!run->batch[i]->failed)
				json_array_append_new(batch, json_string(run->batch[i]->name));
		json_object_set_new(v, "ansible_play_batch", batch);
		json_object_set(v, "ansible_current_hosts", live);
		json_object_set_new(v, "ansible_failed_hosts", failed);
		json_object_set(v, "ansible_play_hosts_all", run->play_hosts);
		json_decref(live);
	}
	if (run->pb)
		json_object_set_new(v, "playbook_dir", json_string(run->pb->dir));
	if (role) {
		json_object_set_new(v, "role_path", json_string(role->dir));
		json_object_set_new(v, "role_name", json_string(role->name));
	}
	json_object_set_new(v, "ansible_search_path", search_path(t));
	run_magic_vars(run, host, v);
	json_object_set_new(v, "omit", json_string(TMPL_OMIT));
	json_object_set_new(v, "ansible_version", ansible_version());
	json_object_set_new(v, "ansible_playbook_python", json_string(which_python()));
	json_object_set_new(v, "ansible_check_mode", json_boolean(run->check));
	/* no ansible_managed: Ansible defines it only where a template is
	 * rendered (the template module, the template lookup) */
	return v;
}

json_t *exec_hostvars(struct task_run *run)
{
	json_t *hv = json_object();
	pthread_mutex_lock(&task_facts_lock);
	/* the inventory's hosts, those add_host put there included */
	for (size_t i = 0; i < run->nhosts + run->nadded; i++) {
		struct task_host *h = i < run->nhosts ? run->hosts[i] : run->added[i - run->nhosts];
		json_t *o = json_object();
		json_object_update(o, run->global_vars);
		json_t *iv = inventory_vars_locked(run, h);
		json_object_update(o, iv);
		json_decref(iv);
		json_object_update(o, h->included);
		json_object_update(o, h->facts);
		json_object_set_new(o, "ansible_facts", exec_ansible_facts(h));
		json_object_update(o, run->extra_vars);
		json_object_set_new(o, "inventory_hostname", json_string(h->name));
		/* a host's magic variables that hostvars shows as Ansible does */
		json_object_set_new(o, "group_names", group_names(run->groups, h->name));
		json_object_set_new(hv, h->name, o);
	}
	pthread_mutex_unlock(&task_facts_lock);
	return hv;
}

bool exec_hostvar_registered(struct task_run *run, const char *host, const char *name)
{
	bool r = false;
	pthread_mutex_lock(&task_facts_lock);
	for (size_t i = 0; i < run->nhosts + run->nadded; i++) {
		struct task_host *h = i < run->nhosts ? run->hosts[i] : run->added[i - run->nhosts];
		if (!strcmp(h->name, host)) {
			r = json_object_get(h->registered, name) != NULL;
			break;
		}
	}
	pthread_mutex_unlock(&task_facts_lock);
	return r;
}

void exec_include_var(struct task_host *h, const char *name, json_t *v)
{
	pthread_mutex_lock(&task_facts_lock);
	json_object_set(h->included, name, v);
	pthread_mutex_unlock(&task_facts_lock);
}

/* The innermost value of a keyword along the task's block chain, then the play. */
json_t *exec_keyword(struct task_run *run, struct ptask *t, const char *kw)
{
	for (struct ptask *p = t; p; p = p->parent) {
		json_t *v = json_object_get(p->raw, kw);
		if (v)
			return v;
	}
	return run->play ? json_object_get(run->play->raw, kw) : NULL;
}
