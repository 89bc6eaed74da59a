/* filters-dict.c: Ansible's filters between dicts and lists of pairs:
 * dict2items, items2dict, items, and combine (recursive, with the
 * list_merge modes). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

FILTER_FN(dict2items)
{
	if (!json_is_object(in))
		return ev_type_error(ev, pos, "dict2items requires a dictionary, got %s instead.", val_typename(in));
	json_t *kn = ARG(0, "key_name"), *vn = ARG(1, "value_name");
	const char *ks = json_is_string(kn) ? json_string_value(kn) : "key";
	const char *vs = json_is_string(vn) ? json_string_value(vn) : "value";
	json_t *r = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(in, k, v)
		json_array_append_new(r, json_pack("{sssO}", ks, k, vs, v));
	return r;
}

FILTER_FN(items2dict)
{
	json_t *kn = ARG(0, "key_name"), *vn = ARG(1, "value_name");
	const char *ks = json_is_string(kn) ? json_string_value(kn) : "key";
	const char *vs = json_is_string(vn) ? json_string_value(vn) : "value";
	if (!json_is_array(in))
		return ev_type_error(ev, pos, "items2dict requires a list, got %s instead.", val_typename(in));
	json_t *r = json_object();
	for (size_t i = 0; i < json_array_size(in); i++) {
		json_t *x = json_array_get(in, i);
		json_t *k = json_object_get(x, ks), *v = json_object_get(x, vs);
		if (!k || !v) {
			json_decref(r);
			ev_error(ev, TMPL_ERR_TYPE, pos, "items2dict requires each dictionary in the list to contain the keys '%s' and '%s'", ks, vs);
			return NULL;
		}
		char *kk = val_to_cstr(k);
		json_object_set(r, kk, v);
		free(kk);
	}
	return r;
}

FILTER_FN(items)
{
	if (!json_is_object(in))
		return ev_type_error(ev, pos, "items: can only get item pairs from a mapping, not %s", val_typename(in));
	json_t *r = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(in, k, v)
		json_array_append_new(r, json_pack("[sO]", k, v));
	return r;
}

static void merge_into(json_t *dst, json_t *src, bool recursive, const char *list_merge)
{
	const char *k;
	json_t *v;
	json_object_foreach(src, k, v) {
		json_t *old = json_object_get(dst, k);
		if (recursive && json_is_object(old) && json_is_object(v)) {
			json_t *c = val_deep_copy(old);
			merge_into(c, v, recursive, list_merge);
			json_object_set_new(dst, k, c);
		} else if (json_is_array(old) && json_is_array(v) && strcmp(list_merge, "replace")) {
			json_t *c = json_array();
			if (!strcmp(list_merge, "keep")) {
				json_array_extend(c, old);
			} else if (!strcmp(list_merge, "append") || !strcmp(list_merge, "append_rp")) {
				json_array_extend(c, old);
				json_array_extend(c, v);
			} else { /* prepend */
				json_array_extend(c, v);
				json_array_extend(c, old);
			}
			json_object_set_new(dst, k, c);
		} else {
			json_object_set(dst, k, v);
		}
	}
}

FILTER_FN(combine)
{
	bool recursive = kw && val_truthy(json_object_get(kw, "recursive"));
	json_t *lm = kw ? json_object_get(kw, "list_merge") : NULL;
	const char *list_merge = json_is_string(lm) ? json_string_value(lm) : "replace";
	json_t *all = json_array();
	if (json_is_array(in))
		json_array_extend(all, in);
	else
		json_array_append(all, in);
	for (size_t i = 0; i < json_array_size(args); i++) {
		json_t *a = json_array_get(args, i);
		if (json_is_array(a))
			json_array_extend(all, a);
		else
			json_array_append(all, a);
	}
	json_t *r = json_object();
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *d = json_array_get(all, i);
		if (!json_is_object(d)) {
			json_decref(all);
			json_decref(r);
			return ev_type_error(ev, pos, "failed to combine variables, expected dicts but got a '%s'", val_typename(d));
		}
		merge_into(r, d, recursive, list_merge);
	}
	json_decref(all);
	return r;
}
