/* radl-int.h: declarations shared by the files of the RADL parser only
 * (lexer tokens, the merged view of a body, the known-attribute table).
 * Nothing outside src/parser/ and its tests includes this. */
#ifndef IMC_RADL_INT_H
#define IMC_RADL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "parser/radl.h"
#include "util/diag.h"

/* Deepest nesting of contains / soft blocks accepted, so that recursion
 * over a document (merge, check, output) stays shallow. */
#define RADL_MAX_DEPTH 64
/* Stray characters reported before the lexer falls silent. */
#define RADL_MAX_LEX_ERRORS 20

/* ---- lexer (lex.c) ---------------------------------------------------- */

enum radl_tok {
	TK_EOF,
	TK_NAME, TK_NUMBER, TK_STRING, TK_RANDOM, TK_RECIPE,
	TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK, TK_COMMA,
	TK_EQ, TK_LT, TK_GT, TK_LE, TK_GE,
	/* reserved words */
	TK_NETWORK, TK_SYSTEM, TK_ANSIBLE, TK_CONFIGURE, TK_CONTEXTUALIZE,
	TK_DEPLOY, TK_DESCRIPTION, TK_SOFT, TK_AND, TK_CONTAINS, TK_STEP,
	TK_WITH, TK_OPTION,
};

struct radl_token {
	enum radl_tok t;
	const char *start; /* the token's text in the (normalised) input */
	size_t len;
	/* TK_STRING: the text between the quotes; TK_RECIPE: the recipe text
	 * (from after '@begin' to the start of the '@end' line). */
	const char *val;
	size_t vlen;
	bool escaped;      /* TK_STRING: contains a backslash */
	bool is_int;       /* TK_NUMBER: no decimal point */
	double num;        /* TK_NUMBER, TK_RANDOM (N) */
	struct src_loc loc;
	int end_line;      /* line of the last character (multi-line strings) */
	bool bol;          /* first token on its line */
	struct src_loc end_loc; /* TK_RECIPE: where '@end' is */
};

struct radl_lexer {
	const char *text, *p, *end;
	const char *line_start;
	int line;
	const char *file;
	struct diag *d;
	bool at_bol;
	int errors;
	bool fatal; /* an unterminated string or recipe ended the input early */
};

void radl_lex_init(struct radl_lexer *lx, const char *file, const char *text, size_t len,
		   struct diag *d);
/* Next token; unknown characters are reported and skipped (IM skips them
 * silently). An unterminated string or recipe is reported and ends input. */
void radl_lex_next(struct radl_lexer *lx, struct radl_token *tok);
const char *radl_tok_name(enum radl_tok t);
/* Whether s can be written as a RADL name (not a reserved word). */
bool radl_is_name(const char *s);
/* Copies a string token's value, turning \' into ' (other escapes kept). */
char *radl_string_value(const char *s, size_t n);

/* ---- merged view (merge.c) --------------------------------------------
 * IM merges the constraints of one body by feature name; RADL-JSON prints
 * that merged view, and conflicts in it are errors while parsing. */

struct radl_mgroup;

struct radl_mfeat {
	const char *name;
	enum radl_vkind kind;
	const struct radl_feature *first; /* first constraint (string/list value) */
	const struct radl_feature *last;  /* last one (for options: last wins) */
	/* numbers: the interval; a side is absent when its flag is false */
	bool has_lo, has_hi;
	double lo, hi;
	bool lo_int, hi_int;
	/* the constraints that give each bound (IM keeps these two and checks
	 * only them: on a tie the later lower bound wins, the earlier upper) */
	const struct radl_feature *lo_f, *hi_f;
	/* contains: the groups of blocks, by inner 'name' */
	struct radl_mgroup *groups;
	size_t ngroups;
};

struct radl_merged {
	struct radl_mfeat *f;
	size_t n;
	const struct radl_soft **softs; /* every soft of every merged body */
	size_t nsofts;
};

struct radl_mgroup {
	const char *key;              /* inner 'name' value or NULL */
	const struct radl_body **bodies;
	size_t nbodies;
	struct radl_merged m;
};

/* Merges the bodies (several for a contains group); d may be NULL when the
 * bodies are known to be consistent. Returns 0, or -1 after recording every
 * conflict at the later constraint's location. */
int radl_merge(const struct radl_body *const *bodies, size_t nbodies,
	       struct radl_merged *m, struct diag *d);
void radl_merged_release(struct radl_merged *m);

/* ---- AST helpers (ast.c) ---------------------------------------------- */

struct radl_feature *radl_body_add(struct radl_body *b);
struct radl_soft *radl_body_add_soft(struct radl_body *b);
void radl_body_release(struct radl_body *b);
void radl_feature_release(struct radl_feature *f);
void radl_body_copy(struct radl_body *dst, const struct radl_body *src);
void radl_aspect_release(struct radl_aspect *a);
/* Adds (or, for an existing (system, configure), replaces in place) a
 * contextualize item; takes ownership of the strings of 'it'. */
void radl_ctxt_add_item(struct radl_contextualize *c, struct radl_ctxt_item *it);
struct radl_doc *radl_doc_new(const char *file);
/* Brings the id index up to date with the arrays; call after adding
 * sentences (lookups stay correct, only slower, until then). Lookups never
 * change the index, so a finished document can be read from any thread. */
void radl_doc_reindex(struct radl_doc *doc);
/* Appends a new zeroed element to an array of the document. */
struct radl_aspect *radl_doc_add_aspect(struct radl_doc *doc, enum radl_class cls);
struct radl_configure *radl_doc_add_configure(struct radl_doc *doc);
struct radl_deploy *radl_doc_add_deploy(struct radl_doc *doc);
/* The JSON/number form of a number: value and whether it is an integer. */
void radl_number_set(struct radl_number *n, double written, bool is_int, const char *unit,
		     size_t unit_len);

/* Whether a feature of that name holds a credential (ast.c). */
bool radl_secret_name(const char *name);

/* Whether print.c can write the string (or recipe) so that it reads back
 * the same: RADL has no escape for a backslash before a quote or at the end
 * of a string, nor for a recipe line that starts with '@end'. */
bool radl_string_printable(const char *v);
bool radl_recipe_printable(const char *r);

/* ---- known attributes (features.c) ------------------------------------ */

/* Checks one feature of a body of the given class against the table of
 * known attributes; records errors in d. 'in_apps' is true inside the
 * contains block of disk.N.applications. */
int radl_check_feature(const struct radl_doc *doc, enum radl_class cls,
		       const struct radl_feature *f, struct diag *d);
int radl_check_app_feature(const struct radl_feature *f, struct diag *d);
/* Whether name is a plain (not indexed) attribute the class validates. */
bool radl_simple_attr(enum radl_class cls, const char *name);
/* 'disk.N.REST' and 'net_interface.N.REST': returns an opaque family handle
 * and sets *index (-1 when the index is not a number) and *rest, or returns
 * NULL for other names. */
const void *radl_indexed(const char *name, long *index, const char **rest);
/* Whether REST is a suffix the family validates. */
bool radl_known_suffix(const void *family, const char *rest);
bool radl_is_net_family(const void *family);
/* The unit a known attribute cannot do without ("ECU" for cpu.performance),
 * for numbers read from RADL-JSON, where units are already applied. */
const char *radl_required_unit(const char *name);
/* IM's outports syntax; 'lenient' ignores spaces after commas (imc). */
bool radl_outports_valid(const char *s, bool lenient);

#endif
