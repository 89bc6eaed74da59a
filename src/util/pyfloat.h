/* pyfloat.h: Python's text of a float. */
#ifndef IMC_UTIL_PYFLOAT_H
#define IMC_UTIL_PYFLOAT_H

#include "util/strbuf.h"

/* Appends d as Python's repr(float): the shortest digits that round-trip,
 * in fixed notation when the decimal exponent is in [-4, 16), else
 * d.ddde+XX; nan, inf, -inf. */
void py_float_repr(struct strbuf *sb, double d);

#endif
