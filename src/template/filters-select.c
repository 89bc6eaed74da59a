/* filters-select.c: the filters that apply another filter, a test or an
 * attribute to each item: map (a filter by name, or attribute='a.b'),
 * select/reject (a test by name), selectattr/rejectattr, attr and extract.
 * They reach the filter or test through the runtime (ev_call_filter,
 * ev_call_test), never by symbol. */
#include "config.h"

#include <stdlib.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

FILTER_FN(map)
{
	json_t *l = ev_need_list(ev, in, "map", pos);
	if (!l)
		return NULL;
	json_t *attr = kw ? json_object_get(kw, "attribute") : NULL;
	json_t *r = json_array();
	if (attr) {
		json_t *dflt = json_object_get(kw, "default");
		char *ap = val_to_cstr(attr);
		for (size_t i = 0; i < json_array_size(l); i++) {
			json_t *x = val_attr_path(json_array_get(l, i), ap);
			if (!x && dflt)
				x = dflt;
			if (!x) {
				ev_error(ev, TMPL_ERR_UNDEFINED, pos, "%s has no attribute '%s'",
					 json_is_object(json_array_get(l, i)) ? "'dict object'" : "object", ap);
				json_decref(r);
				r = NULL;
				break;
			}
			json_array_append(r, x);
		}
		free(ap);
	} else {
		json_t *fname = json_array_get(args, 0);
		if (!json_is_string(fname)) {
			json_decref(l);
			json_decref(r);
			return ev_type_error(ev, pos, "map: %s", "expected a filter name or attribute=");
		}
		json_t *rest = json_array();
		for (size_t i = 1; i < json_array_size(args); i++)
			json_array_append(rest, json_array_get(args, i));
		json_t *kw2 = NULL;
		if (kw) {
			kw2 = val_copy(kw);
		}
		for (size_t i = 0; i < json_array_size(l); i++) {
			json_t *x = ev_call_filter(ev, json_string_value(fname), json_array_get(l, i), rest, kw2, pos);
			if (!x && ev->failed) {
				json_decref(r);
				r = NULL;
				break;
			}
			/* an undefined item (extract of a missing key) stays in the
			 * list, as Jinja keeps its Undefined: we have only None */
			json_array_append_new(r, x ? x : json_null());
		}
		json_decref(rest);
		json_decref(kw2);
	}
	json_decref(l);
	return r;
}

/* select/reject/selectattr/rejectattr */
static json_t *selectx(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool keep, bool byattr)
{
	json_t *l = ev_need_list(ev, in, "select", pos);
	if (!l)
		return NULL;
	size_t ai = 0;
	const char *attr = NULL;
	if (byattr) {
		json_t *a = json_array_get(args, ai++);
		if (!json_is_string(a)) {
			json_decref(l);
			return ev_type_error(ev, pos, "selectattr: %s", "missing attribute name");
		}
		attr = json_string_value(a);
	}
	json_t *tn = json_array_get(args, ai++);
	json_t *rest = json_array();
	for (size_t i = ai; i < json_array_size(args); i++)
		json_array_append(rest, json_array_get(args, i));
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		json_t *v = attr ? val_attr_path(x, attr) : x;
		bool res;
		if (json_is_string(tn)) {
			if (ev_call_test(ev, json_string_value(tn), v, rest, NULL, pos, &res) < 0) {
				json_decref(r);
				r = NULL;
				break;
			}
		} else {
			if (!v && attr) {
				ev_error(ev, TMPL_ERR_UNDEFINED, pos, "'dict object' has no attribute '%s'", attr);
				json_decref(r);
				r = NULL;
				break;
			}
			res = val_truthy(v);
		}
		if (res == keep)
			json_array_append(r, x);
	}
	json_decref(rest);
	json_decref(l);
	return r;
}

FILTER_FN(select) { return selectx(ev, in, args, kw, pos, true, false); }

FILTER_FN(reject) { return selectx(ev, in, args, kw, pos, false, false); }

FILTER_FN(selectattr) { return selectx(ev, in, args, kw, pos, true, true); }

FILTER_FN(rejectattr) { return selectx(ev, in, args, kw, pos, false, true); }

FILTER_FN(attr)
{
	json_t *n = ARG(0, "name");
	char *s = val_to_cstr(n);
	json_t *r = json_is_object(in) ? json_object_get(in, s) : NULL;
	if (!r)
		ev_undef(ev, "%s has no attribute '%s'", json_is_object(in) ? "'dict object'" : "object", s);
	free(s);
	return r ? json_incref(r) : NULL;
}

FILTER_FN(extract)
{
	json_t *cont = ARG(0, "container");
	json_t *more = ARG(1, "morekeys");
	if (!cont)
		return ev_type_error(ev, pos, "extract: %s", "missing container");
	json_t *cur = NULL;
	json_t *keys = json_array();
	json_array_append(keys, in);
	if (json_is_array(more))
		json_array_extend(keys, more);
	else if (more && !json_is_null(more))
		json_array_append(keys, more);
	cur = json_incref(cont);
	for (size_t i = 0; i < json_array_size(keys) && cur; i++) {
		json_t *k = json_array_get(keys, i);
		json_t *next = NULL;
		if (json_is_object(cur)) {
			char *ks = val_to_cstr(k);
			next = json_object_get(cur, ks);
			if (!next)
				ev_undef(ev, "'dict object' has no attribute '%s'", ks);
			free(ks);
		} else if (json_is_array(cur) && json_is_integer(k)) {
			long long ix = json_integer_value(k);
			if (ix < 0)
				ix += (long long)json_array_size(cur);
			next = ix >= 0 ? json_array_get(cur, (size_t)ix) : NULL;
			if (!next)
				ev_undef(ev, "list object has no element %lld", json_integer_value(k));
		} else {
			ev_undef(ev, "'%s object' has no attribute", val_typename(cur));
		}
		json_decref(cur);
		cur = next ? json_incref(next) : NULL;
	}
	json_decref(keys);
	return cur; /* NULL: undefined, the reason in ev->undef */
}
