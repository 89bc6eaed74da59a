/* filters-regex.c: the regex_search, regex_replace, regex_findall and
 * regex_escape filters, with Python `re` semantics (the patterns come
 * compiled from regex.c's cache). */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

/* Whether s is valid UTF-8 (RFC 3629: no overlongs, surrogates or values
 * past U+10FFFF). */
static bool utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t need;
		unsigned char lo = 0x80, hi = 0xbf;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			lo = c == 0xe0 ? 0xa0 : 0x80;
			hi = c == 0xed ? 0x9f : 0xbf;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			lo = c == 0xf0 ? 0x90 : 0x80;
			hi = c == 0xf4 ? 0x8f : 0xbf;
		} else
			return false;
		for (size_t k = 1; k <= need; k++) {
			if (i + k >= n || s[i + k] < lo || s[i + k] > hi)
				return false;
			lo = 0x80;
			hi = 0xbf;
		}
		i += need + 1;
	}
	return true;
}

/* The code for a loop of matches over one subject, and the match option
 * that goes with it. PCRE2 rechecks the whole subject's UTF-8 on every
 * call (always, with PCRE2_MATCH_INVALID_UTF), which makes a loop over a
 * long text quadratic: a valid subject is checked once here and matched
 * with PCRE2_NO_UTF_CHECK; an invalid one keeps the tolerant code. */
static const pcre2_code *loop_code(struct ev *ev, const char *pat, int flags, const char *s, size_t n, size_t pos,
				   uint32_t *mopt)
{
	bool ok = utf8_ok((const unsigned char *)s, n);
	*mopt = ok ? PCRE2_NO_UTF_CHECK : 0;
	return regex_get(ev, pat, flags | (ok ? 4 : 0), pos);
}


static int rx_flags(json_t *args, json_t *kw, size_t first)
{
	int f = 0;
	if (val_truthy(arg_get(NULL, kw, 0, "ignorecase")))
		f |= 1;
	if (val_truthy(arg_get(NULL, kw, 0, "multiline")))
		f |= 2;
	(void)args;
	(void)first;
	return f;
}

static json_t *to_str(json_t *in)
{
	if (json_is_string(in))
		return json_incref(in);
	char *s = val_to_cstr(in);
	json_t *r = json_stringn_nocheck(s, strlen(s));
	free(s);
	return r;
}

static json_t *group_str(pcre2_match_data *md, const char *s, uint32_t g, uint32_t ng)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	if (g >= ng || ov[2 * g] == PCRE2_UNSET)
		return json_null();
	return json_stringn_nocheck(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

FILTER_FN(regex_search)
{
	json_t *pat = ARG(0, "regex");
	if (!json_is_string(pat)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "regex_search: the pattern must be a string");
		return NULL;
	}
	int flags = rx_flags(args, kw, 1);
	const pcre2_code *code = regex_get(ev, json_string_value(pat), flags, pos);
	if (!code)
		return NULL;
	json_t *s = to_str(in);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
	int rc = pcre2_match(code, (PCRE2_SPTR)json_string_value(s), json_string_length(s), 0, 0, md, NULL);
	json_t *r;
	if (rc < 0) {
		r = json_null();
	} else if (json_array_size(args) <= 1) {
		r = group_str(md, json_string_value(s), 0, (uint32_t)rc);
	} else {
		r = json_array();
		for (size_t i = 1; i < json_array_size(args); i++) {
			json_t *a = json_array_get(args, i);
			const char *as = json_string_value(a);
			uint32_t g = 0;
			if (as && !strncmp(as, "\\g<", 3)) {
				char *name = xstrdup(as + 3);
				char *e = strchr(name, '>');
				if (e)
					*e = 0;
				int num = isdigit((unsigned char)name[0]) ? (int)strtol(name, NULL, 10)
									   : pcre2_substring_number_from_name(code, (PCRE2_SPTR)name);
				free(name);
				if (num < 0) {
					json_decref(r);
					r = NULL;
					ev_error(ev, TMPL_ERR_TYPE, pos, "regex_search: unknown group name in '%s'", as);
					break;
				}
				g = (uint32_t)num;
			} else if (as && as[0] == '\\' && isdigit((unsigned char)as[1])) {
				g = (uint32_t)strtoul(as + 1, NULL, 10);
			} else {
				json_decref(r);
				r = NULL;
				ev_error(ev, TMPL_ERR_TYPE, pos, "Unknown argument");
				break;
			}
			if (g >= (uint32_t)rc && g > pcre2_get_ovector_count(md)) {
				json_decref(r);
				r = NULL;
				ev_error(ev, TMPL_ERR_TYPE, pos, "regex_search: no such group %u", g);
				break;
			}
			json_array_append_new(r, group_str(md, json_string_value(s), g, (uint32_t)rc));
		}
	}
	pcre2_match_data_free(md);
	json_decref(s);
	return r;
}

/* Python re.sub replacement template: \1, \g<1>, \g<name>, \n, \\ ... */
static int expand_repl(struct ev *ev, struct strbuf *out, const char *repl, const pcre2_code *code,
		       pcre2_match_data *md, const char *s, int rc, size_t pos)
{
	for (const char *p = repl; *p; p++) {
		if (*p != '\\' || !p[1]) {
			strbuf_addch(out, *p);
			continue;
		}
		p++;
		int g = -1;
		if (isdigit((unsigned char)*p)) {
			g = *p - '0';
			if (isdigit((unsigned char)p[1])) {
				g = g * 10 + (p[1] - '0');
				p++;
			}
		} else if (*p == 'g' && p[1] == '<') {
			const char *e = strchr(p, '>');
			if (!e) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "missing >, unterminated name in replacement");
				return -1;
			}
			char *name = xstrndup(p + 2, (size_t)(e - p) - 2);
			g = isdigit((unsigned char)name[0]) ? (int)strtol(name, NULL, 10)
							    : pcre2_substring_number_from_name(code, (PCRE2_SPTR)name);
			free(name);
			if (g < 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "unknown group name in replacement");
				return -1;
			}
			p = e;
		} else {
			switch (*p) {
			case 'n': strbuf_addch(out, '\n'); break;
			case 't': strbuf_addch(out, '\t'); break;
			case 'r': strbuf_addch(out, '\r'); break;
			case 'f': strbuf_addch(out, '\f'); break;
			case 'v': strbuf_addch(out, '\v'); break;
			case 'a': strbuf_addch(out, '\a'); break;
			case 'b': strbuf_addch(out, '\b'); break;
			case '\\': strbuf_addch(out, '\\'); break;
			default:
				if (isalpha((unsigned char)*p)) {
					ev_error(ev, TMPL_ERR_TYPE, pos, "bad escape \\%c in replacement", *p);
					return -1;
				}
				strbuf_addch(out, '\\');
				strbuf_addch(out, *p);
			}
			continue;
		}
		uint32_t cap;
		pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &cap);
		if ((uint32_t)g > cap) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "invalid group reference %d", g);
			return -1;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (g < rc && ov[2 * g] != PCRE2_UNSET)
			strbuf_add(out, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
	}
	return 0;
}

FILTER_FN(regex_replace)
{
	json_t *pat = ARG(0, "pattern"), *rep = ARG(1, "replacement");
	const char *ps = json_is_string(pat) ? json_string_value(pat) : "";
	const char *rs = json_is_string(rep) ? json_string_value(rep) : "";
	int flags = 0;
	if (val_truthy(ARG(2, "ignorecase")))
		flags |= 1;
	if (val_truthy(ARG(3, "multiline")))
		flags |= 2;
	long long count = ARG(4, "count") ? val_int(ARG(4, "count")) : 0;
	long long mandatory = ARG(5, "mandatory_count") ? val_int(ARG(5, "mandatory_count")) : 0;
	json_t *sj = to_str(in);
	const char *s = json_string_value(sj);
	size_t n = json_string_length(sj);
	uint32_t mopt;
	const pcre2_code *code = loop_code(ev, ps, flags, s, n, pos, &mopt);
	if (!code) {
		json_decref(sj);
		return NULL;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
	struct strbuf out = STRBUF_INIT;
	size_t at = 0, copied = 0;
	long long done = 0;
	int err = 0;
	while (at <= n && (count <= 0 || done < count)) {
		int rc = pcre2_match(code, (PCRE2_SPTR)s, n, at, mopt, md, NULL);
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t ms = ov[0], me = ov[1];
		strbuf_add(&out, s + copied, ms - copied);
		if (expand_repl(ev, &out, rs, code, md, s, rc, pos) < 0) {
			err = 1;
			break;
		}
		copied = me;
		done++;
		if (me == ms) {
			/* empty match: copy one character and move on */
			if (me >= n)
				break;
			size_t nx = me + 1;
			while (nx < n && ((unsigned char)s[nx] & 0xc0) == 0x80)
				nx++;
			strbuf_add(&out, s + me, nx - me);
			copied = nx;
			at = nx;
		} else {
			at = me;
		}
		if (out.len > TMPL_MAX_TEXT) {
			ev_error(ev, TMPL_ERR_LIMIT, pos, "regex_replace: result too large");
			err = 1;
			break;
		}
	}
	pcre2_match_data_free(md);
	if (err) {
		strbuf_release(&out);
		json_decref(sj);
		return NULL;
	}
	if (copied < n)
		strbuf_add(&out, s + copied, n - copied);
	json_decref(sj);
	if (mandatory && done < mandatory) {
		strbuf_release(&out);
		ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' should match %lld times, but matches %lld times", ps, mandatory, done);
		return NULL;
	}
	json_t *r = json_stringn_nocheck(out.buf ? out.buf : "", out.len);
	strbuf_release(&out);
	return r;
}

FILTER_FN(regex_findall)
{
	json_t *pat = ARG(0, "regex");
	if (!json_is_string(pat)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "regex_findall: the pattern must be a string");
		return NULL;
	}
	int flags = 0;
	if (val_truthy(ARG(1, "multiline")))
		flags |= 2;
	if (val_truthy(ARG(2, "ignorecase")))
		flags |= 1;
	json_t *sj = to_str(in);
	const char *s = json_string_value(sj);
	size_t n = json_string_length(sj), at = 0;
	uint32_t mopt;
	const pcre2_code *code = loop_code(ev, json_string_value(pat), flags, s, n, pos, &mopt);
	if (!code) {
		json_decref(sj);
		return NULL;
	}
	uint32_t cap;
	pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &cap);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
	json_t *r = json_array();
	while (at <= n) {
		int rc = pcre2_match(code, (PCRE2_SPTR)s, n, at, mopt, md, NULL);
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (cap == 0) {
			json_array_append_new(r, json_stringn_nocheck(s + ov[0], ov[1] - ov[0]));
		} else if (cap == 1) {
			json_t *g = group_str(md, s, 1, (uint32_t)rc);
			json_array_append_new(r, json_is_null(g) ? json_string("") : g);
			if (json_is_null(g))
				json_decref(g);
		} else {
			json_t *t = json_array();
			for (uint32_t g = 1; g <= cap; g++) {
				json_t *x = group_str(md, s, g, (uint32_t)rc);
				if (json_is_null(x)) {
					json_decref(x);
					x = json_string("");
				}
				json_array_append_new(t, x);
			}
			json_array_append_new(r, t);
		}
		if (ov[1] == ov[0]) {
			if (ov[1] >= n)
				break;
			at = ov[1] + 1;
			while (at < n && ((unsigned char)s[at] & 0xc0) == 0x80)
				at++;
		} else {
			at = ov[1];
		}
		if (json_array_size(r) > TMPL_MAX_SEQ)
			break;
	}
	pcre2_match_data_free(md);
	json_decref(sj);
	return r;
}

FILTER_FN(regex_escape)
{
	(void)ev; (void)args; (void)kw; (void)pos;
	json_t *sj = to_str(in);
	struct strbuf sb = STRBUF_INIT;
	const char *s = json_string_value(sj);
	for (size_t i = 0; i < json_string_length(sj); i++) {
		if (s[i] && strchr("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", s[i]))
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, s[i]);
	}
	json_decref(sj);
	json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	return r;
}
