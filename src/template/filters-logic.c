/* filters-logic.c: the filters about definedness, truth and types: default
 * (only for undefined, unless its second argument), mandatory, ternary,
 * the conversions bool ('yes'/'on'/'1'), int (bad text is 0, Python's
 * int() literals with a base), float and string, type_debug, and the
 * result tests used as filters (`result|success`), as Ansible's filters
 * of the same names do. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

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

/* Python's float() of a text: surrounding whitespace, a sign, then 'inf',
 * 'infinity' or 'nan' in any case, or decimal digits (an underscore only
 * between two digits) with a point and an exponent; strtod alone would
 * also take hexadecimal and 'nan(...)', which Python refuses. */
bool val_parse_pyfloat(const char *s, double *out)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	const char *p = s;
	bool neg = false;
	if (n && (*p == '+' || *p == '-')) {
		neg = *p++ == '-';
		n--;
	}
	if ((n == 3 && !strncasecmp(p, "inf", 3)) || (n == 8 && !strncasecmp(p, "infinity", 8))) {
		*out = neg ? -INFINITY : INFINITY;
		return true;
	}
	if (n == 3 && !strncasecmp(p, "nan", 3)) {
		*out = NAN;
		return true;
	}
	if (!n || !(isdigit((unsigned char)*p) || *p == '.'))
		return false;
	char *buf = xmalloc(n + 1);
	size_t k = 0;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		char c = p[i];
		if (c == '_')
			ok = i > 0 && isdigit((unsigned char)p[i - 1]) && i + 1 < n && isdigit((unsigned char)p[i + 1]);
		else if (isdigit((unsigned char)c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
			buf[k++] = c;
		else
			ok = false;
	}
	buf[k] = 0;
	char *end;
	double d = ok ? strtod(buf, &end) : 0;
	ok = ok && end == buf + k;
	free(buf);
	if (ok)
		*out = neg ? -d : d;
	return ok;
}

/* Python's int() of an infinite float (either sign): an OverflowError,
 * which Ansible's int filter does not catch (a NaN is a ValueError, which
 * gives the default). */
static json_t *int_overflow(struct ev *ev, size_t pos)
{
	ev_error(ev, TMPL_ERR_TYPE, pos, "cannot convert float infinity to integer");
	return NULL;
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
		if (isinf(d))
			return int_overflow(ev, pos);
		if (isfinite(d) && fabs(d) < 9.2e18)
			return json_integer((long long)d);
	}
	if (json_is_string(in)) {
		const char *s = json_string_value(in);
		if (parse_pyint(s, base, &v))
			return json_integer(v);
		if (val_parse_pyfloat(s, &d) && isinf(d))
			return int_overflow(ev, pos);
		if (val_parse_pyfloat(s, &d) && isfinite(d) && fabs(d) < 9.2e18)
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
		return val_real(d);
	}
	if (json_is_string(in) && val_parse_pyfloat(json_string_value(in), &d))
		return val_real(d);
	return dflt ? json_incref(dflt) : val_real(0.0);
}

FILTER_FN(string) { return val_pystr(in); }

FILTER_FN(ternary)
{
	json_t *t = ARG(0, "true_val"), *f = ARG(1, "false_val"), *nv = ARG(2, "none_val");
	if (json_is_null(in) && nv)
		return json_incref(nv);
	json_t *r = val_truthy(in) ? t : f;
	return json_incref(r ? r : json_null());
}

FILTER_FN(type_debug)
{
	(void)ev; (void)args; (void)kw; (void)pos;
	return json_string(val_typename(in));
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
