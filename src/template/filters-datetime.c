/* filters-datetime.c: Ansible's to_datetime filter and the two Python values
 * it brings into templates, datetime.datetime and datetime.timedelta.
 * Recipes compare and subtract dates ("(now - start).total_seconds() >
 * 600"), so the engine carries them as values of their own: a JSON object
 * with one reserved key (DT_KEY / TD_KEY) holding microseconds, which the
 * evaluator hands here for arithmetic (dt_arith), attributes (dt_attr) and
 * methods (dt_method); value-datetime.c has the values themselves
 * (calendar, ordering, truth and printing, for expr-value.c). Each
 * result is what Python 3.11 gives under ansible-core 2.14 on Debian 12;
 * tests/unit/test-template-cases.json holds the checks against its Templar.
 *
 * A datetime is naive (no time zone), microseconds since 0001-01-01
 * 00:00:00 in the proleptic Gregorian calendar (years 1 to 9999). A
 * timedelta is a signed count of microseconds; Python's larger range
 * (999999999 days) is cut to what an int64 holds (292,000 years). */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <pcre2.h>

#include "template/datetime.h"
#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- errors ------------------------------------------------------------- */

/* A datetime, or NULL with Python's OverflowError when out of years 1..9999. */
static json_t *dt_new(struct ev *ev, long long us, size_t pos)
{
	if (us < 0 || us >= MAX_ORD * US_PER_DAY) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "date value out of range");
		return NULL;
	}
	return json_pack("{sI}", DT_KEY, (json_int_t)us);
}

/* Python's type name in operator errors. */
static const char *pytype(const json_t *v)
{
	switch (dt_kind(v)) {
	case DT_DATETIME: return "datetime.datetime";
	case DT_TIMEDELTA: return "datetime.timedelta";
	}
	return val_typename(v);
}

/* ---- arithmetic ----------------------------------------------------------- */

static const char *op_text(int op)
{
	switch (op) {
	case TK_ADD: return "+";
	case TK_SUB: return "-";
	case TK_MUL: return "*";
	case TK_DIV: return "/";
	case TK_FLOORDIV: return "//";
	case TK_MOD: return "%";
	}
	return "** or pow()";
}

/* Python's round-half-even of a double to an integer number of us. */
static int us_from_double(struct ev *ev, double d, long long *out, size_t pos)
{
	if (!isfinite(d) || fabs(d) >= 9.2e18) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "timedelta: value out of range");
		return -1;
	}
	*out = (long long)nearbyint(d);
	return 0;
}

/* The result of an overflow-checked operation (read after it ran). */
static json_t *td_checked(struct ev *ev, bool ovf, const long long *us, size_t pos)
{
	if (ovf) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "timedelta: value out of range");
		return NULL;
	}
	return td_new(*us);
}

json_t *dt_arith(struct ev *ev, int op, json_t *a, json_t *b, size_t pos)
{
	int ka = dt_kind(a), kb = dt_kind(b);
	long long x = ka ? dt_us(a) : 0, y = kb ? dt_us(b) : 0, r;
	bool num_b = (json_is_number(b) || json_is_boolean(b)) && !kb;
	bool num_a = (json_is_number(a) || json_is_boolean(a)) && !ka;
	double f;
	if (ka == DT_DATETIME && kb == DT_DATETIME && op == TK_SUB)
		return td_checked(ev, __builtin_sub_overflow(x, y, &r), &r, pos);
	if (ka == DT_DATETIME && kb == DT_TIMEDELTA && (op == TK_ADD || op == TK_SUB)) {
		bool ovf = op == TK_ADD ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r);
		return ovf ? dt_new(ev, -1, pos) : dt_new(ev, r, pos);
	}
	if (ka == DT_TIMEDELTA && kb == DT_DATETIME && op == TK_ADD)
		return __builtin_add_overflow(x, y, &r) ? dt_new(ev, -1, pos) : dt_new(ev, r, pos);
	if (ka == DT_TIMEDELTA && kb == DT_TIMEDELTA) {
		switch (op) {
		case TK_ADD: return td_checked(ev, __builtin_add_overflow(x, y, &r), &r, pos);
		case TK_SUB: return td_checked(ev, __builtin_sub_overflow(x, y, &r), &r, pos);
		case TK_DIV:
		case TK_FLOORDIV:
		case TK_MOD:
			if (y == -1 && x == LLONG_MIN) { /* the one quotient an int64 cannot hold */
				ev_error(ev, TMPL_ERR_TYPE, pos, "timedelta: value out of range");
				return NULL;
			}
			if (y == 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "integer division or modulo by zero");
				return NULL;
			}
			if (op == TK_DIV)
				return val_real((double)x / (double)y);
			return op == TK_FLOORDIV ? json_integer(floordiv_ll(x, y)) : td_new(fmod_ll(x, y));
		}
	}
	/* timedelta and a number: scaling */
	if ((ka == DT_TIMEDELTA && num_b && op != TK_SUB && op != TK_ADD && op != TK_MOD) ||
	    (kb == DT_TIMEDELTA && num_a && op == TK_MUL)) {
		json_t *n = ka ? b : a;
		long long td = ka ? x : y;
		bool integral = val_is_int(n);
		long long k = integral ? val_int(n) : 0;
		val_num(n, &f);
		if (op == TK_MUL) {
			if (integral)
				return td_checked(ev, __builtin_mul_overflow(td, k, &r), &r, pos);
			return us_from_double(ev, (double)td * f, &r, pos) < 0 ? NULL : td_new(r);
		}
		if (f == 0) {
			ev_error(ev, TMPL_ERR_TYPE, pos, integral ? "integer division or modulo by zero" : "float division by zero");
			return NULL;
		}
		if (integral && k == -1 && td == LLONG_MIN) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "timedelta: value out of range");
			return NULL;
		}
		if (op == TK_FLOORDIV) {
			if (!integral) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported operand type(s) for //: 'datetime.timedelta' and 'float'");
				return NULL;
			}
			return td_new(floordiv_ll(td, k));
		}
		if (integral) { /* Python's _divide_and_round: half to even */
			/* rem has k's sign and |rem| < |k|: k - rem cannot overflow,
			 * where 2 * rem could */
			long long q = floordiv_ll(td, k), rem = fmod_ll(td, k), other = k - rem;
			if ((k > 0 ? rem > other : rem < other) || (rem == other && (q & 1)))
				q++;
			return td_new(q);
		}
		return us_from_double(ev, (double)td / f, &r, pos) < 0 ? NULL : td_new(r);
	}
	ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported operand type(s) for %s: '%s' and '%s'", op_text(op), pytype(a),
		 pytype(b));
	return NULL;
}

/* ---- attributes and methods ---------------------------------------------- */

json_t *dt_attr(struct ev *ev, const json_t *v, const char *name)
{
	if (dt_kind(v) == DT_DATETIME) {
		struct dtf f;
		dt_fields(v, &f);
		const struct { const char *n; long long x; } at[] = {
			{ "year", f.year }, { "month", f.month }, { "day", f.day }, { "hour", f.hour },
			{ "minute", f.minute }, { "second", f.second }, { "microsecond", f.usec },
		};
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
			if (!strcmp(name, at[i].n))
				return json_integer(at[i].x);
		if (!strcmp(name, "tzinfo"))
			return json_null();
		return ev_undef(ev, "'datetime.datetime object' has no attribute '%s'", name);
	}
	long long us = dt_us(v), days = floordiv_ll(us, US_PER_DAY), rest = fmod_ll(us, US_PER_DAY);
	if (!strcmp(name, "days"))
		return json_integer(days);
	if (!strcmp(name, "seconds"))
		return json_integer(rest / 1000000);
	if (!strcmp(name, "microseconds"))
		return json_integer(rest % 1000000);
	return ev_undef(ev, "'datetime.timedelta object' has no attribute '%s'", name);
}

/* datetime.strftime: Python fills in %f (microseconds) and, for a naive
 * value, an empty %z and %Z before the C library's strftime. */
static json_t *dt_strftime(struct ev *ev, const struct dtf *f, const char *fmt, size_t pos)
{
	struct strbuf pre = STRBUF_INIT;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%' || !p[1]) {
			strbuf_addch(&pre, *p);
			continue;
		}
		p++;
		if (*p == 'f')
			strbuf_addf(&pre, "%06d", f->usec);
		else if (*p != 'z' && *p != 'Z')
			strbuf_addf(&pre, "%%%c", *p);
	}
	struct tm tm = {
		.tm_year = (int)(f->year - 1900), .tm_mon = f->month - 1, .tm_mday = f->day,
		.tm_hour = f->hour, .tm_min = f->minute, .tm_sec = f->second,
		.tm_wday = (int)((f->ord % 7 + 7) % 7), /* ordinal 1 (0001-01-01) was a Monday */
		.tm_yday = (int)(f->ord - ymd_to_ord(f->year, 1, 1)), .tm_isdst = -1,
	};
	json_t *r = NULL;
	if (!pre.len) {
		r = json_string("");
		goto out;
	}
	for (size_t cap = 256; cap <= 64 * 1024 + 64 * pre.len; cap *= 4) {
		char *buf = xmalloc(cap);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		size_t n = strftime(buf, cap, pre.buf, &tm); /* the recipe's format is the point */
#pragma GCC diagnostic pop
		if (n > 0) {
			r = json_stringn_nocheck(buf, n);
			free(buf);
			goto out;
		}
		free(buf);
	}
	r = json_string("");
out:
	(void)ev;
	(void)pos;
	strbuf_release(&pre);
	return r;
}

/* Ansible's global now(utc=False, fmt=None): the current time as a naive
 * datetime, local or UTC, or with fmt that datetime's strftime text. */
GLOBAL_FN(now)
{
	json_t *utc = arg_get(args, kw, 0, "utc");
	json_t *fmt = arg_get(args, kw, 1, "fmt");
	if (fmt && !json_is_null(fmt) && !json_is_string(fmt)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "strftime() argument 1 must be str, not %s",
			 val_typename(fmt));
		return NULL;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long secs = (long long)ts.tv_sec;
	if (!(utc && val_truthy(utc))) {
		struct tm tm;
		time_t t = ts.tv_sec;
		localtime_r(&t, &tm);
		secs += tm.tm_gmtoff;
	}
	/* 1970-01-01 is the proleptic ordinal 719163 */
	long long us = (secs + (ymd_to_ord(1970, 1, 1) - MIN_ORD) * 86400LL) * 1000000LL + ts.tv_nsec / 1000;
	json_t *dt = dt_new(ev, us, pos);
	if (!dt || !fmt || !json_is_string(fmt) || !json_string_length(fmt))
		return dt;
	struct dtf f;
	dt_fields(dt, &f);
	json_decref(dt);
	return dt_strftime(ev, &f, json_string_value(fmt), pos);
}

json_t *dt_method(struct ev *ev, const json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known)
{
	*known = true;
	if (dt_kind(self) == DT_TIMEDELTA) {
		if (!strcmp(m, "total_seconds"))
			return val_real((double)dt_us(self) / 1e6);
		*known = false;
		return NULL;
	}
	struct dtf f;
	dt_fields(self, &f);
	if (!strcmp(m, "strftime")) {
		json_t *fmt = arg_get(args, kw, 0, "format");
		if (!json_is_string(fmt)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "strftime() argument 1 must be str, not %s",
				 fmt ? val_typename(fmt) : "nothing");
			return NULL;
		}
		return dt_strftime(ev, &f, json_string_value(fmt), pos);
	}
	if (!strcmp(m, "isoformat")) {
		const char *sep = "T";
		if (arg_str(ev, args, kw, 0, "sep", "T", &sep, pos) < 0)
			return NULL;
		struct strbuf sb = STRBUF_INIT;
		dt_isoformat(&sb, self, sep);
		return val_str_take(&sb);
	}
	if (!strcmp(m, "weekday") || !strcmp(m, "isoweekday"))
		return json_integer((f.ord + 6) % 7 + (m[0] == 'i'));
	if (!strcmp(m, "timestamp")) {
		/* a naive datetime is local time */
		struct tm tm = { .tm_year = (int)(f.year - 1900), .tm_mon = f.month - 1, .tm_mday = f.day,
				 .tm_hour = f.hour, .tm_min = f.minute, .tm_sec = f.second, .tm_isdst = -1 };
		time_t t = mktime(&tm);
		return val_real((double)t + f.usec / 1e6);
	}
	*known = false;
	return NULL;
}

/* ---- to_datetime (Python's datetime.strptime) ----------------------------- */

static const char *const month_names[] = { "january", "february", "march", "april", "may", "june", "july",
					   "august", "september", "october", "november", "december" };
static const char *const day_names[] = { "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
					 "sunday" };

/* Appends Python's regex for one strptime directive (C/English locale, as
 * Debian's controller runs); 1 when the directive is one imc does not
 * parse, -1 when Python does not know it. */
static int directive_re(struct strbuf *re, char c)
{
	switch (c) {
	case 'd': strbuf_addstr(re, "(?P<d>3[0-1]|[1-2]\\d|0[1-9]|[1-9]| [1-9])"); return 0;
	case 'f': strbuf_addstr(re, "(?P<f>[0-9]{1,6})"); return 0;
	case 'H': strbuf_addstr(re, "(?P<H>2[0-3]|[0-1]\\d|\\d)"); return 0;
	case 'I': strbuf_addstr(re, "(?P<I>1[0-2]|0[1-9]|[1-9])"); return 0;
	case 'j': strbuf_addstr(re, "(?P<j>36[0-6]|3[0-5]\\d|[1-2]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0[1-9]|[1-9])"); return 0;
	case 'm': strbuf_addstr(re, "(?P<m>1[0-2]|0[1-9]|[1-9])"); return 0;
	case 'M': strbuf_addstr(re, "(?P<M>[0-5]\\d|\\d)"); return 0;
	case 'S': strbuf_addstr(re, "(?P<S>6[0-1]|[0-5]\\d|\\d)"); return 0;
	case 'w': strbuf_addstr(re, "(?P<w>[0-6])"); return 0;
	case 'u': strbuf_addstr(re, "(?P<u>[1-7])"); return 0;
	case 'y': strbuf_addstr(re, "(?P<y>\\d\\d)"); return 0;
	case 'Y': strbuf_addstr(re, "(?P<Y>\\d\\d\\d\\d)"); return 0;
	case '%': strbuf_addch(re, '%'); return 0;
	case 'p': strbuf_addstr(re, "(?P<p>am|pm)"); return 0;
	case 'A': case 'a': case 'B': case 'b': {
		bool month = c == 'B' || c == 'b', full = c == 'A' || c == 'B';
		const char *const *names = month ? month_names : day_names;
		size_t n = month ? 12 : 7;
		/* Python lists the names longest first; the C locale's are
		 * distinct enough that the order only matters for "may" */
		strbuf_addf(re, "(?P<%c>", c);
		for (int len = 9; len >= 3; len--)
			for (size_t i = 0; i < n; i++) {
				size_t l = full ? strlen(names[i]) : 3;
				if ((int)l == len)
					strbuf_addf(re, "%s%.*s", re->buf[re->len - 1] == '>' ? "" : "|", (int)l, names[i]);
			}
		strbuf_addch(re, ')');
		return 0;
	}
	case 'c': case 'x': case 'X': case 'G': case 'U': case 'V': case 'W': case 'z': case 'Z':
		return 1;
	}
	return -1;
}

/* Python's TimeRE.pattern(): regex characters escaped, each run of
 * whitespace matching \s+, each directive its group. */
static int strptime_regex(struct ev *ev, const char *fmt, struct strbuf *re, size_t pos)
{
	for (const char *p = fmt; *p; p++) {
		if (isspace((unsigned char)*p)) {
			while (isspace((unsigned char)p[1]))
				p++;
			strbuf_addstr(re, "\\s+");
		} else if (*p == '%') {
			if (!p[1]) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "stray %% in format '%s'", fmt);
				return -1;
			}
			p++;
			int rc = directive_re(re, *p);
			if (rc > 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "to_datetime: imc does not parse the '%%%c' directive", *p);
				return -1;
			}
			if (rc < 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "'%c' is a bad directive in format '%s'", *p, fmt);
				return -1;
			}
		} else {
			if (strchr("\\.^$*+?(){}[]|", *p))
				strbuf_addch(re, '\\');
			strbuf_addch(re, *p);
		}
	}
	return 0;
}

static int name_index(const char *const *names, size_t n, const char *s, bool abbr)
{
	for (size_t i = 0; i < n; i++)
		if (abbr ? !strncasecmp(names[i], s, 3) && strlen(s) == 3 : !strcasecmp(names[i], s))
			return (int)i;
	return -1;
}

/* string | to_datetime(format='%Y-%m-%d %H:%M:%S'): datetime.strptime. */
FILTER_FN(to_datetime)
{
	json_t *fj = arg_get(args, kw, 0, "format");
	if (!json_is_string(in) || (fj && !json_is_string(fj))) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "strptime() argument %d must be str, not %s", json_is_string(in) ? 1 : 0,
			 val_typename(json_is_string(in) ? fj : in));
		return NULL;
	}
	const char *fmt = fj ? json_string_value(fj) : "%Y-%m-%d %H:%M:%S", *s = json_string_value(in);
	struct strbuf re = STRBUF_INIT;
	json_t *r = NULL;
	pcre2_match_data *md = NULL;
	if (strptime_regex(ev, fmt, &re, pos) < 0)
		goto out;
	const pcre2_code *code = regex_get(ev, re.buf ? re.buf : "", 1, pos);
	if (!code)
		goto out;
	md = pcre2_match_data_create_from_pattern(code, NULL);
	size_t len = json_string_length(in);
	if (pcre2_match(code, (PCRE2_SPTR)s, len, 0, PCRE2_ANCHORED, md, NULL) < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "time data '%s' does not match format '%s'", s, fmt);
		goto out;
	}
	size_t end = pcre2_get_ovector_pointer(md)[1];
	if (end != len) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "unconverted data remains: %s", s + end);
		goto out;
	}
	long long year = -1;
	int month = 1, day = 1, hour = 0, minute = 0, second = 0, usec = 0, julian = -1;
	char g[2] = { 0, 0 }, val[64];
	for (const char *names = "yYmBbdHIMSfj"; *names; names++) {
		g[0] = *names;
		PCRE2_SIZE vl = sizeof(val);
		if (pcre2_substring_copy_byname(md, (PCRE2_SPTR)g, (PCRE2_UCHAR *)val, &vl) != 0)
			continue;
		long long n = strtoll(val, NULL, 10);
		switch (*names) {
		case 'y': year = n <= 68 ? 2000 + n : 1900 + n; break;
		case 'Y': year = n; break;
		case 'm': month = (int)n; break;
		case 'B': month = name_index(month_names, 12, val, false) + 1; break;
		case 'b': month = name_index(month_names, 12, val, true) + 1; break;
		case 'd': day = (int)n; break;
		case 'H': hour = (int)n; break;
		case 'I': {
			char ap[8];
			PCRE2_SIZE al = sizeof(ap);
			bool pm = pcre2_substring_copy_byname(md, (PCRE2_SPTR)"p", (PCRE2_UCHAR *)ap, &al) == 0 &&
				  tolower((unsigned char)ap[0]) == 'p';
			hour = (int)n;
			if (!pm && hour == 12)
				hour = 0;
			else if (pm && hour != 12)
				hour += 12;
			break;
		}
		case 'M': minute = (int)n; break;
		case 'S': second = (int)n; break;
		case 'f': {
			size_t l = strlen(val);
			usec = (int)n;
			for (; l < 6; l++)
				usec *= 10;
			break;
		}
		case 'j': julian = (int)n; break;
		}
	}
	if (year < 0)
		year = 1900;
	long long ord;
	if (year < 1 || year > 9999) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "year %lld is out of range", year);
		goto out;
	}
	if (julian >= 0) {
		ord = ymd_to_ord(year, 1, 1) + julian - 1;
		if (ord > MAX_ORD) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "year %lld is out of range", year + 1);
			goto out;
		}
	} else {
		if (day > month_days(year, month)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "day is out of range for month");
			goto out;
		}
		ord = ymd_to_ord(year, month, day);
	}
	if (second > 59) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "second must be in 0..59");
		goto out;
	}
	r = dt_new(ev, (ord - 1) * US_PER_DAY + ((hour * 60LL + minute) * 60 + second) * 1000000LL + usec, pos);
out:
	pcre2_match_data_free(md);
	strbuf_release(&re);
	return r;
}
