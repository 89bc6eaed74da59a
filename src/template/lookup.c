/* lookup.c: lookup plugins of the templating engine — lookup()/query() and
 * the with_<name> loops run them on the controller: sequence
 * (the thesis's ps/worker host lists), file, env, pipe/lines (only when the
 * caller allows commands), items, list, dict, together, nested,
 * first_found, fileglob, template, vars, varnames, indexed_items, flattened,
 * subelements, random_choice, password. registry.c lists them; the runtime
 * (ev_call_lookup) tries the caller's callback first, so the executor can
 * add url or override any of these. Every lookup returns a list; lookup()
 * (globals.c) joins it as Ansible does. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "template/engine.h"
#include "util/diag.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *lerr(struct ev *ev, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static json_t *lerr(struct ev *ev, size_t pos, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", buf);
	return NULL;
}

/* ---- sequence ------------------------------------------------------------ */

struct seq {
	long long start, end, count, stride;
	bool has_end, has_count;
	char *format;
};

static bool seq_int(const char *s, long long *out)
{
	/* Python int(s, 0): 0x.., 0o.., 0b.., or decimal without leading zeros */
	char *end;
	const char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
		base = 8;
		p += 2;
	} else if (p[0] == '0' && p[1] && isdigit((unsigned char)p[1])) {
		base = 8; /* the shortcut form's 0NN octal */
		p++;
	}
	if (!*p)
		return false;
	errno = 0;
	long long v = strtoll(p, &end, base);
	if (errno || *end)
		return false;
	*out = neg ? -v : v;
	return true;
}

/* Splits "a=1 b='x y'" into an object (Ansible's parse_kv, simplified):
 * the words without "=" joined by spaces are _raw_params, with their
 * quotes kept when keep_raw (as csvfile's search key keeps them). */
json_t *lookup_parse_kv(const char *s, bool keep_raw)
{
	json_t *o = json_object();
	const char *p = s;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		struct strbuf tok = STRBUF_INIT;
		char q = 0;
		const char *start = p;
		while (*p && (q || !isspace((unsigned char)*p))) {
			if (q) {
				if (*p == q)
					q = 0;
				else
					strbuf_addch(&tok, *p);
			} else if (*p == '\'' || *p == '"') {
				q = *p;
			} else {
				strbuf_addch(&tok, *p);
			}
			p++;
		}
		const char *t = strbuf_str(&tok);
		const char *eq = strchr(t, '=');
		if (eq) {
			char *k = xstrndup(t, (size_t)(eq - t));
			json_t *sv = json_string(eq + 1);
			json_object_set_new(o, k, sv ? sv : json_string(""));
			free(k);
		} else {
			json_t *raw = json_object_get(o, "_raw_params");
			char *word = keep_raw ? xstrndup(start, (size_t)(p - start)) : xstrdup(t);
			char *nv = raw ? xasprintf("%s %s", json_string_value(raw), word) : xstrdup(word);
			free(word);
			json_object_set_new(o, "_raw_params", json_string(nv));
			free(nv);
		}
		strbuf_release(&tok);
	}
	return o;
}

/* The length of Ansible's NUM, 0?x?[0-9a-f]+ (any case), at p: the run of
 * hex digits and x's, when it has that form (what follows a NUM in the
 * shortcut, '-', '/', ':' or the end, is none of those), else 0. */
static size_t seq_num(const char *p)
{
	size_t n = strspn(p, "0123456789abcdefABCDEFxX"), i = 0;
	if (i < n && p[i] == '0' && n > 1)
		i++;
	if (i < n && (p[i] == 'x' || p[i] == 'X'))
		i++;
	if (i == n)
		return (n == 1 && p[0] == '0') ? 1 : 0;
	for (size_t k = i; k < n; k++)
		if (p[k] == 'x' || p[k] == 'X')
			return 0;
	return n;
}

/* One number of the shortcut, as int(text, 0) takes it. */
static int seq_num_int(struct ev *ev, const char *what, const char *p, size_t n, long long *out, size_t pos)
{
	char *t = xstrndup(p, n);
	bool ok = !(n > 1 && t[0] == '0' && isdigit((unsigned char)t[1])) && seq_int(t, out);
	if (!ok)
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "can't parse %s=%s as integer", what, t);
	free(t);
	return ok ? 0 : -1;
}

/* Ansible's shortcut form ^((NUM)-)?(NUM)(/(NUM))?(:(.+))?$: 1 when t has
 * it (its numbers set in s), 0 when it has not (t is then key=value
 * arguments), -1 when a number of it is not an integer (int(x, 0)). */
static int seq_shortcut(struct ev *ev, struct seq *s, const char *t, size_t pos)
{
	const char *p = t, *start = NULL, *end, *stride = NULL;
	size_t sl = 0, el, stl = 0;
	size_t n = seq_num(p);
	if (n && p[n] == '-' && seq_num(p + n + 1)) {
		start = p;
		sl = n;
		p += n + 1;
		n = seq_num(p);
	}
	if (!n)
		return 0;
	end = p;
	el = n;
	p += n;
	if (*p == '/') {
		stl = seq_num(p + 1);
		if (!stl)
			return 0;
		stride = p + 1;
		p += 1 + stl;
	}
	if (*p == ':' && p[1] && !strchr(p + 1, '\n'))
		;
	else if (*p)
		return 0;
	long long v;
	if (start) {
		if (seq_num_int(ev, "start", start, sl, &v, pos) < 0)
			return -1;
		s->start = v;
	}
	if (seq_num_int(ev, "end", end, el, &v, pos) < 0)
		return -1;
	s->end = v;
	s->has_end = true;
	if (stride) {
		if (seq_num_int(ev, "stride", stride, stl, &v, pos) < 0)
			return -1;
		s->stride = v;
	}
	if (*p == ':') {
		free(s->format);
		s->format = xstrdup(p + 1);
	}
	return 1;
}

static int seq_kv(struct ev *ev, struct seq *s, json_t *kv, size_t pos)
{
	static const char *const names[] = { "start", "end", "count", "stride", NULL };
	for (size_t i = 0; names[i]; i++) {
		json_t *v = json_object_get(kv, names[i]);
		if (!v)
			continue;
		long long x;
		char *str = val_to_cstr(v);
		bool ok = json_is_integer(v) ? (x = json_integer_value(v), true) : seq_int(str, &x);
		if (!ok) {
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "can't parse %s=%s as integer", names[i], str);
			free(str);
			return -1;
		}
		free(str);
		switch (i) {
		case 0: s->start = x; break;
		case 1: s->end = x; s->has_end = true; break;
		case 2: s->count = x; s->has_count = true; break;
		case 3: s->stride = x; break;
		}
		json_object_del(kv, names[i]);
	}
	json_t *f = json_object_get(kv, "format");
	if (f) {
		free(s->format);
		s->format = val_to_cstr(f);
		json_object_del(kv, "format");
	}
	if (json_object_size(kv)) {
		const char *k;
		json_t *v;
		struct strbuf sb = STRBUF_INIT;
		json_object_foreach(kv, k, v)
			strbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", k);
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "unrecognized arguments to with_sequence: [%s]", strbuf_str(&sb));
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

static int seq_run(struct ev *ev, struct seq *s, json_t *out, size_t pos)
{
	if (!s->has_count && !s->has_end) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "must specify count or end in with_sequence");
		return -1;
	}
	if (s->has_count && s->has_end) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "can't specify both count and end in with_sequence");
		return -1;
	}
	if (s->has_count) {
		if (s->count != 0) {
			long long span;
			if (__builtin_mul_overflow(s->count, s->stride, &span) || span == LLONG_MIN ||
			    __builtin_add_overflow(s->start, span - 1, &s->end)) {
				ev_error(ev, TMPL_ERR_LIMIT, pos, "sequence too long");
				return -1;
			}
		} else {
			s->start = s->end = s->stride = 0;
		}
	}
	if (s->stride > 0 && s->end < s->start) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "to count backwards make stride negative");
		return -1;
	}
	if (s->stride < 0 && s->end > s->start) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "to count forward don't make stride negative");
		return -1;
	}
	size_t pct = 0;
	for (const char *p = s->format; *p; p++)
		if (*p == '%')
			pct++;
	if (pct != 1) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "bad formatting string: %s", s->format);
		return -1;
	}
	if (s->stride == 0)
		return 0;
	long long adjust = s->stride > 0 ? 1 : -1;
	double n = ((double)s->end + (double)adjust - (double)s->start) / (double)s->stride;
	if (n > TMPL_MAX_SEQ) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "sequence too long (%.0f items)", n);
		return -1;
	}
	long long last = s->end;
	for (long long i = s->start; s->stride > 0 ? i <= last : i >= last;) {
		struct strbuf sb = STRBUF_INIT;
		json_t *v = json_integer(i);
		int rc = py_percent_format(ev, &sb, s->format, v, pos);
		json_decref(v);
		if (rc < 0) {
			strbuf_release(&sb);
			return -1;
		}
		json_array_append_new(out, json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len));
		strbuf_release(&sb);
		if (__builtin_add_overflow(i, s->stride, &i))
			break;
	}
	return 0;
}

LOOKUP_FN(sequence)
{
	json_t *r = json_array();
	json_t *all = val_copy(terms);
	if (json_array_size(all) == 0 && kw && json_object_size(kw))
		json_array_append_new(all, val_deep_copy(kw));
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *t = json_array_get(all, i);
		struct seq s = { .start = 1, .stride = 1, .format = xstrdup("%d") };
		int rc = 0;
		if (json_is_object(t)) {
			json_t *kv = val_deep_copy(t);
			rc = seq_kv(ev, &s, kv, pos);
			json_decref(kv);
		} else {
			char *ts = val_to_cstr(t);
			rc = seq_shortcut(ev, &s, ts, pos);
			if (rc > 0) {
				rc = 0;
			} else if (rc == 0) {
				free(s.format);
				s = (struct seq){ .start = 1, .stride = 1, .format = xstrdup("%d") };
				/* words that are not key=value are _raw_params,
				 * an unrecognized argument as Ansible reports it */
				json_t *kv = lookup_parse_kv(ts, false);
				rc = seq_kv(ev, &s, kv, pos);
				json_decref(kv);
			}
			free(ts);
		}
		if (rc == 0)
			rc = seq_run(ev, &s, r, pos);
		free(s.format);
		if (rc < 0) {
			json_decref(r);
			json_decref(all);
			return NULL;
		}
	}
	json_decref(all);
	return r;
}

/* ---- files ------------------------------------------------------------ */

static char *read_whole(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}

LOOKUP_FN(file)
{
	bool rstrip = !kw || !json_object_get(kw, "rstrip") || val_truthy(json_object_get(kw, "rstrip"));
	bool lstrip = kw && val_truthy(json_object_get(kw, "lstrip"));
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *name = val_to_cstr(json_array_get(terms, i));
		char *path = ev_find_lookup_file(ev, name);
		size_t len = 0;
		char *text = path ? read_whole(path, &len) : NULL;
		if (!text) {
			json_decref(r);
			lerr(ev, pos, "could not locate file in lookup: %s", name);
			free(path);
			free(name);
			return NULL;
		}
		free(name);
		/* Ansible's loader decrypts a vault-encrypted file for the lookup */
		if (vault_is_encrypted(text, len)) {
			char *plain = NULL, *err = NULL;
			size_t np = 0;
			int vrc = vault_decrypt(text, len, path, &plain, &np, &err);
			free(text);
			if (vrc < 0) {
				json_decref(r);
				lerr(ev, pos, "%s", err);
				free(err);
				free(path);
				return NULL;
			}
			text = xmalloc(np + 1);
			memcpy(text, plain, np);
			text[np] = 0;
			len = np;
			vault_free_plain(plain, np);
		}
		free(path);
		size_t a = 0, b = len;
		if (rstrip)
			while (b > 0 && isspace((unsigned char)text[b - 1]))
				b--;
		if (lstrip)
			while (a < b && isspace((unsigned char)text[a]))
				a++;
		json_array_append_new(r, json_stringn_nocheck(text + a, b - a));
		free(text);
	}
	return r;
}

LOOKUP_FN(env)
{
	json_t *dflt = kw ? json_object_get(kw, "default") : NULL;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *name = val_to_cstr(json_array_get(terms, i));
		const char *v = getenv(name);
		free(name);
		if (v) {
			json_t *s = json_string(v);
			json_array_append_new(r, s ? s : json_string(""));
		} else {
			json_array_append_new(r, dflt ? json_incref(dflt) : json_string(""));
		}
	}
	return r;
}

static int run_cmd(struct ev *ev, const char *cmd, struct strbuf *out, size_t pos)
{
	if (!ev->env->allow_pipe) {
		ev_lookup_error(ev, LOOKUP_RAISED, pos, "lookup of a command is not allowed here: %s", cmd);
		return -1;
	}
	fflush(NULL);
	/* in the basedir, as the pipe and lines plugins' Popen(cwd=...) */
	struct strbuf full = STRBUF_INIT;
	if (ev->env->pipe_dir) {
		strbuf_addstr(&full, "cd -- ");
		sh_quote(&full, ev->env->pipe_dir);
		strbuf_addstr(&full, " || exit 1; ");
	}
	strbuf_addstr(&full, cmd);
	FILE *fp = popen(full.buf, "r");
	strbuf_release(&full);
	if (!fp) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "cannot run command: %s", cmd);
		return -1;
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		if (out->len < (64u << 20))
			strbuf_add(out, buf, n);
	int st = pclose(fp);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "lookup_plugin.pipe(%s) returned %d", cmd,
			 st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return 0;
}

/* pipe: the output without trailing whitespace */
static void add_stripped(json_t *r, struct strbuf *sb)
{
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->buf[--sb->len] = 0;
	json_array_append_new(r, json_stringn_nocheck(sb->buf ? sb->buf : "", sb->len));
}

/* lines: one item per line of the output */
static void add_lines(json_t *r, struct strbuf *sb)
{
	size_t a = 0;
	for (size_t j = 0; j < sb->len; j++)
		if (sb->buf[j] == '\n') {
			json_array_append_new(r, json_stringn_nocheck(sb->buf + a, j - a));
			a = j + 1;
		}
	if (a < sb->len)
		json_array_append_new(r, json_stringn_nocheck(sb->buf + a, sb->len - a));
}

/* Runs each term as a shell command; add() turns its output into items. */
static json_t *command_outputs(struct ev *ev, json_t *terms, size_t pos,
			       void (*add)(json_t *r, struct strbuf *sb))
{
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *cmd = val_to_cstr(json_array_get(terms, i));
		struct strbuf sb = STRBUF_INIT;
		int rc = run_cmd(ev, cmd, &sb, pos);
		free(cmd);
		if (rc < 0) {
			strbuf_release(&sb);
			json_decref(r);
			return NULL;
		}
		add(r, &sb);
		strbuf_release(&sb);
	}
	return r;
}

LOOKUP_FN(pipe)
{
	(void)kw;
	return command_outputs(ev, terms, pos, add_stripped);
}

LOOKUP_FN(lines)
{
	(void)kw;
	return command_outputs(ev, terms, pos, add_lines);
}

/* first_found's option values: a string or a list of strings, each split
 * on any of SEPS (so "a;b" and ["a", "b"] name the same two files) */
static void ff_split(json_t *out, json_t *v, const char *seps)
{
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			ff_split(out, json_array_get(v, i), seps);
		return;
	}
	if (!v || json_is_null(v))
		return;
	char *s = val_to_cstr(v);
	const char *p = s;
	for (;;) {
		size_t n = strcspn(p, seps);
		json_array_append_new(out, json_stringn_nocheck(p, n));
		if (!p[n])
			break;
		p += n + 1;
	}
	free(s);
}

/* The candidates of first_found's terms, in the order Ansible tries them:
 * a mapping term's own files/paths (the lookup's keywords apply only to
 * string terms), every path joined with every file (paths outer), and a
 * term with neither naming itself. As in Ansible, a term with files but no
 * paths replaces the candidates gathered so far. */
static int ff_candidates(struct ev *ev, json_t *terms, json_t *kw, json_t *out, bool *skip, size_t pos)
{
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *t = json_array_get(terms, i);
		json_t *opts;
		if (json_is_object(t)) {
			opts = t;
		} else if (json_is_string(t)) {
			opts = kw;
		} else if (json_is_array(t)) {
			if (ff_candidates(ev, t, kw, out, skip, pos) < 0)
				return -1;
			continue;
		} else {
			char *s = val_to_cstr(t);
			/* an AnsibleLookupError, as first_found's own below */
			ev_lookup_error(ev, LOOKUP_RAISED, pos,
					"Invalid term supplied, can handle string, mapping or list of strings but got: <class '%s'> for %s",
					val_typename(t), s);
			free(s);
			return -1;
		}
		json_t *files = json_array(), *paths = json_array();
		ff_split(files, opts ? json_object_get(opts, "files") : NULL, ",;");
		ff_split(paths, opts ? json_object_get(opts, "paths") : NULL, ",:;");
		*skip = opts && val_truthy(json_object_get(opts, "skip"));
		if (json_array_size(paths)) {
			for (size_t p = 0; p < json_array_size(paths); p++)
				for (size_t f = 0; f < json_array_size(files); f++) {
					const char *d = json_string_value(json_array_get(paths, p));
					const char *n = json_string_value(json_array_get(files, f));
					/* os.path.join: an absolute file name drops the path */
					json_array_append_new(out, n[0] == '/' || !d[0] ? json_string(n) :
								  json_sprintf("%s%s%s", d, d[strlen(d) - 1] == '/' ? "" : "/", n));
				}
		} else if (json_array_size(files)) {
			json_array_clear(out);
			json_array_extend(out, files);
		} else {
			json_array_append(out, t);
		}
		json_decref(files);
		json_decref(paths);
	}
	return 0;
}

LOOKUP_FN(first_found)
{
	bool skip = false;
	json_t *cands = json_array();
	if (ff_candidates(ev, terms, kw, cands, &skip, pos) < 0) {
		json_decref(cands);
		return NULL;
	}
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(cands) && !json_array_size(r); i++) {
		const char *f = json_string_value(json_array_get(cands, i));
		if (!f)
			continue;
		char *found = ev_find_file(ev, f);
		if (found) {
			char *abs = found[0] == '/' ? xstrdup(found) : realpath(found, NULL);
			json_array_append_new(r, json_string(abs ? abs : found));
			free(abs);
		}
		free(found);
	}
	json_decref(cands);
	if (!json_array_size(r) && !skip) {
		json_decref(r);
		return ev_lookup_error(ev, LOOKUP_RAISED, pos, "%s", "No file was found when using first_found.");
	}
	return r;
}

LOOKUP_FN(fileglob)
{
	(void)kw;
	json_t *r = json_array();
	const char *const *sp = ev->env->search_path;
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *pat = val_to_cstr(json_array_get(terms, i));
		size_t ndirs = 0;
		if (pat[0] != '/' && sp)
			while (sp[ndirs])
				ndirs++;
		for (size_t d = 0; d < (ndirs ? ndirs : 1); d++) {
			char *full = pat[0] == '/' || !ndirs ? xstrdup(pat) : xasprintf("%s/%s", sp[d], pat);
			glob_t g;
			size_t before = json_array_size(r);
			if (glob(full, 0, NULL, &g) == 0) {
				for (size_t k = 0; k < g.gl_pathc; k++)
					if (access(g.gl_pathv[k], R_OK) == 0)
						json_array_append_new(r, json_string(g.gl_pathv[k]));
				globfree(&g);
			}
			free(full);
			if (json_array_size(r) > before)
				break;
		}
		free(pat);
	}
	return r;
}

/* lookup('template', NAME...): each file rendered as Ansible's template
 * lookup does; template_vars adds variables for it, convert_data (default
 * true) types a rendered list, dict or bool; the variable and comment
 * start and end strings are those of the templating environment for this
 * rendering, the variables it reads included. */
LOOKUP_FN(template)
{
	struct tmpl_syntax syn = ev->env->syntax ? *ev->env->syntax : (struct tmpl_syntax){ 0 };
	static const char *const opts[] = { "variable_start_string", "variable_end_string",
					    "comment_start_string", "comment_end_string" };
	const char **members[] = { &syn.variable_start, &syn.variable_end, &syn.comment_start, &syn.comment_end };
	bool custom = false;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		json_t *v = kw ? json_object_get(kw, opts[i]) : NULL;
		if (!v || json_is_null(v))
			continue;
		if (!json_is_string(v))
			return ev_lookup_error(ev, LOOKUP_RAISED, pos, "Invalid type for configuration option %s: not a string",
					       opts[i]);
		*members[i] = json_string_value(v);
		custom = true;
	}
	json_t *jn = kw ? json_object_get(kw, "jinja2_native") : NULL;
	if (jn && val_truthy(jn))
		return ev_lookup_error(ev, LOOKUP_RAISED, pos, "%s",
				       "the template lookup's option jinja2_native is not supported by imc");
	json_t *cd = kw ? json_object_get(kw, "convert_data") : NULL;
	bool convert = !cd || val_truthy(cd);
	json_t *tv = kw ? json_object_get(kw, "template_vars") : NULL;
	if (tv && !json_is_null(tv) && !json_is_object(tv))
		return ev_lookup_error(ev, LOOKUP_RAISED, pos, "%s", "the template lookup's template_vars must be a dictionary");
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *name = val_to_cstr(json_array_get(terms, i));
		char *path = ev_find_lookup_file(ev, name);
		size_t len;
		char *text = path ? read_whole(path, &len) : NULL;
		free(path);
		if (!text) {
			json_decref(r);
			lerr(ev, pos, "the template file %s could not be found for the lookup", name);
			free(name);
			return NULL;
		}
		free(name);
		/* the caller's variables with ansible_managed, which Ansible
		 * defines only in a template's context (over the caller's own,
		 * as its generate_ansible_template_vars), then template_vars,
		 * for this rendering only */
		struct tmpl_env *saved = ev->env, *with = xmalloc(sizeof(*with));
		*with = *saved;
		with->vars = saved->vars ? val_copy(saved->vars) : json_object();
		json_object_set_new(with->vars, "ansible_managed", json_string("Ansible managed"));
		if (tv)
			json_object_update(with->vars, tv);
		if (custom)
			with->syntax = &syn;
		ev->env = with;
		json_t *out = ev_render_file_text(ev, text, convert);
		saved->err_kind = with->err_kind;
		json_decref(with->vars);
		free(with);
		ev->env = saved;
		free(text);
		if (!out) {
			json_decref(r);
			return NULL;
		}
		json_array_append_new(r, out);
	}
	return r;
}

LOOKUP_FN(vars)
{
	json_t *dflt = kw ? json_object_get(kw, "default") : NULL;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *t = json_array_get(terms, i);
		const char *name = json_string_value(t);
		if (!name) {
			/* Ansible's wording ("its a", where varnames says "it is a") */
			char *str = val_to_cstr(t);
			lerr(ev, pos, "Invalid setting identifier, \"%s\" is not a string, its a <class '%s'>", str,
			     val_typename(t));
			free(str);
			json_decref(r);
			return NULL;
		}
		json_t *v = ev_lookup_name(ev, name, pos);
		if (!v && ev->failed) {
			json_decref(r);
			return NULL;
		}
		if (!v && !dflt) {
			json_decref(r);
			/* the plugin's AnsibleUndefinedVariable */
			ev_error(ev, TMPL_ERR_UNDEFINED, pos, "No variable found with this name: %s", name);
			return NULL;
		}
		json_array_append_new(r, v ? v : json_incref(dflt));
	}
	return r;
}

/* varnames: the names of the variables defined where the lookup runs
 * that a term (a Python regex, searched anywhere in the name) matches,
 * term after term, each in the order the variables were defined. */
LOOKUP_FN(varnames)
{
	(void)kw;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *t = json_array_get(terms, i);
		const char *term = json_string_value(t);
		if (!term) {
			char *s = val_to_cstr(t);
			lerr(ev, pos, "Invalid setting identifier, \"%s\" is not a string, it is a <class '%s'>", s,
			     val_typename(t));
			free(s);
			json_decref(r);
			return NULL;
		}
		char *why = regex_error(term);
		if (why) {
			lerr(ev, pos, "Unable to use \"%s\" as a search parameter: %s", term, why);
			free(why);
			json_decref(r);
			return NULL;
		}
		const char *name;
		json_t *v;
		json_object_foreach(ev->env->vars, name, v) {
			int m = regex_search(ev, term, 0, name, strlen(name), false, pos);
			if (m < 0) {
				json_decref(r);
				return NULL;
			}
			if (m)
				json_array_append_new(r, json_string(name));
		}
	}
	return r;
}

static void flatten_all(json_t *out, json_t *l, int depth)
{
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		if (json_is_array(x) && depth < 100)
			flatten_all(out, x, depth + 1);
		else
			json_array_append(out, x);
	}
}

LOOKUP_FN(items)
{
	(void)ev; (void)kw; (void)pos;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *x = json_array_get(terms, i);
		if (json_is_array(x))
			json_array_extend(r, x);
		else
			json_array_append(r, x);
	}
	return r;
}

LOOKUP_FN(flattened)
{
	(void)ev; (void)kw; (void)pos;
	json_t *r = json_array();
	flatten_all(r, terms, 0);
	return r;
}

LOOKUP_FN(list)
{
	(void)ev; (void)kw; (void)pos;
	return val_copy(terms);
}

/* indexed_items: [index, item] over the terms flattened one level */
LOOKUP_FN(indexed_items)
{
	(void)kw;
	(void)ev;
	(void)pos;
	json_t *items = lookup_items(ev, terms, NULL, pos);
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(items); i++)
		json_array_append_new(r, json_pack("[IO]", (json_int_t)i, json_array_get(items, i)));
	json_decref(items);
	return r;
}

LOOKUP_FN(dict)
{
	(void)kw;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *d = json_array_get(terms, i);
		if (!json_is_object(d)) {
			json_decref(r);
			lerr(ev, pos, "%s", "with_dict expects a dict");
			return NULL;
		}
		const char *k;
		json_t *v;
		json_object_foreach(d, k, v)
			json_array_append_new(r, json_pack("{sssO}", "key", k, "value", v));
	}
	return r;
}

LOOKUP_FN(together)
{
	(void)kw;
	if (!json_array_size(terms))
		return lerr(ev, pos, "%s", "with_together requires at least one element in each list");
	size_t n = 0;
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *l = json_array_get(terms, i);
		if (!json_is_array(l))
			return lerr(ev, pos, "%s", "with_together requires lists");
		if (json_array_size(l) > n)
			n = json_array_size(l);
	}
	json_t *r = json_array();
	for (size_t j = 0; j < n; j++) {
		json_t *t = json_array();
		for (size_t i = 0; i < json_array_size(terms); i++) {
			json_t *x = json_array_get(json_array_get(terms, i), j);
			json_array_append(t, x ? x : json_null());
		}
		json_array_append_new(r, t);
	}
	return r;
}

LOOKUP_FN(nested)
{
	(void)kw;
	if (!json_array_size(terms))
		return lerr(ev, pos, "%s", "with_nested requires at least one element in the nested list");
	json_t *acc = json_array();
	json_array_append_new(acc, json_array());
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *l = json_array_get(terms, i);
		json_t *items = json_is_array(l) ? json_incref(l) : json_pack("[O]", l);
		if (json_array_size(acc) * (json_array_size(items) ? json_array_size(items) : 1) > TMPL_MAX_SEQ) {
			json_decref(items);
			json_decref(acc);
			ev_error(ev, TMPL_ERR_LIMIT, pos, "with_nested: too many combinations");
			return NULL;
		}
		json_t *next = json_array();
		for (size_t a = 0; a < json_array_size(acc); a++)
			for (size_t b = 0; b < json_array_size(items); b++) {
				json_t *t = val_copy(json_array_get(acc, a));
				json_array_append(t, json_array_get(items, b));
				json_array_append_new(next, t);
			}
		json_decref(items);
		json_decref(acc);
		acc = next;
	}
	return acc;
}

/* Ansible's boolean(v, strict=False), which subelements applies to
 * skip_missing: y, yes, on, 1, true, t (any case), 1 and True are true. */
static bool ansible_boolean(const json_t *v)
{
	static const char *const yes[] = { "y", "yes", "on", "1", "true", "t", NULL };
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_string(v)) {
		for (size_t i = 0; yes[i]; i++)
			if (!strcasecmp(json_string_value(v), yes[i]))
				return true;
		return false;
	}
	return json_is_number(v) && json_number_value(v) == 1;
}

/* "KEY is not False": present with any value but the boolean false (0 too:
 * Python's identity test) */
static bool skipped_flag(const json_t *o)
{
	json_t *s = json_object_get(o, "skipped");
	return s && !json_is_false(s);
}

/* Python's str() of a value, for messages: malloc'd */
static char *py_str(const json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	struct strbuf sb = STRBUF_INIT;
	val_repr(&sb, v);
	return strbuf_detach(&sb);
}

/* subelements as ansible-core 2.14's lookup: (item, element) for every
 * element of the list at the dotted key of each item; the list is taken
 * out of the item (Ansible pops it, so item.0 no longer holds it). Items
 * and registered results marked skipped are left out. */
LOOKUP_FN(subelements)
{
	(void)kw;
	size_t nt = json_array_size(terms);
	if (nt < 2 || nt > 3)
		return lerr(ev, pos, "%s", "subelements lookup expects a list of two or three items, ");
	json_t *t0 = json_array_get(terms, 0), *key = json_array_get(terms, 1);
	/* listify_lookup_plugin_terms: a string or a scalar becomes a list of it */
	json_t *list = json_is_array(t0) || json_is_object(t0) ? val_deep_copy(t0) : json_pack("[O]", t0);
	if (!json_is_string(key)) {
		json_decref(list);
		return lerr(ev, pos, "%s", "subelements lookup expects a list of two or three items, first a dict or a list, second a string pointing to the subkey");
	}
	json_t *flags = nt == 3 ? json_array_get(terms, 2) : NULL;
	if (flags && !json_is_object(flags)) {
		bool all = json_is_array(flags) || json_is_string(flags);
		if (json_is_array(flags)) {
			for (size_t i = 0; i < json_array_size(flags); i++)
				if (!json_is_string(json_array_get(flags, i)) || strcmp(json_string_value(json_array_get(flags, i)), "skip_missing"))
					all = false;
		} else if (json_is_string(flags)) {
			/* a string's keys are its characters: only "" passes */
			all = !json_string_length(flags);
		}
		json_decref(list);
		if (all)
			return lerr(ev, pos, "%s", "subelements lookup: the optional third item must be a dict");
		return lerr(ev, pos, "%s", "subelements lookup expects a list of two or three items, the optional third item must be a dict with flags skip_missing");
	}
	if (json_is_object(list)) {
		json_t *vals = json_array();
		if (!skipped_flag(list)) {
			const char *k;
			json_t *v;
			json_object_foreach(list, k, v)
				json_array_append(vals, v);
		}
		json_decref(list);
		list = vals;
	}
	bool skip = flags && ansible_boolean(json_object_get(flags, "skip_missing"));
	char *path = xstrdup(json_string_value(key));
	char *last = strrchr(path, '.');
	last = last ? last + 1 : path;
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *item = json_array_get(list, i);
		if (!json_is_object(item)) {
			char *is = py_str(item);
			json_decref(r);
			r = lerr(ev, pos, "subelements lookup expects a dictionary, got '%s'", is);
			free(is);
			goto out;
		}
		if (skipped_flag(item))
			continue;
		json_t *sub = item, *sublist = NULL;
		char *save = NULL;
		char *keys = xstrdup(path);
		for (char *k = strtok_r(keys, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
			/* as in Ansible, a key is the last one when it has the
			 * last one's name */
			bool is_last = !strcmp(k, last);
			json_t *v = json_object_get(sub, k);
			if (!v) {
				if (skip)
					continue;
				char *ss = py_str(sub);
				json_decref(r);
				r = lerr(ev, pos, "could not find '%s' key in iterated item '%s'", k, ss);
				free(ss);
				free(keys);
				goto out;
			}
			if (!is_last) {
				if (!json_is_object(v)) {
					if (skip)
						continue;
					char *vs = py_str(v);
					json_decref(r);
					r = lerr(ev, pos, "the key %s should point to a dictionary, got '%s'", k, vs);
					free(vs);
					free(keys);
					goto out;
				}
				sub = v;
			} else {
				if (!json_is_array(v)) {
					char *vs = py_str(v);
					json_decref(r);
					r = lerr(ev, pos, "the key %s should point to a list, got '%s'", k, vs);
					free(vs);
					free(keys);
					goto out;
				}
				json_decref(sublist);
				sublist = json_incref(v);
				json_object_del(sub, k);
			}
		}
		free(keys);
		for (size_t j = 0; j < json_array_size(sublist); j++)
			json_array_append_new(r, json_pack("[OO]", item, json_array_get(sublist, j)));
		json_decref(sublist);
	}
out:
	free(path);
	json_decref(list);
	return r;
}

LOOKUP_FN(random_choice)
{
	(void)kw;
	(void)pos;
	(void)ev;
	if (!json_array_size(terms))
		return json_array();
	unsigned int st = (unsigned int)time(NULL) ^ (unsigned int)rand();
	return json_pack("[O]", json_array_get(terms, (size_t)rand_r(&st) % json_array_size(terms)));
}

/* ---- password ----------------------------------------------------------------- */

static void add_charset(struct strbuf *sb, const char *name)
{
	static const struct { const char *n, *v; } sets[] = {
		{ "ascii_letters", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" },
		{ "letters", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" },
		{ "ascii_lowercase", "abcdefghijklmnopqrstuvwxyz" },
		{ "ascii_uppercase", "ABCDEFGHIJKLMNOPQRSTUVWXYZ" },
		{ "digits", "0123456789" },
		{ "hexdigits", "0123456789abcdefABCDEF" },
		{ "octdigits", "01234567" },
		{ "punctuation", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" },
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (!strcmp(name, sets[i].n)) {
			strbuf_addstr(sb, sets[i].v);
			return;
		}
	strbuf_addstr(sb, name);
}

/* lookup('password', 'PATH [length=N] [chars=a,b]'): a random password kept
 * in a controller file (0600) so that later runs get the same one;
 * /dev/null keeps nothing. Every password read or made is registered as a
 * secret, so that it never shows in logs or errors. */
LOOKUP_FN(password)
{
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *t = val_to_cstr(json_array_get(terms, i));
		json_t *kv = lookup_parse_kv(t, false);
		free(t);
		if (kw)
			json_object_update(kv, kw);
		const char *path = json_string_value(json_object_get(kv, "_raw_params"));
		if (!path || !path[0]) {
			json_decref(kv);
			json_decref(r);
			return lerr(ev, pos, "%s", "password lookup needs a file path");
		}
		long long length = 20;
		json_t *jl = json_object_get(kv, "length");
		if (jl) {
			char *ls = val_to_cstr(jl);
			if (!seq_int(ls, &length) || length < 1 || length > 4096) {
				free(ls);
				json_decref(kv);
				json_decref(r);
				return lerr(ev, pos, "%s", "password lookup: invalid length");
			}
			free(ls);
		}
		struct strbuf chars = STRBUF_INIT;
		json_t *jc = json_object_get(kv, "chars");
		if (json_is_string(jc)) {
			/* comma separated; ",," is a literal comma */
			const char *c = json_string_value(jc);
			struct strbuf part = STRBUF_INIT;
			for (; ; c++) {
				if (*c == ',' && c[1] == ',') {
					strbuf_addch(&part, ',');
					c++;
				} else if (*c == ',' || !*c) {
					add_charset(&chars, strbuf_str(&part));
					strbuf_reset(&part);
					if (!*c)
						break;
				} else {
					strbuf_addch(&part, *c);
				}
			}
			strbuf_release(&part);
		} else {
			add_charset(&chars, "ascii_letters");
			add_charset(&chars, "digits");
			strbuf_addstr(&chars, ".,:-_");
		}
		char *pw = NULL;
		bool store = strcmp(path, "/dev/null") != 0;
		if (store) {
			struct strbuf old = STRBUF_INIT;
			if (strbuf_read_file(&old, path) == 0) {
				char *nl = strchr(old.buf ? old.buf : "", '\n');
				if (nl)
					*nl = 0;
				char *salt = strstr(strbuf_str(&old), " salt=");
				if (salt)
					*salt = 0;
				pw = xstrdup(strbuf_str(&old));
			}
			strbuf_release(&old);
		}
		if (!pw) {
			FILE *rnd = fopen("/dev/urandom", "r");
			if (!rnd || !chars.len) {
				if (rnd)
					fclose(rnd);
				strbuf_release(&chars);
				json_decref(kv);
				json_decref(r);
				return lerr(ev, pos, "%s", "password lookup: no randomness or empty character set");
			}
			pw = xcalloc((size_t)length + 1, 1);
			for (long long k = 0; k < length; k++) {
				unsigned int x = 0;
				/* rejection sampling: no modulo bias */
				do {
					if (fread(&x, sizeof(x), 1, rnd) != 1)
						x = 0;
				} while (x >= UINT_MAX - UINT_MAX % (unsigned)chars.len);
				pw[k] = chars.buf[x % chars.len];
			}
			fclose(rnd);
			if (store) {
				char *dir = xstrdup(path);
				char *sl = strrchr(dir, '/');
				if (sl && sl != dir) {
					*sl = 0;
					for (char *q = dir + 1; *q; q++)
						if (*q == '/') {
							*q = 0;
							mkdir(dir, 0700);
							*q = '/';
						}
					mkdir(dir, 0700);
				}
				free(dir);
				int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
				if (fd < 0 || write(fd, pw, strlen(pw)) < 0 || write(fd, "\n", 1) < 0) {
					if (fd >= 0)
						close(fd);
					secret_register(pw);
					free(pw);
					strbuf_release(&chars);
					json_decref(kv);
					json_decref(r);
					return lerr(ev, pos, "password lookup: cannot write '%s'", path);
				}
				close(fd);
			}
		}
		secret_register(pw);
		json_array_append_new(r, json_stringn_nocheck(pw, strlen(pw)));
		free(pw);
		strbuf_release(&chars);
		json_decref(kv);
	}
	return r;
}
