/* parse.c: the RADL parser, recursive descent with one function per rule
 * (the rule in the comment above it), building the AST of radl.h.
 *
 * The language is IM's (radl(5) describes it):
 * same sentences, same one-token look-ahead quirks (a bare word after
 * 'deploy S N' is the cloud id even on the next line), same errors while
 * building (duplicate ids, contradicting constraints). After an error the
 * parser skips to the next sentence keyword that starts a line and goes on,
 * so one run reports several independent errors. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parser/radl-int.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_ERRORS 20

struct parser {
	struct radl_lexer lx;
	struct radl_token tok;  /* current token */
	struct radl_token prev; /* the one before */
	struct radl_doc *doc;
	struct diag *d;
	int errors;
	bool seen_sentence;
	int depth;              /* nesting of '(' blocks */
	unsigned rnd;           /* state for 'random(N)' */
};

static void advance(struct parser *P)
{
	P->prev = P->tok;
	radl_lex_next(&P->lx, &P->tok);
}

static bool at(const struct parser *P, enum radl_tok t)
{
	return P->tok.t == t;
}

static bool is_sentence_kw(enum radl_tok t)
{
	return t == TK_NETWORK || t == TK_SYSTEM || t == TK_ANSIBLE || t == TK_CONFIGURE ||
	       t == TK_CONTEXTUALIZE || t == TK_DEPLOY || t == TK_DESCRIPTION;
}

/* Describes the current token for "expected X, found Y". */
static void describe(const struct radl_token *t, char *buf, size_t n)
{
	int len = t->len > 40 ? 40 : (int)t->len;
	switch (t->t) {
	case TK_EOF:
		snprintf(buf, n, "end of input");
		break;
	case TK_NAME:
		snprintf(buf, n, "'%.*s'", len, t->start);
		break;
	case TK_NUMBER:
		snprintf(buf, n, "number %.*s", len, t->start);
		break;
	case TK_STRING:
		snprintf(buf, n, "string %.*s%s", len, t->start, t->len > 40 ? "..." : "");
		break;
	case TK_RECIPE:
		snprintf(buf, n, "a recipe");
		break;
	default:
		if (t->t >= TK_NETWORK)
			snprintf(buf, n, "reserved word '%s'", radl_tok_name(t->t));
		else
			snprintf(buf, n, "%s", radl_tok_name(t->t));
	}
}

/* Records "expected WHAT, found TOKEN" at the current token. A string that
 * ran over several lines just before is the usual cause: say so. */
static void expected(struct parser *P, const char *what)
{
	char found[96];
	P->errors++;
	if (P->errors > MAX_ERRORS || (P->tok.t == TK_EOF && P->lx.fatal))
		return; /* the lexer already said why the input ended */
	describe(&P->tok, found, sizeof(found));
	diag_error(P->d, IMC_EXIT_DATAERR, &P->tok.loc, "expected %s, found %s", what, found);
	if (P->prev.t == TK_STRING && P->prev.end_line > P->prev.loc.line)
		diag_note(P->d, &P->prev.loc,
			  "the string opened here runs to line %d; is a quote missing?",
			  P->prev.end_line);
}

static void error_at(struct parser *P, const struct src_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error_at(struct parser *P, const struct src_loc *loc, const char *fmt, ...)
{
	va_list ap;
	P->errors++;
	if (P->errors > MAX_ERRORS)
		return;
	va_start(ap, fmt);
	diag_verror(P->d, IMC_EXIT_DATAERR, loc, fmt, ap);
	va_end(ap);
}

/* When a block is left unclosed, say where it opened (Lua's check_match). */
static void note_open(struct parser *P, const struct src_loc *open, const char *what)
{
	if (P->errors <= MAX_ERRORS && open->line != P->tok.loc.line &&
	    !(P->tok.t == TK_EOF && P->lx.fatal))
		diag_note(P->d, open, "%s opened here", what);
}

static char *tok_str(const struct radl_token *t)
{
	return xstrndup(t->start, t->len);
}

static bool expect_name(struct parser *P, const char *what, char **out, struct src_loc *loc)
{
	if (!at(P, TK_NAME)) {
		expected(P, what);
		return false;
	}
	*out = tok_str(&P->tok);
	if (loc)
		*loc = P->tok.loc;
	advance(P);
	return true;
}

static bool comparator(enum radl_tok t, enum radl_cmp *cmp)
{
	switch (t) {
	case TK_EQ: *cmp = RADL_EQ; return true;
	case TK_LT: *cmp = RADL_LT; return true;
	case TK_GT: *cmp = RADL_GT; return true;
	case TK_LE: *cmp = RADL_LE; return true;
	case TK_GE: *cmp = RADL_GE; return true;
	default: return false;
	}
}

static char *random_string(struct parser *P, size_t n)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char *s = xmalloc(n + 1);
	if (!P->rnd)
		P->rnd = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16) ^ 0x9e3779b9u;
	for (size_t i = 0; i < n; i++) {
		P->rnd ^= P->rnd << 13;
		P->rnd ^= P->rnd >> 17;
		P->rnd ^= P->rnd << 5;
		s[i] = alnum[P->rnd % (sizeof(alnum) - 1)];
	}
	s[n] = '\0';
	return s;
}

static bool parse_body(struct parser *P, struct radl_body *b);
static bool parse_body_inner(struct parser *P, struct radl_body *b, const struct src_loc *open);
static void check_merge(struct parser *P, const struct radl_body *b);

/* A body with a syntax error: IM has already built (and checked) each
 * contains and soft block in it that closed before the error, so their
 * conflicts are reported too, while the body's own features were never
 * merged. (A block that failed itself was checked this way and dropped.) */
static void check_closed_blocks(struct parser *P, const struct radl_body *b)
{
	for (size_t i = 0; i < b->nfeat; i++)
		if (b->feat[i].contains)
			check_merge(P, b->feat[i].contains);
	for (size_t i = 0; i < b->nsoft; i++)
		check_merge(P, b->soft[i].body);
}

/* number ::= NUMBER [ NAME ]   (the NAME is the unit) */
static void parse_number(struct parser *P, struct radl_number *num)
{
	double v = P->tok.num;
	bool is_int = P->tok.is_int;
	advance(P);
	if (at(P, TK_NAME)) {
		radl_number_set(num, v, is_int, P->tok.start, P->tok.len);
		advance(P);
	} else {
		radl_number_set(num, v, is_int, NULL, 0);
	}
}

/* string_list ::= [ [ "," ] STRING { "," STRING } ]   (after '[') */
static bool parse_string_list(struct parser *P, struct radl_feature *f, const struct src_loc *open)
{
	size_t cap = 0;
	f->kind = RADL_V_LIST;
	if (at(P, TK_RBRACK)) {
		advance(P);
		return true;
	}
	if (at(P, TK_COMMA))
		advance(P);
	for (;;) {
		if (!at(P, TK_STRING)) {
			expected(P, "a string in the list");
			return false;
		}
		if (f->nlist == cap) {
			cap = cap ? cap * 2 : 4;
			f->list = xreallocarray(f->list, cap, sizeof(*f->list));
		}
		f->list[f->nlist++] = radl_string_value(P->tok.val, P->tok.vlen);
		advance(P);
		if (at(P, TK_RBRACK)) {
			advance(P);
			return true;
		}
		if (!at(P, TK_COMMA)) {
			expected(P, "',' or ']'");
			note_open(P, open, "'['");
			return false;
		}
		advance(P);
	}
}

/* feature ::= "soft" NUMBER "(" features ")"
 *           | NAME "contains" "(" features ")"
 *           | NAME comparator value
 * value   ::= NUMBER [ NAME ] | STRING | RANDOM | "[" string_list "]" */
static bool parse_feature(struct parser *P, struct radl_body *b)
{
	if (at(P, TK_SOFT)) {
		struct src_loc loc = P->tok.loc;
		advance(P);
		if (!at(P, TK_NUMBER)) {
			expected(P, "the weight of the 'soft' block");
			return false;
		}
		struct radl_soft *s = radl_body_add_soft(b);
		s->loc = loc;
		s->body = xcalloc(1, sizeof(*s->body));
		parse_number(P, &s->weight);
		if (!at(P, TK_LPAREN)) {
			expected(P, "'(' after 'soft N'");
			return false;
		}
		return parse_body(P, s->body);
	}
	if (!at(P, TK_NAME)) {
		if (P->tok.t >= TK_NETWORK && !is_sentence_kw(P->tok.t) && P->tok.t != TK_AND)
			error_at(P, &P->tok.loc,
				 "'%s' is a reserved word and cannot name a feature",
				 radl_tok_name(P->tok.t));
		else
			expected(P, "a feature name");
		return false;
	}
	struct radl_feature *f = radl_body_add(b);
	f->name = tok_str(&P->tok);
	f->loc = P->tok.loc;
	advance(P);
	if (at(P, TK_CONTAINS)) {
		advance(P);
		f->kind = RADL_V_CONTAINS;
		f->cmp = RADL_EQ;
		f->contains = xcalloc(1, sizeof(*f->contains));
		if (!at(P, TK_LPAREN)) {
			expected(P, "'(' after 'contains'");
			return false;
		}
		return parse_body(P, f->contains);
	}
	if (!comparator(P->tok.t, &f->cmp)) {
		expected(P, "a comparator ('=', '<', '>', '<=', '>=') or 'contains'");
		return false;
	}
	advance(P);
	switch (P->tok.t) {
	case TK_NUMBER:
		f->kind = RADL_V_NUMBER;
		parse_number(P, &f->num);
		return true;
	case TK_STRING:
		f->kind = RADL_V_STRING;
		f->str = radl_string_value(P->tok.val, P->tok.vlen);
		/* at once, so that no later diagnostic can show it */
		if (radl_secret_name(f->name))
			secret_register(f->str);
		advance(P);
		return true;
	case TK_RANDOM:
		if (P->tok.num > 4096) {
			error_at(P, &P->tok.loc, "'random(N)' is limited to N <= 4096");
			return false;
		}
		f->kind = RADL_V_STRING;
		f->str = random_string(P, (size_t)P->tok.num);
		advance(P);
		return true;
	case TK_LBRACK: {
		struct src_loc open = P->tok.loc;
		advance(P);
		return parse_string_list(P, f, &open);
	}
	default:
		expected(P, "a value (a number, a 'string' or a ['list'])");
		return false;
	}
}

/* features ::= [ [ "and" ] feature { "and" feature } ]   then ")"
 * (entered at '('; consumes the closing ')') */
static bool parse_body(struct parser *P, struct radl_body *b)
{
	struct src_loc open = P->tok.loc;
	b->open = open;
	if (P->depth >= RADL_MAX_DEPTH) {
		error_at(P, &open, "blocks are nested more than %d deep", RADL_MAX_DEPTH);
		return false;
	}
	P->depth++;
	bool ok = parse_body_inner(P, b, &open);
	P->depth--;
	if (!ok)
		check_closed_blocks(P, b);
	return ok;
}

/* Drops what a failed feature left in the body, so that later passes (the
 * merge, the checks) only see complete constraints. */
static void drop_partial(struct radl_body *b, size_t nfeat, size_t nsoft)
{
	while (b->nfeat > nfeat)
		radl_feature_release(&b->feat[--b->nfeat]);
	while (b->nsoft > nsoft) {
		struct radl_soft *s = &b->soft[--b->nsoft];
		free(s->weight.unit);
		if (s->body) {
			radl_body_release(s->body);
			free(s->body);
		}
	}
}

/* After a bad feature: skip to the 'and' or ')' that ends it at this
 * level. Returns false when the block is not closed before the next
 * sentence (or the end of input). */
static bool skip_feature(struct parser *P)
{
	int depth = 0;
	for (;;) {
		if (at(P, TK_EOF) || (is_sentence_kw(P->tok.t) && P->tok.bol))
			return false;
		if (depth == 0 && (at(P, TK_AND) || at(P, TK_RPAREN)))
			return true;
		if (at(P, TK_LPAREN))
			depth++;
		else if (at(P, TK_RPAREN))
			depth--;
		advance(P);
	}
}

static bool parse_body_inner(struct parser *P, struct radl_body *b, const struct src_loc *openp)
{
	struct src_loc open = *openp;
	bool ok = true;
	advance(P);
	if (at(P, TK_RPAREN)) {
		b->close = P->tok.loc;
		advance(P);
		return true;
	}
	if (at(P, TK_AND))
		advance(P);
	for (;;) {
		size_t nfeat = b->nfeat, nsoft = b->nsoft;
		bool fine = parse_feature(P, b);
		if (fine && at(P, TK_AND)) {
			advance(P);
			continue;
		}
		if (fine && at(P, TK_RPAREN)) {
			b->close = P->tok.loc;
			advance(P);
			return ok;
		}
		if (fine)
			expected(P, "'and' or ')'");
		else
			drop_partial(b, nfeat, nsoft);
		ok = false;
		/* the '(' note must follow its error directly */
		size_t nitems = P->d->n;
		if (!skip_feature(P)) {
			if (P->d->n == nitems)
				note_open(P, &open, "'('");
			return false;
		}
		if (at(P, TK_AND)) {
			advance(P);
			continue;
		}
		b->close = P->tok.loc;
		advance(P);
		return false;
	}
}

/* Whether some name occurs twice in the body or, recursively, in one of
 * its contains blocks: only then can constraints conflict. A 64-bit
 * signature of the names answers "no" for nearly every body without
 * building the merged view. */
static bool may_conflict(const struct radl_body *b)
{
	uint64_t seen = 0;
	for (size_t i = 0; i < b->nfeat; i++) {
		const struct radl_feature *f = &b->feat[i];
		uint64_t h = 14695981039346656037u;
		for (const char *s = f->name; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211u;
		uint64_t bit = (uint64_t)1 << (h >> 58);
		if (seen & bit)
			return true;
		seen |= bit;
		if (f->contains && may_conflict(f->contains))
			return true;
	}
	return false;
}

/* The soft blocks of a body, also those inside its contains blocks (a
 * contains body is merged with its group, but a soft block is a body of
 * its own wherever it stands). */
static void check_softs(struct parser *P, const struct radl_body *b)
{
	for (size_t i = 0; i < b->nsoft; i++)
		check_merge(P, b->soft[i].body);
	for (size_t i = 0; i < b->nfeat; i++)
		if (b->feat[i].contains)
			check_softs(P, b->feat[i].contains);
}

/* Conflicting constraints in one body are errors while building (IM). */
static void check_merge(struct parser *P, const struct radl_body *b)
{
	if (may_conflict(b)) {
		struct radl_merged m;
		if (radl_merge(&b, 1, &m, P->d) < 0)
			P->errors++;
		radl_merged_release(&m);
	}
	check_softs(P, b);
}

static const struct radl_aspect *find_any(const struct parser *P, enum radl_class cls, const char *id)
{
	switch (cls) {
	case RADL_NETWORK: return radl_find_network(P->doc, id);
	case RADL_SYSTEM: return radl_find_system(P->doc, id);
	case RADL_ANSIBLE: return radl_find_ansible(P->doc, id);
	default: return NULL;
	}
}

/* network     ::= "network" NAME [ "(" features ")" ]
 * system      ::= "system"  NAME [ "(" features ")" ]
 * ansible     ::= "ansible" NAME "(" features ")"
 * description ::= "description" NAME [ "(" features ")" ] */
static bool parse_aspect(struct parser *P, enum radl_class cls)
{
	struct radl_aspect a;
	struct src_loc id_loc;
	memset(&a, 0, sizeof(a));
	a.cls = cls;
	a.loc = P->tok.loc;
	advance(P);
	if (!expect_name(P, cls == RADL_DESCRIPTION ? "the description's name" :
			 cls == RADL_NETWORK ? "the network's name" :
			 cls == RADL_SYSTEM ? "the system's name" : "the ansible host's name",
			 &a.id, &id_loc))
		return false;
	if (at(P, TK_LPAREN)) {
		if (!parse_body(P, &a.body)) {
			radl_aspect_release(&a);
			return false;
		}
		check_merge(P, &a.body);
	} else if (cls == RADL_ANSIBLE) {
		expected(P, "'(' after 'ansible NAME' (an ansible host needs a body)");
		radl_aspect_release(&a);
		return false;
	} else {
		a.reference = true;
	}
	if (cls == RADL_DESCRIPTION) {
		if (P->doc->description) {
			error_at(P, &a.loc, "a document has at most one description");
			radl_aspect_release(&a);
			return true;
		}
		*radl_doc_add_aspect(P->doc, cls) = a;
		return true;
	}
	const struct radl_aspect *old = find_any(P, cls, a.id);
	if (old) {
		error_at(P, &id_loc, "%s '%s' is defined twice", radl_class_name(cls), a.id);
		if (P->errors <= MAX_ERRORS)
			diag_note(P->d, &old->loc, "'%s' was first defined here", a.id);
		radl_aspect_release(&a);
		return true;
	}
	*radl_doc_add_aspect(P->doc, cls) = a;
	radl_doc_reindex(P->doc);
	return true;
}

/* configure ::= "configure" NAME [ "(" [ RECIPE ] ")" ]
 * RECIPE    ::= "@begin" text "@end"   ('@end' at the start of a line) */
static bool parse_configure(struct parser *P)
{
	struct radl_configure c;
	struct src_loc id_loc;
	memset(&c, 0, sizeof(c));
	c.loc = P->tok.loc;
	advance(P);
	if (!expect_name(P, "the configure's name", &c.id, &id_loc))
		return false;
	if (!at(P, TK_LPAREN)) {
		c.reference = true;
	} else {
		struct src_loc open = P->tok.loc;
		advance(P);
		if (at(P, TK_RECIPE)) {
			if (P->tok.vlen == 0) {
				error_at(P, &P->tok.end_loc,
					 "empty recipe: '@end' right after '@begin' (put it on a line of its own)");
				free(c.id);
				return false;
			}
			c.begin_loc = P->tok.loc;
			c.recipe_line = P->tok.loc.line;
			c.recipe = xstrndup(P->tok.val, P->tok.vlen);
			c.recipe_len = strlen(c.recipe); /* the same: NUL was refused */
			advance(P);
		}
		if (!at(P, TK_RPAREN)) {
			expected(P, c.recipe ? "')' after '@end'" : "'@begin' or ')'");
			note_open(P, &open, "'('");
			free(c.id);
			free(c.recipe);
			return false;
		}
		advance(P);
	}
	const struct radl_configure *old = radl_find_configure(P->doc, c.id);
	if (old) {
		error_at(P, &id_loc, "configure '%s' is defined twice", c.id);
		if (P->errors <= MAX_ERRORS)
			diag_note(P->d, &old->loc, "'%s' was first defined here", c.id);
		free(c.id);
		free(c.recipe);
		return true;
	}
	*radl_doc_add_configure(P->doc) = c;
	radl_doc_reindex(P->doc);
	return true;
}

/* deploy ::= "deploy" NAME NUMBER [ NAME ]   (the last NAME is the cloud id) */
static bool parse_deploy(struct parser *P)
{
	struct radl_deploy dp;
	memset(&dp, 0, sizeof(dp));
	dp.loc = P->tok.loc;
	advance(P);
	if (!expect_name(P, "the name of the system to deploy", &dp.system, NULL))
		return false;
	if (!at(P, TK_NUMBER)) {
		expected(P, "the number of VMs to deploy");
		free(dp.system);
		return false;
	}
	radl_number_set(&dp.count, P->tok.num, P->tok.is_int, NULL, 0);
	advance(P);
	if (at(P, TK_NAME)) {
		dp.cloud = tok_str(&P->tok);
		advance(P);
	}
	*radl_doc_add_deploy(P->doc) = dp;
	return true;
}

/* ctxt_option ::= "option" NAME comparator ( STRING | NUMBER ) */
static bool parse_ctxt_option(struct parser *P)
{
	struct radl_body *opts = &P->doc->ctxt.options;
	advance(P);
	if (!at(P, TK_NAME)) {
		expected(P, "the option's name");
		return false;
	}
	struct radl_feature *f = radl_body_add(opts);
	f->name = tok_str(&P->tok);
	f->loc = P->tok.loc;
	advance(P);
	if (!comparator(P->tok.t, &f->cmp)) {
		expected(P, "a comparator");
		return false;
	}
	advance(P);
	if (at(P, TK_STRING)) {
		f->kind = RADL_V_STRING;
		f->str = radl_string_value(P->tok.val, P->tok.vlen);
	} else if (at(P, TK_NUMBER)) {
		f->kind = RADL_V_NUMBER;
		radl_number_set(&f->num, P->tok.num, P->tok.is_int, NULL, 0);
	} else {
		f->kind = RADL_V_STRING;
		f->str = xstrdup("");
		expected(P, "a string or a number");
		return false;
	}
	advance(P);
	return true;
}

/* ctxt_item ::= "system" NAME "configure" NAME [ "step" NUMBER | "with" NAME ] */
static bool parse_ctxt_item(struct parser *P)
{
	struct radl_ctxt_item it;
	memset(&it, 0, sizeof(it));
	it.loc = P->tok.loc;
	advance(P);
	if (!expect_name(P, "a system name", &it.system, NULL))
		return false;
	if (!at(P, TK_CONFIGURE)) {
		expected(P, "'configure'");
		free(it.system);
		return false;
	}
	advance(P);
	if (!expect_name(P, "a configure name", &it.configure, NULL)) {
		free(it.system);
		return false;
	}
	if (at(P, TK_STEP)) {
		advance(P);
		if (!at(P, TK_NUMBER)) {
			expected(P, "the step number");
			free(it.system);
			free(it.configure);
			return false;
		}
		radl_number_set(&it.step, P->tok.num, P->tok.is_int, NULL, 0);
		it.has_step = true;
		advance(P);
	} else if (at(P, TK_WITH)) {
		advance(P);
		if (!at(P, TK_NAME)) {
			expected(P, "the tool name after 'with'");
			free(it.system);
			free(it.configure);
			return false;
		}
		it.tool = tok_str(&P->tok);
		advance(P);
	}
	radl_ctxt_add_item(&P->doc->ctxt, &it);
	return true;
}

/* contextualize ::= "contextualize" [ NUMBER ] "(" { ctxt_option } { ctxt_item } ")" */
static bool parse_contextualize(struct parser *P)
{
	struct radl_contextualize *c = &P->doc->ctxt;
	struct src_loc kw = P->tok.loc;
	advance(P);
	if (!c->present)
		radl_number_set(&c->max_time, 0, true, NULL, 0);
	if (at(P, TK_NUMBER)) {
		if (P->tok.num > c->max_time.value)
			radl_number_set(&c->max_time, P->tok.num, P->tok.is_int, NULL, 0);
		advance(P);
	}
	if (!c->present) {
		c->present = true;
		c->loc = kw;
	}
	if (!at(P, TK_LPAREN)) {
		expected(P, "'(' after 'contextualize'");
		return false;
	}
	struct src_loc open = P->tok.loc;
	advance(P);
	bool items = false;
	for (;;) {
		if (at(P, TK_OPTION)) {
			if (items) {
				error_at(P, &P->tok.loc,
					 "'option' must come before the 'system ... configure ...' items");
				return false;
			}
			if (!parse_ctxt_option(P))
				return false;
		} else if (at(P, TK_SYSTEM)) {
			items = true;
			if (!parse_ctxt_item(P))
				return false;
		} else if (at(P, TK_RPAREN)) {
			advance(P);
			return true;
		} else {
			expected(P, "'option', 'system' or ')' in 'contextualize'");
			note_open(P, &open, "'('");
			return false;
		}
	}
}

/* sentence ::= network | system | ansible | configure | deploy | contextualize */
static bool parse_sentence(struct parser *P)
{
	switch (P->tok.t) {
	case TK_NETWORK: return parse_aspect(P, RADL_NETWORK);
	case TK_SYSTEM: return parse_aspect(P, RADL_SYSTEM);
	case TK_ANSIBLE: return parse_aspect(P, RADL_ANSIBLE);
	case TK_CONFIGURE: return parse_configure(P);
	case TK_DEPLOY: return parse_deploy(P);
	case TK_CONTEXTUALIZE: return parse_contextualize(P);
	case TK_RPAREN:
		error_at(P, &P->tok.loc, "unmatched ')'");
		return false;
	default:
		expected(P, "a sentence (network, system, configure, deploy, contextualize, ansible)");
		return false;
	}
}

/* After an error: skip to a sentence keyword that starts a line. */
static void recover(struct parser *P)
{
	do {
		if (at(P, TK_EOF))
			return;
		advance(P);
	} while (!(is_sentence_kw(P->tok.t) && P->tok.bol));
}

/* radl ::= { description } sentence { sentence } */
static void parse_radl(struct parser *P)
{
	advance(P);
	while (!at(P, TK_EOF) && P->errors <= MAX_ERRORS) {
		struct radl_token start = P->tok;
		bool ok;
		if (at(P, TK_DESCRIPTION)) {
			if (P->seen_sentence)
				error_at(P, &P->tok.loc,
					 "'description' must come before every other sentence");
			ok = parse_aspect(P, RADL_DESCRIPTION) && !P->seen_sentence;
		} else {
			ok = parse_sentence(P);
			if (ok)
				P->seen_sentence = true;
		}
		if (!ok) {
			/* do not stop on the token that started the failed sentence */
			if (P->tok.start == start.start && !at(P, TK_EOF))
				advance(P);
			if (!(is_sentence_kw(P->tok.t) && P->tok.bol))
				recover(P);
		}
	}
	if (P->errors > MAX_ERRORS || P->lx.errors > RADL_MAX_LEX_ERRORS) {
		diag_error(P->d, IMC_EXIT_DATAERR, NULL, "%s: too many errors, giving up",
			   P->doc->file);
		return;
	}
	if (!P->seen_sentence && !P->errors && !P->lx.errors)
		error_at(P, &P->tok.loc,
			 "expected a sentence (network, system, configure, deploy, contextualize, ansible), found end of input");
}

/* CRLF and lone CR become LF (the reference reads with universal newlines);
 * line numbers stay physical. */
static char *normalise(const char *text, size_t len, size_t *outlen)
{
	char *out = xmalloc(len + 1);
	size_t o = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *cr = memchr(p, '\r', (size_t)(end - p));
		size_t n = cr ? (size_t)(cr - p) : (size_t)(end - p);
		memcpy(out + o, p, n);
		o += n;
		if (!cr)
			break;
		out[o++] = '\n';
		p = cr + 1;
		if (p < end && *p == '\n')
			p++;
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* Length of the valid UTF-8 sequence at p (1 for ASCII), or 0 when it is
 * not valid (overlong forms, surrogates and code points past U+10FFFF are
 * not: RADL-JSON must be able to carry every string). NUL is refused too. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	if (c && c < 0x80)
		return 1;
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
		   c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (!n || (size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

/* The reference reads RADL as UTF-8 text; reject anything else at its
 * position rather than emit JSON that cannot hold it. ASCII without NUL is
 * skipped eight bytes at a time; the position is computed only on error. */
static bool valid_text(struct parser *P, const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	while (p < end) {
		if (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, 8);
			uint64_t zero = (w - 0x0101010101010101u) & ~w & 0x8080808080808080u;
			if (!((w & 0x8080808080808080u) | zero)) {
				p += 8;
				continue;
			}
		}
		size_t n = utf8_len(p, end);
		if (!n) {
			struct src_loc loc = { P->doc->file, 1, 1 };
			const unsigned char *ls = (const unsigned char *)text;
			for (const unsigned char *q = ls; q < p; q++)
				if (*q == '\n') {
					loc.line++;
					ls = q + 1;
				}
			loc.col = (int)(p - ls) + 1;
			diag_error(P->d, IMC_EXIT_DATAERR, &loc, *p ?
				   "invalid UTF-8 (byte 0x%02x): RADL files are UTF-8 text" :
				   "NUL byte: RADL files are text (byte 0x%02x)", *p);
			return false;
		}
		p += n;
	}
	return true;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\n\r\v\f", s[i]) || s[i] == '\0')
			return false;
	return true;
}

struct radl_doc *radl_parse(const char *file, const char *text, size_t len, struct diag *d)
{
	struct parser P;
	size_t nlen;
	char *norm = normalise(text, len, &nlen);

	memset(&P, 0, sizeof(P));
	P.d = d;
	P.doc = radl_doc_new(file);
	/* a UTF-8 byte order mark (some editors write one) is not content */
	if (nlen >= 3 && memcmp(norm, "\xef\xbb\xbf", 3) == 0) {
		memset(norm, ' ', 3);
	}
	if (blank(norm, nlen)) {
		free(norm);
		return P.doc;
	}
	size_t nerr0 = d->nerrors;
	if (valid_text(&P, norm, nlen)) {
		radl_lex_init(&P.lx, P.doc->file, norm, nlen, d);
		parse_radl(&P);
	}
	if (d->nerrors > nerr0) {
		diag_add_source(d, P.doc->file, norm, nlen);
		free(norm);
		radl_doc_free(P.doc);
		return NULL;
	}
	P.doc->source = norm;
	P.doc->source_len = nlen;
	return P.doc;
}
