/* template.h: the Jinja2-style templating engine and expression evaluator of
 * imc's Ansible-compatible task executor.
 *
 * Everything the executor templates goes through here: task arguments, vars,
 * set_fact values, `when`/`failed_when`/`changed_when`/`until`/`assert.that`
 * conditions, loop sources, `debug: var=`, and whole files for the
 * `template` module. Values are jansson json_t.
 *
 * Semantics follow ansible-core 2.14 (non-native Jinja, the default):
 *  - undefined variables are errors, except under `default`/`d`, `is defined`,
 *    `is undefined` (and `mandatory` makes its own error);
 *  - variables are templated lazily when read: a variable whose value is (or
 *    contains) a string with `{{`/`{%` is rendered, with the result typing
 *    below, at the moment an expression reads it, as Ansible's AnsibleJ2Vars
 *    does; so the caller may put raw, untemplated play/role vars in `vars`;
 *  - result typing of tmpl_render_value(): a string that is
 *    exactly "{{ name }}" (one bare variable) whose value is a bool, a number
 *    or null keeps that value; otherwise the rendered text is turned back
 *    into a list/dict/bool when it starts with '[' or '{' or is
 *    "True"/"False" and parses as a Python literal; everything else is a
 *    string ("{{ 1 + 1 }}" -> "2");
 *  - values inside text use Python's str(): ['a', 'b'], {'a': 1}, True, and
 *    null renders as the empty string;
 *  - conditions are evaluated on native values (no text round trip).
 *
 * Ownership: every json_t * returned is a new reference owned by the caller,
 * and never shares a list or dict with the inputs (the caller may modify
 * it); every char * returned is malloc'd and owned by the caller; nothing
 * passed in is kept after the call returns (inputs are borrowed).
 *
 * Errors: every function returns NULL (or -1) and records one error in the
 * struct diag. Messages use Ansible's wording where it has one, e.g.
 * "'foo' is undefined", "template error while templating string: unexpected
 * '}'. String: {{ a }", "no filter named 'frob'", and say where: the snippet
 * of the template, and the line:column inside it (the diag item carries
 * env->origin as its file when set, and the template line/column). The kind
 * of the last error is left in env->err_kind so that the caller can word its
 * own message (e.g. prefix "AnsibleUndefinedVariable: ").
 *
 * Threads: the engine has no global mutable state other than an internal,
 * mutex-protected cache of compiled regular expressions; distinct threads
 * may evaluate concurrently provided each uses its own struct tmpl_env (the
 * json_t vars may be shared read-only).
 *
 * Supported (tests/unit/test-template-cases.json pins ~800 results against
 * ansible-core 2.14's own Templar):
 *  filters: default/d, mandatory, bool, int, float, string, lower, upper,
 *    capitalize, title, replace, trim, length/count, join, list, first, last,
 *    sort, unique, reverse, min, max, sum, abs, round, log, pow, root, map,
 *    select, reject, selectattr, rejectattr, attr, extract, dict2items,
 *    items2dict, items, dictsort, combine, ternary, flatten, zip, zip_longest,
 *    product, batch, subelements, random, shuffle, split, basename, dirname,
 *    splitext, expanduser, realpath, path_join, quote, center, indent,
 *    wordcount, format, truncate, escape/e, safe, type_debug, union,
 *    intersect, difference, symmetric_difference, regex_search,
 *    regex_replace, regex_findall, regex_escape, to_json, to_nice_json,
 *    tojson, from_json, to_yaml, to_nice_yaml, from_yaml, from_yaml_all,
 *    b64encode, b64decode, hash (sha1/sha256/md5), md5, sha1, checksum,
 *    json_query (JMESPath), and every test used as a filter, as before
 *    Ansible 2.9 (`result|success`, `v|version_compare('2.0', '>=')`).
 *    Names may carry a collection prefix (ansible.builtin.to_json,
 *    community.general.json_query).
 *  tests: defined, undefined, none, succeeded/success/successful,
 *    failed/failure, changed/change, skipped/skip, finished, started,
 *    reachable, unreachable, version/version_compare (loose and strict),
 *    match, search, regex, in, contains, equalto/eq/==, ne, lt, le, gt, ge,
 *    greaterthan, lessthan, odd, even, divisibleby, string, number, integer,
 *    float, boolean, mapping, sequence, iterable, sameas, lower, upper, true,
 *    false, truthy, falsy, subset, superset, all, any, exists, file,
 *    directory, link, abs.
 *  lookups: sequence, file, env, pipe and lines (only with allow_pipe),
 *    template, vars, items, list, dict, together, nested, first_found,
 *    fileglob, indexed_items, flattened, subelements, random_choice, ini,
 *    password (kept in a 0600 controller file; every password is passed to
 *    secret_register()); others (url, ...) through env->lookup, which is
 *    tried first. Options errors='ignore'|'warn' and wantlist=True.
 *  globals: range, lookup, query/q, dict, namespace, zip, omit; methods of
 *    str (split, rsplit, startswith, endswith, strip, lstrip, rstrip, lower,
 *    upper, replace, format, find, count, index, join, splitlines, zfill,
 *    isdigit, ...), dict (items, keys, values, get, copy, update, pop,
 *    setdefault, iteritems) and list (append, extend, insert, pop, remove,
 *    index, count, reverse, sort), loop.cycle().
 *
 * Known differences from Ansible: there is no tuple type (a tuple renders
 * as a list: "['a', 1]" where Python prints "('a', 1)"); integers are 64-bit
 * (beyond that, floats); type_debug says 'str' for YAML strings where
 * Ansible says 'AnsibleUnicode'; {% break %}/{% continue %}/{% do %} are
 * always enabled; an inline if is accepted at the top of a condition.
 * Limits (errors, not crashes): 1e6 items in a generated list, 64 MiB of
 * output, 5e6 evaluation steps per call, 200 levels of nesting. */
#ifndef IMC_TEMPLATE_H
#define IMC_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct diag;

/* The value of Ansible's `omit` variable (`mode: "{{ m | default(omit) }}"`).
 * A module argument whose templated value equals this string must be
 * dropped by the caller, as Ansible does. */
#define TMPL_OMIT "__omit_place_holder__imc0ffee0d1e5c0d1e5c0d1e5c0d1e5c0d1e5c0"

enum tmpl_err_kind {
	TMPL_ERR_NONE = 0,
	TMPL_ERR_UNDEFINED,     /* an undefined variable/attribute/key was used */
	TMPL_ERR_SYNTAX,        /* the template or expression does not parse */
	TMPL_ERR_TYPE,          /* wrong operand/argument type, bad value */
	TMPL_ERR_LOOKUP,        /* a lookup failed (missing file, command failed, ...);
	                         * from lookup() or query(), in Ansible's words (its
	                         * templar's wrapping), shown alone as TMPL_ERR_FILTER */
	TMPL_ERR_LIMIT,         /* recursion/size limit hit (self-referencing vars) */
	TMPL_ERR_FILTER,        /* a filter refused its input with Ansible's own error
	                         * (AnsibleFilterError): shown in its words alone, where
	                         * Ansible wraps a Python TypeError (TMPL_ERR_TYPE) */
};

/* Callback the caller may give for lookups the engine does not implement
 * (e.g. 'password', 'url'), or to override one. name is the lookup name,
 * terms a JSON array (already templated), kwargs a JSON object.
 * Returns 0 and stores a new reference in *out (a list for query()/wantlist),
 * 1 when it does not know the lookup (the engine then tries its own or
 * fails), or -1 after recording an error in d. */
typedef int (*tmpl_lookup_fn)(void *ud, const char *name, json_t *terms,
			      json_t *kwargs, json_t **out, struct diag *d);

/* Callback to resolve a top-level variable name that is not in vars (e.g.
 * `hostvars` or `groups` built on demand). Returns a new reference, or NULL
 * when the name is undefined. */
typedef json_t *(*tmpl_resolve_fn)(void *ud, const char *name);

/* Jinja's delimiters, as the template module's options (block_start_string,
 * ...), lookup('template')'s options and a template's "#jinja2:" first
 * line set them. NULL members are Jinja's defaults ("{%", "%}", "{{", "}}",
 * "{#", "#}"; no line statements, no line comments). */
struct tmpl_syntax {
	const char *block_start, *block_end;
	const char *variable_start, *variable_end;
	const char *comment_start, *comment_end;
	const char *line_statement_prefix, *line_comment_prefix;
};

/* The evaluation environment. Zero-initialise, set vars, then set what you
 * need; every pointer is borrowed for the duration of each call.
 * One env per thread (err_kind is written by every call). */
struct tmpl_env {
	json_t *vars;                 /* JSON object: name -> value; NULL = none */
	tmpl_resolve_fn resolve;      /* optional fallback for names not in vars */
	void *resolve_ud;
	/* optional: whether variable name of host in the resolver's hostvars
	 * is data (a registered result), never templated when read there */
	bool (*hostvar_unsafe)(void *ud, const char *host, const char *name);

	/* lookup('file'/'template'/'fileglob'/'first_found'), with_first_found:
	 * relative paths are tried in these directories in order (role files/
	 * and templates/, playbook dir, ...). NULL-terminated; NULL or empty
	 * means the current directory. */
	const char *const *search_path;
	bool allow_pipe;              /* lookup('pipe', cmd) runs /bin/sh on the controller */
	/* where those commands run (Ansible's loader basedir, the playbook's
	 * directory); NULL: the current directory */
	const char *pipe_dir;
	tmpl_lookup_fn lookup;        /* optional: extra lookups, tried first */
	void *lookup_ud;

	/* Where the text being templated comes from, used as the file of the
	 * diag items (e.g. "roles/tf/templates/a.j2"). NULL: the items carry no
	 * file and the message shows the snippet instead. line_base/col_base:
	 * position of the text's first character inside origin (0 = 1). */
	const char *origin;
	int line_base, col_base;

	/* Template-module rendering options (tmpl_render_string only); zero
	 * values mean Ansible's defaults: trim_blocks on, lstrip_blocks off,
	 * keep trailing newline. */
	bool no_trim_blocks;
	bool lstrip_blocks;
	/* the newline the template's own line breaks become (Jinja's
	 * newline_sequence: "\n", "\r\n" or "\r"); NULL is "\n" */
	const char *newline_sequence;
	/* Jinja's keep_trailing_newline: the source's final line break is
	 * rendered instead of dropped */
	bool keep_trailing_newline;
	/* The delimiters of every template rendered with this env, the
	 * variables' values templated lazily included (as Ansible's template
	 * action and template lookup set them on the templating environment);
	 * NULL: Jinja's. A "#jinja2:" first line changes them for its own
	 * text only. */
	const struct tmpl_syntax *syntax;

	/* Optional JSON object whose keys name top-level variables that are
	 * never templated lazily (Ansible's "unsafe" values: registered
	 * results, gathered facts, command output): a "{{" in them stays text. */
	json_t *unsafe;

	/* Optional JSON object whose keys name top-level variables whose string
	 * values came out of templating (set_fact of a template): type_debug
	 * calls them 'str', while an untemplated YAML string of the play's
	 * variables is 'AnsibleUnicode', as Ansible reports them. */
	json_t *native;

	/* Optional: where a warning Ansible's Display would print goes (a
	 * lookup's errors='warn', the config lookup's on_missing='warn'), the
	 * text without "[WARNING]: "; NULL drops them. */
	void (*warn)(void *ud, const char *msg);
	void *warn_ud;

	/* Output: kind of the last error recorded by a call with this env. */
	enum tmpl_err_kind err_kind;

	/* Internal: hostvars or a host's variables being templated as a whole
	 * (expr-eval.c); zero it with the rest. */
	int hostvars_whole;
};

/* True when s contains template syntax ("{{", "{%" or "{#"): strings
 * without it are used verbatim and need no evaluation. */
bool tmpl_has_template(const char *s);

/* The same with the start delimiters of syn (NULL: Jinja's), as Ansible's
 * is_possibly_template looks for the environment's. */
bool tmpl_syntax_has_template(const struct tmpl_syntax *syn, const char *s);

/* Evaluates a bare expression, as written in `when:` or between `{{ }}`
 * ("a.b | default(1) + 2"), to its native value. A string expression that
 * itself contains "{{ }}" is not accepted here: use tmpl_eval_cond for
 * conditions. Returns a new reference, or NULL with an error in d. An
 * undefined result is an error (TMPL_ERR_UNDEFINED). */
json_t *tmpl_eval(struct tmpl_env *env, const char *expr, struct diag *d);

/* A Python naive datetime of the broken-down time tm and usec
 * microseconds, as a value a variable may hold (the template module's
 * template_mtime); NULL outside years 1..9999. New reference. */
struct tm;
json_t *tmpl_datetime(const struct tm *tm, int usec);

/* Python/Jinja truthiness of a JSON value: false, null, 0, 0.0, "", [] and
 * {} are false; everything else is true. NULL is false. Can't fail. */
bool tmpl_is_true(const json_t *v);

/* Evaluates a condition as Ansible does for when/failed_when/changed_when/
 * until/assert.that. cond is a JSON string (bare expression; one that
 * contains "{{ }}" is templated first, as Ansible does with a warning), a
 * bool or number (used as is), null (true, like an empty when), or an array
 * of those (logical AND, evaluated in order, stopping at the first false).
 * Stores the result in *out; returns 0, or -1 with an error in d. */
int tmpl_eval_cond(struct tmpl_env *env, json_t *cond, bool *out, struct diag *d);

/* Same for a C string condition. */
int tmpl_eval_cond_str(struct tmpl_env *env, const char *cond, bool *out, struct diag *d);

/* Templates every string inside v (recursively through arrays and objects;
 * object keys are templated too), with Ansible's result typing (see above).
 * Non-string scalars and strings without template syntax are copied as is.
 * Returns a new reference (a new value; v itself is never modified), or NULL
 * with an error in d. */
json_t *tmpl_render_value(struct tmpl_env *env, json_t *v, struct diag *d);

/* Templates one string with the result typing of tmpl_render_value. */
json_t *tmpl_render_typed(struct tmpl_env *env, const char *text, struct diag *d);

/* Renders a whole template to text, as the `template` module does: blocks
 * {% if/elif/else/endif %}, {% for x in xs %}...{% else %}{% endfor %} with
 * loop.index/index0/revindex/revindex0/first/last/length/cycle() and tuple
 * unpacking, {% set %} (also the block form), {% raw %}, {# comments #},
 * {% do %}, {% break %}/{% continue %}, {% macro %}/{% call %}-less macros,
 * {% include %} (through search_path), whitespace control {%- -%} {{- -}},
 * trim_blocks, env->syntax's delimiters, and a "#jinja2:" first line
 * (Ansible's overrides of the lexer settings for that text; others are an
 * error naming them). The source's trailing newline is kept. String literals use
 * Python escapes ("\n"), as in Jinja. Returns malloc'd text, or NULL with an
 * error in d. */
char *tmpl_render_string(struct tmpl_env *env, const char *text, struct diag *d);

/* Renders to text with the rules Ansible applies to task arguments (string
 * literals inside {{ }} keep their backslashes: '\1' stays backslash-one),
 * without the result typing. Returns malloc'd text, or NULL. */
char *tmpl_render_text(struct tmpl_env *env, const char *text, struct diag *d);

/* Python str() of a value, as it appears when rendered inside text:
 * "abc", "2", "1.5", "True", "None", "['a', 1]", "{'k': 'v'}". Returns a
 * malloc'd string. Can't fail. (`debug: var=` prints this for non-strings.) */
char *tmpl_to_text(const json_t *v);

/* Python repr() of a value ("'abc'" for strings), for loop item labels
 * ("changed: [h] => (item=...)" prints dicts as repr). Can't fail. */
char *tmpl_repr(const json_t *v);

/* Parses text as a Python literal, as the result typing above does
 * (Python's ast.literal_eval subset: strings, numbers, True/False/None,
 * lists, tuples as lists, dicts). Returns a new reference, or NULL when
 * text is not one. Can't fail otherwise. */
json_t *tmpl_literal_eval(const char *text);

/* Runs a lookup as lookup(name, terms..., **kwargs) would (wantlist=false:
 * lists are joined with ","), or as query() (wantlist=true: always a list).
 * For with_<name> loops call it with wantlist=true: e.g. with_sequence
 * ("start=1 end=3 format=w%02d"), with_items, with_dict, with_together,
 * with_first_found, with_fileglob, with_nested, with_subelements,
 * with_file, with_lines, with_env. terms is a JSON array (or a single
 * value, treated as a one-element list), already templated by the caller;
 * kwargs may be NULL. Returns a new reference or NULL with an error. */
json_t *tmpl_lookup(struct tmpl_env *env, const char *name, json_t *terms,
		    json_t *kwargs, bool wantlist, struct diag *d);

/* Names the engine knows, for the executor's static "supported subset"
 * check before choosing the built-in executor over ansible-playbook. */
bool tmpl_has_filter(const char *name);
bool tmpl_has_test(const char *name);
bool tmpl_has_lookup(const char *name);

/* Statically checks a template (or, with is_expr, a bare expression) for
 * filters/tests/lookups outside the supported set, without evaluating it.
 * Returns 0, or -1 with the first problem in d. A text that does not
 * compile passes: its syntax error is the rendering's, at run time, as in
 * Ansible's lazy templating of task arguments. */
int tmpl_check(const char *text, bool is_expr, const char *origin, struct diag *d);

#endif
