/* filters-wrap.c: Jinja2's wordwrap filter, which is Python's textwrap.wrap
 * applied to each line of the text: the same split into chunks (words,
 * runs of whitespace, hyphenated parts, em-dashes — textwrap's own regular
 * expression, matched with PCRE2 in Unicode mode), the same greedy filling
 * counted in code points, the same breaking of long words. Recipes render
 * config files and MOTDs with it, so the line breaks must fall where
 * Ansible's do; tests/unit/test-template-cases.json holds the checks
 * against ansible-core 2.14's Templar. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* textwrap.TextWrapper.wordsep_re, written out without VERBOSE; \z is
 * Python's \Z (end of text). */
#define WS "[\\t\\n\\x0b\\x0c\\r ]"
#define NWS "[^\\t\\n\\x0b\\x0c\\r ]"
#define WP "[\\w!\"'&.,?]"
#define LT "[^\\d\\W]"
static const char wordsep_re[] =
	"(" WS "+"
	"|(?<=" WP ")-{2,}(?=\\w)"
	"|" NWS "+?(?:-(?:(?<=" LT "{2}-)|(?<=" LT "-" LT "-))(?=" LT "-?" LT ")"
	"|(?=" WS "|\\z)"
	"|(?<=" WP ")(?=-{2,}\\w)))";
static const char wordsep_simple_re[] = "(" WS "+)";

/* The chunks of one line. A long word is cut from its front line after
 * line: v[i] + off[i] is what is left of it and len[i] its length in code
 * points, so a huge word costs linear time, not quadratic. */
struct chunks {
	char **v;
	size_t *off, *len;
	size_t n, alloc;
};

static size_t cplen(const char *s) { return utf8_len(s, strlen(s)); }

static void chunk_push(struct chunks *c, const char *s, size_t n)
{
	if (!n)
		return; /* textwrap drops the empty strings re.split leaves */
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 16;
		c->v = xreallocarray(c->v, c->alloc, sizeof(*c->v));
		c->off = xreallocarray(c->off, c->alloc, sizeof(*c->off));
		c->len = xreallocarray(c->len, c->alloc, sizeof(*c->len));
	}
	c->v[c->n] = xstrndup(s, n);
	c->off[c->n] = 0;
	c->len[c->n] = cplen(c->v[c->n]);
	c->n++;
}

static void chunks_release(struct chunks *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	free(c->off);
	free(c->len);
}

/* The byte offset of code point k of s (or its end). */
static size_t cp_offset(const char *s, size_t k)
{
	size_t i = 0;
	for (; s[i] && k; k--) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

static bool all_ws(const char *s)
{
	return s[strspn(s, "\t\n\x0b\x0c\r ")] == 0;
}

/* re.split(pattern, line) with its one group: text between matches and the
 * matches themselves, in order. */
static int split_chunks(struct ev *ev, const char *line, bool hyphens, struct chunks *out, size_t pos)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)(hyphens ? wordsep_re : wordsep_simple_re), PCRE2_ZERO_TERMINATED,
				       PCRE2_UTF | PCRE2_UCP, &err, &off, NULL);
	if (!re) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "wordwrap: internal pattern failed to compile");
		return -1;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	size_t len = strlen(line), at = 0, last = 0;
	int rc = 0;
	/* PCRE2 checks the whole subject's UTF-8 on every call (always, with
	 * PCRE2_MATCH_INVALID_UTF): once is enough, or a long text costs
	 * quadratic time */
	while (at <= len &&
	       (rc = pcre2_match(re, (PCRE2_SPTR)line, len, at, at ? PCRE2_NO_UTF_CHECK : 0, md, NULL)) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		chunk_push(out, line + last, ov[0] - last);
		chunk_push(out, line + ov[2], ov[3] - ov[2]);
		last = ov[1];
		at = ov[1] > ov[0] ? ov[1] : ov[1] + 1; /* the pattern never matches empty; be safe */
	}
	chunk_push(out, line + last, len - last);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "wordwrap: the text is not valid UTF-8");
		return -1;
	}
	return 0;
}

/* textwrap's _wrap_chunks with no indents and drop_whitespace: appends the
 * wrapped lines of one input line to sb, each preceded by sep except the
 * first of the whole result (*first). */
static void wrap_chunks(struct chunks *c, size_t width, bool break_long, bool hyphens, struct strbuf *sb,
			const char *sep, bool *first)
{
	size_t next = 0; /* c->v[next..] are the chunks left, in order */
	bool any_line = false;
	while (next < c->n) {
		struct strbuf line = STRBUF_INIT;
		size_t cur_len = 0, line_chunks = 0;
		const char *last_chunk = NULL; /* the last chunk added, to drop trailing whitespace */
#define CHUNK(i) (c->v[i] + c->off[i])
		if (any_line && all_ws(CHUNK(next)))
			next++;
		while (next < c->n) {
			size_t l = c->len[next];
			if (cur_len + l > width)
				break;
			strbuf_addstr(&line, CHUNK(next));
			last_chunk = CHUNK(next);
			cur_len += l;
			line_chunks++;
			next++;
		}
		if (next < c->n && c->len[next] > width) {
			/* _handle_long_word */
			const char *chunk = CHUNK(next);
			size_t space_left = width > cur_len ? width - cur_len : 0;
			if (width < 1)
				space_left = 1;
			if (break_long) {
				size_t end = space_left;
				if (hyphens && c->len[next] > space_left) {
					/* after the last hyphen before the limit, if
					 * something other than hyphens precedes it */
					size_t lim = cp_offset(chunk, space_left), hy = 0;
					for (size_t k = lim; k > 0; k--)
						if (chunk[k - 1] == '-') {
							hy = k - 1;
							break;
						}
					if (hy > 0 && strspn(chunk, "-") < hy)
						end = utf8_len(chunk, hy) + 1;
				}
				size_t cut = cp_offset(chunk, end);
				strbuf_add(&line, chunk, cut);
				last_chunk = NULL;
				line_chunks++;
				c->off[next] += cut;
				c->len[next] -= utf8_len(chunk, cut);
			} else if (!line_chunks) {
				strbuf_addstr(&line, chunk);
				last_chunk = chunk;
				line_chunks++;
				next++;
			}
		}
#undef CHUNK
		if (last_chunk && all_ws(last_chunk)) {
			line.len -= strlen(last_chunk);
			if (line.buf)
				line.buf[line.len] = 0;
			line_chunks--;
		}
		if (line_chunks) {
			if (!*first)
				strbuf_addstr(sb, sep);
			*first = false;
			strbuf_add(sb, line.buf ? line.buf : "", line.len);
			any_line = true;
		}
		strbuf_release(&line);
	}
}

/* The length of the line break at s, or 0: Python's str.splitlines()
 * boundaries. */
static size_t line_break(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] == '\r')
		return u[1] == '\n' ? 2 : 1;
	if (u[0] == '\n' || u[0] == 0x0b || u[0] == 0x0c || (u[0] >= 0x1c && u[0] <= 0x1e))
		return 1;
	if (u[0] == 0xc2 && u[1] == 0x85)
		return 2;
	if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

/* s | wordwrap(width=79, break_long_words=True, wrapstring='\n',
 * break_on_hyphens=True) */
FILTER_FN(wordwrap)
{
	json_t *wj = arg_get(args, kw, 0, "width"), *blj = arg_get(args, kw, 1, "break_long_words"),
	       *wsj = arg_get(args, kw, 2, "wrapstring"), *bhj = arg_get(args, kw, 3, "break_on_hyphens");
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' object has no attribute 'splitlines'", val_typename(in));
		return NULL;
	}
	long long width = 79;
	if (wj) {
		if (!val_is_int(wj)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "wordwrap: width must be an integer, not %s", val_typename(wj));
			return NULL;
		}
		width = val_int(wj);
	}
	const char *sep = "\n";
	if (wsj && !json_is_null(wsj)) {
		if (!json_is_string(wsj)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "sequence item 0: expected str instance, %s found", val_typename(wsj));
			return NULL;
		}
		sep = json_string_value(wsj);
	}
	bool break_long = !blj || val_truthy(blj), hyphens = !bhj || val_truthy(bhj);
	const char *s = json_string_value(in);
	struct strbuf sb = STRBUF_INIT;
	bool first_para = true;
	json_t *r = NULL;
	for (const char *p = s; *p || p == s;) {
		size_t n = 0;
		while (p[n] && !line_break(p + n))
			n++;
		if (!*s)
			break; /* ''.splitlines() is empty */
		char *line = xstrndup(p, n);
		struct chunks c = { 0 };
		int rc = split_chunks(ev, line, hyphens, &c, pos);
		free(line);
		if (rc == 0 && width <= 0) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "invalid width %lld (must be > 0)", width);
			rc = -1;
		}
		if (rc < 0) {
			chunks_release(&c);
			strbuf_release(&sb);
			return NULL;
		}
		if (!first_para)
			strbuf_addstr(&sb, sep);
		first_para = false;
		bool first = true;
		wrap_chunks(&c, (size_t)(width > 0 ? width : 1), break_long, hyphens, &sb, sep, &first);
		chunks_release(&c);
		p += n;
		if (!*p)
			break;
		p += line_break(p);
		if (!*p)
			break; /* a final line break ends the last line */
	}
	r = val_str_take(&sb);
	return r;
}
