/* check.c: IM's semantic checks on a parsed RADL document, in IM's order
 * (networks, ansible hosts, systems with their soft blocks, deploys,
 * configures, contextualize), but reporting every error rather than the
 * first: known attributes (features.c), contiguous disk / net_interface
 * indices, interfaces without a connection, references between sentences,
 * and recipes that must be YAML (libyaml), reported at RADL lines. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "parser/radl-int.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A small set of indices; on the stack unless a system has many disks. */
struct idxset {
	long *v;
	size_t n, cap;
	long local[16];
};

static void idx_add(struct idxset *s, long i)
{
	for (size_t k = 0; k < s->n; k++)
		if (s->v[k] == i)
			return;
	if (s->n == s->cap) {
		s->cap *= 2;
		if (s->v == s->local) {
			s->v = xreallocarray(NULL, s->cap, sizeof(*s->v));
			memcpy(s->v, s->local, sizeof(s->local));
		} else {
			s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
		}
	}
	s->v[s->n++] = i;
}

static void idx_release(struct idxset *s)
{
	if (s->v != s->local)
		free(s->v);
}

static bool idx_has(const struct idxset *s, long i)
{
	for (size_t k = 0; k < s->n; k++)
		if (s->v[k] == i)
			return true;
	return false;
}

/* The first index in 0..n-1 that is missing, or -1 when they are contiguous. */
static long idx_gap(const struct idxset *s)
{
	for (long i = 0; i < (long)s->n; i++)
		if (!idx_has(s, i))
			return i;
	return -1;
}

/* The constraints IM keeps after merging a body, which are the ones it
 * checks: both bounds of a number (one when they are the same '=' value),
 * the first string or list; for contains, the first block of each group.
 * Calls fn on each, in order of first appearance. */
typedef int survivor_fn(const struct radl_doc *doc, const struct radl_feature *f, void *arg,
			struct diag *d);

static int each_survivor(const struct radl_doc *doc, const struct radl_mfeat *mf,
			 survivor_fn *fn, void *arg, struct diag *d)
{
	int rc = 0;
	switch (mf->kind) {
	case RADL_V_NUMBER:
		if (mf->lo_f && fn(doc, mf->lo_f, arg, d) < 0)
			rc = -1;
		if (mf->hi_f && mf->hi_f != mf->lo_f &&
		    !(mf->lo_f && mf->lo == mf->hi && mf->lo_f->cmp == RADL_EQ &&
		      mf->hi_f->cmp == RADL_EQ) &&
		    fn(doc, mf->hi_f, arg, d) < 0)
			rc = -1;
		break;
	default: /* strings, lists, and a contains (its blocks: check_apps) */
		if (fn(doc, mf->first, arg, d) < 0)
			rc = -1;
	}
	return rc;
}

static int check_app_survivor(const struct radl_doc *doc, const struct radl_feature *f,
			      void *arg, struct diag *d)
{
	(void)doc;
	(void)arg;
	return radl_check_app_feature(f, d);
}

/* disk.N.applications: each merged group is checked as an application. */
static int check_apps(const struct radl_doc *doc, const struct radl_mfeat *mf, struct diag *d)
{
	int rc = 0;
	for (size_t g = 0; g < mf->ngroups; g++) {
		const struct radl_merged *gm = &mf->groups[g].m;
		for (size_t i = 0; i < gm->n; i++)
			if (each_survivor(doc, &gm->f[i], check_app_survivor, NULL, d) < 0)
				rc = -1;
	}
	return rc;
}

static int check_simple_survivor(const struct radl_doc *doc, const struct radl_feature *f,
				 void *arg, struct diag *d)
{
	return radl_check_feature(doc, *(const enum radl_class *)arg, f, d);
}

struct indexed_arg {
	struct idxset *disks, *nets, *conns;
};

static int check_indexed_survivor(const struct radl_doc *doc, const struct radl_feature *f,
				  void *arg, struct diag *d)
{
	struct indexed_arg *ia = arg;
	long idx;
	const char *rest;
	const void *fam = radl_indexed(f->name, &idx, &rest);
	if (radl_check_feature(doc, RADL_SYSTEM, f, d) < 0)
		return -1;
	if (!fam || idx < 0 || !radl_known_suffix(fam, rest))
		return 0;
	if (radl_is_net_family(fam)) {
		idx_add(ia->nets, idx);
		if (strcmp(rest, "connection") == 0)
			idx_add(ia->conns, idx);
	} else {
		idx_add(ia->disks, idx);
	}
	return 0;
}

static bool before(const struct src_loc *a, const struct src_loc *b)
{
	return a->line < b->line || (a->line == b->line && a->col < b->col);
}

static int check_system_body(const struct radl_doc *doc, const struct radl_aspect *sys,
			     const struct radl_body *b, const struct src_loc *where,
			     struct diag *d);

static int check_softs(const struct radl_doc *doc, const struct radl_aspect *sys,
		       const struct radl_body *b, struct diag *d)
{
	int rc = 0;
	for (size_t i = 0; i < b->nsoft; i++)
		if (check_system_body(doc, sys, b->soft[i].body, &b->soft[i].loc, d) < 0)
			rc = -1;
	return rc;
}

/* A system body (or a soft block inside one, checked like a system), in
 * IM's order: the plain attributes (and the soft blocks where the first
 * one stands), then the indexed ones, then the index rules. */
static int check_system_body(const struct radl_doc *doc, const struct radl_aspect *sys,
			     const struct radl_body *b, const struct src_loc *where,
			     struct diag *d)
{
	struct idxset disks, nets, conns;
	struct indexed_arg ia = { &disks, &nets, &conns };
	enum radl_class cls = RADL_SYSTEM;
	struct radl_merged m;
	int rc = 0;
	bool softs_done = b->nsoft == 0;

	disks.v = disks.local;
	nets.v = nets.local;
	conns.v = conns.local;
	disks.n = nets.n = conns.n = 0;
	disks.cap = nets.cap = conns.cap = 16;
	radl_merge(&b, 1, &m, NULL);

	for (size_t i = 0; i < m.n; i++) {
		const struct radl_mfeat *mf = &m.f[i];
		long idx;
		const char *rest;
		if (!softs_done && before(&b->soft[0].loc, &mf->first->loc)) {
			if (check_softs(doc, sys, b, d) < 0)
				rc = -1;
			softs_done = true;
		}
		if (radl_indexed(mf->name, &idx, &rest) && !radl_simple_attr(RADL_SYSTEM, mf->name))
			continue;
		if (each_survivor(doc, mf, check_simple_survivor, &cls, d) < 0)
			rc = -1;
	}
	if (!softs_done && check_softs(doc, sys, b, d) < 0)
		rc = -1;
	for (size_t i = 0; i < m.n; i++) {
		const struct radl_mfeat *mf = &m.f[i];
		long idx;
		const char *rest;
		const void *fam = radl_indexed(mf->name, &idx, &rest);
		if (!fam || radl_simple_attr(RADL_SYSTEM, mf->name))
			continue;
		if (each_survivor(doc, mf, check_indexed_survivor, &ia, d) < 0) {
			rc = -1;
			continue;
		}
		if (mf->kind == RADL_V_CONTAINS && idx >= 0 && strcmp(rest, "applications") == 0 &&
		    check_apps(doc, mf, d) < 0)
			rc = -1;
	}
	radl_merged_release(&m);

	long gap;
	if (rc == 0 && (gap = idx_gap(&disks)) >= 0) {
		diag_error(d, IMC_EXIT_DATAERR, where,
			   "system '%s': disk indices must run from 0 without gaps, but disk.%ld is missing",
			   sys->id, gap);
		rc = -1;
	}
	if (rc == 0 && (gap = idx_gap(&nets)) >= 0) {
		diag_error(d, IMC_EXIT_DATAERR, where,
			   "system '%s': net_interface indices must run from 0 without gaps, but net_interface.%ld is missing",
			   sys->id, gap);
		rc = -1;
	}
	for (size_t k = 0; rc == 0 && k < nets.n; k++)
		if (!idx_has(&conns, nets.v[k])) {
			diag_error(d, IMC_EXIT_DATAERR, where,
				   "system '%s': net_interface.%ld has no 'net_interface.%ld.connection'",
				   sys->id, nets.v[k], nets.v[k]);
			rc = -1;
		}
	idx_release(&disks);
	idx_release(&nets);
	idx_release(&conns);
	return rc;
}

/* Networks and ansible hosts: the plain attributes that survive merging. */
static int check_simple_body(const struct radl_doc *doc, enum radl_class cls,
			     const struct radl_body *b, struct diag *d)
{
	struct radl_merged m;
	int rc = 0;
	radl_merge(&b, 1, &m, NULL);
	for (size_t i = 0; i < m.n; i++)
		if (each_survivor(doc, &m.f[i], check_simple_survivor, &cls, d) < 0)
			rc = -1;
	radl_merged_release(&m);
	return rc;
}

static int check_ansible(const struct radl_doc *doc, const struct radl_aspect *a, struct diag *d)
{
	if (check_simple_body(doc, RADL_ANSIBLE, &a->body, d) < 0)
		return -1;
	if (!radl_get_string(&a->body, "host")) {
		diag_error(d, IMC_EXIT_DATAERR, &a->loc, "ansible host '%s' has no 'host'", a->id);
		return -1;
	}
	if (!radl_get_string(&a->body, "credentials.username")) {
		diag_error(d, IMC_EXIT_DATAERR, &a->loc,
			   "ansible host '%s' has no 'credentials.username'", a->id);
		return -1;
	}
	if (!radl_get_string(&a->body, "credentials.password") &&
	    !radl_get_string(&a->body, "credentials.private_key")) {
		diag_error(d, IMC_EXIT_DATAERR, &a->loc,
			   "ansible host '%s' needs 'credentials.password' or 'credentials.private_key'",
			   a->id);
		return -1;
	}
	return 0;
}

/* Where a YAML mark of the recipe is in the RADL file (the recipe's first
 * line is the rest of the '@begin' line). */
static struct src_loc recipe_loc(const struct radl_configure *c, const yaml_mark_t *m)
{
	struct src_loc at = c->begin_loc;
	if (c->recipe_line <= 0) {
		at.line = 0;
		return at;
	}
	at.line = c->recipe_line + (int)m->line;
	at.col = (int)m->column + 1 + (m->line == 0 ? c->begin_loc.col + 5 : 0);
	return at;
}

/* msg is the problem; it is freed here. */
static void yaml_error(const struct radl_configure *c, struct diag *d, const yaml_mark_t *m,
		       char *msg)
{
	struct src_loc at = recipe_loc(c, m);
	diag_error(d, IMC_EXIT_DATAERR, &c->loc,
		   "the recipe of configure '%s' is not valid YAML", c->id);
	diag_note(d, at.line ? &at : NULL, "%s", msg);
	free(msg);
}

struct anchors {
	char **name;
	size_t n;
};

static void anchor_add(struct anchors *a, const unsigned char *name)
{
	if (!name)
		return;
	a->name = xreallocarray(a->name, a->n + 1, sizeof(*a->name));
	a->name[a->n++] = xstrdup((const char *)name);
}

static bool anchor_known(const struct anchors *a, const unsigned char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->name[i], (const char *)name) == 0)
			return true;
	return false;
}

/* The recipe must load as YAML: IM runs yaml.safe_load() on it, so beyond
 * the syntax libyaml checks, it must be one document and its aliases must
 * name anchors defined before them. The error is reported at the
 * configure, and the exact place as a note at the RADL line and column. */
static int check_recipe(const struct radl_doc *doc, const struct radl_configure *c,
			struct diag *d)
{
	yaml_parser_t parser;
	yaml_event_t event;
	struct anchors anchors = { NULL, 0 };
	int rc = 0, docs = 0;

	(void)doc;
	if (!yaml_parser_initialize(&parser))
		return 0;
	yaml_parser_set_input_string(&parser, (const unsigned char *)c->recipe, c->recipe_len);
	for (;;) {
		if (!yaml_parser_parse(&parser, &event)) {
			const char *problem = parser.problem ? parser.problem : "YAML error";
			if (parser.context)
				yaml_error(c, d, &parser.problem_mark,
					   xasprintf("%s (%s, line %d)", problem, parser.context,
						     c->recipe_line + (int)parser.context_mark.line));
			else
				yaml_error(c, d, &parser.problem_mark, xstrdup(problem));
			rc = -1;
			break;
		}
		const unsigned char *anchor = NULL;
		switch (event.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++docs == 2) {
				yaml_error(c, d, &event.start_mark,
					   xstrdup("found a second document: a recipe is one YAML document"));
				rc = -1;
			}
			break;
		case YAML_ALIAS_EVENT:
			if (!anchor_known(&anchors, event.data.alias.anchor)) {
				yaml_error(c, d, &event.start_mark,
					   xasprintf("found undefined alias '%s'",
						     (const char *)event.data.alias.anchor));
				rc = -1;
			}
			break;
		case YAML_SCALAR_EVENT: anchor = event.data.scalar.anchor; break;
		case YAML_SEQUENCE_START_EVENT: anchor = event.data.sequence_start.anchor; break;
		case YAML_MAPPING_START_EVENT: anchor = event.data.mapping_start.anchor; break;
		default: break;
		}
		anchor_add(&anchors, anchor);
		bool end = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
		if (end || rc < 0)
			break;
	}
	for (size_t i = 0; i < anchors.n; i++)
		free(anchors.name[i]);
	free(anchors.name);
	yaml_parser_delete(&parser);
	return rc;
}

static bool defined_system(const struct radl_doc *doc, const char *id)
{
	return radl_find_system(doc, id) != NULL;
}

int radl_check(const struct radl_doc *doc, struct diag *d)
{
	size_t nerr0 = d->nerrors;

	for (size_t i = 0; i < doc->nnetworks; i++)
		check_simple_body(doc, RADL_NETWORK, &doc->networks[i].body, d);
	for (size_t i = 0; i < doc->nansibles; i++)
		check_ansible(doc, &doc->ansibles[i], d);
	for (size_t i = 0; i < doc->nsystems; i++)
		check_system_body(doc, &doc->systems[i], &doc->systems[i].body,
				  &doc->systems[i].loc, d);
	for (size_t i = 0; i < doc->ndeploys; i++) {
		const struct radl_deploy *dp = &doc->deploys[i];
		if (!defined_system(doc, dp->system))
			diag_error(d, IMC_EXIT_DATAERR, &dp->loc,
				   "deploy names system '%s', which is not defined", dp->system);
		if (dp->count.value < 0)
			diag_error(d, IMC_EXIT_DATAERR, &dp->loc,
				   "deploy of '%s': the number of VMs cannot be negative", dp->system);
	}
	for (size_t i = 0; i < doc->nconfigures; i++)
		if (doc->configures[i].recipe)
			check_recipe(doc, &doc->configures[i], d);
	if (doc->ctxt.present) {
		const struct radl_number *mt = &doc->ctxt.max_time;
		if (!mt->is_int || mt->value < 0 || mt->value != floor(mt->value))
			diag_error(d, IMC_EXIT_DATAERR, &doc->ctxt.loc,
				   "the maximum time of 'contextualize' must be a whole number of seconds");
		for (size_t i = 0; i < doc->ctxt.nitems; i++) {
			const struct radl_ctxt_item *it = &doc->ctxt.items[i];
			if (!defined_system(doc, it->system))
				diag_error(d, IMC_EXIT_DATAERR, &it->loc,
					   "contextualize item names system '%s', which is not defined",
					   it->system);
			else if (!radl_find_configure(doc, it->configure))
				diag_error(d, IMC_EXIT_DATAERR, &it->loc,
					   "contextualize item names configure '%s', which is not defined",
					   it->configure);
		}
	}
	if (d->nerrors == nerr0)
		return 0;
	if (doc->source)
		diag_add_source(d, doc->file, doc->source, doc->source_len);
	return -1;
}
