/* ast.c: building, copying, freeing and querying the RADL AST (radl.h).
 * The parser and the JSON reader build documents through these helpers;
 * the plan and the commands read them through the lookups and getters. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/radl-int.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Arrays grow by doubling; the capacity is implied by the count (at least
 * MIN_CAP, else the smallest power of two that holds it), so no extra field
 * is needed in the public structs. Starting at MIN_CAP keeps the parser
 * from freeing tiny arrays, which costs glibc dearly later (fastbin
 * consolidation on every larger request). */
#define MIN_CAP 4

static size_t cap_for(size_t n)
{
	size_t cap = MIN_CAP;
	while (cap < n)
		cap *= 2;
	return cap;
}

static void *grow(void *arr, size_t n, size_t size)
{
	if (n == 0)
		return xreallocarray(arr, MIN_CAP, size);
	if (n >= MIN_CAP && (n & (n - 1)) == 0)
		return xreallocarray(arr, n * 2, size);
	return arr;
}

struct radl_feature *radl_body_add(struct radl_body *b)
{
	b->feat = grow(b->feat, b->nfeat, sizeof(*b->feat));
	struct radl_feature *f = &b->feat[b->nfeat++];
	memset(f, 0, sizeof(*f));
	return f;
}

struct radl_soft *radl_body_add_soft(struct radl_body *b)
{
	b->soft = grow(b->soft, b->nsoft, sizeof(*b->soft));
	struct radl_soft *s = &b->soft[b->nsoft++];
	memset(s, 0, sizeof(*s));
	return s;
}

void radl_feature_release(struct radl_feature *f)
{
	free(f->name);
	free(f->num.unit);
	free(f->str);
	for (size_t i = 0; i < f->nlist; i++)
		free(f->list[i]);
	free(f->list);
	if (f->contains) {
		radl_body_release(f->contains);
		free(f->contains);
	}
	memset(f, 0, sizeof(*f));
}

void radl_body_release(struct radl_body *b)
{
	for (size_t i = 0; i < b->nfeat; i++)
		radl_feature_release(&b->feat[i]);
	free(b->feat);
	for (size_t i = 0; i < b->nsoft; i++) {
		free(b->soft[i].weight.unit);
		if (b->soft[i].body) {
			radl_body_release(b->soft[i].body);
			free(b->soft[i].body);
		}
	}
	free(b->soft);
	memset(b, 0, sizeof(*b));
}

static void number_copy(struct radl_number *dst, const struct radl_number *src)
{
	*dst = *src;
	dst->unit = src->unit ? xstrdup(src->unit) : NULL;
}

void radl_body_copy(struct radl_body *dst, const struct radl_body *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->open = src->open;
	dst->close = src->close;
	for (size_t i = 0; i < src->nfeat; i++) {
		const struct radl_feature *s = &src->feat[i];
		struct radl_feature *f = radl_body_add(dst);
		*f = *s;
		f->name = xstrdup(s->name);
		number_copy(&f->num, &s->num);
		f->str = s->str ? xstrdup(s->str) : NULL;
		if (s->nlist) {
			f->list = xreallocarray(NULL, s->nlist, sizeof(char *));
			for (size_t j = 0; j < s->nlist; j++)
				f->list[j] = xstrdup(s->list[j]);
		} else {
			f->list = NULL;
		}
		if (s->contains) {
			f->contains = xmalloc(sizeof(*f->contains));
			radl_body_copy(f->contains, s->contains);
		}
	}
	for (size_t i = 0; i < src->nsoft; i++) {
		struct radl_soft *s = radl_body_add_soft(dst);
		s->loc = src->soft[i].loc;
		number_copy(&s->weight, &src->soft[i].weight);
		s->body = xmalloc(sizeof(*s->body));
		radl_body_copy(s->body, src->soft[i].body);
	}
}

void radl_aspect_release(struct radl_aspect *a)
{
	free(a->id);
	radl_body_release(&a->body);
}

struct radl_aspect *radl_aspect_clone(const struct radl_aspect *a)
{
	struct radl_aspect *c = xmalloc(sizeof(*c));
	*c = *a;
	c->id = xstrdup(a->id);
	radl_body_copy(&c->body, &a->body);
	return c;
}

void radl_aspect_free(struct radl_aspect *a)
{
	if (!a)
		return;
	radl_aspect_release(a);
	free(a);
}

/* ---- id index -----------------------------------------------------------
 * Open addressing from id to array position, one table per kind, so that a
 * document with thousands of systems parses and checks in linear time. */

struct radl_idx {
	size_t *slot;   /* position + 1, 0 = empty */
	size_t cap;     /* power of two */
	size_t count;   /* array entries indexed so far */
};

struct radl_doc_index {
	struct radl_idx sys, net, ans, conf;
};

static size_t id_hash(const char *s)
{
	size_t h = 14695981039346656037u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

#define ID_AT(base, stride, i) (*(char *const *)((const char *)(base) + (i) * (stride)))

static void idx_put(struct radl_idx *ix, const void *base, size_t stride, size_t i)
{
	size_t h = id_hash(ID_AT(base, stride, i)) & (ix->cap - 1);
	while (ix->slot[h])
		h = (h + 1) & (ix->cap - 1);
	ix->slot[h] = i + 1;
}

/* base points at the id member of element 0 */
static void idx_update(struct radl_idx *ix, const void *base, size_t stride, size_t n)
{
	if (ix->count == n)
		return;
	if (n * 2 >= ix->cap) {
		free(ix->slot);
		ix->cap = 64;
		while (ix->cap <= n * 2)
			ix->cap *= 2;
		ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
		ix->count = 0;
	}
	for (size_t i = ix->count; i < n; i++)
		idx_put(ix, base, stride, i);
	ix->count = n;
}

/* Returns the position of id, or -1. Entries past ix->count are searched
 * linearly (added since the last reindex). */
static long idx_find(const struct radl_idx *ix, const void *base, size_t stride, size_t n,
		     const char *id)
{
	size_t done = 0;
	if (ix && ix->cap) {
		size_t h = id_hash(id) & (ix->cap - 1);
		while (ix->slot[h]) {
			size_t i = ix->slot[h] - 1;
			if (i < n && strcmp(ID_AT(base, stride, i), id) == 0)
				return (long)i;
			h = (h + 1) & (ix->cap - 1);
		}
		done = ix->count < n ? ix->count : n;
	}
	for (size_t i = done; i < n; i++)
		if (strcmp(ID_AT(base, stride, i), id) == 0)
			return (long)i;
	return -1;
}

#define ASPECT_IDS(arr) ((const void *)((const char *)(arr) + offsetof(struct radl_aspect, id)))
#define CONF_IDS(arr) ((const void *)((const char *)(arr) + offsetof(struct radl_configure, id)))

void radl_doc_reindex(struct radl_doc *doc)
{
	struct radl_doc_index *x = doc->index;
	if (!x)
		return;
	if (doc->nsystems)
		idx_update(&x->sys, ASPECT_IDS(doc->systems), sizeof(struct radl_aspect), doc->nsystems);
	if (doc->nnetworks)
		idx_update(&x->net, ASPECT_IDS(doc->networks), sizeof(struct radl_aspect), doc->nnetworks);
	if (doc->nansibles)
		idx_update(&x->ans, ASPECT_IDS(doc->ansibles), sizeof(struct radl_aspect), doc->nansibles);
	if (doc->nconfigures)
		idx_update(&x->conf, CONF_IDS(doc->configures), sizeof(struct radl_configure),
			   doc->nconfigures);
}

static void index_free(struct radl_doc_index *x)
{
	if (!x)
		return;
	free(x->sys.slot);
	free(x->net.slot);
	free(x->ans.slot);
	free(x->conf.slot);
	free(x);
}

struct radl_doc *radl_doc_new(const char *file)
{
	struct radl_doc *doc = xcalloc(1, sizeof(*doc));
	doc->file = xstrdup(file ? file : "<radl>");
	doc->index = xcalloc(1, sizeof(*doc->index));
	return doc;
}

struct radl_aspect *radl_doc_add_aspect(struct radl_doc *doc, enum radl_class cls)
{
	struct radl_aspect **arr;
	size_t *n;
	switch (cls) {
	case RADL_NETWORK: arr = &doc->networks; n = &doc->nnetworks; break;
	case RADL_SYSTEM: arr = &doc->systems; n = &doc->nsystems; break;
	case RADL_ANSIBLE: arr = &doc->ansibles; n = &doc->nansibles; break;
	default:
		if (!doc->description)
			doc->description = xcalloc(1, sizeof(*doc->description));
		doc->description->cls = cls;
		return doc->description;
	}
	*arr = grow(*arr, *n, sizeof(**arr));
	struct radl_aspect *a = &(*arr)[(*n)++];
	memset(a, 0, sizeof(*a));
	a->cls = cls;
	return a;
}

struct radl_configure *radl_doc_add_configure(struct radl_doc *doc)
{
	doc->configures = grow(doc->configures, doc->nconfigures, sizeof(*doc->configures));
	struct radl_configure *c = &doc->configures[doc->nconfigures++];
	memset(c, 0, sizeof(*c));
	return c;
}

struct radl_deploy *radl_doc_add_deploy(struct radl_doc *doc)
{
	doc->deploys = grow(doc->deploys, doc->ndeploys, sizeof(*doc->deploys));
	struct radl_deploy *dp = &doc->deploys[doc->ndeploys++];
	memset(dp, 0, sizeof(*dp));
	return dp;
}

static void ctxt_item_release(struct radl_ctxt_item *it)
{
	free(it->system);
	free(it->configure);
	free(it->tool);
	free(it->step.unit);
}

void radl_ctxt_add_item(struct radl_contextualize *c, struct radl_ctxt_item *it)
{
	for (size_t i = 0; i < c->nitems; i++) {
		struct radl_ctxt_item *old = &c->items[i];
		if (strcmp(old->system, it->system) == 0 &&
		    strcmp(old->configure, it->configure) == 0) {
			ctxt_item_release(old);
			*old = *it;
			return;
		}
	}
	c->items = grow(c->items, c->nitems, sizeof(*c->items));
	c->items[c->nitems++] = *it;
}

void radl_doc_free(struct radl_doc *doc)
{
	if (!doc)
		return;
	for (size_t i = 0; i < doc->nansibles; i++)
		radl_aspect_release(&doc->ansibles[i]);
	free(doc->ansibles);
	for (size_t i = 0; i < doc->nnetworks; i++)
		radl_aspect_release(&doc->networks[i]);
	free(doc->networks);
	for (size_t i = 0; i < doc->nsystems; i++)
		radl_aspect_release(&doc->systems[i]);
	free(doc->systems);
	for (size_t i = 0; i < doc->nconfigures; i++) {
		free(doc->configures[i].id);
		free(doc->configures[i].recipe);
	}
	free(doc->configures);
	for (size_t i = 0; i < doc->ndeploys; i++) {
		free(doc->deploys[i].system);
		free(doc->deploys[i].cloud);
		free(doc->deploys[i].count.unit);
	}
	free(doc->deploys);
	free(doc->ctxt.max_time.unit);
	radl_body_release(&doc->ctxt.options);
	for (size_t i = 0; i < doc->ctxt.nitems; i++)
		ctxt_item_release(&doc->ctxt.items[i]);
	free(doc->ctxt.items);
	radl_aspect_free(doc->description);
	free(doc->source);
	index_free(doc->index);
	free(doc->file);
	free(doc);
}

void radl_number_set(struct radl_number *n, double written, bool is_int, const char *unit,
		     size_t unit_len)
{
	n->written = written;
	n->is_int = is_int;
	free(n->unit);
	n->unit = unit ? xstrndup(unit, unit_len) : NULL;
	n->value = written * (n->unit ? radl_unit_multiplier(n->unit) : 1);
}

/* ---- lookups ----------------------------------------------------------- */

static struct radl_aspect *find_aspect(const struct radl_idx *ix, struct radl_aspect *arr,
				       size_t n, const char *id)
{
	if (!n)
		return NULL;
	long i = idx_find(ix, ASPECT_IDS(arr), sizeof(*arr), n, id);
	return i < 0 ? NULL : &arr[i];
}

struct radl_aspect *radl_find_system(const struct radl_doc *doc, const char *id)
{
	return find_aspect(doc->index ? &doc->index->sys : NULL, doc->systems, doc->nsystems, id);
}

struct radl_aspect *radl_find_network(const struct radl_doc *doc, const char *id)
{
	return find_aspect(doc->index ? &doc->index->net : NULL, doc->networks, doc->nnetworks, id);
}

struct radl_aspect *radl_find_ansible(const struct radl_doc *doc, const char *id)
{
	return find_aspect(doc->index ? &doc->index->ans : NULL, doc->ansibles, doc->nansibles, id);
}

struct radl_configure *radl_find_configure(const struct radl_doc *doc, const char *id)
{
	if (!doc->nconfigures)
		return NULL;
	long i = idx_find(doc->index ? &doc->index->conf : NULL, CONF_IDS(doc->configures),
			  sizeof(*doc->configures), doc->nconfigures, id);
	return i < 0 ? NULL : &doc->configures[i];
}

const struct radl_ctxt_item *radl_find_ctxt_item(const struct radl_doc *doc,
						 const char *system, const char *configure)
{
	for (size_t i = 0; i < doc->ctxt.nitems; i++) {
		const struct radl_ctxt_item *it = &doc->ctxt.items[i];
		if (strcmp(it->system, system) == 0 && strcmp(it->configure, configure) == 0)
			return it;
	}
	return NULL;
}

long radl_deploy_count(const struct radl_doc *doc, const char *system)
{
	double n = 0;
	for (size_t i = 0; i < doc->ndeploys; i++)
		if (strcmp(doc->deploys[i].system, system) == 0)
			n += doc->deploys[i].count.value;
	return (long)n;
}

/* ---- getters ----------------------------------------------------------- */

const struct radl_feature *radl_next_feature(const struct radl_body *b, const char *name,
					     const struct radl_feature *prev)
{
	size_t i = prev ? (size_t)(prev - b->feat) + 1 : 0;
	for (; i < b->nfeat; i++)
		if (strcmp(b->feat[i].name, name) == 0)
			return &b->feat[i];
	return NULL;
}

const struct radl_feature *radl_get_feature(const struct radl_body *b, const char *name)
{
	return radl_next_feature(b, name, NULL);
}

const char *radl_get_string(const struct radl_body *b, const char *name)
{
	for (const struct radl_feature *f = radl_next_feature(b, name, NULL); f;
	     f = radl_next_feature(b, name, f))
		if (f->kind == RADL_V_STRING)
			return f->str;
	return NULL;
}

char *const *radl_get_list(const struct radl_body *b, const char *name, size_t *n)
{
	for (const struct radl_feature *f = radl_next_feature(b, name, NULL); f;
	     f = radl_next_feature(b, name, f))
		if (f->kind == RADL_V_LIST) {
			if (n)
				*n = f->nlist;
			static char *const empty[1] = { NULL };
			return f->list ? f->list : empty;
		}
	if (n)
		*n = 0;
	return NULL;
}

/* The interval of every numeric constraint on name. */
static bool interval(const struct radl_body *b, const char *name, double *lo, double *hi)
{
	bool any = false;
	*lo = -INFINITY;
	*hi = INFINITY;
	for (const struct radl_feature *f = radl_next_feature(b, name, NULL); f;
	     f = radl_next_feature(b, name, f)) {
		if (f->kind != RADL_V_NUMBER)
			continue;
		any = true;
		double v = f->num.value;
		if ((f->cmp == RADL_EQ || f->cmp == RADL_GT || f->cmp == RADL_GE) && v > *lo)
			*lo = v;
		if ((f->cmp == RADL_EQ || f->cmp == RADL_LT || f->cmp == RADL_LE) && v < *hi)
			*hi = v;
	}
	return any;
}

int radl_get_number_min(const struct radl_body *b, const char *name, double *v)
{
	double lo, hi;
	if (!interval(b, name, &lo, &hi) || isinf(lo))
		return -1;
	*v = lo;
	return 0;
}

int radl_get_number_max(const struct radl_body *b, const char *name, double *v)
{
	double lo, hi;
	if (!interval(b, name, &lo, &hi) || isinf(hi))
		return -1;
	*v = hi;
	return 0;
}

int radl_get_number(const struct radl_body *b, const char *name, double *v)
{
	double lo, hi;
	if (!interval(b, name, &lo, &hi) || lo != hi)
		return -1;
	*v = lo;
	return 0;
}

size_t radl_get_contains(const struct radl_body *b, const char *name,
			 const struct radl_body **out, size_t max)
{
	size_t n = 0;
	for (const struct radl_feature *f = radl_next_feature(b, name, NULL); f;
	     f = radl_next_feature(b, name, f)) {
		if (f->kind != RADL_V_CONTAINS)
			continue;
		if (n < max)
			out[n] = f->contains;
		n++;
	}
	return n;
}

/* ---- changing ---------------------------------------------------------- */

void radl_unset(struct radl_body *b, const char *name)
{
	size_t j = 0;
	for (size_t i = 0; i < b->nfeat; i++) {
		if (strcmp(b->feat[i].name, name) == 0) {
			radl_feature_release(&b->feat[i]);
			continue;
		}
		b->feat[j++] = b->feat[i];
	}
	size_t old = b->nfeat;
	b->nfeat = j;
	/* keep the capacity rule of grow() */
	if (j && old != j) {
		b->feat = xreallocarray(b->feat, cap_for(j), sizeof(*b->feat));
	} else if (!j) {
		free(b->feat);
		b->feat = NULL;
	}
}

void radl_set_string(struct radl_body *b, const char *name, const char *value)
{
	radl_unset(b, name);
	struct radl_feature *f = radl_body_add(b);
	f->name = xstrdup(name);
	f->cmp = RADL_EQ;
	f->kind = RADL_V_STRING;
	f->str = xstrdup(value);
}

void radl_set_number(struct radl_body *b, const char *name, double value, bool is_int)
{
	radl_unset(b, name);
	struct radl_feature *f = radl_body_add(b);
	f->name = xstrdup(name);
	f->cmp = RADL_EQ;
	f->kind = RADL_V_NUMBER;
	radl_number_set(&f->num, value, is_int, NULL, 0);
}

const char *radl_class_name(enum radl_class cls)
{
	switch (cls) {
	case RADL_NETWORK: return "network";
	case RADL_SYSTEM: return "system";
	case RADL_ANSIBLE: return "ansible";
	case RADL_DESCRIPTION: return "description";
	}
	return "?";
}

const char *radl_cmp_str(enum radl_cmp cmp)
{
	static const char *const s[] = { "=", "<", ">", "<=", ">=" };
	return (unsigned)cmp < 5 ? s[cmp] : "?";
}

/* ---- secrets ----------------------------------------------------------- */

static bool secrets_on = true;

void radl_secrets_off(void)
{
	secrets_on = false;
}

bool radl_secret_name(const char *name)
{
	if (!secrets_on)
		return false;
	static const char *const suffixes[] = { "password", "private_key", "token", "secret",
						 "secret_key", NULL };
	size_t n = strlen(name);
	for (size_t i = 0; suffixes[i]; i++) {
		size_t k = strlen(suffixes[i]);
		if (n >= k && strcmp(name + n - k, suffixes[i]) == 0)
			return true;
	}
	return false;
}

static void register_body(const struct radl_body *b)
{
	for (size_t i = 0; i < b->nfeat; i++) {
		const struct radl_feature *f = &b->feat[i];
		if (f->kind == RADL_V_STRING && radl_secret_name(f->name))
			secret_register(f->str);
		if (f->contains)
			register_body(f->contains);
	}
	for (size_t i = 0; i < b->nsoft; i++)
		register_body(b->soft[i].body);
}

void radl_register_secrets(const struct radl_doc *doc)
{
	for (size_t i = 0; i < doc->nsystems; i++)
		register_body(&doc->systems[i].body);
	for (size_t i = 0; i < doc->nansibles; i++)
		register_body(&doc->ansibles[i].body);
	for (size_t i = 0; i < doc->nnetworks; i++)
		register_body(&doc->networks[i].body);
}
