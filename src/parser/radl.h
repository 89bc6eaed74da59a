/* radl.h: the RADL abstract syntax tree and the parser's public API.
 *
 * RADL (the Resource and Application Description Language of GRyCAP's
 * Infrastructure Manager) is parsed into a struct radl_doc that keeps every
 * sentence and every feature constraint exactly as written, in source order,
 * each with its file/line/col. Nothing is merged away: where RADL-JSON keeps
 * only part of what was written (an upper bound next to a different lower
 * bound, the operator of a string), the AST still has it, and the getters
 * below answer from it.
 *
 * Ownership: a radl_doc owns every node, string and array reachable from it,
 * and radl_doc_free() releases them all. Every pointer the lookup and getter
 * functions return is borrowed from the document and stays valid until the
 * document is freed; callers (the plan, getinfo, ...) never free or keep them
 * beyond that. The one exception is radl_aspect_clone(), whose result the
 * caller owns and releases with radl_aspect_free().
 *
 * Pipeline: radl_parse() (lexing, parsing, building; duplicate ids and
 * conflicting constraints are errors here, as in IM) then radl_check() (the
 * semantic checks of IM: known attributes, references between sentences,
 * YAML of recipes). Both record errors in the struct diag they are given and
 * never print anything. */
#ifndef IMC_RADL_H
#define IMC_RADL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/diag.h"
#include "util/strbuf.h"

/* ---- values ----------------------------------------------------------- */

enum radl_cmp {
	RADL_EQ, /* =  */
	RADL_LT, /* <  */
	RADL_GT, /* >  */
	RADL_LE, /* <= */
	RADL_GE, /* >= */
};

enum radl_vkind {
	RADL_V_NUMBER,   /* 512m, 2, 1.5 */
	RADL_V_STRING,   /* 'text' */
	RADL_V_LIST,     /* ['a', 'b'] */
	RADL_V_CONTAINS, /* name contains ( features ) */
};

/* A RADL number. 'value' is already multiplied by its unit as IM does it
 * (K=10^3, KI=2^10, M=10^6, MI=2^20, G=10^9, GI=2^30, T=10^12, TI=2^40, one
 * trailing B dropped, case-insensitive; any other unit is x1), so
 * memory.size >= 512m gives 512000000. 'is_int' is true when the number was
 * written without a decimal point (it then prints as an integer). */
struct radl_number {
	double value;   /* value x unit multiplier */
	double written; /* the number as written, before the unit */
	bool is_int;
	char *unit;     /* the unit word as written, or NULL */
};

struct radl_body;

/* One constraint 'name cmp value', as written. */
struct radl_feature {
	char *name;
	enum radl_cmp cmp;   /* RADL_EQ for contains */
	enum radl_vkind kind;
	struct radl_number num;    /* RADL_V_NUMBER */
	char *str;                 /* RADL_V_STRING (escapes resolved: \' -> ') */
	char **list;               /* RADL_V_LIST: nlist strings */
	size_t nlist;
	struct radl_body *contains; /* RADL_V_CONTAINS: the inner block */
	struct src_loc loc;        /* where the feature name starts */
};

/* 'soft WEIGHT ( features )': a preference block inside a system. */
struct radl_soft {
	struct radl_number weight;
	struct radl_body *body;
	struct src_loc loc;
};

/* The inside of '( ... )': features and soft blocks, in source order. */
struct radl_body {
	struct radl_feature *feat;
	size_t nfeat;
	struct radl_soft *soft;
	size_t nsoft;
	struct src_loc open, close; /* the parentheses (line 0 if built from JSON) */
};

/* ---- sentences -------------------------------------------------------- */

enum radl_class {
	RADL_NETWORK,
	RADL_SYSTEM,
	RADL_ANSIBLE,
	RADL_DESCRIPTION,
};

/* network, system, ansible and description sentences. */
struct radl_aspect {
	enum radl_class cls;
	char *id;
	bool reference;        /* 'system x' without a body */
	struct radl_body body; /* empty for a reference */
	struct src_loc loc;    /* the keyword */
};

/* configure ID [ ( [@begin ... @end] ) ] */
struct radl_configure {
	char *id;
	bool reference;        /* 'configure x' without a body */
	char *recipe;          /* text between @begin and @end; NULL for 'configure x ()'
	                        * and for a reference. It starts with the rest of the
	                        * @begin line (usually "\n"). */
	size_t recipe_len;
	/* Physical RADL line of the first character of 'recipe' (the @begin
	 * line): line L (0-based) of the recipe text is RADL line
	 * recipe_line + L. */
	int recipe_line;
	struct src_loc loc;        /* the keyword */
	struct src_loc begin_loc;  /* '@begin' */
};

/* deploy SYSTEM COUNT [CLOUD] */
struct radl_deploy {
	char *system;
	struct radl_number count; /* a float count is accepted, as in IM */
	char *cloud;              /* NULL when none was given */
	struct src_loc loc;
};

/* system S configure C [step N | with TOOL] */
struct radl_ctxt_item {
	char *system;
	char *configure;
	struct radl_number step;  /* 0 when not given */
	bool has_step;
	char *tool;               /* 'with TOOL', or NULL */
	struct src_loc loc;
};

/* Every contextualize sentence of a document, merged as IM does: max_time
 * is the largest, items are keyed by (system, configure) with a later one
 * replacing an earlier one in place, options are a feature body. */
struct radl_contextualize {
	bool present;              /* false: no contextualize sentence at all */
	struct radl_number max_time; /* 0 when not given */
	struct radl_body options;  /* 'option NAME cmp VALUE', as features */
	struct radl_ctxt_item *items;
	size_t nitems;
	struct src_loc loc;        /* the first contextualize keyword */
};

struct radl_doc {
	char *file;                 /* name used in diagnostics; src_loc.file points here */
	struct radl_aspect *ansibles;   size_t nansibles;
	struct radl_aspect *networks;   size_t nnetworks;
	struct radl_aspect *systems;    size_t nsystems;
	struct radl_configure *configures; size_t nconfigures;
	struct radl_deploy *deploys;    size_t ndeploys;
	struct radl_contextualize ctxt;
	struct radl_aspect *description; /* NULL when none */
	char *source;      /* the RADL text parsed (newlines normalised to LF), or
	                    * NULL when built from JSON; radl_check() shows it */
	size_t source_len;
	struct radl_doc_index *index; /* private: id lookups in constant time */
};

/* ---- parsing and checking --------------------------------------------- */

/* Parses RADL text (len bytes; NUL bytes are an error). 'file' names the
 * input in diagnostics and is copied. Returns a new document, or NULL with
 * errors recorded in d (several when recovery is sound). The source is
 * registered with diag_add_source() so errors show the line and a caret.
 * Empty or whitespace-only text gives an empty document. */
struct radl_doc *radl_parse(const char *file, const char *text, size_t len, struct diag *d);

/* IM's semantic checks: known attributes (type, operator, value, unit),
 * contiguous disk/net_interface indices, connections naming networks,
 * ansible hosts, deploys and contextualize items naming sentences, recipes
 * that are valid YAML (errors at RADL lines). Returns 0, or -1 with every
 * error found recorded in d. */
int radl_check(const struct radl_doc *doc, struct diag *d);

/* Reads a file and parses it: RADL or RADL-JSON, chosen by content (a
 * first non-blank character '[' or '{' means JSON). A missing file is
 * recorded with IMC_EXIT_NOINPUT. Does not run radl_check(). */
struct radl_doc *radl_load_file(const char *path, struct diag *d);

/* Parses RADL-JSON (the array IM's radl_json dumps, or one aspect object).
 * Syntax errors carry the JSON line:col; others name the file only. */
struct radl_doc *radl_parse_json(const char *file, const char *text, size_t len, struct diag *d);

/* Registers every credential of the document (features whose name ends in
 * password, private_key, token, secret) with secret_register(), so that no
 * log line or diagnostic shows them. radl_parse() registers them as it
 * reads them, and the JSON readers call this on every document they return. */
void radl_register_secrets(const struct radl_doc *doc);

/* For fuzzing harnesses only: stop registering credentials (the registry
 * never shrinks, and a fuzzer feeds millions of made-up passwords). */
void radl_secrets_off(void);

/* Frees a document; NULL is fine. */
void radl_doc_free(struct radl_doc *doc);

/* ---- lookups (all results borrowed from the document) ------------------ */

struct radl_aspect *radl_find_system(const struct radl_doc *doc, const char *id);
struct radl_aspect *radl_find_network(const struct radl_doc *doc, const char *id);
struct radl_aspect *radl_find_ansible(const struct radl_doc *doc, const char *id);
struct radl_configure *radl_find_configure(const struct radl_doc *doc, const char *id);
/* The item of the merged contextualize for (system, configure), or NULL. */
const struct radl_ctxt_item *radl_find_ctxt_item(const struct radl_doc *doc,
						 const char *system, const char *configure);
/* Total VMs a system is deployed with (sum of its deploy counts, truncated). */
long radl_deploy_count(const struct radl_doc *doc, const char *system);

/* ---- feature getters on a body (aspect->body, soft->body, a contains
 * block) ----------------------------------------------------------------- */

/* Iterates the constraints named 'name' in source order: pass prev = NULL
 * for the first one, then the previous result; NULL at the end. Soft blocks
 * and contains blocks are not searched (use their own bodies). */
const struct radl_feature *radl_next_feature(const struct radl_body *b, const char *name,
					     const struct radl_feature *prev);
/* The first constraint named 'name', or NULL. */
const struct radl_feature *radl_get_feature(const struct radl_body *b, const char *name);
/* The first string value of 'name' (any comparator), or NULL. */
const char *radl_get_string(const struct radl_body *b, const char *name);
/* The first list value of 'name', or NULL; its length goes to *n. */
char *const *radl_get_list(const struct radl_body *b, const char *name, size_t *n);
/* The interval all numeric constraints of 'name' allow, unit applied:
 * '=' gives [v,v], '>'/'>=' [v,inf), '<'/'<=' (-inf,v]. Return 0 and store
 * the bound when there is one, else -1 (no numeric constraint, or no bound
 * on that side). radl_get_number() answers only when the interval is one
 * value ('memory.size = 1g', or '>= 1g and <= 1g'). */
int radl_get_number_min(const struct radl_body *b, const char *name, double *v);
int radl_get_number_max(const struct radl_body *b, const char *name, double *v);
int radl_get_number(const struct radl_body *b, const char *name, double *v);
/* The blocks of 'name contains (...)' (disk.0.applications), as written and
 * in source order: fills out[] with up to max inner bodies and returns how
 * many there are in all. (RADL-JSON merges blocks with the same inner
 * 'name'; here each block is seen on its own.) */
size_t radl_get_contains(const struct radl_body *b, const char *name,
			 const struct radl_body **out, size_t max);

/* Shorthands on an aspect's body. */
static inline const char *radl_aspect_string(const struct radl_aspect *a, const char *name)
{
	return radl_get_string(&a->body, name);
}

/* ---- building and changing (for getinfo/alter/addresource) ------------ */

/* Deep copy of an aspect (locations keep pointing at the original file name
 * string, so the copy must not outlive the document it came from unless
 * locations are not used). */
struct radl_aspect *radl_aspect_clone(const struct radl_aspect *a);
void radl_aspect_free(struct radl_aspect *a);
/* Replace every constraint on 'name' by one 'name = value'. */
void radl_set_string(struct radl_body *b, const char *name, const char *value);
void radl_set_number(struct radl_body *b, const char *name, double value, bool is_int);
/* Remove every constraint on 'name'. */
void radl_unset(struct radl_body *b, const char *name);

/* ---- output ----------------------------------------------------------- */

/* RADL-JSON: the array IM's radl_json.dump() gives (ansible hosts, networks,
 * systems, configures, deploys, contextualize, description). Constraints are
 * merged as IM does it, so an upper bound next to a different lower bound
 * is dropped; the AST keeps it. New reference, caller decrefs. */
json_t *radl_doc_to_json(const struct radl_doc *doc);
/* One aspect as a RADL-JSON object. */
json_t *radl_aspect_to_json(const struct radl_aspect *a);
/* Builds a document from RADL-JSON already loaded; errors name 'file'. */
struct radl_doc *radl_doc_from_json(const char *file, const json_t *j, struct diag *d);

/* RADL text: every sentence in the order of RADL-JSON, each constraint as
 * written (nothing merged away), strings escaped so that the text parses
 * back to the same document. */
void radl_print_doc(struct strbuf *sb, const struct radl_doc *doc);
void radl_print_aspect(struct strbuf *sb, const struct radl_aspect *a);
void radl_print_configure(struct strbuf *sb, const struct radl_configure *c);
void radl_print_deploy(struct strbuf *sb, const struct radl_deploy *dp);
void radl_print_contextualize(struct strbuf *sb, const struct radl_contextualize *c);

/* Names for messages and output. */
const char *radl_class_name(enum radl_class cls);   /* "system" ... */
const char *radl_cmp_str(enum radl_cmp cmp);        /* "=", "<=" ... */

/* The multiplier of a unit word as IM applies it (1 for unknown units). */
double radl_unit_multiplier(const char *unit);

#endif
