/* filters-string.c: Jinja2's and Ansible's filters on text: case mapping
 * (lower, upper, capitalize, title), replace, trim, split/rsplit (Python's
 * str.split), quote (shell), center, indent, wordcount, format (Python's
 * %-formatting), truncate, escape and safe. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

FILTER_FN(lower) { return val_case_map(in, CASE_LOWER); }

FILTER_FN(upper) { return val_case_map(in, CASE_UPPER); }

FILTER_FN(capitalize) { return val_case_map(in, CASE_CAPITALIZE); }

FILTER_FN(title) { return val_case_map(in, CASE_TITLE); }

FILTER_FN(replace)
{
	json_t *jo = ARG(0, "old"), *jn = ARG(1, "new"), *jc = ARG(2, "count");
	if (!jo || !jn)
		return ev_type_error(ev, pos, "replace: %s", "expected the old and new strings");
	json_t *s = val_pystr(in), *o = val_pystr(jo), *nw = val_pystr(jn);
	long long count = jc && !json_is_null(jc) ? val_int(jc) : -1;
	const char *p = json_string_value(s), *os = json_string_value(o);
	size_t n = json_string_length(s), on = json_string_length(o);
	struct strbuf sb = STRBUF_INIT;
	long long done = 0;
	if (on == 0) {
		for (size_t i = 0; i <= n; i++) {
			if (count < 0 || done < count) {
				strbuf_add(&sb, json_string_value(nw), json_string_length(nw));
				done++;
			}
			if (i < n) {
				size_t j = i + 1;
				while (j < n && ((unsigned char)p[j] & 0xc0) == 0x80)
					j++;
				strbuf_add(&sb, p + i, j - i);
				i = j - 1;
			}
		}
	} else {
		for (size_t i = 0; i < n;) {
			if ((count < 0 || done < count) && i + on <= n && memcmp(p + i, os, on) == 0) {
				strbuf_add(&sb, json_string_value(nw), json_string_length(nw));
				i += on;
				done++;
			} else {
				strbuf_addch(&sb, p[i++]);
			}
		}
	}
	json_decref(s);
	json_decref(o);
	json_decref(nw);
	return val_str_take(&sb);
}

FILTER_FN(trim)
{
	json_t *chars = ARG(0, "chars");
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	size_t a = 0, b = json_string_length(s);
	const char *cs = json_is_string(chars) ? json_string_value(chars) : NULL;
	while (a < b && (cs ? (p[a] && strchr(cs, p[a])) : isspace((unsigned char)p[a])))
		a++;
	while (b > a && (cs ? (p[b - 1] && strchr(cs, p[b - 1])) : isspace((unsigned char)p[b - 1])))
		b--;
	json_t *r = json_stringn_nocheck(p + a, b - a);
	json_decref(s);
	return r;
}

static json_t *pysplit(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool right)
{
	json_t *sep = ARG(0, "sep");
	json_t *jm = ARG(1, "maxsplit");
	long long maxsplit = jm && !json_is_null(jm) ? val_int(jm) : -1;
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	size_t n = json_string_length(s);
	json_t *r = json_array();
	if (!sep || json_is_null(sep)) {
		/* whitespace split */
		json_t *parts = json_array();
		size_t i = 0;
		while (i < n) {
			while (i < n && isspace((unsigned char)p[i]))
				i++;
			if (i >= n)
				break;
			size_t j = i;
			while (j < n && !isspace((unsigned char)p[j]))
				j++;
			json_array_append_new(parts, json_stringn_nocheck(p + i, j - i));
			i = j;
		}
		if (maxsplit >= 0 && (long long)json_array_size(parts) > maxsplit + 1) {
			/* re-split keeping the remainder */
			json_decref(parts);
			parts = json_array();
			size_t a = 0, b = n;
			long long cnt = 0;
			if (!right) {
				while (a < n && isspace((unsigned char)p[a]))
					a++;
				while (a < n && cnt < maxsplit) {
					size_t j = a;
					while (j < n && !isspace((unsigned char)p[j]))
						j++;
					json_array_append_new(parts, json_stringn_nocheck(p + a, j - a));
					cnt++;
					a = j;
					while (a < n && isspace((unsigned char)p[a]))
						a++;
				}
				size_t e = n;
				while (e > a && isspace((unsigned char)p[e - 1]))
					e--;
				if (a < n)
					json_array_append_new(parts, json_stringn_nocheck(p + a, n - a));
				(void)e;
			} else {
				json_t *rev = json_array();
				while (b > 0 && isspace((unsigned char)p[b - 1]))
					b--;
				while (b > 0 && cnt < maxsplit) {
					size_t j = b;
					while (j > 0 && !isspace((unsigned char)p[j - 1]))
						j--;
					json_array_insert_new(rev, 0, json_stringn_nocheck(p + j, b - j));
					cnt++;
					b = j;
					while (b > 0 && isspace((unsigned char)p[b - 1]))
						b--;
				}
				if (b > 0)
					json_array_insert_new(rev, 0, json_stringn_nocheck(p, b));
				json_decref(parts);
				parts = rev;
			}
		}
		json_decref(r);
		json_decref(s);
		return parts;
	}
	if (!json_is_string(sep) || json_string_length(sep) == 0) {
		json_decref(r);
		json_decref(s);
		return ev_type_error(ev, pos, "split: %s", "empty separator");
	}
	const char *sp = json_string_value(sep);
	size_t sl = json_string_length(sep);
	if (!right) {
		size_t a = 0;
		long long cnt = 0;
		for (size_t i = 0; i + sl <= n;) {
			if ((maxsplit < 0 || cnt < maxsplit) && memcmp(p + i, sp, sl) == 0) {
				json_array_append_new(r, json_stringn_nocheck(p + a, i - a));
				i += sl;
				a = i;
				cnt++;
			} else {
				i++;
			}
		}
		json_array_append_new(r, json_stringn_nocheck(p + a, n - a));
	} else {
		size_t b = n;
		long long cnt = 0;
		for (size_t i = n; i >= sl;) {
			if ((maxsplit < 0 || cnt < maxsplit) && memcmp(p + i - sl, sp, sl) == 0) {
				json_array_insert_new(r, 0, json_stringn_nocheck(p + i, b - i));
				i -= sl;
				b = i;
				cnt++;
			} else {
				i--;
			}
		}
		json_array_insert_new(r, 0, json_stringn_nocheck(p, b));
	}
	json_decref(s);
	return r;
}

FILTER_FN(split) { return pysplit(ev, in, args, kw, pos, false); }

FILTER_FN(rsplit) { return pysplit(ev, in, args, kw, pos, true); }

FILTER_FN(quote)
{
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	size_t n = json_string_length(s);
	if (n == 0) {
		json_decref(s);
		return json_string("''");
	}
	bool safe = true;
	for (size_t i = 0; i < n && safe; i++)
		safe = isalnum((unsigned char)p[i]) || strchr("@%+=:,./-_", p[i]);
	if (safe)
		return s;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addch(&sb, '\'');
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\'')
			strbuf_addstr(&sb, "'\"'\"'");
		else
			strbuf_addch(&sb, p[i]);
	}
	strbuf_addch(&sb, '\'');
	json_decref(s);
	return val_str_take(&sb);
}

FILTER_FN(center)
{
	json_t *fa = json_array();
	json_array_append_new(fa, json_integer(ARG(0, "width") ? val_int(ARG(0, "width")) : 80));
	json_decref(fa);
	json_t *s = val_pystr(in);
	long long w = ARG(0, "width") ? val_int(ARG(0, "width")) : 80;
	long long len = (long long)utf8_len(json_string_value(s), json_string_length(s));
	if (w > TMPL_MAX_SEQ)
		w = TMPL_MAX_SEQ;
	struct strbuf sb = STRBUF_INIT;
	long long pad = w > len ? w - len : 0, left = pad / 2 + (pad & w & 1);
	for (long long i = 0; i < left; i++)
		strbuf_addch(&sb, ' ');
	strbuf_add(&sb, json_string_value(s), json_string_length(s));
	for (long long i = left; i < pad; i++)
		strbuf_addch(&sb, ' ');
	json_decref(s);
	return val_str_take(&sb);
}

FILTER_FN(indent)
{
	json_t *w = ARG(0, "width");
	bool first = val_truthy(ARG(1, "first")), blank = val_truthy(ARG(2, "blank"));
	char *ind;
	if (json_is_string(w))
		ind = xstrdup(json_string_value(w));
	else {
		long long n = w ? val_int(w) : 4;
		if (n < 0)
			n = 0;
		if (n > 1000)
			n = 1000;
		ind = xcalloc((size_t)n + 1, 1);
		memset(ind, ' ', (size_t)n);
	}
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	size_t n = json_string_length(s);
	struct strbuf sb = STRBUF_INIT;
	size_t a = 0;
	bool firstline = true;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || p[i] == '\n') {
			bool empty = i == a;
			if ((!firstline || first) && (blank || !empty))
				strbuf_addstr(&sb, ind);
			strbuf_add(&sb, p + a, i - a);
			if (i < n)
				strbuf_addch(&sb, '\n');
			a = i + 1;
			firstline = false;
		}
	}
	free(ind);
	json_decref(s);
	return val_str_take(&sb);
}

FILTER_FN(wordcount)
{
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	long long c = 0;
	bool inw = false;
	for (; *p; p++) {
		bool w = isalnum((unsigned char)*p) || *p == '_' || ((unsigned char)*p & 0x80);
		if (w && !inw)
			c++;
		inw = w;
	}
	json_decref(s);
	return json_integer(c);
}

FILTER_FN(format)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *s = val_pystr(in);
	int rc = py_percent_format(ev, &sb, json_string_value(s), json_array_size(args) == 1 ? json_array_get(args, 0) : args, pos);
	json_decref(s);
	if (rc < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return val_str_take(&sb);
}

FILTER_FN(truncate)
{
	long long len = ARG(0, "length") ? val_int(ARG(0, "length")) : 255;
	bool killwords = val_truthy(ARG(1, "killwords"));
	json_t *je = ARG(2, "end");
	const char *end = json_is_string(je) ? json_string_value(je) : "...";
	long long leeway = ARG(3, "leeway") ? val_int(ARG(3, "leeway")) : 5;
	json_t *chars = val_iter_list(in);
	if (!chars)
		return ev_type_error(ev, pos, "truncate: %s", "expects a string");
	long long n = (long long)json_array_size(chars);
	if (n <= len + leeway) {
		json_decref(chars);
		return val_pystr(in);
	}
	long long endl = (long long)utf8_len(end, strlen(end));
	long long keep = len - endl;
	if (keep < 0)
		keep = 0;
	struct strbuf sb = STRBUF_INIT;
	for (long long i = 0; i < keep; i++)
		strbuf_add(&sb, val_s(json_array_get(chars, (size_t)i)), val_slen(json_array_get(chars, (size_t)i)));
	json_decref(chars);
	if (!killwords) {
		char *sp = sb.buf ? strrchr(sb.buf, ' ') : NULL;
		if (sp) {
			sb.len = (size_t)(sp - sb.buf);
			sb.buf[sb.len] = 0;
		}
	}
	strbuf_addstr(&sb, end);
	return val_str_take(&sb);
}

FILTER_FN(regex_escape_dummy) { (void)ev; (void)args; (void)kw; (void)pos; return json_incref(in); }

FILTER_FN(escape)
{
	json_t *s = val_pystr(in);
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = json_string_value(s); *p; p++) {
		switch (*p) {
		case '&': strbuf_addstr(&sb, "&amp;"); break;
		case '<': strbuf_addstr(&sb, "&lt;"); break;
		case '>': strbuf_addstr(&sb, "&gt;"); break;
		case '"': strbuf_addstr(&sb, "&#34;"); break;
		case '\'': strbuf_addstr(&sb, "&#39;"); break;
		default: strbuf_addch(&sb, *p);
		}
	}
	json_decref(s);
	return val_str_take(&sb);
}
