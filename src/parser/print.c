/* print.c: RADL text from the AST (imc radl --radl, getinfo, getradl).
 * Every constraint is printed as written (nothing merged away), numbers
 * with their unit, strings quoted so that the text parses back to the same
 * document; the description comes first, as the grammar requires. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/radl-int.h"
#include "util/banned.h"

/* The shortest decimal form that reads back as the same double, never in
 * exponent notation (RADL has none: '1e3' is 1 with unit 'e3'), with a
 * decimal point unless it is an integer. */
static void add_number(struct strbuf *sb, double v, bool is_int)
{
	char buf[512];
	if (!isfinite(v)) {
		strbuf_addstr(sb, "0");
		return;
	}
	if (v < 0) {
		/* cannot be written in RADL; keep the magnitude readable */
		v = -v;
	}
	if (is_int && v == floor(v)) {
		snprintf(buf, sizeof(buf), "%.0f", v);
		strbuf_addstr(sb, buf);
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (strchr(buf, 'e')) {
		for (int p = 1; p <= 340; p++) {
			snprintf(buf, sizeof(buf), "%.*f", p, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	}
	strbuf_addstr(sb, buf);
	if (!strchr(buf, '.'))
		strbuf_addstr(sb, ".0");
}

static void add_radl_number(struct strbuf *sb, const struct radl_number *n)
{
	if (n->unit) {
		add_number(sb, n->written, n->is_int);
		if (n->unit[0] == '.')
			strbuf_addch(sb, ' ');
		strbuf_addstr(sb, n->unit);
	} else {
		add_number(sb, n->value, n->is_int);
	}
}

static void add_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

static void indent(struct strbuf *sb, int depth)
{
	for (int i = 0; i < depth; i++)
		strbuf_addstr(sb, "    ");
}

static void add_body(struct strbuf *sb, const struct radl_body *b, int depth);

static void add_feature(struct strbuf *sb, const struct radl_feature *f, int depth)
{
	strbuf_addstr(sb, f->name);
	if (f->kind == RADL_V_CONTAINS) {
		strbuf_addstr(sb, " contains ");
		add_body(sb, f->contains, depth);
		return;
	}
	strbuf_addf(sb, " %s ", radl_cmp_str(f->cmp));
	switch (f->kind) {
	case RADL_V_NUMBER:
		add_radl_number(sb, &f->num);
		break;
	case RADL_V_STRING:
		add_string(sb, f->str);
		break;
	case RADL_V_LIST:
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < f->nlist; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			add_string(sb, f->list[i]);
		}
		strbuf_addch(sb, ']');
		break;
	default:
		break;
	}
}

/* "( ... )" with one constraint per line, joined by 'and'. */
static void add_body(struct strbuf *sb, const struct radl_body *b, int depth)
{
	size_t n = b->nfeat + b->nsoft;
	if (n == 0) {
		strbuf_addstr(sb, "( )");
		return;
	}
	strbuf_addstr(sb, "(\n");
	size_t k = 0;
	for (size_t i = 0; i < b->nfeat; i++, k++) {
		indent(sb, depth + 1);
		add_feature(sb, &b->feat[i], depth + 1);
		strbuf_addstr(sb, k + 1 < n ? " and\n" : "\n");
	}
	for (size_t i = 0; i < b->nsoft; i++, k++) {
		indent(sb, depth + 1);
		strbuf_addstr(sb, "soft ");
		add_radl_number(sb, &b->soft[i].weight);
		strbuf_addch(sb, ' ');
		add_body(sb, b->soft[i].body, depth + 1);
		strbuf_addstr(sb, k + 1 < n ? " and\n" : "\n");
	}
	indent(sb, depth);
	strbuf_addch(sb, ')');
}

void radl_print_aspect(struct strbuf *sb, const struct radl_aspect *a)
{
	strbuf_addf(sb, "%s %s", radl_class_name(a->cls), a->id);
	if (!a->reference) {
		strbuf_addch(sb, ' ');
		add_body(sb, &a->body, 0);
	}
	strbuf_addch(sb, '\n');
}

void radl_print_configure(struct strbuf *sb, const struct radl_configure *c)
{
	strbuf_addf(sb, "configure %s", c->id);
	if (c->reference) {
		strbuf_addch(sb, '\n');
		return;
	}
	if (!c->recipe) {
		strbuf_addstr(sb, " ()\n");
		return;
	}
	strbuf_addstr(sb, " (\n@begin");
	/* the recipe starts with the rest of the @begin line */
	if (c->recipe_len == 0 || strncmp(c->recipe, "@end", 4) == 0)
		strbuf_addch(sb, '\n');
	strbuf_add(sb, c->recipe, c->recipe_len);
	if (c->recipe_len == 0 || c->recipe[c->recipe_len - 1] != '\n')
		strbuf_addch(sb, '\n');
	strbuf_addstr(sb, "@end\n)\n");
}

void radl_print_deploy(struct strbuf *sb, const struct radl_deploy *dp)
{
	strbuf_addf(sb, "deploy %s ", dp->system);
	add_number(sb, dp->count.value, dp->count.is_int);
	if (dp->cloud)
		strbuf_addf(sb, " %s", dp->cloud);
	strbuf_addch(sb, '\n');
}

void radl_print_contextualize(struct strbuf *sb, const struct radl_contextualize *c)
{
	if (!c->present)
		return;
	strbuf_addstr(sb, "contextualize ");
	if (c->max_time.value != 0) {
		add_number(sb, c->max_time.value, c->max_time.is_int);
		strbuf_addch(sb, ' ');
	}
	if (!c->options.nfeat && !c->nitems) {
		strbuf_addstr(sb, "()\n");
		return;
	}
	strbuf_addstr(sb, "(\n");
	for (size_t i = 0; i < c->options.nfeat; i++) {
		const struct radl_feature *f = &c->options.feat[i];
		strbuf_addf(sb, "    option %s %s ", f->name, radl_cmp_str(f->cmp));
		if (f->kind == RADL_V_NUMBER)
			add_number(sb, f->num.value, f->num.is_int);
		else
			add_string(sb, f->str ? f->str : "");
		strbuf_addch(sb, '\n');
	}
	for (size_t i = 0; i < c->nitems; i++) {
		const struct radl_ctxt_item *it = &c->items[i];
		strbuf_addf(sb, "    system %s configure %s", it->system, it->configure);
		if (it->has_step) {
			strbuf_addstr(sb, " step ");
			add_number(sb, it->step.value, it->step.is_int);
		} else if (it->tool) {
			strbuf_addf(sb, " with %s", it->tool);
		}
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, ")\n");
}

void radl_print_doc(struct strbuf *sb, const struct radl_doc *doc)
{
	if (doc->description)
		radl_print_aspect(sb, doc->description);
	for (size_t i = 0; i < doc->nansibles; i++)
		radl_print_aspect(sb, &doc->ansibles[i]);
	for (size_t i = 0; i < doc->nnetworks; i++)
		radl_print_aspect(sb, &doc->networks[i]);
	for (size_t i = 0; i < doc->nsystems; i++)
		radl_print_aspect(sb, &doc->systems[i]);
	for (size_t i = 0; i < doc->nconfigures; i++)
		radl_print_configure(sb, &doc->configures[i]);
	for (size_t i = 0; i < doc->ndeploys; i++)
		radl_print_deploy(sb, &doc->deploys[i]);
	radl_print_contextualize(sb, &doc->ctxt);
}

bool radl_string_printable(const char *v)
{
	/* print as add_string() does, then read back as the lexer does */
	size_t n = strlen(v);
	for (size_t i = 0; i < n; i++) {
		if (v[i] != '\\')
			continue;
		/* a backslash stays a backslash only if what follows it in the
		 * printed text is neither a quote, nor a newline, nor the end */
		if (i + 1 == n || v[i + 1] == '\n' || v[i + 1] == '\'')
			return false;
		i++; /* the pair is kept as written */
	}
	return true;
}

bool radl_recipe_printable(const char *r)
{
	if (strncmp(r, "@end", 4) == 0)
		return true; /* printed after a newline of its own */
	for (const char *p = strchr(r, '\n'); p; p = strchr(p + 1, '\n'))
		if (strncmp(p + 1, "@end", 4) == 0)
			return false;
	return true;
}
