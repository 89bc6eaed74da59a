/* pyfloat.c: a float as Python prints it (repr and str are the same for
 * floats): templates render their values so, and `imc serve` writes the
 * CSV IM's server writes with Python. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/pyfloat.h"
#include "util/banned.h"

void py_float_repr(struct strbuf *sb, double d)
{
	if (isnan(d)) {
		strbuf_addstr(sb, "nan");
		return;
	}
	if (isinf(d)) {
		strbuf_addstr(sb, d < 0 ? "-inf" : "inf");
		return;
	}
	char buf[64];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* buf: [-]D[.DDD]e[+-]XX */
	char digits[32];
	size_t nd = 0;
	const char *p = buf;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p != '.' && nd < sizeof(digits) - 1)
			digits[nd++] = *p;
	digits[nd] = 0;
	int exp = (int)strtol(p + 1, NULL, 10);
	/* strip trailing zeros */
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = 0;
	if (neg)
		strbuf_addch(sb, '-');
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			strbuf_addstr(sb, "0.");
			for (int i = -1; i > exp; i--)
				strbuf_addch(sb, '0');
			strbuf_addstr(sb, digits);
		} else {
			for (int i = 0; i <= exp; i++)
				strbuf_addch(sb, (size_t)i < nd ? digits[i] : '0');
			strbuf_addch(sb, '.');
			if ((size_t)exp + 1 < nd)
				strbuf_addstr(sb, digits + exp + 1);
			else
				strbuf_addch(sb, '0');
		}
	} else {
		strbuf_addch(sb, digits[0]);
		if (nd > 1) {
			strbuf_addch(sb, '.');
			strbuf_addstr(sb, digits + 1);
		}
		strbuf_addf(sb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	}
}
