/* filters-sort.c: the filters that order or compare items: sort (stable,
 * case-insensitive by default, by attribute), dictsort, groupby, min, max,
 * unique and the set operations union, intersect, difference and
 * symmetric_difference, which keep first-seen order and Python's hashing
 * (1 == 1.0 == True). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

/* ---- sorting ---------------------------------------------------------- */

struct sortctx {
	bool case_sensitive;
	const char *attr;
	bool failed;
	json_t *a, *b; /* offending pair */
};

static json_t *sort_key(const struct sortctx *c, json_t *v)
{
	json_t *k = c->attr ? val_attr_path(v, c->attr) : v;
	if (!k)
		k = json_null();
	if (!c->case_sensitive && json_is_string(k))
		return val_case_map(k, CASE_LOWER);
	return json_incref(k);
}

static int cmp_keys(struct sortctx *c, json_t *x, json_t *y)
{
	int r = 0;
	if (val_compare(x, y, &r) < 0) {
		if (!c->failed) {
			c->failed = true;
			c->a = x;
			c->b = y;
		}
		return 0;
	}
	return r;
}

/* Stable merge sort of items by keys. */
static void msort(struct sortctx *c, json_t **items, json_t **keys, json_t **ti, json_t **tk, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	msort(c, items, keys, ti, tk, h);
	msort(c, items + h, keys + h, ti, tk, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		if (cmp_keys(c, keys[j], keys[i]) < 0) {
			ti[k] = items[j];
			tk[k++] = keys[j++];
		} else {
			ti[k] = items[i];
			tk[k++] = keys[i++];
		}
	}
	while (i < h) {
		ti[k] = items[i];
		tk[k++] = keys[i++];
	}
	while (j < n) {
		ti[k] = items[j];
		tk[k++] = keys[j++];
	}
	memcpy(items, ti, n * sizeof(*ti));
	memcpy(keys, tk, n * sizeof(*tk));
}

static json_t *do_sort(struct ev *ev, json_t *l, bool reverse, bool cs, const char *attr, size_t pos)
{
	size_t n = json_array_size(l);
	json_t **items = xcalloc(n + 1, sizeof(json_t *)), **keys = xcalloc(n + 1, sizeof(json_t *));
	json_t **ti = xcalloc(n + 1, sizeof(json_t *)), **tk = xcalloc(n + 1, sizeof(json_t *));
	struct sortctx c = { .case_sensitive = cs, .attr = attr };
	for (size_t i = 0; i < n; i++) {
		items[i] = json_array_get(l, i);
		keys[i] = sort_key(&c, items[i]);
	}
	if (reverse) {
		/* Python's reverse=True keeps stability: reverse, sort, reverse */
		for (size_t i = 0; i < n / 2; i++) {
			json_t *t = items[i]; items[i] = items[n - 1 - i]; items[n - 1 - i] = t;
			t = keys[i]; keys[i] = keys[n - 1 - i]; keys[n - 1 - i] = t;
		}
	}
	msort(&c, items, keys, ti, tk, n);
	json_t *r = NULL;
	if (c.failed) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'<' not supported between instances of '%s' and '%s'", val_typename(c.a),
			 val_typename(c.b));
	} else {
		r = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append(r, items[reverse ? n - 1 - i : i]);
	}
	for (size_t i = 0; i < n; i++)
		json_decref(keys[i]);
	free(items);
	free(keys);
	free(ti);
	free(tk);
	return r;
}

/* Jinja2's groupby(attribute, default=None, case_sensitive=False): the items
 * sorted by the attribute, then [grouper, items] for each run of equal
 * keys (Ansible prints the group tuples as lists). Without case
 * sensitivity strings compare lowercased and the grouper is the first
 * item's own value. */
FILTER_FN(groupby)
{
	json_t *aj = ARG(0, "attribute"), *dflt = ARG(1, "default"), *cs = ARG(2, "case_sensitive");
	if (!aj || (!json_is_string(aj) && !json_is_integer(aj)))
		return ev_type_error(ev, pos, "groupby: %s", "the attribute must be a string or an integer");
	char *attr = val_to_cstr(aj);
	json_t *l = ev_need_list(ev, in, "groupby", pos), *r = NULL;
	if (!l)
		goto out;
	bool sens = cs && val_truthy(cs);
	/* a missing attribute takes the default, else it stays undefined,
	 * which Jinja cannot order: an error */
	json_t *keyed = json_array();
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i), *k = val_attr_path(x, attr);
		if (!k && (!dflt || json_is_null(dflt))) {
			json_decref(keyed);
			ev_type_error(ev, pos, "groupby: %s", "an item has no such attribute and no default was given");
			goto out;
		}
		json_array_append_new(keyed, json_pack("[OO]", k ? k : dflt, x));
	}
	json_t *sorted = do_sort(ev, keyed, false, sens, "0", pos);
	json_decref(keyed);
	if (!sorted)
		goto out;
	r = json_array();
	json_t *group = NULL, *gkey = NULL;
	for (size_t i = 0; i < json_array_size(sorted); i++) {
		json_t *k = json_array_get(json_array_get(sorted, i), 0), *x = json_array_get(json_array_get(sorted, i), 1);
		json_t *kk = !sens && json_is_string(k) ? val_case_map(k, CASE_LOWER) : json_incref(k);
		if (!group || !val_equal(kk, gkey)) {
			group = json_array();
			json_array_append_new(r, json_pack("[Oo]", k, group));
			json_decref(gkey);
			gkey = json_incref(kk);
		}
		json_array_append(group, x);
		json_decref(kk);
	}
	json_decref(gkey);
	json_decref(sorted);
out:
	json_decref(l);
	free(attr);
	return r;
}

FILTER_FN(sort)
{
	json_t *l = ev_need_list(ev, in, "sort", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(2, "attribute");
	json_t *r = do_sort(ev, l, val_truthy(ARG(0, "reverse")), val_truthy(ARG(1, "case_sensitive")),
			    json_is_string(attr) ? json_string_value(attr) : NULL, pos);
	json_decref(l);
	return r;
}

FILTER_FN(dictsort)
{
	if (!json_is_object(in))
		return ev_type_error(ev, pos, "dictsort: expected a dict, got %s", val_typename(in));
	json_t *pairs = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(in, k, v)
		json_array_append_new(pairs, json_pack("[sO]", k, v));
	json_t *by = ARG(1, "by");
	bool byval = json_is_string(by) && !strcmp(json_string_value(by), "value");
	json_t *r = do_sort(ev, pairs, val_truthy(ARG(2, "reverse")), val_truthy(ARG(0, "case_sensitive")),
			    byval ? "1" : "0", pos);
	json_decref(pairs);
	return r;
}

/* The first of each run of equal items, in order: Ansible's own unique
 * loop (`if x not in c`), which Jinja2's case-sensitive unique also gives
 * when every item hashes; a set for the items Python hashes, a linear
 * scan for the others (a dict never equals a string or a number). */
static json_t *uniq(json_t *l)
{
	json_t *r = json_array();
	json_t *seen = json_array();
	json_t *set = json_object();
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		char *hk = val_hash_key(x);
		bool dup = false;
		if (hk) {
			dup = json_object_get(set, hk) != NULL;
			if (!dup)
				json_object_set_new(set, hk, json_true());
			free(hk);
		} else {
			for (size_t j = 0; j < json_array_size(seen) && !dup; j++)
				dup = val_equal(json_array_get(seen, j), x);
			if (!dup)
				json_array_append(seen, x);
		}
		if (!dup)
			json_array_append(r, x);
	}
	json_decref(seen);
	json_decref(set);
	return r;
}

/* Membership through a hash set when the list is big. */
struct memberset {
	json_t *set;
	json_t *list;
};

static void memberset_init(struct memberset *m, json_t *l)
{
	m->list = l;
	m->set = json_object();
	for (size_t i = 0; i < json_array_size(l); i++) {
		char *k = val_hash_key(json_array_get(l, i));
		if (k)
			json_object_set_new(m->set, k, json_true());
		free(k);
	}
}

static bool memberset_has(struct memberset *m, json_t *v)
{
	char *k = val_hash_key(v);
	if (k) {
		bool r = json_object_get(m->set, k) != NULL;
		free(k);
		return r;
	}
	bool f = false;
	val_contains(m->list, v, &f);
	return f;
}

/* Jinja2's reason for an item that lacks the dotted attribute: the
 * Undefined of the first part missing, named after the object it was
 * looked up in. */
static void missing_attr(json_t *x, const char *attr, char *why, size_t whylen)
{
	char *parts = xstrdup(attr), *save = NULL;
	json_t *cur = x;
	for (char *p = strtok_r(parts, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
		json_t *next = val_attr_path(cur, p);
		if (!next) {
			snprintf(why, whylen, "'%s object' has no attribute '%s'", val_typename(cur), p);
			break;
		}
		cur = next;
	}
	free(parts);
}

/* Jinja2's unique (do_unique): the first item of each key, the key being
 * the item or its attribute, lowered unless case_sensitive, kept in a
 * Python set. NULL, with Python's reason in why, when a key cannot be
 * hashed (a list or dict: TypeError) or an item lacks the attribute
 * (hashing the Undefined fails). */
static json_t *uniq_jinja(json_t *l, bool cs, const char *attr, char *why, size_t whylen)
{
	json_t *r = json_array();
	json_t *set = json_object();
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		json_t *k = attr ? val_attr_path(x, attr) : x;
		if (!k) {
			missing_attr(x, attr, why, whylen);
			goto fail;
		}
		k = !cs && json_is_string(k) ? val_case_map(k, CASE_LOWER) : json_incref(k);
		char *hk = val_hash_key(k);
		if (!hk) {
			snprintf(why, whylen, "unhashable type: '%s'", val_typename(k));
			json_decref(k);
			goto fail;
		}
		if (!json_object_get(set, hk)) {
			json_object_set_new(set, hk, json_true());
			json_array_append(r, x);
		}
		free(hk);
		json_decref(k);
	}
	json_decref(set);
	return r;
fail:
	json_decref(set);
	json_decref(r);
	return NULL;
}

/* Ansible's unique (mathstuff.py): Jinja2's; when that fails, its own
 * first-seen loop by equality, case-sensitive, unless case_sensitive is
 * False or an attribute is given, which that loop cannot honour: then the
 * filter fails with Jinja2's reason. */
FILTER_FN(unique)
{
	json_t *l = ev_need_list(ev, in, "unique", pos);
	if (!l)
		return NULL;
	json_t *cs = ARG(0, "case_sensitive"), *attr = ARG(1, "attribute");
	char *astr = attr && !json_is_null(attr) ? val_to_cstr(attr) : NULL;
	char why[256];
	json_t *r = uniq_jinja(l, cs && val_truthy(cs), astr, why, sizeof(why));
	if (!r && ((cs && json_is_false(cs)) || (attr && val_truthy(attr))))
		ev_error(ev, TMPL_ERR_FILTER, pos,
			 "Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied. %s",
			 why);
	else if (!r)
		r = uniq(l);
	free(astr);
	json_decref(l);
	return r;
}

static json_t *setop(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, int op)
{
	json_t *a = ev_need_list(ev, in, "set operation", pos);
	json_t *b = a ? ev_need_list(ev, ARG(0, "b") ? ARG(0, "b") : json_null(), "set operation", pos) : NULL;
	if (!b) {
		json_decref(a);
		return NULL;
	}
	json_t *tmp = json_array(), *r;
	struct memberset ma, mb;
	memberset_init(&ma, a);
	memberset_init(&mb, b);
	switch (op) {
	case 0: /* union */
		json_array_extend(tmp, a);
		json_array_extend(tmp, b);
		break;
	case 1: /* intersect */
	case 2: /* difference */
		for (size_t i = 0; i < json_array_size(a); i++)
			if (memberset_has(&mb, json_array_get(a, i)) == (op == 1))
				json_array_append(tmp, json_array_get(a, i));
		break;
	default: /* symmetric difference */
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!memberset_has(&mb, json_array_get(a, i)))
				json_array_append(tmp, json_array_get(a, i));
		for (size_t i = 0; i < json_array_size(b); i++)
			if (!memberset_has(&ma, json_array_get(b, i)))
				json_array_append(tmp, json_array_get(b, i));
	}
	json_decref(ma.set);
	json_decref(mb.set);
	r = uniq(tmp);
	json_decref(tmp);
	json_decref(a);
	json_decref(b);
	return r;
}

FILTER_FN(union) { return setop(ev, in, args, kw, pos, 0); }

FILTER_FN(intersect) { return setop(ev, in, args, kw, pos, 1); }

FILTER_FN(difference) { return setop(ev, in, args, kw, pos, 2); }

FILTER_FN(symmetric_difference) { return setop(ev, in, args, kw, pos, 3); }

static json_t *minmax(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool max)
{
	json_t *l = ev_need_list(ev, in, max ? "max" : "min", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(1, "attribute");
	struct sortctx c = { .case_sensitive = val_truthy(ARG(0, "case_sensitive")),
			     .attr = json_is_string(attr) ? json_string_value(attr) : NULL };
	json_t *best = NULL, *bk = NULL;
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		json_t *k = sort_key(&c, x);
		int cmp = bk ? cmp_keys(&c, k, bk) : 0;
		if (!bk || (max ? cmp > 0 : cmp < 0)) {
			json_decref(bk);
			bk = k;
			best = x;
		} else {
			json_decref(k);
		}
	}
	json_decref(bk);
	json_t *r = best ? json_incref(best) : NULL;
	json_decref(l);
	if (c.failed) {
		json_decref(r);
		ev_error(ev, TMPL_ERR_TYPE, pos, "'<' not supported between instances of '%s' and '%s'", val_typename(c.a),
			 val_typename(c.b));
		return NULL;
	}
	if (!r)
		return ev_undef(ev, "No aggregated item, sequence was empty.");
	return r;
}

FILTER_FN(min) { return minmax(ev, in, args, kw, pos, false); }

FILTER_FN(max) { return minmax(ev, in, args, kw, pos, true); }
