/* custom-stats.c: set_stats' custom stats as Ansible's strategy gathers
 * them from every result (each loop item's too): data set per host
 * (per_host) or for the run ("_run"); aggregated values merged into what
 * an earlier call set (mappings merged recursively, lists and strings
 * concatenated, numbers added; a value of another type than the one kept
 * is dropped, as AggregateStats.update_custom_stats drops it), others
 * replacing it. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "provision/custom-stats.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* merge_hash (recursive, lists replaced), on copies */
static void merge_into(json_t *dst, json_t *src)
{
	const char *k;
	json_t *v;
	json_object_foreach(src, k, v) {
		json_t *old = json_object_get(dst, k);
		if (json_is_object(old) && json_is_object(v))
			merge_into(old, v);
		else
			json_object_set_new(dst, k, json_deep_copy(v));
	}
}

/* Python's isinstance(what, type(kept)): a bool is an int, not the
 * other way round */
static bool same_kind(json_t *what, json_t *kept)
{
	if (json_is_integer(kept))
		return json_is_integer(what) || json_is_boolean(what);
	if (json_is_boolean(kept))
		return json_is_boolean(what);
	return json_typeof(what) == json_typeof(kept);
}

static void update(json_t *custom, const char *host, const char *key, json_t *what, bool aggregate)
{
	json_t *h = json_object_get(custom, host);
	if (!h) {
		h = json_object();
		json_object_set_new(custom, host, h);
	}
	json_t *kept = json_object_get(h, key);
	if (!aggregate || !kept) {
		json_object_set_new(h, key, json_deep_copy(what));
		return;
	}
	if (!same_kind(what, kept))
		return;
	if (json_is_object(what)) {
		merge_into(kept, what);
	} else if (json_is_array(what)) {
		json_array_extend(kept, what);
	} else if (json_is_string(what)) {
		size_t a = json_string_length(kept), b = json_string_length(what);
		char *s = xmalloc(a + b + 1);
		memcpy(s, json_string_value(kept), a);
		memcpy(s + a, json_string_value(what), b);
		json_object_set_new(h, key, json_stringn(s, a + b));
		free(s);
	} else if (json_is_integer(kept)) {
		json_int_t add = json_is_boolean(what) ? json_is_true(what) : json_integer_value(what);
		json_integer_set(kept, json_integer_value(kept) + add);
	} else if (json_is_real(kept)) {
		json_real_set(kept, json_real_value(kept) + json_real_value(what));
	} else if (json_is_boolean(kept)) {
		/* True + True is 2 in Python */
		json_object_set_new(h, key, json_integer(json_is_true(kept) + json_is_true(what)));
	}
}

static void record_one(json_t *custom, const char *host, json_t *res)
{
	json_t *st = json_object_get(res, "ansible_stats");
	json_t *data = json_object_get(st, "data");
	if (!json_is_object(data))
		return;
	bool aggregate = json_is_true(json_object_get(st, "aggregate"));
	bool per_host = json_is_true(json_object_get(st, "per_host"));
	const char *k;
	json_t *v;
	json_object_foreach(data, k, v)
		update(custom, per_host ? host : "_run", k, v, aggregate);
}

void custom_stats_record(json_t *custom, const char *host, json_t *res)
{
	json_t *items = json_object_get(res, "results");
	if (json_is_array(items)) {
		size_t i;
		json_t *r;
		json_array_foreach(items, i, r)
			record_one(custom, host, r);
	} else {
		record_one(custom, host, res);
	}
}
