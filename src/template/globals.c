/* globals.c: the functions a template calls by name (Jinja2's globals plus
 * Ansible's): range, lookup, query/q, dict, namespace and undef. zip is a filter
 * only: Ansible has no zip global, `zip(a, b)` is undefined there. The registry
 * lists them; the evaluator calls them after the template's own macros. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

GLOBAL_FN(range)
{
	(void)kw;
	size_t n = json_array_size(args);
	long long a = 0, b, s = 1;
	for (size_t i = 0; i < n; i++)
		if (!json_is_integer(json_array_get(args, i))) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' object cannot be interpreted as an integer",
				 val_typename(json_array_get(args, i)));
			return NULL;
		}
	if (n == 1) {
		b = val_int(json_array_get(args, 0));
	} else if (n == 2 || n == 3) {
		a = val_int(json_array_get(args, 0));
		b = val_int(json_array_get(args, 1));
		if (n == 3)
			s = val_int(json_array_get(args, 2));
	} else {
		ev_error(ev, TMPL_ERR_TYPE, pos, "range expected 1 to 3 arguments, got %zu", n);
		return NULL;
	}
	if (s == 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "range() arg 3 must not be zero");
		return NULL;
	}
	double cnt = s > 0 ? ((double)b - (double)a) / (double)s : ((double)a - (double)b) / (double)-s;
	if (cnt > TMPL_MAX_ITEMS) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "range too big, maximum size for range is %d", TMPL_MAX_ITEMS);
		return NULL;
	}
	json_t *r = json_array();
	for (long long i = a; s > 0 ? i < b : i > b;) {
		json_array_append_new(r, json_integer(i));
		if (__builtin_add_overflow(i, s, &i))
			break;
	}
	return r;
}

/* errors='warn': Ansible's templar warns with the plugin's own message,
 * not the error it would have raised: an error it wraps ("An unhandled
 * exception ... original message: X. X") without the repeated cause, a
 * lookup error as "Lookup failed but the error is being ignored: X". */
static void warn_lookup_error(struct ev *ev, const char *full)
{
	static const char wrapped[] = "An unhandled exception occurred while running the lookup plugin";
	static const char orig[] = "original message: ";
	/* without where in the template it failed, which imc adds */
	size_t n = strlen(full);
	const char *in = NULL;
	for (const char *p = strstr(full, " (in '"); p; p = strstr(p + 1, " (in '"))
		in = p;
	if (in && n && full[n - 1] == ')')
		n = (size_t)(in - full);
	char *msg = xstrndup(full, n);
	const char *o = strstr(msg, orig);
	if (!strncmp(msg, wrapped, sizeof(wrapped) - 1) && o) {
		size_t rest = strlen(o + sizeof(orig) - 1);
		size_t cause = rest >= 2 ? (rest - 2) / 2 : rest;
		ev_warn(ev, "%.*s", (int)(o + sizeof(orig) - 1 + cause - msg), msg);
	} else {
		ev_warn(ev, "Lookup failed but the error is being ignored: %s", msg);
	}
	free(msg);
}

static json_t *run_lookup(struct ev *ev, json_t *args, json_t *kw, bool query, size_t pos)
{
	if (json_array_size(args) < 1 || !json_is_string(json_array_get(args, 0))) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "lookup requires the name of a lookup plugin as first argument");
		return NULL;
	}
	const char *name = json_string_value(json_array_get(args, 0));
	const char *given = name; /* as Ansible's messages name it */
	const char *dot = strrchr(name, '.');
	if (dot)
		name = dot + 1;
	json_t *terms = json_array();
	for (size_t i = 1; i < json_array_size(args); i++) {
		json_t *t = json_array_get(args, i);
		/* terms are templated first (nested "{{ }}" in lookup terms) */
		if (json_is_string(t) && tmpl_syntax_has_template(ev->env->syntax, json_string_value(t))) {
			json_t *r = ev_render_typed(ev, json_string_value(t));
			if (!r) {
				json_decref(terms);
				return NULL;
			}
			json_array_append_new(terms, r);
		} else {
			json_array_append(terms, t);
		}
	}
	bool wantlist = query;
	json_t *kw2 = kw ? val_copy(kw) : json_object();
	json_t *wl = json_object_get(kw2, "wantlist");
	if (wl) {
		wantlist = wantlist || val_truthy(wl);
		json_object_del(kw2, "wantlist");
	}
	const char *errors = "strict";
	json_t *je = json_object_get(kw2, "errors");
	char *errbuf = NULL;
	if (json_is_string(je)) {
		errbuf = xstrdup(json_string_value(je));
		errors = errbuf;
		json_object_del(kw2, "errors");
	}
	json_t *r = NULL;
	/* the plugin's errors, as lookup() and query() report them (a
	 * with_<name> loop runs the plugin directly: not wrapped) */
	const char *save_name = ev->lookup_name, *save_exc = ev->lookup_exc;
	ev->lookup_name = given;
	ev->lookup_exc = NULL;
	if (strcmp(errors, "strict")) {
		/* errors=warn|ignore: a failing lookup yields None / [] */
		ev->options_error = false;
		struct diag tmp = DIAG_INIT;
		struct diag *save = ev->d;
		ev->d = &tmp;
		r = ev_call_lookup(ev, name, terms, kw2, pos);
		ev->d = save;
		ev->lookup_name = save_name;
		ev->lookup_exc = save_exc;
		if (!r && (ev->env->err_kind == TMPL_ERR_UNDEFINED || ev->options_error)) {
			/* Ansible's templar raises an undefined variable and an
			 * AnsibleOptionsError whatever errors= says */
			diag_move(ev->d, &tmp);
		} else if (!r) {
			if (!strcmp(errors, "warn"))
				warn_lookup_error(ev, diag_first_message(&tmp));
			ev->failed = false;
			ev->env->err_kind = TMPL_ERR_NONE;
			r = query ? json_array() : json_null();
			json_decref(terms);
			json_decref(kw2);
			diag_release(&tmp);
			free(errbuf);
			return r;
		}
		diag_release(&tmp);
	} else {
		r = ev_call_lookup(ev, name, terms, kw2, pos);
	}
	ev->lookup_name = save_name;
	ev->lookup_exc = save_exc;
	free(errbuf);
	json_decref(terms);
	json_decref(kw2);
	if (!r)
		return NULL;
	if (wantlist || !json_is_array(r))
		return r;
	size_t n = json_array_size(r);
	if (n == 0)
		return r;
	bool allstr = true;
	for (size_t i = 0; i < n; i++)
		if (!json_is_string(json_array_get(r, i)))
			allstr = false;
	if (allstr) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(&sb, ',');
			strbuf_add(&sb, val_s(json_array_get(r, i)), val_slen(json_array_get(r, i)));
		}
		json_decref(r);
		r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	if (n == 1) {
		json_t *x = json_incref(json_array_get(r, 0));
		json_decref(r);
		return x;
	}
	return r;
}

/* lookup('name', terms..., wantlist=, errors=): the joined form. */
GLOBAL_FN(lookup)
{
	return run_lookup(ev, args, kw, false, pos);
}

/* query('name', terms...), q(...): always a list. */
GLOBAL_FN(query)
{
	return run_lookup(ev, args, kw, true, pos);
}

/* dict(mapping or pairs, **kw) and namespace(...), which is a dict here. */
static json_t *make_dict(struct ev *ev, const char *name, json_t *args, json_t *kw, size_t pos)
{
	json_t *r = json_object();
	if (json_array_size(args) == 1 && json_is_object(json_array_get(args, 0))) {
		json_object_update(r, json_array_get(args, 0));
	} else if (json_array_size(args) == 1 && json_is_array(json_array_get(args, 0))) {
		json_t *l = json_array_get(args, 0);
		for (size_t i = 0; i < json_array_size(l); i++) {
			json_t *pr = json_array_get(l, i);
			if (!json_is_array(pr) || json_array_size(pr) != 2) {
				json_decref(r);
				ev_error(ev, TMPL_ERR_TYPE, pos, "dictionary update sequence element #%zu has the wrong length", i);
				return NULL;
			}
			char *k = val_to_cstr(json_array_get(pr, 0));
			json_object_set(r, k, json_array_get(pr, 1));
			free(k);
		}
	} else if (json_array_size(args) > 0) {
		json_decref(r);
		ev_error(ev, TMPL_ERR_TYPE, pos, "%s expected at most 1 argument", name);
		return NULL;
	}
	if (kw)
		json_object_update(r, kw);
	return r;
}

GLOBAL_FN(dict)
{
	return make_dict(ev, "dict", args, kw, pos);
}

GLOBAL_FN(namespace)
{
	return make_dict(ev, "namespace", args, kw, pos);
}

/* undef(hint): Ansible's deliberately undefined value, the default a role
 * gives a variable its user must set. It behaves as any undefined name
 * (`is defined` is false, `default()` replaces it); using it fails with
 * the hint, or Ansible's own sentence when there is none. */
GLOBAL_FN(undef)
{
	json_t *hint = arg_get(args, kw, 0, "hint");
	char *text = hint && !json_is_null(hint) ? val_to_cstr(hint) : NULL;
	ev_undef(ev, "%s", text ? text : "Mandatory variable has not been overridden");
	free(text);
	return NULL;
}
