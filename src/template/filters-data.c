/* filters-data.c: the serialisation filters of the templating engine:
 * to_json/to_nice_json/from_json with Python json.dumps's exact spacing and
 * escaping (recipes write these into files, so bytes matter),
 * to_yaml/to_nice_yaml/from_yaml through libyaml with PyYAML's choices
 * (sorted keys, leaf collections in flow style, quoting strings that would
 * read back as another type), and base64. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "template/engine.h"
#include "util/base64.h"
#include "util/hash.h"
#include "util/pyfloat.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

/* ---- JSON, as Python's json.dumps writes it ----------------------------- */

static void pyjson_str(struct strbuf *sb, const char *s, size_t n, bool ascii)
{
	strbuf_addch(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': strbuf_addstr(sb, "\\\""); continue;
		case '\\': strbuf_addstr(sb, "\\\\"); continue;
		case '\n': strbuf_addstr(sb, "\\n"); continue;
		case '\r': strbuf_addstr(sb, "\\r"); continue;
		case '\t': strbuf_addstr(sb, "\\t"); continue;
		case '\b': strbuf_addstr(sb, "\\b"); continue;
		case '\f': strbuf_addstr(sb, "\\f"); continue;
		}
		if (c < 0x20 || (ascii && c == 0x7f)) {
			strbuf_addf(sb, "\\u%04x", c);
		} else if (c < 0x80 || !ascii) {
			strbuf_addch(sb, (char)c);
		} else {
			/* decode one UTF-8 sequence */
			unsigned long cp;
			int extra;
			if ((c & 0xe0) == 0xc0) { cp = c & 0x1f; extra = 1; }
			else if ((c & 0xf0) == 0xe0) { cp = c & 0x0f; extra = 2; }
			else if ((c & 0xf8) == 0xf0) { cp = c & 0x07; extra = 3; }
			else { strbuf_addf(sb, "\\u%04x", 0xfffd); continue; }
			if (i + (size_t)extra >= n) {
				strbuf_addf(sb, "\\u%04x", 0xfffd);
				continue;
			}
			for (int k = 0; k < extra && i + 1 < n; k++)
				cp = (cp << 6) | ((unsigned char)s[++i] & 0x3f);
			if (cp >= 0x10000) {
				cp -= 0x10000;
				strbuf_addf(sb, "\\u%04lx\\u%04lx", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
			} else {
				strbuf_addf(sb, "\\u%04lx", cp);
			}
		}
	}
	strbuf_addch(sb, '"');
}

struct pyjson_opt {
	int indent;       /* <0: compact with ", " and ": " */
	bool sort_keys;
	bool ascii;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void newline(struct strbuf *sb, const struct pyjson_opt *o, int level)
{
	strbuf_addch(sb, '\n');
	for (int i = 0; i < o->indent * level; i++)
		strbuf_addch(sb, ' ');
}

static void pyjson(struct strbuf *sb, const json_t *v, const struct pyjson_opt *o, int level)
{
	if (sb->truncated)
		return;
	if (level > 500) {
		strbuf_addstr(sb, "null");
		return;
	}
	if (dt_kind(v)) {
		/* Ansible's JSON encoder writes a datetime in ISO 8601 (a
		 * timedelta, which it refuses, as its text) */
		struct strbuf t = STRBUF_INIT;
		if (dt_kind(v) == DT_DATETIME)
			dt_isoformat(&t, v, "T");
		else
			dt_print(&t, v, false);
		pyjson_str(sb, t.buf, t.len, o->ascii);
		strbuf_release(&t);
		return;
	}
	switch (json_typeof(v)) {
	case JSON_NULL: strbuf_addstr(sb, "null"); break;
	case JSON_TRUE: strbuf_addstr(sb, "true"); break;
	case JSON_FALSE: strbuf_addstr(sb, "false"); break;
	case JSON_INTEGER: strbuf_addf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
	case JSON_REAL: {
		double d = json_real_value(v);
		if (isnan(d))
			strbuf_addstr(sb, "NaN");
		else if (isinf(d))
			strbuf_addstr(sb, d < 0 ? "-Infinity" : "Infinity");
		else
			py_float_repr(sb, d);
		break;
	}
	case JSON_STRING: pyjson_str(sb, json_string_value(v), json_string_length(v), o->ascii); break;
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		if (!n) {
			strbuf_addstr(sb, "[]");
			break;
		}
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addstr(sb, o->indent >= 0 ? "," : ", ");
			if (o->indent >= 0)
				newline(sb, o, level + 1);
			pyjson(sb, json_array_get(v, i), o, level + 1);
		}
		if (o->indent >= 0)
			newline(sb, o, level);
		strbuf_addch(sb, ']');
		break;
	}
	case JSON_OBJECT: {
		size_t n = json_object_size(v);
		if (!n) {
			strbuf_addstr(sb, "{}");
			break;
		}
		const char **keys = xcalloc(n, sizeof(char *));
		size_t k = 0;
		const char *key;
		json_t *x;
		json_object_foreach(jmut(v), key, x)
			keys[k++] = key;
		if (o->sort_keys)
			qsort(keys, k, sizeof(char *), cmp_str);
		strbuf_addch(sb, '{');
		for (size_t i = 0; i < k; i++) {
			if (i)
				strbuf_addstr(sb, o->indent >= 0 ? "," : ", ");
			if (o->indent >= 0)
				newline(sb, o, level + 1);
			pyjson_str(sb, keys[i], strlen(keys[i]), o->ascii);
			strbuf_addstr(sb, ": ");
			pyjson(sb, json_object_get(v, keys[i]), o, level + 1);
		}
		free(keys);
		if (o->indent >= 0)
			newline(sb, o, level);
		strbuf_addch(sb, '}');
		break;
	}
	}
}

/* sort_keys= and ensure_ascii= of to_json and to_nice_json */
static void pyjson_kw(struct pyjson_opt *o, json_t *kw)
{
	if (kw && json_object_get(kw, "sort_keys"))
		o->sort_keys = val_truthy(json_object_get(kw, "sort_keys"));
	if (kw && json_object_get(kw, "ensure_ascii"))
		o->ascii = val_truthy(json_object_get(kw, "ensure_ascii"));
}

/* in as Python's json.dumps writes it, into sb (initialised here, with the
 * template text limit); false, with the error reported, when too large. */
static bool pyjson_text(struct ev *ev, json_t *in, const struct pyjson_opt *o, struct strbuf *sb,
			size_t pos)
{
	strbuf_init(sb, TMPL_MAX_TEXT);
	pyjson(sb, in, o, 0);
	if (!sb->truncated)
		return true;
	strbuf_release(sb);
	ev_error(ev, TMPL_ERR_LIMIT, pos, "JSON output too large");
	return false;
}

FILTER_FN(to_json)
{
	struct pyjson_opt o = { .indent = -1, .ascii = true };
	json_t *ind = kw ? json_object_get(kw, "indent") : NULL;
	if (json_is_integer(ind))
		o.indent = (int)json_integer_value(ind) > 64 ? 64 : (int)json_integer_value(ind);
	pyjson_kw(&o, kw);
	struct strbuf sb;
	return pyjson_text(ev, in, &o, &sb, pos) ? val_str_take(&sb) : NULL;
}

FILTER_FN(to_nice_json)
{
	struct pyjson_opt o = { .indent = 4, .sort_keys = true, .ascii = true };
	json_t *ind = ARG(0, "indent");
	if (json_is_integer(ind))
		o.indent = (int)json_integer_value(ind) > 64 ? 64 : (int)json_integer_value(ind);
	pyjson_kw(&o, kw);
	if (o.indent < 0)
		o.indent = 0;
	struct strbuf sb;
	return pyjson_text(ev, in, &o, &sb, pos) ? val_str_take(&sb) : NULL;
}

FILTER_FN(tojson)
{
	struct pyjson_opt o = { .indent = -1, .sort_keys = true, .ascii = true };
	struct strbuf sb, out = STRBUF_INIT;
	if (!pyjson_text(ev, in, &o, &sb, pos))
		return NULL;
	for (size_t i = 0; i < sb.len; i++) {
		switch (sb.buf[i]) {
		case '<': strbuf_addstr(&out, "\\u003c"); break;
		case '>': strbuf_addstr(&out, "\\u003e"); break;
		case '&': strbuf_addstr(&out, "\\u0026"); break;
		case '\'': strbuf_addstr(&out, "\\u0027"); break;
		default: strbuf_addch(&out, sb.buf[i]);
		}
	}
	strbuf_release(&sb);
	return val_str_take(&out);
}

/* Python's json.loads reads NaN, Infinity and -Infinity, and a number too
 * large for a double as an infinity; jansson reads none of them. Outside
 * strings, each becomes a string holding NONFINITE and its kind, which
 * put_nonfinite() turns into the float after jansson has read the text.
 * Returns NULL when the text has none of them. */
#define NONFINITE "\x01imc.nonfinite:"

static char *mark_nonfinite(const char *s, size_t n, size_t *outlen)
{
	struct strbuf sb = STRBUF_INIT;
	bool any = false, str = false;
	size_t i = 0;
	while (i < n) {
		char c = s[i];
		if (str) {
			strbuf_addch(&sb, c);
			if (c == '\\' && i + 1 < n)
				strbuf_addch(&sb, s[++i]);
			else if (c == '"')
				str = false;
			i++;
			continue;
		}
		const char *word = NULL, *kind = NULL;
		if (n - i >= 3 && !memcmp(s + i, "NaN", 3))
			word = "NaN", kind = "nan";
		else if (n - i >= 8 && !memcmp(s + i, "Infinity", 8))
			word = "Infinity", kind = "inf";
		else if (n - i >= 9 && !memcmp(s + i, "-Infinity", 9))
			word = "-Infinity", kind = "-inf";
		if (word) {
			strbuf_addf(&sb, "\"%s%s\"", "\\u0001imc.nonfinite:", kind);
			i += strlen(word);
			any = true;
			continue;
		}
		if (c == '-' || isdigit((unsigned char)c)) {
			size_t j = i + 1;
			while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
					 ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
				j++;
			char *num = xstrndup(s + i, j - i);
			bool real = strpbrk(num, ".eE") != NULL;
			double d = real ? strtod(num, NULL) : 0;
			free(num);
			if (real && isinf(d)) {
				strbuf_addf(&sb, "\"%s%s\"", "\\u0001imc.nonfinite:", d < 0 ? "-inf" : "inf");
				any = true;
			} else {
				strbuf_add(&sb, s + i, j - i);
			}
			i = j;
			continue;
		}
		if (c == '"')
			str = true;
		strbuf_addch(&sb, c);
		i++;
	}
	if (!any) {
		strbuf_release(&sb);
		return NULL;
	}
	*outlen = sb.len;
	return strbuf_detach(&sb);
}

/* The strings mark_nonfinite() made, inside v, back into floats. */
static json_t *put_nonfinite(json_t *v)
{
	size_t i;
	const char *k;
	json_t *x;
	if (json_is_string(v) && !strncmp(json_string_value(v), NONFINITE, strlen(NONFINITE))) {
		const char *kind = json_string_value(v) + strlen(NONFINITE);
		double d = !strcmp(kind, "nan") ? NAN : !strcmp(kind, "inf") ? INFINITY : -INFINITY;
		json_decref(v);
		return val_real(d);
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			json_array_set_new(v, i, put_nonfinite(json_incref(x)));
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, x)
			json_object_set_new(v, k, put_nonfinite(json_incref(x)));
	}
	return v;
}

FILTER_FN(from_json)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "from_json: the JSON object must be str, not %s", val_typename(in));
		return NULL;
	}
	json_error_t err;
	size_t mlen = 0;
	char *marked = mark_nonfinite(json_string_value(in), json_string_length(in), &mlen);
	json_t *r = json_loadb(marked ? marked : json_string_value(in), marked ? mlen : json_string_length(in),
			       JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
	bool had = marked != NULL;
	free(marked);
	if (!r)
		ev_error(ev, TMPL_ERR_TYPE, pos, "from_json: %s: line %d column %d", err.text, err.line, err.column);
	else if (had)
		r = put_nonfinite(r);
	return r;
}

/* ---- YAML --------------------------------------------------------------- */

/* Would a plain scalar with this text read back as something other than a
 * string (YAML 1.1 as PyYAML resolves it)? Then it must be quoted. */
static bool yaml_looks_typed(const char *s)
{
	static const char *const words[] = { "", "~", "null", "Null", "NULL", "yes", "Yes", "YES", "no", "No", "NO",
					     "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON",
					     "off", "Off", "OFF", ".inf", ".Inf", ".INF", "-.inf",
					     ".nan", ".NaN", ".NAN", NULL };
	for (size_t i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return true;
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!*p)
		return false;
	bool digits = false, dot = false, bad = false;
	for (const char *q = p; *q; q++) {
		if (isdigit((unsigned char)*q) || *q == '_')
			digits = true;
		else if (*q == '.' && !dot)
			dot = true;
		else if ((*q == 'e' || *q == 'E') && digits)
			;
		else if ((*q == 'x' || *q == 'X' || *q == 'o' || *q == ':') && digits)
			;
		else if (isxdigit((unsigned char)*q) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			;
		else if ((*q == '+' || *q == '-') && q > p && (q[-1] == 'e' || q[-1] == 'E'))
			;
		else
			bad = true;
	}
	return digits && !bad;
}

struct yemit {
	yaml_emitter_t em;
	struct strbuf *out;
	bool failed;
};

static int yaml_write(void *data, unsigned char *buf, size_t size)
{
	struct strbuf *sb = data;
	strbuf_add(sb, buf, size);
	return 1;
}

static void yemit_event(struct yemit *y, yaml_event_t *e)
{
	if (y->failed) {
		yaml_event_delete(e);
		return;
	}
	if (!yaml_emitter_emit(&y->em, e))
		y->failed = true;
}

static void yemit_scalar(struct yemit *y, const char *s, size_t n, bool quote)
{
	yaml_event_t e;
	static yaml_char_t strtag[] = "tag:yaml.org,2002:str";
	yaml_scalar_event_initialize(&e, NULL, strtag, (const yaml_char_t *)s, (int)n,
				     !quote, 1, quote ? YAML_SINGLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
	yemit_event(y, &e);
}

static bool is_leaf_collection(const json_t *v)
{
	size_t i;
	const char *k;
	json_t *x;
	if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v); i++)
			if (json_is_array(json_array_get(v, i)) || json_is_object(json_array_get(v, i)))
				return false;
		return true;
	}
	json_object_foreach(jmut(v), k, x)
		if (json_is_array(x) || json_is_object(x))
			return false;
	return true;
}

static void yemit_value(struct yemit *y, const json_t *v, int flow_mode, int depth)
{
	yaml_event_t e;
	struct strbuf sb = STRBUF_INIT;
	if (depth > 200) {
		y->failed = true;
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING: {
		const char *s = json_string_value(v);
		yemit_scalar(y, s, json_string_length(v), yaml_looks_typed(s));
		break;
	}
	case JSON_INTEGER:
	case JSON_REAL:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL:
		if (json_is_boolean(v))
			strbuf_addstr(&sb, json_is_true(v) ? "true" : "false");
		else if (json_is_null(v))
			strbuf_addstr(&sb, "null");
		else if (json_is_integer(v))
			strbuf_addf(&sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else {
			double d = json_real_value(v);
			if (isnan(d))
				strbuf_addstr(&sb, ".nan");
			else if (isinf(d))
				strbuf_addstr(&sb, d < 0 ? "-.inf" : ".inf");
			else
				py_float_repr(&sb, d);
		}
		yaml_scalar_event_initialize(&e, NULL, NULL, (const yaml_char_t *)strbuf_str(&sb), (int)sb.len, 1, 1,
					     YAML_PLAIN_SCALAR_STYLE);
		yemit_event(y, &e);
		break;
	case JSON_ARRAY: {
		bool flow = flow_mode == 1 || (flow_mode == 0 && is_leaf_collection(v)) || json_array_size(v) == 0;
		yaml_sequence_start_event_initialize(&e, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
		yemit_event(y, &e);
		for (size_t i = 0; i < json_array_size(v); i++)
			yemit_value(y, json_array_get(v, i), flow_mode, depth + 1);
		yaml_sequence_end_event_initialize(&e);
		yemit_event(y, &e);
		break;
	}
	case JSON_OBJECT: {
		bool flow = flow_mode == 1 || (flow_mode == 0 && is_leaf_collection(v)) || json_object_size(v) == 0;
		yaml_mapping_start_event_initialize(&e, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
		yemit_event(y, &e);
		size_t n = json_object_size(v), k = 0;
		const char **keys = xcalloc(n + 1, sizeof(char *));
		const char *key;
		json_t *x;
		json_object_foreach(jmut(v), key, x)
			keys[k++] = key;
		qsort(keys, k, sizeof(char *), cmp_str);
		for (size_t i = 0; i < k; i++) {
			yemit_scalar(y, keys[i], strlen(keys[i]), yaml_looks_typed(keys[i]));
			yemit_value(y, json_object_get(v, keys[i]), flow_mode, depth + 1);
		}
		free(keys);
		yaml_mapping_end_event_initialize(&e);
		yemit_event(y, &e);
		break;
	}
	}
	strbuf_release(&sb);
}

/* flow_mode: 0 = PyYAML default_flow_style=None, -1 = block (False). */
static json_t *to_yaml(struct ev *ev, json_t *in, int indent, int flow_mode, size_t pos)
{
	struct strbuf sb = STRBUF_INIT;
	struct yemit y = { .out = &sb };
	yaml_event_t e;
	yaml_emitter_initialize(&y.em);
	yaml_emitter_set_output(&y.em, yaml_write, &sb);
	yaml_emitter_set_unicode(&y.em, 1);
	yaml_emitter_set_indent(&y.em, indent);
	yaml_emitter_set_width(&y.em, 80);
	yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING);
	yemit_event(&y, &e);
	yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 1);
	yemit_event(&y, &e);
	yemit_value(&y, in, flow_mode, 0);
	yaml_document_end_event_initialize(&e, 1);
	yemit_event(&y, &e);
	yaml_stream_end_event_initialize(&e);
	yemit_event(&y, &e);
	yaml_emitter_flush(&y.em);
	yaml_emitter_delete(&y.em);
	if (y.failed) {
		strbuf_release(&sb);
		ev_error(ev, TMPL_ERR_TYPE, pos, "to_yaml: cannot represent the value");
		return NULL;
	}
	/* PyYAML ends a bare scalar document with "...": Ansible's output has not */
	if (sb.len >= 4 && !strcmp(sb.buf + sb.len - 4, "...\n")) {
		sb.len -= 4;
		sb.buf[sb.len] = 0;
	}
	return val_str_take(&sb);
}

FILTER_FN(to_yaml)
{
	json_t *ind = kw ? json_object_get(kw, "indent") : NULL;
	int indent = json_is_integer(ind) ? (int)json_integer_value(ind) : 2;
	json_t *dfs = kw ? json_object_get(kw, "default_flow_style") : NULL;
	int mode = !dfs || json_is_null(dfs) ? 0 : val_truthy(dfs) ? 1 : -1;
	return to_yaml(ev, in, indent < 2 || indent > 9 ? 2 : indent, mode, pos);
}

FILTER_FN(to_nice_yaml)
{
	json_t *ind = ARG(0, "indent");
	int indent = json_is_integer(ind) ? (int)json_integer_value(ind) : 4;
	return to_yaml(ev, in, indent < 2 || indent > 9 ? 4 : indent, -1, pos);
}

static json_t *yaml_resolve_plain(const char *s, size_t n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL };
	static const char *const falses[] = { "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL };
	for (size_t i = 0; nulls[i]; i++)
		if (!strcmp(s, nulls[i]))
			return json_null();
	for (size_t i = 0; trues[i]; i++)
		if (!strcmp(s, trues[i]))
			return json_true();
	for (size_t i = 0; falses[i]; i++)
		if (!strcmp(s, falses[i]))
			return json_false();
	/* integers: [-+]digits, 0x.., 0o.., leading-0 octal (YAML 1.1) */
	const char *p = s;
	bool neg = false;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (*p && strspn(p, "0123456789_") == strlen(p) && p[0] != '_') {
		char *clean = xcalloc(n + 1, 1);
		size_t k = 0;
		for (const char *q = p; *q; q++)
			if (*q != '_')
				clean[k++] = *q;
		long long v = strtoll(clean, NULL, clean[0] == '0' && clean[1] ? 8 : 10);
		free(clean);
		return json_integer(neg ? -v : v);
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p[2] && strspn(p + 2, "0123456789abcdefABCDEF") == strlen(p + 2)) {
		long long v = strtoll(p + 2, NULL, 16);
		return json_integer(neg ? -v : v);
	}
	if (p[0] == '0' && p[1] == 'o' && p[2] && strspn(p + 2, "01234567") == strlen(p + 2)) {
		long long v = strtoll(p + 2, NULL, 8);
		return json_integer(neg ? -v : v);
	}
	if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
		return val_real(neg ? -INFINITY : INFINITY);
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
		return val_real(NAN);
	/* floats: digits with a dot and/or exponent */
	if (*p && (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))) {
		char *end;
		double d = strtod(s, &end);
		if (*end == 0 && (strchr(s, '.') || strchr(s, 'e') || strchr(s, 'E')))
			return val_real(d);
	}
	return json_stringn_nocheck(s, n);
}

struct yparse {
	yaml_parser_t p;
	yaml_event_t e;
	bool have;
};

static json_t *yparse_node(struct ev *ev, struct yparse *y, size_t pos, int depth);

static bool ynext(struct yparse *y)
{
	if (y->have)
		yaml_event_delete(&y->e);
	y->have = yaml_parser_parse(&y->p, &y->e) != 0;
	return y->have;
}

static json_t *yfail(struct ev *ev, struct yparse *y, size_t pos)
{
	if (y->p.error != YAML_NO_ERROR)
		ev_error(ev, TMPL_ERR_TYPE, pos, "from_yaml: %s at line %zu column %zu", y->p.problem ? y->p.problem : "syntax error",
			 y->p.problem_mark.line + 1, y->p.problem_mark.column + 1);
	else
		ev_error(ev, TMPL_ERR_TYPE, pos, "from_yaml: unsupported YAML construct (anchors/aliases)");
	return NULL;
}

/* Current event starts a node; consumes it and its children. */
static json_t *yparse_node(struct ev *ev, struct yparse *y, size_t pos, int depth)
{
	if (depth > 200)
		return yfail(ev, y, pos);
	switch (y->e.type) {
	case YAML_SCALAR_EVENT: {
		const char *s = (const char *)y->e.data.scalar.value;
		size_t n = y->e.data.scalar.length;
		const char *tag = (const char *)y->e.data.scalar.tag;
		if (y->e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && (!tag || !strcmp(tag, "!")) && strlen(s) == n)
			return yaml_resolve_plain(s, n);
		if (tag && !strcmp(tag, "!!int"))
			return json_integer(strtoll(s, NULL, 10));
		return json_stringn_nocheck(s, n);
	}
	case YAML_SEQUENCE_START_EVENT: {
		json_t *a = json_array();
		for (;;) {
			if (!ynext(y)) {
				json_decref(a);
				return yfail(ev, y, pos);
			}
			if (y->e.type == YAML_SEQUENCE_END_EVENT)
				return a;
			json_t *x = yparse_node(ev, y, pos, depth + 1);
			if (!x) {
				json_decref(a);
				return NULL;
			}
			json_array_append_new(a, x);
		}
	}
	case YAML_MAPPING_START_EVENT: {
		json_t *o = json_object();
		for (;;) {
			if (!ynext(y)) {
				json_decref(o);
				return yfail(ev, y, pos);
			}
			if (y->e.type == YAML_MAPPING_END_EVENT)
				return o;
			json_t *k = yparse_node(ev, y, pos, depth + 1);
			if (!k || !ynext(y)) {
				json_decref(k);
				json_decref(o);
				return k ? yfail(ev, y, pos) : NULL;
			}
			json_t *v = yparse_node(ev, y, pos, depth + 1);
			if (!v) {
				json_decref(k);
				json_decref(o);
				return NULL;
			}
			char *ks = json_is_string(k) ? xstrdup(json_string_value(k)) : val_to_cstr(k);
			json_object_set_new(o, ks, v);
			free(ks);
			json_decref(k);
		}
	}
	default:
		return yfail(ev, y, pos);
	}
}

static json_t *from_yaml(struct ev *ev, json_t *in, bool all, size_t pos)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "from_yaml: expected a string, got %s", val_typename(in));
		return NULL;
	}
	struct yparse y = { 0 };
	yaml_parser_initialize(&y.p);
	yaml_parser_set_input_string(&y.p, (const unsigned char *)json_string_value(in), json_string_length(in));
	json_t *docs = json_array();
	json_t *r = NULL;
	for (;;) {
		if (!ynext(&y)) {
			yfail(ev, &y, pos);
			goto out;
		}
		if (y.e.type == YAML_STREAM_END_EVENT)
			break;
		if (y.e.type == YAML_STREAM_START_EVENT || y.e.type == YAML_DOCUMENT_END_EVENT)
			continue;
		if (y.e.type == YAML_DOCUMENT_START_EVENT) {
			if (!ynext(&y)) {
				yfail(ev, &y, pos);
				goto out;
			}
			json_t *x = yparse_node(ev, &y, pos, 0);
			if (!x)
				goto out;
			json_array_append_new(docs, x);
			continue;
		}
		yfail(ev, &y, pos);
		goto out;
	}
	if (all)
		r = json_incref(docs);
	else
		r = json_array_size(docs) ? json_incref(json_array_get(docs, 0)) : json_null();
out:
	if (y.have)
		yaml_event_delete(&y.e);
	yaml_parser_delete(&y.p);
	json_decref(docs);
	return r;
}

FILTER_FN(from_yaml) { return from_yaml(ev, in, false, pos); }
FILTER_FN(from_yaml_all) { return from_yaml(ev, in, true, pos); }

/* ---- base64 ----------------------------------------------------------------- */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

FILTER_FN(b64encode)
{
	char *s = val_to_cstr(in);
	size_t n = json_is_string(in) ? json_string_length(in) : strlen(s);
	char *b = base64_encode(s, n);
	free(s);
	json_t *r = json_string(b);
	free(b);
	return r;
}

FILTER_FN(b64decode)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "b64decode: expected a string, got %s", val_typename(in));
		return NULL;
	}
	const char *s = json_string_value(in);
	struct strbuf sb = STRBUF_INIT;
	unsigned v = 0;
	int bits = 0, nch = 0, pad = 0;
	for (; *s; s++) {
		const char *q = strchr(b64chars, *s);
		if (*s == '=') {
			pad++;
			continue;
		}
		if (!q || !*s)
			continue; /* Python discards characters outside the alphabet */
		if (pad) {
			strbuf_release(&sb);
			ev_error(ev, TMPL_ERR_TYPE, pos, "b64decode: Incorrect padding");
			return NULL;
		}
		v = (v << 6) | (unsigned)(q - b64chars);
		bits += 6;
		nch++;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(&sb, (char)((v >> bits) & 0xff));
		}
	}
	if (nch % 4 == 1 || (nch % 4 && (nch % 4) + pad < 4)) {
		strbuf_release(&sb);
		ev_error(ev, TMPL_ERR_TYPE, pos, "b64decode: Incorrect padding");
		return NULL;
	}
	return val_str_take(&sb);
}

/* ---- digests ---------------------------------------------------------------- */

/* The digests are util/hash.c's (libcrypto). */
static json_t *digest(struct ev *ev, json_t *in, const char *algo, size_t pos)
{
	char *s = val_to_cstr(in);
	size_t n = json_is_string(in) ? json_string_length(in) : strlen(s);
	char out[65];
	if (!strcmp(algo, "sha1"))
		hash_sha1_hex(s, n, out);
	else if (!strcmp(algo, "md5"))
		hash_md5_hex(s, n, out);
	else if (!strcmp(algo, "sha256"))
		hash_sha256_hex(s, n, out);
	else {
		free(s);
		ev_error(ev, TMPL_ERR_TYPE, pos, "hash: unsupported hash type '%s' (sha1, sha256, md5)", algo);
		return NULL;
	}
	free(s);
	return json_string(out);
}

FILTER_FN(hash)
{
	json_t *a = ARG(0, "hashtype");
	return digest(ev, in, json_is_string(a) ? json_string_value(a) : "sha1", pos);
}
FILTER_FN(sha1) { (void)args; (void)kw; return digest(ev, in, "sha1", pos); }
FILTER_FN(md5) { (void)args; (void)kw; return digest(ev, in, "md5", pos); }
