/* value-datetime.c: the two Python values that to_datetime brings into
 * templates, datetime.datetime and datetime.timedelta, as values: which
 * JSON objects are one, the proleptic Gregorian calendar, printing (str,
 * repr, isoformat), truth and ordering, which expr-value.c applies to them.
 * Arithmetic, attributes and methods, which report errors, are in
 * filters-datetime.c with to_datetime. Each result is what Python 3.11
 * gives under ansible-core 2.14 on Debian 12;
 * tests/unit/test-template-cases.json holds the checks against its Templar.
 *
 * A datetime is naive (no time zone), microseconds since 0001-01-01
 * 00:00:00 in the proleptic Gregorian calendar (years 1 to 9999), carried
 * as a JSON object with one reserved key (DT_KEY / TD_KEY). A timedelta is
 * a signed count of microseconds; Python's larger range (999999999 days) is
 * cut to what an int64 holds (292,000 years). */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "template/datetime.h"
#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- the values ----------------------------------------------------------- */

int dt_kind(const json_t *v)
{
	if (!json_is_object(v) || json_object_size(v) != 1)
		return DT_NONE;
	if (json_is_integer(json_object_get(v, DT_KEY)))
		return DT_DATETIME;
	if (json_is_integer(json_object_get(v, TD_KEY)))
		return DT_TIMEDELTA;
	return DT_NONE;
}

long long dt_us(const json_t *v)
{
	json_t *x = json_object_get(v, dt_kind(v) == DT_DATETIME ? DT_KEY : TD_KEY);
	return json_integer_value(x);
}

json_t *td_new(long long us) { return json_pack("{sI}", TD_KEY, (json_int_t)us); }

json_t *tmpl_datetime(const struct tm *tm, int usec)
{
	long long ord = ymd_to_ord(tm->tm_year + 1900LL, tm->tm_mon + 1, tm->tm_mday);
	if (ord < MIN_ORD || ord > MAX_ORD || usec < 0 || usec > 999999)
		return NULL;
	long long us = (ord - 1) * US_PER_DAY +
		       ((tm->tm_hour * 60LL + tm->tm_min) * 60 + tm->tm_sec) * 1000000LL + usec;
	return json_pack("{sI}", DT_KEY, (json_int_t)us);
}

bool dt_contains(const json_t *v)
{
	size_t i;
	const char *k;
	json_t *x;
	if (dt_kind(v))
		return true;
	if (json_is_array(v)) {
		json_array_foreach(jmut(v), i, x)
			if (dt_contains(x))
				return true;
	} else if (json_is_object(v)) {
		json_object_foreach(jmut(v), k, x)
			if (dt_contains(x))
				return true;
	}
	return false;
}

/* ---- calendar ------------------------------------------------------------- */

static bool is_leap(long long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int month_days(long long y, int m)
{
	static const int md[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return m == 2 && is_leap(y) ? 29 : md[m - 1];
}

/* date(y, m, d).toordinal(): days before the year, the month, plus d. */
long long ymd_to_ord(long long y, int m, int d)
{
	long long py = y - 1;
	long long days = py * 365 + py / 4 - py / 100 + py / 400;
	for (int k = 1; k < m; k++)
		days += month_days(y, k);
	return days + d;
}

static void ord_to_ymd(long long ord, long long *y, int *m, int *d)
{
	long long n = ord - 1;
	long long n400 = n / 146097, r = n % 146097;
	long long n100 = r / 36524;
	r %= 36524;
	long long n4 = r / 1461;
	r %= 1461;
	long long n1 = r / 365;
	r %= 365;
	*y = n400 * 400 + n100 * 100 + n4 * 4 + n1 + 1;
	if (n1 == 4 || n100 == 4) { /* the last day of a leap cycle */
		*y -= 1;
		*m = 12;
		*d = 31;
		return;
	}
	int mm = 1;
	while (r >= month_days(*y, mm)) {
		r -= month_days(*y, mm);
		mm++;
	}
	*m = mm;
	*d = (int)r + 1;
}

void dt_fields(const json_t *v, struct dtf *f)
{
	long long us = dt_us(v);
	f->ord = us / US_PER_DAY + 1;
	long long t = us % US_PER_DAY;
	ord_to_ymd(f->ord, &f->year, &f->month, &f->day);
	f->usec = (int)(t % 1000000);
	t /= 1000000;
	f->second = (int)(t % 60);
	f->minute = (int)(t / 60 % 60);
	f->hour = (int)(t / 3600);
}

/* floor division and its remainder (Python's divmod for ints) */
long long floordiv_ll(long long a, long long b)
{
	long long q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

long long fmod_ll(long long a, long long b) { return a - floordiv_ll(a, b) * b; }

/* ---- printing ------------------------------------------------------------- */

void dt_print(struct strbuf *sb, const json_t *v, bool repr)
{
	if (dt_kind(v) == DT_DATETIME) {
		struct dtf f;
		dt_fields(v, &f);
		if (repr) {
			strbuf_addf(sb, "datetime.datetime(%lld, %d, %d, %d, %d", f.year, f.month, f.day, f.hour, f.minute);
			if (f.second || f.usec)
				strbuf_addf(sb, ", %d", f.second);
			if (f.usec)
				strbuf_addf(sb, ", %d", f.usec);
			strbuf_addch(sb, ')');
			return;
		}
		strbuf_addf(sb, "%04lld-%02d-%02d %02d:%02d:%02d", f.year, f.month, f.day, f.hour, f.minute, f.second);
		if (f.usec)
			strbuf_addf(sb, ".%06d", f.usec);
		return;
	}
	long long us = dt_us(v);
	long long days = floordiv_ll(us, US_PER_DAY), rest = fmod_ll(us, US_PER_DAY);
	long long secs = rest / 1000000, usec = rest % 1000000;
	if (repr) {
		if (!days && !secs && !usec) {
			strbuf_addstr(sb, "datetime.timedelta(0)");
			return;
		}
		strbuf_addstr(sb, "datetime.timedelta(");
		const char *sep = "";
		if (days) {
			strbuf_addf(sb, "days=%lld", days);
			sep = ", ";
		}
		if (secs) {
			strbuf_addf(sb, "%sseconds=%lld", sep, secs);
			sep = ", ";
		}
		if (usec)
			strbuf_addf(sb, "%smicroseconds=%lld", sep, usec);
		strbuf_addch(sb, ')');
		return;
	}
	if (days)
		strbuf_addf(sb, "%lld day%s, ", days, days == 1 || days == -1 ? "" : "s");
	strbuf_addf(sb, "%lld:%02lld:%02lld", secs / 3600, secs / 60 % 60, secs % 60);
	if (usec)
		strbuf_addf(sb, ".%06lld", usec);
}

void dt_isoformat(struct strbuf *sb, const json_t *v, const char *sep)
{
	struct dtf f;
	dt_fields(v, &f);
	strbuf_addf(sb, "%04lld-%02d-%02d%s%02d:%02d:%02d", f.year, f.month, f.day, sep, f.hour, f.minute, f.second);
	if (f.usec)
		strbuf_addf(sb, ".%06d", f.usec);
}

const char *dt_typename(const json_t *v)
{
	return dt_kind(v) == DT_DATETIME ? "datetime" : "timedelta";
}

bool dt_truthy(const json_t *v)
{
	return dt_kind(v) == DT_DATETIME || dt_us(v) != 0;
}

int dt_compare(const json_t *a, const json_t *b, int *cmp)
{
	int ka = dt_kind(a), kb = dt_kind(b);
	if (!ka || ka != kb)
		return -1;
	long long x = dt_us(a), y = dt_us(b);
	*cmp = x < y ? -1 : x > y;
	return 0;
}

