/* parse.h: the parser state and the helpers that the two halves of the
 * templating engine's parser share (expr-parse.c: expressions and the
 * token cursor; template-parse.c: statements). For these two files only. */
#ifndef IMC_TEMPLATE_PARSE_H
#define IMC_TEMPLATE_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "template/engine.h"

struct parser {
	const struct tokens *t;
	size_t i;
	size_t errpos;
	char *errmsg;
	int depth;
};

#define MAX_NEST 200

/* The token cursor: the current token, the k-th after it, advance. */
const struct token *tp_cur(struct parser *p);
const struct token *tp_peek(struct parser *p, size_t k);
void tp_adv(struct parser *p);
/* A new AST node. */
struct tnode *tp_mk(enum nkind k, size_t pos);
/* Errors: record one (the first wins) and return NULL. */
void *tp_perr(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void *tp_unexpected(struct parser *p, const char *expected);
/* The current token is the name s / is t (else an error naming what). */
bool tp_is_name(struct parser *p, const char *s);
bool tp_expect(struct parser *p, enum tk t, const char *what);
/* Counts one link of a left-recursive chain; false past the nesting limit. */
bool tp_chain_link(struct parser *p, int *links);

/* Expression rules the statements use (with_cond: an inline if is allowed). */
struct tnode *tp_parse_expr(struct parser *p, bool with_cond);
struct tnode *tp_parse_tuple(struct parser *p);
struct tnode *tp_parse_or(struct parser *p);
struct tnode *tp_parse_filter(struct parser *p, struct tnode *in);
bool tp_parse_call_args(struct parser *p, struct tnode *n);
char *tp_parse_dotted(struct parser *p);

#endif
