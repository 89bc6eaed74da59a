/* template.c: the public entry points of the templating engine
 * (template.h). Each call makes a context wired to the default registry of
 * filters, tests, lookups and globals (registry.c) and to the renderer's
 * callbacks (render.c), renders or evaluates through them, applies
 * Ansible's conditional rules, and hands back values that share nothing
 * with the caller's. tmpl_check() reads a template without running it. */
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

/* Results handed to the caller never share containers with its inputs, so
 * that it may modify them (the executor drops `omit` arguments in place).
 * A NaN or an infinity leaves the engine as text, in or out of a
 * container: Ansible's templating turns a result into its text, and
 * "nan" or "[1.0, inf]" reads back as no Python literal (value-float.c). */
static json_t *own(json_t *v)
{
	if (v && val_nonfinite_contains(v)) {
		struct strbuf sb = STRBUF_INIT;
		val_str(&sb, v);
		json_decref(v);
		return render_typed_result(strbuf_detach(&sb), false);
	}
	if (json_is_array(v) || json_is_object(v)) {
		json_t *c = val_deep_copy(v);
		json_decref(v);
		return c;
	}
	return v;
}


/* A top-level context: the default registry of filters, tests, lookups and
 * globals, and render.c's renderer as the evaluator's callbacks. */
static void ev_init(struct ev *ev, struct tmpl_env *env, struct diag *d, const char *src)
{
	memset(ev, 0, sizeof(*ev));
	ev->reg = &tmpl_registry;
	ev->ops = &render_ops;
	ev->env = env;
	ev->d = d;
	ev->src = src;
	ev->srclen = src ? strlen(src) : 0;
	ev->steps = &ev->steps_local;
	env->err_kind = TMPL_ERR_NONE;
}









json_t *tmpl_render_typed(struct tmpl_env *env, const char *text, struct diag *d)
{
	struct ev ev;
	ev_init(&ev, env, d, text);
	ev.depth = -1;
	json_t *r = ev_render_typed(&ev, text);
	ev_done(&ev);
	return own(r);
}

static json_t *render_value(struct ev *ev, json_t *v, int depth)
{
	if (depth > 100) {
		ev_error(ev, TMPL_ERR_LIMIT, (size_t)-1, "value nested too deeply");
		return NULL;
	}
	if (json_is_string(v)) {
		if (!tmpl_syntax_has_template(ev->env->syntax, json_string_value(v)))
			return json_incref(v);
		ev->src = json_string_value(v);
		ev->srclen = json_string_length(v);
		return ev_render_typed(ev, json_string_value(v));
	}
	if (json_is_array(v)) {
		json_t *r = json_array();
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *x = render_value(ev, json_array_get(v, i), depth + 1);
			if (!x) {
				json_decref(r);
				return NULL;
			}
			json_array_append_new(r, x);
		}
		return r;
	}
	if (json_is_object(v)) {
		json_t *r = json_object();
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			json_t *nx = render_value(ev, x, depth + 1);
			if (!nx) {
				json_decref(r);
				return NULL;
			}
			if (tmpl_syntax_has_template(ev->env->syntax, k)) {
				char *nk = ev_render_text(ev, k, true);
				if (!nk) {
					json_decref(nx);
					json_decref(r);
					return NULL;
				}
				json_object_set_new(r, nk, nx);
				free(nk);
			} else {
				json_object_set_new(r, k, nx);
			}
		}
		return r;
	}
	return json_incref(v);
}

json_t *tmpl_render_value(struct tmpl_env *env, json_t *v, struct diag *d)
{
	struct ev ev;
	ev_init(&ev, env, d, NULL);
	ev.depth = -1;
	/* render_value builds new containers all the way down */
	json_t *r = v ? render_value(&ev, v, 0) : json_null();
	ev_done(&ev);
	return r;
}


static char *render_top(struct tmpl_env *env, const char *text, const struct lexopt *o, struct diag *d)
{
	struct ev ev;
	ev_init(&ev, env, d, NULL);
	char *r = render_template(&ev, text, o);
	ev_done(&ev);
	return r;
}

char *tmpl_render_string(struct tmpl_env *env, const char *text, struct diag *d)
{
	struct lexopt o = { .trim_blocks = !env->no_trim_blocks, .lstrip_blocks = env->lstrip_blocks,
			    .newline = env->newline_sequence, .keep_trailing_newline = env->keep_trailing_newline,
			    .syn = env->syntax };
	return render_top(env, text, &o, d);
}

char *tmpl_render_text(struct tmpl_env *env, const char *text, struct diag *d)
{
	struct lexopt o = { .trim_blocks = true, .raw_var_strings = true, .syn = env->syntax };
	return render_top(env, text, &o, d);
}


json_t *tmpl_eval(struct tmpl_env *env, const char *expr, struct diag *d)
{
	struct ev ev;
	ev_init(&ev, env, d, expr);
	json_t *r = render_expr(&ev, expr, true);
	ev_done(&ev);
	if (r && dt_contains(r)) {
		/* a datetime leaves the engine as Ansible prints it (debug var=) */
		struct strbuf sb = STRBUF_INIT;
		val_str(&sb, r);
		json_decref(r);
		r = render_typed_result(strbuf_detach(&sb), false);
	}
	return own(r);
}

int tmpl_eval_cond_str(struct tmpl_env *env, const char *cond, bool *out, struct diag *d)
{
	struct ev ev;
	ev_init(&ev, env, d, cond);
	int rc = -1;
	json_t *pre = NULL;
	const char *expr = cond;
	if (tmpl_syntax_has_template(env->syntax, cond)) {
		/* when: "{{ x }}" — templated first (Ansible warns about it) */
		pre = ev_render_typed(&ev, cond);
		if (!pre)
			goto out;
		if (!json_is_string(pre) || json_string_length(pre) == 0) {
			*out = val_truthy(pre);
			rc = 0;
			goto out;
		}
		expr = json_string_value(pre);
		ev.src = expr;
		ev.srclen = strlen(expr);
	}
	{
		const char *p = expr;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p) {
			*out = true;
			rc = 0;
			goto out;
		}
	}
	json_t *v = render_expr(&ev, expr, false);
	if (v) {
		*out = val_truthy(v);
		json_decref(v);
		rc = 0;
	}
out:
	json_decref(pre);
	ev_done(&ev);
	return rc;
}

int tmpl_eval_cond(struct tmpl_env *env, json_t *cond, bool *out, struct diag *d)
{
	env->err_kind = TMPL_ERR_NONE;
	if (!cond || json_is_null(cond)) {
		*out = true;
		return 0;
	}
	if (json_is_boolean(cond) || json_is_number(cond)) {
		*out = val_truthy(cond);
		return 0;
	}
	if (json_is_string(cond))
		return tmpl_eval_cond_str(env, json_string_value(cond), out, d);
	if (json_is_array(cond)) {
		*out = true;
		for (size_t i = 0; i < json_array_size(cond); i++) {
			bool r;
			if (tmpl_eval_cond(env, json_array_get(cond, i), &r, d) < 0)
				return -1;
			if (!r) {
				*out = false;
				return 0;
			}
		}
		return 0;
	}
	diag_error(d, IMC_EXIT_FAILED, NULL, "a conditional must be a string, a boolean or a list of them, not %s",
		   val_typename(cond));
	env->err_kind = TMPL_ERR_TYPE;
	return -1;
}

json_t *tmpl_lookup(struct tmpl_env *env, const char *name, json_t *terms, json_t *kwargs, bool wantlist,
		    struct diag *d)
{
	struct ev ev;
	ev_init(&ev, env, d, NULL);
	json_t *t;
	if (json_is_object(terms)) {
		/* with_NAME: a dict: Ansible hands the dict itself to the
		 * lookup; most of them iterate it, i.e. its keys */
		static const char *const by_key[] = { "items", "flattened", "sequence", "file", "env", "fileglob",
						      "lines", "pipe", "template", "vars", "varnames", "password",
						      "first_found", "csvfile", "together", "nested", NULL };
		const char *base = strncmp(name, "ansible.builtin.", 16) ? name : name + 16;
		bool keys = false;
		for (size_t i = 0; by_key[i]; i++)
			keys = keys || !strcmp(base, by_key[i]);
		if (!strcmp(base, "dict")) {
			t = json_pack("[O]", terms);
		} else if (keys) {
			t = json_array();
			const char *k;
			json_t *v;
			json_object_foreach(terms, k, v)
				json_array_append_new(t, json_string(k));
		} else {
			if (!strcmp(base, "indexed_items"))
				ev_error(&ev, TMPL_ERR_LOOKUP, (size_t)-1, "with_indexed_items expects a list");
			else
				ev_error(&ev, TMPL_ERR_LOOKUP, (size_t)-1,
					 "with_%s over a dictionary: imc does not run it (Ansible hands the dictionary itself to the lookup)",
					 name);
			ev_done(&ev);
			return NULL;
		}
	} else {
		t = json_is_array(terms) ? json_incref(terms) : json_pack("[O]", terms ? terms : json_null());
	}
	json_t *kw = kwargs ? json_incref(kwargs) : json_object();
	json_t *r = ev_call_lookup(&ev, name, t, kw, (size_t)-1);
	json_decref(t);
	json_decref(kw);
	if (r && !wantlist && json_is_array(r)) {
		bool allstr = json_array_size(r) > 0;
		for (size_t i = 0; i < json_array_size(r); i++)
			if (!json_is_string(json_array_get(r, i)))
				allstr = false;
		if (allstr) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < json_array_size(r); i++) {
				if (i)
					strbuf_addch(&sb, ',');
				strbuf_addstr(&sb, json_string_value(json_array_get(r, i)));
			}
			json_decref(r);
			r = json_string(strbuf_str(&sb));
			strbuf_release(&sb);
		} else if (json_array_size(r) == 1) {
			json_t *x = json_incref(json_array_get(r, 0));
			json_decref(r);
			r = x;
		}
	}
	ev_done(&ev);
	return own(r);
}

json_t *tmpl_literal_eval(const char *text)
{
	return val_literal_eval(text);
}

/* ---- static check ---------------------------------------------------------- */

static int check_node(const struct tnode *n, struct diag *d, const char *origin);

static int check_list(const struct nlist *l, struct diag *d, const char *origin)
{
	for (size_t i = 0; i < l->n; i++)
		if (check_node(l->v[i], d, origin) < 0)
			return -1;
	return 0;
}

static int check_node(const struct tnode *n, struct diag *d, const char *origin)
{
	if (!n)
		return 0;
	if (n->kind == N_FILTER && !tmpl_has_filter(n->name)) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "%s%sno filter named '%s'", origin ? origin : "", origin ? ": " : "", n->name);
		return -1;
	}
	if (n->kind == N_TEST && !tmpl_has_test(n->name)) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "%s%sno test named '%s'", origin ? origin : "", origin ? ": " : "", n->name);
		return -1;
	}
	if (n->kind == N_CALL && n->a->kind == N_NAME && (!strcmp(n->a->name, "lookup") || !strcmp(n->a->name, "query") ||
							  !strcmp(n->a->name, "q")) &&
	    n->args.n && n->args.v[0]->kind == N_LIT && json_is_string(n->args.v[0]->lit)) {
		const char *ln = json_string_value(n->args.v[0]->lit);
		const char *dot = strrchr(ln, '.');
		if (!tmpl_has_lookup(dot ? dot + 1 : ln)) {
			diag_error(d, IMC_EXIT_FAILED, NULL, "%s%sno lookup plugin named '%s'", origin ? origin : "",
				   origin ? ": " : "", ln);
			return -1;
		}
	}
	if (check_node(n->a, d, origin) < 0 || check_node(n->b, d, origin) < 0 || check_node(n->c, d, origin) < 0 ||
	    check_node(n->d, d, origin) < 0 || check_list(&n->args, d, origin) < 0 || check_list(&n->body, d, origin) < 0 ||
	    check_list(&n->orelse, d, origin) < 0)
		return -1;
	for (size_t i = 0; i < n->nkw; i++)
		if (check_node(n->kwvals[i], d, origin) < 0)
			return -1;
	return 0;
}

int tmpl_check(const char *text, bool is_expr, const char *origin, struct diag *d)
{
	struct tmpl_env env = { .origin = origin };
	struct diag cd = DIAG_INIT;
	struct ev ev;
	ev_init(&ev, &env, &cd, text);
	struct lexopt o = { .expr_only = is_expr, .trim_blocks = true, .raw_var_strings = !is_expr };
	struct compiled c;
	int rc = 0;
	/* a text that does not compile is no error here: Ansible templates a
	 * task's arguments and conditions only when the task runs, so its
	 * syntax error fails that task then (or never, when it is skipped),
	 * and the rendering reports it with the same words */
	if (render_compile(&ev, text, ev.srclen, &o, &c) == 0) {
		rc = check_list(&c.body, d, origin);
		if (rc == 0)
			rc = check_node(c.expr, d, origin);
		render_release(&c);
	}
	ev_done(&ev);
	diag_release(&cd);
	return rc;
}
