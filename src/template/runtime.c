/* runtime.c: what filters, tests, lookups and globals call while a template
 * is evaluated, so that they depend on this file and the values only, never
 * on the evaluator or on each other: errors with the template position,
 * undefined values, the work budget, argument access, calling a filter, a
 * test or a lookup by name (through the registry the context points to,
 * not through their symbols), rendering nested text and reading variables
 * (through the evaluator's entry points in the context), and finding a file
 * on the search path. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "template/engine.h"
#include "util/pypath.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

void ev_warn(struct ev *ev, const char *fmt, ...)
{
	if (!ev->env->warn)
		return;
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	ev->env->warn(ev->env->warn_ud, strbuf_str(&msg));
	strbuf_release(&msg);
}

void ev_error(struct ev *ev, enum tmpl_err_kind kind, size_t pos, const char *fmt, ...)
{
	if (ev->failed)
		return;
	ev->failed = true;
	ev->env->err_kind = kind;
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (kind == TMPL_ERR_LOOKUP && ev->lookup_name) {
		/* Ansible's templar on what a lookup plugin raised: an
		 * AnsibleLookupError or AnsibleOptionsError as it is, any other
		 * exception wrapped, the AnsibleError's text repeating its cause */
		ev->options_error = ev->lookup_exc && !strcmp(ev->lookup_exc, LOOKUP_OPTIONS);
		if (!ev->lookup_exc || (strcmp(ev->lookup_exc, LOOKUP_RAISED) && !ev->options_error)) {
			char *orig = strbuf_detach(&msg);
			strbuf_addf(&msg, "An unhandled exception occurred while running the lookup plugin '%s'. "
				    "Error was a <class '%s'>, original message: %s. %s", ev->lookup_name,
				    ev->lookup_exc ? ev->lookup_exc : "ansible.errors.AnsibleError", orig, orig);
			free(orig);
		}
	}
	int line = 1, col = 1;
	bool haspos = pos != (size_t)-1 && ev->src && pos <= ev->srclen;
	if (haspos) {
		for (size_t i = 0; i < pos; i++) {
			if (ev->src[i] == '\n') {
				line++;
				col = 1;
			} else if (((unsigned char)ev->src[i] & 0xc0) != 0x80) {
				col++;
			}
		}
	}
	if (ev->env->origin && !ev->foreign_src) {
		struct src_loc loc = { ev->env->origin, 0, 0 };
		if (haspos) {
			loc.line = line + (ev->env->line_base > 0 ? ev->env->line_base - 1 : 0);
			loc.col = col + (line == 1 && ev->env->col_base > 0 ? ev->env->col_base - 1 : 0);
		}
		diag_error(ev->d, IMC_EXIT_FAILED, &loc, "%s", strbuf_str(&msg));
	} else if (ev->src) {
		/* show the snippet: the whole text when short, else the line */
		const char *s = ev->src;
		size_t a = 0, b = ev->srclen;
		if (haspos && b > 120) {
			a = pos;
			while (a > 0 && s[a - 1] != '\n' && pos - a < 60)
				a--;
			b = pos;
			while (b < ev->srclen && s[b] != '\n' && b - pos < 60)
				b++;
		} else if (b > 120) {
			b = 120;
		}
		if (haspos && strchr(s, '\n'))
			diag_error(ev->d, IMC_EXIT_FAILED, NULL, "%s (in '%.*s%s%.*s%s', line %d column %d)",
				   strbuf_str(&msg), 0, "", a ? "..." : "", (int)(b - a), s + a,
				   b < ev->srclen ? "..." : "", line, col);
		else if (haspos)
			diag_error(ev->d, IMC_EXIT_FAILED, NULL, "%s (in '%s%.*s%s', column %d)",
				   strbuf_str(&msg), a ? "..." : "", (int)(b - a), s + a,
				   b < ev->srclen ? "..." : "", col);
		else
			diag_error(ev->d, IMC_EXIT_FAILED, NULL, "%s (in '%s%.*s%s')", strbuf_str(&msg),
				   a ? "..." : "", (int)(b - a), s + a, b < ev->srclen ? "..." : "");
	} else {
		diag_error(ev->d, IMC_EXIT_FAILED, NULL, "%s", strbuf_str(&msg));
	}
	strbuf_release(&msg);
}

json_t *ev_undef(struct ev *ev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ev->undef, sizeof(ev->undef), fmt, ap);
	va_end(ap);
	ev->undef_verbatim = false;
	return NULL;
}

json_t *ev_need(struct ev *ev, json_t *v, size_t pos)
{
	if (v || ev->failed)
		return v;
	if (ev->undef_verbatim) {
		/* a variable whose template failed on an undefined name
		 * (eval_name): its message, as it was before it was held */
		ev->failed = true;
		ev->env->err_kind = TMPL_ERR_UNDEFINED;
		diag_error(ev->d, IMC_EXIT_FAILED, NULL, "%s", ev->undef);
		return NULL;
	}
	ev_error(ev, TMPL_ERR_UNDEFINED, pos, "%s", ev->undef[0] ? ev->undef : "value is undefined");
	return NULL;
}

bool ev_step(struct ev *ev, size_t pos)
{
	if (!ev->steps)
		ev->steps = &ev->steps_local;
	if (++*ev->steps > TMPL_MAX_STEPS) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "template too expensive to evaluate (over %lu steps)", TMPL_MAX_STEPS);
		return false;
	}
	return true;
}

json_t *arg_get(json_t *args, json_t *kw, size_t i, const char *name)
{
	if (args && i < json_array_size(args))
		return json_array_get(args, i);
	if (kw && name)
		return json_object_get(kw, name);
	return NULL;
}

int arg_str(struct ev *ev, json_t *args, json_t *kw, size_t i, const char *name, const char *dflt,
	    const char **out, size_t pos)
{
	json_t *v = arg_get(args, kw, i, name);
	if (!v) {
		if (!dflt) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "missing required argument '%s'", name ? name : "?");
			return -1;
		}
		*out = dflt;
		return 0;
	}
	if (!json_is_string(v)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "argument '%s' must be a string, got %s", name ? name : "?", val_typename(v));
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

/* A name may carry a collection prefix (ansible.builtin.to_json): the
 * tables hold the last part. */
static const char *short_name(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot ? dot + 1 : name;
}

const struct tfilter *reg_filter(const struct registry *reg, const char *name)
{
	name = short_name(name);
	for (const struct tfilter *f = reg->filters; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

const struct ttest *reg_test(const struct registry *reg, const char *name)
{
	name = short_name(name);
	for (const struct ttest *t = reg->tests; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

const struct tlookup *reg_lookup(const struct registry *reg, const char *name)
{
	name = short_name(name);
	for (const struct tlookup *l = reg->lookups; l->name; l++)
		if (!strcmp(l->name, name))
			return l;
	return NULL;
}

const struct tglobal *reg_global(const struct registry *reg, const char *name)
{
	for (const struct tglobal *g = reg->globals; g->name; g++)
		if (!strcmp(g->name, name))
			return g;
	return NULL;
}

json_t *ev_call_filter(struct ev *ev, const char *name, json_t *in, json_t *args, json_t *kw, size_t pos)
{
	if (!ev_step(ev, pos))
		return NULL;
	const struct tfilter *f = reg_filter(ev->reg, name);
	if (!f && reg_test(ev->reg, name)) {
		/* compat shim: before Ansible 2.9 every test was also a filter
		 * (`result|success`, `v|version_compare('2.0', '>=')`), and the
		 * recipes of that time still use them */
		bool res;
		if (ev_call_test(ev, name, in, args, kw, pos, &res) < 0)
			return NULL;
		return json_boolean(res);
	}
	if (!f) {
		ev_error(ev, TMPL_ERR_SYNTAX, pos, "template error while templating string: No filter named '%s'.", name);
		return NULL;
	}
	if (!in && !f->takes_undef)
		return ev_need(ev, NULL, pos);
	json_t *empty = NULL;
	if (!args)
		args = empty = json_array();
	json_t *r = f->fn(ev, in, args, kw, pos);
	json_decref(empty);
	return r;
}

int ev_call_test(struct ev *ev, const char *name, json_t *in, json_t *args, json_t *kw, size_t pos, bool *res)
{
	if (!ev_step(ev, pos))
		return -1;
	const struct ttest *t = reg_test(ev->reg, name);
	if (!t) {
		ev_error(ev, TMPL_ERR_SYNTAX, pos, "template error while templating string: No test named '%s'.", name);
		return -1;
	}
	if (!in && !t->takes_undef) {
		ev_need(ev, NULL, pos);
		return -1;
	}
	json_t *empty = NULL;
	if (!args)
		args = empty = json_array();
	int rc = t->fn(ev, in, args, kw, pos, res);
	json_decref(empty);
	return rc;
}

/* The caller's callback first (it may add or override lookups), then the
 * registry's. Returns a list (always), or NULL with an error. */
json_t *ev_call_lookup(struct ev *ev, const char *name, json_t *terms, json_t *kw, size_t pos)
{
	name = short_name(name);
	struct tmpl_env *env = ev->env;
	if (env->lookup) {
		json_t *out = NULL;
		struct diag tmp = DIAG_INIT;
		int rc = env->lookup(env->lookup_ud, name, terms, kw, &out, &tmp);
		if (rc < 0) {
			ev_lookup_error(ev, LOOKUP_RAISED, pos, "lookup '%s' failed: %s", name, diag_first_message(&tmp));
			diag_release(&tmp);
			return NULL;
		}
		diag_release(&tmp);
		if (rc == 0)
			return json_is_array(out) ? out : (out = json_pack("[o]", out ? out : json_null()));
	}
	const struct tlookup *l = reg_lookup(ev->reg, name);
	if (l)
		return l->fn(ev, terms, kw && json_object_size(kw) ? kw : NULL, pos);
	ev_error(ev, TMPL_ERR_LOOKUP, pos, "lookup plugin (%s) not found", name);
	return NULL;
}

/* Only readable regular files: /dev/zero or a FIFO must not hang a render. */
static bool readable_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (off_t)TMPL_MAX_TEXT && access(p, R_OK) == 0;
}

/* Resolves a file name of lookup('file'), {% include %}... on the search
 * path: malloc'd path, or NULL when no readable file has that name. */
char *ev_find_file(struct ev *ev, const char *name)
{
	if (!name[0])
		return NULL;
	/* an absolute or ~ name is expanded on the controller first, as
	 * Ansible's loader does (unfrackpath: $VARs, then ~) */
	if (name[0] == '/' || name[0] == '~') {
		char *p = pypath_expand_local(name);
		if (readable_file(p))
			return p;
		free(p);
		return NULL;
	}
	const char *const *sp = ev->env->search_path;
	if (sp && sp[0]) {
		for (size_t i = 0; sp[i]; i++) {
			char *p = xasprintf("%s/%s", sp[i], name);
			if (readable_file(p))
				return p;
			free(p);
		}
		return NULL;
	}
	return readable_file(name) ? xstrdup(name) : NULL;
}

/* The evaluator's entry points, reached through the context so that what
 * the evaluator calls can call back without a cycle between files. */
json_t *ev_render_typed(struct ev *ev, const char *text)
{
	return ev->ops->render_typed(ev, text);
}

char *ev_render_text(struct ev *ev, const char *text, bool raw_var_strings)
{
	return ev->ops->render_text(ev, text, raw_var_strings);
}

json_t *ev_render_file_text(struct ev *ev, const char *text, bool convert_data)
{
	return ev->ops->render_file_text(ev, text, convert_data);
}

json_t *ev_render_body(struct ev *ev, const struct nlist *body)
{
	return ev->ops->render_body(ev, body);
}

json_t *ev_lookup_name(struct ev *ev, const char *name, size_t pos)
{
	return ev->ops->lookup_name(ev, name, pos);
}

json_t *ev_lookup_error(struct ev *ev, const char *exc, size_t pos, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	const char *save = ev->lookup_exc;
	ev->lookup_exc = exc;
	ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", buf);
	ev->lookup_exc = save;
	return NULL;
}

json_t *ev_type_error(struct ev *ev, size_t pos, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ev_error(ev, TMPL_ERR_TYPE, pos, "%s", buf);
	return NULL;
}

/* Input as a list (Python iteration), or a type error. */
json_t *ev_need_list(struct ev *ev, json_t *in, const char *filter, size_t pos)
{
	json_t *l = val_iter_list(in);
	if (!l)
		ev_error(ev, TMPL_ERR_TYPE, pos, "%s: '%s' object is not iterable", filter, val_typename(in));
	return l;
}

char *ev_find_lookup_file(struct ev *ev, const char *name)
{
	char *path = ev_find_file(ev, name);
	if (!path)
		ev_warn(ev, "Unable to find '%s' in expected paths (use -vvvvv to see paths)", name);
	return path;
}
