/* output.h: the output sink (output.c): Ansible-shaped text (play and
 * task banners, one line per host, the recap) and the json callback
 * document, written under one lock since hosts run in parallel. */
#ifndef IMC_PROVISION_OUTPUT_H
#define IMC_PROVISION_OUTPUT_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "provision/run.h"

struct task_out {
	FILE *fp;                      /* Ansible-shaped text, or NULL */
	void (*on_log)(void *opaque, int host, const char *text);
	void *opaque;
	json_t *results;               /* json callback document being built, or NULL */
	json_t *cur_play;              /* borrowed */
	json_t *cur_task;              /* borrowed */
	int verbosity;                 /* ansible-playbook's -v count (imc play -v) */
	json_t *warned;                /* the warnings given: each once, as Ansible's Display */
	json_t *custom;                /* set_stats' custom stats (custom-stats.c), or NULL */
	/* the free strategy (exec-free.c): hosts run their own tasks at once,
	 * so the task a result belongs to is each thread's own: its banner
	 * and its entry of the json document (see out_task_lazy) */
	bool per_thread;
	unsigned long gen;             /* bumped by each play: a thread's task entry is stale */
	const void *last_banner;       /* the task whose lazy banner was printed last */
	pthread_mutex_t lock;
};

void out_init(struct task_out *o);
void out_release(struct task_out *o);
void out_play(struct task_out *o, const char *name);
void out_task(struct task_out *o, const char *banner_kind, const char *name);
/* The banner of the task key this thread runs, as Ansible's default
 * callback prints it under the free strategy: not when the task starts
 * but before its first result line (out_line from this thread), and only
 * when the last banner printed was another task's; extra (may be NULL) is
 * printed under it (-vv's task path). A task that prints no result (an
 * acted meta) shows no banner: out_task_lazy_drop forgets it. */
void out_task_lazy(struct task_out *o, const char *banner_kind, const char *name, const void *key,
		   const char *extra);
void out_task_lazy_drop(struct task_out *o);
/* A banner of its own (Ansible's "NO MORE HOSTS LEFT"). */
void out_banner(struct task_out *o, const char *text);
void out_line(struct task_out *o, int host, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void out_begin_play(struct task_out *o, const char *name);
void out_begin_task(struct task_out *o, const char *name);
void out_record(struct task_out *o, struct task_host *h, json_t *res);
void out_recap(struct task_out *o, struct task_host **hosts, size_t n);
/* A changed result's diff (a list or one object of before/after with
 * their headers, or prepared text) printed as ansible-playbook --diff
 * prints it: unified hunks with 3 lines of context, then a blank line;
 * nothing when res is unchanged or its diff is empty. */
void out_diff(struct task_out *o, int host, json_t *res);
/* What Ansible's default callback appends to an ok, changed or skipped
 * line (a loop item's too) for result res of module: " => " and the
 * result as its _dump_results shows it, when the verbosity is 1 or more
 * or always (the module asked its result to be shown: Ansible's
 * _ansible_verbose_always); else "". The
 * result shown has no failed, skipped, exception or _ansible_ keys, no
 * invocation or diff below -vvv; debug's keeps msg alone (with
 * exception, warnings and deprecations) or loses changed, failed and
 * skipped; keys sorted, indented by 4 when always or at -vvv, else on
 * one line. */
char *out_verbose(const struct task_out *o, json_t *res, const char *module, bool always);
/* The same whatever the verbosity: what a failed item's line shows. */
char *out_dump(const struct task_out *o, json_t *res, const char *module, bool always);
/* A warning, once per text (Ansible's Display gives each once): once for
 * the run outside a task's run on a host, once per such run inside one
 * (each has a Display of its own in Ansible's worker); on stderr when the
 * log goes to a FILE, else to the log callback. */
void out_warning(struct task_out *o, const char *text);
/* This thread enters the run of a task on a host (a new scope for
 * out_warning): the scope to give back to out_warning_scope_leave. */
unsigned long out_warning_scope_enter(void);
/* The same for what Ansible's main process warns (its strategy): once
 * per playbook, whichever thread warns. */
unsigned long out_warning_scope_main(void);
void out_warning_scope_leave(unsigned long prev);
/* Compact JSON (Ansible's ", " and ": " separators). */
char *out_json_compact(json_t *v);

#endif
