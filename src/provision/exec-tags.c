/* exec-tags.c: which tasks a run with --tags/--skip-tags runs, as
 * ansible-playbook selects them. A task's tags are its own, those of every
 * enclosing block, static import and role entry, and the play's; a dynamic
 * include_tasks/include_role passes its own tags to no included task (its
 * enclosing ones still reach them). An untagged task has the tag
 * "untagged". Without --tags every task runs but one tagged "never";
 * "always" runs whatever --tags says (select_tags states the rules). Kept
 * apart from the play loop: the gathering and every task of a list ask it. */
#include "config.h"

#include <string.h>

#include "provision/exec-tags.h"
#include "provision/exec.h"
#include "provision/vars.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The task whose tags are read, and its variables, built only when a tag
 * is templated (most are not, and every task is asked). */
struct tag_ctx {
	struct exec_ctx x;
	json_t *inc_params;
};

/* Adds to set (an object used as a set) the tags of a tags keyword: a
 * list, or one string of comma-separated names; a tag with "{{" is
 * templated with the task's variables (kept as written if that fails). */
static void add_tags(struct tag_ctx *c, json_t *set, json_t *v)
{
	if (!v)
		return;
	json_t *tv = NULL;
	if (c && json_is_string(v) && strstr(json_string_value(v), "{{")) {
		struct diag d = DIAG_INIT;
		if (!c->x.vars)
			c->x.vars = exec_build_vars(c->x.run, c->x.host, c->x.task, c->inc_params);
		tv = xt_value(&c->x, v, &d);
		diag_release(&d);
		if (tv)
			v = tv;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		while (*s) {
			size_t n = strcspn(s, ",");
			size_t a = 0, b = n;
			while (a < b && (s[a] == ' ' || s[a] == '\t'))
				a++;
			while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
				b--;
			char *tag = xstrndup(s + a, b - a);
			json_object_set_new(set, tag, json_true());
			free(tag);
			s += n;
			if (*s == ',')
				s++;
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			if (json_is_string(e) && strstr(json_string_value(e), "{{"))
				add_tags(c, set, e);
			else if (json_is_string(e))
				json_object_set_new(set, json_string_value(e), json_true());
			else if (json_is_integer(e)) {
				char *tag = xasprintf("%lld", (long long)json_integer_value(e));
				json_object_set_new(set, tag, json_true());
				free(tag);
			}
		}
	}
	json_decref(tv);
}

static bool is_dynamic_include(const struct ptask *t)
{
	return !t->is_block && t->module &&
	       (!strcmp(t->module, "include_tasks") || !strcmp(t->module, "include_role") ||
		!strcmp(t->module, "include"));
}

static bool has(json_t *set, const char *tag)
{
	return json_object_get(set, tag) != NULL;
}

static bool disjoint(json_t *set, json_t *list)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
		if (has(set, json_string_value(e)))
			return false;
	return true;
}

static bool only_untagged(json_t *tags)
{
	return json_object_size(tags) == 1 && has(tags, "untagged");
}

/* Ansible's rule on a task's tags (tags, never empty: "untagged" stands
 * for none) and the run's --tags (default "all") and --skip-tags. */
static bool select_tags(const struct task_run *run, json_t *tags)
{
	json_t *only = run->only_tags, *skip = run->skip_tags;
	bool all = !json_array_size(only);
	json_t *only_all = NULL;
	if (all)
		only = only_all = json_pack("[s]", "all");
	bool in_only = !disjoint(tags, only), run_it;
	bool only_has_all = false, only_has_tagged = false;
	size_t i;
	json_t *e;
	json_array_foreach(only, i, e) {
		only_has_all |= !strcmp(json_string_value(e), "all");
		only_has_tagged |= !strcmp(json_string_value(e), "tagged");
	}
	if (has(tags, "always"))
		run_it = true;
	else if (only_has_all && !has(tags, "never"))
		run_it = true;
	else if (in_only)
		run_it = true;
	else
		run_it = only_has_tagged && !only_untagged(tags) && !has(tags, "never");
	json_decref(only_all);
	if (!run_it || !json_array_size(skip))
		return run_it;
	bool skip_all = false, skip_tagged = false, skip_always = false;
	json_array_foreach(skip, i, e) {
		skip_all |= !strcmp(json_string_value(e), "all");
		skip_tagged |= !strcmp(json_string_value(e), "tagged");
		skip_always |= !strcmp(json_string_value(e), "always");
	}
	if (skip_all)
		return has(tags, "always") && !skip_always;
	if (!disjoint(tags, skip))
		return false;
	return !(skip_tagged && !only_untagged(tags));
}

json_t *exec_tags_of(struct task_run *run, struct ptask *t, struct task_host *h, json_t *inc_params)
{
	struct tag_ctx c = { .x = { .run = run, .host = h, .task = t }, .inc_params = inc_params };
	json_t *tags = json_object();
	add_tags(&c, tags, json_object_get(t->raw, "tags"));
	for (struct ptask *p = t->parent; p; p = p->parent)
		if (!is_dynamic_include(p))
			add_tags(&c, tags, json_object_get(p->raw, "tags"));
	if (run->play)
		add_tags(&c, tags, json_object_get(run->play->raw, "tags"));
	json_decref(c.x.vars);
	return tags;
}

json_t *exec_tags_play(struct task_run *run)
{
	json_t *tags = json_object();
	add_tags(NULL, tags, run->play ? json_object_get(run->play->raw, "tags") : NULL);
	return tags;
}

bool exec_tags_select(struct task_run *run, struct ptask *t, struct task_host *h, json_t *inc_params)
{
	json_t *tags = exec_tags_of(run, t, h, inc_params);
	if (!json_object_size(tags))
		json_object_set_new(tags, "untagged", json_true());
	bool r = select_tags(run, tags);
	json_decref(tags);
	return r;
}

bool exec_tags_gather(struct task_run *run)
{
	json_t *tags = exec_tags_play(run);
	/* the implicit fact gathering is tagged always unless the play has tags */
	if (!json_object_size(tags))
		json_object_set_new(tags, "always", json_true());
	bool r = select_tags(run, tags);
	json_decref(tags);
	return r;
}
