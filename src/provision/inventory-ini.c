/* inventory-ini.c: Ansible's INI inventory form, read as its ini plugin
 * reads it: "[group]" sections of host lines ("HOSTPATTERN k=v ...", split
 * as POSIX shlex with '#' comments), "[group:vars]" lines "k = v",
 * "[group:children]" lines naming groups (which may be declared later in
 * the file; one never declared is an error, as is a ":vars" section of a
 * group declared nowhere), ';' and '#' comment lines. A value is typed
 * the way the plugin types it, with Python's ast.literal_eval: numbers,
 * quoted strings, True/False/None, lists and dicts become those; anything
 * else stays the string it was. A literal JSON cannot hold as Python
 * does (a tuple, a set, bytes, a complex number) is an error naming the
 * line rather than a value that would behave differently. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "provision/inventory.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- Python literals ------------------------------------------------------- */

enum lit_status { LIT_OK, LIT_NOT, LIT_UNSUPPORTED };

struct lit {
	const char *p;
	enum lit_status st;
	const char *why;       /* LIT_UNSUPPORTED: what it was */
};

#define LIT_MAX_DEPTH 64

static void lit_ws(struct lit *s)
{
	while (*s->p == ' ' || *s->p == '\t' || *s->p == '\f')
		s->p++;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static void *lit_not(struct lit *s)
{
	if (s->st == LIT_OK)
		s->st = LIT_NOT;
	return NULL;
}

static void *lit_unsupported(struct lit *s, const char *why)
{
	if (s->st != LIT_UNSUPPORTED) {
		s->st = LIT_UNSUPPORTED;
		s->why = why;
	}
	return NULL;
}

/* digitpart: digit (["_"] digit)*, digits checked by isok; the end */
static const char *digitpart(const char *p, int (*isok)(int))
{
	if (!isok((unsigned char)*p))
		return NULL;
	while (isok((unsigned char)*p) || (*p == '_' && isok((unsigned char)p[1])))
		p++;
	return p;
}

static int isodigit_(int c) { return c >= '0' && c <= '7'; }
static int isbdigit_(int c) { return c == '0' || c == '1'; }

/* A copy of [a, b) without the underscores. */
static char *strip_us(const char *a, const char *b)
{
	char *r = xmalloc((size_t)(b - a) + 1), *q = r;
	for (; a < b; a++)
		if (*a != '_')
			*q++ = *a;
	*q = 0;
	return r;
}

/* A Python number (no sign): int, float; imaginary is unsupported. */
static json_t *lit_number(struct lit *s, bool neg)
{
	const char *p = s->p, *e;
	json_t *r = NULL;
	if (p[0] == '0' && strchr("xXoObB", p[1]) && p[1]) {
		int base = strchr("xX", p[1]) ? 16 : strchr("oO", p[1]) ? 8 : 2;
		const char *q = p + 2;
		if (*q == '_')
			q++;
		e = digitpart(q, base == 16 ? isxdigit : base == 8 ? isodigit_ : isbdigit_);
		if (!e || ident_char(*e))
			return lit_not(s);
		char *t = strip_us(q, e);
		errno = 0;
		unsigned long long v = strtoull(t, NULL, base);
		free(t);
		if (errno || v > (unsigned long long)INT64_MAX)
			return lit_unsupported(s, "an integer beyond 64 bits");
		s->p = e;
		return json_integer(neg ? -(json_int_t)v : (json_int_t)v);
	}
	bool isfloat = false;
	e = digitpart(p, isdigit);
	if (e && *e == '.') {
		isfloat = true;
		const char *f = digitpart(e + 1, isdigit);
		e = f ? f : e + 1;
	} else if (!e && *p == '.') {
		e = digitpart(p + 1, isdigit);
		if (!e)
			return lit_not(s);
		isfloat = true;
	}
	if (!e)
		return lit_not(s);
	if (*e == 'e' || *e == 'E') {
		const char *x = e + 1;
		if (*x == '+' || *x == '-')
			x++;
		x = digitpart(x, isdigit);
		if (!x)
			return lit_not(s);
		e = x;
		isfloat = true;
	}
	if (*e == 'j' || *e == 'J')
		return lit_unsupported(s, "a complex number");
	if (ident_char(*e) || *e == '.')
		return lit_not(s);
	char *t = strip_us(p, e);
	if (isfloat) {
		double v = strtod(t, NULL);
		if (!isfinite(v))
			r = lit_unsupported(s, "a float beyond range");
		else
			r = json_real(neg ? -v : v);
	} else {
		/* "0" and "00" are ints; "012" is a SyntaxError in Python 3 */
		size_t n = strlen(t);
		if (n > 1 && t[0] == '0' && strspn(t, "0") != n) {
			free(t);
			return lit_not(s);
		}
		errno = 0;
		unsigned long long v = strtoull(t, NULL, 10);
		if (errno || v > (unsigned long long)INT64_MAX)
			r = lit_unsupported(s, "an integer beyond 64 bits");
		else
			r = json_integer(neg ? -(json_int_t)v : (json_int_t)v);
	}
	free(t);
	if (r)
		s->p = e;
	return r;
}

/* n hex digits at p into *c; false when they are not there */
static bool hexn(const char *p, int n, unsigned long *c)
{
	*c = 0;
	for (int i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return false;
		*c = *c * 16 + (unsigned long)(isdigit((unsigned char)p[i]) ? p[i] - '0'
						  : (tolower((unsigned char)p[i]) - 'a' + 10));
	}
	return true;
}

/* One string literal (prefix and quotes) appended to sb; false when it
 * is none (s->st says why). */
static bool lit_string1(struct lit *s, struct strbuf *sb)
{
	const char *p = s->p;
	bool raw = false, bytes = false, fmt = false;
	for (int i = 0; i < 2 && isalpha((unsigned char)*p); i++, p++) {
		char c = (char)tolower((unsigned char)*p);
		if (c == 'r')
			raw = true;
		else if (c == 'b')
			bytes = true;
		else if (c == 'f')
			fmt = true;
		else if (c != 'u')
			return lit_not(s), false;
	}
	if (*p != '\'' && *p != '"')
		return lit_not(s), false;
	char q = *p;
	bool triple = p[1] == q && p[2] == q;
	p += triple ? 3 : 1;
	for (;;) {
		if (!*p || (!triple && *p == '\n'))
			return lit_not(s), false;
		if (*p == q && (!triple || (p[1] == q && p[2] == q))) {
			p += triple ? 3 : 1;
			break;
		}
		if (*p != '\\' || raw) {
			if (*p == '\\' && p[1])
				strbuf_addch(sb, *p++);
			strbuf_addch(sb, *p++);
			continue;
		}
		p++;
		unsigned long c;
		switch (*p) {
		case '\n': p++; break;
		case '\\': case '\'': case '"': strbuf_addch(sb, *p++); break;
		case 'a': strbuf_addch(sb, '\a'); p++; break;
		case 'b': strbuf_addch(sb, '\b'); p++; break;
		case 'f': strbuf_addch(sb, '\f'); p++; break;
		case 'n': strbuf_addch(sb, '\n'); p++; break;
		case 'r': strbuf_addch(sb, '\r'); p++; break;
		case 't': strbuf_addch(sb, '\t'); p++; break;
		case 'v': strbuf_addch(sb, '\v'); p++; break;
		case 'x':
			if (!hexn(p + 1, 2, &c))
				return lit_not(s), false;
			if (!c)
				return lit_unsupported(s, "a NUL character"), false;
			strbuf_add_utf8(sb, c);
			p += 3;
			break;
		case 'u': case 'U': {
			int n = *p == 'u' ? 4 : 8;
			if (!hexn(p + 1, n, &c) || c > 0x10ffff)
				return lit_not(s), false;
			if (!c || (c >= 0xd800 && c < 0xe000))
				return lit_unsupported(s, "a NUL or surrogate character"), false;
			strbuf_add_utf8(sb, c);
			p += n + 1;
			break;
		}
		case 'N':
			return lit_unsupported(s, "a \\N{...} escape"), false;
		default:
			if (isodigit_((unsigned char)*p)) {
				c = 0;
				for (int i = 0; i < 3 && isodigit_((unsigned char)*p); i++)
					c = c * 8 + (unsigned long)(*p++ - '0');
				if (!c)
					return lit_unsupported(s, "a NUL character"), false;
				strbuf_add_utf8(sb, c);
			} else {
				/* Python keeps an unknown escape as written */
				strbuf_addch(sb, '\\');
			}
		}
	}
	if (fmt)
		return lit_not(s), false; /* an f-string is no literal */
	if (bytes)
		return lit_unsupported(s, "a bytes literal"), false;
	s->p = p;
	return true;
}

/* Adjacent string literals, concatenated as Python does. */
static json_t *lit_string(struct lit *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	if (!lit_string1(s, &sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	for (;;) {
		const char *save = s->p;
		lit_ws(s);
		if (!(*s->p == '\'' || *s->p == '"' ||
		      (isalpha((unsigned char)*s->p) &&
		       (strchr("'\"", s->p[1]) || (isalpha((unsigned char)s->p[1]) && strchr("'\"", s->p[2])))))) {
			s->p = save;
			break;
		}
		if (!lit_string1(s, &sb)) {
			strbuf_release(&sb);
			return NULL;
		}
	}
	json_t *r = json_stringn(sb.buf, sb.len);
	strbuf_release(&sb);
	return r ? r : lit_unsupported(s, "a string that is not UTF-8");
}

static json_t *lit_value(struct lit *s, int depth);

/* The items of a [...], (...) or {...} after its opening bracket, up to
 * close: into arr, or into obj as key: value pairs (obj non-NULL). */
static bool lit_items(struct lit *s, int depth, char close, json_t *arr, json_t *obj, bool *comma)
{
	*comma = false;
	for (;;) {
		lit_ws(s);
		if (*s->p == close) {
			s->p++;
			return true;
		}
		json_t *k = lit_value(s, depth + 1);
		if (!k)
			return false;
		lit_ws(s);
		if (obj) {
			if (*s->p != ':') {
				json_decref(k);
				/* {1, 2} is a set */
				return *s->p == ',' || *s->p == '}' ? lit_unsupported(s, "a set"), false
								    : (lit_not(s), false);
			}
			s->p++;
			json_t *v = lit_value(s, depth + 1);
			if (!v) {
				json_decref(k);
				return false;
			}
			if (!json_is_string(k)) {
				json_decref(k);
				json_decref(v);
				return lit_unsupported(s, "a dict key that is not a string"), false;
			}
			json_object_set_new(obj, json_string_value(k), v);
			json_decref(k);
		} else
			json_array_append_new(arr, k);
		lit_ws(s);
		if (*s->p == ',') {
			s->p++;
			*comma = true;
			continue;
		}
		if (*s->p != close)
			return lit_not(s), false;
	}
}

static json_t *lit_value(struct lit *s, int depth)
{
	if (depth > LIT_MAX_DEPTH)
		return lit_unsupported(s, "nesting deeper than 64");
	lit_ws(s);
	const char *p = s->p;
	bool comma;
	if (*p == '[' || *p == '(') {
		char close = *p == '[' ? ']' : ')';
		s->p++;
		json_t *a = json_array();
		if (!lit_items(s, depth, close, a, NULL, &comma)) {
			json_decref(a);
			return NULL;
		}
		if (close == ']')
			return a;
		/* (x) is x; (), (x,) and (x, y) are tuples */
		if (json_array_size(a) == 1 && !comma) {
			json_t *v = json_incref(json_array_get(a, 0));
			json_decref(a);
			return v;
		}
		json_decref(a);
		return lit_unsupported(s, "a tuple");
	}
	if (*p == '{') {
		s->p++;
		json_t *o = json_object();
		if (!lit_items(s, depth, '}', NULL, o, &comma)) {
			json_decref(o);
			return NULL;
		}
		return o;
	}
	if (*p == '+' || *p == '-') {
		s->p++;
		lit_ws(s);
		if (!isdigit((unsigned char)*s->p) && *s->p != '.')
			return lit_not(s);
		return lit_number(s, *p == '-');
	}
	if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
		return lit_number(s, false);
	if (*p == '\'' || *p == '"')
		return lit_string(s);
	size_t n = 0;
	while (ident_char(p[n]))
		n++;
	if (n && n <= 2 && (p[n] == '\'' || p[n] == '"'))
		return lit_string(s);
	s->p += n;
	if (n == 4 && !strncmp(p, "True", 4))
		return json_true();
	if (n == 5 && !strncmp(p, "False", 5))
		return json_false();
	if (n == 4 && !strncmp(p, "None", 4))
		return json_null();
	return lit_not(s);
}

/* After a whole literal: a complex sum (1+2j) is unsupported, anything
 * else but a comment makes it no literal. */
static void lit_end(struct lit *s)
{
	lit_ws(s);
	if ((*s->p == '+' || *s->p == '-') && s->st == LIT_OK) {
		const char *q = s->p + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		while (isdigit((unsigned char)*q) || *q == '.' || *q == '_')
			q++;
		if ((*q == 'j' || *q == 'J') && !ident_char(q[1])) {
			lit_unsupported(s, "a complex number");
			return;
		}
	}
	if (*s->p && *s->p != '#')
		lit_not(s);
}

json_t *inventory_ini_value(const char *str, const struct src_loc *loc, struct diag *d)
{
	struct lit s = { .p = str, .st = LIT_OK };
	json_t *v = lit_value(&s, 0);
	if (v)
		lit_end(&s);
	if (s.st == LIT_OK)
		return v;
	json_decref(v);
	if (s.st == LIT_UNSUPPORTED) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "value '%s' is %s: Ansible keeps it as Python does, which imc cannot",
			   str, s.why);
		return NULL;
	}
	return json_string(str);
}

/* ---- lines ---------------------------------------------------------------- */

/* A host line split as Python's shlex.split(line, comments=True): words,
 * single quotes literal, double quotes with \" and \\, a backslash
 * elsewhere escaping the next character, '#' starting a comment. */
static int shlex_split(const char *line, json_t *words, const struct src_loc *loc, struct diag *d)
{
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			return 0;
		struct strbuf w = STRBUF_INIT;
		strbuf_addstr(&w, "");
		while (*p && !strchr(" \t\r\n#", *p)) {
			if (*p == '\'' || *p == '"') {
				char q = *p++;
				while (*p && *p != q) {
					if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
						p++;
					strbuf_addch(&w, *p++);
				}
				if (!*p) {
					diag_error(d, IMC_EXIT_DATAERR, loc,
						   "error parsing host definition '%s': No closing quotation", line);
					strbuf_release(&w);
					return -1;
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1]) {
					diag_error(d, IMC_EXIT_DATAERR, loc,
						   "error parsing host definition '%s': No escaped character", line);
					strbuf_release(&w);
					return -1;
				}
				strbuf_addch(&w, p[1]);
				p += 2;
			} else
				strbuf_addch(&w, *p++);
		}
		json_array_append_new(words, json_string(w.buf));
		strbuf_release(&w);
		if (*p == '#')
			return 0;
	}
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	size_t k = strspn(s, " \t\r\n\f\v");
	memmove(s, s + k, n - k + 1);
}

/* "[NAME]" or "[NAME:KIND]", then blanks and an optional '#' comment, as
 * the plugin's section pattern: true with *name and *kind (NULL) set. */
static bool section(char *line, char **name, char **kind)
{
	if (line[0] != '[')
		return false;
	char *p = line + 1;
	size_t n = strcspn(p, ":] \t\r\n\f\v");
	if (!n)
		return false;
	char *e = p + n;
	char *k = NULL;
	size_t kn = 0;
	if (*e == ':') {
		k = e + 1;
		while (isalnum((unsigned char)k[kn]) || k[kn] == '_')
			kn++;
		if (!kn)
			return false;
	}
	char *close = k ? k + kn : e;
	if (*close != ']')
		return false;
	char *rest = close + 1;
	rest += strspn(rest, " \t\r\n\f\v");
	if (*rest && *rest != '#')
		return false;
	*e = 0;
	if (k)
		k[kn] = 0;
	*name = p;
	*kind = k;
	return true;
}

/* A group declared that :children lines named before: linked now, and
 * its own pending parents in turn (the plugin's _add_pending_children). */
static int add_pending_children(struct inv_model *m, json_t *pend, const char *group,
				const struct src_loc *loc, struct diag *d)
{
	json_t *decl = json_incref(json_object_get(pend, group));
	json_object_del(pend, group);
	int rc = 0;
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(decl, "parents"), i, p) {
		const char *parent = json_string_value(p);
		if (inv_add_child(m, parent, group, loc, d) < 0)
			rc = -1;
		json_t *pd = json_object_get(pend, parent);
		if (pd && !json_is_true(json_object_get(pd, "vars")) &&
		    add_pending_children(m, pend, parent, loc, d) < 0)
			rc = -1;
	}
	json_decref(decl);
	return rc;
}

static int host_line(struct inv_model *m, const char *group, const char *line,
		     const struct src_loc *loc, struct diag *d)
{
	json_t *words = json_array(), *names = json_array(), *vars = json_object();
	int port = -1, rc = -1;
	if (shlex_split(line, words, loc, d) < 0 || !json_array_size(words))
		goto out;
	if (inv_expand_hosts(json_string_value(json_array_get(words, 0)), names, &port, loc, d) < 0)
		goto out;
	for (size_t i = 1; i < json_array_size(words); i++) {
		const char *w = json_string_value(json_array_get(words, i));
		const char *eq = strchr(w, '=');
		if (!eq) {
			diag_error(d, IMC_EXIT_DATAERR, loc,
				   "expected key=value host variable assignment, got: %s", w);
			goto out;
		}
		char *k = xstrndup(w, (size_t)(eq - w));
		json_t *v = inventory_ini_value(eq + 1, loc, d);
		if (v)
			json_object_set_new(vars, k, v);
		free(k);
		if (!v)
			goto out;
	}
	size_t i;
	json_t *n;
	json_array_foreach(names, i, n) {
		const char *h = json_string_value(n);
		inv_add_host(m, h, group, port);
		json_object_update(json_object_get(m->hosts, h), vars);
	}
	rc = 0;
out:
	json_decref(words);
	json_decref(names);
	json_decref(vars);
	return rc;
}

int inventory_ini_parse(struct inv_model *m, const char *file, const char *text, struct diag *d)
{
	char *copy = xstrdup(text);
	char *group = xstrdup("ungrouped");
	const char *state = "hosts";
	json_t *pend = json_object(); /* group -> {line, vars, parents} */
	int lineno = 0, rc = 0;
	const char *p = copy;
	while (p && *p && !rc) {
		const char *nl = strchr(p, '\n');
		char *line = nl ? xstrndup(p, (size_t)(nl - p)) : xstrdup(p);
		p = nl ? nl + 1 : NULL;
		lineno++;
		struct src_loc loc = { .file = file, .line = lineno, .col = 0 };
		trim(line);
		char *name, *kind;
		if (!*line || *line == '#' || *line == ';') {
			/* a blank or comment line */
		} else if (section(line, &name, &kind)) {
			const char *k = kind ? kind : "hosts";
			if (strcmp(k, "hosts") && strcmp(k, "children") && strcmp(k, "vars")) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "section [%s:%s] has unknown type: %s",
					   name, k, k);
				rc = -1;
			} else {
				free(group);
				group = xstrdup(name);
				state = !strcmp(k, "hosts") ? "hosts" : !strcmp(k, "vars") ? "vars" : "children";
				if (!json_object_get(m->groups, group)) {
					if (!strcmp(state, "vars") && !json_object_get(pend, group))
						json_object_set_new(pend, group,
								    json_pack("{s:i, s:b}", "line", lineno, "vars", 1));
					inv_add_group(m, group);
				}
				json_t *pd = json_object_get(pend, group);
				if (pd && strcmp(state, "vars")) {
					if (json_is_true(json_object_get(pd, "vars")))
						json_object_del(pend, group);
					else if (add_pending_children(m, pend, group, &loc, d) < 0)
						rc = -1;
				}
			}
		} else if (line[0] == '[' && line[strlen(line) - 1] == ']') {
			diag_error(d, IMC_EXIT_DATAERR, &loc,
				   "invalid section entry: '%s'. Please make sure that there are no spaces in the section entry, and that there are no other invalid characters",
				   line);
			rc = -1;
		} else if (!strcmp(state, "hosts")) {
			rc = host_line(m, group, line, &loc, d);
		} else if (!strcmp(state, "vars")) {
			char *eq = strchr(line, '=');
			if (!eq) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "expected key=value, got: %s", line);
				rc = -1;
			} else {
				*eq = 0;
				char *k = line, *v = eq + 1;
				trim(k);
				trim(v);
				json_t *val = inventory_ini_value(v, &loc, d);
				if (!val)
					rc = -1;
				else
					json_object_set_new(json_object_get(json_object_get(m->groups, group), "vars"),
							    k, val);
			}
		} else {
			size_t n = strcspn(line, ":] \t\r\n\f\v");
			const char *rest = line + n + strspn(line + n, " \t\r\n\f\v");
			if (!n || (*rest && *rest != '#')) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "expected group name, got: %s", line);
				rc = -1;
			} else {
				line[n] = 0;
				if (json_object_get(m->groups, line)) {
					rc = inv_add_child(m, group, line, &loc, d);
				} else {
					json_t *pd = json_object_get(pend, line);
					if (!pd) {
						pd = json_pack("{s:i, s:b, s:[]}", "line", lineno, "vars", 0, "parents");
						json_object_set_new(pend, line, pd);
					}
					json_array_append_new(json_object_get(pd, "parents"), json_string(group));
				}
			}
		}
		free(line);
	}
	const char *g;
	json_t *pd;
	json_object_foreach(pend, g, pd) {
		if (rc)
			break;
		struct src_loc loc = { .file = file,
				       .line = (int)json_integer_value(json_object_get(pd, "line")) };
		json_t *parents = json_object_get(pd, "parents");
		if (json_is_true(json_object_get(pd, "vars")))
			diag_error(d, IMC_EXIT_DATAERR, &loc,
				   "section [%s:vars] not valid for undefined group: %s", g, g);
		else
			diag_error(d, IMC_EXIT_DATAERR, &loc,
				   "section [%s:children] includes undefined group: %s",
				   json_string_value(json_array_get(parents, json_array_size(parents) - 1)), g);
		rc = -1;
	}
	json_decref(pend);
	free(group);
	free(copy);
	return rc;
}
