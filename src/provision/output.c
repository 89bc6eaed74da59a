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
#include <strings.h>

#include "provision/custom-stats.h"
#include "provision/output.h"
#include "provision/run.h"
#include "util/log.h"
#include "util/udiff.h"
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
	json_decref(o->warned);
	o->warned = NULL;
	json_decref(o->custom);
	o->custom = NULL;
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

/* this thread's banner not printed yet (out_task_lazy) */
static _Thread_local struct lazy_banner {
	char *text, *extra;
	const void *key;
} lazy;
/* this thread's entry of the json document under the free strategy
 * (out_begin_task), valid while gen is the sink's */
static _Thread_local json_t *tl_task;
static _Thread_local unsigned long tl_gen;

static void banner_text(struct task_out *o, const char *text)
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

static void banner(struct task_out *o, const char *text)
{
	o->last_banner = NULL;
	banner_text(o, text);
}

void out_task_lazy_drop(struct task_out *o)
{
	(void)o;
	free(lazy.text);
	free(lazy.extra);
	memset(&lazy, 0, sizeof(lazy));
}

void out_task_lazy(struct task_out *o, const char *kind, const char *name, const void *key,
		   const char *extra)
{
	out_task_lazy_drop(o);
	lazy.text = xasprintf("%s [%s]", kind, name);
	lazy.extra = extra ? xstrdup(extra) : NULL;
	lazy.key = key;
}

/* Before a line of this thread: its task's banner when due (lock held). */
static void lazy_flush(struct task_out *o)
{
	if (!lazy.text)
		return;
	if (o->last_banner != lazy.key) {
		banner_text(o, lazy.text);
		if (lazy.extra)
			emit(o, -1, lazy.extra);
		o->last_banner = lazy.key;
	}
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

void out_banner(struct task_out *o, const char *text)
{
	pthread_mutex_lock(&o->lock);
	banner(o, text);
	pthread_mutex_unlock(&o->lock);
}

void out_line(struct task_out *o, int host, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&o->lock);
	lazy_flush(o);
	emit(o, host, strbuf_str(&sb));
	pthread_mutex_unlock(&o->lock);
	strbuf_release(&sb);
}

/* The run of one task on one host this thread is in (0: none): Ansible
 * runs it in a worker process whose Display is its own, so a warning is
 * given once per such run, and once per playbook outside them. */
static _Thread_local unsigned long warn_scope;
static unsigned long warn_scopes;

unsigned long out_warning_scope_enter(void)
{
	unsigned long prev = warn_scope;
	warn_scope = __atomic_add_fetch(&warn_scopes, 1, __ATOMIC_RELAXED);
	return prev;
}

unsigned long out_warning_scope_main(void)
{
	unsigned long prev = warn_scope;
	warn_scope = 0;
	return prev;
}

void out_warning_scope_leave(unsigned long prev)
{
	warn_scope = prev;
}

void out_warning(struct task_out *o, const char *text)
{
	char *key = xasprintf("%lu %s", warn_scope, text);
	pthread_mutex_lock(&o->lock);
	if (!o->warned)
		o->warned = json_object();
	if (!json_object_get(o->warned, key)) {
		json_object_set_new(o->warned, key, json_true());
		char *r = redact(text);
		if (o->fp)
			fprintf(stderr, "%s\n", r);
		if (o->on_log)
			o->on_log(o->opaque, -1, r);
		free(r);
	}
	pthread_mutex_unlock(&o->lock);
	free(key);
}


char *out_json_compact(json_t *v)
{
	char *s = json_dumps(v, JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : xstrdup("{}");
}

char *out_verbose(const struct task_out *o, json_t *res, const char *module, bool always)
{
	if (o->verbosity < 1 && !always)
		return xstrdup("");
	return out_dump(o, res, module, always);
}

char *out_dump(const struct task_out *o, json_t *res, const char *module, bool always)
{
	bool debug = module && !strcmp(module, "debug");
	json_t *r = json_deep_copy(res);
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(r, tmp, k, v) {
		if (!strncmp(k, "_ansible_", 9) || !strcmp(k, "failed") || !strcmp(k, "skipped") ||
		    !strcmp(k, "exception") ||
		    (o->verbosity < 3 && (!strcmp(k, "invocation") || !strcmp(k, "diff"))))
			json_object_del(r, k);
	}
	if (debug) {
		bool has_msg = json_object_get(r, "msg") != NULL;
		json_object_foreach_safe(r, tmp, k, v) {
			if (has_msg ? strcmp(k, "msg") && strcmp(k, "warnings") && strcmp(k, "deprecations")
				    : !strcmp(k, "changed") || !strcmp(k, "skip_reason"))
				json_object_del(r, k);
		}
	}
	size_t flags = JSON_SORT_KEYS | JSON_ENCODE_ANY;
	if (always || o->verbosity > 2)
		flags |= JSON_INDENT(4);
	char *js = json_dumps(r, flags);
	char *out = xasprintf(" => %s", js ? js : "{}");
	free(js);
	json_decref(r);
	return out;
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
	o->gen++;
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
	tl_task = t;
	tl_gen = o->gen;
	pthread_mutex_unlock(&o->lock);
}

void out_record(struct task_out *o, struct task_host *h, json_t *res)
{
	pthread_mutex_lock(&o->lock);
	if (json_object_get(res, "ansible_stats") || json_object_get(res, "results")) {
		if (!o->custom)
			o->custom = json_object();
		custom_stats_record(o->custom, h->name, res);
	}
	json_t *ct = o->per_thread && tl_task && tl_gen == o->gen ? tl_task : o->cur_task;
	if (o->results && ct)
		json_object_set_new(json_object_get(ct, "hosts"), h->name, json_deep_copy(res));
	pthread_mutex_unlock(&o->lock);
}

/* ANSIBLE_SHOW_CUSTOM_STATS (the default callback's show_custom_stats) */
static bool show_custom_stats(void)
{
	const char *v = getenv("ANSIBLE_SHOW_CUSTOM_STATS");
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on", NULL };
	for (size_t i = 0; v && yes[i]; i++)
		if (!strcasecmp(v, yes[i]))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* a value as the default callback's _dump_results(indent=1) with its
 * line breaks removed */
static void custom_line(struct task_out *o, const char *label, json_t *v)
{
	char *js = json_dumps(v, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "\t%s: ", label);
	for (const char *p = js ? js : ""; *p; p++)
		if (*p != '\n')
			strbuf_addch(&sb, *p);
	emit(o, -1, sb.buf);
	strbuf_release(&sb);
	free(js);
}

/* the default callback's CUSTOM STATS: each host's (sorted), then the
 * run's */
static void print_custom(struct task_out *o)
{
	if (!o->custom || !json_object_size(o->custom) || !show_custom_stats())
		return;
	banner(o, "CUSTOM STATS:");
	size_t n = 0;
	const char **names = xcalloc(json_object_size(o->custom), sizeof(*names));
	const char *k;
	json_t *v;
	json_object_foreach(o->custom, k, v)
		if (strcmp(k, "_run"))
			names[n++] = k;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		custom_line(o, names[i], json_object_get(o->custom, names[i]));
	free(names);
	json_t *run = json_object_get(o->custom, "_run");
	if (run) {
		emit(o, -1, "");
		custom_line(o, "RUN", run);
	}
	emit(o, -1, "");
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
	print_custom(o);
	if (stats) {
		json_object_set_new(o->results, "stats", stats);
		/* the json callback's: written only with show_custom_stats, the
		 * run's apart */
		json_t *per = json_object(), *run = NULL;
		if (o->custom && show_custom_stats()) {
			json_object_update(per, o->custom);
			run = json_incref(json_object_get(per, "_run"));
			json_object_del(per, "_run");
		}
		json_object_set_new(o->results, "custom_stats", per);
		json_object_set_new(o->results, "global_custom_stats", run ? run : json_object());
	}
	pthread_mutex_unlock(&o->lock);
}

/* A before or after of a diff as text: a mapping serialised as Ansible's
 * _serialize_diff does (sorted keys, indent 4, ASCII), null as empty. */
static char *diff_side(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_object(v)) {
		char *s = json_dumps(v, JSON_INDENT(4) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		char *r = xasprintf("%s\n", s ? s : "{}");
		free(s);
		return r;
	}
	if (!v || json_is_null(v))
		return xstrdup("");
	return out_json_compact(v);
}

static void diff_text(struct strbuf *sb, json_t *d)
{
	static const char *const skipped[][2] = {
		{ "dst_binary", "diff skipped: destination file appears to be binary\n" },
		{ "src_binary", "diff skipped: source file appears to be binary\n" },
	};
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if (json_object_get(d, skipped[i][0]))
			strbuf_addstr(sb, skipped[i][1]);
	json_t *dl = json_object_get(d, "dst_larger"), *sl = json_object_get(d, "src_larger");
	if (dl)
		strbuf_addf(sb, "diff skipped: destination file size is greater than %lld\n",
			    (long long)json_integer_value(dl));
	if (sl)
		strbuf_addf(sb, "diff skipped: source file size is greater than %lld\n",
			    (long long)json_integer_value(sl));
	json_t *b = json_object_get(d, "before"), *a = json_object_get(d, "after");
	if (b && a) {
		const char *bh = json_string_value(json_object_get(d, "before_header"));
		const char *ah = json_string_value(json_object_get(d, "after_header"));
		char *from = bh ? xasprintf("before: %s", bh) : xstrdup("before");
		char *to = ah ? xasprintf("after: %s", ah) : xstrdup("after");
		char *bs = diff_side(b), *as = diff_side(a);
		size_t len = sb->len;
		udiff(sb, bs, strlen(bs), as, strlen(as), from, to, 3);
		if (sb->len > len)
			strbuf_addch(sb, '\n');
		free(bs);
		free(as);
		free(from);
		free(to);
	}
	const char *prep = json_string_value(json_object_get(d, "prepared"));
	if (prep)
		strbuf_addstr(sb, prep);
}

void out_diff(struct task_out *o, int host, json_t *res)
{
	json_t *d = json_object_get(res, "diff");
	if (!json_is_true(json_object_get(res, "changed")) || !d ||
	    (json_is_array(d) && !json_array_size(d)) || (json_is_object(d) && !json_object_size(d)))
		return;
	struct strbuf sb = STRBUF_INIT;
	if (json_is_array(d)) {
		size_t i;
		json_t *e;
		json_array_foreach(d, i, e)
			diff_text(&sb, e);
	} else
		diff_text(&sb, d);
	/* the callback displays the text with its own last newline */
	bool any = sb.len > 0;
	if (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = 0;
	if (any) {
		pthread_mutex_lock(&o->lock);
		emit(o, host, sb.buf);
		pthread_mutex_unlock(&o->lock);
	}
	strbuf_release(&sb);
}
