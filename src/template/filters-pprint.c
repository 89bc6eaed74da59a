/* filters-pprint.c: Jinja2's pprint filter, Python's pprint.pformat with its
 * defaults (width 80, indent 1, dict keys sorted) over the engine's values:
 * a value whose repr fits stays on one line; a list or dict that does not
 * puts one item per line under its opening bracket; a string that does
 * not is cut after its whitespace into adjacent literals. Debug output in
 * recipes lands in files and comparisons, so the line breaks must fall
 * where Python's do; tests/unit/test-template-cases.json holds the checks
 * against ansible-core 2.14's Templar. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define PP_WIDTH 80

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of a dict in Python's sorted() order (code points, which is
 * UTF-8 byte order); a malloc'd array of borrowed strings. */
static const char **sorted_keys(const json_t *d, size_t *n)
{
	const char **keys = xcalloc(json_object_size(d) + 1, sizeof(*keys));
	const char *k;
	json_t *v;
	*n = 0;
	json_object_foreach(jmut(d), k, v)
		keys[(*n)++] = k;
	qsort(keys, *n, sizeof(*keys), cmp_keys);
	return keys;
}

/* PrettyPrinter._safe_repr: repr() with dict keys sorted at every level. */
static void pp_repr(struct strbuf *sb, const json_t *v, int depth)
{
	if (depth > 200) {
		strbuf_addstr(sb, "...");
		return;
	}
	if (json_is_object(v) && !dt_kind(v)) {
		size_t n;
		const char **keys = sorted_keys(v, &n);
		strbuf_addch(sb, '{');
		for (size_t i = 0; i < n; i++) {
			json_t *k = json_string(keys[i]);
			if (i)
				strbuf_addstr(sb, ", ");
			val_repr(sb, k);
			strbuf_addstr(sb, ": ");
			pp_repr(sb, json_object_get(v, keys[i]), depth + 1);
			json_decref(k);
		}
		strbuf_addch(sb, '}');
		free(keys);
	} else if (json_is_array(v)) {
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			pp_repr(sb, json_array_get(v, i), depth + 1);
		}
		strbuf_addch(sb, ']');
	} else {
		val_repr(sb, v);
	}
}

static size_t cps(const struct strbuf *sb) { return utf8_len(sb->buf ? sb->buf : "", sb->len); }

static void pp_format(struct strbuf *out, const json_t *v, long indent, long allowance, int level);

/* Python's str.isspace() for the code point at s; *len its UTF-8 size. */
static bool space_at(const unsigned char *s, size_t *len)
{
	*len = 1;
	if ((s[0] >= 0x09 && s[0] <= 0x0d) || (s[0] >= 0x1c && s[0] <= 0x20))
		return true;
	if (s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0)) {
		*len = 2;
		return true;
	}
	if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80) {
		*len = 3;
		return true;
	}
	if (s[0] == 0xe2 && ((s[1] == 0x80 && (s[2] <= 0x8a || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf)) ||
			     (s[1] == 0x81 && s[2] == 0x9f))) {
		*len = 3;
		return true;
	}
	if (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80) {
		*len = 3;
		return true;
	}
	return false;
}

/* The length of the line break at s, or 0 (str.splitlines boundaries). */
static size_t line_break_at(const unsigned char *s)
{
	if (s[0] == '\r')
		return s[1] == '\n' ? 2 : 1;
	if (s[0] == '\n' || s[0] == 0x0b || s[0] == 0x0c || (s[0] >= 0x1c && s[0] <= 0x1e))
		return 1;
	if (s[0] == 0xc2 && s[1] == 0x85)
		return 2;
	if (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
		return 3;
	return 0;
}

/* The size of the UTF-8 sequence that starts with byte c. */
static size_t u8step(unsigned char c)
{
	return (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 1;
}

static size_t repr_len(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j = json_stringn_nocheck(s, n);
	val_repr(&sb, j);
	size_t l = cps(&sb);
	json_decref(j);
	strbuf_release(&sb);
	return l;
}

static void add_repr(struct strbuf *chunks_sb, size_t *nchunks, const char *s, size_t n)
{
	json_t *j = json_stringn_nocheck(s, n);
	if ((*nchunks)++)
		strbuf_addch(chunks_sb, '\0'); /* chunk separator */
	val_repr(chunks_sb, j);
	json_decref(j);
}

/* PrettyPrinter._pprint_str: each line (keeping its break) as a literal,
 * and a line too long cut after runs of whitespace; the pieces one per
 * line, in parentheses at the top level. */
static void pp_str(struct strbuf *out, const json_t *v, long indent, long allowance, int level)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (!n) {
		strbuf_addstr(out, "''");
		return;
	}
	if (level == 1) {
		indent++;
		allowance++;
	}
	long max_width1 = PP_WIDTH - indent, max_width = PP_WIDTH - indent;
	struct strbuf chunks = STRBUF_INIT; /* reprs separated by NUL (a repr never holds one) */
	size_t nchunks = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t e = i, br = 0;
		while (e < n && !(br = line_break_at(u + e)))
			e++;
		size_t lend = e + br; /* splitlines(True) keeps the break */
		bool last_line = lend >= n;
		if (last_line)
			max_width1 -= allowance;
		if ((long)repr_len(s + i, lend - i) <= max_width1) {
			add_repr(&chunks, &nchunks, s + i, lend - i);
		} else {
			/* re.findall(r'\S*\s*', line): non-space run, then space run */
			long max_width2 = max_width;
			size_t cur = i, p = i;
			while (p < lend) {
				size_t q = p, l;
				while (q < lend && !space_at(u + q, &l))
					q += u8step(u[q]);
				while (q < lend && space_at(u + q, &l))
					q += l;
				if (q >= lend && last_line)
					max_width2 -= allowance;
				if ((long)repr_len(s + cur, q - cur) > max_width2) {
					if (p > cur)
						add_repr(&chunks, &nchunks, s + cur, p - cur);
					cur = p;
				}
				p = q;
			}
			if (p > cur)
				add_repr(&chunks, &nchunks, s + cur, p - cur);
		}
		i = lend;
	}
	if (nchunks == 1) {
		/* Python writes the last line's repr, which is the one chunk */
		strbuf_add(out, chunks.buf, chunks.len);
		strbuf_release(&chunks);
		return;
	}
	if (level == 1)
		strbuf_addch(out, '(');
	const char *c = chunks.buf;
	for (size_t k = 0; k < nchunks; k++) {
		if (k) {
			strbuf_addch(out, '\n');
			for (long j = 0; j < indent; j++)
				strbuf_addch(out, ' ');
		}
		strbuf_addstr(out, c);
		c += strlen(c) + 1;
	}
	if (level == 1)
		strbuf_addch(out, ')');
	strbuf_release(&chunks);
}

static void newline_indent(struct strbuf *out, long indent)
{
	strbuf_addstr(out, ",\n");
	for (long j = 0; j < indent; j++)
		strbuf_addch(out, ' ');
}

/* PrettyPrinter._format */
static void pp_format(struct strbuf *out, const json_t *v, long indent, long allowance, int level)
{
	struct strbuf rep = STRBUF_INIT;
	pp_repr(&rep, v, 0);
	long max_width = PP_WIDTH - indent - allowance;
	bool container = json_is_array(v) || (json_is_object(v) && !dt_kind(v));
	if ((long)cps(&rep) <= max_width || !(container || json_is_string(v)) || level > 200) {
		strbuf_add(out, rep.buf ? rep.buf : "", rep.len);
		strbuf_release(&rep);
		return;
	}
	strbuf_release(&rep);
	level++;
	if (json_is_string(v)) {
		pp_str(out, v, indent, allowance, level);
	} else if (json_is_array(v)) {
		/* _pprint_list / _format_items */
		strbuf_addch(out, '[');
		size_t n = json_array_size(v);
		for (size_t i = 0; i < n; i++) {
			if (i)
				newline_indent(out, indent + 1);
			pp_format(out, json_array_get(v, i), indent + 1, i + 1 == n ? allowance + 1 : 1, level);
		}
		strbuf_addch(out, ']');
	} else {
		/* _pprint_dict / _format_dict_items */
		size_t n;
		const char **keys = sorted_keys(v, &n);
		strbuf_addch(out, '{');
		for (size_t i = 0; i < n; i++) {
			struct strbuf kr = STRBUF_INIT;
			json_t *k = json_string(keys[i]);
			val_repr(&kr, k);
			json_decref(k);
			if (i)
				newline_indent(out, indent + 1);
			strbuf_add(out, kr.buf, kr.len);
			strbuf_addstr(out, ": ");
			pp_format(out, json_object_get(v, keys[i]), indent + 1 + (long)cps(&kr) + 2,
				  i + 1 == n ? allowance + 1 : 1, level);
			strbuf_release(&kr);
		}
		strbuf_addch(out, '}');
		free(keys);
	}
}

FILTER_FN(pprint)
{
	(void)ev; (void)args; (void)kw; (void)pos;
	struct strbuf out;
	strbuf_init(&out, TMPL_MAX_TEXT);
	pp_format(&out, in, 0, 0, 0);
	if (out.truncated) {
		strbuf_release(&out);
		ev_error(ev, TMPL_ERR_LIMIT, pos, "pprint output too large");
		return NULL;
	}
	return val_str_take(&out);
}
