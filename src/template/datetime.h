/* datetime.h: the representation of datetime and timedelta values, shared
 * by value-datetime.c (the values) and filters-datetime.c (arithmetic,
 * attributes, methods, to_datetime); for these two files only. */
#ifndef IMC_TEMPLATE_DATETIME_H
#define IMC_TEMPLATE_DATETIME_H

#include <stdbool.h>

#include <jansson.h>

#define DT_KEY "\x01imc.datetime"
#define TD_KEY "\x01imc.timedelta"
#define US_PER_DAY 86400000000LL
#define MIN_ORD 1LL        /* date(1, 1, 1).toordinal() */
#define MAX_ORD 3652059LL  /* date(9999, 12, 31).toordinal() */

/* A datetime's fields (ord: the day's proleptic ordinal, 1 = 0001-01-01). */
struct dtf {
	long long year;
	int month, day, hour, minute, second, usec;
	long long ord;
};

/* The microseconds a datetime or timedelta holds. */
long long dt_us(const json_t *v);
/* A timedelta of us microseconds (new reference). */
json_t *td_new(long long us);
int month_days(long long y, int m);
long long ymd_to_ord(long long y, int m, int d);
void dt_fields(const json_t *v, struct dtf *f);
/* Python's // and % on integers (floor, the sign of the divisor). */
long long floordiv_ll(long long a, long long b);
long long fmod_ll(long long a, long long b);

#endif
