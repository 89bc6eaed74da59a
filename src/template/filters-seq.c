/* filters-seq.c: Ansible's filters that build new collections from a list:
 * combinations and permutations (Python's itertools, which Ansible hands
 * over as they are, in itertools' order) and rekey_on_member (a dict of
 * dicts, or a list of dicts, keyed on one member). Results and errors
 * follow ansible-core 2.14; the cases in tests/unit/test-template-cases.json
 * were checked against its Templar. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

/* The items Python's iter() gives, or NULL with its TypeError. */
static json_t *items_of(struct ev *ev, json_t *in, size_t pos)
{
	json_t *l = val_iter_list(in);
	if (!l)
		ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' object is not iterable", val_typename(in));
	return l;
}

/* r of combinations / permutations: an int (bool counts), not negative. */
static int r_arg(struct ev *ev, json_t *rj, long long *r, size_t pos)
{
	if (!val_is_int(rj)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' object cannot be interpreted as an integer", val_typename(rj));
		return -1;
	}
	*r = val_int(rj);
	if (*r < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "r must be non-negative");
		return -1;
	}
	return 0;
}

/* Whether the n-item pool gives more results than the engine builds:
 * C(n, r) or n!/(n-r)!, counted until it passes the limit (so the
 * recursion of permute() never goes deep and nothing huge is started). */
static bool too_many(size_t n, size_t r, bool ordered)
{
	unsigned long long count = 1, limit = TMPL_MAX_SEQ / (r ? r : 1);
	for (size_t i = 0; i < r && i < n; i++) {
		count *= (unsigned long long)(n - i);
		if (!ordered)
			count /= i + 1; /* C(n, i+1) = C(n, i) * (n-i) / (i+1), exact */
		if (count > limit)
			return true;
	}
	return false;
}

/* Adds one result to out, failing once the result would be too large. */
static int emit(struct ev *ev, json_t *out, json_t *pool, const size_t *idx, size_t r, size_t pos)
{
	if (json_array_size(out) >= TMPL_MAX_SEQ || (r && json_array_size(out) >= TMPL_MAX_SEQ / r)) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "result of combinations/permutations is too large");
		return -1;
	}
	json_t *t = json_array();
	for (size_t i = 0; i < r; i++)
		json_array_append(t, json_array_get(pool, idx[i]));
	json_array_append_new(out, t);
	return 0;
}

/* items | combinations(r): every r-item choice, in index order. */
FILTER_FN(combinations)
{
	json_t *rj = ARG(0, "r");
	long long rr;
	if (!rj) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "combinations() missing required argument 'r' (pos 2)");
		return NULL;
	}
	json_t *pool = items_of(ev, in, pos);
	if (!pool)
		return NULL;
	json_t *out = NULL;
	if (r_arg(ev, rj, &rr, pos) < 0)
		goto fail;
	size_t n = json_array_size(pool), r = (size_t)rr;
	out = json_array();
	if ((unsigned long long)rr > n)
		goto done;
	if (too_many(n, r, false)) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "result of combinations/permutations is too large");
		goto fail;
	}
	size_t *idx = xcalloc(r + 1, sizeof(*idx));
	for (size_t i = 0; i < r; i++)
		idx[i] = i;
	for (;;) {
		if (emit(ev, out, pool, idx, r, pos) < 0) {
			free(idx);
			goto fail;
		}
		/* the rightmost index that can still move right */
		size_t i = r;
		while (i > 0 && idx[i - 1] == i - 1 + n - r)
			i--;
		if (i == 0)
			break;
		idx[i - 1]++;
		for (size_t j = i; j < r; j++)
			idx[j] = idx[j - 1] + 1;
	}
	free(idx);
done:
	json_decref(pool);
	return out;
fail:
	json_decref(out);
	json_decref(pool);
	return NULL;
}

/* Recursive permutations in itertools' order: for each position, each
 * unused item in index order. */
static int permute(struct ev *ev, json_t *out, json_t *pool, size_t *idx, bool *used, size_t k, size_t r, size_t pos)
{
	if (k == r)
		return emit(ev, out, pool, idx, r, pos);
	for (size_t i = 0; i < json_array_size(pool); i++) {
		if (used[i])
			continue;
		used[i] = true;
		idx[k] = i;
		int rc = permute(ev, out, pool, idx, used, k + 1, r, pos);
		used[i] = false;
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* items | permutations(r=None): every ordered r-item choice (r defaults to
 * the number of items). */
FILTER_FN(permutations)
{
	json_t *rj = ARG(0, "r");
	json_t *pool = items_of(ev, in, pos);
	if (!pool)
		return NULL;
	size_t n = json_array_size(pool);
	long long rr = (long long)n;
	json_t *out = NULL;
	if (rj && !json_is_null(rj) && r_arg(ev, rj, &rr, pos) < 0)
		goto out;
	if ((unsigned long long)rr <= n && too_many(n, (size_t)rr, true)) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "result of combinations/permutations is too large");
		goto out;
	}
	out = json_array();
	if ((unsigned long long)rr <= n) {
		size_t *idx = xcalloc((size_t)rr + 1, sizeof(*idx));
		bool *used = xcalloc(n + 1, sizeof(*used));
		int rc = permute(ev, out, pool, idx, used, 0, (size_t)rr, pos);
		free(idx);
		free(used);
		if (rc < 0) {
			json_decref(out);
			out = NULL;
		}
	}
out:
	json_decref(pool);
	return out;
}

/* data | rekey_on_member(key, duplicates='error'): a dict from the dicts
 * of data (a dict's values, or a list), each under its own value of key;
 * a repeated value is an error unless duplicates='overwrite'. */
FILTER_FN(rekey_on_member)
{
	json_t *key = ARG(0, "key"), *dj = ARG(1, "duplicates");
	const char *dup = json_is_string(dj) ? json_string_value(dj) : "error";
	if (dj && !json_is_string(dj)) {
		char *t = val_to_cstr(dj);
		ev_error(ev, TMPL_ERR_FILTER, pos, "duplicates parameter to rekey_on_member has unknown value: %s", t);
		free(t);
		return NULL;
	}
	if (strcmp(dup, "error") && strcmp(dup, "overwrite")) {
		ev_error(ev, TMPL_ERR_FILTER, pos, "duplicates parameter to rekey_on_member has unknown value: %s", dup);
		return NULL;
	}
	if (!key) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "rekey_on_member() missing 1 required positional argument: 'key'");
		return NULL;
	}
	json_t *list;
	if (json_is_object(in)) {
		const char *k;
		json_t *v;
		list = json_array();
		json_object_foreach(in, k, v)
			json_array_append(list, v);
	} else if (json_is_array(in)) {
		list = json_incref(in);
	} else {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Type is not a valid list, set, or dict");
		return NULL;
	}
	json_t *out = json_object();
	char *kt = val_to_cstr(key);
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *item = json_array_get(list, i);
		if (!json_is_object(item)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "List item is not a valid dict");
			goto fail;
		}
		/* the engine's dict keys are strings: a key of another type is
		 * never found, as in Python */
		json_t *elem = json_is_string(key) ? json_object_get(item, json_string_value(key)) : NULL;
		if (!elem) {
			ev_error(ev, TMPL_ERR_FILTER, pos, "Key %s was not found", kt);
			goto fail;
		}
		if (json_is_array(elem) || json_is_object(elem)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "unhashable type: '%s'", val_typename(elem));
			goto fail;
		}
		char *ek = val_to_cstr(elem);
		if (json_object_get(out, ek) && !strcmp(dup, "error")) {
			ev_error(ev, TMPL_ERR_FILTER, pos, "Key %s is not unique, cannot correctly turn into dict", ek);
			free(ek);
			goto fail;
		}
		json_object_set(out, ek, item);
		free(ek);
	}
	free(kt);
	json_decref(list);
	return out;
fail:
	free(kt);
	json_decref(list);
	json_decref(out);
	return NULL;
}
