/* expr-parse.c: the recursive-descent parser of the templating engine. It
 * turns the lexer's tokens into an AST: template statements (text, {{ }},
 * if/for/set/do/macro/include/filter/with) and expressions with Jinja2's
 * precedence (condexpr > or > and > not > compare > + - > ~ > * / // % > **
 * > unary > primary/postfix > filters and tests). Each rule's function names
 * the rule in its first comment, as in Lua's lparser.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct parser {
	const struct tokens *t;
	size_t i;
	size_t errpos;
	char *errmsg;
	int depth;
};

#define MAX_NEST 200

void nlist_push(struct nlist *l, struct tnode *n)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 4;
		l->v = xreallocarray(l->v, l->alloc, sizeof(*l->v));
	}
	l->v[l->n++] = n;
}

void nlist_free(struct nlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		tnode_free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

void tnode_free(struct tnode *n)
{
	if (!n)
		return;
	json_decref(n->lit);
	free(n->name);
	tnode_free(n->a);
	tnode_free(n->b);
	tnode_free(n->c);
	tnode_free(n->d);
	nlist_free(&n->args);
	free(n->cmpops);
	for (size_t i = 0; i < n->nkw; i++) {
		free(n->kwnames[i]);
		tnode_free(n->kwvals[i]);
	}
	free(n->kwnames);
	free(n->kwvals);
	nlist_free(&n->body);
	nlist_free(&n->orelse);
	for (size_t i = 0; i < n->ntargets; i++)
		free(n->targets[i]);
	free(n->targets);
	free(n->attr);
	free(n);
}

static struct tnode *mk(enum nkind k, size_t pos)
{
	struct tnode *n = xcalloc(1, sizeof(*n));
	n->kind = k;
	n->pos = pos;
	return n;
}

static const struct token *cur(struct parser *p) { return &p->t->v[p->i]; }
static const struct token *peek(struct parser *p, size_t k)
{
	size_t j = p->i + k;
	if (j >= p->t->n)
		j = p->t->n - 1;
	return &p->t->v[j];
}
static void adv(struct parser *p)
{
	if (p->i + 1 < p->t->n)
		p->i++;
}

static const char *tkdesc(const struct token *k)
{
	switch (k->type) {
	case TK_EOF: return "end of template";
	case TK_DATA: return "template data";
	case TK_VAR_BEGIN: return "begin of print statement";
	case TK_VAR_END: return "end of print statement";
	case TK_BLOCK_BEGIN: return "begin of statement block";
	case TK_BLOCK_END: return "end of statement block";
	case TK_NAME: return k->str;
	case TK_STRING: return "string";
	case TK_INT: return "integer";
	case TK_FLOAT: return "float";
	case TK_ADD: return "+";
	case TK_SUB: return "-";
	case TK_MUL: return "*";
	case TK_DIV: return "/";
	case TK_FLOORDIV: return "//";
	case TK_MOD: return "%";
	case TK_POW: return "**";
	case TK_TILDE: return "~";
	case TK_EQ: return "==";
	case TK_NE: return "!=";
	case TK_LT: return "<";
	case TK_LE: return "<=";
	case TK_GT: return ">";
	case TK_GE: return ">=";
	case TK_ASSIGN: return "=";
	case TK_DOT: return ".";
	case TK_COMMA: return ",";
	case TK_COLON: return ":";
	case TK_PIPE: return "|";
	case TK_LPAREN: return "(";
	case TK_RPAREN: return ")";
	case TK_LBRACKET: return "[";
	case TK_RBRACKET: return "]";
	case TK_LBRACE: return "{";
	case TK_RBRACE: return "}";
	}
	return "?";
}

static void *perr(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *perr(struct parser *p, size_t pos, const char *fmt, ...)
{
	if (!p->errmsg) {
		struct strbuf sb = STRBUF_INIT;
		va_list ap;
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
		p->errmsg = strbuf_detach(&sb);
		p->errpos = pos;
	}
	return NULL;
}

static void *unexpected(struct parser *p, const char *expected)
{
	const struct token *k = cur(p);
	if (k->type == TK_EOF)
		return perr(p, k->pos, "unexpected end of template, expected '%s'", expected);
	if (expected)
		return perr(p, k->pos, "expected token '%s', got '%s'", expected, tkdesc(k));
	return perr(p, k->pos, "unexpected '%s'", tkdesc(k));
}

static bool is_name(struct parser *p, const char *s)
{
	const struct token *k = cur(p);
	return k->type == TK_NAME && strcmp(k->str, s) == 0;
}

static bool expect(struct parser *p, enum tk t, const char *what)
{
	if (cur(p)->type != t) {
		unexpected(p, what);
		return false;
	}
	adv(p);
	return true;
}

/* Left-deep chains (a.b.c, x|f|g, 1+2+3, elif) nest the AST as deeply as
 * recursion does: each link counts toward MAX_NEST too, so evaluation and
 * freeing never recurse deeper than the parser allowed. */
static bool chain_link(struct parser *p, int *links)
{
	(*links)++;
	if (++p->depth > MAX_NEST) {
		perr(p, cur(p)->pos, "expression nested too deeply");
		return false;
	}
	return true;
}

static struct tnode *parse_expr(struct parser *p, bool with_cond);
static struct tnode *parse_unary(struct parser *p, bool with_filter);
static struct tnode *parse_postfix(struct parser *p, struct tnode *n);
static struct tnode *parse_primary(struct parser *p);

/* call_args: '(' [expr | name '=' expr] {',' ...} ')' — current token is '(' */
static bool parse_call_args(struct parser *p, struct tnode *n)
{
	adv(p);
	bool first = true;
	while (cur(p)->type != TK_RPAREN) {
		if (!first && !expect(p, TK_COMMA, ","))
			return false;
		first = false;
		if (cur(p)->type == TK_RPAREN)
			break;
		if (cur(p)->type == TK_NAME && peek(p, 1)->type == TK_ASSIGN) {
			char *kn = xstrdup(cur(p)->str);
			adv(p);
			adv(p);
			struct tnode *v = parse_expr(p, true);
			if (!v) {
				free(kn);
				return false;
			}
			n->kwnames = xreallocarray(n->kwnames, n->nkw + 1, sizeof(char *));
			n->kwvals = xreallocarray(n->kwvals, n->nkw + 1, sizeof(struct tnode *));
			n->kwnames[n->nkw] = kn;
			n->kwvals[n->nkw++] = v;
		} else {
			if (n->nkw)
				return perr(p, cur(p)->pos, "invalid syntax for function call expression"), false;
			struct tnode *v = parse_expr(p, true);
			if (!v)
				return false;
			nlist_push(&n->args, v);
		}
	}
	adv(p);
	return true;
}

/* n '(' call_args ')': a call of n, which is freed when the arguments are
 * bad (then NULL) — current token is '(' */
static struct tnode *parse_call(struct parser *p, struct tnode *n)
{
	struct tnode *c = mk(N_CALL, cur(p)->pos);
	c->a = n;
	if (!parse_call_args(p, c)) {
		tnode_free(c);
		return NULL;
	}
	return c;
}

/* dotted_name: NAME {'.' NAME} (ansible.builtin.to_json) */
static char *parse_dotted(struct parser *p)
{
	if (cur(p)->type != TK_NAME)
		return unexpected(p, "name");
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, cur(p)->str);
	adv(p);
	while (cur(p)->type == TK_DOT && peek(p, 1)->type == TK_NAME) {
		adv(p);
		strbuf_addch(&sb, '.');
		strbuf_addstr(&sb, cur(p)->str);
		adv(p);
	}
	return strbuf_detach(&sb);
}

/* filter: '|' dotted_name [call_args] */
static struct tnode *parse_filter(struct parser *p, struct tnode *in)
{
	size_t pos = cur(p)->pos;
	adv(p);
	char *name = parse_dotted(p);
	if (!name) {
		tnode_free(in);
		return NULL;
	}
	struct tnode *n = mk(N_FILTER, pos);
	n->a = in;
	n->name = name;
	if (cur(p)->type == TK_LPAREN && !parse_call_args(p, n)) {
		tnode_free(n);
		return NULL;
	}
	return n;
}

/* test: 'is' ['not'] dotted_name [call_args | primary] */
static struct tnode *parse_test(struct parser *p, struct tnode *in)
{
	size_t pos = cur(p)->pos;
	adv(p);
	struct tnode *n = mk(N_TEST, pos);
	n->a = in;
	if (is_name(p, "not")) {
		n->op = 1;
		adv(p);
	}
	n->name = parse_dotted(p);
	if (!n->name) {
		tnode_free(n);
		return NULL;
	}
	const struct token *k = cur(p);
	if (k->type == TK_LPAREN) {
		if (!parse_call_args(p, n)) {
			tnode_free(n);
			return NULL;
		}
	} else if ((k->type == TK_NAME || k->type == TK_STRING || k->type == TK_INT ||
		    k->type == TK_FLOAT || k->type == TK_LBRACKET || k->type == TK_LBRACE) &&
		   !is_name(p, "else") && !is_name(p, "or") && !is_name(p, "and") &&
		   !is_name(p, "if")) {
		if (is_name(p, "is")) {
			tnode_free(n);
			return perr(p, k->pos, "You cannot chain multiple tests with is");
		}
		struct tnode *arg = parse_primary(p);
		if (arg)
			arg = parse_postfix(p, arg);
		if (!arg) {
			tnode_free(n);
			return NULL;
		}
		nlist_push(&n->args, arg);
	}
	return n;
}

/* filter_expr: { filter | test | call_args } */
static struct tnode *parse_filter_expr(struct parser *p, struct tnode *n)
{
	int links = 0;
	while (n) {
		const struct token *k = cur(p);
		if ((k->type == TK_PIPE || is_name(p, "is") || k->type == TK_LPAREN) && !chain_link(p, &links)) {
			tnode_free(n);
			n = NULL;
			break;
		}
		if (k->type == TK_PIPE) {
			n = parse_filter(p, n);
		} else if (is_name(p, "is")) {
			n = parse_test(p, n);
		} else if (k->type == TK_LPAREN) {
			n = parse_call(p, n);
		} else {
			break;
		}
	}
	p->depth -= links;
	return n;
}

/* subscript: '.' (NAME | INT) | '[' [expr] [':' [expr] [':' [expr]]] ']' */
static struct tnode *parse_subscript(struct parser *p, struct tnode *n)
{
	const struct token *k = cur(p);
	size_t pos = k->pos;
	if (k->type == TK_DOT) {
		adv(p);
		k = cur(p);
		if (k->type == TK_NAME) {
			struct tnode *g = mk(N_GETATTR, pos);
			g->a = n;
			g->name = xstrdup(k->str);
			adv(p);
			return g;
		}
		if (k->type == TK_INT) {
			struct tnode *g = mk(N_GETITEM, pos);
			g->a = n;
			g->b = mk(N_LIT, k->pos);
			g->b->lit = json_integer(k->ival);
			adv(p);
			return g;
		}
		tnode_free(n);
		return perr(p, k->pos, "expected name or number");
	}
	/* '[' */
	adv(p);
	struct tnode *parts[3] = { NULL, NULL, NULL };
	int np = 0;
	bool slice = false;
	for (;;) {
		if (cur(p)->type == TK_COLON) {
			slice = true;
			if (np >= 2)
				goto bad;
			adv(p);
			np++;
			continue;
		}
		if (cur(p)->type == TK_RBRACKET)
			break;
		if (parts[np])
			goto bad;
		parts[np] = parse_expr(p, true);
		if (!parts[np])
			goto fail;
		if (!slice && cur(p)->type == TK_COMMA) {
			/* a[1, 2]: tuple index */
			struct tnode *t = mk(N_TUPLE, parts[0]->pos);
			nlist_push(&t->args, parts[0]);
			while (cur(p)->type == TK_COMMA) {
				adv(p);
				if (cur(p)->type == TK_RBRACKET)
					break;
				struct tnode *e = parse_expr(p, true);
				if (!e) {
					tnode_free(t);
					parts[0] = NULL;
					goto fail;
				}
				nlist_push(&t->args, e);
			}
			parts[0] = t;
		}
	}
	adv(p);
	if (!slice) {
		if (!parts[0]) {
			tnode_free(n);
			return perr(p, pos, "expected an expression in subscript");
		}
		struct tnode *g = mk(N_GETITEM, pos);
		g->a = n;
		g->b = parts[0];
		return g;
	}
	struct tnode *s = mk(N_SLICE, pos);
	s->a = n;
	s->b = parts[0];
	s->c = parts[1];
	s->d = parts[2];
	return s;
bad:
	unexpected(p, "]");
fail:
	for (int i = 0; i < 3; i++)
		tnode_free(parts[i]);
	tnode_free(n);
	return NULL;
}

/* postfix: { subscript | call_args } */
static struct tnode *parse_postfix(struct parser *p, struct tnode *n)
{
	int links = 0;
	while (n) {
		const struct token *k = cur(p);
		if ((k->type == TK_DOT || k->type == TK_LBRACKET || k->type == TK_LPAREN) && !chain_link(p, &links)) {
			tnode_free(n);
			n = NULL;
			break;
		}
		if (k->type == TK_DOT || k->type == TK_LBRACKET) {
			n = parse_subscript(p, n);
		} else if (k->type == TK_LPAREN) {
			n = parse_call(p, n);
		} else {
			break;
		}
	}
	p->depth -= links;
	return n;
}

/* primary: NAME | STRING+ | INT | FLOAT | '(' tuple ')' | list | dict */
static struct tnode *parse_primary(struct parser *p)
{
	const struct token *k = cur(p);
	struct tnode *n;
	if (++p->depth > MAX_NEST) {
		p->depth--;
		return perr(p, k->pos, "expression nested too deeply");
	}
	switch (k->type) {
	case TK_NAME:
		n = mk(N_LIT, k->pos);
		if (!strcmp(k->str, "true") || !strcmp(k->str, "True"))
			n->lit = json_true();
		else if (!strcmp(k->str, "false") || !strcmp(k->str, "False"))
			n->lit = json_false();
		else if (!strcmp(k->str, "none") || !strcmp(k->str, "None"))
			n->lit = json_null();
		else {
			n->kind = N_NAME;
			n->name = xstrdup(k->str);
		}
		adv(p);
		break;
	case TK_STRING: {
		struct strbuf sb = STRBUF_INIT;
		n = mk(N_LIT, k->pos);
		while (cur(p)->type == TK_STRING) {
			strbuf_add(&sb, cur(p)->str, cur(p)->slen);
			adv(p);
		}
		n->lit = json_stringn(sb.buf ? sb.buf : "", sb.len);
		if (!n->lit) /* invalid UTF-8: keep the bytes we can */
			n->lit = json_string("");
		strbuf_release(&sb);
		break;
	}
	case TK_INT:
		n = mk(N_LIT, k->pos);
		n->lit = json_integer(k->ival);
		adv(p);
		break;
	case TK_FLOAT:
		n = mk(N_LIT, k->pos);
		n->lit = json_real(k->fval);
		adv(p);
		break;
	case TK_LPAREN: {
		size_t pos = k->pos;
		adv(p);
		if (cur(p)->type == TK_RPAREN) {
			adv(p);
			n = mk(N_TUPLE, pos);
			break;
		}
		n = parse_expr(p, true);
		if (n && cur(p)->type == TK_COMMA) {
			struct tnode *t = mk(N_TUPLE, pos);
			nlist_push(&t->args, n);
			n = t;
			while (cur(p)->type == TK_COMMA) {
				adv(p);
				if (cur(p)->type == TK_RPAREN)
					break;
				struct tnode *e = parse_expr(p, true);
				if (!e) {
					tnode_free(t);
					n = NULL;
					break;
				}
				nlist_push(&t->args, e);
			}
		}
		if (n && !expect(p, TK_RPAREN, ")")) {
			tnode_free(n);
			n = NULL;
		}
		break;
	}
	case TK_LBRACKET: {
		n = mk(N_LIST, k->pos);
		adv(p);
		while (cur(p)->type != TK_RBRACKET) {
			if (n->args.n && !expect(p, TK_COMMA, ",")) {
				tnode_free(n);
				n = NULL;
				break;
			}
			if (cur(p)->type == TK_RBRACKET)
				break;
			struct tnode *e = parse_expr(p, true);
			if (!e) {
				tnode_free(n);
				n = NULL;
				break;
			}
			nlist_push(&n->args, e);
		}
		if (n)
			adv(p);
		break;
	}
	case TK_LBRACE: {
		n = mk(N_DICT, k->pos);
		adv(p);
		while (cur(p)->type != TK_RBRACE) {
			if (n->args.n && !expect(p, TK_COMMA, ",")) {
				tnode_free(n);
				n = NULL;
				break;
			}
			if (cur(p)->type == TK_RBRACE)
				break;
			struct tnode *key = parse_expr(p, true);
			if (!key || !expect(p, TK_COLON, ":")) {
				tnode_free(key);
				tnode_free(n);
				n = NULL;
				break;
			}
			struct tnode *val = parse_expr(p, true);
			if (!val) {
				tnode_free(key);
				tnode_free(n);
				n = NULL;
				break;
			}
			nlist_push(&n->args, key);
			nlist_push(&n->args, val);
		}
		if (n)
			adv(p);
		break;
	}
	default:
		n = unexpected(p, NULL);
	}
	p->depth--;
	return n;
}

/* unary: ('-' | '+') unary | primary postfix [filter_expr] */
static struct tnode *parse_unary(struct parser *p, bool with_filter)
{
	const struct token *k = cur(p);
	struct tnode *n;
	if (++p->depth > MAX_NEST) {
		p->depth--;
		return perr(p, k->pos, "expression nested too deeply");
	}
	if (k->type == TK_SUB || k->type == TK_ADD) {
		size_t pos = k->pos;
		enum tk t = k->type;
		adv(p);
		struct tnode *o = parse_unary(p, false);
		if (!o) {
			p->depth--;
			return NULL;
		}
		n = mk(t == TK_SUB ? N_NEG : N_POS, pos);
		n->a = o;
	} else {
		n = parse_primary(p);
	}
	n = parse_postfix(p, n);
	if (with_filter)
		n = parse_filter_expr(p, n);
	p->depth--;
	return n;
}

static struct tnode *bin(enum nkind k, int op, size_t pos, struct tnode *a, struct tnode *b)
{
	struct tnode *n = mk(k, pos);
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

/* pow: unary {'**' unary} */
static struct tnode *parse_pow(struct parser *p)
{
	struct tnode *l = parse_unary(p, true);
	int links = 0;
	while (l && cur(p)->type == TK_POW) {
		if (!chain_link(p, &links)) {
			tnode_free(l);
			l = NULL;
			break;
		}
		size_t pos = cur(p)->pos;
		adv(p);
		struct tnode *r = parse_unary(p, true);
		if (!r) {
			tnode_free(l);
			return NULL;
		}
		l = bin(N_BIN, TK_POW, pos, l, r);
	}
	p->depth -= links;
	return l;
}

/* An operator of a left-associative chain: a token type, or the keyword
 * name (type TK_NAME), and the node it makes. */
struct chain_op {
	enum tk type;
	const char *name;
	enum nkind kind;
};

/* A left-associative chain: operand {op operand}, op one of ops (the
 * arithmetic rules and 'and'/'or' below share it). */
static struct tnode *parse_left_chain(struct parser *p, struct tnode *(*operand)(struct parser *),
				      const struct chain_op *ops, size_t nops)
{
	struct tnode *l = operand(p);
	int links = 0;
	while (l) {
		const struct token *k = cur(p);
		size_t i = 0;
		while (i < nops && (ops[i].type != k->type ||
				    (ops[i].name && strcmp(ops[i].name, k->str) != 0)))
			i++;
		if (i == nops)
			break;
		enum tk t = k->type;
		if (!chain_link(p, &links)) {
			tnode_free(l);
			l = NULL;
			break;
		}
		size_t pos = cur(p)->pos;
		adv(p);
		struct tnode *r = operand(p);
		if (!r) {
			tnode_free(l);
			return NULL;
		}
		l = bin(ops[i].kind, ops[i].name ? 0 : (int)t, pos, l, r);
	}
	p->depth -= links;
	return l;
}

/* math2: pow {('*' | '/' | '//' | '%') pow} */
static struct tnode *parse_math2(struct parser *p)
{
	static const struct chain_op ops[] = { { TK_MUL, NULL, N_BIN }, { TK_DIV, NULL, N_BIN },
					       { TK_FLOORDIV, NULL, N_BIN },
					       { TK_MOD, NULL, N_BIN } };
	return parse_left_chain(p, parse_pow, ops, sizeof(ops) / sizeof(ops[0]));
}

/* concat: math2 {'~' math2} */
static struct tnode *parse_concat(struct parser *p)
{
	struct tnode *l = parse_math2(p);
	if (!l || cur(p)->type != TK_TILDE)
		return l;
	struct tnode *n = mk(N_CONCAT, cur(p)->pos);
	nlist_push(&n->args, l);
	while (cur(p)->type == TK_TILDE) {
		adv(p);
		struct tnode *r = parse_math2(p);
		if (!r) {
			tnode_free(n);
			return NULL;
		}
		nlist_push(&n->args, r);
	}
	return n;
}

/* math1: concat {('+' | '-') concat} */
static struct tnode *parse_math1(struct parser *p)
{
	static const struct chain_op ops[] = { { TK_ADD, NULL, N_BIN }, { TK_SUB, NULL, N_BIN } };
	return parse_left_chain(p, parse_concat, ops, sizeof(ops) / sizeof(ops[0]));
}

/* compare: math1 {cmpop math1} */
static struct tnode *parse_compare(struct parser *p)
{
	struct tnode *l = parse_math1(p);
	struct tnode *n = NULL;
	while (l) {
		const struct token *k = cur(p);
		int op;
		size_t pos = k->pos;
		switch (k->type) {
		case TK_EQ: op = CMP_EQ; break;
		case TK_NE: op = CMP_NE; break;
		case TK_LT: op = CMP_LT; break;
		case TK_LE: op = CMP_LE; break;
		case TK_GT: op = CMP_GT; break;
		case TK_GE: op = CMP_GE; break;
		default:
			if (is_name(p, "in")) {
				op = CMP_IN;
			} else if (is_name(p, "not") && peek(p, 1)->type == TK_NAME && !strcmp(peek(p, 1)->str, "in")) {
				op = CMP_NOTIN;
				adv(p);
			} else {
				return n ? n : l;
			}
		}
		adv(p);
		struct tnode *r = parse_math1(p);
		if (!r) {
			if (n)
				tnode_free(n);
			else
				tnode_free(l);
			return NULL;
		}
		if (!n) {
			n = mk(N_CMP, pos);
			n->a = l;
		}
		n->cmpops = xreallocarray(n->cmpops, n->args.n + 1, sizeof(int));
		n->cmpops[n->args.n] = op;
		nlist_push(&n->args, r);
	}
	return NULL;
}

/* not: 'not' not | compare */
static struct tnode *parse_not(struct parser *p)
{
	if (is_name(p, "not")) {
		size_t pos = cur(p)->pos;
		if (++p->depth > MAX_NEST) {
			p->depth--;
			return perr(p, pos, "expression nested too deeply");
		}
		adv(p);
		struct tnode *o = parse_not(p);
		p->depth--;
		if (!o)
			return NULL;
		struct tnode *n = mk(N_NOT, pos);
		n->a = o;
		return n;
	}
	return parse_compare(p);
}

/* and: not {'and' not} */
static struct tnode *parse_and(struct parser *p)
{
	static const struct chain_op ops[] = { { TK_NAME, "and", N_AND } };
	return parse_left_chain(p, parse_not, ops, 1);
}

/* or: and {'or' and} */
static struct tnode *parse_or(struct parser *p)
{
	static const struct chain_op ops[] = { { TK_NAME, "or", N_OR } };
	return parse_left_chain(p, parse_and, ops, 1);
}

/* expr: or ['if' or ['else' expr]] */
static struct tnode *parse_expr(struct parser *p, bool with_cond)
{
	if (++p->depth > MAX_NEST) {
		p->depth--;
		return perr(p, cur(p)->pos, "expression nested too deeply");
	}
	struct tnode *n = parse_or(p);
	while (with_cond && n && is_name(p, "if")) {
		size_t pos = cur(p)->pos;
		adv(p);
		struct tnode *c = parse_or(p);
		if (!c) {
			tnode_free(n);
			n = NULL;
			break;
		}
		struct tnode *e = NULL;
		if (is_name(p, "else")) {
			adv(p);
			e = parse_expr(p, true);
			if (!e) {
				tnode_free(n);
				tnode_free(c);
				n = NULL;
				break;
			}
		}
		struct tnode *x = mk(N_COND, pos);
		x->a = c;
		x->b = n;
		x->c = e;
		n = x;
	}
	p->depth--;
	return n;
}

/* tuple: expr {',' expr} — a bare tuple (as in {{ a, b }} or for targets) */
static struct tnode *parse_tuple(struct parser *p)
{
	struct tnode *n = parse_expr(p, true);
	if (!n || cur(p)->type != TK_COMMA)
		return n;
	struct tnode *t = mk(N_TUPLE, n->pos);
	nlist_push(&t->args, n);
	while (cur(p)->type == TK_COMMA) {
		adv(p);
		enum tk k = cur(p)->type;
		if (k == TK_VAR_END || k == TK_BLOCK_END || k == TK_EOF || k == TK_RPAREN)
			break;
		struct tnode *e = parse_expr(p, true);
		if (!e) {
			tnode_free(t);
			return NULL;
		}
		nlist_push(&t->args, e);
	}
	return t;
}

/* ---- statements ---------------------------------------------------- */

static int parse_body(struct parser *p, struct nlist *body, const char *const *ends, const char **which);

/* targets: NAME {',' NAME} | '(' NAME {',' NAME} ')' */
static bool parse_targets(struct parser *p, struct tnode *n)
{
	bool paren = cur(p)->type == TK_LPAREN;
	if (paren)
		adv(p);
	for (;;) {
		if (cur(p)->type != TK_NAME) {
			unexpected(p, "name");
			return false;
		}
		n->targets = xreallocarray(n->targets, n->ntargets + 1, sizeof(char *));
		n->targets[n->ntargets++] = xstrdup(cur(p)->str);
		adv(p);
		if (cur(p)->type != TK_COMMA)
			break;
		adv(p);
		if (paren && cur(p)->type == TK_RPAREN)
			break;
	}
	if (paren && !expect(p, TK_RPAREN, ")"))
		return false;
	return true;
}

static bool end_block(struct parser *p)
{
	return expect(p, TK_BLOCK_END, "end of statement block");
}

/* Rejects trailing tokens in {% endX %} tags ("{% endif foo %}"). */
static bool end_tag(struct parser *p, const char *name)
{
	(void)name;
	return end_block(p);
}

/* if: 'if' expr %} body {elif expr %} body} [else %} body] endif */
static struct tnode *parse_if(struct parser *p, size_t pos)
{
	static const char *const ends[] = { "elif", "else", "endif", NULL };
	struct tnode *n = mk(S_IF, pos);
	struct tnode *curn = n;
	int links = 0;
	for (;;) {
		curn->a = parse_tuple(p);
		if (!curn->a || !end_block(p))
			goto fail;
		const char *which = NULL;
		if (parse_body(p, &curn->body, ends, &which) < 0)
			goto fail;
		if (!strcmp(which, "elif")) {
			if (!chain_link(p, &links))
				goto fail;
			struct tnode *e = mk(S_IF, cur(p)->pos);
			nlist_push(&curn->orelse, e);
			curn = e;
			continue;
		}
		if (!strcmp(which, "else")) {
			if (!end_block(p))
				goto fail;
			static const char *const e2[] = { "endif", NULL };
			if (parse_body(p, &curn->orelse, e2, &which) < 0)
				goto fail;
		}
		if (!end_tag(p, "endif"))
			goto fail;
		p->depth -= links;
		return n;
	}
fail:
	p->depth -= links;
	tnode_free(n);
	return NULL;
}

/* for: 'for' targets 'in' expr ['if' expr] ['recursive'] %} body [else %} body] endfor */
static struct tnode *parse_for(struct parser *p, size_t pos)
{
	static const char *const ends[] = { "else", "endfor", NULL };
	static const char *const e2[] = { "endfor", NULL };
	struct tnode *n = mk(S_FOR, pos);
	const char *which = NULL;
	if (!parse_targets(p, n))
		goto fail;
	if (!is_name(p, "in")) {
		unexpected(p, "in");
		goto fail;
	}
	adv(p);
	/* the iterable: no inline if (it is the loop filter) */
	n->a = parse_or(p);
	if (n->a && cur(p)->type == TK_COMMA) {
		struct tnode *t = mk(N_TUPLE, n->a->pos);
		nlist_push(&t->args, n->a);
		n->a = t;
		while (cur(p)->type == TK_COMMA) {
			adv(p);
			struct tnode *e = parse_or(p);
			if (!e)
				goto fail;
			nlist_push(&t->args, e);
		}
	}
	if (!n->a)
		goto fail;
	if (is_name(p, "if")) {
		adv(p);
		n->b = parse_expr(p, true);
		if (!n->b)
			goto fail;
	}
	if (is_name(p, "recursive")) {
		n->recursive = true;
		adv(p);
	}
	if (!end_block(p))
		goto fail;
	if (parse_body(p, &n->body, ends, &which) < 0)
		goto fail;
	if (!strcmp(which, "else")) {
		if (!end_block(p))
			goto fail;
		if (parse_body(p, &n->orelse, e2, &which) < 0)
			goto fail;
	}
	if (!end_tag(p, "endfor"))
		goto fail;
	return n;
fail:
	tnode_free(n);
	return NULL;
}

/* set: 'set' (targets | NAME '.' NAME) '=' tuple %}  |  'set' NAME [filters] %} body endset */
static struct tnode *parse_set(struct parser *p, size_t pos)
{
	struct tnode *n = mk(S_SET, pos);
	if (cur(p)->type == TK_NAME && peek(p, 1)->type == TK_DOT && peek(p, 2)->type == TK_NAME) {
		n->targets = xcalloc(1, sizeof(char *));
		n->targets[0] = xstrdup(cur(p)->str);
		n->ntargets = 1;
		n->attr = xstrdup(peek(p, 2)->str);
		adv(p);
		adv(p);
		adv(p);
	} else if (!parse_targets(p, n)) {
		goto fail;
	}
	if (cur(p)->type == TK_ASSIGN) {
		adv(p);
		n->a = parse_tuple(p);
		if (!n->a || !end_block(p))
			goto fail;
		return n;
	}
	if (n->ntargets != 1 || n->attr) {
		unexpected(p, "=");
		goto fail;
	}
	/* block set, with optional filters applied to the body */
	n->kind = S_SETBLOCK;
	while (cur(p)->type == TK_PIPE) {
		struct tnode *f = parse_filter(p, n->b);
		if (!f) {
			n->b = NULL;
			goto fail;
		}
		n->b = f;
	}
	if (!end_block(p))
		goto fail;
	{
		static const char *const ends[] = { "endset", NULL };
		const char *which;
		if (parse_body(p, &n->body, ends, &which) < 0 || !end_tag(p, "endset"))
			goto fail;
	}
	return n;
fail:
	tnode_free(n);
	return NULL;
}

/* macro: 'macro' NAME '(' [NAME ['=' expr]] {',' ...} ')' %} body endmacro */
static struct tnode *parse_macro(struct parser *p, size_t pos)
{
	struct tnode *n = mk(S_MACRO, pos);
	if (cur(p)->type != TK_NAME) {
		unexpected(p, "name");
		goto fail;
	}
	n->name = xstrdup(cur(p)->str);
	adv(p);
	if (!expect(p, TK_LPAREN, "("))
		goto fail;
	while (cur(p)->type != TK_RPAREN) {
		if (n->ntargets && !expect(p, TK_COMMA, ","))
			goto fail;
		if (cur(p)->type != TK_NAME) {
			unexpected(p, "name");
			goto fail;
		}
		n->targets = xreallocarray(n->targets, n->ntargets + 1, sizeof(char *));
		n->targets[n->ntargets++] = xstrdup(cur(p)->str);
		adv(p);
		struct tnode *dflt = NULL;
		if (cur(p)->type == TK_ASSIGN) {
			adv(p);
			dflt = parse_expr(p, true);
			if (!dflt)
				goto fail;
		}
		if (!dflt)
			dflt = mk(N_NAME, pos); /* marker: no default (name NULL) */
		nlist_push(&n->args, dflt);
	}
	adv(p);
	if (!end_block(p))
		goto fail;
	{
		static const char *const ends[] = { "endmacro", NULL };
		const char *which;
		if (parse_body(p, &n->body, ends, &which) < 0 || !end_tag(p, "endmacro"))
			goto fail;
	}
	return n;
fail:
	tnode_free(n);
	return NULL;
}

/* statement: one {% ... %} tag (current token is its name) */
static struct tnode *parse_statement(struct parser *p)
{
	const struct token *k = cur(p);
	size_t pos = k->pos;
	if (k->type != TK_NAME)
		return perr(p, k->pos, "tag name expected");
	char *name = k->str;
	adv(p);
	if (!strcmp(name, "if"))
		return parse_if(p, pos);
	if (!strcmp(name, "for"))
		return parse_for(p, pos);
	if (!strcmp(name, "set"))
		return parse_set(p, pos);
	if (!strcmp(name, "macro"))
		return parse_macro(p, pos);
	if (!strcmp(name, "do")) {
		struct tnode *n = mk(S_DO, pos);
		n->a = parse_tuple(p);
		if (!n->a || !end_block(p)) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "break") || !strcmp(name, "continue")) {
		struct tnode *n = mk(name[0] == 'b' ? S_BREAK : S_CONTINUE, pos);
		if (!end_block(p)) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "include")) {
		struct tnode *n = mk(S_INCLUDE, pos);
		n->a = parse_expr(p, true);
		if (!n->a) {
			tnode_free(n);
			return NULL;
		}
		if (is_name(p, "ignore") && peek(p, 1)->type == TK_NAME && !strcmp(peek(p, 1)->str, "missing")) {
			n->op = 1;
			adv(p);
			adv(p);
		}
		if ((is_name(p, "with") || is_name(p, "without")) && peek(p, 1)->type == TK_NAME &&
		    !strcmp(peek(p, 1)->str, "context")) {
			adv(p);
			adv(p);
		}
		if (!end_block(p)) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "filter")) {
		struct tnode *n = mk(S_FILTERBLOCK, pos);
		if (cur(p)->type != TK_NAME) {
			tnode_free(n);
			return unexpected(p, "name");
		}
		/* parse "name(args) | name2" by faking a leading pipe */
		struct tnode *f = NULL;
		for (bool first = true; first || cur(p)->type == TK_PIPE; first = false) {
			if (!first)
				adv(p);
			char *fname = parse_dotted(p);
			if (!fname) {
				tnode_free(f);
				tnode_free(n);
				return NULL;
			}
			struct tnode *x = mk(N_FILTER, pos);
			x->a = f;
			x->name = fname;
			f = x;
			if (cur(p)->type == TK_LPAREN && !parse_call_args(p, f)) {
				tnode_free(f);
				tnode_free(n);
				return NULL;
			}
		}
		n->b = f;
		static const char *const ends[] = { "endfilter", NULL };
		const char *which;
		if (!end_block(p) || parse_body(p, &n->body, ends, &which) < 0 || !end_tag(p, "endfilter")) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "with")) {
		struct tnode *n = mk(S_WITH, pos);
		while (cur(p)->type != TK_BLOCK_END) {
			if (n->nkw && !expect(p, TK_COMMA, ",")) {
				tnode_free(n);
				return NULL;
			}
			if (cur(p)->type != TK_NAME || peek(p, 1)->type != TK_ASSIGN) {
				tnode_free(n);
				return unexpected(p, "name");
			}
			n->kwnames = xreallocarray(n->kwnames, n->nkw + 1, sizeof(char *));
			n->kwvals = xreallocarray(n->kwvals, n->nkw + 1, sizeof(struct tnode *));
			n->kwnames[n->nkw] = xstrdup(cur(p)->str);
			adv(p);
			adv(p);
			n->kwvals[n->nkw] = parse_expr(p, true);
			n->nkw++;
			if (!n->kwvals[n->nkw - 1]) {
				tnode_free(n);
				return NULL;
			}
		}
		static const char *const ends[] = { "endwith", NULL };
		const char *which;
		if (!end_block(p) || parse_body(p, &n->body, ends, &which) < 0 || !end_tag(p, "endwith")) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	return perr(p, pos, "Encountered unknown tag '%s'.", name);
}

/* body: { DATA | '{{' tuple '}}' | '{%' statement } until one of ends.
 * Leaves the parser after the end tag's name, before its '%}'. */
static int parse_body(struct parser *p, struct nlist *body, const char *const *ends, const char **which)
{
	if (++p->depth > MAX_NEST) {
		p->depth--;
		perr(p, cur(p)->pos, "template nested too deeply");
		return -1;
	}
	for (;;) {
		const struct token *k = cur(p);
		if (k->type == TK_EOF) {
			p->depth--;
			if (!ends)
				return 0;
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; ends[i]; i++)
				strbuf_addf(&sb, "%s'%s'", i ? " or " : "", ends[i]);
			perr(p, k->pos, "Unexpected end of template. Jinja was looking for the following tags: %s.", strbuf_str(&sb));
			strbuf_release(&sb);
			return -1;
		}
		if (k->type == TK_DATA) {
			struct tnode *n = mk(S_TEXT, k->pos);
			n->lit = json_stringn_nocheck(k->str, k->slen);
			nlist_push(body, n);
			adv(p);
			continue;
		}
		if (k->type == TK_VAR_BEGIN) {
			adv(p);
			struct tnode *n = mk(S_OUT, k->pos);
			n->a = parse_tuple(p);
			if (!n->a || !expect(p, TK_VAR_END, "end of print statement")) {
				tnode_free(n);
				p->depth--;
				return -1;
			}
			nlist_push(body, n);
			continue;
		}
		if (k->type == TK_BLOCK_BEGIN) {
			adv(p);
			const struct token *nk = cur(p);
			if (nk->type == TK_NAME && ends) {
				for (size_t i = 0; ends[i]; i++) {
					if (!strcmp(nk->str, ends[i])) {
						*which = ends[i];
						adv(p);
						p->depth--;
						return 0;
					}
				}
			}
			if (nk->type == TK_NAME && (!strncmp(nk->str, "end", 3) || !strcmp(nk->str, "else") ||
						   !strcmp(nk->str, "elif"))) {
				if (ends)
					perr(p, nk->pos, "Encountered unknown tag '%s'. Jinja was looking for the following tags: '%s'. The innermost block that needs to be closed is '%s'.",
					     nk->str, ends[0], ends[0]);
				else
					perr(p, nk->pos, "Encountered unknown tag '%s'.", nk->str);
				p->depth--;
				return -1;
			}
			struct tnode *n = parse_statement(p);
			if (!n) {
				p->depth--;
				return -1;
			}
			nlist_push(body, n);
			continue;
		}
		unexpected(p, NULL);
		p->depth--;
		return -1;
	}
}

int tmpl_parse(const struct tokens *t, bool expr_only, struct nlist *out,
	       struct tnode **expr, size_t *errpos, char **errmsg)
{
	struct parser p = { .t = t };
	if (expr_only) {
		*expr = parse_tuple(&p);
		if (*expr && cur(&p)->type != TK_EOF) {
			tnode_free(*expr);
			*expr = NULL;
			unexpected(&p, NULL);
		}
		if (!*expr)
			goto fail;
		return 0;
	}
	if (parse_body(&p, out, NULL, NULL) < 0) {
		nlist_free(out);
		goto fail;
	}
	return 0;
fail:
	*errpos = p.errpos;
	*errmsg = p.errmsg ? p.errmsg : xstrdup("syntax error");
	return -1;
}
