/* expr-eval.c: evaluates expression ASTs to jansson values with Jinja2 and
 * Python semantics as Ansible sees them: variable lookup (local frames, then
 * the play's variables templated lazily on access, then the caller's
 * resolver), attribute/subscript access that yields "undefined" rather than
 * failing (so `a.b | default(x)` works), arithmetic with Python's rules
 * (// and % floor, / always float), chained comparisons, `in`, and/or
 * returning operands, inline if, macros and string/dict/list methods.
 * Filters, tests, lookups and globals (range, lookup, query, dict,
 * namespace, zip) are called by name through the runtime and the context's
 * registry (registry.c), never by symbol; so are the renderer's entry
 * points (lazy templating, macro bodies), which template.c puts in the
 * context. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_SEQ TMPL_MAX_SEQ

/* ---- errors ------------------------------------------------------------ */

static const char *objname(const json_t *v)
{
	if (json_is_null(v))
		return "'None'";
	if (dt_kind(v))
		return dt_kind(v) == DT_DATETIME ? "'datetime.datetime object'" : "'datetime.timedelta object'";
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "'dict object'";
	case JSON_ARRAY: return "'list object'";
	case JSON_STRING: return "'str object'";
	case JSON_INTEGER: return "'int object'";
	case JSON_REAL: return "'float object'";
	default: return "'bool object'";
	}
}

/* ---- lazy templating of variables --------------------------------------- */

static bool has_template_deep(const struct tmpl_syntax *syn, const json_t *v, int depth)
{
	if (depth > 64)
		return false;
	if (json_is_string(v))
		return tmpl_syntax_has_template(syn, json_string_value(v));
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			if (has_template_deep(syn, json_array_get(v, i), depth + 1))
				return true;
		return false;
	}
	if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(jmut(v), k, x)
			if (tmpl_syntax_has_template(syn, k) || has_template_deep(syn, x, depth + 1))
				return true;
	}
	return false;
}

/* One string read through hostvars: Ansible's HostVarsVars templates it
 * with fail_on_undefined=False, so a template that names an undefined
 * variable gives back its own text; any other failure stays one. */
static json_t *render_lenient(struct ev *ev, json_t *v)
{
	struct diag *outer = ev->d;
	struct diag held = DIAG_INIT;
	enum tmpl_err_kind kind = ev->env->err_kind;
	ev->d = &held;
	json_t *t = ev_render_typed(ev, json_string_value(v));
	ev->d = outer;
	if (!t && (!ev->failed || ev->env->err_kind == TMPL_ERR_UNDEFINED)) {
		ev->failed = false;
		ev->env->err_kind = kind;
		ev->undef[0] = 0;
		diag_release(&held);
		return json_incref(v);
	}
	diag_move(outer, &held);
	return t;
}

static json_t *template_deep(struct ev *ev, json_t *v, int depth, bool lenient)
{
	if (depth > 64)
		return json_incref(v);
	if (json_is_string(v)) {
		if (!tmpl_syntax_has_template(ev->env->syntax, json_string_value(v)))
			return json_incref(v);
		if (lenient)
			return render_lenient(ev, v);
		return ev_render_typed(ev, json_string_value(v));
	}
	if (json_is_array(v)) {
		if (!has_template_deep(ev->env->syntax, v, depth))
			return json_incref(v);
		json_t *r = json_array();
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *x = template_deep(ev, json_array_get(v, i), depth + 1, lenient);
			if (!x) {
				json_decref(r);
				return NULL;
			}
			json_array_append_new(r, x);
		}
		return r;
	}
	if (json_is_object(v)) {
		if (!has_template_deep(ev->env->syntax, v, depth))
			return json_incref(v);
		json_t *r = json_object();
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			json_t *nx = template_deep(ev, x, depth + 1, lenient);
			if (!nx) {
				json_decref(r);
				return NULL;
			}
			json_object_set_new(r, k, nx);
		}
		return r;
	}
	return json_incref(v);
}

json_t *ev_template_value(struct ev *ev, json_t *v)
{
	json_t *r = template_deep(ev, v, 0, false);
	if (!r && !ev->failed)
		ev_need(ev, NULL, (size_t)-1);
	return r;
}

/* A variable's own templates, rendered where it is read. As Ansible's lazy
 * variables do, a failure on an undefined name makes the variable itself
 * undefined, with that failure as its reason: `is defined` is false,
 * default() replaces it, and using it fails with the message it would have
 * failed with at once. Any other failure stays one. */
static json_t *template_var(struct ev *ev, json_t *v)
{
	struct diag *outer = ev->d;
	struct diag held = DIAG_INIT;
	enum tmpl_err_kind kind = ev->env->err_kind;
	ev->d = &held;
	json_t *t = ev_template_value(ev, v);
	ev->d = outer;
	if (!t && ev->failed && ev->env->err_kind == TMPL_ERR_UNDEFINED && held.nerrors == 1 &&
	    strlen(diag_first_message(&held)) < sizeof(ev->undef)) {
		ev->failed = false;
		ev->env->err_kind = kind;
		ev_undef(ev, "%s", diag_first_message(&held));
		ev->undef_verbatim = true;
		diag_release(&held);
		return NULL;
	}
	diag_move(outer, &held);
	return t;
}

/* Reads a name without templating it; *raw tells whether the value came from
 * the play's variables (and so may still hold templates). */
static json_t *lookup_raw(struct ev *ev, const char *name, bool *raw)
{
	*raw = false;
	for (struct frame *f = ev->frame; f; f = f->up) {
		json_t *v = json_object_get(f->vars, name);
		if (v)
			return json_incref(v);
		/* a template imported without context sees its own names only */
		if (f->barrier)
			return ev_undef(ev, "'%s' is undefined", name);
	}
	struct tmpl_env *env = ev->env;
	bool unsafe = env->unsafe && json_object_get(env->unsafe, name);
	json_t *v = env->vars ? json_object_get(env->vars, name) : NULL;
	if (v) {
		*raw = !unsafe;
		return json_incref(v);
	}
	if (env->resolve) {
		v = env->resolve(env->resolve_ud, name);
		if (v) {
			*raw = !unsafe;
			return v;
		}
	}
	if (!strcmp(name, "omit"))
		return json_string(TMPL_OMIT);
	return ev_undef(ev, "'%s' is undefined", name);
}

json_t *eval_name(struct ev *ev, const char *name, size_t pos)
{
	bool raw;
	json_t *v = lookup_raw(ev, name, &raw);
	if (v && raw) {
		json_t *t = template_var(ev, v);
		json_decref(v);
		return t;
	}
	return v;
}

/* ---- access ------------------------------------------------------------ */

static json_t *get_attr(struct ev *ev, json_t *base, const char *name)
{
	if (dt_kind(base))
		return dt_attr(ev, base, name);
	if (json_is_object(base)) {
		json_t *v = json_object_get(base, name);
		if (v)
			return json_incref(v);
	}
	return ev_undef(ev, "%s has no attribute '%s'", objname(base), name);
}

static bool norm_index(long long i, size_t n, size_t *out)
{
	if (i < 0)
		i += (long long)n;
	if (i < 0 || (unsigned long long)i >= n)
		return false;
	*out = (size_t)i;
	return true;
}

static json_t *get_item(struct ev *ev, json_t *base, json_t *key)
{
	if (json_is_object(base)) {
		json_t *v;
		if (json_is_string(key)) {
			v = json_object_get(base, json_string_value(key));
		} else {
			char *ks = val_to_cstr(key);
			v = json_object_get(base, ks);
			free(ks);
		}
		if (v)
			return json_incref(v);
		if (json_is_string(key))
			return ev_undef(ev, "'dict object' has no attribute '%s'", json_string_value(key));
		char *ks = val_to_cstr(key);
		ev_undef(ev, "'dict object' has no attribute %s", ks);
		free(ks);
		return NULL;
	}
	if (json_is_array(base) && val_is_int(key) && !json_is_boolean(key)) {
		size_t i;
		if (norm_index(val_int(key), json_array_size(base), &i))
			return json_incref(json_array_get(base, i));
		return ev_undef(ev, "list object has no element %lld", val_int(key));
	}
	if (json_is_string(base) && json_is_integer(key)) {
		json_t *chars = val_iter_list(base);
		size_t i;
		json_t *r = NULL;
		if (norm_index(val_int(key), json_array_size(chars), &i))
			r = json_incref(json_array_get(chars, i));
		else
			ev_undef(ev, "str object has no element %lld", val_int(key));
		json_decref(chars);
		return r;
	}
	if (json_is_string(key))
		return ev_undef(ev, "%s has no attribute '%s'", objname(base), json_string_value(key));
	char *ks = val_to_cstr(key);
	ev_undef(ev, "%s has no element %s", objname(base), ks);
	free(ks);
	return NULL;
}

static json_t *do_slice(struct ev *ev, json_t *base, json_t *jb, json_t *jc, json_t *jd, size_t pos)
{
	json_t *seq = json_is_string(base) ? val_iter_list(base) : json_is_array(base) ? json_incref(base) : NULL;
	if (!seq) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "%s is not subscriptable", objname(base));
		return NULL;
	}
	long long n = (long long)json_array_size(seq);
	long long step = 1, start, stop;
	if (jd && !json_is_null(jd)) {
		if (!json_is_integer(jd) || json_integer_value(jd) == 0) {
			json_decref(seq);
			ev_error(ev, TMPL_ERR_TYPE, pos, "slice step must be a non-zero integer");
			return NULL;
		}
		step = json_integer_value(jd);
	}
	for (int k = 0; k < 2; k++) {
		json_t *j = k ? jc : jb;
		if (j && !json_is_null(j) && !val_is_int(j)) {
			json_decref(seq);
			ev_error(ev, TMPL_ERR_TYPE, pos, "slice indices must be integers or None");
			return NULL;
		}
	}
	if (step > 0) {
		start = jb && !json_is_null(jb) ? val_int(jb) : 0;
		stop = jc && !json_is_null(jc) ? val_int(jc) : n;
		if (start < 0) start += n;
		if (stop < 0) stop += n;
		if (start < 0) start = 0;
		if (stop > n) stop = n;
	} else {
		start = jb && !json_is_null(jb) ? val_int(jb) : n - 1;
		stop = jc && !json_is_null(jc) ? val_int(jc) : -n - 1;
		if (start < 0) start += n;
		if (stop < 0) stop += n;
		if (start >= n) start = n - 1;
		if (stop < -1) stop = -1;
	}
	json_t *r = json_array();
	for (long long i = start; step > 0 ? i < stop : i > stop;) {
		json_array_append(r, json_array_get(seq, (size_t)i));
		if (__builtin_add_overflow(i, step, &i))
			break;
	}
	json_decref(seq);
	if (json_is_string(base)) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < json_array_size(r); i++)
			strbuf_add(&sb, val_s(json_array_get(r, i)), val_slen(json_array_get(r, i)));
		json_decref(r);
		r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
	}
	return r;
}

/* Evaluates an access chain (name, a.b, a[b]) without templating the final
 * value; *raw says whether it still comes from the play's variables. */
static struct macro *find_macro(struct ev *ev, const char *name);

/* The attributes Jinja's Macro object has: name (as defined), arguments
 * (its parameter names, a tuple), catch_kwargs, catch_varargs and caller
 * (whether its body reads kwargs, varargs, caller). */
static json_t *macro_attr(struct ev *ev, const struct macro *m, const char *attr, size_t pos)
{
	const struct tnode *def = m->def;
	if (!strcmp(attr, "name"))
		return json_string(def->name ? def->name : m->name);
	if (!strcmp(attr, "arguments")) {
		json_t *r = json_array();
		for (size_t i = 0; i < def->ntargets; i++)
			json_array_append_new(r, json_string(def->targets[i]));
		return r;
	}
	if (!strcmp(attr, "catch_kwargs"))
		return json_boolean(tnode_uses_name(&def->body, "kwargs"));
	if (!strcmp(attr, "catch_varargs"))
		return json_boolean(tnode_uses_name(&def->body, "varargs"));
	if (!strcmp(attr, "caller"))
		return json_boolean(tnode_uses_name(&def->body, "caller"));
	ev_error(ev, TMPL_ERR_UNDEFINED, pos, "'jinja2.runtime.Macro object' has no attribute '%s'", attr);
	return NULL;
}

/* How deep an access chain reaches into the resolver's hostvars: 0 for
 * hostvars, 1 for hostvars[HOST], 2 for a variable of that host, 3 for
 * anything deeper; -1 when it does not start there. */
static int hostvars_depth(struct ev *ev, const struct tnode *n)
{
	int d = 0;
	for (; n->kind == N_GETATTR || n->kind == N_GETITEM; n = n->a)
		d++;
	if (n->kind != N_NAME || !n->name || strcmp(n->name, "hostvars"))
		return -1;
	for (struct frame *f = ev->frame; f; f = f->up)
		if (json_object_get(f->vars, "hostvars"))
			return -1;
	if (ev->env->vars && json_object_get(ev->env->vars, "hostvars"))
		return -1;
	return d > 3 ? 3 : d;
}

static bool hostvar_unsafe(struct ev *ev, const char *host, const char *name)
{
	return ev->env->hostvar_unsafe && *host && *name &&
	       ev->env->hostvar_unsafe(ev->env->resolve_ud, host, name);
}

/* One host's variables read through hostvars, each templated leniently
 * but those that are data (new reference; NULL on error). */
static json_t *template_host(struct ev *ev, const char *host, json_t *vars)
{
	if (!json_is_object(vars))
		return template_deep(ev, vars, 0, true);
	json_t *r = json_object();
	const char *k;
	json_t *x;
	json_object_foreach(vars, k, x) {
		json_t *t = hostvar_unsafe(ev, host, k) ? json_incref(x) : template_deep(ev, x, 0, true);
		if (!t) {
			json_decref(r);
			return NULL;
		}
		json_object_set_new(r, k, t);
	}
	return r;
}

/* hostvars as a whole: each host's variables as template_host does. */
static json_t *template_hosts(struct ev *ev, json_t *hv)
{
	if (!json_is_object(hv))
		return template_deep(ev, hv, 0, true);
	json_t *r = json_object();
	const char *h;
	json_t *vars;
	json_object_foreach(hv, h, vars) {
		json_t *t = template_host(ev, h, vars);
		if (!t) {
			json_decref(r);
			return NULL;
		}
		json_object_set_new(r, h, t);
	}
	return r;
}

/* A raw value read by the access chain n, templated as Ansible reads it:
 * what hostvars holds, down to one host's variable, leniently (the
 * HostVars mappings template each variable with fail_on_undefined=False),
 * anything else as a lazy variable (template_var). */
static json_t *template_read(struct ev *ev, const struct tnode *n, json_t *v)
{
	int d = hostvars_depth(ev, n);
	if (d == 0 || d == 1) {
		/* Ansible's mapping templates each variable only when read;
		 * one read as a whole while another is (a variable of the
		 * host that reads `hostvars[inventory_hostname]`) is still
		 * that mapping, and its variables are what the access chain
		 * then reads: templating it again would loop. */
		if (ev->env->hostvars_whole)
			return json_incref(v);
		char host[sizeof(ev->hv_host)];
		snprintf(host, sizeof(host), "%s", ev->hv_host);
		ev->env->hostvars_whole++;
		json_t *r = d == 0 ? template_hosts(ev, v) : template_host(ev, host, v);
		ev->env->hostvars_whole--;
		if (!r && !ev->failed)
			ev_need(ev, NULL, (size_t)-1);
		return r;
	}
	if (d == 2) {
		if (hostvar_unsafe(ev, ev->hv_host, ev->hv_var))
			return json_incref(v);
		json_t *r = template_deep(ev, v, 0, true);
		if (!r && !ev->failed)
			ev_need(ev, NULL, (size_t)-1);
		return r;
	}
	return template_var(ev, v);
}

static json_t *eval_access(struct ev *ev, const struct tnode *n, bool *raw)
{
	if (n->kind == N_NAME)
		return lookup_raw(ev, n->name, raw);
	if (n->kind != N_GETATTR && n->kind != N_GETITEM) {
		*raw = false;
		return ev_eval(ev, n);
	}
	if (n->kind == N_GETATTR && n->a->kind == N_NAME && n->a->name) {
		struct macro *m = find_macro(ev, n->a->name);
		if (m) {
			*raw = false;
			return macro_attr(ev, m, n->name, n->pos);
		}
	}
	bool braw;
	json_t *base = eval_access(ev, n->a, &braw);
	if (!base)
		return NULL; /* error, or undefined propagating (a.b.c of undefined a) */
	if (braw && hostvars_depth(ev, n->a) == 2) {
		/* a host's variable read through hostvars, then indexed;
		 * hv_host and hv_var are still those of n->a */
		json_t *t = template_read(ev, n->a, base);
		json_decref(base);
		if (!t)
			return NULL;
		base = t;
		braw = false;
	}
	if (braw && json_is_string(base) && tmpl_syntax_has_template(ev->env->syntax, json_string_value(base))) {
		json_t *t = template_var(ev, base);
		json_decref(base);
		if (!t)
			return NULL;
		base = t;
		braw = false;
	}
	json_t *r;
	const char *name = NULL;
	json_t *key = NULL;
	if (n->kind == N_GETATTR) {
		r = get_attr(ev, base, n->name);
		name = n->name;
	} else {
		key = ev_need(ev, ev_eval(ev, n->b), n->b->pos);
		if (!key) {
			json_decref(base);
			return NULL;
		}
		r = get_item(ev, base, key);
		name = json_is_string(key) ? json_string_value(key) : NULL;
	}
	/* the host, then the variable, this chain read in hostvars */
	int d = braw ? hostvars_depth(ev, n) : -1;
	if (d == 1 || d == 2) {
		char *slot = d == 1 ? ev->hv_host : ev->hv_var;
		if (!name || strlen(name) >= sizeof(ev->hv_host))
			slot[0] = 0;
		else
			snprintf(slot, sizeof(ev->hv_host), "%s", name);
	}
	json_decref(key);
	json_decref(base);
	*raw = braw;
	return r;
}

/* ---- arithmetic -------------------------------------------------------- */

static const char *opname(int op)
{
	switch (op) {
	case TK_ADD: return "+";
	case TK_SUB: return "-";
	case TK_MUL: return "*";
	case TK_DIV: return "/";
	case TK_FLOORDIV: return "//";
	case TK_MOD: return "%";
	case TK_POW: return "** or pow()";
	}
	return "?";
}

static json_t *repeat(struct ev *ev, json_t *seq, long long times, size_t pos)
{
	if (times < 0)
		times = 0;
	size_t unit = json_is_string(seq) ? json_string_length(seq) : json_array_size(seq);
	if (unit == 0)
		times = 0; /* '' * n and [] * n are empty whatever n is */
	size_t max = json_is_string(seq) ? MAX_SEQ : TMPL_MAX_ITEMS;
	if (unit && (unsigned long long)times > max / unit) {
		ev_error(ev, TMPL_ERR_LIMIT, pos, "result of repetition is too large (over %zu %s)", max,
			 json_is_string(seq) ? "characters" : "items");
		return NULL;
	}
	if (json_is_string(seq)) {
		struct strbuf sb = STRBUF_INIT;
		for (long long i = 0; i < times; i++)
			strbuf_add(&sb, json_string_value(seq), unit);
		json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	json_t *r = json_array();
	for (long long i = 0; i < times; i++)
		json_array_extend(r, seq);
	return r;
}

static json_t *arith(struct ev *ev, int op, json_t *a, json_t *b, size_t pos)
{
	if (dt_kind(a) || dt_kind(b))
		return dt_arith(ev, op, a, b, pos);
	bool an = json_is_number(a) || json_is_boolean(a), bn = json_is_number(b) || json_is_boolean(b);
	if (an && bn) {
		bool ints = val_is_int(a) && val_is_int(b);
		long long x = val_int(a), y = val_int(b), r;
		double fx, fy;
		val_num(a, &fx);
		val_num(b, &fy);
		switch (op) {
		case TK_ADD:
			if (ints && !__builtin_add_overflow(x, y, &r))
				return json_integer(r);
			return val_real(fx + fy);
		case TK_SUB:
			if (ints && !__builtin_sub_overflow(x, y, &r))
				return json_integer(r);
			return val_real(fx - fy);
		case TK_MUL:
			if (ints && !__builtin_mul_overflow(x, y, &r))
				return json_integer(r);
			return val_real(fx * fy);
		case TK_DIV:
			if (fy == 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "division by zero");
				return NULL;
			}
			return val_real(fx / fy);
		case TK_FLOORDIV:
		case TK_MOD:
			if (fy == 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, ints ? "integer division or modulo by zero" : "float divmod()");
				return NULL;
			}
			if (ints) {
				if (x == (-9223372036854775807LL - 1) && y == -1)
					return op == TK_MOD ? json_integer(0) : val_real(-(double)x);
				long long q = x / y, m = x % y;
				if (m != 0 && ((m < 0) != (y < 0))) {
					q--;
					m += y;
				}
				return json_integer(op == TK_MOD ? m : q);
			} else {
				/* CPython's float divmod, step by step, so that
				 * infinities and NaNs come out as in Python */
				double m = fmod(fx, fy), dv = (fx - m) / fy, q;
				if (m != 0) {
					if ((fy < 0) != (m < 0)) {
						m += fy;
						dv -= 1.0;
					}
				} else {
					m = copysign(0.0, fy);
				}
				if (op == TK_MOD)
					return val_real(m);
				if (dv != 0) {
					q = floor(dv);
					if (dv - q > 0.5)
						q += 1.0;
				} else {
					q = copysign(0.0, fx / fy);
				}
				return val_real(q);
			}
		case TK_POW:
			if (ints && y >= 0) {
				long long acc = 1, base = x;
				long long e = y;
				bool ovf = false;
				while (e > 0 && !ovf) {
					if (e & 1)
						ovf |= __builtin_mul_overflow(acc, base, &acc);
					e >>= 1;
					if (e)
						ovf |= __builtin_mul_overflow(base, base, &base);
				}
				if (!ovf)
					return json_integer(acc);
			}
			if (fx == 0 && fy < 0) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "0.0 cannot be raised to a negative power");
				return NULL;
			}
			if (fx < 0 && isfinite(fy) && fy != floor(fy)) {
				/* Python's float ** gives a complex number there, which
				 * templates cannot hold */
				ev_error(ev, TMPL_ERR_TYPE, pos, "a negative number cannot be raised to a fractional power here");
				return NULL;
			}
			if (isfinite(fx) && isfinite(fy) && isinf(pow(fx, fy))) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "(34, 'Numerical result out of range')");
				return NULL;
			}
			return val_real(pow(fx, fy));
		}
	}
	if (op == TK_ADD && json_is_string(a) && json_is_string(b)) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, json_string_value(a), json_string_length(a));
		strbuf_add(&sb, json_string_value(b), json_string_length(b));
		json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	if (op == TK_ADD && json_is_array(a) && json_is_array(b)) {
		json_t *r = val_copy(a);
		json_array_extend(r, b);
		return r;
	}
	if (op == TK_MUL && (json_is_string(a) || json_is_array(a)) && json_is_integer(b))
		return repeat(ev, a, json_integer_value(b), pos);
	if (op == TK_MUL && (json_is_string(b) || json_is_array(b)) && json_is_integer(a))
		return repeat(ev, b, json_integer_value(a), pos);
	if (op == TK_MOD && json_is_string(a)) {
		struct strbuf sb = STRBUF_INIT;
		if (py_percent_format(ev, &sb, json_string_value(a), b, pos) < 0) {
			strbuf_release(&sb);
			return NULL;
		}
		json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	if (op == TK_ADD && json_is_string(a)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "can only concatenate str (not \"%s\") to str", val_typename(b));
		return NULL;
	}
	if (op == TK_ADD && json_is_array(a)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "can only concatenate list (not \"%s\") to list", val_typename(b));
		return NULL;
	}
	ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported operand type(s) for %s: '%s' and '%s'", opname(op),
		 val_typename(a), val_typename(b));
	return NULL;
}

/* ---- calls ------------------------------------------------------------- */

static int eval_args(struct ev *ev, const struct tnode *n, json_t **args, json_t **kw)
{
	*args = json_array();
	*kw = NULL;
	for (size_t i = 0; i < n->args.n; i++) {
		json_t *v = ev_need(ev, ev_eval(ev, n->args.v[i]), n->args.v[i]->pos);
		if (!v)
			goto fail;
		json_array_append_new(*args, v);
	}
	if (n->nkw) {
		*kw = json_object();
		for (size_t i = 0; i < n->nkw; i++) {
			json_t *v = ev_need(ev, ev_eval(ev, n->kwvals[i]), n->kwvals[i]->pos);
			if (!v)
				goto fail;
			json_object_set_new(*kw, n->kwnames[i], v);
		}
	}
	if (n->dyn_args) {
		json_t *v = ev_need(ev, ev_eval(ev, n->dyn_args), n->dyn_args->pos);
		if (!v)
			goto fail;
		/* Python spreads any iterable; a dict gives its keys */
		json_t *l = val_iter_list(v);
		json_decref(v);
		if (!l) {
			ev_error(ev, TMPL_ERR_TYPE, n->dyn_args->pos, "argument after * must be an iterable");
			goto fail;
		}
		json_array_extend(*args, l);
		json_decref(l);
	}
	if (n->dyn_kwargs) {
		json_t *v = ev_need(ev, ev_eval(ev, n->dyn_kwargs), n->dyn_kwargs->pos);
		if (!v)
			goto fail;
		if (!json_is_object(v) || dt_kind(v)) {
			ev_error(ev, TMPL_ERR_TYPE, n->dyn_kwargs->pos, "argument after ** must be a mapping, not %s",
				 val_typename(v));
			json_decref(v);
			goto fail;
		}
		if (!*kw)
			*kw = json_object();
		json_object_update(*kw, v);
		json_decref(v);
	}
	return 0;
fail:
	json_decref(*args);
	json_decref(*kw);
	*args = *kw = NULL;
	return -1;
}

static bool uses_name(const struct tnode *n, const char *name)
{
	if (!n)
		return false;
	if (n->kind == N_NAME && n->name && !strcmp(n->name, name))
		return true;
	if (uses_name(n->a, name) || uses_name(n->b, name) || uses_name(n->c, name) || uses_name(n->d, name) ||
	    uses_name(n->dyn_args, name) || uses_name(n->dyn_kwargs, name) || tnode_uses_name(&n->args, name) ||
	    tnode_uses_name(&n->body, name) || tnode_uses_name(&n->orelse, name))
		return true;
	for (size_t i = 0; i < n->nkw; i++)
		if (uses_name(n->kwvals[i], name))
			return true;
	return false;
}

bool tnode_uses_name(const struct nlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (uses_name(l->v[i], name))
			return true;
	return false;
}

static json_t *call_macro(struct ev *ev, struct macro *m, json_t *args, json_t *kw, size_t pos);

/* Inside an imported template's macro, the names are its macros; else
 * those this template defined or imported. */
static struct macro *find_macro(struct ev *ev, const char *name)
{
	for (struct macro *m = ev->module ? ev->module->macros : ev->macros; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

static struct tmodule *find_module(struct ev *ev, const char *alias)
{
	for (struct tmodule *t = ev->modules; t; t = t->next)
		if (t->alias && !strcmp(t->alias, alias))
			return t;
	return NULL;
}

struct macro *ev_find_macro(struct ev *ev, const struct tnode *callee)
{
	if (callee->kind == N_NAME && callee->name)
		return find_macro(ev, callee->name);
	if (callee->kind == N_GETATTR && callee->a->kind == N_NAME && callee->a->name) {
		struct tmodule *t = find_module(ev, callee->a->name);
		for (struct macro *m = t ? t->macros : NULL; m; m = m->next)
			if (!strcmp(m->name, callee->name))
				return m;
	}
	return NULL;
}

static json_t *call_global(struct ev *ev, const char *name, json_t *args, json_t *kw, size_t pos)
{
	struct macro *m = find_macro(ev, name);
	if (m)
		return call_macro(ev, m, args, kw, pos);
	const struct tglobal *g = reg_global(ev->reg, name);
	if (g)
		return g->fn(ev, args, kw, pos);
	ev_error(ev, TMPL_ERR_UNDEFINED, pos, "'%s' is undefined", name);
	return NULL;
}

static json_t *call_macro(struct ev *ev, struct macro *m, json_t *args, json_t *kw, size_t pos)
{
	const struct tnode *def = m->def;
	/* as Jinja's: a macro whose body names varargs / kwargs takes the
	 * extra positional / keyword arguments there */
	bool catch_va = tnode_uses_name(&def->body, "varargs");
	bool catch_kw = tnode_uses_name(&def->body, "kwargs");
	if (json_array_size(args) > def->ntargets && !catch_va) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "macro '%s' takes not more than %zu argument(s)", m->name, def->ntargets);
		return NULL;
	}
	json_t *extra_kw = json_object();
	const char *kn;
	json_t *kv;
	json_object_foreach(kw, kn, kv) {
		bool param = false;
		for (size_t i = 0; i < def->ntargets && !param; i++)
			param = !strcmp(def->targets[i], kn);
		if (param)
			continue;
		if (!catch_kw) {
			json_decref(extra_kw);
			ev_error(ev, TMPL_ERR_TYPE, pos, "macro '%s' takes no keyword argument '%s'", m->name, kn);
			return NULL;
		}
		json_object_set(extra_kw, kn, kv);
	}
	if (ev->depth >= TMPL_MAX_DEPTH) {
		json_decref(extra_kw);
		ev_error(ev, TMPL_ERR_LIMIT, pos, "macro recursion too deep");
		return NULL;
	}
	struct frame f = { .vars = json_object(), .up = m->scope ? m->scope : ev->frame };
	for (size_t i = 0; i < def->ntargets; i++) {
		json_t *v = i < json_array_size(args) ? json_array_get(args, i) : kw ? json_object_get(kw, def->targets[i]) : NULL;
		if (v) {
			json_object_set(f.vars, def->targets[i], v);
			continue;
		}
		const struct tnode *dn = def->args.v[i];
		if (dn->kind == N_NAME && !dn->name)
			continue; /* no default: undefined inside the macro */
		v = ev_eval(ev, dn);
		if (!v) {
			json_decref(f.vars);
			json_decref(extra_kw);
			ev_need(ev, NULL, dn->pos);
			return NULL;
		}
		json_object_set_new(f.vars, def->targets[i], v);
	}
	json_t *va = json_array();
	for (size_t i = def->ntargets; i < json_array_size(args); i++)
		json_array_append(va, json_array_get(args, i));
	json_object_set_new(f.vars, "varargs", va);
	json_object_set_new(f.vars, "kwargs", extra_kw);
	struct frame *saved = ev->frame;
	struct tmodule *saved_mod = ev->module;
	ev->frame = &f;
	ev->module = m->module;
	ev->depth++;
	json_t *r = ev_render_body(ev, &def->body);
	ev->depth--;
	ev->frame = saved;
	ev->module = saved_mod;
	json_decref(f.vars);
	return r;
}

static bool is_mutating(const char *m)
{
	static const char *const ms[] = { "append", "extend", "insert", "pop", "remove", "reverse", "sort",
					  "update", "setdefault", "clear", NULL };
	for (size_t i = 0; ms[i]; i++)
		if (!strcmp(ms[i], m))
			return true;
	return false;
}

/* a.m(args): methods of str/dict/list, loop.cycle(); mutating methods on a
 * variable first give the innermost frame its own copy (copy on write), so
 * the caller's variables are never changed. */
static json_t *eval_method(struct ev *ev, const struct tnode *call, const struct tnode *ga)
{
	const char *m = ga->name;
	json_t *self = NULL;
	bool mut = is_mutating(m);
	if (mut && ga->a->kind == N_NAME) {
		const char *vn = ga->a->name;
		struct frame *f;
		json_t *v = NULL;
		for (f = ev->frame; f; f = f->up)
			if ((v = json_object_get(f->vars, vn)))
				break;
		if (!v) {
			v = eval_name(ev, vn, ga->a->pos);
			if (!v)
				return ev_need(ev, NULL, ga->a->pos);
			f = ev->frame;
			if (f) {
				json_object_set_new(f->vars, vn, val_deep_copy(v));
				json_decref(v);
				v = json_object_get(f->vars, vn);
			} else {
				json_t *c = val_deep_copy(v);
				json_decref(v);
				v = c;
				self = c;
			}
		} else if (v->refcount > 1) {
			json_object_set_new(f->vars, vn, val_deep_copy(v));
			v = json_object_get(f->vars, vn);
		}
		if (!self)
			self = json_incref(v);
	} else {
		self = ev_need(ev, ev_eval(ev, ga->a), ga->a->pos);
		if (!self)
			return NULL;
		if (mut && (json_is_array(self) || json_is_object(self))) {
			json_t *c = val_deep_copy(self);
			json_decref(self);
			self = c;
		}
	}
	json_t *args, *kw;
	if (eval_args(ev, call, &args, &kw) < 0) {
		json_decref(self);
		return NULL;
	}
	json_t *r = NULL;
	bool known = false;
	if (json_is_string(self))
		r = py_str_method(ev, self, m, args, kw, call->pos, &known);
	else if (dt_kind(self))
		r = dt_method(ev, self, m, args, kw, call->pos, &known);
	else if (json_is_object(self)) {
		json_t *cyc;
		if (!strcmp(m, "cycle") && (cyc = json_object_get(self, "index0")) && json_object_get(self, "revindex")) {
			known = true;
			size_t na = json_array_size(args);
			if (!na)
				ev_error(ev, TMPL_ERR_TYPE, call->pos, "no items for cycling given");
			else
				r = json_incref(json_array_get(args, (size_t)val_int(cyc) % na));
		} else {
			r = py_dict_method(ev, self, m, args, kw, call->pos, &known);
		}
	} else if (json_is_array(self))
		r = py_list_method(ev, self, m, args, kw, call->pos, &known);
	if (!known && !ev->failed)
		ev_error(ev, TMPL_ERR_TYPE, call->pos, "%s has no attribute '%s'", objname(self), m);
	json_decref(self);
	json_decref(args);
	json_decref(kw);
	return r;
}

static json_t *eval_call(struct ev *ev, const struct tnode *n)
{
	const struct tnode *callee = n->a;
	if (callee->kind == N_GETATTR) {
		/* ALIAS.NAME(...) of a template imported as ALIAS */
		struct macro *m = ev_find_macro(ev, callee);
		if (m) {
			json_t *args, *kw;
			if (eval_args(ev, n, &args, &kw) < 0)
				return NULL;
			json_t *r = call_macro(ev, m, args, kw, n->pos);
			json_decref(args);
			json_decref(kw);
			return r;
		}
		return eval_method(ev, n, callee);
	}
	if (callee->kind != N_NAME) {
		json_t *v = ev_eval(ev, callee);
		if (v || !ev->failed)
			ev_error(ev, TMPL_ERR_TYPE, n->pos, "%s object is not callable", v ? objname(v) : "'Undefined'");
		json_decref(v);
		return NULL;
	}
	json_t *args, *kw;
	if (eval_args(ev, n, &args, &kw) < 0)
		return NULL;
	json_t *r = call_global(ev, callee->name, args, kw, n->pos);
	json_decref(args);
	json_decref(kw);
	return r;
}

/* ---- filters and tests ------------------------------------------------- */

/* ---- the evaluator ----------------------------------------------------- */

/* The right operand of a comparison. `in` hostvars or hostvars[HOST]
 * asks for a key, which Ansible's HostVars mappings answer without
 * templating any variable: neither does this. */
static json_t *eval_operand(struct ev *ev, const struct tnode *n, int op)
{
	if (op != CMP_IN && op != CMP_NOTIN)
		return ev_eval(ev, n);
	int d = hostvars_depth(ev, n);
	if (d != 0 && d != 1)
		return ev_eval(ev, n);
	if (!ev_step(ev, n->pos))
		return NULL;
	bool raw;
	return eval_access(ev, n, &raw);
}

static json_t *eval_cmp(struct ev *ev, const struct tnode *n)
{
	json_t *l = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
	if (!l)
		return NULL;
	bool res = true;
	for (size_t i = 0; i < n->args.n && res; i++) {
		json_t *r = ev_need(ev, eval_operand(ev, n->args.v[i], n->cmpops[i]), n->args.v[i]->pos);
		if (!r) {
			json_decref(l);
			return NULL;
		}
		int op = n->cmpops[i], c;
		switch (op) {
		case CMP_EQ: res = val_equal(l, r); break;
		case CMP_NE: res = !val_equal(l, r); break;
		case CMP_IN:
		case CMP_NOTIN:
			if (val_contains(r, l, &res) < 0) {
				if (json_is_string(r))
					ev_error(ev, TMPL_ERR_TYPE, n->pos, "'in <string>' requires string as left operand, not %s", val_typename(l));
				else if (json_is_object(r))
					ev_error(ev, TMPL_ERR_TYPE, n->pos, "unhashable type: '%s'", val_typename(l));
				else
					ev_error(ev, TMPL_ERR_TYPE, n->pos, "argument of type '%s' is not iterable", val_typename(r));
				json_decref(l);
				json_decref(r);
				return NULL;
			}
			if (op == CMP_NOTIN)
				res = !res;
			break;
		default: {
			int ord = val_compare(l, r, &c);
			if (ord < 0) {
				static const char *const names[] = { "==", "!=", "<", "<=", ">", ">=" };
				ev_error(ev, TMPL_ERR_TYPE, n->pos, "'%s' not supported between instances of '%s' and '%s'",
					 names[op], val_typename(l), val_typename(r));
				json_decref(l);
				json_decref(r);
				return NULL;
			}
			if (ord > 0) /* a NaN: unordered */
				res = false;
			else
				res = op == CMP_LT ? c < 0 : op == CMP_LE ? c <= 0 : op == CMP_GT ? c > 0 : c >= 0;
		}
		}
		json_decref(l);
		l = r;
	}
	json_decref(l);
	return json_boolean(res);
}

json_t *ev_eval(struct ev *ev, const struct tnode *n)
{
	if (ev->failed || !ev_step(ev, n->pos))
		return NULL;
	switch (n->kind) {
	case N_LIT:
		return json_incref(n->lit);
	case N_NAME:
	case N_GETATTR:
	case N_GETITEM: {
		bool raw;
		json_t *v = eval_access(ev, n, &raw);
		if (v && raw) {
			json_t *t = template_read(ev, n, v);
			json_decref(v);
			return t;
		}
		return v;
	}
	case N_SLICE: {
		json_t *base = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		json_t *parts[3] = { NULL, NULL, NULL };
		const struct tnode *pn[3] = { n->b, n->c, n->d };
		json_t *r = NULL;
		if (!base)
			return NULL;
		for (int i = 0; i < 3; i++)
			if (pn[i] && !(parts[i] = ev_need(ev, ev_eval(ev, pn[i]), pn[i]->pos)))
				goto slice_out;
		r = do_slice(ev, base, parts[0], parts[1], parts[2], n->pos);
slice_out:
		for (int i = 0; i < 3; i++)
			json_decref(parts[i]);
		json_decref(base);
		return r;
	}
	case N_LIST:
	case N_TUPLE: {
		json_t *r = json_array();
		for (size_t i = 0; i < n->args.n; i++) {
			json_t *v = ev_need(ev, ev_eval(ev, n->args.v[i]), n->args.v[i]->pos);
			if (!v) {
				json_decref(r);
				return NULL;
			}
			json_array_append_new(r, v);
		}
		return r;
	}
	case N_DICT: {
		json_t *r = json_object();
		for (size_t i = 0; i + 1 < n->args.n; i += 2) {
			json_t *k = ev_need(ev, ev_eval(ev, n->args.v[i]), n->args.v[i]->pos);
			json_t *v = k ? ev_need(ev, ev_eval(ev, n->args.v[i + 1]), n->args.v[i + 1]->pos) : NULL;
			if (!v) {
				json_decref(k);
				json_decref(r);
				return NULL;
			}
			if (json_is_array(k) || json_is_object(k)) {
				ev_error(ev, TMPL_ERR_TYPE, n->args.v[i]->pos, "unhashable type: '%s'", val_typename(k));
				json_decref(k);
				json_decref(v);
				json_decref(r);
				return NULL;
			}
			char *ks = val_to_cstr(k);
			json_object_set_new(r, ks, v);
			free(ks);
			json_decref(k);
		}
		return r;
	}
	case N_CALL:
		return eval_call(ev, n);
	case N_FILTER: {
		/* type_debug of a play variable that is an untemplated YAML
		 * string: Ansible reports its YAML type, AnsibleUnicode */
		if (!strcmp(n->name, "type_debug") && n->a && n->a->kind == N_NAME) {
			bool raw;
			json_t *v = lookup_raw(ev, n->a->name, &raw);
			bool yaml_str = v && raw && json_is_string(v) &&
					!tmpl_syntax_has_template(ev->env->syntax, json_string_value(v)) &&
					!(ev->env->native && json_object_get(ev->env->native, n->a->name));
			json_decref(v);
			if (yaml_str)
				return json_string("AnsibleUnicode");
		}
		json_t *in = n->a ? ev_eval(ev, n->a) : NULL;
		if (ev->failed)
			return NULL;
		json_t *args, *kw;
		if (eval_args(ev, n, &args, &kw) < 0) {
			json_decref(in);
			return NULL;
		}
		if (!in)
			ev->undef[sizeof(ev->undef) - 1] = 0;
		json_t *r = ev_call_filter(ev, n->name, in, args, kw, n->pos);
		json_decref(in);
		json_decref(args);
		json_decref(kw);
		return r;
	}
	case N_TEST: {
		json_t *in = ev_eval(ev, n->a);
		if (ev->failed)
			return NULL;
		json_t *args, *kw;
		if (eval_args(ev, n, &args, &kw) < 0) {
			json_decref(in);
			return NULL;
		}
		bool res = false;
		int rc = ev_call_test(ev, n->name, in, args, kw, n->pos, &res);
		json_decref(in);
		json_decref(args);
		json_decref(kw);
		if (rc < 0)
			return NULL;
		return json_boolean(n->op ? !res : res);
	}
	case N_NEG:
	case N_POS: {
		json_t *v = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!v)
			return NULL;
		json_t *r = NULL;
		if (json_is_integer(v) || json_is_boolean(v)) {
			long long x = val_int(v);
			if (n->kind == N_POS)
				r = json_integer(x);
			else if (x == (-9223372036854775807LL - 1))
				r = val_real(-(double)x);
			else
				r = json_integer(-x);
		} else if (json_is_real(v)) {
			r = val_real(n->kind == N_NEG ? -json_real_value(v) : json_real_value(v));
		} else {
			ev_error(ev, TMPL_ERR_TYPE, n->pos, "bad operand type for unary %c: '%s'", n->kind == N_NEG ? '-' : '+',
				 val_typename(v));
		}
		json_decref(v);
		return r;
	}
	case N_NOT: {
		json_t *v = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!v)
			return NULL;
		bool t = val_truthy(v);
		json_decref(v);
		return json_boolean(!t);
	}
	case N_BIN: {
		json_t *a = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!a)
			return NULL;
		json_t *b = ev_need(ev, ev_eval(ev, n->b), n->b->pos);
		if (!b) {
			json_decref(a);
			return NULL;
		}
		json_t *r = arith(ev, n->op, a, b, n->pos);
		json_decref(a);
		json_decref(b);
		return r;
	}
	case N_CONCAT: {
		struct strbuf sb;
		strbuf_init(&sb, TMPL_MAX_TEXT);
		for (size_t i = 0; i < n->args.n; i++) {
			json_t *v = ev_need(ev, ev_eval(ev, n->args.v[i]), n->args.v[i]->pos);
			if (!v) {
				strbuf_release(&sb);
				return NULL;
			}
			val_str(&sb, v);
			json_decref(v);
			if (sb.truncated) {
				strbuf_release(&sb);
				ev_error(ev, TMPL_ERR_LIMIT, n->pos, "string too large");
				return NULL;
			}
		}
		json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	case N_CMP:
		return eval_cmp(ev, n);
	case N_AND:
	case N_OR: {
		json_t *a = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!a)
			return NULL;
		bool t = val_truthy(a);
		if ((n->kind == N_AND && !t) || (n->kind == N_OR && t))
			return a;
		json_decref(a);
		return ev_need(ev, ev_eval(ev, n->b), n->b->pos);
	}
	case N_COND: {
		json_t *c = ev_need(ev, ev_eval(ev, n->a), n->a->pos);
		if (!c)
			return NULL;
		bool t = val_truthy(c);
		json_decref(c);
		if (t)
			return ev_eval(ev, n->b);
		if (n->c)
			return ev_eval(ev, n->c);
		return json_string(""); /* Jinja: undefined, which renders as '' */
	}
	default:
		ev_error(ev, TMPL_ERR_SYNTAX, n->pos, "statement used as an expression");
		return NULL;
	}
}
