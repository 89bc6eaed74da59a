/* value-float.c: the Python floats JSON has no spelling for, NaN and the
 * two infinities, as template values. Templates make them ('nan' | float,
 * 1e308 * 10, 'Infinity' | from_json) and Ansible's tests and filters
 * work on them (is nan, max, to_json writes NaN), so the engine must hold
 * them; jansson's json_real() refuses them, since JSON has none.
 *
 * Such a value is still a jansson real, so every filter that reads a float
 * with json_real_value() computes on it with IEEE arithmetic, as Python
 * does. It is made as a real of 0.0 whose double is then overwritten:
 * jansson's json_real_t is a json_t header followed by the double (so
 * since jansson 2.0). Each use checks that layout on a finite value first
 * and aborts if it differs, rather than write outside the object.
 *
 * jansson's own copies (json_copy, json_deep_copy) of such a real fail,
 * so the engine copies through val_deep_copy(); and such a value never
 * leaves the engine: a result holding one becomes its text, as Ansible's
 * templating makes it ("nan", "[1.0, inf]": neither reads back as a
 * Python literal), in template.c and render.c. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "template/engine.h"
#include "util/banned.h"

struct real_layout {
	json_t json;
	double value;
};

static void set_double(json_t *r, double d)
{
	struct real_layout *p = (struct real_layout *)r;
	p->value = d;
}

/* Whether jansson's reals are laid out as struct real_layout: a real made
 * by jansson reads back through it, and a double written through it reads
 * back through jansson. */
static bool layout_ok(void)
{
	json_t *probe = json_real(1.5);
	bool ok = probe && ((const struct real_layout *)probe)->value == 1.5;
	if (ok) {
		set_double(probe, 2.5);
		ok = json_real_value(probe) == 2.5;
	}
	json_decref(probe);
	return ok;
}

json_t *val_real(double d)
{
	if (isfinite(d))
		return json_real(d);
	if (!layout_ok()) {
		fprintf(stderr, "imc: internal error: jansson's real values are not laid out as expected\n");
		abort();
	}
	json_t *r = json_real(0.0);
	set_double(r, d);
	return r;
}

bool val_nonfinite_contains(const json_t *v)
{
	size_t i;
	const char *k;
	json_t *x;
	if (json_is_real(v))
		return !isfinite(json_real_value(v));
	if (json_is_array(v)) {
		json_array_foreach(jmut(v), i, x)
			if (val_nonfinite_contains(x))
				return true;
	} else if (json_is_object(v)) {
		json_object_foreach(jmut(v), k, x)
			if (val_nonfinite_contains(x))
				return true;
	}
	return false;
}

static json_t *copy_in(const json_t *v)
{
	size_t i;
	const char *k;
	json_t *x;
	if (json_is_real(v))
		return val_real(json_real_value(v));
	if (json_is_array(v)) {
		json_t *r = json_array();
		json_array_foreach(jmut(v), i, x)
			json_array_append_new(r, copy_in(x));
		return r;
	}
	if (json_is_object(v)) {
		json_t *r = json_object();
		json_object_foreach(jmut(v), k, x)
			json_object_set_new(r, k, copy_in(x));
		return r;
	}
	return json_deep_copy(v);
}

json_t *val_deep_copy(const json_t *v)
{
	if (!v)
		return NULL;
	return val_nonfinite_contains(v) ? copy_in(v) : json_deep_copy(v);
}

json_t *val_copy(const json_t *v)
{
	if (json_is_real(v))
		return val_real(json_real_value(v));
	return json_copy(jmut(v));
}
