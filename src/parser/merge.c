/* merge.c: the merged view of a feature body, as IM builds it.
 *
 * IM stores the features of a sentence by name: numbers become an interval
 * (strictness forgotten), strings and lists keep their first value, contains
 * blocks are grouped by their inner 'name'. A constraint that contradicts an
 * earlier one is an error while parsing, and RADL-JSON prints the merged
 * view. The AST keeps every constraint as written; this file computes the
 * merged view on demand, for the parser (conflicts) and for json.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "parser/radl-int.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *kind_name(enum radl_vkind k)
{
	switch (k) {
	case RADL_V_NUMBER: return "number";
	case RADL_V_STRING: return "string";
	case RADL_V_LIST: return "list";
	case RADL_V_CONTAINS: return "'contains' block";
	}
	return "value";
}

/* Small open-addressing index from name to merged entry, so that a body
 * with many features merges in linear time. */
struct index {
	size_t *slot; /* entry + 1, 0 = empty */
	size_t cap;
};

static size_t hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void index_rebuild(struct index *ix, const struct radl_merged *m)
{
	free(ix->slot);
	ix->cap = 16;
	while (ix->cap < m->n * 2 + 2)
		ix->cap *= 2;
	ix->slot = xcalloc(ix->cap, sizeof(*ix->slot));
	for (size_t i = 0; i < m->n; i++) {
		size_t h = hash(m->f[i].name) & (ix->cap - 1);
		while (ix->slot[h])
			h = (h + 1) & (ix->cap - 1);
		ix->slot[h] = i + 1;
	}
}

#define LINEAR_MAX 24 /* below this many names, a scan beats hashing */

static struct radl_mfeat *lookup(struct index *ix, struct radl_merged *m, const char *name,
				 bool *created, size_t *ncap)
{
	size_t h = 0;
	if (m->n < LINEAR_MAX) {
		for (size_t i = 0; i < m->n; i++)
			if (m->f[i].name[0] == name[0] && strcmp(m->f[i].name, name) == 0) {
				*created = false;
				return &m->f[i];
			}
	} else {
		if (m->n * 2 + 2 > ix->cap)
			index_rebuild(ix, m);
		h = hash(name) & (ix->cap - 1);
		while (ix->slot[h]) {
			struct radl_mfeat *mf = &m->f[ix->slot[h] - 1];
			if (strcmp(mf->name, name) == 0) {
				*created = false;
				return mf;
			}
			h = (h + 1) & (ix->cap - 1);
		}
	}
	if (m->n == *ncap) {
		*ncap = *ncap ? *ncap * 2 : 16;
		m->f = xreallocarray(m->f, *ncap, sizeof(*m->f));
	}
	if (ix->slot)
		ix->slot[h] = m->n + 1;
	struct radl_mfeat *mf = &m->f[m->n++];
	memset(mf, 0, sizeof(*mf));
	mf->name = name;
	*created = true;
	return mf;
}

static bool same_list(const struct radl_feature *a, const struct radl_feature *b)
{
	if (a->nlist != b->nlist)
		return false;
	for (size_t i = 0; i < a->nlist; i++)
		if (strcmp(a->list[i], b->list[i]) != 0)
			return false;
	return true;
}

static void add_number(struct radl_mfeat *mf, const struct radl_feature *f)
{
	double v = f->num.value;
	bool lo = f->cmp == RADL_EQ || f->cmp == RADL_GT || f->cmp == RADL_GE;
	bool hi = f->cmp == RADL_EQ || f->cmp == RADL_LT || f->cmp == RADL_LE;
	if (lo && (!mf->has_lo || v >= mf->lo)) {
		mf->has_lo = true;
		mf->lo = v;
		mf->lo_int = f->num.is_int;
		mf->lo_f = f;
	}
	if (hi && (!mf->has_hi || v < mf->hi)) {
		mf->has_hi = true;
		mf->hi = v;
		mf->hi_int = f->num.is_int;
		mf->hi_f = f;
	}
}

static void add_contains(struct radl_mfeat *mf, const struct radl_feature *f)
{
	const char *key = radl_get_string(f->contains, "name");
	struct radl_mgroup *g = NULL;
	for (size_t i = 0; i < mf->ngroups; i++) {
		const char *k = mf->groups[i].key;
		if ((!k && !key) || (k && key && strcmp(k, key) == 0)) {
			g = &mf->groups[i];
			break;
		}
	}
	if (!g) {
		mf->groups = xreallocarray(mf->groups, mf->ngroups + 1, sizeof(*mf->groups));
		g = &mf->groups[mf->ngroups++];
		memset(g, 0, sizeof(*g));
		g->key = key;
	}
	g->bodies = xreallocarray(g->bodies, g->nbodies + 1, sizeof(*g->bodies));
	g->bodies[g->nbodies++] = f->contains;
}

static void conflict_note(struct diag *d, const struct radl_feature *prev)
{
	if (prev->loc.line > 0)
		diag_note(d, &prev->loc, "'%s' was constrained here", prev->name);
}

int radl_merge(const struct radl_body *const *bodies, size_t nbodies,
	       struct radl_merged *m, struct diag *d)
{
	struct index ix = { NULL, 0 };
	size_t ncap = 0, scap = 0;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	for (size_t b = 0; b < nbodies; b++) {
		const struct radl_body *body = bodies[b];
		for (size_t i = 0; i < body->nfeat; i++) {
			const struct radl_feature *f = &body->feat[i];
			bool created;
			struct radl_mfeat *mf = lookup(&ix, m, f->name, &created, &ncap);
			if (created) {
				mf->kind = f->kind;
				mf->first = f;
			} else if (mf->kind != f->kind) {
				if (d) {
					diag_error(d, IMC_EXIT_DATAERR, &f->loc,
						   "'%s' is given a %s here but a %s before",
						   f->name, kind_name(f->kind), kind_name(mf->kind));
					conflict_note(d, mf->first);
				}
				rc = -1;
				continue;
			}
			switch (f->kind) {
			case RADL_V_NUMBER: {
				add_number(mf, f);
				if (mf->has_lo && mf->has_hi && mf->lo > mf->hi) {
					if (d) {
						diag_error(d, IMC_EXIT_DATAERR, &f->loc,
							   "'%s %s %g' contradicts the earlier constraints on '%s' (disjoint intervals)",
							   f->name, radl_cmp_str(f->cmp), f->num.value, f->name);
						conflict_note(d, mf->last ? mf->last : mf->first);
					}
					rc = -1;
				}
				break;
			}
			case RADL_V_STRING:
				if (strcmp(mf->first->str, f->str) != 0) {
					if (d) {
						diag_error(d, IMC_EXIT_DATAERR, &f->loc,
							   "conflicting values for '%s': '%s' here, '%s' before",
							   f->name, f->str, mf->first->str);
						conflict_note(d, mf->first);
					}
					rc = -1;
				}
				break;
			case RADL_V_LIST:
				if (!same_list(mf->first, f)) {
					if (d) {
						diag_error(d, IMC_EXIT_DATAERR, &f->loc,
							   "conflicting lists for '%s'", f->name);
						conflict_note(d, mf->first);
					}
					rc = -1;
				}
				break;
			case RADL_V_CONTAINS:
				add_contains(mf, f);
				break;
			}
			mf->last = f;
		}
		for (size_t i = 0; i < body->nsoft; i++) {
			if (m->nsofts == scap) {
				scap = scap ? scap * 2 : 4;
				m->softs = xreallocarray(m->softs, scap, sizeof(*m->softs));
			}
			m->softs[m->nsofts++] = &body->soft[i];
		}
	}
	free(ix.slot);
	for (size_t i = 0; i < m->n; i++) {
		struct radl_mfeat *mf = &m->f[i];
		for (size_t g = 0; g < mf->ngroups; g++) {
			struct radl_mgroup *gr = &mf->groups[g];
			/* IM builds each contains block at its ')', so a conflict
			 * inside one block is reported as such, before the blocks
			 * of the group are merged (which is then not done) */
			bool alone_ok = true;
			for (size_t k = 0; d && gr->nbodies > 1 && k < gr->nbodies; k++) {
				struct radl_merged one;
				if (radl_merge(&gr->bodies[k], 1, &one, d) < 0)
					alone_ok = false;
				radl_merged_release(&one);
			}
			if (!alone_ok || radl_merge(gr->bodies, gr->nbodies, &gr->m, d) < 0)
				rc = -1;
		}
	}
	return rc;
}

void radl_merged_release(struct radl_merged *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct radl_mfeat *mf = &m->f[i];
		for (size_t g = 0; g < mf->ngroups; g++) {
			free(mf->groups[g].bodies);
			radl_merged_release(&mf->groups[g].m);
		}
		free(mf->groups);
	}
	free(m->f);
	free(m->softs);
	memset(m, 0, sizeof(*m));
}
