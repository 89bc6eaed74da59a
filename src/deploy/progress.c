/* progress.c: a job's progress as the commands show it. The provisioner
 * logs one line per poll that saw the job advance (PROV_PROGRESS_PREFIX,
 * provision.h); the commands that follow a deployment (attached `imc
 * create`, `imc logs`) find those lines in the log and print them as a
 * line of text, a progress bar on a terminal, or a JSON event, all from
 * the same parsed object so that the three never disagree. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "provision/provision.h"
#include "util/xalloc.h"
#include "util/banned.h"

json_t *deploy_progress_parse(const char *text)
{
	size_t pl = strlen(PROV_PROGRESS_PREFIX);
	if (strncmp(text, PROV_PROGRESS_PREFIX, pl) != 0 || text[pl] != '[')
		return NULL;
	const char *host = text + pl + 1, *close = strstr(host, "] {");
	if (!close)
		return NULL;
	json_t *ev = json_loads(close + 2, 0, NULL);
	if (!json_is_object(ev) || !json_is_integer(json_object_get(ev, "step"))) {
		json_decref(ev);
		return NULL;
	}
	json_object_set_new(ev, "host", json_stringn(host, (size_t)(close - host)));
	return ev;
}

static bool num(const json_t *ev, const char *key, double *v)
{
	const json_t *j = json_object_get(ev, key);
	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return isfinite(*v);
}

/* "1h02m", "3m05s", "42s" */
static void add_duration(struct strbuf *sb, double s)
{
	long t = lround(s);
	if (t >= 3600)
		strbuf_addf(sb, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%lds", t);
}

/* The measures after the step, each with its name: shared by the line and
 * the bar. */
static void add_measures(struct strbuf *sb, const json_t *ev)
{
	double v;
	if (num(ev, "epoch", &v))
		strbuf_addf(sb, "  epoch %.2f", v);
	if (num(ev, "loss", &v))
		strbuf_addf(sb, "  loss %.4f", v);
	if (num(ev, "accuracy", &v))
		strbuf_addf(sb, "  accuracy %.4f", v);
	if (num(ev, "examples_per_sec", &v))
		strbuf_addf(sb, "  %.0f examples/s", v);
	if (num(ev, "eta_s", &v)) {
		strbuf_addstr(sb, "  ETA ");
		add_duration(sb, v);
	}
}

void deploy_progress_text(struct strbuf *sb, int vm, const json_t *ev)
{
	double f;
	if (vm >= 0)
		strbuf_addf(sb, "VM %d: ", vm);
	strbuf_addf(sb, "step %lld", (long long)json_integer_value(json_object_get(ev, "step")));
	if (num(ev, "fraction", &f))
		strbuf_addf(sb, " (%.0f%%)", 100 * f);
	add_measures(sb, ev);
}

void deploy_progress_bar(struct strbuf *sb, const json_t *ev, int width)
{
	double f;
	if (!num(ev, "fraction", &f))
		f = 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	int filled = (int)lround(f * width);
	strbuf_addch(sb, '[');
	for (int i = 0; i < width; i++)
		strbuf_addch(sb, i < filled ? '#' : '-');
	strbuf_addf(sb, "] %3.0f%% step %lld", 100 * f, (long long)json_integer_value(json_object_get(ev, "step")));
	add_measures(sb, ev);
}

json_t *deploy_progress_event(int vm, json_t *ev)
{
	json_t *j = json_pack("{s:i, s:s}", "format", DEPLOY_EVENT_FORMAT, "event", "progress");
	if (vm >= 0)
		json_object_set_new(j, "vm", json_integer(vm));
	json_object_update(j, ev);
	return j;
}
