/* auth.c: reading the auth file (see auth.h), in IM's line format or as a
 * JSON list of objects. It exists so that one parser decides what a
 * credential is, registers every secret value the moment it is read (so no
 * log or error can ever show it) and reports bad lines by number.
 *
 * Line format (IM's): one credential per line, items
 * `key = value` separated by `;`, `'..'` and `".."` protect `;` and `=`,
 * `#` lines and blank lines are skipped, the two characters `\n` in a value
 * are a newline, a value `file(PATH)` is replaced by the file's contents.
 * Unlike IM, an unquoted `=` inside a value is kept (base64 padding), not
 * silently dropped with the rest of the line. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "cloud/auth.h"
#include "cloud/cloud.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Keys whose values are secrets: matched as substrings of the key. */
static const char *const secret_words[] = {
	"password", "passwd", "token", "secret", "private_key", "proxy",
	"credential", "api_key", "apikey", "access_key", "client_key", NULL,
};

static bool key_is_secret(const char *key, const char *type)
{
	if (strcasecmp(key, "public_key") == 0)
		return false;
	for (size_t i = 0; secret_words[i]; i++)
		if (strcasestr(key, secret_words[i]))
			return true;
	/* and what the line's cloud keeps secret (EC2's access key in
	 * 'username'): its backend's table says */
	return type && cloud_auth_key_is_secret(type, key);
}

static void register_secrets(struct auth_cred *c)
{
	const char *type = auth_get(c, "type");
	for (size_t i = 0; i < c->n; i++)
		if (key_is_secret(c->items[i].key, type))
			secret_register(c->items[i].value);
}

static void cred_add(struct auth_cred *c, char *key, char *value)
{
	c->items = xreallocarray(c->items, c->n + 1, sizeof(*c->items));
	c->items[c->n].key = key;
	c->items[c->n].value = value;
	c->n++;
}

static void cred_release(struct auth_cred *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].key);
		free(c->items[i].value);
	}
	free(c->items);
	c->items = NULL;
	c->n = 0;
}

void auth_file_free(struct auth_file *af)
{
	if (!af)
		return;
	for (size_t i = 0; i < af->n; i++)
		cred_release(&af->creds[i]);
	free(af->creds);
	free(af->path);
	free(af);
}

static void error_at(struct diag *d, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void error_at(struct diag *d, const char *path, int line, const char *fmt, ...)
{
	struct src_loc loc = { path, line, 0 };
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, IMC_EXIT_DATAERR, &loc, fmt, ap);
	va_end(ap);
}

/* IM's id syntax: [a-zA-Z_.][\w.-]* */
static bool valid_id(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || *s == '.'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

static char *trim_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/* Trims spaces around a value, except those inside its quoted span
 * [qlo, qhi) (qlo == SIZE_MAX: nothing was quoted). */
static char *trim_value(const char *s, size_t n, size_t qlo, size_t qhi)
{
	size_t a = 0, b = n;
	size_t lo = qlo == SIZE_MAX ? n : qlo, hi = qlo == SIZE_MAX ? 0 : qhi;
	while (a < b && a < lo && isspace((unsigned char)s[a]))
		a++;
	while (b > a && b > hi && isspace((unsigned char)s[b - 1]))
		b--;
	return xstrndup(s + a, b - a);
}

/* Replaces the two characters backslash-n by a newline, in place. */
static void unescape_newlines(char *v)
{
	char *w = v;
	for (const char *r = v; *r; r++) {
		if (r[0] == '\\' && r[1] == 'n') {
			*w++ = '\n';
			r++;
		} else
			*w++ = *r;
	}
	*w = '\0';
}

/* A value `file(PATH)`: replaced by the contents of PATH (trailing newline
 * kept as is: PEM files end with one). */
static int expand_file(char **value, const char *path, int line, struct diag *d)
{
	size_t n = strlen(*value);
	if (n < 6 || strncmp(*value, "file(", 5) != 0 || (*value)[n - 1] != ')')
		return 0;
	char *fname = trim_dup(*value + 5, n - 6);
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, fname) < 0) {
		error_at(d, path, line, "cannot read '%s' named by file(): %s", fname, strerror(errno));
		strbuf_release(&sb);
		free(fname);
		return -1;
	}
	free(fname);
	free(*value);
	*value = strbuf_detach(&sb);
	return 0;
}

/* Splits one line into items. Returns 0, or -1 with d set. */
static int parse_line(struct auth_cred *c, const char *path, int lineno, const char *s,
		      size_t len, struct diag *d)
{
	size_t i = 0;
	int item = 0;
	while (i < len) {
		/* one item: up to the next unquoted ';' */
		item++;
		struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
		bool seen_eq = false;
		size_t qlo = SIZE_MAX, qhi = 0; /* quoted span of the value */
		char quote = 0;
		for (; i < len; i++) {
			char ch = s[i];
			if (quote) {
				if (ch == quote)
					quote = 0;
				else
					strbuf_addch(seen_eq ? &val : &key, ch);
				if (seen_eq)
					qhi = val.len;
				continue;
			}
			if (ch == '\'' || ch == '"') {
				quote = ch;
				if (seen_eq && qlo == SIZE_MAX)
					qlo = val.len;
				continue;
			}
			if (ch == ';')
				break;
			if (ch == '=' && !seen_eq) {
				seen_eq = true;
				continue;
			}
			strbuf_addch(seen_eq ? &val : &key, ch);
		}
		if (quote) {
			error_at(d, path, lineno, "unterminated %s quote in auth line",
				 quote == '\'' ? "single" : "double");
			strbuf_release(&key);
			strbuf_release(&val);
			return -1;
		}
		char *k = trim_dup(strbuf_str(&key), key.len);
		bool blank_item = !seen_eq && !*k;
		bool bad = false;
		if (blank_item) {
			/* an empty item: a trailing or doubled ';' */
		} else if (!seen_eq) {
			/* the text is not echoed: it may be a secret missing its key */
			error_at(d, path, lineno, "auth item %d has no '=' (want 'key = value')", item);
			bad = true;
		} else if (!*k) {
			error_at(d, path, lineno, "auth item has an empty key");
			bad = true;
		}
		if (bad || blank_item) {
			free(k);
			strbuf_release(&key);
			strbuf_release(&val);
			if (bad)
				return -1;
			i++;
			continue;
		}
		char *v = trim_value(strbuf_str(&val), val.len, qlo, qhi);
		strbuf_release(&key);
		strbuf_release(&val);
		unescape_newlines(v);
		if (qlo == SIZE_MAX && expand_file(&v, path, lineno, d) < 0) {
			free(k);
			free(v);
			return -1;
		}
		if (auth_get(c, k)) {
			error_at(d, path, lineno, "auth item '%s' given twice in one line", k);
			free(k);
			free(v);
			return -1;
		}
		cred_add(c, k, v);
		i++; /* past ';' */
	}
	return 0;
}

static int check_cred(const struct auth_cred *c, const char *path, struct diag *d)
{
	const char *id = auth_get(c, "id");
	if (id && !valid_id(id)) {
		error_at(d, path, c->line, "incorrect value in auth item id: '%s'", id);
		return -1;
	}
	if (!auth_get(c, "type")) {
		error_at(d, path, c->line, "credential has no 'type' item");
		return -1;
	}
	return 0;
}

static void file_add(struct auth_file *af, struct auth_cred *c)
{
	af->creds = xreallocarray(af->creds, af->n + 1, sizeof(*af->creds));
	af->creds[af->n++] = *c;
	memset(c, 0, sizeof(*c));
}

static int parse_lines(struct auth_file *af, const char *text, size_t len, struct diag *d)
{
	const char *path = af->path;
	int lineno = 0;
	size_t pos = 0;
	int rc = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t n = end - pos;
		const char *s = text + pos;
		lineno++;
		pos = end + 1;
		if (n && s[n - 1] == '\r')
			n--;
		size_t k = 0;
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (k == n || s[k] == '#')
			continue;
		struct auth_cred c = { .line = lineno };
		if (parse_line(&c, path, lineno, s, n, d) < 0 || check_cred(&c, path, d) < 0) {
			/* secrets of a bad line are still secrets */
			register_secrets(&c);
			cred_release(&c);
			rc = -1;
			continue;
		}
		register_secrets(&c);
		file_add(af, &c);
	}
	return rc;
}

static int parse_json(struct auth_file *af, const char *text, size_t len, struct diag *d)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, 0, &jerr);
	if (!root) {
		/* jansson quotes the offending token ("near '...'"): it may be a
		 * secret, so the message stops before it */
		char *near = strstr(jerr.text, " near ");
		if (near)
			*near = '\0';
		error_at(d, af->path, jerr.line > 0 ? jerr.line : 1, "invalid JSON auth file: %s", jerr.text);
		return -1;
	}
	int rc = 0;
	if (!json_is_array(root)) {
		error_at(d, af->path, 1, "a JSON auth file must be a list of objects");
		json_decref(root);
		return -1;
	}
	size_t idx;
	json_t *obj;
	json_array_foreach(root, idx, obj) {
		struct auth_cred c = { .line = (int)idx + 1 };
		if (!json_is_object(obj)) {
			error_at(d, af->path, c.line, "credential %zu of the JSON auth file is not an object", idx + 1);
			rc = -1;
			continue;
		}
		const char *key;
		json_t *v;
		bool bad = false;
		json_object_foreach(obj, key, v) {
			char *s;
			if (json_is_string(v))
				s = xstrdup(json_string_value(v));
			else if (json_is_integer(v))
				s = xasprintf("%lld", (long long)json_integer_value(v));
			else if (json_is_boolean(v))
				s = xstrdup(json_is_true(v) ? "true" : "false");
			else {
				error_at(d, af->path, c.line, "credential %zu: value of '%s' must be a string", idx + 1, key);
				bad = true;
				continue;
			}
			cred_add(&c, xstrdup(key), s);
		}
		register_secrets(&c);
		if (bad || check_cred(&c, af->path, d) < 0) {
			cred_release(&c);
			rc = -1;
			continue;
		}
		file_add(af, &c);
	}
	json_decref(root);
	return rc;
}

struct auth_file *auth_file_parse(const char *path, const char *text, size_t len, struct diag *d)
{
	struct auth_file *af = xcalloc(1, sizeof(*af));
	af->path = xstrdup(path ? path : "auth");
	size_t k = 0;
	while (k < len && isspace((unsigned char)text[k]))
		k++;
	int rc = (k < len && (text[k] == '[' || text[k] == '{')) ? parse_json(af, text, len, d)
					      : parse_lines(af, text, len, d);
	if (rc < 0) {
		auth_file_free(af);
		return NULL;
	}
	return af;
}

struct auth_file *auth_file_load(const char *path, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, errno == ENOENT ? IMC_EXIT_NOINPUT : IMC_EXIT_IOERR, NULL,
			   "cannot read auth file '%s': %s", path, strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	struct auth_file *af = auth_file_parse(path, sb.buf ? sb.buf : "", sb.len, d);
	strbuf_release(&sb);
	return af;
}
