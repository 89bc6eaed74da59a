/* filters-list.c: Jinja2's and Ansible's filters over one list: length,
 * join, list, first, last, reverse, batch, slice, flatten, zip and
 * zip_longest, product, subelements, random, shuffle and sum, with
 * Python's iteration (a string is its characters, a dict its keys). */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "template/engine.h"
#include "util/pyrandom.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

FILTER_FN(length)
{
	if (json_is_string(in))
		return json_integer((json_int_t)utf8_len(json_string_value(in), json_string_length(in)));
	if (json_is_array(in))
		return json_integer((json_int_t)json_array_size(in));
	if (json_is_object(in))
		return json_integer((json_int_t)json_object_size(in));
	return ev_type_error(ev, pos, "object of type '%s' has no len()", val_typename(in));
}

FILTER_FN(join)
{
	json_t *sep = ARG(0, "d");
	json_t *attr = ARG(1, "attribute");
	json_t *l = ev_need_list(ev, in, "join", pos);
	if (!l)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_array_size(l); i++) {
		if (i && sep)
			val_str(&sb, sep);
		json_t *x = json_array_get(l, i);
		if (json_is_string(attr)) {
			x = val_attr_path(x, json_string_value(attr));
			if (!x) {
				json_decref(l);
				strbuf_release(&sb);
				ev_error(ev, TMPL_ERR_UNDEFINED, pos, "join: item has no attribute '%s'", json_string_value(attr));
				return NULL;
			}
		}
		val_str(&sb, x);
	}
	json_decref(l);
	return val_str_take(&sb);
}

FILTER_FN(list) { return ev_need_list(ev, in, "list", pos); }

static json_t *first_last(struct ev *ev, json_t *in, bool last, size_t pos)
{
	json_t *l = ev_need_list(ev, in, last ? "last" : "first", pos);
	if (!l)
		return NULL;
	size_t n = json_array_size(l);
	json_t *r = n ? json_incref(json_array_get(l, last ? n - 1 : 0)) : NULL;
	json_decref(l);
	if (!r)
		return ev_undef(ev, "No %s item, sequence was empty.", last ? "last" : "first");
	return r;
}

FILTER_FN(first) { return first_last(ev, in, false, pos); }

FILTER_FN(last) { return first_last(ev, in, true, pos); }

FILTER_FN(sum)
{
	json_t *l = ev_need_list(ev, in, "sum", pos);
	if (!l)
		return NULL;
	json_t *attr = ARG(0, "attribute");
	json_t *start = ARG(1, "start");
	json_t *acc = start ? json_incref(start) : json_integer(0);
	for (size_t i = 0; i < json_array_size(l) && acc; i++) {
		json_t *x = json_array_get(l, i);
		if (json_is_string(attr))
			x = val_attr_path(x, json_string_value(attr));
		if (!x)
			x = json_null();
		json_t *n;
		double a, b;
		if (json_is_array(acc) && json_is_array(x)) {
			n = val_copy(acc);
			json_array_extend(n, x);
		} else if (val_num(acc, &a) && val_num(x, &b)) {
			long long t;
			if (val_is_int(acc) && val_is_int(x) && !__builtin_add_overflow(val_int(acc), val_int(x), &t))
				n = json_integer(t);
			else
				n = val_real(a + b);
		} else {
			ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported operand type(s) for +: '%s' and '%s'", val_typename(acc),
				 val_typename(x));
			n = NULL;
		}
		json_decref(acc);
		acc = n;
	}
	json_decref(l);
	return acc;
}

static void flatten_into(json_t *out, json_t *l, long long levels, bool skip_nulls, int depth)
{
	for (size_t i = 0; i < json_array_size(l) && json_array_size(out) <= TMPL_MAX_SEQ; i++) {
		json_t *e = json_array_get(l, i);
		if (skip_nulls && (json_is_null(e) || (json_is_string(e) && (!strcmp(json_string_value(e), "None") ||
									     !strcmp(json_string_value(e), "null")))))
			continue;
		if (json_is_array(e) && (levels < 0 || levels >= 1) && depth < 200)
			flatten_into(out, e, levels < 0 ? -1 : levels - 1, skip_nulls, depth + 1);
		else
			json_array_append(out, e);
	}
}

FILTER_FN(flatten)
{
	json_t *lv = ARG(0, "levels");
	json_t *sn = ARG(1, "skip_nulls");
	if (!json_is_array(in))
		return ev_type_error(ev, pos, "flatten expects a list, got %s", val_typename(in));
	json_t *r = json_array();
	flatten_into(r, in, lv && !json_is_null(lv) ? val_int(lv) : -1, sn ? val_truthy(sn) : true, 0);
	if (json_array_size(r) > TMPL_MAX_SEQ) {
		json_decref(r);
		return ev_type_error(ev, pos, "flatten: result too large (over %d items)", TMPL_MAX_SEQ);
	}
	return r;
}

static json_t *zipx(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool longest)
{
	json_t *lists = json_array();
	json_t *first = ev_need_list(ev, in, "zip", pos);
	if (!first) {
		json_decref(lists);
		return NULL;
	}
	json_array_append_new(lists, first);
	for (size_t i = 0; i < json_array_size(args); i++) {
		json_t *l = ev_need_list(ev, json_array_get(args, i), "zip", pos);
		if (!l) {
			json_decref(lists);
			return NULL;
		}
		json_array_append_new(lists, l);
	}
	size_t n = longest ? 0 : SIZE_MAX;
	for (size_t i = 0; i < json_array_size(lists); i++) {
		size_t m = json_array_size(json_array_get(lists, i));
		n = longest ? (m > n ? m : n) : (m < n ? m : n);
	}
	json_t *fill = kw ? json_object_get(kw, "fillvalue") : NULL;
	json_t *r = json_array();
	for (size_t j = 0; j < n; j++) {
		json_t *t = json_array();
		for (size_t i = 0; i < json_array_size(lists); i++) {
			json_t *x = json_array_get(json_array_get(lists, i), j);
			json_array_append(t, x ? x : fill ? fill : json_null());
		}
		json_array_append_new(r, t);
	}
	json_decref(lists);
	return r;
}

FILTER_FN(zip) { return zipx(ev, in, args, kw, pos, false); }

FILTER_FN(zip_longest) { return zipx(ev, in, args, kw, pos, true); }

FILTER_FN(product)
{
	json_t *acc = json_array();
	json_array_append_new(acc, json_array());
	json_t *all = json_array();
	json_array_append(all, in);
	json_array_extend(all, args);
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *l = ev_need_list(ev, json_array_get(all, i), "product", pos);
		if (!l || json_array_size(acc) * json_array_size(l) > TMPL_MAX_SEQ) {
			if (l)
				ev_error(ev, TMPL_ERR_LIMIT, pos, "product: result too large");
			json_decref(l);
			json_decref(acc);
			json_decref(all);
			return NULL;
		}
		json_t *next = json_array();
		for (size_t a = 0; a < json_array_size(acc); a++)
			for (size_t b = 0; b < json_array_size(l); b++) {
				json_t *t = val_copy(json_array_get(acc, a));
				json_array_append(t, json_array_get(l, b));
				json_array_append_new(next, t);
			}
		json_decref(acc);
		json_decref(l);
		acc = next;
	}
	json_decref(all);
	return acc;
}

FILTER_FN(reverse)
{
	if (json_is_string(in)) {
		json_t *chars = val_iter_list(in);
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = json_array_size(chars); i > 0; i--)
			strbuf_add(&sb, val_s(json_array_get(chars, i - 1)), val_slen(json_array_get(chars, i - 1)));
		json_decref(chars);
		return val_str_take(&sb);
	}
	json_t *l = ev_need_list(ev, in, "reverse", pos);
	if (!l)
		return NULL;
	json_t *r = json_array();
	for (size_t i = json_array_size(l); i > 0; i--)
		json_array_append(r, json_array_get(l, i - 1));
	json_decref(l);
	return r;
}

FILTER_FN(batch)
{
	long long n = ARG(0, "linecount") ? val_int(ARG(0, "linecount")) : 0;
	json_t *fill = ARG(1, "fill_with");
	if (n <= 0)
		return ev_type_error(ev, pos, "batch: %s", "linecount must be positive");
	json_t *l = ev_need_list(ev, in, "batch", pos);
	if (!l)
		return NULL;
	json_t *r = json_array(), *cur = NULL;
	for (size_t i = 0; i < json_array_size(l); i++) {
		if (!cur)
			cur = json_array();
		json_array_append(cur, json_array_get(l, i));
		if ((long long)json_array_size(cur) == n) {
			json_array_append_new(r, cur);
			cur = NULL;
		}
	}
	if (cur) {
		while (fill && (long long)json_array_size(cur) < n)
			json_array_append(cur, fill);
		json_array_append_new(r, cur);
	}
	json_decref(l);
	return r;
}

/* Jinja2's slice(slices, fill_with=None): the items cut into that many
 * columns, the first (len % slices) one longer; fill_with pads the others. */
FILTER_FN(slice)
{
	json_t *nj = ARG(0, "slices"), *fill = ARG(1, "fill_with");
	if (!nj || !val_is_int(nj))
		return ev_type_error(ev, pos, "slice: %s", "the number of slices must be an integer");
	long long slices = val_int(nj);
	json_t *l = ev_need_list(ev, in, "slice", pos);
	if (!l)
		return NULL;
	long long len = (long long)json_array_size(l);
	if (slices <= 0 || slices > TMPL_MAX_SEQ) {
		json_decref(l);
		/* range(0) yields nothing; a negative count divides by a
		 * negative number, which Python allows but no recipe means */
		if (slices == 0)
			return ev_type_error(ev, pos, "slice: %s", "integer division or modulo by zero");
		return slices < 0 ? ev_type_error(ev, pos, "slice: %s", "the number of slices must be positive")
				  : ev_type_error(ev, pos, "slice: %s", "too many slices");
	}
	long long per = len / slices, extra = len % slices, offset = 0;
	json_t *r = json_array();
	for (long long k = 0; k < slices; k++) {
		long long start = offset + k * per;
		if (k < extra)
			offset++;
		long long end = offset + (k + 1) * per;
		json_t *part = json_array();
		for (long long i = start; i < end && i < len; i++)
			json_array_append(part, json_array_get(l, (size_t)i));
		if (fill && !json_is_null(fill) && k >= extra)
			json_array_append(part, fill);
		json_array_append_new(r, part);
	}
	json_decref(l);
	return r;
}

FILTER_FN(subelements)
{
	json_t *key = ARG(0, "subelements");
	bool skip = val_truthy(ARG(1, "skip_missing"));
	json_t *l = json_is_object(in) ? val_iter_list(NULL) : NULL;
	(void)l;
	if (!json_is_array(in) || !json_is_string(key))
		return ev_type_error(ev, pos, "subelements: %s", "expects a list of dicts and a key");
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(in); i++) {
		json_t *x = json_array_get(in, i);
		json_t *sub = val_attr_path(x, json_string_value(key));
		if (!sub) {
			if (skip)
				continue;
			json_decref(r);
			ev_error(ev, TMPL_ERR_UNDEFINED, pos, "could not find '%s' key in iterated item", json_string_value(key));
			return NULL;
		}
		if (!json_is_array(sub)) {
			json_decref(r);
			ev_error(ev, TMPL_ERR_TYPE, pos, "the key %s should point to a list", json_string_value(key));
			return NULL;
		}
		for (size_t j = 0; j < json_array_size(sub); j++)
			json_array_append_new(r, json_pack("[OO]", x, json_array_get(sub, j)));
	}
	return r;
}

/* Seeds r with Ansible's seed= argument as Python's Random(seed) does:
 * 0 or -1 (a seed of another type, with ev set). */
static int seeded(struct ev *ev, size_t pos, const char *filter, json_t *seed,
		  struct pyrandom *r)
{
	if (json_is_string(seed))
		pyrandom_seed_str(r, json_string_value(seed), json_string_length(seed));
	else if (json_is_integer(seed) || json_is_boolean(seed))
		pyrandom_seed_int(r, val_int(seed));
	else {
		ev_type_error(ev, pos, "%s: a seed that is neither a string nor an integer is not supported by imc",
			      filter);
		return -1;
	}
	return 0;
}

/* An unseeded generator (Ansible's SystemRandom): any sequence will do. */
static void unseeded(struct ev *ev, struct pyrandom *r)
{
	pyrandom_seed_int(r, (long long)time(NULL) ^ (long long)(uintptr_t)ev ^ (long long)rand());
}

/* end | random(start=None, step=None, seed=None): Ansible's rand(), a
 * Random(seed) (or SystemRandom) drawing randrange(start, end, step) of
 * an integer, choice() of a list, Python's way, so that a seeded draw is
 * Ansible's number. */
FILTER_FN(random)
{
	json_t *seed = ARG(2, "seed"), *start = ARG(0, "start"), *step = ARG(1, "step");
	struct pyrandom r;
	if (seed && !json_is_null(seed)) {
		if (seeded(ev, pos, "random", seed, &r) < 0)
			return NULL;
	} else
		unseeded(ev, &r);
	if (json_is_integer(in)) {
		long long end = json_integer_value(in);
		long long st = start && val_truthy(start) ? val_int(start) : 0;
		long long sp = step && val_truthy(step) ? val_int(step) : 1;
		long long width, n;
		if (__builtin_sub_overflow(end, st, &width))
			return ev_type_error(ev, pos, "random: %s", "range too large");
		n = sp == 1 ? width : sp > 0 ? (width + sp - 1) / sp : sp < 0 ? (width + sp + 1) / sp : 0;
		if (n <= 0)
			return ev_type_error(ev, pos, "random: empty range for randrange() (%lld, %lld, %lld)", st,
					     end, width);
		return json_integer(st + sp * (long long)pyrandom_below(&r, (uint64_t)n));
	}
	if ((start && val_truthy(start)) || (step && val_truthy(step)))
		return ev_type_error(ev, pos, "random: %s", "start and step can only be used with integer values");
	/* Python's choice() indexes its argument by position: a mapping
	 * (whose keys, here, are strings) raises KeyError */
	if (json_is_object(in))
		return ev_type_error(ev, pos, "random: %s", "a mapping cannot be indexed by position (KeyError)");
	json_t *l = ev_need_list(ev, in, "random", pos);
	if (!l)
		return NULL;
	if (!json_array_size(l)) {
		json_decref(l);
		return ev_type_error(ev, pos, "random: %s", "Cannot choose from an empty sequence");
	}
	json_t *res = json_incref(json_array_get(l, (size_t)pyrandom_below(&r, json_array_size(l))));
	json_decref(l);
	return res;
}

/* list | shuffle(seed=None): Ansible's randomize_list, Random(seed)
 * when the seed is truthy, shuffled as Python's Random.shuffle does. */
FILTER_FN(shuffle)
{
	json_t *seed = ARG(0, "seed");
	struct pyrandom pr;
	if (seed && val_truthy(seed)) {
		if (seeded(ev, pos, "shuffle", seed, &pr) < 0)
			return NULL;
	} else
		unseeded(ev, &pr);
	json_t *l = ev_need_list(ev, in, "shuffle", pos);
	if (!l)
		return NULL;
	json_t *r = val_copy(l);
	json_decref(l);
	for (size_t i = json_array_size(r); i-- > 1;) {
		size_t j = (size_t)pyrandom_below(&pr, i + 1);
		json_t *a = json_incref(json_array_get(r, i));
		json_array_set(r, i, json_array_get(r, j));
		json_array_set_new(r, j, a);
	}
	return r;
}
