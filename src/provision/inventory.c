/* inventory.c: the in-memory inventory of a run as add_host and group_by
 * change it, with Ansible's rules: a new host joins "all" (and
 * "ungrouped" while it is in no other group); a group with no parent is
 * a child of "all"; a group lists the hosts of its descendants too; and
 * "changed" is reported exactly when Ansible's inventory says it changed
 * (a new host, new or different vars, a new group, a new membership, a
 * new parent-child link). The groups object is copied, changed and
 * swapped under task_facts_lock, never changed in place, because task
 * variables of other hosts hold references to it while they template.
 * Plays, --limit and the listings select its hosts with a host pattern,
 * and a host's inventory variables follow the groups it is in. */
#include "config.h"

#include <fnmatch.h>
#include <string.h>

#include "provision/conn/conn.h"
#include "provision/run.h"
#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Parent chains deeper than this are a cycle (Ansible refuses those). */
#define MAX_DEPTH 64

static bool has_name(json_t *arr, const char *s)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
		if (json_is_string(e) && !strcmp(json_string_value(e), s))
			return true;
	return false;
}

size_t inventory_nhosts(struct task_run *run)
{
	pthread_mutex_lock(&task_facts_lock);
	size_t n = run->nhosts + run->nadded;
	pthread_mutex_unlock(&task_facts_lock);
	return n;
}

struct task_host *inventory_host(struct task_run *run, size_t i)
{
	pthread_mutex_lock(&task_facts_lock);
	struct task_host *h = i < run->nhosts ? run->hosts[i]
			      : i - run->nhosts < run->nadded ? run->added[i - run->nhosts] : NULL;
	pthread_mutex_unlock(&task_facts_lock);
	return h;
}

static struct task_host *find_locked(struct task_run *run, const char *name)
{
	for (size_t i = 0; i < run->nhosts; i++)
		if (!strcmp(run->hosts[i]->name, name))
			return run->hosts[i];
	for (size_t i = 0; i < run->nadded; i++)
		if (!strcmp(run->added[i]->name, name))
			return run->added[i];
	return NULL;
}

struct task_host *inventory_find(struct task_run *run, const char *name)
{
	pthread_mutex_lock(&task_facts_lock);
	struct task_host *h = find_locked(run, name);
	pthread_mutex_unlock(&task_facts_lock);
	return h;
}

/* Creates group name in g when missing; true when it did. */
static bool group_ensure(json_t *g, const char *name)
{
	if (json_object_get(g, name))
		return false;
	json_object_set_new(g, name, json_array());
	return true;
}

/* Puts host in group and in every ancestor of group. */
static void add_up(struct task_run *run, json_t *g, const char *group, const char *host, int depth)
{
	json_t *members = json_object_get(g, group);
	if (!members || depth > MAX_DEPTH)
		return;
	if (!has_name(members, host))
		json_array_append_new(members, json_string(host));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(run->group_parents, group), i, p)
		add_up(run, g, json_string_value(p), host, depth + 1);
}

/* Makes child a child group of parent; true when the link is new. */
static bool add_child(struct task_run *run, json_t *g, const char *parent, const char *child)
{
	json_t *ps = json_object_get(run->group_parents, child);
	if (!ps) {
		ps = json_array();
		json_object_set_new(run->group_parents, child, ps);
	}
	if (!strcmp(parent, child) || has_name(ps, parent))
		return false;
	json_array_append_new(ps, json_string(parent));
	size_t i;
	json_t *h;
	json_array_foreach(json_object_get(g, child), i, h)
		add_up(run, g, parent, json_string_value(h), 0);
	return true;
}

/* After a change: groups without a parent become children of "all"; host
 * is in "ungrouped" exactly when it is in no other group but "all". */
static void reconcile(struct task_run *run, json_t *g, const char *host)
{
	const char *name;
	json_t *members;
	bool grouped = false;
	json_object_foreach(g, name, members) {
		if (!strcmp(name, "all") || !strcmp(name, "ungrouped"))
			continue;
		if (!json_array_size(json_object_get(run->group_parents, name)))
			add_child(run, g, "all", name);
		grouped |= has_name(members, host);
	}
	group_ensure(g, "ungrouped");
	json_t *ung = json_object_get(g, "ungrouped");
	if (!grouped && !has_name(ung, host))
		json_array_append_new(ung, json_string(host));
	for (size_t i = json_array_size(ung); grouped && i-- > 0;)
		if (!strcmp(json_string_value(json_array_get(ung, i)), host))
			json_array_remove(ung, i);
}

bool inventory_local(struct task_run *run)
{
	if (!run->nhosts)
		return false;
	for (size_t i = 0; i < run->nhosts; i++)
		if (!run->hosts[i]->conn || strcmp(run->hosts[i]->conn->ops->name, "local"))
			return false;
	return true;
}

/* The connection of a new host: local when its vars say so, or when the
 * run is local (as with ansible-playbook -c local, which applies to every
 * host whose vars name no connection); otherwise none. */
static struct task_conn *new_host_conn(struct task_run *run, json_t *vars)
{
	const char *c = json_string_value(json_object_get(vars, "ansible_connection"));
	if (c)
		return !strcmp(c, "local") ? conn_local_open() : NULL;
	return inventory_local(run) ? conn_local_open() : NULL;
}

bool inventory_add_host(struct task_run *run, const char *name, json_t *groups, json_t *vars)
{
	bool changed = false;
	pthread_mutex_lock(&task_facts_lock);
	if (!run->group_parents)
		run->group_parents = json_object();
	json_t *g = json_deep_copy(run->groups);
	group_ensure(g, "all");
	struct task_host *h = find_locked(run, name);
	if (!h) {
		h = task_host_new(name, new_host_conn(run, vars), NULL);
		h->index = -1;
		run->added = xreallocarray(run->added, run->nadded + 1, sizeof(*run->added));
		run->added[run->nadded++] = h;
		json_array_append_new(json_object_get(g, "all"), json_string(name));
		changed = true;
	} else if (h->implicit) {
		/* add_host puts the implicit localhost in the inventory */
		h->implicit = false;
		json_array_append_new(json_object_get(g, "all"), json_string(name));
		changed = true;
	}
	const char *k;
	json_t *v;
	json_object_foreach(vars, k, v)
		if (!json_equal(json_object_get(h->vars, k), v)) {
			json_object_set(h->vars, k, v);
			changed = true;
		}
	size_t i;
	json_t *e;
	json_array_foreach(groups, i, e) {
		const char *gn = json_string_value(e);
		if (!gn)
			continue;
		changed |= group_ensure(g, gn);
		if (!has_name(json_object_get(g, gn), name)) {
			add_up(run, g, gn, name, 0);
			changed = true;
		}
	}
	if (changed)
		reconcile(run, g, name);
	json_decref(run->groups);
	run->groups = g;
	pthread_mutex_unlock(&task_facts_lock);
	return changed;
}

bool inventory_group_by(struct task_run *run, struct task_host *h, const char *group,
			json_t *parents)
{
	bool changed = false;
	pthread_mutex_lock(&task_facts_lock);
	if (!run->group_parents)
		run->group_parents = json_object();
	json_t *g = json_deep_copy(run->groups);
	/* the group itself being new is no change of Ansible's; its parents are */
	group_ensure(g, group);
	size_t i;
	json_t *p;
	json_array_foreach(parents, i, p)
		changed |= group_ensure(g, json_string_value(p));
	json_array_foreach(parents, i, p)
		changed |= add_child(run, g, json_string_value(p), group);
	if (!has_name(json_object_get(g, group), h->name)) {
		add_up(run, g, group, h->name, 0);
		changed = true;
	}
	if (changed)
		reconcile(run, g, h->name);
	json_decref(run->groups);
	run->groups = g;
	pthread_mutex_unlock(&task_facts_lock);
	return changed;
}

/* ---- host patterns ---------------------------------------------------------- */

bool inventory_localhost_name(const char *s)
{
	return !strcmp(s, "localhost") || !strcmp(s, "127.0.0.1") || !strcmp(s, "::1");
}

static bool any_match_locked(struct task_run *run, const char *pat);

void inventory_implicit(struct task_run *run, const char *pattern)
{
	if (!pattern || !(inventory_local(run) || run->controller_local))
		return;
	char *p = xstrdup(pattern), *save = NULL;
	pthread_mutex_lock(&task_facts_lock);
	for (char *tok = strtok_r(p, ":,", &save); tok; tok = strtok_r(NULL, ":,", &save)) {
		while (*tok == ' ')
			tok++;
		/* an implicit localhost made by an earlier play stays, with its
		 * facts (any_match_locked does not see implicit hosts) */
		if (!inventory_localhost_name(tok) || any_match_locked(run, tok) || find_locked(run, tok))
			continue;
		struct task_host *h = task_host_new(tok, conn_local_open(), NULL);
		h->index = -1;
		h->implicit = true;
		json_object_set_new(h->vars, "ansible_connection", json_string("local"));
		json_object_set_new(h->vars, "ansible_python_interpreter", json_string(which_python()));
		run->added = xreallocarray(run->added, run->nadded + 1, sizeof(*run->added));
		run->added[run->nadded++] = h;
	}
	pthread_mutex_unlock(&task_facts_lock);
	free(p);
}

static bool in_group(struct task_run *run, const char *pat, const char *host)
{
	struct task_host *h = find_locked(run, host);
	if (h && h->implicit)
		return !strcmp(pat, host);
	if (!strcmp(pat, "all") || !strcmp(pat, "*"))
		return true;
	json_t *g = json_object_get(run->groups, pat);
	if (json_is_array(g)) {
		size_t i;
		json_t *e;
		json_array_foreach(g, i, e)
			if (json_is_string(e) && !strcmp(json_string_value(e), host))
				return true;
		return false;
	}
	return fnmatch(pat, host, 0) == 0;
}

/* Whether one pattern word (a host, group or glob) matches a host of the
 * inventory (the implicit ones aside). */
static bool any_match_locked(struct task_run *run, const char *pat)
{
	for (size_t i = 0; i < run->nhosts + run->nadded; i++) {
		struct task_host *h = i < run->nhosts ? run->hosts[i] : run->added[i - run->nhosts];
		if (!h->implicit && in_group(run, pat, h->name))
			return true;
	}
	return false;
}

bool inventory_selected(struct task_run *run, const char *pattern, const char *host)
{
	bool sel = false, any_pos = false;
	char *p = xstrdup(pattern);
	/* first pass: unions; then intersections and exclusions */
	char *save = NULL;
	for (char *tok = strtok_r(p, ":,", &save); tok; tok = strtok_r(NULL, ":,", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok == '!' || *tok == '&')
			continue;
		any_pos = true;
		if (in_group(run, tok, host))
			sel = true;
	}
	free(p);
	if (!any_pos)
		sel = true;
	p = xstrdup(pattern);
	for (char *tok = strtok_r(p, ":,", &save); tok; tok = strtok_r(NULL, ":,", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok == '!' && in_group(run, tok + 1, host))
			sel = false;
		if (*tok == '&' && !in_group(run, tok + 1, host))
			sel = false;
	}
	free(p);
	return sel;
}

/* ---- inventory variables ------------------------------------------------------ */

struct group_rank {
	const char *name;
	int depth;
	json_int_t priority;
};

/* Ansible's group depth: the longest chain of parents up to "all". */
static int group_depth(struct task_run *run, const char *g, int depth)
{
	if (!strcmp(g, "all") || depth > MAX_DEPTH)
		return 0;
	int best = 1;
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(run->group_parents, g), i, p) {
		int dd = group_depth(run, json_string_value(p), depth + 1) + 1;
		if (dd > best)
			best = dd;
	}
	return best;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct group_rank *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void update_from(json_t *v, json_t *layer, const char *name)
{
	json_t *o = json_object_get(layer, name);
	if (json_is_object(o))
		json_object_update(v, o);
}

json_t *inventory_vars_locked(struct task_run *run, struct task_host *h)
{
	if (!run->inv_vars)
		return json_incref(h->vars);
	json_t *file = json_object_get(run->inv_vars, "file");
	json_t *dirs = json_object_get(run->inv_vars, "dirs");
	struct group_rank *gr = xcalloc(json_object_size(run->groups) + 1, sizeof(*gr));
	size_t ng = 0;
	const char *g;
	json_t *members;
	/* the implicit localhost is in no group; "all" applies to every host */
	if (!h->implicit)
		json_object_foreach(run->groups, g, members) {
			if (!strcmp(g, "all") || !has_name(members, h->name))
				continue;
			json_t *pr = json_object_get(json_object_get(run->inv_vars, "prio"), g);
			gr[ng].name = g;
			gr[ng].depth = group_depth(run, g, 0);
			gr[ng].priority = json_is_integer(pr) ? json_integer_value(pr) : 1;
			ng++;
		}
	qsort(gr, ng, sizeof(*gr), cmp_rank);
	json_t *v = json_object();
	update_from(v, file, "all");
	for (size_t i = 0; i < ng; i++)
		update_from(v, file, gr[i].name);
	size_t k;
	json_t *dv;
	json_array_foreach(dirs, k, dv)
		update_from(v, json_object_get(dv, "group_vars"), "all");
	json_array_foreach(dirs, k, dv)
		for (size_t i = 0; i < ng; i++)
			update_from(v, json_object_get(dv, "group_vars"), gr[i].name);
	json_object_update(v, h->vars);
	json_array_foreach(dirs, k, dv)
		update_from(v, json_object_get(dv, "host_vars"), h->name);
	free(gr);
	return v;
}

json_t *inventory_vars(struct task_run *run, struct task_host *h)
{
	if (!run->inv_vars)
		return json_incref(h->vars);
	pthread_mutex_lock(&task_facts_lock);
	json_t *v = inventory_vars_locked(run, h);
	pthread_mutex_unlock(&task_facts_lock);
	return v;
}
