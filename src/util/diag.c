/* diag.c: collecting and printing diagnostics (see diag.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/diag.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof(*d));
}

void diag_release(struct diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].file);
		free(d->items[i].msg);
	}
	free(d->items);
	for (size_t i = 0; i < d->nsrc; i++) {
		free(d->src[i].file);
		free(d->src[i].text);
	}
	free(d->src);
	memset(d, 0, sizeof(*d));
}

void diag_add_source(struct diag *d, const char *file, const char *text, size_t len)
{
	d->src = xreallocarray(d->src, d->nsrc + 1, sizeof(*d->src));
	d->src[d->nsrc].file = xstrdup(file);
	d->src[d->nsrc].text = xstrndup(text, len);
	d->src[d->nsrc].len = strlen(d->src[d->nsrc].text);
	d->nsrc++;
}

static void __attribute__((format(printf, 4, 0)))
add(struct diag *d, enum diag_level level, const struct src_loc *loc, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 4;
		d->items = xreallocarray(d->items, d->alloc, sizeof(*d->items));
	}
	struct diag_item *it = &d->items[d->n++];
	it->level = level;
	it->file = loc && loc->file ? xstrdup(loc->file) : NULL;
	it->line = loc ? loc->line : 0;
	it->col = loc ? loc->col : 0;
	it->msg = strbuf_detach(&sb);
}

void diag_verror(struct diag *d, enum imc_exit code, const struct src_loc *loc,
		 const char *fmt, va_list ap)
{
	if (d->nerrors++ == 0)
		d->code = code;
	add(d, DIAG_ERROR, loc, fmt, ap);
}

void diag_error(struct diag *d, enum imc_exit code, const struct src_loc *loc,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, code, loc, fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, const struct src_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(d, DIAG_WARNING, loc, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag *d, const struct src_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(d, DIAG_NOTE, loc, fmt, ap);
	va_end(ap);
}

const char *diag_first_message(const struct diag *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].level == DIAG_ERROR)
			return d->items[i].msg;
	return "";
}

static const struct diag_source *find_source(const struct diag *d, const char *file)
{
	for (size_t i = 0; file && i < d->nsrc; i++)
		if (strcmp(d->src[i].file, file) == 0)
			return &d->src[i];
	return NULL;
}

/* Prints the line'th line of src and a caret under col (tabs kept so the
 * caret lines up in a terminal). A long line is cut to a window around the
 * column, marked with "...", so one huge line is not repeated per error.
 * Secrets are masked in the whole line before it is cut: masking only the
 * window would show the part of a secret that the cut leaves in it. */
#define EXCERPT_WIDTH 240

static void print_excerpt(FILE *fp, const struct diag_source *src, int line, int col)
{
	const char *p = src->text, *end = src->text + src->len;
	for (int l = 1; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		p = nl + 1;
	}
	if (p >= end && line > 1)
		return;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	size_t raw_n = eol ? (size_t)(eol - p) : (size_t)(end - p);
	if (raw_n && p[raw_n - 1] == '\r')
		raw_n--;
	size_t raw_c = col > 0 ? (size_t)col - 1 : 0; /* 0-based column */
	char *raw = xstrndup(p, raw_n);
	char *safe = redact(raw);
	/* the column in the masked line: after the masked text before it */
	raw[raw_c < raw_n ? raw_c : raw_n] = '\0';
	char *safe_before = redact(raw);
	size_t n = strlen(safe), c = strlen(safe_before);
	if (c > n)
		c = n;
	size_t from = 0;
	if (n > EXCERPT_WIDTH && c > EXCERPT_WIDTH / 2)
		from = c - EXCERPT_WIDTH / 2 < n ? c - EXCERPT_WIDTH / 2 : n;
	size_t len = n - from > EXCERPT_WIDTH ? EXCERPT_WIDTH : n - from;
	fprintf(fp, "  %s%.*s%s\n  ", from ? "..." : "", (int)len, safe + from,
		from + len < n ? "..." : "");
	if (from)
		fputs("   ", fp);
	for (size_t i = from; i < c && i < from + len; i++)
		fputc(safe[i] == '\t' ? '\t' : ' ', fp);
	fputs("^\n", fp);
	free(safe_before);
	free(safe);
	free(raw);
}

static const char *program = "imc";

void diag_set_program(const char *name)
{
	program = name;
}

const char *diag_program(void)
{
	return program;
}

void diag_print(const struct diag *d, FILE *fp)
{
	static const char *const names[] = { "error", "warning", "note" };
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_item *it = &d->items[i];
		char *text;
		if (it->file && it->line > 0)
			text = xasprintf("%s:%d:%d: %s: %s", it->file, it->line,
					 it->col > 0 ? it->col : 1, names[it->level], it->msg);
		else
			text = xasprintf("%s: %s: %s", it->file ? it->file : program,
					 names[it->level], it->msg);
		/* the whole line, not the message alone: a secret must not show
		 * even where the location and the message meet */
		char *safe = redact(text);
		fprintf(fp, "%s\n", safe);
		free(safe);
		free(text);
		const struct diag_source *src = find_source(d, it->file);
		if (src && it->line > 0)
			print_excerpt(fp, src, it->line, it->col);
	}
}

/* The n'th line (0-based) of src, masked, without its line break; NULL
 * past the end. */
static char *source_line(const struct diag_source *src, int n)
{
	const char *p = src->text, *end = src->text + src->len;
	for (int l = 0; l < n; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	if (p >= end)
		return NULL;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	char *raw = xstrndup(p, eol ? (size_t)(eol - p) : (size_t)(end - p));
	char *safe = redact(raw);
	free(raw);
	return safe;
}

static bool word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* The column of the '=' of a k=v pair in line (Python's
 * re.search(r'\w+(\s+)?=(\s+)?[\w/-]+')), or -1. */
static int kv_equals(const char *line)
{
	for (const char *p = line; *p; p++) {
		if (!word_char((unsigned char)*p) || (p > line && word_char((unsigned char)p[-1])))
			continue;
		const char *q = p;
		while (word_char((unsigned char)*q))
			q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '=')
			continue;
		const char *r = q + 1;
		while (*r == ' ' || *r == '\t')
			r++;
		if (word_char((unsigned char)*r) || *r == '/' || *r == '-')
			return (int)(strchr(line, '=') - line);
	}
	return -1;
}

/* Where an error is and its lines, as AnsibleError's extended message
 * gives them: the line before and the line itself, a caret under the
 * column; a k=v pair on the line before moves the report there. */
static void print_ansible_position(FILE *fp, const struct diag *d, const struct diag_item *it)
{
	char *abs = realpath(it->file, NULL);
	const char *file = abs ? abs : it->file;
	const struct diag_source *src = find_source(d, it->file);
	int line = it->line, col = it->col > 0 ? it->col : 1;
	char *target = NULL, *prev = NULL;
	if (src) {
		/* PyYAML may report the line past the end; a blank one is
		 * replaced by the last line before it that says something */
		int n = line - 1;
		while (n > 0 && !(target = source_line(src, n)))
			n--;
		if (!target)
			target = source_line(src, n);
		while (target && n > 0 && !target[strspn(target, " \t\r")]) {
			free(target);
			target = source_line(src, --n);
		}
		if (n > 0)
			prev = source_line(src, n - 1);
	}
	int eq = prev ? kv_equals(prev) : -1;
	if (eq >= 0) {
		/* the error's line in the report is the line before, the "="
		 * of its k=v pair marked */
		fprintf(fp, "\nThe error appears to be in '%s': line %d, column %d, but may\n"
			"be elsewhere in the file depending on the exact syntax problem.\n", file, line - 1, eq + 1);
		fprintf(fp, "\nThe offending line appears to be:\n\n%s\n%*s^ here\n\n"
			"There appears to be both 'k=v' shorthand syntax and YAML in this task. "
			"Only one syntax may be used.\n", prev, eq, "");
	} else {
		fprintf(fp, "\nThe error appears to be in '%s': line %d, column %d, but may\n"
			"be elsewhere in the file depending on the exact syntax problem.\n", file, line, col);
		if (target)
			fprintf(fp, "\nThe offending line appears to be:\n\n%s\n%s\n%*s^ here\n", prev ? prev : "",
				target, col - 1, "");
	}
	free(prev);
	free(target);
	free(abs);
}

void diag_print_ansible(const struct diag *d, FILE *fp)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_item *it = &d->items[i];
		char *msg = redact(it->msg);
		if (it->level == DIAG_WARNING)
			fprintf(fp, "[WARNING]: %s\n", msg);
		else if (it->level == DIAG_NOTE)
			fprintf(fp, "%s\n", msg);
		else
			fprintf(fp, "ERROR! %s\n", msg);
		free(msg);
		if (it->file && it->line > 0)
			print_ansible_position(fp, d, it);
	}
}

char *diag_to_json(const struct diag *d)
{
	static const char *const names[] = { "error", "warning", "note" };
	json_t *arr = json_array();
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_item *it = &d->items[i];
		char *msg = redact(it->msg);
		json_t *o = json_pack("{s:s, s:s}", "level", names[it->level], "message", msg);
		free(msg);
		if (it->file)
			json_object_set_new(o, "file", json_string(it->file));
		if (it->line > 0) {
			json_object_set_new(o, "line", json_integer(it->line));
			json_object_set_new(o, "column", json_integer(it->col));
		}
		json_array_append_new(arr, o);
	}
	char *s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return s;
}

void diag_move(struct diag *d, struct diag *from)
{
	if (d->n + from->n > d->alloc) {
		d->alloc = d->n + from->n;
		d->items = xreallocarray(d->items, d->alloc, sizeof(*d->items));
	}
	if (from->n)
		memcpy(d->items + d->n, from->items, from->n * sizeof(*from->items));
	d->n += from->n;
	if (d->nerrors == 0 && from->nerrors)
		d->code = from->code;
	d->nerrors += from->nerrors;
	free(from->items);
	from->items = NULL;
	from->n = from->alloc = from->nerrors = 0;
	for (size_t i = 0; i < from->nsrc; i++)
		if (!find_source(d, from->src[i].file))
			diag_add_source(d, from->src[i].file, from->src[i].text, from->src[i].len);
	diag_release(from);
}
