/* render.c: the statement half of the evaluator. It compiles text (lexer +
 * parser), executes template statements (if/for/set/do/macro/include/
 * filter/with, loop variables, break/continue) into an output buffer,
 * renders nested text (variables templated lazily, lookup('template')),
 * and applies Ansible's result typing to templated values (a lone
 * "{{ var }}" keeps a native bool or number; rendered text that looks like
 * a list, dict or bool is turned back into one; everything else is a
 * string). The evaluator and the runtime reach it through render_ops in
 * the context; template.c, the public entry, calls it directly. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "template/engine.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_OUTPUT TMPL_MAX_TEXT

/* ---- newlines --------------------------------------------------------------- */

/* Jinja normalises "\r\n" and "\r" to "\n" and drops one trailing newline
 * of the source; Ansible then re-appends as many newlines as the source had
 * beyond what the result ends with (preserve_trailing_newlines). */
static char *normalize_source(const char *text, size_t *trailing)
{
	size_t n = strlen(text);
	char *s = xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\r') {
			s[k++] = '\n';
			if (i + 1 < n && text[i + 1] == '\n')
				i++;
		} else {
			s[k++] = text[i];
		}
	}
	s[k] = 0;
	size_t t = 0;
	while (t < k && s[k - 1 - t] == '\n')
		t++;
	*trailing = t;
	if (k && s[k - 1] == '\n')
		s[--k] = 0;
	return s;
}

/* A whole template as Ansible's template action renders it: Jinja drops one
 * final line break and turns every line break of the source (\r\n, \r or
 * \n) into the newline sequence nl; Ansible then appends nl as many times as
 * the raw source ends with more '\n' characters than the result (*want). */
static char *normalize_template(const char *text, const char *nl, bool keep_trailing, size_t *want)
{
	size_t n = strlen(text), w = 0;
	while (w < n && text[n - 1 - w] == '\n')
		w++;
	*want = w;
	if (keep_trailing)
		; /* Jinja's keep_trailing_newline */
	else if (n >= 2 && text[n - 2] == '\r' && text[n - 1] == '\n')
		n -= 2;
	else if (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\r' || text[i] == '\n') {
			strbuf_addstr(&sb, nl);
			if (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')
				i++;
		} else
			strbuf_addch(&sb, text[i]);
	}
	if (!sb.buf)
		strbuf_addstr(&sb, "");
	return strbuf_detach(&sb);
}

/* Ansible's _count_newlines_from_end of the text as it was given (a
 * "#jinja2:" line included). */
static size_t count_trailing_newlines(const char *text)
{
	size_t n = strlen(text), w = 0;
	while (w < n && text[n - 1 - w] == '\n')
		w++;
	return w;
}

static void append_newlines(struct strbuf *sb, size_t want, const char *nl)
{
	size_t have = 0;
	while (have < sb->len && sb->buf[sb->len - 1 - have] == '\n')
		have++;
	for (; have < want; have++)
		strbuf_addstr(sb, nl);
}

/* The lexer options of a template file the one being rendered includes or
 * imports: the rendering's own (its "#jinja2:" line's changes included, as
 * Jinja's overlay environment loads them), else the env's. */
static struct lexopt file_lexopt(const struct ev *ev)
{
	if (ev->fileopt)
		return *ev->fileopt;
	struct lexopt o = { .trim_blocks = !ev->env->no_trim_blocks, .lstrip_blocks = ev->env->lstrip_blocks,
			    .newline = ev->env->newline_sequence, .keep_trailing_newline = ev->env->keep_trailing_newline,
			    .syn = ev->env->syntax };
	return o;
}

/* ---- compile ----------------------------------------------------------- */

void render_release(struct compiled *c)
{
	tokens_release(&c->toks);
	nlist_free(&c->body);
	tnode_free(c->expr);
	c->expr = NULL;
}

int render_compile(struct ev *ev, const char *text, size_t len, const struct lexopt *o, struct compiled *c)
{
	size_t ep = 0;
	char *em = NULL;
	memset(c, 0, sizeof(*c));
	const char *bad;
	if ((o->syn || o->newline) && syntax_check(o, &bad) < 0) {
		ev_error(ev, TMPL_ERR_SYNTAX, (size_t)-1, "%s", bad);
		return -1;
	}
	if (tmpl_lex(text, len, o, &c->toks, &ep, &em) < 0 ||
	    tmpl_parse(&c->toks, o->expr_only, &c->body, &c->expr, &ep, &em) < 0) {
		ev_error(ev, TMPL_ERR_SYNTAX, ep, "template error while templating string: %s", em);
		free(em);
		render_release(c);
		return -1;
	}
	return 0;
}

/* ---- statements -------------------------------------------------------- */

static int exec_body(struct ev *ev, const struct nlist *body, struct strbuf *out);

static int out_value(struct ev *ev, json_t *v, struct strbuf *out, size_t pos)
{
	if (!json_is_null(v))
		val_str(out, v);
	if (out->len > MAX_OUTPUT || out->truncated) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "template output too large (over %u bytes)", MAX_OUTPUT);
		return -1;
	}
	return 0;
}

static void frame_set(struct ev *ev, const char *name, json_t *v)
{
	json_object_set(ev->frame->vars, name, v);
}

static int assign(struct ev *ev, char **targets, size_t nt, json_t *v, size_t pos)
{
	if (nt == 1) {
		frame_set(ev, targets[0], v);
		return 0;
	}
	json_t *l = val_iter_list(v);
	if (!l) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "cannot unpack non-iterable %s object", val_typename(v));
		return -1;
	}
	if (json_array_size(l) != nt) {
		ev_error(ev, TMPL_ERR_TYPE, pos, json_array_size(l) > nt ? "too many values to unpack (expected %zu)"
									   : "not enough values to unpack (expected %zu, got %zu)",
			 nt, json_array_size(l));
		json_decref(l);
		return -1;
	}
	for (size_t i = 0; i < nt; i++)
		frame_set(ev, targets[i], json_array_get(l, i));
	json_decref(l);
	return 0;
}

static int exec_for(struct ev *ev, const struct tnode *n, struct strbuf *out)
{
	json_t *it = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
	if (!it)
		return -1;
	json_t *items = val_iter_list(it);
	if (!items) {
		ev_error(ev, TMPL_ERR_TYPE, n->a->pos, "'%s' object is not iterable", val_typename(it));
		json_decref(it);
		return -1;
	}
	json_decref(it);
	struct frame f = { .vars = json_object(), .up = ev->frame };
	/* the loop's frame lives as long as this call: popped before returning */
	/* cppcheck-suppress autoVariables */
	ev->frame = &f;
	int rc = 0;
	if (n->b) {
		/* loop filter: {% for x in xs if cond %} */
		json_t *kept = json_array();
		for (size_t i = 0; i < json_array_size(items) && rc == 0; i++) {
			json_t *item = json_array_get(items, i);
			if (assign(ev, n->targets, n->ntargets, item, n->pos) < 0) {
				rc = -1;
				break;
			}
			json_t *c = ev_need(ev, ev_eval(ev, n->b), n->b->pos);
			if (!c) {
				rc = -1;
				break;
			}
			if (val_truthy(c))
				json_array_append(kept, item);
			json_decref(c);
		}
		json_decref(items);
		items = kept;
	}
	size_t len = json_array_size(items);
	for (size_t i = 0; i < len && rc == 0; i++) {
		json_t *item = json_array_get(items, i);
		json_object_clear(f.vars);
		json_t *loop = json_pack("{sIsIsIsIsbsbsIsIsI}", "index", (json_int_t)i + 1, "index0", (json_int_t)i,
					 "revindex", (json_int_t)(len - i), "revindex0", (json_int_t)(len - i - 1),
					 "first", i == 0, "last", i + 1 == len, "length", (json_int_t)len,
					 "depth", (json_int_t)1, "depth0", (json_int_t)0);
		if (i > 0)
			json_object_set(loop, "previtem", json_array_get(items, i - 1));
		if (i + 1 < len)
			json_object_set(loop, "nextitem", json_array_get(items, i + 1));
		json_object_set_new(f.vars, "loop", loop);
		if (assign(ev, n->targets, n->ntargets, item, n->pos) < 0) {
			rc = -1;
			break;
		}
		rc = exec_body(ev, &n->body, out);
		if (ev->loopctl == 1) {
			ev->loopctl = 0;
			break;
		}
		ev->loopctl = 0;
	}
	ev->frame = f.up;
	json_decref(f.vars);
	if (rc == 0 && len == 0 && n->orelse.n)
		rc = exec_body(ev, &n->orelse, out);
	json_decref(items);
	return rc;
}

/* Renders a statement list to a string value (macro calls, set blocks). */
static json_t *render_body(struct ev *ev, const struct nlist *body)
{
	struct strbuf sb;
	strbuf_init(&sb, MAX_OUTPUT + 1);
	if (exec_body(ev, body, &sb) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	return r;
}

/* Applies a chain of N_FILTER nodes whose innermost input is NULL to v. */
static json_t *apply_filter_chain(struct ev *ev, const struct tnode *f, json_t *v)
{
	if (!f)
		return json_incref(v);
	json_t *in = apply_filter_chain(ev, f->a, v);
	if (!in)
		return NULL;
	struct tnode tmp = *f;
	struct tnode lit = { .kind = N_LIT, .lit = in, .pos = f->pos };
	tmp.a = &lit;
	json_t *r = ev_eval(ev, &tmp);
	json_decref(in);
	return r;
}


/* Frees the macros of *list down to (not including) stop. */
static void drop_macros(struct macro **list, struct macro *stop)
{
	while (*list && *list != stop) {
		struct macro *m = *list;
		*list = m->next;
		free(m->name);
		free(m);
	}
}

/* {% call [(params)] macro(args) %}body{% endcall %}: the macro runs with
 * caller() rendering body, which sees the variables where the block is and
 * its own parameters. A macro that never names caller refuses it, with
 * Jinja's message. */
static int exec_callblock(struct ev *ev, const struct tnode *n, struct strbuf *out)
{
	const struct tnode *callee = n->a->a;
	struct macro *target = ev_find_macro(ev, callee);
	if (!target) {
		ev_error(ev, TMPL_ERR_UNDEFINED, n->a->pos, "the {%% call %%} block's callee is not a macro");
		return -1;
	}
	if (!tnode_uses_name(&target->def->body, "caller") && !tnode_uses_name(&target->def->args, "caller")) {
		ev_error(ev, TMPL_ERR_TYPE, n->pos,
			 "macro '%s' was invoked with two values for the special caller argument. This is most likely a bug.",
			 target->name);
		return -1;
	}
	/* caller() is found first among the macros of whichever template
	 * the called macro belongs to */
	struct macro **list = target->module ? &target->module->macros : &ev->macros;
	struct macro *c = xcalloc(1, sizeof(*c));
	c->name = xstrdup("caller");
	c->def = n;
	c->scope = ev->frame;
	c->module = ev->module;
	c->next = *list;
	*list = c;
	json_t *v = ev_eval(ev, n->a);
	/* unlink caller (macros defined meanwhile may sit before it) */
	for (struct macro **pp = list; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c->name);
	free(c);
	if (!v)
		return ev_need(ev, NULL, n->pos), -1;
	int rc = out_value(ev, v, out, n->pos);
	json_decref(v);
	return rc;
}

static void module_free(struct tmodule *t)
{
	drop_macros(&t->macros, NULL);
	render_release(&t->c);
	json_decref(t->top.vars);
	json_decref(t->ctx.vars);
	free(t->src);
	free(t->alias);
	free(t);
}

/* {% import NAME as alias %} and {% from NAME import a, b as c %}: the
 * template is run once (its output dropped) for its macros and top-level
 * variables; names starting with '_' are not exported. Without context
 * (Jinja's default for imports) its names are all it sees. */
static int exec_import(struct ev *ev, const struct tnode *n)
{
	json_t *nm = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
	if (!nm)
		return -1;
	char *name = val_to_cstr(nm);
	json_decref(nm);
	char *path = ev_find_file(ev, name);
	struct strbuf text = STRBUF_INIT;
	if (!path || strbuf_read_file(&text, path) < 0 || ev->depth >= TMPL_MAX_DEPTH) {
		ev_error(ev, TMPL_ERR_LOOKUP, n->pos, ev->depth >= TMPL_MAX_DEPTH ? "import nested too deeply: '%s'"
										    : "template not found for import: '%s'", name);
		free(path);
		free(name);
		strbuf_release(&text);
		return -1;
	}
	free(path);
	struct tmodule *t = xcalloc(1, sizeof(*t));
	size_t ignored;
	struct lexopt o = file_lexopt(ev);
	t->src = normalize_template(strbuf_str(&text), o.newline ? o.newline : "\n", o.keep_trailing_newline, &ignored);
	strbuf_release(&text);
	t->top.vars = json_object();
	t->top.barrier = !n->op;
	t->ctx.vars = json_object();
	if (n->op) {
		/* with context: a snapshot of the names visible here (Jinja
		 * passes the context as it is at the import), then the
		 * template's variables */
		for (struct frame *f = ev->frame; f; f = f->up) {
			const char *k;
			json_t *v;
			json_object_foreach(f->vars, k, v)
				if (!json_object_get(t->ctx.vars, k))
					json_object_set(t->ctx.vars, k, v);
			if (f->barrier)
				break;
		}
		t->top.up = &t->ctx;
	}
	const char *save_src = ev->src;
	size_t save_len = ev->srclen;
	struct frame *save_frame = ev->frame;
	struct tmodule *save_mod = ev->module;
	ev->src = t->src;
	ev->srclen = strlen(t->src);
	int rc = -1;
	if (render_compile(ev, ev->src, ev->srclen, &o, &t->c) == 0) {
		struct strbuf discard;
		strbuf_init(&discard, MAX_OUTPUT + 1);
		ev->frame = &t->top;
		ev->module = t;
		ev->depth++;
		rc = exec_body(ev, &t->c.body, &discard);
		ev->depth--;
		strbuf_release(&discard);
	}
	ev->src = save_src;
	ev->srclen = save_len;
	ev->frame = save_frame;
	ev->module = save_mod;
	if (rc < 0) {
		free(name);
		module_free(t);
		return -1;
	}
	t->next = ev->modules;
	ev->modules = t;
	if (n->kind == S_IMPORT) {
		t->alias = xstrdup(n->name);
		/* ALIAS.var: the exported variables; ALIAS.macro() is found
		 * through the module (ev_find_macro) */
		json_t *exp = json_object();
		const char *k;
		json_t *v;
		json_object_foreach(t->top.vars, k, v)
			if (k[0] != '_')
				json_object_set(exp, k, v);
		frame_set(ev, n->name, exp);
		json_decref(exp);
		free(name);
		return 0;
	}
	for (size_t i = 0; i + 1 < n->ntargets; i += 2) {
		const char *want = n->targets[i], *as = n->targets[i + 1];
		struct macro *src = NULL;
		for (struct macro *m = t->macros; m; m = m->next)
			if (!strcmp(m->name, want)) {
				src = m;
				break;
			}
		if (src) {
			struct macro *m = xcalloc(1, sizeof(*m));
			m->name = xstrdup(as);
			m->def = src->def;
			m->scope = src->scope;
			m->module = src->module;
			struct macro **list = ev->module ? &ev->module->macros : &ev->macros;
			m->next = *list;
			*list = m;
			continue;
		}
		json_t *v = json_object_get(t->top.vars, want);
		if (!v) {
			ev_error(ev, TMPL_ERR_UNDEFINED, n->pos, "the template '%s' does not export the requested name '%s'", name, want);
			free(name);
			return -1;
		}
		frame_set(ev, as, v);
	}
	free(name);
	return 0;
}

static int exec_include(struct ev *ev, const struct tnode *n, struct strbuf *out)
{
	json_t *nm = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
	if (!nm)
		return -1;
	json_t *names = json_is_array(nm) ? json_incref(nm) : json_pack("[O]", nm);
	json_decref(nm);
	char *path = NULL;
	for (size_t i = 0; i < json_array_size(names) && !path; i++)
		if (json_is_string(json_array_get(names, i)))
			path = ev_find_file(ev, json_string_value(json_array_get(names, i)));
	if (!path) {
		json_decref(names);
		if (n->op)
			return 0;
		ev_error(ev, TMPL_ERR_LOOKUP, n->pos, "template not found for include");
		return -1;
	}
	json_decref(names);
	struct strbuf text = STRBUF_INIT;
	if (strbuf_read_file(&text, path) < 0 || ev->depth >= TMPL_MAX_DEPTH) {
		ev_error(ev, TMPL_ERR_LOOKUP, n->pos, ev->depth >= TMPL_MAX_DEPTH ? "include nested too deeply: '%s'"
										    : "cannot read included template '%s'", path);
		free(path);
		strbuf_release(&text);
		return -1;
	}
	free(path);
	struct lexopt o = file_lexopt(ev);
	struct compiled c;
	const char *save_src = ev->src;
	size_t save_len = ev->srclen;
	/* an included template is Jinja source like any other: its line
	 * breaks become the newline sequence and its one final line break is
	 * dropped (Ansible restores trailing newlines of the outer template
	 * only), so "Hello {% include 'w' %}!" with w = "world\n" is
	 * "Hello world!" */
	size_t ignored;
	char *src = normalize_template(strbuf_str(&text), o.newline ? o.newline : "\n", o.keep_trailing_newline, &ignored);
	strbuf_release(&text);
	ev->src = src;
	ev->srclen = strlen(src);
	int rc = -1;
	struct macro **list = ev->module ? &ev->module->macros : &ev->macros;
	struct macro *before = *list;
	if (render_compile(ev, ev->src, ev->srclen, &o, &c) == 0) {
		ev->depth++;
		rc = exec_body(ev, &c.body, out);
		ev->depth--;
		/* the included template's macros are its own (Jinja), and
		 * their definitions are freed with its AST now */
		drop_macros(list, before);
		render_release(&c);
	}
	ev->src = save_src;
	ev->srclen = save_len;
	free(src);
	return rc;
}

static int exec_stmt(struct ev *ev, const struct tnode *n, struct strbuf *out)
{
	if (!ev_step(ev, n->pos))
		return -1;
	switch (n->kind) {
	case S_TEXT:
		strbuf_add(out, json_string_value(n->lit), json_string_length(n->lit));
		if (out->len > MAX_OUTPUT || out->truncated) {
			ev_error(ev, TMPL_ERR_LIMIT, n->pos, "template output too large (over %u bytes)", MAX_OUTPUT);
			return -1;
		}
		return 0;
	case S_OUT: {
		json_t *v = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!v)
			return -1;
		int rc = out_value(ev, v, out, n->pos);
		json_decref(v);
		return rc;
	}
	case S_IF: {
		json_t *c = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!c)
			return -1;
		bool t = val_truthy(c);
		json_decref(c);
		return exec_body(ev, t ? &n->body : &n->orelse, out);
	}
	case S_FOR:
		return exec_for(ev, n, out);
	case S_SET: {
		json_t *v = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!v)
			return -1;
		int rc = 0;
		if (n->attr) {
			json_t *ns = NULL;
			for (struct frame *f = ev->frame; f && !ns; f = f->up)
				ns = json_object_get(f->vars, n->targets[0]);
			if (!json_is_object(ns)) {
				ev_error(ev, TMPL_ERR_TYPE, n->pos, "can only assign attributes to a namespace ('%s')", n->targets[0]);
				rc = -1;
			} else {
				json_object_set(ns, n->attr, v);
			}
		} else {
			rc = assign(ev, n->targets, n->ntargets, v, n->pos);
		}
		json_decref(v);
		return rc;
	}
	case S_SETBLOCK: {
		json_t *s = render_body(ev, &n->body);
		if (!s)
			return -1;
		json_t *v = apply_filter_chain(ev, n->b, s);
		json_decref(s);
		if (!v)
			return -1;
		frame_set(ev, n->targets[0], v);
		json_decref(v);
		return 0;
	}
	case S_FILTERBLOCK: {
		json_t *s = render_body(ev, &n->body);
		if (!s)
			return -1;
		json_t *v = apply_filter_chain(ev, n->b, s);
		json_decref(s);
		if (!v)
			return ev_need(ev, NULL, n->pos), -1;
		int rc = out_value(ev, v, out, n->pos);
		json_decref(v);
		return rc;
	}
	case S_DO: {
		json_t *v = ev_eval(ev, n->a);
		if (ev->failed)
			return -1;
		json_decref(v);
		return 0;
	}
	case S_BREAK:
		ev->loopctl = 1;
		return 0;
	case S_CONTINUE:
		ev->loopctl = 2;
		return 0;
	case S_MACRO: {
		struct macro *m = xcalloc(1, sizeof(*m));
		m->name = xstrdup(n->name);
		m->def = n;
		if (ev->module) {
			m->module = ev->module;
			m->scope = &ev->module->top;
			m->next = ev->module->macros;
			ev->module->macros = m;
		} else {
			m->next = ev->macros;
			ev->macros = m;
		}
		return 0;
	}
	case S_CALLBLOCK:
		return exec_callblock(ev, n, out);
	case S_IMPORT:
	case S_FROMIMPORT:
		return exec_import(ev, n);
	case S_INCLUDE:
		return exec_include(ev, n, out);
	case S_WITH: {
		struct frame f = { .vars = json_object(), .up = ev->frame };
		for (size_t i = 0; i < n->nkw; i++) {
			json_t *v = ev_need(ev, ev_eval(ev, n->kwvals[i]), n->kwvals[i]->pos);
			if (!v) {
				json_decref(f.vars);
				return -1;
			}
			json_object_set_new(f.vars, n->kwnames[i], v);
		}
		ev->frame = &f;
		int rc = exec_body(ev, &n->body, out);
		ev->frame = f.up;
		json_decref(f.vars);
		return rc;
	}
	default:
		ev_error(ev, TMPL_ERR_SYNTAX, n->pos, "unexpected expression in template body");
		return -1;
	}
}

static int exec_body(struct ev *ev, const struct nlist *body, struct strbuf *out)
{
	for (size_t i = 0; i < body->n; i++) {
		if (exec_stmt(ev, body->v[i], out) < 0)
			return -1;
		if (ev->loopctl)
			return 0;
	}
	return 0;
}

/* ---- nested rendering and result typing -------------------------------- */

/* Renders text into a string in a nested evaluation (lazy variables use no
 * local frames: Ansible templates variables with the play's variables). */
/* Filters whose output Ansible never turns back into data
 * (C.STRING_TYPE_FILTERS). */
static bool native_text_output(const struct compiled *c)
{
	static const char *const names[] = { "string", "to_json", "to_nice_json", "to_yaml", "to_nice_yaml",
					     "ppretty", "json", NULL };
	if (c->body.n != 1 || c->body.v[0]->kind != S_OUT || c->body.v[0]->a->kind != N_FILTER)
		return false;
	const char *fn = c->body.v[0]->a->name;
	const char *dot = strrchr(fn, '.');
	if (dot)
		fn = dot + 1;
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(fn, names[i]))
			return true;
	return false;
}

static char *render_text_in2(struct ev *parent, const char *text, bool raw_strings, bool *native, json_t **single,
			     size_t *trailing_out);

static char *render_text_in(struct ev *parent, const char *text, bool raw_strings)
{
	return render_text_in2(parent, text, raw_strings, NULL, NULL, NULL);
}

/* With single: when the text is one {{ expr }} whose value is a list or a
 * dict, that value is returned in *single (and NULL as text): Ansible would
 * print it and literal_eval it back to the same value, at a high cost for
 * big lists. With trailing_out: Jinja's own output, the trailing newlines
 * of the source not restored but counted in *trailing_out. */
static char *render_text_in2(struct ev *parent, const char *text, bool raw_strings, bool *native, json_t **single,
			     size_t *trailing_out)
{
	struct ev ev;
	memset(&ev, 0, sizeof(ev));
	ev.reg = parent->reg;
	ev.ops = parent->ops;
	ev.env = parent->env;
	ev.d = parent->d;
	ev.src = text;
	ev.srclen = strlen(text);
	ev.depth = parent->depth + 1;
	/* depth 0 is the caller's own text; deeper ones are variables' values */
	ev.foreign_src = ev.depth > 0 || parent->foreign_src;
	if (!parent->steps)
		parent->steps = &parent->steps_local;
	ev.steps = parent->steps;
	if (ev.depth > TMPL_MAX_DEPTH) {
		ev_error(&ev, TMPL_ERR_LIMIT, (size_t)-1, "recursive loop detected in template string: %.200s", text);
		parent->failed = true;
		return NULL;
	}
	struct lexopt o = { .raw_var_strings = raw_strings, .trim_blocks = true, .syn = parent->env->syntax };
	struct compiled c;
	char *r = NULL;
	size_t trailing;
	/* a "#jinja2:" first line changes the lexer for this text only: the
	 * variables it reads are templated with the env's settings */
	struct tmpl_header h = { 0 };
	const char *err;
	const char *body = header_apply(&h, text, &o, &err);
	if (!body) {
		ev_error(&ev, TMPL_ERR_SYNTAX, (size_t)-1, "%s", err);
		header_release(&h);
		parent->failed = true;
		return NULL;
	}
	const char *nl = o.newline ? o.newline : "\n";
	char *src;
	if (body == text) {
		src = normalize_source(text, &trailing);
	} else {
		src = normalize_template(body, nl, o.keep_trailing_newline, &trailing);
		trailing = count_trailing_newlines(text);
	}
	ev.src = src;
	ev.srclen = strlen(src);
	ev.fileopt = &o;
	if (render_compile(&ev, src, ev.srclen, &o, &c) == 0) {
		struct frame top = { .vars = json_object() };
		ev.frame = &top;
		struct strbuf sb;
		strbuf_init(&sb, MAX_OUTPUT + 1);
		if (native)
			*native = native_text_output(&c);
		if (single && trailing == 0 && c.body.n == 1 && c.body.v[0]->kind == S_OUT && !(native && *native)) {
			json_t *v = ev_need(&ev, ev_eval(&ev, c.body.v[0]->a), c.body.v[0]->a->pos);
			/* a datetime prints as text, and a container holding one
			 * prints its repr, which literal_eval refuses: both stay text;
			 * so does a container holding a NaN or an infinity */
			if ((json_is_array(v) || json_is_object(v)) && !dt_contains(v) && !val_nonfinite_contains(v)) {
				*single = val_deep_copy(v); /* never share the caller's containers */
			} else if (v && out_value(&ev, v, &sb, c.body.v[0]->pos) == 0) {
				r = strbuf_detach(&sb);
			}
			json_decref(v);
		} else if (exec_body(&ev, &c.body, &sb) == 0) {
			if (trailing_out)
				*trailing_out = trailing;
			else
				append_newlines(&sb, trailing, nl);
			r = strbuf_detach(&sb);
		}
		strbuf_release(&sb);
		json_decref(top.vars);
		render_release(&c);
	}
	ev_done(&ev);
	free(src);
	header_release(&h);
	if (!r && !(single && *single))
		parent->failed = true;
	return r;
}

static char *render_text(struct ev *ev, const char *text, bool raw_var_strings)
{
	return render_text_in(ev, text, raw_var_strings);
}

/* "{{ name }}" exactly, or with one newline after it (Ansible's
 * SINGLE_VAR, ^{{\s*(\w*)\s*}}$, with the env's variable delimiters):
 * returns the name length. */
static size_t single_var(const struct tmpl_syntax *syn, const char *t, const char **name)
{
	const char *p = t;
	const char *vs = syn && syn->variable_start ? syn->variable_start : "{{";
	const char *ve = syn && syn->variable_end ? syn->variable_end : "}}";
	size_t vsl = strlen(vs), vel = strlen(ve);
	if (strncmp(p, vs, vsl) != 0)
		return 0;
	p += vsl;
	while (isspace((unsigned char)*p))
		p++;
	const char *a = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	size_t n = (size_t)(p - a);
	while (isspace((unsigned char)*p))
		p++;
	/* Python's '$' also matches before a final newline */
	if (strncmp(p, ve, vel) != 0 || (p[vel] && (p[vel] != '\n' || p[vel + 1])))
		return 0;
	*name = a;
	return n;
}

json_t *render_typed_result(char *text, bool native)
{
	json_t *r = NULL;
	if (native)
		;
	else if (text[0] == '[' || text[0] == '{' || !strcmp(text, "True") || !strcmp(text, "False"))
		r = val_literal_eval(text);
	if (!r) {
		r = json_string(text);
		if (!r)
			r = json_stringn_nocheck(text, strlen(text));
	}
	free(text);
	return r;
}

/* Templar.template's shortcuts before Jinja runs: a text without a
 * delimiter is itself, and "{{ name }}" of a number, bool or None variable
 * is that value. Returns a new reference, or NULL to render. */
static json_t *template_shortcut(struct ev *ev, const char *text)
{
	if (!tmpl_syntax_has_template(ev->env->syntax, text))
		return json_stringn_nocheck(text, strlen(text));
	const char *name;
	size_t nl = single_var(ev->env->syntax, text, &name);
	if (nl && ev->env->vars) {
		char *nm = xstrndup(name, nl);
		json_t *v = json_object_get(ev->env->vars, nm);
		free(nm);
		if (v && (json_is_number(v) || json_is_boolean(v) || json_is_null(v)))
			return json_incref(v);
	}
	return NULL;
}

static json_t *render_typed(struct ev *ev, const char *text)
{
	json_t *v = template_shortcut(ev, text);
	if (v)
		return v;
	bool native = false;
	json_t *single = NULL;
	char *s = render_text_in2(ev, text, true, &native, &single, NULL);
	if (single)
		return single;
	if (!s)
		return NULL;
	return render_typed_result(s, native);
}

/* A template file's text as Ansible's templar.template renders it for
 * lookup('template') (escape_backslashes off, trailing newlines preserved):
 * with convert_data, Jinja's output that starts with '{' or '[' or is True
 * or False becomes the value literal_eval makes of it (text when it is not
 * a literal); only text gets the source's trailing newlines back. A text
 * without delimiters, or one variable, is taken as render_typed takes it. */
static json_t *render_file_text(struct ev *ev, const char *text, bool convert_data)
{
	json_t *v = template_shortcut(ev, text);
	if (v)
		return v;
	size_t trailing = 0;
	char *s = render_text_in2(ev, text, false, NULL, NULL, &trailing);
	if (!s)
		return NULL;
	if (convert_data && (s[0] == '[' || s[0] == '{' || !strcmp(s, "True") || !strcmp(s, "False"))) {
		v = val_literal_eval(s);
		if (v) {
			free(s);
			return v;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, s);
	free(s);
	append_newlines(&sb, trailing, "\n");
	json_t *r = json_stringn_nocheck(strbuf_str(&sb), sb.len);
	strbuf_release(&sb);
	return r;
}

void ev_done(struct ev *ev)
{
	while (ev->modules) {
		struct tmodule *t = ev->modules;
		ev->modules = t->next;
		module_free(t);
	}
	while (ev->macros) {
		struct macro *m = ev->macros;
		ev->macros = m->next;
		free(m->name);
		free(m);
	}
}

char *render_template(struct ev *ev, const char *text, const struct lexopt *o0)
{
	size_t trailing;
	struct lexopt o = *o0;
	struct tmpl_header h = { 0 };
	const char *err;
	const char *body = header_apply(&h, text, &o, &err);
	if (!body) {
		ev_error(ev, TMPL_ERR_SYNTAX, (size_t)-1, "%s", err);
		header_release(&h);
		return NULL;
	}
	const char *nl = o.newline ? o.newline : "\n";
	char *src = normalize_template(body, nl, o.keep_trailing_newline, &trailing);
	trailing = count_trailing_newlines(text);
	ev->src = src;
	ev->srclen = strlen(src);
	ev->fileopt = &o;
	struct compiled c;
	char *r = NULL;
	if (render_compile(ev, src, ev->srclen, &o, &c) == 0) {
		struct frame top = { .vars = json_object() };
		ev->frame = &top;
		struct strbuf sb;
		strbuf_init(&sb, MAX_OUTPUT + 1);
		if (exec_body(ev, &c.body, &sb) == 0) {
			append_newlines(&sb, trailing, nl);
			r = strbuf_detach(&sb);
		}
		strbuf_release(&sb);
		ev->frame = NULL;
		json_decref(top.vars);
		render_release(&c);
	}
	ev->src = NULL;
	ev->srclen = 0;
	ev->fileopt = NULL;
	free(src);
	header_release(&h);
	return r;
}

json_t *render_expr(struct ev *ev, const char *expr, bool raw)
{
	struct lexopt o = { .expr_only = true, .raw_var_strings = raw };
	struct compiled c;
	if (render_compile(ev, expr, ev->srclen, &o, &c) < 0)
		return NULL;
	struct frame top = { .vars = json_object() };
	ev->frame = &top;
	json_t *r = ev_need(ev, ev_eval(ev, c.expr), c.expr->pos);
	ev->frame = NULL;
	json_decref(top.vars);
	render_release(&c);
	return r;
}

/* What the runtime calls back (lazy variables, macros, lookups). */
const struct ev_ops render_ops = {
	.render_typed = render_typed,
	.render_text = render_text,
	.render_file_text = render_file_text,
	.render_body = render_body,
	.lookup_name = eval_name,
};
