/* exec-list.c: a playbook walked in Ansible's task order without running
 * it: what ansible-playbook's --list-hosts, --list-tasks and --list-tags
 * print, and the task --start-at-task starts at. Both walk what Ansible's
 * play iterator holds: a play's pre_tasks, roles, tasks and post_tasks,
 * the tasks --tags/--skip-tags select, statically imported files and
 * roles expanded, a dynamic include one task whose file is not read. The
 * listing reads only a block's own tasks (not its rescue or always, as
 * ansible-playbook's listing), the start search its always too (the
 * iterator reaches always without a failure, rescue only after one).
 * Kept apart from the play loop, which asks it at three points. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "provision/exec-tags.h"
#include "provision/exec.h"
#include "provision/vars.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The hosts of a play as Ansible joins them: a list's items joined by
 * commas, a pattern string as written (malloc'd). */
static char *play_host_list(struct task_play *p)
{
	json_t *h = json_object_get(p->raw, "hosts");
	if (!json_is_array(h))
		return xstrdup(json_is_string(h) ? json_string_value(h) : p->hosts);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *e;
	json_array_foreach(h, i, e)
		strbuf_addf(&sb, "%s%s", i ? "," : "", json_is_string(e) ? json_string_value(e) : "");
	return strbuf_detach(&sb);
}

char *exec_play_name(struct task_run *run, struct task_play *p, struct task_host *h)
{
	const char *name = json_string_value(json_object_get(p->raw, "name"));
	if (!name || !*name)
		return play_host_list(p);
	/* templated with the host's variables, extra vars included (IM's
	 * "{{IM_HOST}}"); kept as written when that fails */
	if (h && strstr(name, "{{")) {
		struct exec_ctx x = { .run = run, .host = h };
		x.vars = exec_build_vars(run, h, NULL, NULL);
		struct diag td = DIAG_INIT;
		json_t *s = json_string(name);
		json_t *r = xt_value(&x, s, &td);
		char *out = json_is_string(r) ? xstrdup(json_string_value(r)) : NULL;
		json_decref(r);
		json_decref(s);
		json_decref(x.vars);
		diag_release(&td);
		if (out)
			return out;
	}
	return xstrdup(name);
}

/* Python's repr of a str, as Ansible prints a play's pattern list */
static void add_py_repr(struct strbuf *sb, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	strbuf_addf(sb, "%c", q);
	for (; *s; s++) {
		if (*s == '\\' || *s == q)
			strbuf_addf(sb, "\\%c", *s);
		else if (*s == '\n')
			strbuf_addf(sb, "\\n");
		else if (*s == '\t')
			strbuf_addf(sb, "\\t");
		else
			strbuf_addf(sb, "%c", *s);
	}
	strbuf_addf(sb, "%c", q);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of set (an object), sorted as Python sorts str (by code
 * point: byte order of UTF-8) and joined by sep. */
static void add_sorted(struct strbuf *sb, json_t *set, const char *sep)
{
	size_t n = json_object_size(set), k = 0;
	const char **names = xcalloc(n + 1, sizeof(*names));
	const char *key;
	json_t *v;
	json_object_foreach(set, key, v)
		names[k++] = key;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i ? sep : "", names[i]);
	free(names);
}

struct lister {
	struct task_run *run;
	struct task_host *h;   /* whose variables template the tags */
	unsigned what;
	struct strbuf tasks;   /* the "tasks:" lines */
	json_t *all_tags;      /* every listed task's tags (a set) */
	struct diag *d;
};

/* The name a listing gives t: Ansible's task.get_name() (the role's name
 * before a named role task's name, nothing templated), the action as
 * written for an unnamed task. */
static void add_task_name(struct strbuf *sb, const struct ptask *t)
{
	const char *name = json_string_value(json_object_get(t->raw, "name"));
	if (name && *name && t->role)
		strbuf_addf(sb, "%s : %s", t->role->name, name);
	else
		strbuf_addf(sb, "%s", name && *name ? name : t->action ? t->action : t->module);
}

static int list_tasks(struct lister *l, struct ptask **list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ptask *t = list[i];
		if (t->is_block) {
			if (list_tasks(l, t->block, t->nblock) < 0)
				return -1;
			continue;
		}
		if (t->action && !strcmp(t->action, "include")) {
			/* Ansible 2.14 reads a static include's file at load and
			 * lists its tasks; imc includes it when it runs */
			diag_error(l->d, IMC_EXIT_DATAERR, NULL,
				   "%s:%d: cannot list the tasks of 'include' (Ansible reads its file at load, imc when it runs): use import_tasks or include_tasks",
				   t->file, t->line);
			return -1;
		}
		if (!exec_tags_select(l->run, t, l->h, NULL))
			continue;
		json_t *tags = exec_tags_of(l->run, t, l->h, NULL);
		json_object_update(l->all_tags, tags);
		if (l->what & EXEC_LIST_TASKS) {
			strbuf_addf(&l->tasks, "      ");
			add_task_name(&l->tasks, t);
			strbuf_addf(&l->tasks, "\tTAGS: [");
			add_sorted(&l->tasks, tags, ", ");
			strbuf_addf(&l->tasks, "]\n");
		}
		json_decref(tags);
	}
	return 0;
}

int exec_list_playbook(struct task_run *run, struct task_playbook *pb, const char *path,
		       unsigned what, FILE *fp, struct diag *d)
{
	struct task_play *saved = run->play;
	struct task_host *first = inventory_nhosts(run) ? inventory_host(run, 0) : NULL;
	int rc = -1;
	run->pb = pb;
	fprintf(fp, "\nplaybook: %s\n", path);
	for (size_t i = 0; i < pb->nplays; i++) {
		struct task_play *p = pb->plays[i];
		run->play = p;
		struct strbuf sb = STRBUF_INIT;
		char *hl = play_host_list(p), *name = exec_play_name(run, p, first);
		json_t *ptags = exec_tags_play(run);
		/* Ansible joins the play's tags (a set) by ',' */
		strbuf_addf(&sb, "\n  play #%zu (%s): %s\tTAGS: [", i + 1, hl, name);
		const char *key;
		json_t *v;
		size_t k = 0;
		json_object_foreach(ptags, key, v)
			strbuf_addf(&sb, "%s%s", k++ ? "," : "", key);
		strbuf_addf(&sb, "]");
		free(hl);
		free(name);
		if (what & EXEC_LIST_HOSTS) {
			json_t *h = json_object_get(p->raw, "hosts");
			strbuf_addf(&sb, "\n    pattern: [");
			if (json_is_array(h)) {
				size_t j;
				json_t *e;
				json_array_foreach(h, j, e) {
					strbuf_addf(&sb, "%s", j ? ", " : "");
					add_py_repr(&sb, json_is_string(e) ? json_string_value(e) : "");
				}
			} else
				add_py_repr(&sb, p->hosts);
			strbuf_addf(&sb, "]");
			struct strbuf names = STRBUF_INIT;
			size_t nh = 0;
			inventory_implicit(run, p->hosts);
			for (size_t j = 0; j < inventory_nhosts(run); j++) {
				struct task_host *th = inventory_host(run, j);
				if (!inventory_selected(run, p->hosts, th->name) ||
				    (run->subset && !inventory_selected(run, run->subset, th->name)))
					continue;
				strbuf_addf(&names, "\n      %s", th->name);
				nh++;
			}
			strbuf_addf(&sb, "\n    hosts (%zu):%s", nh, names.len ? names.buf : "");
			strbuf_release(&names);
		}
		fprintf(fp, "%s\n", sb.buf);
		strbuf_release(&sb);
		json_decref(ptags);
		if (!(what & (EXEC_LIST_TASKS | EXEC_LIST_TAGS)))
			continue;
		struct lister l = { .run = run, .h = first, .what = what, .tasks = STRBUF_INIT,
				    .all_tags = exec_tags_play(run), .d = d };
		int r = 0;
		if (what & EXEC_LIST_TASKS)
			strbuf_addf(&l.tasks, "    tasks:\n");
		struct ptask **lists[] = { p->pre_tasks, p->roles, p->tasks, p->post_tasks };
		size_t counts[] = { p->npre, p->nroles, p->ntasks, p->npost };
		for (size_t j = 0; j < 4 && r == 0; j++)
			r = list_tasks(&l, lists[j], counts[j]);
		if (r == 0 && (what & EXEC_LIST_TAGS)) {
			strbuf_addf(&l.tasks, "      TASK TAGS: [");
			add_sorted(&l.tasks, l.all_tags, ", ");
			strbuf_addf(&l.tasks, "]\n");
		}
		/* Ansible's display ends a message with a newline unless it has one */
		if (r == 0)
			fprintf(fp, "%s%s", l.tasks.buf ? l.tasks.buf : "",
				l.tasks.len && l.tasks.buf[l.tasks.len - 1] == '\n' ? "" : "\n");
		strbuf_release(&l.tasks);
		json_decref(l.all_tags);
		if (r < 0)
			goto out;
	}
	rc = 0;
out:
	run->play = saved;
	return rc;
}

/* ---- --start-at-task ---------------------------------------------------------- */

/* Ansible's match: the task's name or its role-prefixed name, equal to
 * the pattern or matching it as a glob. */
static bool start_matches(const struct ptask *t, const char *pat)
{
	const char *name = json_string_value(json_object_get(t->raw, "name"));
	if (name && *name && (!strcmp(name, pat) || !fnmatch(pat, name, 0)))
		return true;
	struct strbuf sb = STRBUF_INIT;
	add_task_name(&sb, t);
	bool r = !strcmp(sb.buf, pat) || !fnmatch(pat, sb.buf, 0);
	strbuf_release(&sb);
	return r;
}

static struct ptask *start_find(struct task_run *run, struct task_host *h, struct ptask **list,
				size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ptask *t = list[i], *r;
		if (t->is_block) {
			if ((r = start_find(run, h, t->block, t->nblock)) ||
			    (r = start_find(run, h, t->always, t->nalways)))
				return r;
		} else if (exec_tags_select(run, t, h, NULL) && start_matches(t, run->start_at))
			return t;
	}
	return NULL;
}

void exec_start_at_play(struct task_run *run, struct task_play *p, struct task_host *h)
{
	struct ptask **lists[] = { p->pre_tasks, p->roles, p->tasks, p->post_tasks };
	size_t counts[] = { p->npre, p->nroles, p->ntasks, p->npost };
	run->start_task = NULL;
	for (size_t j = 0; j < 4 && !run->start_task; j++)
		run->start_task = start_find(run, h, lists[j], counts[j]);
}

bool exec_start_skip(struct task_run *run, struct ptask *t)
{
	if (!run->start_at || t->is_block)
		return false;
	if (t != run->start_task)
		return true;
	run->start_at = NULL;
	run->start_task = NULL;
	return false;
}
