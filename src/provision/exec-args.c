/* exec-args.c: module argument syntax as Ansible reads it: the k=v strings
 * of `lineinfile: dest=/x line="a b"` (split_args + parse_kv, with escape
 * decoding in values), POSIX shlex splitting for `command`, and the option
 * coercions every module shares (bool, mode, Python str() rendering). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "provision/args.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The quote a word leaves open, given the one open before it (Ansible's
 * _get_quote_state: a quote preceded by a backslash does not count). */
static char quote_state(const char *w, char q)
{
	for (size_t i = 0; w[i]; i++)
		if ((w[i] == '"' || w[i] == '\'') && (i == 0 || w[i - 1] != '\\')) {
			if (!q)
				q = w[i];
			else if (w[i] == q)
				q = 0;
		}
	return q;
}

/* Non-overlapping occurrences of pat in w (Python's str.count). */
static int count_of(const char *w, const char *pat)
{
	int n = 0;
	for (const char *p = strstr(w, pat); p; p = strstr(p + strlen(pat), pat))
		n++;
	return n;
}

/* Ansible's _count_jinja2_blocks: the depth after w. */
static int jinja_depth(const char *w, int depth, const char *open, const char *close)
{
	int o = count_of(w, open), c = count_of(w, close);
	if (o != c) {
		depth += o - c;
		if (depth < 0)
			depth = 0;
	}
	return depth;
}

struct params {
	struct strbuf *v;
	size_t n;
};

static void param_new(struct params *ps, const char *w)
{
	ps->v = xreallocarray(ps->v, ps->n + 1, sizeof(*ps->v));
	strbuf_init(&ps->v[ps->n], 0);
	strbuf_addstr(&ps->v[ps->n++], w);
}

/* Ansible's split_args, step by step, because the words keep the text's
 * spaces and line breaks for join_args to put the command back together:
 * lines split on '\n' and words on each single ' ' (a run of spaces adds
 * its spaces to the word before), a word inside quotes or a Jinja block
 * joins the one before it, a lone backslash outside quotes drops the line
 * break after it, and each line but the last gives its last word a '\n'. */
static void split_args(const char *s, struct params *ps)
{
	char q = 0;
	int print_depth = 0, block_depth = 0, comment_depth = 0;
	const char *line = s;
	for (;;) {
		const char *le = strchr(line, '\n');
		size_t ll = le ? (size_t)(le - line) : strlen(line);
		char *l = xstrndup(line, ll);
		bool cont = false;
		bool several = strchr(l, ' ') != NULL;
		char *w = l;
		for (size_t idx = 0;; idx++) {
			char *sp = strchr(w, ' ');
			if (sp)
				*sp = 0;
			if (!*w && idx != 0) {
				if (ps->n)
					strbuf_addch(&ps->v[ps->n - 1], ' ');
			} else if (!strcmp(w, "\\") && !q) {
				cont = true;
			} else {
				bool was_in = q != 0;
				q = quote_state(w, q);
				bool in = q != 0, appended = false;
				bool in_jinja = print_depth || block_depth || comment_depth;
				if (in && !was_in && !in_jinja) {
					param_new(ps, w);
					appended = true;
				} else if ((in_jinja || in || was_in) && ps->n) {
					struct strbuf *last = &ps->v[ps->n - 1];
					if (idx == 0 && was_in)
						strbuf_addstr(last, w);
					else if (several) {
						if (idx > 0)
							strbuf_addch(last, ' ');
						strbuf_addstr(last, w);
					} else {
						strbuf_addch(last, '\n');
						strbuf_addstr(last, w);
					}
					appended = true;
				}
				int d0 = print_depth;
				print_depth = jinja_depth(w, print_depth, "{{", "}}");
				if (print_depth != d0 && !appended) {
					param_new(ps, w);
					appended = true;
				}
				d0 = block_depth;
				block_depth = jinja_depth(w, block_depth, "{%", "%}");
				if (block_depth != d0 && !appended) {
					param_new(ps, w);
					appended = true;
				}
				d0 = comment_depth;
				comment_depth = jinja_depth(w, comment_depth, "{#", "#}");
				if (comment_depth != d0 && !appended) {
					param_new(ps, w);
					appended = true;
				}
				if (!(print_depth || block_depth || comment_depth) && !q && !appended && *w)
					param_new(ps, w);
			}
			if (!sp)
				break;
			w = sp + 1;
		}
		free(l);
		if (!le)
			break;
		if (!cont && ps->n)
			strbuf_addch(&ps->v[ps->n - 1], '\n');
		line = le + 1;
	}
}

static void put_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80)
		strbuf_addch(sb, (char)cp);
	else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xC0 | (cp >> 6)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (char)(0xE0 | (cp >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else {
		strbuf_addch(sb, (char)(0xF0 | (cp >> 18)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	}
}

/* Python's unicode-escape decoding of the escapes Ansible decodes. */
static char *decode_escapes(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = s; *p; p++) {
		if (*p != '\\' || !p[1]) {
			strbuf_addch(&sb, *p);
			continue;
		}
		char c = p[1];
		static const char from[] = "\\'\"abfnrtv";
		static const char to[] = "\\'\"\a\b\f\n\r\t\v";
		const char *simple = strchr(from, c);
		if (simple) {
			strbuf_addch(&sb, to[simple - from]);
			p++;
		} else if ((c == 'x' || c == 'u' || c == 'U')) {
			int nd = c == 'x' ? 2 : c == 'u' ? 4 : 8, k;
			for (k = 0; k < nd && isxdigit((unsigned char)p[2 + k]); k++)
				;
			if (k != nd) {
				strbuf_addch(&sb, *p);
				continue;
			}
			char hex[9];
			memcpy(hex, p + 2, (size_t)nd);
			hex[nd] = 0;
			put_utf8(&sb, strtoul(hex, NULL, 16));
			p += 1 + nd;
		} else
			strbuf_addch(&sb, *p);
	}
	return strbuf_detach(&sb);
}

static char *unquote(const char *s)
{
	size_t n = strlen(s);
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0] && s[n - 2] != '\\')
		return xstrndup(s + 1, n - 2);
	return xstrdup(s);
}

static char *strip(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

json_t *args_parse_kv(const char *s, bool free_form, struct diag *d)
{
	static const char *const raw_keys[] = { "creates", "removes", "chdir", "executable",
						"warn", "stdin", "stdin_add_newline",
						"strip_empty_ends", NULL };
	json_t *o = json_object();
	struct params ps = { 0 };
	split_args(s, &ps);
	/* join_args: the command's words again, a space between two unless
	 * the first ends a line */
	struct strbuf raw = STRBUF_INIT;
	bool have_raw = false;
	(void)d;
	for (size_t i = 0; i < ps.n; i++) {
		const char *w = strbuf_str(&ps.v[i]);
		char *x = decode_escapes(w);
		size_t pos = 0;
		bool kv = false;
		for (size_t j = 1; x[j]; j++)
			if (x[j] == '=' && x[j - 1] != '\\') {
				pos = j;
				kv = true;
				break;
			}
		bool is_raw = !kv;
		if (kv && free_form) {
			char *k = xstrndup(x, pos);
			bool known = false;
			for (const char *const *r = raw_keys; *r; r++)
				if (!strcmp(k, *r))
					known = true;
			free(k);
			is_raw = !known;
		}
		if (is_raw) {
			if (have_raw && raw.len && raw.buf[raw.len - 1] != '\n')
				strbuf_addch(&raw, ' ');
			strbuf_addstr(&raw, w);
			have_raw = true;
		} else {
			char *k0 = xstrndup(x, pos), *k = strip(k0), *v0 = strip(x + pos + 1);
			char *v = unquote(v0);
			json_object_set_new(o, k, json_string(v));
			free(k0);
			free(k);
			free(v0);
			free(v);
		}
		free(x);
	}
	if (have_raw)
		json_object_set_new(o, "_raw_params", json_string(strbuf_str(&raw)));
	strbuf_release(&raw);
	for (size_t i = 0; i < ps.n; i++)
		strbuf_release(&ps.v[i]);
	free(ps.v);
	return o;
}

json_t *args_shlex(const char *s)
{
	json_t *a = json_array();
	const char *p = s;
	for (;;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		struct strbuf w = STRBUF_INIT;
		strbuf_addstr(&w, "");
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '\'') {
				const char *e = strchr(p + 1, '\'');
				if (!e) {
					strbuf_release(&w);
					json_decref(a);
					return NULL;
				}
				strbuf_add(&w, p + 1, (size_t)(e - p - 1));
				p = e + 1;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1] && strchr("\\\"$`\n", p[1]))
						p++;
					strbuf_addch(&w, *p++);
				}
				if (*p != '"') {
					strbuf_release(&w);
					json_decref(a);
					return NULL;
				}
				p++;
			} else if (*p == '\\' && p[1]) {
				strbuf_addch(&w, p[1]);
				p += 2;
			} else
				strbuf_addch(&w, *p++);
		}
		json_array_append_new(a, json_string(strbuf_str(&w)));
		strbuf_release(&w);
	}
	return a;
}

bool args_is_bool(json_t *v)
{
	static const char *const words[] = { "yes", "no", "true", "false", "on", "off", "1",
					     "0", "y", "n", "t", "f", NULL };
	if (json_is_boolean(v) || (json_is_integer(v) && json_integer_value(v) >= 0 &&
				   json_integer_value(v) <= 1))
		return true;
	if (!json_is_string(v))
		return false;
	for (const char *const *w = words; *w; w++)
		if (!strcasecmp(json_string_value(v), *w))
			return true;
	return false;
}

bool args_bool(json_t *v, bool dflt)
{
	if (!v || json_is_null(v))
		return dflt;
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	if (json_is_real(v))
		return json_real_value(v) != 0;
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		static const char *const t[] = { "yes", "true", "on", "1", "y", "t", NULL };
		for (const char *const *w = t; *w; w++)
			if (!strcasecmp(s, *w))
				return true;
		return false;
	}
	return dflt;
}

const char *args_str(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

char *args_strdup(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	struct strbuf sb = STRBUF_INIT;
	args_pystr(&sb, v);
	return strbuf_detach(&sb);
}

/* chmod-style symbolic modes: "u=rw,g=r,o=", "a+x", "u+s". */
static long symbolic_mode(const char *s, long cur)
{
	long mode = cur < 0 ? 0 : cur;
	const char *p = s;
	while (*p) {
		long who = 0;
		while (*p && strchr("ugoa", *p)) {
			who |= *p == 'u' ? 04700 : *p == 'g' ? 02070 : *p == 'o' ? 01007 : 07777;
			p++;
		}
		if (!who)
			who = 07777;
		if (!*p || !strchr("+-=", *p))
			return -2;
		while (*p && strchr("+-=", *p)) {
			char op = *p++;
			long bits = 0;
			while (*p && strchr("rwxXst", *p)) {
				switch (*p) {
				case 'r': bits |= 0444; break;
				case 'w': bits |= 0222; break;
				case 'x': bits |= 0111; break;
				case 'X': if ((mode & 0111) || (cur >= 0 && (cur & 040000))) bits |= 0111; break;
				case 's': bits |= 06000; break;
				case 't': bits |= 01000; break;
				}
				p++;
			}
			bits &= who;
			if (op == '+')
				mode |= bits;
			else if (op == '-')
				mode &= ~bits;
			else
				mode = (mode & ~(who & 07777)) | bits;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -2;
	}
	return mode & 07777;
}

long args_mode(json_t *v, long cur_mode)
{
	if (!v || json_is_null(v))
		return -1;
	if (json_is_integer(v))
		return (long)json_integer_value(v);
	if (!json_is_string(v))
		return -2;
	const char *s = json_string_value(v);
	if (!*s)
		return -2;
	if (strspn(s, "01234567") == strlen(s))
		return strtol(s, NULL, 8);
	return symbolic_mode(s, cur_mode);
}

static void pyrepr_str(struct strbuf *sb, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	strbuf_addch(sb, q);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			strbuf_addstr(sb, "\\\\");
		else if (*p == (unsigned char)q) {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, (char)q);
		} else if (*p == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*p == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*p == '\r')
			strbuf_addstr(sb, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\x%02x", *p);
		else
			strbuf_addch(sb, (char)*p);
	}
	strbuf_addch(sb, q);
}

static void pyrepr(struct strbuf *sb, json_t *v)
{
	if (json_is_string(v))
		pyrepr_str(sb, json_string_value(v));
	else
		args_pystr(sb, v);
}

void args_pystr(struct strbuf *sb, json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		strbuf_add(sb, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL: {
		double r = json_real_value(v);
		char buf[64];
		snprintf(buf, sizeof(buf), "%.17g", r);
		/* shortest repr that round-trips, like Python */
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, r);
			if (strtod(buf, NULL) == r)
				break;
		}
		strbuf_addstr(sb, buf);
		if (!strpbrk(buf, ".eninf"))
			strbuf_addstr(sb, ".0");
		break;
	}
	case JSON_TRUE:
		strbuf_addstr(sb, "True");
		break;
	case JSON_FALSE:
		strbuf_addstr(sb, "False");
		break;
	case JSON_NULL:
		strbuf_addstr(sb, "None");
		break;
	case JSON_ARRAY: {
		size_t i;
		json_t *e;
		strbuf_addch(sb, '[');
		json_array_foreach(v, i, e) {
			if (i)
				strbuf_addstr(sb, ", ");
			pyrepr(sb, e);
		}
		strbuf_addch(sb, ']');
		break;
	}
	case JSON_OBJECT: {
		const char *k;
		json_t *e;
		bool first = true;
		strbuf_addch(sb, '{');
		json_object_foreach(v, k, e) {
			if (!first)
				strbuf_addstr(sb, ", ");
			first = false;
			pyrepr_str(sb, k);
			strbuf_addstr(sb, ": ");
			pyrepr(sb, e);
		}
		strbuf_addch(sb, '}');
		break;
	}
	}
}

bool args_identifier(const char *s)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
		"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
		"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
		"return", "try", "while", "with", "yield", NULL,
	};
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && !((unsigned char)*p & 0x80))
			return false;
	for (const char *const *k = kw; *k; k++)
		if (!strcmp(s, *k))
			return false;
	return true;
}
