/* expr-value.c: Python value semantics on top of jansson values, because
 * Ansible's Jinja runs on Python objects: truthiness, ==, ordering,
 * membership, iteration, and above all str()/repr() — recipes and golden
 * files depend on lists rendering as ['a', 'b'], booleans as True and floats
 * with Python's shortest round-trip repr (1e+20, 0.1, 2.0). Also a small
 * ast.literal_eval used by Ansible's result typing. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/pyfloat.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

const char *val_s(const json_t *v)
{
	const char *s = json_string_value(v);
	return s ? s : "";
}

size_t val_slen(const json_t *v)
{
	return json_is_string(v) ? json_string_length(v) : 0;
}

bool val_num(const json_t *v, double *out)
{
	if (json_is_integer(v))
		*out = (double)json_integer_value(v);
	else if (json_is_real(v))
		*out = json_real_value(v);
	else if (json_is_boolean(v))
		*out = json_is_true(v) ? 1 : 0;
	else
		return false;
	return true;
}

bool val_is_int(const json_t *v)
{
	return json_is_integer(v) || json_is_boolean(v);
}

long long val_int(const json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d != d)
			return 0;
		if (d >= 9.2e18)
			return 9200000000000000000LL;
		if (d <= -9.2e18)
			return -9200000000000000000LL;
		return (long long)d;
	}
	return 0;
}

bool val_truthy(const json_t *v)
{
	if (!v)
		return false;
	if (dt_kind(v))
		return dt_truthy(v);
	switch (json_typeof(v)) {
	case JSON_OBJECT: return json_object_size(v) > 0;
	case JSON_ARRAY: return json_array_size(v) > 0;
	case JSON_STRING: return json_string_length(v) > 0;
	case JSON_INTEGER: return json_integer_value(v) != 0;
	case JSON_REAL: return json_real_value(v) != 0.0;
	case JSON_TRUE: return true;
	case JSON_FALSE: return false;
	case JSON_NULL: return false;
	}
	return false;
}

bool tmpl_is_true(const json_t *v)
{
	return val_truthy(v);
}

/* Python compares the items of containers, and looks for an item with
 * `in`, by identity first: a NaN is not == itself, yet [x] == [x] and
 * x in [x] hold for one NaN x. */
static bool same_or_equal(const json_t *a, const json_t *b)
{
	return a == b || val_equal(a, b);
}

bool val_equal(const json_t *a, const json_t *b)
{
	double x, y;
	if (!a || !b)
		return a == b;
	if ((json_is_number(a) || json_is_boolean(a)) && (json_is_number(b) || json_is_boolean(b))) {
		if (val_is_int(a) && val_is_int(b))
			return val_int(a) == val_int(b);
		val_num(a, &x);
		val_num(b, &y);
		return x == y;
	}
	if (json_typeof(a) != json_typeof(b))
		return false;
	switch (json_typeof(a)) {
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
	case JSON_ARRAY: {
		size_t n = json_array_size(a);
		if (n != json_array_size(b))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!same_or_equal(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	case JSON_OBJECT: {
		if (json_object_size(a) != json_object_size(b))
			return false;
		const char *k;
		json_t *va;
		json_object_foreach(jmut(a), k, va) {
			json_t *vb = json_object_get(b, k);
			if (!vb || !same_or_equal(va, vb))
				return false;
		}
		return true;
	}
	case JSON_NULL:
		return true;
	default:
		return false;
	}
}

int val_compare(const json_t *a, const json_t *b, int *cmp)
{
	double x, y;
	if (dt_kind(a) || dt_kind(b))
		return dt_compare(a, b, cmp);
	if ((json_is_number(a) || json_is_boolean(a)) && (json_is_number(b) || json_is_boolean(b))) {
		if (val_is_int(a) && val_is_int(b)) {
			long long p = val_int(a), q = val_int(b);
			*cmp = p < q ? -1 : p > q;
			return 0;
		}
		val_num(a, &x);
		val_num(b, &y);
		*cmp = x < y ? -1 : x > y;
		return isnan(x) || isnan(y) ? 1 : 0;
	}
	if (json_is_string(a) && json_is_string(b)) {
		size_t la = json_string_length(a), lb = json_string_length(b);
		int c = memcmp(json_string_value(a), json_string_value(b), la < lb ? la : lb);
		*cmp = c ? (c < 0 ? -1 : 1) : (la < lb ? -1 : la > lb);
		return 0;
	}
	if (json_is_array(a) && json_is_array(b)) {
		size_t la = json_array_size(a), lb = json_array_size(b);
		for (size_t i = 0; i < la && i < lb; i++) {
			json_t *p = json_array_get(a, i), *q = json_array_get(b, i);
			if (p == q || val_equal(p, q))
				continue;
			return val_compare(p, q, cmp);
		}
		*cmp = la < lb ? -1 : la > lb;
		return 0;
	}
	return -1;
}

const char *val_typename(const json_t *v)
{
	if (!v)
		return "AnsibleUndefined";
	if (dt_kind(v))
		return dt_typename(v);
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "dict";
	case JSON_ARRAY: return "list";
	case JSON_STRING: return "str";
	case JSON_INTEGER: return "int";
	case JSON_REAL: return "float";
	case JSON_TRUE:
	case JSON_FALSE: return "bool";
	case JSON_NULL: return "NoneType";
	}
	return "object";
}

static void repr_string(struct strbuf *sb, const char *s, size_t n)
{
	bool has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
	char q = (has_sq && !has_dq) ? '"' : '\'';
	strbuf_addch(sb, q);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == (unsigned char)q || c == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, (char)c);
		} else if (c == '\n') {
			strbuf_addstr(sb, "\\n");
		} else if (c == '\r') {
			strbuf_addstr(sb, "\\r");
		} else if (c == '\t') {
			strbuf_addstr(sb, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			strbuf_addf(sb, "\\x%02x", c);
		} else {
			strbuf_addch(sb, (char)c);
		}
	}
	strbuf_addch(sb, q);
}

static void repr_depth(struct strbuf *sb, const json_t *v, bool top_str, int depth)
{
	if (sb->truncated)
		return; /* capped buffer full: the caller reports it */
	if (!v) {
		strbuf_addstr(sb, "");
		return;
	}
	if (depth > 200) {
		strbuf_addstr(sb, "...");
		return;
	}
	if (dt_kind(v)) {
		dt_print(sb, v, !top_str);
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING:
		if (top_str)
			strbuf_add(sb, json_string_value(v), json_string_length(v));
		else
			repr_string(sb, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		strbuf_addf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		py_float_repr(sb, json_real_value(v));
		break;
	case JSON_TRUE: strbuf_addstr(sb, "True"); break;
	case JSON_FALSE: strbuf_addstr(sb, "False"); break;
	case JSON_NULL: strbuf_addstr(sb, "None"); break;
	case JSON_ARRAY: {
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < json_array_size(v) && !sb->truncated; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			repr_depth(sb, json_array_get(v, i), false, depth + 1);
		}
		strbuf_addch(sb, ']');
		break;
	}
	case JSON_OBJECT: {
		const char *k;
		json_t *x;
		bool first = true;
		strbuf_addch(sb, '{');
		json_object_foreach(jmut(v), k, x) {
			if (!first)
				strbuf_addstr(sb, ", ");
			first = false;
			repr_string(sb, k, strlen(k));
			strbuf_addstr(sb, ": ");
			repr_depth(sb, x, false, depth + 1);
		}
		strbuf_addch(sb, '}');
		break;
	}
	}
}

void val_str(struct strbuf *sb, const json_t *v) { repr_depth(sb, v, true, 0); }
void val_repr(struct strbuf *sb, const json_t *v) { repr_depth(sb, v, false, 0); }

char *tmpl_to_text(const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;
	if (!json_is_null(v))
		val_str(&sb, v);
	return strbuf_detach(&sb);
}

char *tmpl_repr(const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;
	val_repr(&sb, v);
	return strbuf_detach(&sb);
}

json_t *val_str_take(struct strbuf *sb)
{
	json_t *r = json_stringn_nocheck(sb->buf ? sb->buf : "", sb->len);
	strbuf_release(sb);
	return r;
}

char *val_to_cstr(const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;
	val_str(&sb, v);
	return strbuf_detach(&sb);
}

size_t utf8_len(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	return c;
}

json_t *val_iter_list(const json_t *v)
{
	if (!v)
		return NULL;
	if (json_is_array(v))
		return json_incref(jmut(v));
	if (json_is_object(v)) {
		json_t *l = json_array();
		const char *k;
		json_t *x;
		json_object_foreach(jmut(v), k, x)
			json_array_append_new(l, json_string(k));
		return l;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		json_t *l = json_array();
		for (size_t i = 0; i < n;) {
			size_t j = i + 1;
			while (j < n && ((unsigned char)s[j] & 0xc0) == 0x80)
				j++;
			json_array_append_new(l, json_stringn_nocheck(s + i, j - i));
			i = j;
		}
		return l;
	}
	return NULL;
}

static const void *memmem_(const char *h, size_t hn, const char *n, size_t nn)
{
	if (nn == 0)
		return h;
	for (size_t i = 0; i + nn <= hn; i++)
		if (h[i] == n[0] && memcmp(h + i, n, nn) == 0)
			return h + i;
	return NULL;
}

int val_contains(const json_t *hay, const json_t *needle, bool *res)
{
	if (json_is_string(hay)) {
		if (!json_is_string(needle))
			return -1;
		*res = memmem_(json_string_value(hay), json_string_length(hay),
			       json_string_value(needle), json_string_length(needle)) != NULL;
		return 0;
	}
	if (json_is_array(hay)) {
		*res = false;
		for (size_t i = 0; i < json_array_size(hay); i++)
			if (same_or_equal(json_array_get(hay, i), needle)) {
				*res = true;
				break;
			}
		return 0;
	}
	if (json_is_object(hay)) {
		if (!json_is_string(needle)) {
			*res = false;
			return json_is_array(needle) || json_is_object(needle) ? -1 : 0;
		}
		*res = json_object_get(hay, json_string_value(needle)) != NULL;
		return 0;
	}
	return -1;
}

/* literal_eval: parse with the expression parser, then accept only
 * literals (Python's True/False/None spelling), containers and signs. */
static json_t *lit_node(const struct tnode *n, int depth)
{
	if (depth > 100)
		return NULL;
	switch (n->kind) {
	case N_LIT:
		return json_incref(n->lit);
	case N_NAME:
		return !strcmp(n->name, "null") ? json_null() : NULL;
	case N_NEG:
	case N_POS: {
		if (n->a->kind != N_LIT || !json_is_number(n->a->lit))
			return NULL;
		if (n->kind == N_POS)
			return json_incref(n->a->lit);
		if (json_is_integer(n->a->lit))
			return json_integer(-json_integer_value(n->a->lit));
		return val_real(-json_real_value(n->a->lit));
	}
	case N_LIST:
	case N_TUPLE: {
		json_t *l = json_array();
		for (size_t i = 0; i < n->args.n; i++) {
			json_t *x = lit_node(n->args.v[i], depth + 1);
			if (!x) {
				json_decref(l);
				return NULL;
			}
			json_array_append_new(l, x);
		}
		return l;
	}
	case N_DICT: {
		json_t *o = json_object();
		for (size_t i = 0; i + 1 < n->args.n; i += 2) {
			json_t *k = lit_node(n->args.v[i], depth + 1);
			json_t *x = k ? lit_node(n->args.v[i + 1], depth + 1) : NULL;
			if (!x) {
				json_decref(k);
				json_decref(o);
				return NULL;
			}
			char *ks = json_is_string(k) ? xstrdup(json_string_value(k)) : val_to_cstr(k);
			json_object_set_new(o, ks, x);
			free(ks);
			json_decref(k);
		}
		return o;
	}
	default:
		return NULL;
	}
}

/* Python spells the constants True/False/None; Ansible's Json2Python also
 * maps JSON's true/false/null; the Jinja lexer's none is rejected. */
static bool python_names_only(const struct tokens *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct token *k = &t->v[i];
		if (k->type == TK_NAME && strcmp(k->str, "True") && strcmp(k->str, "False") && strcmp(k->str, "None") &&
		    strcmp(k->str, "true") && strcmp(k->str, "false") && strcmp(k->str, "null"))
			return false;
	}
	return true;
}

json_t *val_literal_eval(const char *text)
{
	struct lexopt o = { .expr_only = true };
	struct tokens t = { 0 };
	size_t ep;
	char *em = NULL;
	json_t *r = NULL;
	struct tnode *e = NULL;
	if (tmpl_lex(text, strlen(text), &o, &t, &ep, &em) < 0)
		goto out;
	if (!python_names_only(&t))
		goto out;
	if (tmpl_parse(&t, true, NULL, &e, &ep, &em) < 0)
		goto out;
	r = lit_node(e, 0);
out:
	free(em);
	tnode_free(e);
	tokens_release(&t);
	return r;
}

char *val_hash_key(const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;
	double d;
	if (json_is_string(v)) {
		strbuf_addch(&sb, 's');
		strbuf_add(&sb, json_string_value(v), json_string_length(v));
		/* object keys stop at NUL: strings holding one take the slow path */
		if (memchr(json_string_value(v), 0, json_string_length(v))) {
			strbuf_release(&sb);
			return NULL;
		}
	} else if (val_is_int(v)) {
		strbuf_addf(&sb, "n%lld", val_int(v));
	} else if (json_is_real(v)) {
		d = json_real_value(v);
		if (d == floor(d) && fabs(d) < 9e18)
			strbuf_addf(&sb, "n%lld", (long long)d);
		else
			strbuf_addf(&sb, "f%.17g", d);
	} else if (json_is_null(v)) {
		strbuf_addch(&sb, 'z');
	} else {
		return NULL;
	}
	return strbuf_detach(&sb);
}

json_t *val_pystr(const json_t *v)
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

json_t *val_case_map(json_t *in, int mode)
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

/* Jinja's make_attrgetter: "a.b.0" walks keys, digits index lists. */
json_t *val_attr_path(json_t *v, const char *path)
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

