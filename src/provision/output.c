/* output.c: what the executor prints, in the shape of Ansible's default
 * callback (IM parses it: `TASK [name] ***`, `changed: [host]`,
 * `fatal: [host]: FAILED! => {...}`, PLAY RECAP), and the document of the
 * json callback (--results FILE; differential tests compare it with real
 * Ansible's): {"plays":[{"play":{"name"},"tasks":[{"task":{"name"},
 * "hosts":{HOST: RESULT}}]}],"stats":{HOST:{ok,changed,...}}}.
 * Lines go to a FILE and/or to a log callback (per host, -1 = all). */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "provision/output.h"
#include "provision/run.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

void out_init(struct task_out *o)
{
	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
}

void out_release(struct task_out *o)
{
	json_decref(o->results);
	o->results = NULL;
	pthread_mutex_destroy(&o->lock);
}

static void emit(struct task_out *o, int host, const char *text)
{
	if (o->fp) {
		char *r = redact(text);
		fputs(r, o->fp);
		fputc('\n', o->fp);
		fflush(o->fp);
		free(r);
	}
	if (o->on_log) {
		char *r = redact(text);
		o->on_log(o->opaque, host, r);
		free(r);
	}
}

static void banner(struct task_out *o, const char *text)
{
	size_t n = strlen(text);
	size_t stars = n + 3 < 80 ? 79 - n : 3;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, ' ');
	for (size_t i = 0; i < stars; i++)
		strbuf_addch(&sb, '*');
	emit(o, -1, sb.buf);
	strbuf_release(&sb);
}

void out_play(struct task_out *o, const char *name)
{
	char *t = xasprintf("PLAY [%s]", name);
	pthread_mutex_lock(&o->lock);
	banner(o, t);
	pthread_mutex_unlock(&o->lock);
	free(t);
}

void out_task(struct task_out *o, const char *kind, const char *name)
{
	char *t = xasprintf("%s [%s]", kind, name);
	pthread_mutex_lock(&o->lock);
	banner(o, t);
	pthread_mutex_unlock(&o->lock);
	free(t);
}

void out_line(struct task_out *o, int host, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&o->lock);
	emit(o, host, strbuf_str(&sb));
	pthread_mutex_unlock(&o->lock);
	strbuf_release(&sb);
}

char *out_json_compact(json_t *v)
{
	char *s = json_dumps(v, JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : xstrdup("{}");
}

void out_begin_play(struct task_out *o, const char *name)
{
	if (!o->results)
		return;
	pthread_mutex_lock(&o->lock);
	json_t *plays = json_object_get(o->results, "plays");
	json_t *p = json_pack("{s:{s:s}, s:[]}", "play", "name", name, "tasks");
	json_array_append_new(plays, p);
	o->cur_play = p;
	o->cur_task = NULL;
	pthread_mutex_unlock(&o->lock);
}

void out_begin_task(struct task_out *o, const char *name)
{
	if (!o->results || !o->cur_play)
		return;
	pthread_mutex_lock(&o->lock);
	json_t *t = json_pack("{s:{s:s}, s:{}}", "task", "name", name, "hosts");
	json_array_append_new(json_object_get(o->cur_play, "tasks"), t);
	o->cur_task = t;
	pthread_mutex_unlock(&o->lock);
}

void out_record(struct task_out *o, struct task_host *h, json_t *res)
{
	if (!o->results || !o->cur_task)
		return;
	pthread_mutex_lock(&o->lock);
	json_object_set_new(json_object_get(o->cur_task, "hosts"), h->name, json_deep_copy(res));
	pthread_mutex_unlock(&o->lock);
}

void out_recap(struct task_out *o, struct task_host **hosts, size_t n)
{
	pthread_mutex_lock(&o->lock);
	banner(o, "PLAY RECAP");
	json_t *stats = o->results ? json_object() : NULL;
	for (size_t i = 0; i < n; i++) {
		struct task_stats *s = &hosts[i]->st;
		char ok[16], ch[16], un[16], fa[16], sk[16], re[16], ig[16];
		snprintf(ok, sizeof(ok), "%d", s->ok);
		snprintf(ch, sizeof(ch), "%d", s->changed);
		snprintf(un, sizeof(un), "%d", s->unreachable);
		snprintf(fa, sizeof(fa), "%d", s->failed);
		snprintf(sk, sizeof(sk), "%d", s->skipped);
		snprintf(re, sizeof(re), "%d", s->rescued);
		snprintf(ig, sizeof(ig), "%d", s->ignored);
		char *line = xasprintf("%-26s : ok=%-4s changed=%-4s unreachable=%-4s failed=%-4s "
				       "skipped=%-4s rescued=%-4s ignored=%-4s",
				       hosts[i]->name, ok, ch, un, fa, sk, re, ig);
		emit(o, hosts[i]->index, line);
		free(line);
		if (stats)
			json_object_set_new(stats, hosts[i]->name,
					    json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
						      "ok", s->ok, "changed", s->changed,
						      "unreachable", s->unreachable, "failures", s->failed,
						      "skipped", s->skipped, "rescued", s->rescued,
						      "ignored", s->ignored));
	}
	emit(o, -1, "");
	if (stats) {
		json_object_set_new(o->results, "stats", stats);
		/* set_stats' custom stats show only with show_custom_stats, which
		 * imc does not offer: the json callback then writes these empty */
		json_object_set_new(o->results, "custom_stats", json_object());
		json_object_set_new(o->results, "global_custom_stats", json_object());
	}
	pthread_mutex_unlock(&o->lock);
}
