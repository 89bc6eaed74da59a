/* plan-schedule.c: the contextualization schedule, with IM's semantics:
 * which configure runs on which VM at which step. Each item 'system S
 * configure C [step N]' of the contextualize block runs C on every VM of S
 * at step N (0 when not given); steps run in increasing order, the items of
 * a step in the RADL's order. Without a contextualize block each system
 * runs the configure of its own name; an empty 'contextualize ()' turns
 * contextualization off. Kept apart from plan.c because reconfigure and
 * addresource recompute it for the VMs an infrastructure has now, not for
 * a fresh plan. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plan/plan.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void note(struct plan_schedule *s, char *msg)
{
	s->notes = xreallocarray(s->notes, s->nnotes + 1, sizeof(*s->notes));
	s->notes[s->nnotes++] = msg;
}

static struct plan_step *step_get(struct plan_schedule *s, int step)
{
	size_t i = 0;
	while (i < s->nsteps && s->steps[i].step < step)
		i++;
	if (i < s->nsteps && s->steps[i].step == step)
		return &s->steps[i];
	s->steps = xreallocarray(s->steps, s->nsteps + 1, sizeof(*s->steps));
	memmove(&s->steps[i + 1], &s->steps[i], (s->nsteps - i) * sizeof(*s->steps));
	s->nsteps++;
	memset(&s->steps[i], 0, sizeof(s->steps[i]));
	s->steps[i].step = step;
	return &s->steps[i];
}

static void add_item(struct plan_schedule *s, int step, size_t vm, const struct radl_configure *c,
		     const char *tool)
{
	struct plan_step *st = step_get(s, step);
	st->items = xreallocarray(st->items, st->nitems + 1, sizeof(*st->items));
	st->items[st->nitems].vm = vm;
	st->items[st->nitems].conf = c;
	st->items[st->nitems].tool = tool;
	st->nitems++;
}

/* `configure S ()` with S a system id: that system is not contextualized. */
static bool system_disabled(const struct radl_doc *doc, const char *system)
{
	const struct radl_configure *c = radl_find_configure(doc, system);
	return c && !c->reference && !c->recipe;
}

/* Schedules configure c (by name) on every contextualized VM of system. */
static void schedule_on(struct plan_schedule *s, const struct radl_doc *doc, const char *const *systems,
			size_t nvms, const bool *ctxt, const char *system, const char *conf_id, int step,
			const char *tool)
{
	const struct radl_configure *c = radl_find_configure(doc, conf_id);
	if (!c || c->reference || !c->recipe) {
		if (!c || c->reference)
			note(s, xasprintf("configure '%s' has no recipe here: not run", conf_id));
		return;
	}
	if (tool && strcasecmp(tool, "ansible") != 0) {
		note(s, xasprintf("configure '%s' on '%s' is 'with %s': passed to the cloud, not run by imc",
				  conf_id, system, tool));
		return;
	}
	bool any = false;
	for (size_t i = 0; i < nvms; i++)
		if (strcmp(systems[i], system) == 0) {
			any = true;
			if (ctxt[i])
				add_item(s, step, i, c, tool);
		}
	if (!any)
		note(s, xasprintf("system '%s' has no VMs: configure '%s' not run", system, conf_id));
}

int plan_schedule_build(const struct radl_doc *doc, const char *const *systems, size_t nvms,
			struct plan_schedule *out, bool *ctxt_out, struct diag *d)
{
	(void)d;
	memset(out, 0, sizeof(*out));
	bool *ctxt = xcalloc(nvms + 1, sizeof(*ctxt));
	const struct radl_contextualize *cx = &doc->ctxt;
	out->max_time = cx->present ? (int)cx->max_time.value : 0;
	if (cx->present && cx->nitems == 0) {
		/* contextualize (): Ansible disabled entirely */
		out->disabled = true;
	} else {
		for (size_t i = 0; i < nvms; i++)
			ctxt[i] = !system_disabled(doc, systems[i]);
		if (!cx->present) {
			/* the default: each system runs the configure of its own name */
			for (size_t k = 0; k < doc->nconfigures; k++) {
				const struct radl_configure *c = &doc->configures[k];
				bool has_vm = false;
				for (size_t i = 0; i < nvms && !has_vm; i++)
					has_vm = strcmp(systems[i], c->id) == 0;
				if (has_vm && c->recipe)
					schedule_on(out, doc, systems, nvms, ctxt, c->id, c->id, 1, NULL);
			}
		} else {
			for (size_t k = 0; k < cx->nitems; k++) {
				const struct radl_ctxt_item *it = &cx->items[k];
				int step = it->has_step ? (int)it->step.value : 0;
				schedule_on(out, doc, systems, nvms, ctxt, it->system, it->configure, step, it->tool);
			}
		}
		out->disabled = out->nsteps == 0;
	}
	if (out->disabled)
		for (size_t i = 0; i < nvms; i++)
			ctxt[i] = false;
	if (ctxt_out)
		memcpy(ctxt_out, ctxt, nvms * sizeof(*ctxt));
	free(ctxt);
	return 0;
}

void plan_schedule_release(struct plan_schedule *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsteps; i++)
		free(s->steps[i].items);
	free(s->steps);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	memset(s, 0, sizeof(*s));
}
