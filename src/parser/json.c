/* json.c: RADL-JSON, both ways (jansson).
 *
 * Writing follows IM's radl_json.dump(): one object per sentence with a
 * "class", features merged by name (merge.c) and printed as 'p', 'p_min' or
 * 'p_max' with units applied, contains blocks as lists of objects, soft
 * blocks as "softs". Reading takes the same shape back ('p_min' becomes
 * 'p >= v', 'p_max' 'p <= v'), so RADL -> JSON -> RADL -> JSON is stable. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/radl-int.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *number_json(double v, bool is_int)
{
	if (is_int && fabs(v) < 9.0e18 && v == floor(v))
		return json_integer((json_int_t)v);
	return json_real(v);
}

static void merged_to_obj(json_t *obj, const struct radl_merged *m);

static json_t *body_obj(const struct radl_body *b)
{
	struct radl_merged m;
	json_t *o = json_object();
	radl_merge(&b, 1, &m, NULL);
	merged_to_obj(o, &m);
	radl_merged_release(&m);
	return o;
}

static void merged_to_obj(json_t *obj, const struct radl_merged *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct radl_mfeat *mf = &m->f[i];
		switch (mf->kind) {
		case RADL_V_NUMBER: {
			char *key;
			if (mf->has_lo && mf->has_hi && mf->lo == mf->hi) {
				json_object_set_new(obj, mf->name, number_json(mf->lo, mf->lo_int));
			} else if (mf->has_lo) {
				key = xasprintf("%s_min", mf->name);
				json_object_set_new(obj, key, number_json(mf->lo, mf->lo_int));
				free(key);
			} else if (mf->has_hi) {
				key = xasprintf("%s_max", mf->name);
				json_object_set_new(obj, key, number_json(mf->hi, mf->hi_int));
				free(key);
			}
			break;
		}
		case RADL_V_STRING:
			json_object_set_new(obj, mf->name, json_string(mf->first->str));
			break;
		case RADL_V_LIST: {
			json_t *a = json_array();
			for (size_t j = 0; j < mf->first->nlist; j++)
				json_array_append_new(a, json_string(mf->first->list[j]));
			json_object_set_new(obj, mf->name, a);
			break;
		}
		case RADL_V_CONTAINS: {
			json_t *a = json_array();
			for (size_t g = 0; g < mf->ngroups; g++) {
				json_t *o = json_object();
				merged_to_obj(o, &mf->groups[g].m);
				json_array_append_new(a, o);
			}
			json_object_set_new(obj, mf->name, a);
			break;
		}
		}
	}
	if (m->nsofts) {
		json_t *softs = json_array();
		for (size_t i = 0; i < m->nsofts; i++) {
			const struct radl_soft *s = m->softs[i];
			json_t *o = json_object();
			json_object_set_new(o, "weight", number_json(s->weight.value, s->weight.is_int));
			json_object_set_new(o, "items", body_obj(s->body));
			json_array_append_new(softs, o);
		}
		json_object_set_new(obj, "softs", softs);
	}
}

json_t *radl_aspect_to_json(const struct radl_aspect *a)
{
	json_t *o;
	if (a->reference)
		o = json_object();
	else
		o = body_obj(&a->body);
	json_object_set_new(o, "class", json_string(radl_class_name(a->cls)));
	json_object_set_new(o, "id", json_string(a->id));
	if (a->reference)
		json_object_set_new(o, "reference", json_true());
	return o;
}

static json_t *configure_json(const struct radl_configure *c)
{
	json_t *o = json_pack("{s:s, s:s}", "class", "configure", "id", c->id);
	if (c->reference)
		json_object_set_new(o, "reference", json_true());
	else
		json_object_set_new(o, "recipes",
				    c->recipe ? json_stringn(c->recipe, c->recipe_len) : json_null());
	return o;
}

static json_t *deploy_json(const struct radl_deploy *dp)
{
	json_t *o = json_pack("{s:s, s:s}", "class", "deploy", "system", dp->system);
	json_object_set_new(o, "vm_number", number_json(dp->count.value, dp->count.is_int));
	if (dp->cloud)
		json_object_set_new(o, "cloud", json_string(dp->cloud));
	return o;
}

/* One option, with the feature conventions (x_min for '>=' ...). */
static void option_json(json_t *opts, const struct radl_feature *f)
{
	const char *suffix = "";
	json_t *v;
	if (f->kind == RADL_V_NUMBER) {
		if (f->cmp == RADL_GT || f->cmp == RADL_GE)
			suffix = "_min";
		else if (f->cmp == RADL_LT || f->cmp == RADL_LE)
			suffix = "_max";
		v = number_json(f->num.value, f->num.is_int);
	} else {
		v = json_string(f->str ? f->str : "");
	}
	/* a later option of the same name replaces the earlier one */
	char *k1 = xasprintf("%s_min", f->name), *k2 = xasprintf("%s_max", f->name);
	json_object_del(opts, f->name);
	json_object_del(opts, k1);
	json_object_del(opts, k2);
	free(k1);
	free(k2);
	char *key = xasprintf("%s%s", f->name, suffix);
	json_object_set_new(opts, key, v);
	free(key);
}

static json_t *contextualize_json(const struct radl_contextualize *c)
{
	json_t *o = json_pack("{s:s}", "class", "contextualize");
	if (c->max_time.value != 0)
		json_object_set_new(o, "max_time", number_json(c->max_time.value, c->max_time.is_int));
	if (c->options.nfeat) {
		json_t *opts = json_object();
		for (size_t i = 0; i < c->options.nfeat; i++)
			option_json(opts, &c->options.feat[i]);
		json_object_set_new(o, "options", opts);
	}
	if (c->nitems) {
		json_t *items = json_array();
		for (size_t i = 0; i < c->nitems; i++) {
			const struct radl_ctxt_item *it = &c->items[i];
			json_t *io = json_pack("{s:s, s:s}", "system", it->system,
					       "configure", it->configure);
			if (it->has_step && it->step.value != 0)
				json_object_set_new(io, "step",
						    number_json(it->step.value, it->step.is_int));
			if (it->tool)
				json_object_set_new(io, "ctxt_tool", json_string(it->tool));
			json_array_append_new(items, io);
		}
		json_object_set_new(o, "items", items);
	}
	return o;
}

json_t *radl_doc_to_json(const struct radl_doc *doc)
{
	json_t *a = json_array();
	for (size_t i = 0; i < doc->nansibles; i++)
		json_array_append_new(a, radl_aspect_to_json(&doc->ansibles[i]));
	for (size_t i = 0; i < doc->nnetworks; i++)
		json_array_append_new(a, radl_aspect_to_json(&doc->networks[i]));
	for (size_t i = 0; i < doc->nsystems; i++)
		json_array_append_new(a, radl_aspect_to_json(&doc->systems[i]));
	for (size_t i = 0; i < doc->nconfigures; i++)
		json_array_append_new(a, configure_json(&doc->configures[i]));
	for (size_t i = 0; i < doc->ndeploys; i++)
		json_array_append_new(a, deploy_json(&doc->deploys[i]));
	if (doc->ctxt.present)
		json_array_append_new(a, contextualize_json(&doc->ctxt));
	if (doc->description)
		json_array_append_new(a, radl_aspect_to_json(doc->description));
	return a;
}

/* ---- reading ------------------------------------------------------------ */

/* jansson's iteration and reference counting take non-const pointers even
 * where nothing is changed. */
static json_t *unconst(const json_t *j)
{
	return (json_t *)(uintptr_t)j;
}

struct reader {
	struct radl_doc *doc;
	struct diag *d;
	struct src_loc loc; /* file only: jansson keeps no positions for values */
	int errors;
	int depth;
};

static void rerr(struct reader *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rerr(struct reader *R, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(R->d, IMC_EXIT_DATAERR, &R->loc, fmt, ap);
	va_end(ap);
	R->errors++;
}

/* RADL has no negative numbers, so RADL-JSON cannot have them either. */
static bool json_number(const json_t *v, struct radl_number *n)
{
	if (json_is_number(v) && json_number_value(v) < 0)
		return false;
	if (json_is_integer(v)) {
		radl_number_set(n, (double)json_integer_value(v), true, NULL, 0);
		return true;
	}
	if (json_is_real(v)) {
		radl_number_set(n, json_real_value(v), false, NULL, 0);
		return true;
	}
	return false;
}

/* A copy with CR LF and lone CR turned into LF, as RADL text gets them:
 * RADL-JSON values must mean what they would in a RADL file. */
static char *text_dup(const char *s)
{
	char *out = xstrdup(s), *o = out;
	for (const char *p = s; *p; p++) {
		if (*p == '\r') {
			*o++ = '\n';
			if (p[1] == '\n')
				p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n > k && memcmp(s + n - k, suf, k) == 0;
}

static void read_body(struct reader *R, const json_t *obj, struct radl_body *b,
		      const char *const *skip);

static void read_feature(struct reader *R, struct radl_body *b, const char *key, const json_t *v)
{
	size_t n = strlen(key);
	if (strcmp(key, "softs") == 0 && !json_is_array(v)) {
		/* IM iterates it as the list of soft blocks */
		rerr(R, "'softs' must be a list of soft blocks");
		return;
	}
	if (strcmp(key, "softs") == 0) {
		size_t i;
		const json_t *s;
		json_array_foreach(v, i, s) {
			const json_t *w = json_object_get(s, "weight");
			const json_t *items = json_object_get(s, "items");
			struct radl_soft *soft = radl_body_add_soft(b);
			soft->body = xcalloc(1, sizeof(*soft->body));
			soft->loc = R->loc;
			if (!json_is_object(s) || !w || !json_number(w, &soft->weight) ||
			    (items && !json_is_object(items))) {
				rerr(R, "'softs' entries must be objects with a numeric 'weight' and an 'items' object");
				continue;
			}
			if (items)
				read_body(R, items, soft->body, NULL);
		}
		return;
	}
	if (!radl_is_name(key)) {
		rerr(R, "'%s' cannot be a RADL feature name", key);
		return;
	}
	if (json_is_number(v) && json_number_value(v) < 0) {
		rerr(R, "'%s' is negative: RADL numbers never are", key);
		return;
	}
	/* 'p_min': p >= v, unless p cannot be a feature's name ('ansible_min',
	 * 'ansible' being a keyword): then it is the feature 'ansible_min',
	 * as 'ansible_min = 3' in RADL text is */
	bool bound = false;
	if (json_is_number(v) && (ends_with(key, n, "_min") || ends_with(key, n, "_max"))) {
		char *base = xstrndup(key, n - 4);
		bound = radl_is_name(base);
		free(base);
	}
	struct radl_feature *f = radl_body_add(b);
	f->cmp = RADL_EQ;
	if (bound && ends_with(key, n, "_min")) {
		f->name = xstrndup(key, n - 4);
		f->cmp = RADL_GE;
	} else if (bound && ends_with(key, n, "_max")) {
		f->name = xstrndup(key, n - 4);
		f->cmp = RADL_LE;
	} else {
		f->name = xstrdup(key);
	}
	f->loc = R->loc;
	if (json_number(v, &f->num)) {
		f->kind = RADL_V_NUMBER;
		/* JSON numbers carry no unit; give back the one a check needs */
		const char *unit = radl_required_unit(f->name);
		if (unit)
			radl_number_set(&f->num, f->num.written, f->num.is_int, unit, strlen(unit));
	} else if (json_is_string(v)) {
		f->kind = RADL_V_STRING;
		f->str = text_dup(json_string_value(v));
		if (!radl_string_printable(f->str))
			rerr(R, "the value of '%s' cannot be written as a RADL string (a backslash before a quote, a newline or the end)",
			     key);
	} else if (json_is_array(v) && json_array_size(v) > 0 &&
		   json_is_object(json_array_get(v, 0))) {
		/* contains: one block per object */
		size_t i;
		const json_t *o;
		bool first = true;
		json_array_foreach(v, i, o) {
			if (!json_is_object(o)) {
				rerr(R, "'%s': a list of objects cannot hold other values", key);
				break;
			}
			if (!first) {
				f = radl_body_add(b);
				f->name = xstrdup(key);
				f->cmp = RADL_EQ;
				f->loc = R->loc;
			}
			first = false;
			f->kind = RADL_V_CONTAINS;
			f->contains = xcalloc(1, sizeof(*f->contains));
			read_body(R, o, f->contains, NULL);
		}
	} else if (json_is_array(v)) {
		size_t i;
		const json_t *s;
		f->kind = RADL_V_LIST;
		f->list = xreallocarray(NULL, json_array_size(v) + 1, sizeof(char *));
		json_array_foreach(v, i, s) {
			if (!json_is_string(s)) {
				rerr(R, "'%s': a list may only hold strings", key);
				break;
			}
			f->list[f->nlist++] = text_dup(json_string_value(s));
			if (!radl_string_printable(f->list[f->nlist - 1]))
				rerr(R, "an item of '%s' cannot be written as a RADL string", key);
		}
	} else {
		f->kind = RADL_V_STRING;
		f->str = xstrdup("");
		rerr(R, "'%s' has a value RADL cannot express (null, true or false)", key);
	}
}

static bool skipped(const char *key, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (strcmp(key, *skip) == 0)
			return true;
	return false;
}

static void read_body(struct reader *R, const json_t *obj, struct radl_body *b,
		      const char *const *skip)
{
	const char *key;
	const json_t *v;
	if (R->depth >= RADL_MAX_DEPTH) {
		rerr(R, "blocks are nested more than %d deep", RADL_MAX_DEPTH);
		return;
	}
	R->depth++;
	json_t *mobj = unconst(obj);
	json_object_foreach(mobj, key, v) {
		if (skipped(key, skip))
			continue;
		read_feature(R, b, key, v);
	}
	R->depth--;
}

static const char *get_str(struct reader *R, const json_t *o, const char *key, bool required)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return json_string_value(v);
	const char *cls = json_string_value(json_object_get(o, "class"));
	if (v || required)
		rerr(R, "'%s' of a '%s' object must be a string", key,
		     cls ? cls : "contextualize item");
	return NULL;
}

/* A string that must be a RADL name (ids, references, cloud ids). */
static const char *get_name(struct reader *R, const json_t *o, const char *key, bool required)
{
	const char *s = get_str(R, o, key, required);
	const char *cls = json_string_value(json_object_get(o, "class"));
	if (s && !radl_is_name(s)) {
		rerr(R, "'%s' (the %s of a '%s' object) cannot be a RADL name", s, key,
		     cls ? cls : "contextualize item");
		return NULL;
	}
	return s;
}

/* "reference": a boolean; IM takes any true value for true and fails on
 * null, so anything but true or false is refused rather than guessed. */
static bool is_reference(struct reader *R, const json_t *o, const char *id)
{
	const json_t *r = json_object_get(o, "reference");
	if (r && !json_is_boolean(r))
		rerr(R, "'reference' of '%s' must be true or false", id);
	return json_is_true(r);
}

static void read_aspect(struct reader *R, const json_t *o, enum radl_class cls)
{
	static const char *const skip[] = { "class", "id", "reference", NULL };
	const char *id = get_name(R, o, "id", true);
	if (!id)
		return;
	struct radl_aspect *old = cls == RADL_SYSTEM ? radl_find_system(R->doc, id) :
				  cls == RADL_NETWORK ? radl_find_network(R->doc, id) :
				  cls == RADL_ANSIBLE ? radl_find_ansible(R->doc, id) :
				  R->doc->description;
	if (old) {
		rerr(R, cls == RADL_DESCRIPTION ? "more than one description" :
		     "%s '%s' is defined twice", radl_class_name(cls), id);
		return;
	}
	struct radl_aspect *a = radl_doc_add_aspect(R->doc, cls);
	a->id = xstrdup(id);
	radl_doc_reindex(R->doc);
	a->loc = R->loc;
	a->reference = is_reference(R, o, id);
	if (!a->reference)
		read_body(R, o, &a->body, skip);
	if (!a->reference && cls != RADL_DESCRIPTION && R->d) {
		struct radl_merged m;
		const struct radl_body *b = &a->body;
		if (radl_merge(&b, 1, &m, R->d) < 0)
			R->errors++;
		radl_merged_release(&m);
	}
}

static void read_configure(struct reader *R, const json_t *o)
{
	const char *id = get_name(R, o, "id", true);
	if (!id)
		return;
	if (radl_find_configure(R->doc, id)) {
		rerr(R, "configure '%s' is defined twice", id);
		return;
	}
	const json_t *rec = json_object_get(o, "recipes");
	bool reference = is_reference(R, o, id);
	if (!rec && !reference) {
		/* IM reads the key unconditionally: its API answers 400 */
		rerr(R, "configure '%s' has no 'recipes' (null for one without a recipe)", id);
		return;
	}
	if (rec && !json_is_string(rec) && !json_is_null(rec)) {
		rerr(R, "'recipes' of configure '%s' must be a string or null", id);
		return;
	}
	struct radl_configure *c = radl_doc_add_configure(R->doc);
	c->id = xstrdup(id);
	radl_doc_reindex(R->doc);
	c->loc = R->loc;
	c->reference = reference;
	if (json_is_string(rec)) {
		c->recipe = text_dup(json_string_value(rec));
		c->recipe_len = strlen(c->recipe);
		/* a RADL recipe is whole lines: give the last one its newline */
		if (c->recipe_len == 0 || c->recipe[c->recipe_len - 1] != '\n') {
			char *r = xasprintf("%s\n", c->recipe);
			free(c->recipe);
			c->recipe = r;
			c->recipe_len++;
		}
		if (!radl_recipe_printable(c->recipe))
			rerr(R, "the recipe of configure '%s' has a line starting with '@end'", id);
	}
}

static void read_deploy(struct reader *R, const json_t *o)
{
	const char *sys = get_name(R, o, "system", true);
	const char *cloud = get_name(R, o, "cloud", false);
	struct radl_number n = { 0 };
	if (!sys)
		return;
	if (!json_number(json_object_get(o, "vm_number"), &n)) {
		rerr(R, "deploy of '%s': 'vm_number' must be a number", sys);
		return;
	}
	struct radl_deploy *dp = radl_doc_add_deploy(R->doc);
	dp->system = xstrdup(sys);
	dp->count = n;
	dp->cloud = cloud ? xstrdup(cloud) : NULL;
	dp->loc = R->loc;
}

static void read_contextualize(struct reader *R, const json_t *o)
{
	struct radl_contextualize *c = &R->doc->ctxt;
	struct radl_number mt = { 0 };
	const json_t *v = json_object_get(o, "max_time");
	radl_number_set(&mt, 0, true, NULL, 0);
	if (v && !json_number(v, &mt))
		rerr(R, "'max_time' of contextualize must be a number");
	if (!c->present || mt.value > c->max_time.value) {
		free(c->max_time.unit);
		c->max_time = mt;
	}
	c->present = true;
	c->loc = R->loc;
	const json_t *opts = json_object_get(o, "options");
	if (opts && !json_is_object(opts))
		rerr(R, "'options' of contextualize must be an object");
	else if (opts)
		read_body(R, opts, &c->options, NULL);
	for (size_t i = 0; i < c->options.nfeat; i++)
		if (c->options.feat[i].kind != RADL_V_STRING &&
		    c->options.feat[i].kind != RADL_V_NUMBER)
			rerr(R, "option '%s' must be a string or a number", c->options.feat[i].name);
	const json_t *items = json_object_get(o, "items");
	if (items && !json_is_array(items)) {
		rerr(R, "'items' of contextualize must be a list");
		return;
	}
	size_t i;
	const json_t *it;
	json_array_foreach(items, i, it) {
		const char *sys = get_name(R, it, "system", true);
		const char *conf = get_name(R, it, "configure", true);
		const char *tool = get_name(R, it, "ctxt_tool", false);
		if (!sys || !conf)
			continue;
		struct radl_ctxt_item item;
		memset(&item, 0, sizeof(item));
		item.system = xstrdup(sys);
		item.configure = xstrdup(conf);
		item.tool = tool ? xstrdup(tool) : NULL;
		item.loc = R->loc;
		const json_t *step = json_object_get(it, "step");
		if (step) {
			if (json_number(step, &item.step))
				item.has_step = true;
			else
				rerr(R, "'step' of a contextualize item must be a number");
		}
		radl_ctxt_add_item(c, &item);
	}
}

struct radl_doc *radl_doc_from_json(const char *file, const json_t *j, struct diag *d)
{
	struct reader R = { radl_doc_new(file), d, { NULL, 0, 0 }, 0, 0 };
	R.loc.file = R.doc->file;
	size_t nerr0 = d->nerrors;
	json_t *arr = json_is_object(j) ? json_pack("[O]", unconst(j)) : json_incref(unconst(j));
	if (!json_is_array(arr)) {
		rerr(&R, "RADL-JSON must be a list of objects, each with a \"class\"");
	} else {
		size_t i;
		const json_t *o;
		json_array_foreach(arr, i, o) {
			const char *cls = json_string_value(json_object_get(o, "class"));
			if (!json_is_object(o) || !cls) {
				rerr(&R, "element %zu of the RADL-JSON list has no \"class\"", i);
				continue;
			}
			if (strcmp(cls, "system") == 0)
				read_aspect(&R, o, RADL_SYSTEM);
			else if (strcmp(cls, "network") == 0)
				read_aspect(&R, o, RADL_NETWORK);
			else if (strcmp(cls, "ansible") == 0)
				read_aspect(&R, o, RADL_ANSIBLE);
			else if (strcmp(cls, "description") == 0)
				read_aspect(&R, o, RADL_DESCRIPTION);
			else if (strcmp(cls, "configure") == 0)
				read_configure(&R, o);
			else if (strcmp(cls, "deploy") == 0)
				read_deploy(&R, o);
			else if (strcmp(cls, "contextualize") == 0)
				read_contextualize(&R, o);
			else
				rerr(&R, "unknown class '%s' in element %zu", cls, i);
		}
	}
	json_decref(arr);
	if (d->nerrors > nerr0) {
		radl_doc_free(R.doc);
		return NULL;
	}
	radl_register_secrets(R.doc);
	return R.doc;
}

struct radl_doc *radl_parse_json(const char *file, const char *text, size_t len, struct diag *d)
{
	json_error_t err;
	json_t *j = json_loadb(text, len, JSON_DECODE_ANY, &err);
	if (!j) {
		struct src_loc loc = { file, err.line > 0 ? err.line : 0, err.column > 0 ? err.column : 1 };
		diag_add_source(d, file, text, len);
		diag_error(d, IMC_EXIT_DATAERR, &loc, "invalid JSON: %s", err.text);
		return NULL;
	}
	struct radl_doc *doc = radl_doc_from_json(file, j, d);
	json_decref(j);
	return doc;
}
