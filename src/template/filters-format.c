/* filters-format.c: Ansible's filters that turn values into text for people
 * and files, and back: comment (config-file comment blocks), strftime,
 * human_readable / human_to_bytes, urlencode (Jinja2's) / urldecode,
 * to_uuid and password_hash. Recipes write their results into files and
 * compare them, so each follows what ansible-core 2.14 does on Debian 12
 * byte for byte (the cases in tests/unit/test-template-cases.json were
 * checked against its Templar), including which inputs are errors. */
#include "config.h"

#include <crypt.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <openssl/evp.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

/* ---- comment ------------------------------------------------------------ */

struct comment_style {
	const char *name, *beginning, *decoration, *end;
};

static const struct comment_style comment_styles[] = {
	{ "plain", "", "# ", "" },
	{ "erlang", "", "% ", "" },
	{ "c", "", "// ", "" },
	{ "cblock", "/*", " * ", " */" },
	{ "xml", "<!--", " - ", "-->" },
	{ NULL, NULL, NULL, NULL },
};

/* s without its trailing whitespace, malloc'd (Python's rstrip()). */
static char *rstrip_dup(const char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/* Appends text with every occurrence of from replaced by to. */
static void add_replaced(struct strbuf *sb, const char *text, const char *from, const char *to)
{
	size_t fl = strlen(from);
	const char *p = text, *q;
	while (fl && (q = strstr(p, from))) {
		strbuf_add(sb, p, (size_t)(q - p));
		strbuf_addstr(sb, to);
		p = q + fl;
	}
	strbuf_addstr(sb, p);
}

/* A keyword argument of comment: a string, or an int for the counts. */
static int comment_param(struct ev *ev, json_t *kw, const char *name, const char **s, size_t pos)
{
	json_t *v = kw ? json_object_get(kw, name) : NULL;
	if (!v)
		return 0;
	if (!json_is_string(v)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "comment: '%s' must be a string, got %s", name, val_typename(v));
		return -1;
	}
	*s = json_string_value(v);
	return 0;
}

static int comment_count(struct ev *ev, json_t *kw, const char *name, long long *n, size_t pos)
{
	json_t *v = kw ? json_object_get(kw, name) : NULL;
	if (!v)
		return 0;
	if (json_is_integer(v))
		*n = json_integer_value(v);
	else if (json_is_string(v) && *json_string_value(v)) {
		char *end;
		*n = strtoll(json_string_value(v), &end, 10);
		if (*end)
			goto bad;
	} else
		goto bad;
	if (*n > 1000)
		*n = 1000; /* a bound on the output, far above any real use */
	return 0;
bad:
	ev_error(ev, TMPL_ERR_TYPE, pos, "comment: '%s' must be an integer", name);
	return -1;
}

/* text | comment(style='plain', decoration=..., beginning=..., prefix=...,
 * prefix_count=1, postfix=..., postfix_count=1, end=..., newline='\n'):
 * the prefix and postfix default to the decoration without its trailing
 * space; each line of text is decorated, and a decoration alone on a line
 * loses its trailing spaces. */
FILTER_FN(comment)
{
	const char *style = "plain";
	if (arg_str(ev, args, NULL, 0, "style", "plain", &style, pos) < 0)
		return NULL;
	json_t *ks = kw ? json_object_get(kw, "style") : NULL;
	if (ks && json_is_string(ks))
		style = json_string_value(ks);
	const struct comment_style *st = NULL;
	for (size_t i = 0; comment_styles[i].name && !st; i++)
		if (!strcmp(comment_styles[i].name, style))
			st = &comment_styles[i];
	if (!st) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Invalid style '%s'.", style);
		return NULL;
	}
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "comment: expected a string, got %s", val_typename(in));
		return NULL;
	}
	const char *prepost = st->decoration;
	if (comment_param(ev, kw, "decoration", &prepost, pos) < 0)
		return NULL;
	char *pre_default = rstrip_dup(prepost);
	const char *newline = "\n", *beginning = st->beginning, *decoration = st->decoration, *end = st->end;
	const char *prefix = pre_default, *postfix = pre_default;
	long long prefix_count = 1, postfix_count = 1;
	json_t *r = NULL;
	if (comment_param(ev, kw, "newline", &newline, pos) < 0 || comment_param(ev, kw, "beginning", &beginning, pos) < 0 ||
	    comment_param(ev, kw, "decoration", &decoration, pos) < 0 || comment_param(ev, kw, "end", &end, pos) < 0 ||
	    comment_param(ev, kw, "prefix", &prefix, pos) < 0 || comment_param(ev, kw, "postfix", &postfix, pos) < 0 ||
	    comment_count(ev, kw, "prefix_count", &prefix_count, pos) < 0 ||
	    comment_count(ev, kw, "postfix_count", &postfix_count, pos) < 0)
		goto out;
	if (!*newline) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "comment: 'newline' must not be empty");
		goto out;
	}
	struct strbuf sb = STRBUF_INIT, body = STRBUF_INIT;
	if (*beginning) {
		strbuf_addstr(&sb, beginning);
		strbuf_addstr(&sb, newline);
	}
	if (*prefix)
		for (long long i = 0; i < prefix_count; i++) {
			if (strcmp(prefix, newline) != 0)
				strbuf_addstr(&sb, prefix);
			strbuf_addstr(&sb, newline);
		}
	/* decorate every line, then trim a decoration left alone on its line */
	char *nl_deco = xasprintf("%s%s", newline, decoration);
	strbuf_addstr(&body, decoration);
	add_replaced(&body, json_string_value(in), newline, nl_deco);
	char *deco_nl = xasprintf("%s%s", decoration, newline);
	char *trimmed = rstrip_dup(decoration);
	char *trimmed_nl = xasprintf("%s%s", trimmed, newline);
	add_replaced(&sb, body.buf ? body.buf : "", deco_nl, trimmed_nl);
	for (long long i = 0; i < postfix_count; i++) {
		strbuf_addstr(&sb, newline);
		strbuf_addstr(&sb, postfix);
	}
	if (*end) {
		strbuf_addstr(&sb, newline);
		strbuf_addstr(&sb, end);
	}
	r = val_str_take(&sb);
	strbuf_release(&body);
	free(nl_deco);
	free(deco_nl);
	free(trimmed);
	free(trimmed_nl);
out:
	free(pre_default);
	return r;
}

/* A number (int, float, numeric string) as Python's float() reads it. */
static int to_double(const json_t *v, double *out)
{
	if (json_is_number(v) && !json_is_boolean(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (json_is_boolean(v)) {
		*out = json_is_true(v) ? 1 : 0;
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	const char *s = json_string_value(v);
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	*out = strtod(s, &end);
	if (end == s)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -1 : 0;
}

/* ---- strftime ----------------------------------------------------------- */

/* format | strftime(second=now, utc=false): Python's time.strftime over
 * time.localtime/gmtime of the epoch seconds (a number or a numeric
 * string). The C library's strftime implements the same directives. */
FILTER_FN(strftime)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "strftime() argument 1 must be str, not %s", val_typename(in));
		return NULL;
	}
	json_t *sec = ARG(0, "second"), *utc = ARG(1, "utc");
	double when;
	if (!sec || json_is_null(sec)) {
		when = (double)time(NULL);
	} else if (to_double(sec, &when) < 0) {
		char *txt = val_to_cstr(sec);
		ev_error(ev, TMPL_ERR_TYPE, pos, "Invalid value for epoch value (%s)", txt);
		free(txt);
		return NULL;
	}
	if (!isfinite(when) || fabs(when) > 1e15) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "timestamp out of range for platform time_t");
		return NULL;
	}
	time_t t = (time_t)floor(when);
	struct tm tm;
	if (!(utc && val_truthy(utc) ? gmtime_r(&t, &tm) : localtime_r(&t, &tm))) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "timestamp out of range for platform time_t");
		return NULL;
	}
	const char *fmt = json_string_value(in);
	if (!*fmt)
		return json_string("");
	/* strftime returns 0 both for "too small" and for an empty result: grow
	 * until the result fits or the buffer is far larger than the format
	 * could ever need */
	for (size_t cap = 256; cap <= 64 * 1024 + 64 * strlen(fmt); cap *= 4) {
		char *buf = xmalloc(cap);
		/* the recipe's format is the point of this filter */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		size_t n = strftime(buf, cap, fmt, &tm);
#pragma GCC diagnostic pop
		if (n > 0) {
			json_t *r = json_stringn_nocheck(buf, n);
			free(buf);
			return r;
		}
		free(buf);
	}
	return json_string("");
}

/* ---- human_readable / human_to_bytes ----------------------------------- */

static const struct size_unit {
	char letter;
	double factor;
} size_units[] = {
	{ 'Y', 1208925819614629174706176.0 }, { 'Z', 1180591620717411303424.0 },
	{ 'E', 1152921504606846976.0 }, { 'P', 1125899906842624.0 },
	{ 'T', 1099511627776.0 }, { 'G', 1073741824.0 }, { 'M', 1048576.0 },
	{ 'K', 1024.0 }, { 'B', 1.0 }, { 0, 0 },
};

/* size | human_readable(isbits=false, unit=None): "%.2f" of the size in
 * the largest unit it reaches (or the unit asked for), then "KB".."YB" or
 * "Bytes" (bits: "Kb".., "bits"). */
FILTER_FN(human_readable)
{
	json_t *isbits = ARG(0, "isbits"), *unit = ARG(1, "unit");
	double size;
	if (json_is_boolean(in))
		size = json_is_true(in) ? 1 : 0; /* Python's bool is an int */
	else if (json_is_number(in))
		size = json_number_value(in);
	else {
		ev_error(ev, TMPL_ERR_TYPE, pos, "human_readable() failed on bad input: "
			 "'>=' not supported between instances of '%s' and 'int'", val_typename(in));
		return NULL;
	}
	const char *u = NULL;
	if (unit && !json_is_null(unit)) {
		if (!json_is_string(unit)) {
			ev_error(ev, TMPL_ERR_FILTER, pos, "human_readable() can't interpret following string: %g", size);
			return NULL;
		}
		u = json_string_value(unit);
	}
	size_t i;
	for (i = 0; size_units[i].letter; i++) {
		if (!u && size >= size_units[i].factor)
			break;
		if (u && *u && toupper((unsigned char)*u) == size_units[i].letter && !u[1])
			break;
	}
	if (!size_units[i].letter)
		i--; /* Python's loop leaves the last unit (bytes) when none matched */
	bool bits = isbits && val_truthy(isbits);
	char *num = xasprintf("%.2f", size / size_units[i].factor);
	char *r = size_units[i].factor != 1.0 ? xasprintf("%s %c%c", num, size_units[i].letter, bits ? 'b' : 'B')
					      : xasprintf("%s %s", num, bits ? "bits" : "Bytes");
	free(num);
	json_t *j = json_string(r);
	free(r);
	return j;
}

/* size | human_to_bytes(default_unit=None, isbits=false): a leading number
 * (digits and one dot), optional blanks, an optional unit whose first
 * letter picks the power of 1024 and whose second must be 'B' (bits: 'b')
 * unless it spells 'byte' ('bit'). Rounds half to even, as Python. */
FILTER_FN(human_to_bytes)
{
	json_t *dflt = ARG(0, "default_unit"), *isbits = ARG(1, "isbits");
	char *txt = val_to_cstr(in), *unit = NULL;
	json_t *r = NULL;
	const char *p = txt;
	while (isspace((unsigned char)*p))
		p++;
	const char *num0 = p;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	char *numtxt = xstrndup(num0, (size_t)(p - num0));
	char *end;
	double num = strtod(numtxt, &end);
	if (!*numtxt || *end || !strcmp(numtxt, ".")) {
		ev_error(ev, TMPL_ERR_FILTER, pos, "human_to_bytes() can't interpret following string: %s", txt);
		goto out;
	}
	while (isspace((unsigned char)*p))
		p++;
	const char *u0 = p;
	while (isalpha((unsigned char)*p))
		p++;
	if (p > u0)
		unit = xstrndup(u0, (size_t)(p - u0));
	if (!unit && dflt && !json_is_null(dflt)) {
		if (!json_is_string(dflt) || !*json_string_value(dflt)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "human_to_bytes() failed on bad input: default_unit must be a unit");
			goto out;
		}
		unit = xstrdup(json_string_value(dflt));
	}
	if (!unit) {
		r = json_integer((json_int_t)nearbyint(num));
		goto out;
	}
	double factor = 0;
	for (size_t i = 0; size_units[i].letter; i++)
		if (toupper((unsigned char)unit[0]) == size_units[i].letter)
			factor = size_units[i].factor;
	bool bits = isbits && val_truthy(isbits);
	bool ok = factor > 0;
	if (ok && strlen(unit) > 1) {
		char *lower = xstrdup(unit);
		for (char *q = lower; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		ok = strstr(lower, bits ? "bit" : "byte") || unit[1] == (bits ? 'b' : 'B');
		free(lower);
	}
	if (!ok)
		ev_error(ev, TMPL_ERR_FILTER, pos, "human_to_bytes() can't interpret following string: %s", txt);
	else if (num * factor >= 9.2e18)
		ev_error(ev, TMPL_ERR_TYPE, pos, "human_to_bytes(): %s is too large", txt);
	else
		r = json_integer((json_int_t)nearbyint(num * factor));
out:
	free(unit);
	free(numtxt);
	free(txt);
	return r;
}

/* x < 10**n for x >= 1 and n <= 27, exactly, as Python compares a float
 * with an int (a double cannot hold 10**23 and up). With x = m * 2**e
 * (m an integer below 2**53) and 10**n = 5**n * 2**n, compare m * 2**(e-n)
 * with 5**n, which fits in 64 bits. */
static bool less_pow10(double x, int n)
{
	uint64_t p5 = 1;
	for (int k = 0; k < n; k++)
		p5 *= 5;
	int e;
	double f = frexp(x, &e);
	uint64_t m = (uint64_t)ldexp(f, 53);
	int d = e - 53 - n;
	if (d >= 0)
		return d < 11 && (m << d) < p5; /* m << 11 is past any 5**n here */
	if (-d >= 64 || p5 > (UINT64_MAX >> -d))
		return true;
	return m < (p5 << -d);
}

/* size | filesizeformat(binary=False): Jinja2's "1 Byte", "N Bytes" below
 * one kilo, else one decimal in the largest unit it reaches (kB..YB by
 * 1000, KiB..YiB by 1024). */
FILTER_FN(filesizeformat)
{
	static const char *const dec[] = { "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB" };
	static const char *const bin[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB" };
	json_t *bj = ARG(0, "binary");
	bool binary = bj && val_truthy(bj);
	double bytes;
	if (to_double(in, &bytes) < 0 || json_is_null(in)) {
		char *t = val_to_cstr(in);
		ev_error(ev, TMPL_ERR_TYPE, pos, "could not convert %s to float: '%s'", val_typename(in), t);
		free(t);
		return NULL;
	}
	double base = binary ? 1024 : 1000;
	if (bytes == 1)
		return json_string("1 Byte");
	if (bytes < base) {
		if (!isfinite(bytes) || fabs(bytes) >= 9.2e18) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "filesizeformat: cannot convert %g to an integer", bytes);
			return NULL;
		}
		char *r = xasprintf("%lld Bytes", (long long)bytes);
		json_t *j = json_string(r);
		free(r);
		return j;
	}
	double unit = base;
	size_t i;
	for (i = 0; i < 8; i++) {
		unit *= base;
		if (binary ? bytes < unit : less_pow10(bytes, 3 * (int)(i + 2)))
			break;
	}
	if (i == 8)
		i = 7;
	char *r = xasprintf("%.1f %s", base * bytes / unit, binary ? bin[i] : dec[i]);
	json_t *j = json_string(r);
	free(r);
	return j;
}

/* ---- urlencode / urldecode ----------------------------------------------- */

/* Python's urllib.parse.quote of a value's UTF-8 bytes: letters, digits and
 * "_.-~" stay, and so does '/' unless for_query; the rest is %XX; a query
 * string writes spaces as '+'. */
static void url_quote(struct strbuf *sb, const json_t *v, bool for_query)
{
	char *s = json_is_string(v) ? xstrdup(json_string_value(v)) : val_to_cstr(v);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    (*p && strchr("_.-~", *p)) || (*p == '/' && !for_query))
			strbuf_addch(sb, (char)*p);
		else if (*p == ' ' && for_query)
			strbuf_addch(sb, '+');
		else
			strbuf_addf(sb, "%%%02X", *p);
	}
	free(s);
}

/* Jinja2's urlencode: a string (or any scalar) is quoted keeping '/'; a
 * dict, or a list of pairs, becomes a query string "k=v&k2=v2". */
FILTER_FN(urlencode)
{
	(void)args; (void)kw;
	struct strbuf sb = STRBUF_INIT;
	if (json_is_object(in)) {
		const char *k;
		json_t *v;
		bool first = true;
		json_object_foreach(in, k, v) {
			if (!first)
				strbuf_addch(&sb, '&');
			first = false;
			json_t *kj = json_string(k);
			url_quote(&sb, kj, true);
			json_decref(kj);
			strbuf_addch(&sb, '=');
			url_quote(&sb, v, true);
		}
	} else if (json_is_array(in)) {
		for (size_t i = 0; i < json_array_size(in); i++) {
			json_t *pair = json_array_get(in, i);
			if ((!json_is_array(pair) && !json_is_string(pair)) ||
			    (json_is_array(pair) && json_array_size(pair) != 2) ||
			    (json_is_string(pair) && json_string_length(pair) != 2)) {
				strbuf_release(&sb);
				ev_error(ev, TMPL_ERR_TYPE, pos, "urlencode: not enough values to unpack (expected 2)");
				return NULL;
			}
			if (i)
				strbuf_addch(&sb, '&');
			if (json_is_array(pair)) {
				url_quote(&sb, json_array_get(pair, 0), true);
				strbuf_addch(&sb, '=');
				url_quote(&sb, json_array_get(pair, 1), true);
			} else { /* a two-character string unpacks into its characters */
				json_t *a = json_stringn(json_string_value(pair), 1);
				json_t *b = json_stringn(json_string_value(pair) + 1, 1);
				url_quote(&sb, a ? a : pair, true);
				strbuf_addch(&sb, '=');
				url_quote(&sb, b ? b : pair, true);
				json_decref(a);
				json_decref(b);
			}
		}
	} else {
		url_quote(&sb, in, false);
	}
	return val_str_take(&sb);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The length of the valid UTF-8 sequence at b (n bytes left), or 0 with
 * *skip set to its longest valid prefix (at least 1): Python's decoder with
 * errors='replace' writes one U+FFFD per such "maximal subpart". */
static size_t utf8_valid_prefix(const unsigned char *b, size_t n, size_t *skip)
{
	size_t need;
	unsigned char lo = 0x80, hi = 0xbf;
	*skip = 1;
	if (b[0] < 0x80)
		return 1;
	if (b[0] >= 0xc2 && b[0] <= 0xdf)
		need = 1;
	else if (b[0] >= 0xe0 && b[0] <= 0xef) {
		need = 2;
		if (b[0] == 0xe0)
			lo = 0xa0;
		if (b[0] == 0xed)
			hi = 0x9f;
	} else if (b[0] >= 0xf0 && b[0] <= 0xf4) {
		need = 3;
		if (b[0] == 0xf0)
			lo = 0x90;
		if (b[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	for (size_t k = 1; k <= need; k++) {
		if (k >= n || b[k] < lo || b[k] > hi) {
			*skip = k;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* Python's urllib.parse.unquote_plus: '+' is a space, %XX a byte, a '%'
 * not followed by two hex digits stays as it is; bytes that are not UTF-8
 * become U+FFFD. */
FILTER_FN(urldecode)
{
	(void)args; (void)kw;
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "urldecode: a bytes-like object is required, not '%s'", val_typename(in));
		return NULL;
	}
	const char *s = json_string_value(in);
	size_t n = json_string_length(in);
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		int h, l;
		if (s[i] == '+')
			strbuf_addch(&raw, ' ');
		else if (s[i] == '%' && i + 2 < n && (h = hexval((unsigned char)s[i + 1])) >= 0 &&
			 (l = hexval((unsigned char)s[i + 2])) >= 0) {
			strbuf_addch(&raw, (char)(h * 16 + l));
			i += 2;
		} else
			strbuf_addch(&raw, s[i]);
	}
	/* decode as UTF-8 with errors='replace' */
	const unsigned char *b = (const unsigned char *)(raw.buf ? raw.buf : "");
	for (size_t i = 0; i < raw.len;) {
		size_t skip, len = utf8_valid_prefix(b + i, raw.len - i, &skip);
		if (len == 0) {
			strbuf_addstr(&out, "\xef\xbf\xbd");
			i += skip;
		} else {
			strbuf_add(&out, (const char *)b + i, len);
			i += len;
		}
	}
	strbuf_release(&raw);
	return val_str_take(&out);
}

/* ---- to_uuid ------------------------------------------------------------ */

/* Parses a UUID as Python's uuid.UUID() does: every "urn:" and "uuid:"
 * removed, braces stripped from both ends, hyphens dropped, and then
 * exactly 32 hex digits. */
static int parse_uuid(const char *s, unsigned char out[16])
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = s; *p;) {
		if (!strncmp(p, "urn:", 4))
			p += 4;
		else if (!strncmp(p, "uuid:", 5))
			p += 5;
		else
			strbuf_addch(&sb, *p++);
	}
	const char *b = sb.buf ? sb.buf : "", *e = b + sb.len;
	while (b < e && (*b == '{' || *b == '}'))
		b++;
	while (e > b && (e[-1] == '{' || e[-1] == '}'))
		e--;
	int k = 0, ret = 0;
	for (; b < e && ret == 0; b++) {
		if (*b == '-')
			continue;
		int h = hexval((unsigned char)*b);
		if (h < 0 || k >= 32) {
			ret = -1;
			break;
		}
		if (k % 2 == 0)
			out[k / 2] = (unsigned char)(h << 4);
		else
			out[k / 2] |= (unsigned char)h;
		k++;
	}
	strbuf_release(&sb);
	return ret == 0 && k == 32 ? 0 : -1;
}

/* name | to_uuid(namespace=Ansible's): a version 5 UUID (SHA-1 of the
 * namespace's bytes and the name's UTF-8), as uuid.uuid5. */
FILTER_FN(to_uuid)
{
	const char *ns_txt = "361E6D51-FAEC-444A-9079-341386DA8E2E"; /* Ansible's UUID_NAMESPACE_ANSIBLE */
	json_t *ns = ARG(0, "namespace");
	if (ns && !json_is_string(ns)) {
		char *t = val_to_cstr(ns);
		ev_error(ev, TMPL_ERR_TYPE, pos, "Invalid value '%s' for 'namespace': badly formed hexadecimal UUID string", t);
		free(t);
		return NULL;
	}
	if (ns)
		ns_txt = json_string_value(ns);
	unsigned char nsb[16], md[EVP_MAX_MD_SIZE];
	if (parse_uuid(ns_txt, nsb) < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Invalid value '%s' for 'namespace': badly formed hexadecimal UUID string",
			 ns_txt);
		return NULL;
	}
	char *name = json_is_string(in) ? xstrdup(json_string_value(in)) : val_to_cstr(in);
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx) {
		free(name);
		ev_error(ev, TMPL_ERR_TYPE, pos, "to_uuid: no SHA-1 context");
		return NULL;
	}
	EVP_DigestInit_ex(ctx, EVP_sha1(), NULL);
	EVP_DigestUpdate(ctx, nsb, sizeof(nsb));
	EVP_DigestUpdate(ctx, name, strlen(name));
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	free(name);
	md[6] = (unsigned char)((md[6] & 0x0f) | 0x50); /* version 5 */
	md[8] = (unsigned char)((md[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	char buf[37];
	snprintf(buf, sizeof(buf),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", md[0], md[1], md[2],
		 md[3], md[4], md[5], md[6], md[7], md[8], md[9], md[10], md[11], md[12], md[13], md[14], md[15]);
	return json_string(buf);
}

/* ---- password_hash ------------------------------------------------------ */

static const struct hash_algo {
	const char *name, *alias, *ident;
	size_t salt_size;
	long implicit_rounds; /* rounds that are left out of the setting */
	bool salt_exact;
} hash_algos[] = {
	{ "md5_crypt", "md5", "1", 8, 0, false },
	{ "bcrypt", "blowfish", "2b", 22, 12, true },
	{ "sha256_crypt", "sha256", "5", 16, 535000, false },
	{ "sha512_crypt", "sha512", "6", 16, 656000, false },
	{ NULL, NULL, NULL, 0, 0, false },
};

static const char salt_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./";

/* password | password_hash(hashtype='sha512', salt=random, salt_size=None,
 * rounds=None, ident=None): crypt(3) with the setting Ansible builds when
 * it uses Python's crypt module (Debian 12's ansible has no passlib): a
 * salt of [./0-9A-Za-z] no longer than the algorithm's, the rounds left out
 * when they are the algorithm's implicit ones. */
FILTER_FN(password_hash)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "password_hash: the password must be a string, got %s", val_typename(in));
		return NULL;
	}
	const char *type = "sha512", *salt = NULL, *ident = NULL;
	json_t *saltj = ARG(1, "salt"), *sizej = ARG(2, "salt_size"), *roundsj = ARG(3, "rounds"),
	       *identj = ARG(4, "ident");
	if (arg_str(ev, args, kw, 0, "hashtype", "sha512", &type, pos) < 0)
		return NULL;
	const struct hash_algo *a = NULL;
	for (size_t i = 0; hash_algos[i].name && !a; i++)
		if (!strcmp(type, hash_algos[i].name) || !strcmp(type, hash_algos[i].alias))
			a = &hash_algos[i];
	if (!a) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "crypt.crypt does not support '%s' algorithm", type);
		return NULL;
	}
	if (saltj && !json_is_null(saltj)) {
		if (!json_is_string(saltj)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "password_hash: salt must be a string");
			return NULL;
		}
		salt = json_string_value(saltj);
	}
	if (identj && json_is_string(identj) && *json_string_value(identj))
		ident = json_string_value(identj);
	long long rounds = 0;
	if (roundsj && !json_is_null(roundsj)) {
		if (!json_is_integer(roundsj)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "password_hash: rounds must be an integer");
			return NULL;
		}
		rounds = json_integer_value(roundsj);
	}
	char saltbuf[64];
	if (!salt || !*salt) {
		size_t size = a->salt_size;
		if (sizej && json_is_integer(sizej) && json_integer_value(sizej) > 0)
			size = (size_t)json_integer_value(sizej);
		if (size >= sizeof(saltbuf))
			size = sizeof(saltbuf) - 1;
		unsigned char rnd[64];
		if (getrandom(rnd, size, 0) != (ssize_t)size) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "password_hash: no random bytes for a salt");
			return NULL;
		}
		for (size_t i = 0; i < size; i++)
			saltbuf[i] = salt_chars[rnd[i] % 64];
		saltbuf[size] = 0;
		salt = saltbuf;
	}
	if (strspn(salt, salt_chars) != strlen(salt)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "invalid characters in salt");
		return NULL;
	}
	if ((a->salt_exact && strlen(salt) != a->salt_size) || (!a->salt_exact && strlen(salt) > a->salt_size)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "invalid salt size");
		return NULL;
	}
	if (rounds == a->implicit_rounds)
		rounds = 0;
	/* Ansible's CryptHash keeps a user's ident only for bcrypt */
	const char *id = !ident ? a->ident : !strcmp(a->name, "bcrypt") ? ident : NULL;
	struct strbuf setting = STRBUF_INIT;
	if (id)
		strbuf_addf(&setting, "$%s", id);
	if (rounds)
		strbuf_addf(&setting, "$rounds=%lld", rounds);
	strbuf_addf(&setting, "$%s", salt);
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));
	const char *h = crypt_r(json_string_value(in), setting.buf, cd);
	json_t *r = NULL;
	/* libxcrypt answers a setting it cannot use with the failure token "*0"
	 * or "*1", which Python's crypt module (so Ansible) returns as the hash */
	if (!h)
		ev_error(ev, TMPL_ERR_TYPE, pos, "crypt.crypt does not support '%s' algorithm", a->name);
	else
		r = json_string(h);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	strbuf_release(&setting);
	return r;
}
