/* filters-math.c: Jinja2's and Ansible's numeric filters: abs, round (with
 * Python's rounding of halves and the common/ceil/floor methods), log, pow
 * and root, with Python's errors for bad operands. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

FILTER_FN(abs)
{
	if (json_is_integer(in) || json_is_boolean(in)) {
		long long x = val_int(in);
		return x == LLONG_MIN ? val_real(-(double)x) : json_integer(x < 0 ? -x : x);
	}
	if (json_is_real(in))
		return val_real(fabs(json_real_value(in)));
	return ev_type_error(ev, pos, "bad operand type for abs(): '%s'", val_typename(in));
}

FILTER_FN(round)
{
	double d;
	if (!val_num(in, &d))
		return ev_type_error(ev, pos, "round: must be a number, not %s", val_typename(in));
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
		return ev_type_error(ev, pos, "method must be common, ceil or floor, not '%s'", m);
	/* Python rounds a float too large to have a fraction to itself */
	if (isfinite(d) && !isfinite(x))
		return val_real(d);
	return val_real(x / f);
}

/* math.pow's verdict on operands that are numbers (finite or not): a NaN
 * from finite ones is "math domain error" (a negative base with a
 * fractional exponent, 0 to a negative power), an infinity from finite
 * ones "math range error"; NULL after recording that error. */
static json_t *math_pow(struct ev *ev, size_t pos, double x, double y, const char *domain_prefix)
{
	double r = pow(x, y);
	bool finite_in = isfinite(x) && isfinite(y);
	if (finite_in && (isnan(r) || (x == 0 && y < 0)))
		return ev_type_error(ev, pos, "%smath domain error", domain_prefix);
	if (finite_in && isinf(r))
		return ev_type_error(ev, pos, "math range error");
	return val_real(r);
}

/* Python's math functions take int, float and bool; anything else is
 * their TypeError, which mathstuff re-raises as "NAME() can only be used
 * on numbers: ..." (false after recording it). */
static bool math_arg(struct ev *ev, size_t pos, const char *fn, const json_t *v, double *out)
{
	if (v && val_num(v, out))
		return true;
	ev_type_error(ev, pos, "%s() can only be used on numbers: must be real number, not %s", fn, val_typename(v));
	return false;
}

FILTER_FN(log)
{
	double d, b = M_E;
	if (!math_arg(ev, pos, "log", in, &d))
		return NULL;
	if (ARG(0, "base") && !math_arg(ev, pos, "log", ARG(0, "base"), &b))
		return NULL;
	if (d <= 0 || b <= 0 || b == 1)
		return ev_type_error(ev, pos, "log: %s", "math domain error");
	return val_real(b == 10 ? log10(d) : log(d) / log(b));
}

FILTER_FN(pow)
{
	double d, e = 0;
	if (!ARG(0, "y"))
		return ev_type_error(ev, pos, "power() missing 1 required positional argument: 'y'");
	if (!math_arg(ev, pos, "pow", in, &d) || !math_arg(ev, pos, "pow", ARG(0, "y"), &e))
		return NULL;
	return math_pow(ev, pos, d, e, "");
}

FILTER_FN(root)
{
	double d, b = 2;
	json_t *jb = ARG(0, "base");
	/* mathstuff: base == 2 (a number) is math.sqrt(x), anything else
	 * math.pow(x, 1.0 / float(base)) */
	bool sqrt_path = !jb || (val_num(jb, &b) && b == 2);
	if (!sqrt_path && !val_num(jb, &b)) {
		if (!json_is_string(jb))
			return ev_type_error(ev, pos,
					     "root() can only be used on numbers: float() argument must be a string or a real number, not '%s'",
					     val_typename(jb));
		if (!val_parse_pyfloat(json_string_value(jb), &b)) {
			struct strbuf sb = STRBUF_INIT;
			val_repr(&sb, jb);
			ev_type_error(ev, pos, "root() can only be used on numbers: could not convert string to float: %s",
				      strbuf_str(&sb));
			strbuf_release(&sb);
			return NULL;
		}
	}
	if (!math_arg(ev, pos, "root", in, &d))
		return NULL;
	if (sqrt_path) {
		if (d < 0)
			return ev_type_error(ev, pos, "root() can only be used on numbers: math domain error");
		return val_real(sqrt(d));
	}
	if (b == 0)
		return ev_type_error(ev, pos, "root() can only be used on numbers: float division by zero");
	return math_pow(ev, pos, d, 1.0 / b, "root() can only be used on numbers: ");
}
