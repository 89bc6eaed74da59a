/* engine.h: internals shared by the files of the templating engine (lexer,
 * parser, evaluator, renderer, values, runtime, registry, filters, tests,
 * lookups, globals). Not a public contract: the executor and the rest of
 * imc use template.h only.
 *
 * Ownership: an AST (struct tnode tree) owns every node, string and json_t
 * in it; tnode_free() releases all of it. Evaluation functions return new
 * json_t references; NULL means either an error (ev->failed set, one error
 * recorded in ev->d) or an undefined value (ev->failed clear, the reason in
 * ev->undef). */
#ifndef IMC_TEMPLATE_ENGINE_H
#define IMC_TEMPLATE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "template/template.h"
#include "util/strbuf.h"

struct diag;

/* jansson's iteration macros take non-const pointers; the engine never
 * modifies values it only reads, so this cast is safe. */
static inline json_t *jmut(const json_t *v)
{
	union { const json_t *c; json_t *m; } u = { .c = v };
	return u.m;
}

/* ---- tokens ---------------------------------------------------------- */

enum tk {
	TK_EOF, TK_DATA, TK_VAR_BEGIN, TK_VAR_END, TK_BLOCK_BEGIN, TK_BLOCK_END,
	TK_NAME, TK_STRING, TK_INT, TK_FLOAT,
	/* operators */
	TK_ADD, TK_SUB, TK_MUL, TK_DIV, TK_FLOORDIV, TK_MOD, TK_POW, TK_TILDE,
	TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_ASSIGN,
	TK_DOT, TK_COMMA, TK_COLON, TK_PIPE,
	TK_LPAREN, TK_RPAREN, TK_LBRACKET, TK_RBRACKET, TK_LBRACE, TK_RBRACE,
};

struct token {
	enum tk type;
	size_t pos;        /* byte offset in the source */
	char *str;         /* NAME, STRING, DATA: owned, NUL-terminated */
	size_t slen;       /* length of str (strings may hold NUL) */
	long long ival;
	double fval;
	bool raw_block;    /* DATA from {% raw %} */
};

struct tokens {
	struct token *v;
	size_t n, alloc;
};

/* Lexer options. */
struct lexopt {
	bool expr_only;       /* the whole text is one expression (no {{ }}) */
	bool raw_var_strings; /* Ansible's escape_backslashes: string literals
	                       * inside {{ }} keep backslashes verbatim */
	bool trim_blocks;
	bool lstrip_blocks;
	const char *newline; /* render_template: newline_sequence (NULL "\n") */
	bool keep_trailing_newline; /* render_template: the final line break stays */
	const struct tmpl_syntax *syn; /* delimiters; NULL: Jinja's */
};

/* A "#jinja2:" first line's overrides (template-header.c): what they
 * point to lives until header_release. Zero-initialise. */
struct tmpl_header {
	struct tmpl_syntax syn;
	char **owned;
	size_t nowned;
};

/* When text starts with "#jinja2:", applies the line's overrides to o (its
 * syn then points into h) and returns the text to render after it; else
 * returns text. NULL with *err (a static message) when the line is
 * malformed or names an override imc does not implement. */
const char *header_apply(struct tmpl_header *h, const char *text, struct lexopt *o, const char **err);
void header_release(struct tmpl_header *h);

/* Jinja's own checks of the lexer settings (newline sequence, distinct
 * start strings) and imc's (no empty delimiter): 0, or -1 and *err. */
int syntax_check(const struct lexopt *o, const char **err);

/* Splits src into tokens. Returns 0, or -1 with an error (position in
 * *errpos, message in errmsg, malloc'd). */
int tmpl_lex(const char *src, size_t len, const struct lexopt *o,
	     struct tokens *out, size_t *errpos, char **errmsg);
void tokens_release(struct tokens *t);

/* ---- AST --------------------------------------------------------------- */

enum nkind {
	/* expressions */
	N_LIT, N_NAME, N_LIST, N_TUPLE, N_DICT,
	N_GETATTR,   /* a.name: a, name */
	N_GETITEM,   /* a[b]: a, b */
	N_SLICE,     /* a[b:c:d]: a, b?, c?, d? (kids may be NULL) */
	N_CALL,      /* a(args, kw=...) */
	N_FILTER,    /* a | name(args) ; a may be NULL in {% filter %} */
	N_TEST,      /* a is [not] name(args) ; op = negate */
	N_NEG, N_POS, N_NOT,
	N_BIN,       /* a op b; op = TK_ADD..TK_POW */
	N_CONCAT,    /* args joined with ~ */
	N_CMP,       /* a op0 args[0] op1 args[1] ...: ops in cmpops */
	N_AND, N_OR,
	N_COND,      /* b if a else c: a cond, b then, c else (may be NULL) */
	/* statements */
	S_TEXT, S_OUT, S_IF, S_FOR, S_SET, S_SETBLOCK, S_DO, S_BREAK, S_CONTINUE,
	S_MACRO, S_INCLUDE, S_FILTERBLOCK, S_WITH,
	S_CALLBLOCK,  /* a: the macro call; targets/args: caller's parameters; body: caller */
	S_IMPORT,     /* a: template name; name: alias; op: with context */
	S_FROMIMPORT, /* a: template name; targets: name, alias pairs; op: with context */
};

enum cmpop { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_IN, CMP_NOTIN };

struct tnode;

struct nlist {
	struct tnode **v;
	size_t n, alloc;
};

struct tnode {
	enum nkind kind;
	int op;
	size_t pos;
	json_t *lit;          /* N_LIT; S_TEXT text as a json string */
	char *name;           /* NAME, GETATTR, FILTER, TEST, MACRO, SET target name */
	struct tnode *a, *b, *c, *d;
	struct nlist args;    /* list items, call/filter/test args, dict keys+values
	                       * interleaved, concat parts, cmp operands, S_SET targets */
	int *cmpops;
	char **kwnames;       /* keyword arguments: names and values */
	struct tnode **kwvals;
	size_t nkw;
	struct tnode *dyn_args;   /* call's *expr (a list spread as positional args) */
	struct tnode *dyn_kwargs; /* call's **expr (a dict spread as keyword args) */
	struct nlist body;    /* statements: if-body, for-body, set-block body, macro body */
	struct nlist orelse;  /* else branch (for / if) */
	char **targets;       /* S_FOR / S_SET unpacking names */
	size_t ntargets;
	char *attr;           /* S_SET ns.attr */
	bool recursive;
};

void tnode_free(struct tnode *n);
void nlist_push(struct nlist *l, struct tnode *n);

/* Parses tokens into a list of statements (template) or one expression
 * (expr_only). Returns 0 or -1 (errpos/errmsg as for the lexer). */
int tmpl_parse(const struct tokens *t, bool expr_only, struct nlist *out,
	       struct tnode **expr, size_t *errpos, char **errmsg);
void nlist_free(struct nlist *l);

/* ---- evaluation -------------------------------------------------------- */

struct frame {
	json_t *vars;         /* object, owned */
	struct frame *up;
	bool barrier;         /* macro call frames: names below are not visible except globals */
};

struct tmodule;

struct macro {
	char *name;
	const struct tnode *def; /* borrowed from the AST */
	/* the frame the body sees above its own: the module's top frame for
	 * an imported macro, the call site's for caller(); NULL: the frame of
	 * whoever calls it */
	struct frame *scope;
	struct tmodule *module;  /* the imported template it belongs to, or NULL */
	struct macro *next;
};

struct registry;
struct ev_ops;

/* The context of one evaluation (Jinja2's Context with its Environment):
 * filters, tests, lookups and globals are found through reg, and the
 * evaluator's entry points through ops, so that what they call never needs
 * a symbol of the evaluator or of each other. */
struct ev {
	const struct registry *reg;
	const struct ev_ops *ops;
	struct tmpl_env *env;
	struct diag *d;
	const char *src;      /* text being evaluated (for positions) */
	size_t srclen;
	bool failed;
	char undef[512];      /* why the last NULL-without-error value is undefined */
	bool undef_verbatim;  /* undef is a whole error message, kept as it was made */
	struct frame *frame;
	struct macro *macros;
	struct tmodule *modules; /* templates imported by {% import %} / {% from %} */
	struct tmodule *module;  /* the one whose macro is running (NULL: the main one) */
	int depth;            /* nested lazy templating / includes / macro calls */
	int loopctl;          /* 1 break, 2 continue */
	size_t outcap;        /* output size limit */
	bool raw_var_strings; /* mode of the outermost text (for nested templating) */
	bool foreign_src;     /* src is a variable's value, not text from env->origin */
	const struct lexopt *fileopt; /* the template's lexer options, for its includes and imports */
	unsigned long *steps; /* work counter shared with nested evaluations */
	unsigned long steps_local;
	/* the host and variable names the last access chain into hostvars
	 * read (expr-eval.c: which of its variables are data); empty when
	 * too long to keep */
	char hv_host[256], hv_var[256];
	/* the lookup() or query() running (NULL outside one): a lookup's
	 * AnsibleError is wrapped as Ansible's templar wraps what a plugin
	 * raises, naming lookup_exc as its Python class (NULL:
	 * ansible.errors.AnsibleError; LOOKUP_RAISED: an AnsibleLookupError
	 * or AnsibleOptionsError, which the templar lets through as it is) */
	const char *lookup_name, *lookup_exc;
	/* the error recorded was a lookup's AnsibleOptionsError (lookup_exc
	 * LOOKUP_OPTIONS), which the templar raises whatever errors= says */
	bool options_error;
};

/* ev->lookup_exc of a lookup error Ansible's templar does not wrap */
#define LOOKUP_RAISED ""
/* ev->lookup_exc of a lookup's AnsibleOptionsError: not wrapped either,
 * and raised even under errors='warn' or 'ignore' */
#define LOOKUP_OPTIONS "ansible.errors.AnsibleOptionsError"

#define TMPL_MAX_DEPTH 40
/* Size and work limits: no recipe comes near them; a typo or a hostile
 * template must fail cleanly instead of eating the machine. */
#define TMPL_MAX_SEQ 1000000            /* items in a generated list, chars in a repeated string */
/* Items of a list made by repetition ([x] * n) or range(): the bound of
 * Jinja's sandbox on range(). A list is rendered and read back as Ansible
 * does with every result (and a condition's text is parsed once more), at
 * about 3 us per item in the -O2 build, so that a million items took
 * seconds; a copy of a string is one token and keeps TMPL_MAX_SEQ. */
#define TMPL_MAX_ITEMS 100000
#define TMPL_MAX_TEXT (64u << 20)       /* bytes of text produced by one render */
#define TMPL_MAX_STEPS 5000000UL        /* AST nodes, filter and test calls of one top-level call */

/* ---- evaluator (expr-eval.c; statements: render.c) ------------------ */

json_t *ev_eval(struct ev *ev, const struct tnode *n);
/* Deep-templates a value taken from the variables (lazy templating). */
json_t *ev_template_value(struct ev *ev, json_t *v);
/* Reads a variable (frames, then env vars with lazy templating, then the
 * resolver, then globals); NULL = undefined (ev->undef set). Others reach
 * it as ev_lookup_name(). */
json_t *eval_name(struct ev *ev, const char *name, size_t pos);

/* Python methods of str, dict and list values (methods.c): the result of
 * self.m(args, **kw), or NULL with *known false when there is no such
 * method (or with an error recorded). */
json_t *py_str_method(struct ev *ev, json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known);
json_t *py_dict_method(struct ev *ev, json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known);
json_t *py_list_method(struct ev *ev, json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known);

/* ---- renderer (render.c), for template.c ------------------------------- */

/* Lexed and parsed text: a statement list (templates) or one expression. */
struct compiled {
	struct tokens toks;
	struct nlist body;
	struct tnode *expr;
};
/* A template imported by {% import %} or {% from ... import %}: its AST
 * (which its macros borrow), its top-level variables (a frame that ends
 * name lookup unless imported with context) and its macros. Kept until
 * ev_done. */
struct tmodule {
	char *alias;          /* {% import ... as alias %}; NULL for from-import */
	char *src;
	struct compiled c;
	struct frame top;
	struct frame ctx;     /* with context: the importer's variables then */
	struct macro *macros;
	struct tmodule *next;
};
/* The macro a call's callee names (NAME, or ALIAS.NAME of an imported
 * template), or NULL. */
struct macro *ev_find_macro(struct ev *ev, const struct tnode *callee);
/* Does a statement list read the variable name (caller, varargs...)? */
bool tnode_uses_name(const struct nlist *l, const char *name);
/* Compiles text; -1 with a syntax error recorded in ev. */
int render_compile(struct ev *ev, const char *text, size_t len, const struct lexopt *o, struct compiled *c);
void render_release(struct compiled *c);
/* Renders a whole template with ev as its top context (ev->src is set
 * to the text for the call): malloc'd text, or NULL with an error. */
char *render_template(struct ev *ev, const char *text, const struct lexopt *o);
/* Evaluates a bare expression (ev->src holds it): new reference, or NULL
 * with an error (undefined included). */
json_t *render_expr(struct ev *ev, const char *expr, bool raw);
/* Ansible's result typing of rendered text (consumed). */
json_t *render_typed_result(char *text, bool native);
/* Releases what a context collected (macros). */
void ev_done(struct ev *ev);

/* The evaluator's entry points the runtime calls back (render.c defines
 * them as render_ops; template.c puts them in every context it makes). */
struct ev_ops {
	json_t *(*render_typed)(struct ev *ev, const char *text);
	char *(*render_text)(struct ev *ev, const char *text, bool raw_var_strings);
	json_t *(*render_file_text)(struct ev *ev, const char *text, bool convert_data);
	json_t *(*render_body)(struct ev *ev, const struct nlist *body);
	json_t *(*lookup_name)(struct ev *ev, const char *name, size_t pos);
};
extern const struct ev_ops render_ops;

/* ---- runtime (runtime.c): what filters, tests, lookups and globals call */

/* Counts one unit of work; false (with an error) when over the budget. */
bool ev_step(struct ev *ev, size_t pos);
/* Records an error at byte position pos of ev->src (pos (size_t)-1: none). */
void ev_error(struct ev *ev, enum tmpl_err_kind kind, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A warning, as Ansible's Display.warning: to env->warn when set. */
void ev_warn(struct ev *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Marks the result undefined with a reason; returns NULL. */
json_t *ev_undef(struct ev *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Turns an undefined NULL into an error ("'x' is undefined"); returns v. */
json_t *ev_need(struct ev *ev, json_t *v, size_t pos);

/* Renders text in the current environment with result typing (lazy vars). */
json_t *ev_render_typed(struct ev *ev, const char *text);
/* Renders text (no typing) into a malloc'd string; NULL on error. */
char *ev_render_text(struct ev *ev, const char *text, bool raw_var_strings);
/* Renders a template file's text as lookup('template') does (convert_data:
 * a rendered literal list, dict or bool becomes that value); new reference,
 * or NULL on error. */
json_t *ev_render_file_text(struct ev *ev, const char *text, bool convert_data);
/* Renders a statement list to a string value (macro bodies). */
json_t *ev_render_body(struct ev *ev, const struct nlist *body);
/* eval_name() through the context. */
json_t *ev_lookup_name(struct ev *ev, const char *name, size_t pos);

/* Calls a filter / test by name (used by map/select/...). in may be NULL
 * (undefined). args: JSON array of positional args; kw: object or NULL. */
json_t *ev_call_filter(struct ev *ev, const char *name, json_t *in, json_t *args, json_t *kw, size_t pos);
int ev_call_test(struct ev *ev, const char *name, json_t *in, json_t *args, json_t *kw, size_t pos, bool *res);
/* Runs a lookup: the caller's callback (env->lookup) first, then the
 * registry's. terms: array. Returns a list (always), or NULL. */
json_t *ev_call_lookup(struct ev *ev, const char *name, json_t *terms, json_t *kw, size_t pos);
/* A file of lookup('file'), {% include %}... on env->search_path:
 * malloc'd path, or NULL. */
char *ev_find_file(struct ev *ev, const char *name);
/* The same for a lookup that searches its files as Ansible's
 * find_file_in_search_path does: a name found nowhere is also a warning
 * ("Unable to find ..."), whatever errors= says. */
char *ev_find_lookup_file(struct ev *ev, const char *name);
/* A lookup's error as its plugin raises it: exc names its Python class
 * (NULL: AnsibleError, LOOKUP_RAISED: let through unwrapped). Returns NULL. */
json_t *ev_lookup_error(struct ev *ev, const char *exc, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Records a TMPL_ERR_TYPE error; returns NULL. */
json_t *ev_type_error(struct ev *ev, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* in as a list (Python iteration), or NULL with "FILTER: 'T' object is
 * not iterable". */
json_t *ev_need_list(struct ev *ev, json_t *in, const char *filter, size_t pos);

/* ---- values (expr-value.c) ------------------------------------------- */

/* Python floats jansson cannot hold (value-float.c): a real of any double,
 * NaN and infinities included; whether v or anything inside it is a NaN or
 * an infinity; copies of values that may hold one (jansson's refuse). */
json_t *val_real(double d);
bool val_nonfinite_contains(const json_t *v);
json_t *val_deep_copy(const json_t *v);
json_t *val_copy(const json_t *v);

bool val_truthy(const json_t *v);
/* Python ==. */
bool val_equal(const json_t *a, const json_t *b);
/* Python ordering: returns 0 and *cmp (<0, 0, >0), or -1 when the types
 * cannot be ordered; 1 (and *cmp 0) when they are unordered, a NaN on
 * either side, where each of < <= > >= is false. */
int val_compare(const json_t *a, const json_t *b, int *cmp);
/* Python type name: 'str', 'int', 'float', 'bool', 'list', 'dict', 'NoneType'. */
const char *val_typename(const json_t *v);
void val_str(struct strbuf *sb, const json_t *v);  /* Python str() */
void val_repr(struct strbuf *sb, const json_t *v); /* Python repr() */
/* Python's float() of a text (filters-logic.c); false when it refuses it. */
bool val_parse_pyfloat(const char *s, double *out);
/* A string's bytes (json strings may hold NUL). */
const char *val_s(const json_t *v);
size_t val_slen(const json_t *v);
/* Number as double; false when not a number (bool counts as number). */
bool val_num(const json_t *v, double *out);
bool val_is_int(const json_t *v);     /* integer or bool */
long long val_int(const json_t *v);   /* integer/bool value */
/* Python iteration: list -> itself, dict -> keys, string -> characters
 * (UTF-8 code points). Returns a new array or NULL when not iterable. */
json_t *val_iter_list(const json_t *v);
/* Python membership (needle in hay): 0 and *res, or -1 on a type error. */
int val_contains(const json_t *hay, const json_t *needle, bool *res);
size_t utf8_len(const char *s, size_t n);
/* Parses a Python literal (ast.literal_eval subset); NULL when it isn't one. */
json_t *val_literal_eval(const char *text);
/* Converts a value to a string as Jinja's string filter does. */
char *val_to_cstr(const json_t *v);
/* A string value holding sb's bytes (any bytes: no UTF-8 check); releases sb. */
json_t *val_str_take(struct strbuf *sb);
/* Python hash-set membership for unique/union/...: a key string for values
 * that Python hashes (numbers equal across int/float/bool), or NULL. */
char *val_hash_key(const json_t *v);
/* Python str() of v as a string value (v itself when it is one). */
json_t *val_pystr(const json_t *v);
/* Jinja's make_attrgetter: "a.b.0" walks keys, digits index lists;
 * borrowed, NULL when a step is missing. */
json_t *val_attr_path(json_t *v, const char *path);
/* Python's str.lower/upper/capitalize/title of str(in), for the scripts
 * recipes meet (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic). */
enum { CASE_LOWER, CASE_UPPER, CASE_CAPITALIZE, CASE_TITLE };
json_t *val_case_map(json_t *in, int mode);

/* ---- registry (registry.c) ------------------------------------------- */

/* Positional args as a JSON array; keyword args as an object (may be NULL). */
typedef json_t *(*tfilter_fn)(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos);
typedef int (*ttest_fn)(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool *res);
/* terms: array; kw: object or NULL. Returns a list (always). */
typedef json_t *(*tlookup_fn)(struct ev *ev, json_t *terms, json_t *kw, size_t pos);
typedef json_t *(*tglobal_fn)(struct ev *ev, json_t *args, json_t *kw, size_t pos);

struct tfilter {
	const char *name;
	tfilter_fn fn;
	bool takes_undef;     /* receives NULL for an undefined input */
};
struct ttest {
	const char *name;
	ttest_fn fn;
	bool takes_undef;
};
struct tlookup {
	const char *name;
	tlookup_fn fn;
};
struct tglobal {
	const char *name;
	tglobal_fn fn;
};

/* Jinja2's Environment: the names a template can call. Each table ends
 * with a NULL name. */
struct registry {
	const struct tfilter *filters;
	const struct ttest *tests;
	const struct tlookup *lookups;
	const struct tglobal *globals;
};

/* The one registry of imc's filters, tests, lookups and globals. */
extern const struct registry tmpl_registry;

/* Finds a name in reg (runtime.c); a collection prefix
 * (ansible.builtin.x) is ignored except for globals. NULL if unknown. */
const struct tfilter *reg_filter(const struct registry *reg, const char *name);
const struct ttest *reg_test(const struct registry *reg, const char *name);
const struct tlookup *reg_lookup(const struct registry *reg, const char *name);
const struct tglobal *reg_global(const struct registry *reg, const char *name);

/* The functions the registry lists, one family per file. */
#define FILTER_FN(name) json_t *filter_##name(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos)
#define TEST_FN(name) int test_##name(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool *res)
#define LOOKUP_FN(name) json_t *lookup_##name(struct ev *ev, json_t *terms, json_t *kw, size_t pos)
#define GLOBAL_FN(name) json_t *global_##name(struct ev *ev, json_t *args, json_t *kw, size_t pos)
#include "template/functions.h"

/* Python's datetime and timedelta values (filters-datetime.c), made by
 * to_datetime: JSON objects with one reserved key, which the evaluator and
 * expr-value.c hand to these functions instead of treating as dicts. */
enum { DT_NONE, DT_DATETIME, DT_TIMEDELTA };
int dt_kind(const json_t *v);
bool dt_contains(const json_t *v);     /* v or anything inside it is one */
void dt_print(struct strbuf *sb, const json_t *v, bool repr);
void dt_isoformat(struct strbuf *sb, const json_t *v, const char *sep); /* a datetime */
const char *dt_typename(const json_t *v);
bool dt_truthy(const json_t *v);
int dt_compare(const json_t *a, const json_t *b, int *cmp);
json_t *dt_arith(struct ev *ev, int op, json_t *a, json_t *b, size_t pos);
json_t *dt_attr(struct ev *ev, const json_t *v, const char *name);
json_t *dt_method(struct ev *ev, const json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known);

/* URLs (filters-path.c): Python's urllib.parse.urlsplit. The parts are
 * malloc'd; url_parts_release() frees them. */
struct url_parts {
	char *scheme, *netloc, *path, *query, *fragment;
};
int url_split(const char *s, size_t n, struct url_parts *u, const char **err);
void url_parts_release(struct url_parts *u);

/* Regex (filters-regex.c): compiled and cached; Python re syntax mapped to
 * PCRE2. flags: 1 = ignorecase, 2 = multiline. */
struct pcre2_real_code_8;
const struct pcre2_real_code_8 *regex_get(struct ev *ev, const char *pat, int flags, size_t pos);
/* Why pat does not compile (malloc'd, Python re's wording where known),
 * NULL when it does. */
char *regex_error(const char *pat);
/* Python re.search / re.match: returns 1 match, 0 none, -1 error. */
int regex_search(struct ev *ev, const char *pat, int flags, const char *subj, size_t slen, bool anchored, size_t pos);

/* Args helpers. */
json_t *arg_get(json_t *args, json_t *kw, size_t i, const char *name);
int arg_str(struct ev *ev, json_t *args, json_t *kw, size_t i, const char *name, const char *dflt, const char **out, size_t pos);

/* Python %-format of fmt with one value or a list of values (value-format.c). */
int py_percent_format(struct ev *ev, struct strbuf *out, const char *fmt, json_t *vals, size_t pos);

#endif
