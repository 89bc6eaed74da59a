/* template-parse.c: the statement half of the templating engine's parser:
 * a template is text, {{ expr }} and {% %} statements (if/elif/else,
 * for/else with unpacking and `recursive`, set and set blocks, do, break,
 * continue, macro, include, filter blocks, with), parsed into the AST that
 * render.c executes; the expressions inside come from expr-parse.c. Each
 * rule's function names the rule in its first comment. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "template/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"
static int parse_body(struct parser *p, struct nlist *body, const char *const *ends, const char **which);

/* targets: NAME {',' NAME} | '(' NAME {',' NAME} ')' */
static bool parse_targets(struct parser *p, struct tnode *n)
{
	bool paren = tp_cur(p)->type == TK_LPAREN;
	if (paren)
		tp_adv(p);
	for (;;) {
		if (tp_cur(p)->type != TK_NAME) {
			tp_unexpected(p, "name");
			return false;
		}
		n->targets = xreallocarray(n->targets, n->ntargets + 1, sizeof(char *));
		n->targets[n->ntargets++] = xstrdup(tp_cur(p)->str);
		tp_adv(p);
		if (tp_cur(p)->type != TK_COMMA)
			break;
		tp_adv(p);
		if (paren && tp_cur(p)->type == TK_RPAREN)
			break;
	}
	if (paren && !tp_expect(p, TK_RPAREN, ")"))
		return false;
	return true;
}

static bool end_block(struct parser *p)
{
	return tp_expect(p, TK_BLOCK_END, "end of statement block");
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
	struct tnode *n = tp_mk(S_IF, pos);
	struct tnode *curn = n;
	int links = 0;
	for (;;) {
		curn->a = tp_parse_tuple(p);
		if (!curn->a || !end_block(p))
			goto fail;
		const char *which = NULL;
		if (parse_body(p, &curn->body, ends, &which) < 0)
			goto fail;
		if (!strcmp(which, "elif")) {
			if (!tp_chain_link(p, &links))
				goto fail;
			struct tnode *e = tp_mk(S_IF, tp_cur(p)->pos);
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
	struct tnode *n = tp_mk(S_FOR, pos);
	const char *which = NULL;
	if (!parse_targets(p, n))
		goto fail;
	if (!tp_is_name(p, "in")) {
		tp_unexpected(p, "in");
		goto fail;
	}
	tp_adv(p);
	/* the iterable: no inline if (it is the loop filter) */
	n->a = tp_parse_or(p);
	if (n->a && tp_cur(p)->type == TK_COMMA) {
		struct tnode *t = tp_mk(N_TUPLE, n->a->pos);
		nlist_push(&t->args, n->a);
		n->a = t;
		while (tp_cur(p)->type == TK_COMMA) {
			tp_adv(p);
			struct tnode *e = tp_parse_or(p);
			if (!e)
				goto fail;
			nlist_push(&t->args, e);
		}
	}
	if (!n->a)
		goto fail;
	if (tp_is_name(p, "if")) {
		tp_adv(p);
		n->b = tp_parse_expr(p, true);
		if (!n->b)
			goto fail;
	}
	if (tp_is_name(p, "recursive")) {
		n->recursive = true;
		tp_adv(p);
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
	struct tnode *n = tp_mk(S_SET, pos);
	if (tp_cur(p)->type == TK_NAME && tp_peek(p, 1)->type == TK_DOT && tp_peek(p, 2)->type == TK_NAME) {
		n->targets = xcalloc(1, sizeof(char *));
		n->targets[0] = xstrdup(tp_cur(p)->str);
		n->ntargets = 1;
		n->attr = xstrdup(tp_peek(p, 2)->str);
		tp_adv(p);
		tp_adv(p);
		tp_adv(p);
	} else if (!parse_targets(p, n)) {
		goto fail;
	}
	if (tp_cur(p)->type == TK_ASSIGN) {
		tp_adv(p);
		n->a = tp_parse_tuple(p);
		if (!n->a || !end_block(p))
			goto fail;
		return n;
	}
	if (n->ntargets != 1 || n->attr) {
		tp_unexpected(p, "=");
		goto fail;
	}
	/* block set, with optional filters applied to the body */
	n->kind = S_SETBLOCK;
	while (tp_cur(p)->type == TK_PIPE) {
		struct tnode *f = tp_parse_filter(p, n->b);
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

/* a macro's or call block's parameters: '(' [NAME ['=' expr]] {',' ...} ')'
 * into n->targets and n->args (a default, or an N_NAME without a name) */
static bool parse_params(struct parser *p, struct tnode *n, size_t pos)
{
	if (!tp_expect(p, TK_LPAREN, "("))
		return false;
	while (tp_cur(p)->type != TK_RPAREN) {
		if (n->ntargets && !tp_expect(p, TK_COMMA, ","))
			return false;
		if (tp_cur(p)->type != TK_NAME) {
			tp_unexpected(p, "name");
			return false;
		}
		n->targets = xreallocarray(n->targets, n->ntargets + 1, sizeof(char *));
		n->targets[n->ntargets++] = xstrdup(tp_cur(p)->str);
		tp_adv(p);
		struct tnode *dflt = NULL;
		if (tp_cur(p)->type == TK_ASSIGN) {
			tp_adv(p);
			dflt = tp_parse_expr(p, true);
			if (!dflt)
				return false;
		}
		if (!dflt)
			dflt = tp_mk(N_NAME, pos); /* marker: no default (name NULL) */
		nlist_push(&n->args, dflt);
	}
	tp_adv(p);
	return true;
}

/* call: 'call' ['(' params ')'] CALL_EXPR %} body endcall — the body is
 * the called macro's caller() */
static struct tnode *parse_call(struct parser *p, size_t pos)
{
	struct tnode *n = tp_mk(S_CALLBLOCK, pos);
	if (tp_cur(p)->type == TK_LPAREN && !parse_params(p, n, pos))
		goto fail;
	size_t epos = tp_cur(p)->pos;
	n->a = tp_parse_expr(p, true);
	if (!n->a)
		goto fail;
	if (n->a->kind != N_CALL) {
		tp_perr(p, epos, "expected call");
		goto fail;
	}
	if (!end_block(p))
		goto fail;
	static const char *const ends[] = { "endcall", NULL };
	const char *which;
	if (parse_body(p, &n->body, ends, &which) < 0 || !end_tag(p, "endcall"))
		goto fail;
	return n;
fail:
	tnode_free(n);
	return NULL;
}

/* [with|without context] at the end of an import tag: op 1 with */
static void parse_context(struct parser *p, struct tnode *n)
{
	if ((tp_is_name(p, "with") || tp_is_name(p, "without")) && tp_peek(p, 1)->type == TK_NAME &&
	    !strcmp(tp_peek(p, 1)->str, "context")) {
		n->op = tp_is_name(p, "with");
		tp_adv(p);
		tp_adv(p);
	}
}

/* import: 'import' expr 'as' NAME [context] — name in n->name;
 * from: 'from' expr 'import' NAME ['as' NAME] {',' ...} [context] — the
 * names in n->targets, each followed by its alias (or itself) */
static struct tnode *parse_import(struct parser *p, size_t pos, bool from)
{
	struct tnode *n = tp_mk(from ? S_FROMIMPORT : S_IMPORT, pos);
	n->a = tp_parse_expr(p, true);
	if (!n->a)
		goto fail;
	if (!from) {
		if (!tp_is_name(p, "as")) {
			tp_unexpected(p, "'as'");
			goto fail;
		}
		tp_adv(p);
		if (tp_cur(p)->type != TK_NAME) {
			tp_unexpected(p, "name");
			goto fail;
		}
		n->name = xstrdup(tp_cur(p)->str);
		tp_adv(p);
		parse_context(p, n);
	} else {
		if (!tp_is_name(p, "import")) {
			tp_unexpected(p, "'import'");
			goto fail;
		}
		tp_adv(p);
		for (;;) {
			if (n->ntargets && (tp_is_name(p, "with") || tp_is_name(p, "without")) &&
			    tp_peek(p, 1)->type == TK_NAME && !strcmp(tp_peek(p, 1)->str, "context")) {
				parse_context(p, n);
				break;
			}
			if (tp_cur(p)->type != TK_NAME) {
				tp_unexpected(p, "name");
				goto fail;
			}
			if (tp_cur(p)->str[0] == '_') {
				tp_perr(p, tp_cur(p)->pos, "names starting with an underline can not be imported");
				goto fail;
			}
			n->targets = xreallocarray(n->targets, n->ntargets + 2, sizeof(char *));
			n->targets[n->ntargets++] = xstrdup(tp_cur(p)->str);
			tp_adv(p);
			if (tp_is_name(p, "as")) {
				tp_adv(p);
				if (tp_cur(p)->type != TK_NAME) {
					tp_unexpected(p, "name");
					goto fail;
				}
				n->targets[n->ntargets++] = xstrdup(tp_cur(p)->str);
				tp_adv(p);
			} else {
				n->targets[n->ntargets] = xstrdup(n->targets[n->ntargets - 1]);
				n->ntargets++;
			}
			if (tp_cur(p)->type != TK_COMMA) {
				parse_context(p, n);
				break;
			}
			tp_adv(p);
		}
	}
	if (!end_block(p))
		goto fail;
	return n;
fail:
	tnode_free(n);
	return NULL;
}

/* macro: 'macro' NAME '(' [NAME ['=' expr]] {',' ...} ')' %} body endmacro */
static struct tnode *parse_macro(struct parser *p, size_t pos)
{
	struct tnode *n = tp_mk(S_MACRO, pos);
	if (tp_cur(p)->type != TK_NAME) {
		tp_unexpected(p, "name");
		goto fail;
	}
	n->name = xstrdup(tp_cur(p)->str);
	tp_adv(p);
	if (!parse_params(p, n, pos) || !end_block(p))
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
	const struct token *k = tp_cur(p);
	size_t pos = k->pos;
	if (k->type != TK_NAME)
		return tp_perr(p, k->pos, "tag name expected");
	char *name = k->str;
	tp_adv(p);
	if (!strcmp(name, "if"))
		return parse_if(p, pos);
	if (!strcmp(name, "for"))
		return parse_for(p, pos);
	if (!strcmp(name, "set"))
		return parse_set(p, pos);
	if (!strcmp(name, "macro"))
		return parse_macro(p, pos);
	if (!strcmp(name, "call"))
		return parse_call(p, pos);
	if (!strcmp(name, "import") || !strcmp(name, "from"))
		return parse_import(p, pos, name[0] == 'f');
	if (!strcmp(name, "do")) {
		struct tnode *n = tp_mk(S_DO, pos);
		n->a = tp_parse_tuple(p);
		if (!n->a || !end_block(p)) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "break") || !strcmp(name, "continue")) {
		struct tnode *n = tp_mk(name[0] == 'b' ? S_BREAK : S_CONTINUE, pos);
		if (!end_block(p)) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "include")) {
		struct tnode *n = tp_mk(S_INCLUDE, pos);
		n->a = tp_parse_expr(p, true);
		if (!n->a) {
			tnode_free(n);
			return NULL;
		}
		if (tp_is_name(p, "ignore") && tp_peek(p, 1)->type == TK_NAME && !strcmp(tp_peek(p, 1)->str, "missing")) {
			n->op = 1;
			tp_adv(p);
			tp_adv(p);
		}
		if ((tp_is_name(p, "with") || tp_is_name(p, "without")) && tp_peek(p, 1)->type == TK_NAME &&
		    !strcmp(tp_peek(p, 1)->str, "context")) {
			tp_adv(p);
			tp_adv(p);
		}
		if (!end_block(p)) {
			tnode_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(name, "filter")) {
		struct tnode *n = tp_mk(S_FILTERBLOCK, pos);
		if (tp_cur(p)->type != TK_NAME) {
			tnode_free(n);
			return tp_unexpected(p, "name");
		}
		/* parse "name(args) | name2" by faking a leading pipe */
		struct tnode *f = NULL;
		for (bool first = true; first || tp_cur(p)->type == TK_PIPE; first = false) {
			if (!first)
				tp_adv(p);
			char *fname = tp_parse_dotted(p);
			if (!fname) {
				tnode_free(f);
				tnode_free(n);
				return NULL;
			}
			struct tnode *x = tp_mk(N_FILTER, pos);
			x->a = f;
			x->name = fname;
			f = x;
			if (tp_cur(p)->type == TK_LPAREN && !tp_parse_call_args(p, f)) {
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
		struct tnode *n = tp_mk(S_WITH, pos);
		while (tp_cur(p)->type != TK_BLOCK_END) {
			if (n->nkw && !tp_expect(p, TK_COMMA, ",")) {
				tnode_free(n);
				return NULL;
			}
			if (tp_cur(p)->type != TK_NAME || tp_peek(p, 1)->type != TK_ASSIGN) {
				tnode_free(n);
				return tp_unexpected(p, "name");
			}
			n->kwnames = xreallocarray(n->kwnames, n->nkw + 1, sizeof(char *));
			n->kwvals = xreallocarray(n->kwvals, n->nkw + 1, sizeof(struct tnode *));
			n->kwnames[n->nkw] = xstrdup(tp_cur(p)->str);
			tp_adv(p);
			tp_adv(p);
			n->kwvals[n->nkw] = tp_parse_expr(p, true);
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
	return tp_perr(p, pos, "Encountered unknown tag '%s'.", name);
}

/* body: { DATA | '{{' tuple '}}' | '{%' statement } until one of ends.
 * Leaves the parser after the end tag's name, before its '%}'. */
static int parse_body(struct parser *p, struct nlist *body, const char *const *ends, const char **which)
{
	if (++p->depth > MAX_NEST) {
		p->depth--;
		tp_perr(p, tp_cur(p)->pos, "template nested too deeply");
		return -1;
	}
	for (;;) {
		const struct token *k = tp_cur(p);
		if (k->type == TK_EOF) {
			p->depth--;
			if (!ends)
				return 0;
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; ends[i]; i++)
				strbuf_addf(&sb, "%s'%s'", i ? " or " : "", ends[i]);
			tp_perr(p, k->pos, "Unexpected end of template. Jinja was looking for the following tags: %s.", strbuf_str(&sb));
			strbuf_release(&sb);
			return -1;
		}
		if (k->type == TK_DATA) {
			struct tnode *n = tp_mk(S_TEXT, k->pos);
			n->lit = json_stringn_nocheck(k->str, k->slen);
			nlist_push(body, n);
			tp_adv(p);
			continue;
		}
		if (k->type == TK_VAR_BEGIN) {
			tp_adv(p);
			struct tnode *n = tp_mk(S_OUT, k->pos);
			n->a = tp_parse_tuple(p);
			if (!n->a || !tp_expect(p, TK_VAR_END, "end of print statement")) {
				tnode_free(n);
				p->depth--;
				return -1;
			}
			nlist_push(body, n);
			continue;
		}
		if (k->type == TK_BLOCK_BEGIN) {
			tp_adv(p);
			const struct token *nk = tp_cur(p);
			if (nk->type == TK_NAME && ends) {
				for (size_t i = 0; ends[i]; i++) {
					if (!strcmp(nk->str, ends[i])) {
						*which = ends[i];
						tp_adv(p);
						p->depth--;
						return 0;
					}
				}
			}
			if (nk->type == TK_NAME && (!strncmp(nk->str, "end", 3) || !strcmp(nk->str, "else") ||
						   !strcmp(nk->str, "elif"))) {
				if (ends)
					tp_perr(p, nk->pos, "Encountered unknown tag '%s'. Jinja was looking for the following tags: '%s'. The innermost block that needs to be closed is '%s'.",
					     nk->str, ends[0], ends[0]);
				else
					tp_perr(p, nk->pos, "Encountered unknown tag '%s'.", nk->str);
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
		tp_unexpected(p, NULL);
		p->depth--;
		return -1;
	}
}

int tmpl_parse(const struct tokens *t, bool expr_only, struct nlist *out,
	       struct tnode **expr, size_t *errpos, char **errmsg)
{
	struct parser p = { .t = t };
	if (expr_only) {
		*expr = tp_parse_tuple(&p);
		if (*expr && tp_cur(&p)->type != TK_EOF) {
			tnode_free(*expr);
			*expr = NULL;
			tp_unexpected(&p, NULL);
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
