/* exec-progress.c: the progress of a long job while a task waits for it.
 * A task whose variables name a JSON-lines file on the node
 * (imc_progress_file), and that waits in an `until` loop (async_status) or
 * an async poll, reads the lines the job appended to that file since the
 * last attempt, over the same connection, and records one progress line
 * (PROV_PROGRESS_PREFIX, see provision.h) with the newest of them, so that
 * the user sees a job of hours advance instead of only "FAILED -
 * RETRYING". The lines are the trainer's metrics ({"event":"step",...},
 * {"event":"eval",...}); imc_progress_steps or imc_progress_epochs give
 * the job's length, from which the fraction done and the time left come.
 * Reading progress never changes the task's result: Ansible, which does
 * not know these variables, runs the same task to the same end. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/output.h"
#include "provision/provision.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* At most this much of the file is read per attempt: a first read of a
 * long file keeps its start, and the next attempts catch up. */
#define PROGRESS_CHUNK 65536

/* The variable name, templated in the task's variables; NULL when unset
 * or not a string. */
static char *var_str(struct exec_ctx *x, const char *name)
{
	json_t *v = json_object_get(x->vars, name);
	if (!v)
		return NULL;
	struct diag d = DIAG_INIT;
	json_t *r = xt_value(x, v, &d);
	diag_release(&d);
	char *s = NULL;
	if (json_is_string(r) && *json_string_value(r))
		s = xstrdup(json_string_value(r));
	else if (json_is_number(r))
		s = xasprintf("%g", json_number_value(r));
	json_decref(r);
	return s;
}

static double var_num(struct exec_ctx *x, const char *name)
{
	char *s = var_str(x, name);
	double v = s ? strtod(s, NULL) : 0;
	free(s);
	return isfinite(v) && v > 0 ? v : 0;
}

void exec_progress_begin(struct exec_ctx *x, struct exec_progress *pg)
{
	memset(pg, 0, sizeof(*pg));
	pg->path = var_str(x, "imc_progress_file");
	if (!pg->path)
		return;
	pg->steps = var_num(x, "imc_progress_steps");
	pg->epochs = var_num(x, "imc_progress_epochs");
	pg->accuracy = NAN;
}

void exec_progress_end(struct exec_progress *pg)
{
	free(pg->path);
	pg->path = NULL;
}

static void copy_num(json_t *to, const char *key, const json_t *from)
{
	json_t *v = json_object_get(from, key);
	if (json_is_number(v))
		json_object_set_new(to, key, json_real(json_number_value(v)));
}

/* The event of the newest step line (and the newest accuracy seen), with
 * the fraction done and the seconds left when the job's length is known:
 * the rate is measured from the first line this wait saw, so time spent
 * before it (the data loading, an earlier run resumed) does not count. */
static void record(struct exec_ctx *x, struct exec_progress *pg, const json_t *step)
{
	json_t *ev = json_object();
	json_int_t s = json_integer_value(json_object_get(step, "step"));
	json_object_set_new(ev, "step", json_integer(s));
	copy_num(ev, "epoch", step);
	copy_num(ev, "loss", step);
	copy_num(ev, "examples_per_sec", step);
	if (!isnan(pg->accuracy))
		json_object_set_new(ev, "accuracy", json_real(pg->accuracy));
	double f = -1;
	if (pg->steps > 0)
		f = (double)s / pg->steps;
	else if (pg->epochs > 0 && json_is_number(json_object_get(step, "epoch")))
		f = json_number_value(json_object_get(step, "epoch")) / pg->epochs;
	if (f >= 0) {
		if (f > 1)
			f = 1;
		json_object_set_new(ev, "fraction", json_real(f));
		double t = task_now();
		if (!pg->started) {
			pg->started = true;
			pg->t0 = t;
			pg->f0 = f;
		} else if (f > pg->f0 && t > pg->t0)
			json_object_set_new(ev, "eta_s", json_real((1 - f) * (t - pg->t0) / (f - pg->f0)));
	}
	char *js = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	out_line(x->run->out, x->host->index, PROV_PROGRESS_PREFIX "[%s] %s", x->host->name, js ? js : "{}");
	free(js);
	json_decref(ev);
}

void exec_progress_poll(struct exec_ctx *x, struct exec_progress *pg)
{
	if (!pg->path)
		return;
	struct strbuf c = STRBUF_INIT;
	struct conn_result cr;
	json_t *res = NULL;
	conn_result_init(&cr);
	strbuf_addstr(&c, "f=");
	sh_quote(&c, pg->path);
	strbuf_addf(&c, "; [ -r \"$f\" ] || exit 0; tail -c +%lld \"$f\" | head -c %d", pg->offset + 1,
		    PROGRESS_CHUNK);
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0 || cr.rc != 0)
		goto out;
	const char *buf = strbuf_str(&cr.out);
	const char *end = strrchr(buf, '\n');
	if (!end)
		goto out;
	pg->offset += (long long)(end - buf) + 1;
	json_t *newest = NULL;
	for (const char *p = buf; p < end;) {
		const char *nl = strchr(p, '\n');
		json_t *o = json_loadb(p, (size_t)(nl - p), 0, NULL);
		const char *ev = json_string_value(json_object_get(o, "event"));
		if (ev && !strcmp(ev, "step")) {
			json_decref(newest);
			newest = json_incref(o);
		} else if (ev && !strcmp(ev, "eval") &&
			   json_is_number(json_object_get(o, "test_accuracy"))) {
			pg->accuracy = json_number_value(json_object_get(o, "test_accuracy"));
			/* an evaluation is news even without a step line after it */
			if (!newest)
				newest = json_incref(o);
		}
		json_decref(o);
		p = nl + 1;
	}
	if (newest)
		record(x, pg, newest);
	json_decref(newest);
out:
	json_decref(res);
	conn_result_release(&cr);
	strbuf_release(&c);
}
