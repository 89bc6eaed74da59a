/* expr-parse.c: the expression half of the templating engine's
 * recursive-descent parser, and the AST it builds. Expressions follow
 * Jinja2's precedence (condexpr > or > and > not > compare > + - > ~ >
 * * / // % > ** > unary > primary/postfix > filters and tests); each rule's
 * function names the rule in its first comment. The token cursor and the
 * error helpers here serve the statement half too (template-parse.c,
 * through parse.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "template/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"


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
	tnode_free(n->dyn_args);
	tnode_free(n->dyn_kwargs);
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

struct tnode *tp_mk(enum nkind k, size_t pos)
{
	struct tnode *n = xcalloc(1, sizeof(*n));
	n->kind = k;
	n->pos = pos;
	return n;
}

const struct token *tp_cur(struct parser *p) { return &p->t->v[p->i]; }
const struct token *tp_peek(struct parser *p, size_t k)
{
	size_t j = p->i + k;
	if (j >= p->t->n)
		j = p->t->n - 1;
	return &p->t->v[j];
}
void tp_adv(struct parser *p)
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

void *tp_perr(struct parser *p, size_t pos, const char *fmt, ...)
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

void *tp_unexpected(struct parser *p, const char *expected)
{
	const struct token *k = tp_cur(p);
	if (k->type == TK_EOF && expected)
		return tp_perr(p, k->pos, "unexpected end of template, expected '%s'", expected);
	if (k->type == TK_EOF) /* Jinja names the token it found */
		return tp_perr(p, k->pos, "unexpected 'end of template'");
	if (expected)
		return tp_perr(p, k->pos, "expected token '%s', got '%s'", expected, tkdesc(k));
	return tp_perr(p, k->pos, "unexpected '%s'", tkdesc(k));
}

bool tp_is_name(struct parser *p, const char *s)
{
	const struct token *k = tp_cur(p);
	return k->type == TK_NAME && strcmp(k->str, s) == 0;
}

bool tp_expect(struct parser *p, enum tk t, const char *what)
{
	if (tp_cur(p)->type != t) {
		tp_unexpected(p, what);
		return false;
	}
	tp_adv(p);
	return true;
}

/* Left-deep chains (a.b.c, x|f|g, 1+2+3, elif) nest the AST as deeply as
 * recursion does: each link counts toward MAX_NEST too, so evaluation and
 * freeing never recurse deeper than the parser allowed. */
bool tp_chain_link(struct parser *p, int *links)
{
	(*links)++;
	if (++p->depth > MAX_NEST) {
		tp_perr(p, tp_cur(p)->pos, "expression nested too deeply");
		return false;
	}
	return true;
}

static struct tnode *parse_unary(struct parser *p, bool with_filter);
static struct tnode *parse_postfix(struct parser *p, struct tnode *n);
static struct tnode *parse_primary(struct parser *p);

/* call_args: '(' [expr | name '=' expr | '*' expr | '**' expr] {',' ...} ')'
 * — current token is '('. As Jinja2: positional arguments come first,
 * *expr once and before **expr, **expr once and last. */
bool tp_parse_call_args(struct parser *p, struct tnode *n)
{
	tp_adv(p);
	bool first = true;
	while (tp_cur(p)->type != TK_RPAREN) {
		if (!first && !tp_expect(p, TK_COMMA, ","))
			return false;
		first = false;
		if (tp_cur(p)->type == TK_RPAREN)
			break;
		if (tp_cur(p)->type == TK_MUL || tp_cur(p)->type == TK_POW) {
			bool kw = tp_cur(p)->type == TK_POW;
			if (n->dyn_kwargs || (!kw && n->dyn_args))
				return tp_perr(p, tp_cur(p)->pos, "invalid syntax for function call expression"), false;
			tp_adv(p);
			struct tnode *v = tp_parse_expr(p, true);
			if (!v)
				return false;
			*(kw ? &n->dyn_kwargs : &n->dyn_args) = v;
		} else if (tp_cur(p)->type == TK_NAME && tp_peek(p, 1)->type == TK_ASSIGN) {
			if (n->dyn_kwargs)
				return tp_perr(p, tp_cur(p)->pos, "invalid syntax for function call expression"), false;
			char *kn = xstrdup(tp_cur(p)->str);
			tp_adv(p);
			tp_adv(p);
			struct tnode *v = tp_parse_expr(p, true);
			if (!v) {
				free(kn);
				return false;
			}
			n->kwnames = xreallocarray(n->kwnames, n->nkw + 1, sizeof(char *));
			n->kwvals = xreallocarray(n->kwvals, n->nkw + 1, sizeof(struct tnode *));
			n->kwnames[n->nkw] = kn;
			n->kwvals[n->nkw++] = v;
		} else {
			if (n->nkw || n->dyn_args || n->dyn_kwargs)
				return tp_perr(p, tp_cur(p)->pos, "invalid syntax for function call expression"), false;
			struct tnode *v = tp_parse_expr(p, true);
			if (!v)
				return false;
			nlist_push(&n->args, v);
		}
	}
	tp_adv(p);
	return true;
}

/* n '(' call_args ')': a call of n, which is freed when the arguments are
 * bad (then NULL) — current token is '(' */
static struct tnode *parse_call(struct parser *p, struct tnode *n)
{
	struct tnode *c = tp_mk(N_CALL, tp_cur(p)->pos);
	c->a = n;
	if (!tp_parse_call_args(p, c)) {
		tnode_free(c);
		return NULL;
	}
	return c;
}

/* dotted_name: NAME {'.' NAME} (ansible.builtin.to_json) */
char *tp_parse_dotted(struct parser *p)
{
	if (tp_cur(p)->type != TK_NAME)
		return tp_unexpected(p, "name");
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, tp_cur(p)->str);
	tp_adv(p);
	while (tp_cur(p)->type == TK_DOT && tp_peek(p, 1)->type == TK_NAME) {
		tp_adv(p);
		strbuf_addch(&sb, '.');
		strbuf_addstr(&sb, tp_cur(p)->str);
		tp_adv(p);
	}
	return strbuf_detach(&sb);
}

/* filter: '|' dotted_name [call_args] */
struct tnode *tp_parse_filter(struct parser *p, struct tnode *in)
{
	size_t pos = tp_cur(p)->pos;
	tp_adv(p);
	char *name = tp_parse_dotted(p);
	if (!name) {
		tnode_free(in);
		return NULL;
	}
	struct tnode *n = tp_mk(N_FILTER, pos);
	n->a = in;
	n->name = name;
	if (tp_cur(p)->type == TK_LPAREN && !tp_parse_call_args(p, n)) {
		tnode_free(n);
		return NULL;
	}
	return n;
}

/* test: 'is' ['not'] dotted_name [call_args | primary] */
static struct tnode *parse_test(struct parser *p, struct tnode *in)
{
	size_t pos = tp_cur(p)->pos;
	tp_adv(p);
	struct tnode *n = tp_mk(N_TEST, pos);
	n->a = in;
	if (tp_is_name(p, "not")) {
		n->op = 1;
		tp_adv(p);
	}
	n->name = tp_parse_dotted(p);
	if (!n->name) {
		tnode_free(n);
		return NULL;
	}
	const struct token *k = tp_cur(p);
	if (k->type == TK_LPAREN) {
		if (!tp_parse_call_args(p, n)) {
			tnode_free(n);
			return NULL;
		}
	} else if ((k->type == TK_NAME || k->type == TK_STRING || k->type == TK_INT ||
		    k->type == TK_FLOAT || k->type == TK_LBRACKET || k->type == TK_LBRACE) &&
		   !tp_is_name(p, "else") && !tp_is_name(p, "or") && !tp_is_name(p, "and") &&
		   !tp_is_name(p, "if")) {
		if (tp_is_name(p, "is")) {
			tnode_free(n);
			return tp_perr(p, k->pos, "You cannot chain multiple tests with is");
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
		const struct token *k = tp_cur(p);
		if ((k->type == TK_PIPE || tp_is_name(p, "is") || k->type == TK_LPAREN) && !tp_chain_link(p, &links)) {
			tnode_free(n);
			n = NULL;
			break;
		}
		if (k->type == TK_PIPE) {
			n = tp_parse_filter(p, n);
		} else if (tp_is_name(p, "is")) {
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
	const struct token *k = tp_cur(p);
	size_t pos = k->pos;
	if (k->type == TK_DOT) {
		tp_adv(p);
		k = tp_cur(p);
		if (k->type == TK_NAME) {
			struct tnode *g = tp_mk(N_GETATTR, pos);
			g->a = n;
			g->name = xstrdup(k->str);
			tp_adv(p);
			return g;
		}
		if (k->type == TK_INT) {
			struct tnode *g = tp_mk(N_GETITEM, pos);
			g->a = n;
			g->b = tp_mk(N_LIT, k->pos);
			g->b->lit = json_integer(k->ival);
			tp_adv(p);
			return g;
		}
		tnode_free(n);
		return tp_perr(p, k->pos, "expected name or number");
	}
	/* '[' */
	tp_adv(p);
	struct tnode *parts[3] = { NULL, NULL, NULL };
	int np = 0;
	bool slice = false;
	for (;;) {
		if (tp_cur(p)->type == TK_COLON) {
			slice = true;
			if (np >= 2)
				goto bad;
			tp_adv(p);
			np++;
			continue;
		}
		if (tp_cur(p)->type == TK_RBRACKET)
			break;
		if (parts[np])
			goto bad;
		parts[np] = tp_parse_expr(p, true);
		if (!parts[np])
			goto fail;
		if (!slice && tp_cur(p)->type == TK_COMMA) {
			/* a[1, 2]: tuple index */
			struct tnode *t = tp_mk(N_TUPLE, parts[0]->pos);
			nlist_push(&t->args, parts[0]);
			while (tp_cur(p)->type == TK_COMMA) {
				tp_adv(p);
				if (tp_cur(p)->type == TK_RBRACKET)
					break;
				struct tnode *e = tp_parse_expr(p, true);
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
	tp_adv(p);
	if (!slice) {
		if (!parts[0]) {
			tnode_free(n);
			return tp_perr(p, pos, "expected an expression in subscript");
		}
		struct tnode *g = tp_mk(N_GETITEM, pos);
		g->a = n;
		g->b = parts[0];
		return g;
	}
	struct tnode *s = tp_mk(N_SLICE, pos);
	s->a = n;
	s->b = parts[0];
	s->c = parts[1];
	s->d = parts[2];
	return s;
bad:
	tp_unexpected(p, "]");
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
		const struct token *k = tp_cur(p);
		if ((k->type == TK_DOT || k->type == TK_LBRACKET || k->type == TK_LPAREN) && !tp_chain_link(p, &links)) {
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
	const struct token *k = tp_cur(p);
	struct tnode *n;
	if (++p->depth > MAX_NEST) {
		p->depth--;
		return tp_perr(p, k->pos, "expression nested too deeply");
	}
	switch (k->type) {
	case TK_NAME:
		n = tp_mk(N_LIT, k->pos);
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
		tp_adv(p);
		break;
	case TK_STRING: {
		struct strbuf sb = STRBUF_INIT;
		n = tp_mk(N_LIT, k->pos);
		while (tp_cur(p)->type == TK_STRING) {
			strbuf_add(&sb, tp_cur(p)->str, tp_cur(p)->slen);
			tp_adv(p);
		}
		n->lit = json_stringn(sb.buf ? sb.buf : "", sb.len);
		if (!n->lit) /* invalid UTF-8: keep the bytes we can */
			n->lit = json_string("");
		strbuf_release(&sb);
		break;
	}
	case TK_INT:
		n = tp_mk(N_LIT, k->pos);
		n->lit = json_integer(k->ival);
		tp_adv(p);
		break;
	case TK_FLOAT:
		n = tp_mk(N_LIT, k->pos);
		n->lit = val_real(k->fval);
		tp_adv(p);
		break;
	case TK_LPAREN: {
		size_t pos = k->pos;
		tp_adv(p);
		if (tp_cur(p)->type == TK_RPAREN) {
			tp_adv(p);
			n = tp_mk(N_TUPLE, pos);
			break;
		}
		n = tp_parse_expr(p, true);
		if (n && tp_cur(p)->type == TK_COMMA) {
			struct tnode *t = tp_mk(N_TUPLE, pos);
			nlist_push(&t->args, n);
			n = t;
			while (tp_cur(p)->type == TK_COMMA) {
				tp_adv(p);
				if (tp_cur(p)->type == TK_RPAREN)
					break;
				struct tnode *e = tp_parse_expr(p, true);
				if (!e) {
					tnode_free(t);
					n = NULL;
					break;
				}
				nlist_push(&t->args, e);
			}
		}
		if (n && !tp_expect(p, TK_RPAREN, ")")) {
			tnode_free(n);
			n = NULL;
		}
		break;
	}
	case TK_LBRACKET: {
		n = tp_mk(N_LIST, k->pos);
		tp_adv(p);
		while (tp_cur(p)->type != TK_RBRACKET) {
			if (n->args.n && !tp_expect(p, TK_COMMA, ",")) {
				tnode_free(n);
				n = NULL;
				break;
			}
			if (tp_cur(p)->type == TK_RBRACKET)
				break;
			struct tnode *e = tp_parse_expr(p, true);
			if (!e) {
				tnode_free(n);
				n = NULL;
				break;
			}
			nlist_push(&n->args, e);
		}
		if (n)
			tp_adv(p);
		break;
	}
	case TK_LBRACE: {
		n = tp_mk(N_DICT, k->pos);
		tp_adv(p);
		while (tp_cur(p)->type != TK_RBRACE) {
			if (n->args.n && !tp_expect(p, TK_COMMA, ",")) {
				tnode_free(n);
				n = NULL;
				break;
			}
			if (tp_cur(p)->type == TK_RBRACE)
				break;
			struct tnode *key = tp_parse_expr(p, true);
			if (!key || !tp_expect(p, TK_COLON, ":")) {
				tnode_free(key);
				tnode_free(n);
				n = NULL;
				break;
			}
			struct tnode *val = tp_parse_expr(p, true);
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
			tp_adv(p);
		break;
	}
	default:
		n = tp_unexpected(p, NULL);
	}
	p->depth--;
	return n;
}

/* unary: ('-' | '+') unary | primary postfix [filter_expr] */
static struct tnode *parse_unary(struct parser *p, bool with_filter)
{
	const struct token *k = tp_cur(p);
	struct tnode *n;
	if (++p->depth > MAX_NEST) {
		p->depth--;
		return tp_perr(p, k->pos, "expression nested too deeply");
	}
	if (k->type == TK_SUB || k->type == TK_ADD) {
		size_t pos = k->pos;
		enum tk t = k->type;
		tp_adv(p);
		struct tnode *o = parse_unary(p, false);
		if (!o) {
			p->depth--;
			return NULL;
		}
		n = tp_mk(t == TK_SUB ? N_NEG : N_POS, pos);
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
	struct tnode *n = tp_mk(k, pos);
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
	while (l && tp_cur(p)->type == TK_POW) {
		if (!tp_chain_link(p, &links)) {
			tnode_free(l);
			l = NULL;
			break;
		}
		size_t pos = tp_cur(p)->pos;
		tp_adv(p);
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
		const struct token *k = tp_cur(p);
		size_t i = 0;
		while (i < nops && (ops[i].type != k->type ||
				    (ops[i].name && strcmp(ops[i].name, k->str) != 0)))
			i++;
		if (i == nops)
			break;
		enum tk t = k->type;
		if (!tp_chain_link(p, &links)) {
			tnode_free(l);
			l = NULL;
			break;
		}
		size_t pos = tp_cur(p)->pos;
		tp_adv(p);
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
	if (!l || tp_cur(p)->type != TK_TILDE)
		return l;
	struct tnode *n = tp_mk(N_CONCAT, tp_cur(p)->pos);
	nlist_push(&n->args, l);
	while (tp_cur(p)->type == TK_TILDE) {
		tp_adv(p);
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
		const struct token *k = tp_cur(p);
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
			if (tp_is_name(p, "in")) {
				op = CMP_IN;
			} else if (tp_is_name(p, "not") && tp_peek(p, 1)->type == TK_NAME && !strcmp(tp_peek(p, 1)->str, "in")) {
				op = CMP_NOTIN;
				tp_adv(p);
			} else {
				return n ? n : l;
			}
		}
		tp_adv(p);
		struct tnode *r = parse_math1(p);
		if (!r) {
			if (n)
				tnode_free(n);
			else
				tnode_free(l);
			return NULL;
		}
		if (!n) {
			n = tp_mk(N_CMP, pos);
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
	if (tp_is_name(p, "not")) {
		size_t pos = tp_cur(p)->pos;
		if (++p->depth > MAX_NEST) {
			p->depth--;
			return tp_perr(p, pos, "expression nested too deeply");
		}
		tp_adv(p);
		struct tnode *o = parse_not(p);
		p->depth--;
		if (!o)
			return NULL;
		struct tnode *n = tp_mk(N_NOT, pos);
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
struct tnode *tp_parse_or(struct parser *p)
{
	static const struct chain_op ops[] = { { TK_NAME, "or", N_OR } };
	return parse_left_chain(p, parse_and, ops, 1);
}

/* The conditional tail of an expression, after 'then' and at 'if':
 * 'if' or ['else' expr]. Takes 'then'; NULL (and 'then' freed) on error. */
static struct tnode *parse_cond(struct parser *p, struct tnode *then)
{
	size_t pos = tp_cur(p)->pos;
	tp_adv(p);
	struct tnode *c = tp_parse_or(p);
	if (!c) {
		tnode_free(then);
		return NULL;
	}
	struct tnode *e = NULL;
	if (tp_is_name(p, "else")) {
		tp_adv(p);
		e = tp_parse_expr(p, true);
		if (!e) {
			tnode_free(then);
			tnode_free(c);
			return NULL;
		}
	}
	struct tnode *x = tp_mk(N_COND, pos);
	x->a = c;
	x->b = then;
	x->c = e;
	return x;
}

/* expr: or ['if' or ['else' expr]] */
struct tnode *tp_parse_expr(struct parser *p, bool with_cond)
{
	if (++p->depth > MAX_NEST) {
		p->depth--;
		return tp_perr(p, tp_cur(p)->pos, "expression nested too deeply");
	}
	struct tnode *n = tp_parse_or(p);
	while (with_cond && n && tp_is_name(p, "if"))
		n = parse_cond(p, n);
	p->depth--;
	return n;
}

/* tuple: expr {',' expr} — a bare tuple (as in {{ a, b }} or for targets) */
struct tnode *tp_parse_tuple(struct parser *p)
{
	struct tnode *n = tp_parse_expr(p, true);
	if (!n || tp_cur(p)->type != TK_COMMA)
		return n;
	struct tnode *t = tp_mk(N_TUPLE, n->pos);
	nlist_push(&t->args, n);
	while (tp_cur(p)->type == TK_COMMA) {
		tp_adv(p);
		enum tk k = tp_cur(p)->type;
		if (k == TK_VAR_END || k == TK_BLOCK_END || k == TK_EOF || k == TK_RPAREN)
			break;
		struct tnode *e = tp_parse_expr(p, true);
		if (!e) {
			tnode_free(t);
			return NULL;
		}
		nlist_push(&t->args, e);
	}
	return t;
}
