/* filters.c: the filter table of the templating engine (Jinja2's builtin
 * filters plus Ansible's core ones, spec §4.4), and the name lookup that
 * joins it with the other filter files (filters-regex.c, filters-data.c,
 * filters-jmespath.c, filters-format.c, filters-path.c, filters-datetime.c,
 * filters-seq.c, filters-markup.c, filters-wrap.c, filters-pprint.c).
 * Each filter reproduces the Python implementation's behaviour on edge
 * cases recipes hit: `default` only for undefined unless its second arg,
 * `int` of bad text is 0, `bool` of 'yes'/'on'/'1', case-insensitive `sort`
 * and `unique`, `map(attribute='a.b')`, Python's json.dumps spacing. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

static json_t *type_err(struct ev *ev, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static json_t *type_err(struct ev *ev, size_t pos, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ev_error(ev, TMPL_ERR_TYPE, pos, "%s", buf);
	return NULL;
}

/* Input as a list (Python iteration), or a type error. */
static json_t *need_list(struct ev *ev, json_t *in, const char *filter, size_t pos)
{
	json_t *l = val_iter_list(in);
	if (!l)
		ev_error(ev, TMPL_ERR_TYPE, pos, "%s: '%s' object is not iterable", filter, val_typename(in));
	return l;
}

static json_t *pystr(const json_t *v)
{
	if (json_is_string(v))
		return json_incref(jmut(v));
	char *s = val_to_cstr(v);
	json_t *r = json_string(s);
	if (!r)
		r = json_stringn_nocheck(s, strlen(s));
	free(s);
	return r;
}

FILTER_FN(default)
{
	json_t *dv = ARG(0, "default_value");
	bool boolean = val_truthy(ARG(1, "boolean"));
	if (!in || (boolean && !val_truthy(in)))
		return dv ? json_incref(dv) : json_string("");
	return json_incref(in);
}

FILTER_FN(mandatory)
{
	if (!in) {
		json_t *msg = ARG(0, "msg");
		if (json_is_string(msg))
			ev_error(ev, TMPL_ERR_UNDEFINED, pos, "%s", json_string_value(msg));
		else
			ev_error(ev, TMPL_ERR_UNDEFINED, pos, "Mandatory variable has not been overridden: %s", ev->undef);
		return NULL;
	}
	return json_incref(in);
}

FILTER_FN(bool)
{
	if (json_is_boolean(in))
		return json_incref(in);
	if (json_is_null(in))
		return json_null(); /* Ansible 2.14 passes None through */
	if (json_is_string(in)) {
		const char *s = json_string_value(in);
		static const char *const yes[] = { "yes", "on", "1", "true", NULL };
		for (size_t i = 0; yes[i]; i++)
			if (!strcasecmp(s, yes[i]))
				return json_true();
		return json_false();
	}
	double d;
	if (val_num(in, &d))
		return json_boolean(d == 1);
	return json_false();
}

/* Python int(str, base): optional sign, whitespace, underscores between digits. */
static bool parse_pyint(const char *s, int base, long long *out)
{
	while (isspace((unsigned char)*s))
		s++;
	bool neg = false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if ((base == 16 || base == 0) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	} else if ((base == 8 || base == 0) && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		s += 2;
		base = 8;
	} else if ((base == 2 || base == 0) && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		s += 2;
		base = 2;
	} else if (base == 0) {
		base = 10;
	}
	if (base < 2 || base > 36)
		return false;
	unsigned long long v = 0;
	bool any = false, last_us = true;
	for (; *s && !isspace((unsigned char)*s); s++) {
		if (*s == '_') {
			if (last_us)
				return false;
			last_us = true;
			continue;
		}
		int dv;
		if (isdigit((unsigned char)*s))
			dv = *s - '0';
		else if (isalpha((unsigned char)*s))
			dv = tolower((unsigned char)*s) - 'a' + 10;
		else
			return false;
		if (dv >= base)
			return false;
		if (v > (ULLONG_MAX - (unsigned)dv) / (unsigned)base)
			return false;
		v = v * (unsigned)base + (unsigned)dv;
		any = true;
		last_us = false;
	}
	if (!any || last_us)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (*s || v > (unsigned long long)LLONG_MAX)
		return false;
	*out = neg ? -(long long)v : (long long)v;
	return true;
}

static bool parse_pyfloat(const char *s, double *out)
{
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	double d = strtod(s, &end);
	if (end == s)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = d;
	return true;
}

FILTER_FN(int)
{
	json_t *dflt = ARG(0, "default");
	json_t *jb = ARG(1, "base");
	int base = jb ? (int)val_int(jb) : 10;
	long long v;
	double d;
	if (json_is_integer(in) || json_is_boolean(in))
		return json_integer(val_int(in));
	if (json_is_real(in)) {
		d = json_real_value(in);
		if (isfinite(d) && fabs(d) < 9.2e18)
			return json_integer((long long)d);
	}
	if (json_is_string(in)) {
		const char *s = json_string_value(in);
		if (parse_pyint(s, base, &v))
			return json_integer(v);
		if (parse_pyfloat(s, &d) && isfinite(d) && fabs(d) < 9.2e18)
			return json_integer((long long)d);
	}
	return dflt ? json_incref(dflt) : json_integer(0);
}

FILTER_FN(float)
{
	json_t *dflt = ARG(0, "default");
	double d;
	if (json_is_number(in) || json_is_boolean(in)) {
		val_num(in, &d);
		return json_real(d);
	}
	if (json_is_string(in) && parse_pyfloat(json_string_value(in), &d)) {
		/* a JSON value cannot hold them, and an undefined result would
		 * be taken for a missing variable */
		if (!isfinite(d)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "float: '%s' is not a finite number, which imc's templating "
				 "cannot hold", json_string_value(in));
			return NULL;
		}
		return json_real(d);
	}
	return dflt ? json_incref(dflt) : json_real(0.0);
}

FILTER_FN(string) { return pystr(in); }

/* Case mapping of one code point for the scripts recipes meet: ASCII,
 * Latin-1, Latin Extended-A, Greek and Cyrillic. */
static unsigned long case_cp(unsigned long c, bool upper)
{
	if (c < 0x80)
		return (unsigned long)(upper ? toupper((int)c) : tolower((int)c));
	if (upper) {
		if ((c >= 0xe0 && c <= 0xfe && c != 0xf7) || (c >= 0x3b1 && c <= 0x3c9 && c != 0x3c2) ||
		    (c >= 0x430 && c <= 0x44f))
			return c - 0x20;
		if (c >= 0x450 && c <= 0x45f)
			return c - 0x50;
		if (c >= 0x100 && c <= 0x17f && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17f)
			return ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) ? ((c & 1) ? c : c - 1) : (c & ~1UL);
	} else {
		if ((c >= 0xc0 && c <= 0xde && c != 0xd7) || (c >= 0x391 && c <= 0x3a9) || (c >= 0x410 && c <= 0x42f))
			return c + 0x20;
		if (c >= 0x400 && c <= 0x40f)
			return c + 0x50;
		if (c >= 0x100 && c <= 0x17f && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17f)
			return ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) ? ((c & 1) ? c + 1 : c) : (c | 1);
	}
	return c;
}

static void put_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (char)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	}
}

static json_t *map_ascii(json_t *in, int mode)
{
	char *s = val_to_cstr(in);
	size_t n = json_is_string(in) ? json_string_length(in) : strlen(s);
	bool start = true;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		unsigned long cp = c;
		size_t len = 1;
		if (c >= 0xc0 && c < 0xe0 && i + 1 < n) {
			cp = ((unsigned long)(c & 0x1f) << 6) | ((unsigned char)s[i + 1] & 0x3f);
			len = 2;
		} else if (c >= 0x80) {
			/* other sequences are copied unchanged */
			size_t j = i + 1;
			while (j < n && ((unsigned char)s[j] & 0xc0) == 0x80)
				j++;
			strbuf_add(&sb, s + i, j - i);
			i = j;
			start = false;
			continue;
		}
		bool up;
		switch (mode) {
		case 0: up = false; break;
		case 1: up = true; break;
		case 2: up = i == 0; break;
		default: up = start; break;
		}
		unsigned long m = case_cp(cp, up);
		if (len == 1 && m < 0x80)
			strbuf_addch(&sb, (char)m);
		else
			put_utf8(&sb, m);
		start = !(cp < 0x80 ? isalnum((int)cp) : 1);
		i += len;
	}
	free(s);
	return val_str_take(&sb);
}

FILTER_FN(lower) { return map_ascii(in, 0); }
FILTER_FN(upper) { return map_ascii(in, 1); }
FILTER_FN(capitalize) { return map_ascii(in, 2); }
FILTER_FN(title) { return map_ascii(in, 3); }

FILTER_FN(replace)
{
	json_t *jo = ARG(0, "old"), *jn = ARG(1, "new"), *jc = ARG(2, "count");
	if (!jo || !jn)
		return type_err(ev, pos, "replace: %s", "expected the old and new strings");
	json_t *s = pystr(in), *o = pystr(jo), *nw = pystr(jn);
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
	json_t *s = pystr(in);
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

FILTER_FN(length)
{
	if (json_is_string(in))
		return json_integer((json_int_t)utf8_len(json_string_value(in), json_string_length(in)));
	if (json_is_array(in))
		return json_integer((json_int_t)json_array_size(in));
	if (json_is_object(in))
		return json_integer((json_int_t)json_object_size(in));
	return type_err(ev, pos, "object of type '%s' has no len()", val_typename(in));
}

/* Jinja's make_attrgetter: "a.b.0" walks keys, digits index lists. */
static json_t *attr_path(json_t *v, const char *path)
{
	json_t *cur = v;
	const char *p = path;
	while (cur) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char *part = xstrndup(p, n);
		json_t *next = NULL;
		if (json_is_object(cur)) {
			next = json_object_get(cur, part);
		} else if (json_is_array(cur) && n && strspn(part, "0123456789") == n) {
			next = json_array_get(cur, strtoul(part, NULL, 10));
		}
		free(part);
		cur = next;
		if (!dot)
			break;
		p = dot + 1;
	}
	return cur;
}

FILTER_FN(join)
{
	json_t *sep = ARG(0, "d");
	json_t *attr = ARG(1, "attribute");
	json_t *l = need_list(ev, in, "join", pos);
	if (!l)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_array_size(l); i++) {
		if (i && sep)
			val_str(&sb, sep);
		json_t *x = json_array_get(l, i);
		if (json_is_string(attr)) {
			x = attr_path(x, json_string_value(attr));
			if (!x) {
				json_decref(l);
				strbuf_release(&sb);
				ev_error(ev, TMPL_ERR_UNDEFINED, pos, "join: item has no attribute '%s'", json_string_value(attr));
				return NULL;
			}
		}
		val_str(&sb, x);
	}
	json_decref(l);
	return val_str_take(&sb);
}

FILTER_FN(list) { return need_list(ev, in, "list", pos); }

static json_t *first_last(struct ev *ev, json_t *in, bool last, size_t pos)
{
	json_t *l = need_list(ev, in, last ? "last" : "first", pos);
	if (!l)
		return NULL;
	size_t n = json_array_size(l);
	json_t *r = n ? json_incref(json_array_get(l, last ? n - 1 : 0)) : NULL;
	json_decref(l);
	if (!r)
		return ev_undef(ev, "No %s item, sequence was empty.", last ? "last" : "first");
	return r;
}

FILTER_FN(first) { return first_last(ev, in, false, pos); }
FILTER_FN(last) { return first_last(ev, in, true, pos); }

/* ---- sorting ---------------------------------------------------------- */

struct sortctx {
	bool case_sensitive;
	const char *attr;
	bool failed;
	json_t *a, *b; /* offending pair */
};

static json_t *sort_key(const struct sortctx *c, json_t *v)
{
	json_t *k = c->attr ? attr_path(v, c->attr) : v;
	if (!k)
		k = json_null();
	if (!c->case_sensitive && json_is_string(k))
		return map_ascii(k, 0);
	return json_incref(k);
}

static int cmp_keys(struct sortctx *c, json_t *x, json_t *y)
{
	int r = 0;
	if (val_compare(x, y, &r) < 0) {
		if (!c->failed) {
			c->failed = true;
			c->a = x;
			c->b = y;
		}
		return 0;
	}
	return r;
}

/* Stable merge sort of items by keys. */
static void msort(struct sortctx *c, json_t **items, json_t **keys, json_t **ti, json_t **tk, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	msort(c, items, keys, ti, tk, h);
	msort(c, items + h, keys + h, ti, tk, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		if (cmp_keys(c, keys[j], keys[i]) < 0) {
			ti[k] = items[j];
			tk[k++] = keys[j++];
		} else {
			ti[k] = items[i];
			tk[k++] = keys[i++];
		}
	}
	while (i < h) {
		ti[k] = items[i];
		tk[k++] = keys[i++];
	}
	while (j < n) {
		ti[k] = items[j];
		tk[k++] = keys[j++];
	}
	memcpy(items, ti, n * sizeof(*ti));
	memcpy(keys, tk, n * sizeof(*tk));
}

static json_t *do_sort(struct ev *ev, json_t *l, bool reverse, bool cs, const char *attr, size_t pos)
{
	size_t n = json_array_size(l);
	json_t **items = xcalloc(n + 1, sizeof(json_t *)), **keys = xcalloc(n + 1, sizeof(json_t *));
	json_t **ti = xcalloc(n + 1, sizeof(json_t *)), **tk = xcalloc(n + 1, sizeof(json_t *));
	struct sortctx c = { .case_sensitive = cs, .attr = attr };
	for (size_t i = 0; i < n; i++) {
		items[i] = json_array_get(l, i);
		keys[i] = sort_key(&c, items[i]);
	}
	if (reverse) {
		/* Python's reverse=True keeps stability: reverse, sort, reverse */
		for (size_t i = 0; i < n / 2; i++) {
			json_t *t = items[i]; items[i] = items[n - 1 - i]; items[n - 1 - i] = t;
			t = keys[i]; keys[i] = keys[n - 1 - i]; keys[n - 1 - i] = t;
		}
	}
	msort(&c, items, keys, ti, tk, n);
	json_t *r = NULL;
	if (c.failed) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'<' not supported between instances of '%s' and '%s'", val_typename(c.a),
			 val_typename(c.b));
	} else {
		r = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append(r, items[reverse ? n - 1 - i : i]);
	}
	for (size_t i = 0; i < n; i++)
		json_decref(keys[i]);
	free(items);
	free(keys);
	free(ti);
	free(tk);
	return r;
}

/* Jinja2's groupby(attribute, default=None, case_sensitive=False): the items
 * sorted by the attribute, then [grouper, items] for each run of equal
 * keys (Ansible prints the group tuples as lists). Without case
 * sensitivity strings compare lowercased and the grouper is the first
 * item's own value. */
FILTER_FN(groupby)
{
	json_t *aj = ARG(0, "attribute"), *dflt = ARG(1, "default"), *cs = ARG(2, "case_sensitive");
	if (!aj || (!json_is_string(aj) && !json_is_integer(aj)))
		return type_err(ev, pos, "groupby: %s", "the attribute must be a string or an integer");
	char *attr = val_to_cstr(aj);
	json_t *l = need_list(ev, in, "groupby", pos), *r = NULL;
	if (!l)
		goto out;
	bool sens = cs && val_truthy(cs);
	/* a missing attribute takes the default, else it stays undefined,
	 * which Jinja cannot order: an error */
	json_t *keyed = json_array();
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i), *k = attr_path(x, attr);
		if (!k && (!dflt || json_is_null(dflt))) {
			json_decref(keyed);
			type_err(ev, pos, "groupby: %s", "an item has no such attribute and no default was given");
			goto out;
		}
		json_array_append_new(keyed, json_pack("[OO]", k ? k : dflt, x));
	}
	json_t *sorted = do_sort(ev, keyed, false, sens, "0", pos);
	json_decref(keyed);
	if (!sorted)
		goto out;
	r = json_array();
	json_t *group = NULL, *gkey = NULL;
	for (size_t i = 0; i < json_array_size(sorted); i++) {
		json_t *k = json_array_get(json_array_get(sorted, i), 0), *x = json_array_get(json_array_get(sorted, i), 1);
		json_t *kk = !sens && json_is_string(k) ? map_ascii(k, 0) : json_incref(k);
		if (!group || !val_equal(kk, gkey)) {
			group = json_array();
			json_array_append_new(r, json_pack("[Oo]", k, group));
			json_decref(gkey);
			gkey = json_incref(kk);
		}
		json_array_append(group, x);
		json_decref(kk);
	}
	json_decref(gkey);
	json_decref(sorted);
out:
	json_decref(l);
	free(attr);
	return r;
}

FILTER_FN(sort)
{
	json_t *l = need_list(ev, in, "sort", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(2, "attribute");
	json_t *r = do_sort(ev, l, val_truthy(ARG(0, "reverse")), val_truthy(ARG(1, "case_sensitive")),
			    json_is_string(attr) ? json_string_value(attr) : NULL, pos);
	json_decref(l);
	return r;
}

FILTER_FN(dictsort)
{
	if (!json_is_object(in))
		return type_err(ev, pos, "dictsort: expected a dict, got %s", val_typename(in));
	json_t *pairs = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(in, k, v)
		json_array_append_new(pairs, json_pack("[sO]", k, v));
	json_t *by = ARG(1, "by");
	bool byval = json_is_string(by) && !strcmp(json_string_value(by), "value");
	json_t *r = do_sort(ev, pairs, val_truthy(ARG(2, "reverse")), val_truthy(ARG(0, "case_sensitive")),
			    byval ? "1" : "0", pos);
	json_decref(pairs);
	return r;
}

static json_t *uniq(json_t *l, bool cs, const char *attr)
{
	json_t *r = json_array();
	json_t *seen = json_array(); /* keys Python cannot hash: linear scan */
	json_t *set = json_object();
	struct sortctx c = { .case_sensitive = cs, .attr = attr };
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		json_t *k = sort_key(&c, x);
		char *hk = val_hash_key(k);
		bool dup = false;
		if (hk) {
			dup = json_object_get(set, hk) != NULL;
			if (!dup)
				json_object_set_new(set, hk, json_true());
			free(hk);
		} else {
			for (size_t j = 0; j < json_array_size(seen) && !dup; j++)
				dup = val_equal(json_array_get(seen, j), k);
			if (!dup)
				json_array_append(seen, k);
		}
		if (!dup)
			json_array_append(r, x);
		json_decref(k);
	}
	json_decref(seen);
	json_decref(set);
	return r;
}

/* Membership through a hash set when the list is big. */
struct memberset {
	json_t *set;
	json_t *list;
};

static void memberset_init(struct memberset *m, json_t *l)
{
	m->list = l;
	m->set = json_object();
	for (size_t i = 0; i < json_array_size(l); i++) {
		char *k = val_hash_key(json_array_get(l, i));
		if (k)
			json_object_set_new(m->set, k, json_true());
		free(k);
	}
}

static bool memberset_has(struct memberset *m, json_t *v)
{
	char *k = val_hash_key(v);
	if (k) {
		bool r = json_object_get(m->set, k) != NULL;
		free(k);
		return r;
	}
	bool f = false;
	val_contains(m->list, v, &f);
	return f;
}

FILTER_FN(unique)
{
	json_t *l = need_list(ev, in, "unique", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(1, "attribute");
	json_t *r = uniq(l, val_truthy(ARG(0, "case_sensitive")), json_is_string(attr) ? json_string_value(attr) : NULL);
	json_decref(l);
	return r;
}

static json_t *setop(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, int op)
{
	json_t *a = need_list(ev, in, "set operation", pos);
	json_t *b = a ? need_list(ev, ARG(0, "b") ? ARG(0, "b") : json_null(), "set operation", pos) : NULL;
	if (!b) {
		json_decref(a);
		return NULL;
	}
	json_t *tmp = json_array(), *r;
	struct memberset ma, mb;
	memberset_init(&ma, a);
	memberset_init(&mb, b);
	switch (op) {
	case 0: /* union */
		json_array_extend(tmp, a);
		json_array_extend(tmp, b);
		break;
	case 1: /* intersect */
	case 2: /* difference */
		for (size_t i = 0; i < json_array_size(a); i++)
			if (memberset_has(&mb, json_array_get(a, i)) == (op == 1))
				json_array_append(tmp, json_array_get(a, i));
		break;
	default: /* symmetric difference */
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!memberset_has(&mb, json_array_get(a, i)))
				json_array_append(tmp, json_array_get(a, i));
		for (size_t i = 0; i < json_array_size(b); i++)
			if (!memberset_has(&ma, json_array_get(b, i)))
				json_array_append(tmp, json_array_get(b, i));
	}
	json_decref(ma.set);
	json_decref(mb.set);
	r = uniq(tmp, true, NULL);
	json_decref(tmp);
	json_decref(a);
	json_decref(b);
	return r;
}

FILTER_FN(union) { return setop(ev, in, args, kw, pos, 0); }
FILTER_FN(intersect) { return setop(ev, in, args, kw, pos, 1); }
FILTER_FN(difference) { return setop(ev, in, args, kw, pos, 2); }
FILTER_FN(symmetric_difference) { return setop(ev, in, args, kw, pos, 3); }

static json_t *minmax(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool max)
{
	json_t *l = need_list(ev, in, max ? "max" : "min", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(1, "attribute");
	struct sortctx c = { .case_sensitive = val_truthy(ARG(0, "case_sensitive")),
			     .attr = json_is_string(attr) ? json_string_value(attr) : NULL };
	json_t *best = NULL, *bk = NULL;
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		json_t *k = sort_key(&c, x);
		int cmp = bk ? cmp_keys(&c, k, bk) : 0;
		if (!bk || (max ? cmp > 0 : cmp < 0)) {
			json_decref(bk);
			bk = k;
			best = x;
		} else {
			json_decref(k);
		}
	}
	json_decref(bk);
	json_t *r = best ? json_incref(best) : NULL;
	json_decref(l);
	if (c.failed) {
		json_decref(r);
		ev_error(ev, TMPL_ERR_TYPE, pos, "'<' not supported between instances of '%s' and '%s'", val_typename(c.a),
			 val_typename(c.b));
		return NULL;
	}
	if (!r)
		return ev_undef(ev, "No aggregated item, sequence was empty.");
	return r;
}

FILTER_FN(min) { return minmax(ev, in, args, kw, pos, false); }
FILTER_FN(max) { return minmax(ev, in, args, kw, pos, true); }

FILTER_FN(sum)
{
	json_t *l = need_list(ev, in, "sum", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(0, "attribute");
	json_t *start = ARG(1, "start");
	json_t *acc = start ? json_incref(start) : json_integer(0);
	for (size_t i = 0; i < json_array_size(l) && acc; i++) {
		json_t *x = json_array_get(l, i);
		if (json_is_string(attr))
			x = attr_path(x, json_string_value(attr));
		if (!x)
			x = json_null();
		json_t *n;
		double a, b;
		if (json_is_array(acc) && json_is_array(x)) {
			n = json_copy(acc);
			json_array_extend(n, x);
		} else if (val_num(acc, &a) && val_num(x, &b)) {
			long long t;
			if (val_is_int(acc) && val_is_int(x) && !__builtin_add_overflow(val_int(acc), val_int(x), &t))
				n = json_integer(t);
			else
				n = json_real(a + b);
		} else {
			ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported operand type(s) for +: '%s' and '%s'", val_typename(acc),
				 val_typename(x));
			n = NULL;
		}
		json_decref(acc);
		acc = n;
	}
	json_decref(l);
	return acc;
}

FILTER_FN(abs)
{
	if (json_is_integer(in) || json_is_boolean(in)) {
		long long x = val_int(in);
		return x == LLONG_MIN ? json_real(-(double)x) : json_integer(x < 0 ? -x : x);
	}
	if (json_is_real(in))
		return json_real(fabs(json_real_value(in)));
	return type_err(ev, pos, "bad operand type for abs(): '%s'", val_typename(in));
}

FILTER_FN(round)
{
	double d;
	if (!val_num(in, &d))
		return type_err(ev, pos, "round: must be a number, not %s", val_typename(in));
	long long prec = ARG(0, "precision") ? val_int(ARG(0, "precision")) : 0;
	json_t *jm = ARG(1, "method");
	const char *m = json_is_string(jm) ? json_string_value(jm) : "common";
	if (prec > 15)
		prec = 15;
	if (prec < -15)
		prec = -15;
	double f = pow(10, (double)prec), x = d * f;
	if (!strcmp(m, "ceil"))
		x = ceil(x);
	else if (!strcmp(m, "floor"))
		x = floor(x);
	else if (!strcmp(m, "common"))
		x = nearbyint(x);
	else
		return type_err(ev, pos, "method must be common, ceil or floor, not '%s'", m);
	return json_real(x / f);
}

FILTER_FN(log)
{
	double d, b = M_E;
	if (!val_num(in, &d))
		return type_err(ev, pos, "log: must be a number, not %s", val_typename(in));
	if (ARG(0, "base"))
		val_num(ARG(0, "base"), &b);
	if (d <= 0 || b <= 0 || b == 1)
		return type_err(ev, pos, "log: %s", "math domain error");
	return json_real(b == 10 ? log10(d) : log(d) / log(b));
}

FILTER_FN(pow)
{
	double d, e = 0;
	if (!val_num(in, &d) || !ARG(0, "y") || !val_num(ARG(0, "y"), &e))
		return type_err(ev, pos, "pow: %s", "can only be used on numbers");
	return json_real(pow(d, e));
}

FILTER_FN(root)
{
	double d, b = 2;
	if (!val_num(in, &d))
		return type_err(ev, pos, "root: %s", "can only be used on numbers");
	if (ARG(0, "base"))
		val_num(ARG(0, "base"), &b);
	if (b == 2)
		return json_real(sqrt(d));
	return json_real(pow(d, 1.0 / b));
}

/* ---- map / select ------------------------------------------------------ */

FILTER_FN(map)
{
	json_t *l = need_list(ev, in, "map", pos);
	if (!l)
		return NULL;
	json_t *attr = kw ? json_object_get(kw, "attribute") : NULL;
	json_t *r = json_array();
	if (attr) {
		json_t *dflt = json_object_get(kw, "default");
		char *ap = val_to_cstr(attr);
		for (size_t i = 0; i < json_array_size(l); i++) {
			json_t *x = attr_path(json_array_get(l, i), ap);
			if (!x && dflt)
				x = dflt;
			if (!x) {
				ev_error(ev, TMPL_ERR_UNDEFINED, pos, "%s has no attribute '%s'",
					 json_is_object(json_array_get(l, i)) ? "'dict object'" : "object", ap);
				json_decref(r);
				r = NULL;
				break;
			}
			json_array_append(r, x);
		}
		free(ap);
	} else {
		json_t *fname = json_array_get(args, 0);
		if (!json_is_string(fname)) {
			json_decref(l);
			json_decref(r);
			return type_err(ev, pos, "map: %s", "expected a filter name or attribute=");
		}
		json_t *rest = json_array();
		for (size_t i = 1; i < json_array_size(args); i++)
			json_array_append(rest, json_array_get(args, i));
		json_t *kw2 = NULL;
		if (kw) {
			kw2 = json_copy(kw);
		}
		for (size_t i = 0; i < json_array_size(l); i++) {
			json_t *x = ev_call_filter(ev, json_string_value(fname), json_array_get(l, i), rest, kw2, pos);
			if (!x && ev->failed) {
				json_decref(r);
				r = NULL;
				break;
			}
			/* an undefined item (extract of a missing key) stays in the
			 * list, as Jinja keeps its Undefined: we have only None */
			json_array_append_new(r, x ? x : json_null());
		}
		json_decref(rest);
		json_decref(kw2);
	}
	json_decref(l);
	return r;
}

/* select/reject/selectattr/rejectattr */
static json_t *selectx(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool keep, bool byattr)
{
	json_t *l = need_list(ev, in, "select", pos);
	if (!l)
		return NULL;
	size_t ai = 0;
	const char *attr = NULL;
	if (byattr) {
		json_t *a = json_array_get(args, ai++);
		if (!json_is_string(a)) {
			json_decref(l);
			return type_err(ev, pos, "selectattr: %s", "missing attribute name");
		}
		attr = json_string_value(a);
	}
	json_t *tn = json_array_get(args, ai++);
	json_t *rest = json_array();
	for (size_t i = ai; i < json_array_size(args); i++)
		json_array_append(rest, json_array_get(args, i));
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		json_t *v = attr ? attr_path(x, attr) : x;
		bool res;
		if (json_is_string(tn)) {
			if (ev_call_test(ev, json_string_value(tn), v, rest, NULL, pos, &res) < 0) {
				json_decref(r);
				r = NULL;
				break;
			}
		} else {
			if (!v && attr) {
				ev_error(ev, TMPL_ERR_UNDEFINED, pos, "'dict object' has no attribute '%s'", attr);
				json_decref(r);
				r = NULL;
				break;
			}
			res = val_truthy(v);
		}
		if (res == keep)
			json_array_append(r, x);
	}
	json_decref(rest);
	json_decref(l);
	return r;
}

FILTER_FN(select) { return selectx(ev, in, args, kw, pos, true, false); }
FILTER_FN(reject) { return selectx(ev, in, args, kw, pos, false, false); }
FILTER_FN(selectattr) { return selectx(ev, in, args, kw, pos, true, true); }
FILTER_FN(rejectattr) { return selectx(ev, in, args, kw, pos, false, true); }

FILTER_FN(attr)
{
	json_t *n = ARG(0, "name");
	char *s = val_to_cstr(n);
	json_t *r = json_is_object(in) ? json_object_get(in, s) : NULL;
	if (!r)
		ev_undef(ev, "%s has no attribute '%s'", json_is_object(in) ? "'dict object'" : "object", s);
	free(s);
	return r ? json_incref(r) : NULL;
}

FILTER_FN(extract)
{
	json_t *cont = ARG(0, "container");
	json_t *more = ARG(1, "morekeys");
	if (!cont)
		return type_err(ev, pos, "extract: %s", "missing container");
	json_t *cur = NULL;
	json_t *keys = json_array();
	json_array_append(keys, in);
	if (json_is_array(more))
		json_array_extend(keys, more);
	else if (more && !json_is_null(more))
		json_array_append(keys, more);
	cur = json_incref(cont);
	for (size_t i = 0; i < json_array_size(keys) && cur; i++) {
		json_t *k = json_array_get(keys, i);
		json_t *next = NULL;
		if (json_is_object(cur)) {
			char *ks = val_to_cstr(k);
			next = json_object_get(cur, ks);
			if (!next)
				ev_undef(ev, "'dict object' has no attribute '%s'", ks);
			free(ks);
		} else if (json_is_array(cur) && json_is_integer(k)) {
			long long ix = json_integer_value(k);
			if (ix < 0)
				ix += (long long)json_array_size(cur);
			next = ix >= 0 ? json_array_get(cur, (size_t)ix) : NULL;
			if (!next)
				ev_undef(ev, "list object has no element %lld", json_integer_value(k));
		} else {
			ev_undef(ev, "'%s object' has no attribute", val_typename(cur));
		}
		json_decref(cur);
		cur = next ? json_incref(next) : NULL;
	}
	json_decref(keys);
	return cur; /* NULL: undefined, the reason in ev->undef */
}

/* ---- dicts ---------------------------------------------------------------- */

FILTER_FN(dict2items)
{
	if (!json_is_object(in))
		return type_err(ev, pos, "dict2items requires a dictionary, got %s instead.", val_typename(in));
	json_t *kn = ARG(0, "key_name"), *vn = ARG(1, "value_name");
	const char *ks = json_is_string(kn) ? json_string_value(kn) : "key";
	const char *vs = json_is_string(vn) ? json_string_value(vn) : "value";
	json_t *r = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(in, k, v)
		json_array_append_new(r, json_pack("{sssO}", ks, k, vs, v));
	return r;
}

FILTER_FN(items2dict)
{
	json_t *kn = ARG(0, "key_name"), *vn = ARG(1, "value_name");
	const char *ks = json_is_string(kn) ? json_string_value(kn) : "key";
	const char *vs = json_is_string(vn) ? json_string_value(vn) : "value";
	if (!json_is_array(in))
		return type_err(ev, pos, "items2dict requires a list, got %s instead.", val_typename(in));
	json_t *r = json_object();
	for (size_t i = 0; i < json_array_size(in); i++) {
		json_t *x = json_array_get(in, i);
		json_t *k = json_object_get(x, ks), *v = json_object_get(x, vs);
		if (!k || !v) {
			json_decref(r);
			ev_error(ev, TMPL_ERR_TYPE, pos, "items2dict requires each dictionary in the list to contain the keys '%s' and '%s'", ks, vs);
			return NULL;
		}
		char *kk = val_to_cstr(k);
		json_object_set(r, kk, v);
		free(kk);
	}
	return r;
}

FILTER_FN(items)
{
	if (!json_is_object(in))
		return type_err(ev, pos, "items: can only get item pairs from a mapping, not %s", val_typename(in));
	json_t *r = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(in, k, v)
		json_array_append_new(r, json_pack("[sO]", k, v));
	return r;
}

static void merge_into(json_t *dst, json_t *src, bool recursive, const char *list_merge)
{
	const char *k;
	json_t *v;
	json_object_foreach(src, k, v) {
		json_t *old = json_object_get(dst, k);
		if (recursive && json_is_object(old) && json_is_object(v)) {
			json_t *c = json_deep_copy(old);
			merge_into(c, v, recursive, list_merge);
			json_object_set_new(dst, k, c);
		} else if (json_is_array(old) && json_is_array(v) && strcmp(list_merge, "replace")) {
			json_t *c = json_array();
			if (!strcmp(list_merge, "keep")) {
				json_array_extend(c, old);
			} else if (!strcmp(list_merge, "append") || !strcmp(list_merge, "append_rp")) {
				json_array_extend(c, old);
				json_array_extend(c, v);
			} else { /* prepend */
				json_array_extend(c, v);
				json_array_extend(c, old);
			}
			json_object_set_new(dst, k, c);
		} else {
			json_object_set(dst, k, v);
		}
	}
}

FILTER_FN(combine)
{
	bool recursive = kw && val_truthy(json_object_get(kw, "recursive"));
	json_t *lm = kw ? json_object_get(kw, "list_merge") : NULL;
	const char *list_merge = json_is_string(lm) ? json_string_value(lm) : "replace";
	json_t *all = json_array();
	if (json_is_array(in))
		json_array_extend(all, in);
	else
		json_array_append(all, in);
	for (size_t i = 0; i < json_array_size(args); i++) {
		json_t *a = json_array_get(args, i);
		if (json_is_array(a))
			json_array_extend(all, a);
		else
			json_array_append(all, a);
	}
	json_t *r = json_object();
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *d = json_array_get(all, i);
		if (!json_is_object(d)) {
			json_decref(all);
			json_decref(r);
			return type_err(ev, pos, "failed to combine variables, expected dicts but got a '%s'", val_typename(d));
		}
		merge_into(r, d, recursive, list_merge);
	}
	json_decref(all);
	return r;
}

FILTER_FN(ternary)
{
	json_t *t = ARG(0, "true_val"), *f = ARG(1, "false_val"), *nv = ARG(2, "none_val");
	if (json_is_null(in) && nv)
		return json_incref(nv);
	json_t *r = val_truthy(in) ? t : f;
	return json_incref(r ? r : json_null());
}

/* ---- sequences ---------------------------------------------------------- */

static void flatten_into(json_t *out, json_t *l, long long levels, bool skip_nulls, int depth)
{
	for (size_t i = 0; i < json_array_size(l) && json_array_size(out) <= TMPL_MAX_SEQ; i++) {
		json_t *e = json_array_get(l, i);
		if (skip_nulls && (json_is_null(e) || (json_is_string(e) && (!strcmp(json_string_value(e), "None") ||
									     !strcmp(json_string_value(e), "null")))))
			continue;
		if (json_is_array(e) && (levels < 0 || levels >= 1) && depth < 200)
			flatten_into(out, e, levels < 0 ? -1 : levels - 1, skip_nulls, depth + 1);
		else
			json_array_append(out, e);
	}
}

FILTER_FN(flatten)
{
	json_t *lv = ARG(0, "levels");
	json_t *sn = ARG(1, "skip_nulls");
	if (!json_is_array(in))
		return type_err(ev, pos, "flatten expects a list, got %s", val_typename(in));
	json_t *r = json_array();
	flatten_into(r, in, lv && !json_is_null(lv) ? val_int(lv) : -1, sn ? val_truthy(sn) : true, 0);
	if (json_array_size(r) > TMPL_MAX_SEQ) {
		json_decref(r);
		return type_err(ev, pos, "flatten: result too large (over %d items)", TMPL_MAX_SEQ);
	}
	return r;
}

static json_t *zipx(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool longest)
{
	json_t *lists = json_array();
	json_t *first = need_list(ev, in, "zip", pos);
	if (!first) {
		json_decref(lists);
		return NULL;
	}
	json_array_append_new(lists, first);
	for (size_t i = 0; i < json_array_size(args); i++) {
		json_t *l = need_list(ev, json_array_get(args, i), "zip", pos);
		if (!l) {
			json_decref(lists);
			return NULL;
		}
		json_array_append_new(lists, l);
	}
	size_t n = longest ? 0 : SIZE_MAX;
	for (size_t i = 0; i < json_array_size(lists); i++) {
		size_t m = json_array_size(json_array_get(lists, i));
		n = longest ? (m > n ? m : n) : (m < n ? m : n);
	}
	json_t *fill = kw ? json_object_get(kw, "fillvalue") : NULL;
	json_t *r = json_array();
	for (size_t j = 0; j < n; j++) {
		json_t *t = json_array();
		for (size_t i = 0; i < json_array_size(lists); i++) {
			json_t *x = json_array_get(json_array_get(lists, i), j);
			json_array_append(t, x ? x : fill ? fill : json_null());
		}
		json_array_append_new(r, t);
	}
	json_decref(lists);
	return r;
}

FILTER_FN(zip) { return zipx(ev, in, args, kw, pos, false); }
FILTER_FN(zip_longest) { return zipx(ev, in, args, kw, pos, true); }

FILTER_FN(product)
{
	json_t *acc = json_array();
	json_array_append_new(acc, json_array());
	json_t *all = json_array();
	json_array_append(all, in);
	json_array_extend(all, args);
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *l = need_list(ev, json_array_get(all, i), "product", pos);
		if (!l || json_array_size(acc) * json_array_size(l) > TMPL_MAX_SEQ) {
			if (l)
				ev_error(ev, TMPL_ERR_LIMIT, pos, "product: result too large");
			json_decref(l);
			json_decref(acc);
			json_decref(all);
			return NULL;
		}
		json_t *next = json_array();
		for (size_t a = 0; a < json_array_size(acc); a++)
			for (size_t b = 0; b < json_array_size(l); b++) {
				json_t *t = json_copy(json_array_get(acc, a));
				json_array_append(t, json_array_get(l, b));
				json_array_append_new(next, t);
			}
		json_decref(acc);
		json_decref(l);
		acc = next;
	}
	json_decref(all);
	return acc;
}

FILTER_FN(reverse)
{
	if (json_is_string(in)) {
		json_t *chars = val_iter_list(in);
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = json_array_size(chars); i > 0; i--)
			strbuf_add(&sb, val_s(json_array_get(chars, i - 1)), val_slen(json_array_get(chars, i - 1)));
		json_decref(chars);
		return val_str_take(&sb);
	}
	json_t *l = need_list(ev, in, "reverse", pos);
	if (!l)
		return NULL;
	json_t *r = json_array();
	for (size_t i = json_array_size(l); i > 0; i--)
		json_array_append(r, json_array_get(l, i - 1));
	json_decref(l);
	return r;
}

FILTER_FN(batch)
{
	long long n = ARG(0, "linecount") ? val_int(ARG(0, "linecount")) : 0;
	json_t *fill = ARG(1, "fill_with");
	if (n <= 0)
		return type_err(ev, pos, "batch: %s", "linecount must be positive");
	json_t *l = need_list(ev, in, "batch", pos);
	if (!l)
		return NULL;
	json_t *r = json_array(), *cur = NULL;
	for (size_t i = 0; i < json_array_size(l); i++) {
		if (!cur)
			cur = json_array();
		json_array_append(cur, json_array_get(l, i));
		if ((long long)json_array_size(cur) == n) {
			json_array_append_new(r, cur);
			cur = NULL;
		}
	}
	if (cur) {
		while (fill && (long long)json_array_size(cur) < n)
			json_array_append(cur, fill);
		json_array_append_new(r, cur);
	}
	json_decref(l);
	return r;
}

/* Jinja2's slice(slices, fill_with=None): the items cut into that many
 * columns, the first (len % slices) one longer; fill_with pads the others. */
FILTER_FN(slice)
{
	json_t *nj = ARG(0, "slices"), *fill = ARG(1, "fill_with");
	if (!nj || !val_is_int(nj))
		return type_err(ev, pos, "slice: %s", "the number of slices must be an integer");
	long long slices = val_int(nj);
	json_t *l = need_list(ev, in, "slice", pos);
	if (!l)
		return NULL;
	long long len = (long long)json_array_size(l);
	if (slices <= 0 || slices > TMPL_MAX_SEQ) {
		json_decref(l);
		/* range(0) yields nothing; a negative count divides by a
		 * negative number, which Python allows but no recipe means */
		if (slices == 0)
			return type_err(ev, pos, "slice: %s", "integer division or modulo by zero");
		return slices < 0 ? type_err(ev, pos, "slice: %s", "the number of slices must be positive")
				  : type_err(ev, pos, "slice: %s", "too many slices");
	}
	long long per = len / slices, extra = len % slices, offset = 0;
	json_t *r = json_array();
	for (long long k = 0; k < slices; k++) {
		long long start = offset + k * per;
		if (k < extra)
			offset++;
		long long end = offset + (k + 1) * per;
		json_t *part = json_array();
		for (long long i = start; i < end && i < len; i++)
			json_array_append(part, json_array_get(l, (size_t)i));
		if (fill && !json_is_null(fill) && k >= extra)
			json_array_append(part, fill);
		json_array_append_new(r, part);
	}
	json_decref(l);
	return r;
}

FILTER_FN(subelements)
{
	json_t *key = ARG(0, "subelements");
	bool skip = val_truthy(ARG(1, "skip_missing"));
	json_t *l = json_is_object(in) ? val_iter_list(NULL) : NULL;
	(void)l;
	if (!json_is_array(in) || !json_is_string(key))
		return type_err(ev, pos, "subelements: %s", "expects a list of dicts and a key");
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(in); i++) {
		json_t *x = json_array_get(in, i);
		json_t *sub = attr_path(x, json_string_value(key));
		if (!sub) {
			if (skip)
				continue;
			json_decref(r);
			ev_error(ev, TMPL_ERR_UNDEFINED, pos, "could not find '%s' key in iterated item", json_string_value(key));
			return NULL;
		}
		if (!json_is_array(sub)) {
			json_decref(r);
			ev_error(ev, TMPL_ERR_TYPE, pos, "the key %s should point to a list", json_string_value(key));
			return NULL;
		}
		for (size_t j = 0; j < json_array_size(sub); j++)
			json_array_append_new(r, json_pack("[OO]", x, json_array_get(sub, j)));
	}
	return r;
}

FILTER_FN(random)
{
	json_t *seed = ARG(2, "seed");
	unsigned int st;
	if (seed) {
		char *s = val_to_cstr(seed);
		st = 5381;
		for (const char *p = s; *p; p++)
			st = st * 33 + (unsigned char)*p;
		free(s);
	} else {
		st = (unsigned int)time(NULL) ^ (unsigned int)(size_t)ev ^ (unsigned int)rand();
	}
	if (json_is_integer(in)) {
		long long end = json_integer_value(in);
		long long start = ARG(0, "start") ? val_int(ARG(0, "start")) : 0;
		long long step = ARG(1, "step") ? val_int(ARG(1, "step")) : 1;
		long long span;
		if (step <= 0 || end <= start || __builtin_sub_overflow(end, start, &span) || span > TMPL_MAX_SEQ * 1000LL)
			return type_err(ev, pos, "random: %s", "empty or too large range");
		long long cnt = (span + step - 1) / step;
		return json_integer(start + (long long)((unsigned long long)rand_r(&st) % (unsigned long long)cnt) * step);
	}
	json_t *l = need_list(ev, in, "random", pos);
	if (!l)
		return NULL;
	if (!json_array_size(l)) {
		json_decref(l);
		return type_err(ev, pos, "random: %s", "Cannot choose from an empty sequence");
	}
	json_t *r = json_incref(json_array_get(l, (size_t)rand_r(&st) % json_array_size(l)));
	json_decref(l);
	return r;
}

FILTER_FN(shuffle)
{
	json_t *l = need_list(ev, in, "shuffle", pos);
	if (!l)
		return NULL;
	json_t *r = json_copy(l);
	json_decref(l);
	unsigned int st = (unsigned int)time(NULL) ^ (unsigned int)rand();
	for (size_t i = json_array_size(r); i > 1; i--) {
		size_t j = (size_t)rand_r(&st) % i;
		json_t *a = json_incref(json_array_get(r, i - 1));
		json_array_set(r, i - 1, json_array_get(r, j));
		json_array_set_new(r, j, a);
	}
	return r;
}

/* ---- strings ------------------------------------------------------------ */

static json_t *pysplit(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool right)
{
	json_t *sep = ARG(0, "sep");
	json_t *jm = ARG(1, "maxsplit");
	long long maxsplit = jm && !json_is_null(jm) ? val_int(jm) : -1;
	json_t *s = pystr(in);
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
		return type_err(ev, pos, "split: %s", "empty separator");
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

FILTER_FN(basename)
{
	json_t *s = pystr(in);
	const char *p = json_string_value(s);
	const char *sl = strrchr(p, '/');
	json_t *r = json_string(sl ? sl + 1 : p);
	json_decref(s);
	return r ? r : json_string("");
}

FILTER_FN(dirname)
{
	json_t *s = pystr(in);
	const char *p = json_string_value(s);
	const char *sl = strrchr(p, '/');
	size_t n = sl ? (size_t)(sl - p) + 1 : 0;
	size_t allslash = 0;
	while (allslash < n && p[allslash] == '/')
		allslash++;
	if (n && allslash != n)
		while (n > 0 && p[n - 1] == '/')
			n--;
	json_t *r = json_stringn_nocheck(p, n);
	json_decref(s);
	return r;
}

FILTER_FN(splitext)
{
	json_t *s = pystr(in);
	const char *p = json_string_value(s);
	size_t n = json_string_length(s);
	const char *sl = strrchr(p, '/');
	size_t base = sl ? (size_t)(sl - p) + 1 : 0;
	const char *dot = strrchr(p + base, '.');
	size_t cut = n;
	if (dot) {
		/* leading dots of the basename do not start an extension */
		size_t d = (size_t)(dot - p);
		size_t k = base;
		while (k < n && p[k] == '.')
			k++;
		if (d >= k)
			cut = d;
	}
	json_t *r = json_pack("[s%s%]", p, cut, p + cut, n - cut);
	json_decref(s);
	return r ? r : json_pack("[ss]", "", "");
}

FILTER_FN(expanduser)
{
	json_t *s = pystr(in);
	const char *p = json_string_value(s);
	if (p[0] == '~' && (p[1] == '/' || !p[1])) {
		const char *home = getenv("HOME");
		char *x = xasprintf("%s%s", home ? home : "", p + 1);
		json_decref(s);
		json_t *r = json_string(x);
		free(x);
		return r ? r : json_string("");
	}
	return s;
}

FILTER_FN(realpath)
{
	json_t *s = pystr(in);
	char *rp = realpath(json_string_value(s), NULL);
	if (rp) {
		json_decref(s);
		json_t *r = json_string(rp);
		free(rp);
		return r ? r : json_string("");
	}
	return s;
}

FILTER_FN(path_join)
{
	json_t *l = json_is_array(in) ? json_incref(in) : json_pack("[O]", in);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		char *s = val_to_cstr(x);
		if (s[0] == '/')
			strbuf_reset(&sb);
		else if (sb.len && sb.buf[sb.len - 1] != '/')
			strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, s);
		free(s);
	}
	json_decref(l);
	return val_str_take(&sb);
}

FILTER_FN(quote)
{
	json_t *s = pystr(in);
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
	json_t *s = pystr(in);
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
	json_t *s = pystr(in);
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
	json_t *s = pystr(in);
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
	json_t *s = pystr(in);
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
		return type_err(ev, pos, "truncate: %s", "expects a string");
	long long n = (long long)json_array_size(chars);
	if (n <= len + leeway) {
		json_decref(chars);
		return pystr(in);
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

FILTER_FN(type_debug)
{
	(void)ev; (void)args; (void)kw; (void)pos;
	return json_string(val_typename(in));
}

FILTER_FN(escape)
{
	json_t *s = pystr(in);
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

FILTER_FN(success_compat)
{
	/* `result|success` (removed in Ansible 2.9) used as a filter: the test */
	(void)args; (void)kw;
	bool r;
	if (ev_call_test(ev, "succeeded", in, NULL, NULL, pos, &r) < 0)
		return NULL;
	return json_boolean(r);
}
FILTER_FN(failed_compat)
{
	(void)args; (void)kw;
	bool r;
	if (ev_call_test(ev, "failed", in, NULL, NULL, pos, &r) < 0)
		return NULL;
	return json_boolean(r);
}
FILTER_FN(changed_compat)
{
	(void)args; (void)kw;
	bool r;
	if (ev_call_test(ev, "changed", in, NULL, NULL, pos, &r) < 0)
		return NULL;
	return json_boolean(r);
}
FILTER_FN(skipped_compat)
{
	(void)args; (void)kw;
	bool r;
	if (ev_call_test(ev, "skipped", in, NULL, NULL, pos, &r) < 0)
		return NULL;
	return json_boolean(r);
}

/* Python %-formatting: %s %r %d %i %f %x %o %e %g %% with flags/width/precision.
 * The printf spec is rebuilt from validated characters only, hence the
 * non-literal formats below are safe. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
int py_percent_format(struct ev *ev, struct strbuf *out, const char *fmt, json_t *vals, size_t pos)
{
	json_t *list = json_is_array(vals) ? json_incref(vals) : json_pack("[O]", vals ? vals : json_null());
	size_t vi = 0;
	int rc = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			strbuf_addch(out, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			strbuf_addch(out, '%');
			continue;
		}
		char spec[32];
		size_t sl = 0;
		spec[sl++] = '%';
		json_t *named = NULL;
		if (*p == '(') {
			const char *e = strchr(p, ')');
			if (!e || !json_is_object(vals)) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "format requires a mapping");
				rc = -1;
				break;
			}
			char *key = xstrndup(p + 1, (size_t)(e - p) - 1);
			named = json_object_get(vals, key);
			free(key);
			p = e + 1;
		}
		while (*p && strchr("-+ #0", *p) && sl < 8)
			spec[sl++] = *p++;
		/* width and precision are bounded as a repeated string is: a
		 * 30-byte template must not ask for gigabytes of padding */
		unsigned long long width = 0, prec = 0;
		while (*p && isdigit((unsigned char)*p) && sl < 16) {
			width = width * 10 + (unsigned)(*p - '0');
			spec[sl++] = *p++;
		}
		if (*p == '.') {
			spec[sl++] = *p++;
			while (*p && isdigit((unsigned char)*p) && sl < 24) {
				prec = prec * 10 + (unsigned)(*p - '0');
				spec[sl++] = *p++;
			}
		}
		if (width > TMPL_MAX_SEQ || prec > TMPL_MAX_SEQ) {
			ev_error(ev, TMPL_ERR_LIMIT, pos, "format width or precision too large (over %d)", TMPL_MAX_SEQ);
			rc = -1;
			break;
		}
		char conv = *p;
		if (!conv || !strchr("sridfFxXoeEgGc", conv)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported format character '%c'", conv ? conv : '?');
			rc = -1;
			break;
		}
		json_t *v = named ? named : json_array_get(list, vi++);
		if (!v) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "not enough arguments for format string");
			rc = -1;
			break;
		}
		if (conv == 's' || conv == 'r') {
			struct strbuf t = STRBUF_INIT;
			if (conv == 's')
				val_str(&t, v);
			else
				val_repr(&t, v);
			spec[sl++] = 's';
			spec[sl] = 0;
			strbuf_addf(out, spec, strbuf_str(&t));
			strbuf_release(&t);
		} else if (conv == 'd' || conv == 'i' || conv == 'x' || conv == 'X' || conv == 'o' || conv == 'c') {
			double d;
			if (!val_num(v, &d)) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "%%%c format: a number is required, not %s", conv, val_typename(v));
				rc = -1;
				break;
			}
			spec[sl++] = 'l';
			spec[sl++] = 'l';
			spec[sl++] = conv == 'i' ? 'd' : conv;
			spec[sl] = 0;
			strbuf_addf(out, spec, val_int(v));
		} else {
			double d;
			if (!val_num(v, &d)) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "must be real number, not %s", val_typename(v));
				rc = -1;
				break;
			}
			spec[sl++] = conv;
			spec[sl] = 0;
			strbuf_addf(out, spec, d);
		}
	}
	if (rc == 0 && json_is_array(vals) && vi < json_array_size(list)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "not all arguments converted during string formatting");
		rc = -1;
	}
	json_decref(list);
	return rc;
}
#pragma GCC diagnostic pop
