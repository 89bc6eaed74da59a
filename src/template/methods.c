/* methods.c: the Python methods that templates call on values, as Ansible
 * sees them: str (split, rsplit, startswith, endswith, strip, lstrip,
 * rstrip, lower, upper, replace, format, find, count, index, join,
 * splitlines, zfill, isdigit, ...), dict (items, keys, values, get, copy,
 * update, pop, setdefault, iteritems) and list (append, extend, insert,
 * pop, remove, index, count, reverse, sort). The evaluator calls them for
 * `x.name(args)`; *known tells it whether the method exists. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Python str methods used by recipes. */
json_t *py_str_method(struct ev *ev, json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known)
{
	const char *s = json_string_value(self);
	size_t n = json_string_length(self);
	size_t na = json_array_size(args);
	*known = true;
	if (!strcmp(m, "split") || !strcmp(m, "rsplit")) {
		json_t *sep = arg_get(args, kw, 0, "sep");
		json_t *mx = arg_get(args, kw, 1, "maxsplit");
		json_t *fa = json_array();
		if (sep && !json_is_null(sep))
			json_array_append(fa, sep);
		else
			json_array_append_new(fa, json_null());
		if (mx)
			json_array_append(fa, mx);
		json_t *r = ev_call_filter(ev, m[0] == 'r' ? "__rsplit" : "split", self, fa, NULL, pos);
		json_decref(fa);
		return r;
	}
	if (!strcmp(m, "startswith") || !strcmp(m, "endswith")) {
		json_t *a = arg_get(args, kw, 0, NULL);
		json_t *cands = json_is_array(a) ? json_incref(a) : json_pack("[O]", a ? a : json_null());
		bool res = false;
		for (size_t i = 0; i < json_array_size(cands); i++) {
			json_t *c = json_array_get(cands, i);
			if (!json_is_string(c)) {
				json_decref(cands);
				ev_error(ev, TMPL_ERR_TYPE, pos, "%s first arg must be str or a tuple of str, not %s", m, val_typename(c));
				return NULL;
			}
			size_t cl = json_string_length(c);
			if (cl <= n && memcmp(m[0] == 's' ? s : s + n - cl, json_string_value(c), cl) == 0)
				res = true;
		}
		json_decref(cands);
		return json_boolean(res);
	}
	if (!strcmp(m, "strip") || !strcmp(m, "lstrip") || !strcmp(m, "rstrip")) {
		json_t *chars = arg_get(args, kw, 0, NULL);
		const char *cs = json_is_string(chars) ? json_string_value(chars) : NULL;
		size_t a = 0, b = n;
		if (m[0] != 'r')
			while (a < b && (cs ? strchr(cs, s[a]) != NULL && s[a] : isspace((unsigned char)s[a])))
				a++;
		if (m[0] != 'l')
			while (b > a && (cs ? strchr(cs, s[b - 1]) != NULL && s[b - 1] : isspace((unsigned char)s[b - 1])))
				b--;
		return json_stringn_nocheck(s + a, b - a);
	}
	if (!strcmp(m, "lower") || !strcmp(m, "upper") || !strcmp(m, "capitalize") || !strcmp(m, "title"))
		return ev_call_filter(ev, m, self, NULL, NULL, pos);
	if (!strcmp(m, "replace")) {
		if (na < 2) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "replace expected at least 2 arguments, got %zu", na);
			return NULL;
		}
		return ev_call_filter(ev, "replace", self, args, NULL, pos);
	}
	if (!strcmp(m, "format")) {
		/* "{} {}".format(a, b) / "{0}" / "{name}" */
		struct strbuf sb = STRBUF_INIT;
		size_t auto_i = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '{' && i + 1 < n && s[i + 1] == '{') {
				strbuf_addch(&sb, '{');
				i++;
			} else if (s[i] == '}' && i + 1 < n && s[i + 1] == '}') {
				strbuf_addch(&sb, '}');
				i++;
			} else if (s[i] == '{') {
				const char *e = memchr(s + i, '}', n - i);
				if (!e) {
					strbuf_release(&sb);
					ev_error(ev, TMPL_ERR_TYPE, pos, "Single '{' encountered in format string");
					return NULL;
				}
				char *field = xstrndup(s + i + 1, (size_t)(e - s) - i - 1);
				char *colon = strchr(field, ':');
				if (colon)
					*colon = 0;
				json_t *v;
				if (!field[0])
					v = arg_get(args, NULL, auto_i++, NULL);
				else if (isdigit((unsigned char)field[0]))
					v = arg_get(args, NULL, strtoul(field, NULL, 10), NULL);
				else
					v = kw ? json_object_get(kw, field) : NULL;
				free(field);
				if (!v) {
					strbuf_release(&sb);
					ev_error(ev, TMPL_ERR_TYPE, pos, "Replacement index out of range for format()");
					return NULL;
				}
				val_str(&sb, v);
				i = (size_t)(e - s);
			} else {
				strbuf_addch(&sb, s[i]);
			}
		}
		json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	if (!strcmp(m, "find") || !strcmp(m, "index") || !strcmp(m, "count") || !strcmp(m, "rfind")) {
		json_t *sub = arg_get(args, kw, 0, NULL);
		if (!json_is_string(sub)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "must be str, not %s", val_typename(sub));
			return NULL;
		}
		const char *ss = json_string_value(sub);
		size_t sl = json_string_length(sub);
		long long found = -1, cnt = 0;
		for (size_t i = 0; i + sl <= n; i++) {
			if (memcmp(s + i, ss, sl) == 0) {
				if (found < 0 || m[0] == 'r')
					found = (long long)utf8_len(s, i);
				cnt++;
				if (m[0] == 'c' && sl)
					i += sl - 1;
				if (m[0] == 'f' || m[0] == 'i')
					break;
			}
		}
		if (m[0] == 'c')
			return json_integer(sl ? cnt : (long long)utf8_len(s, n) + 1);
		if (m[0] == 'i' && found < 0) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "substring not found");
			return NULL;
		}
		return json_integer(found);
	}
	if (!strcmp(m, "isdigit") || !strcmp(m, "isalpha") || !strcmp(m, "isalnum") || !strcmp(m, "isspace") ||
	    !strcmp(m, "islower") || !strcmp(m, "isupper")) {
		bool r = n > 0, cased = false;
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)s[i];
			switch (m[2]) {
			case 'd': r = r && isdigit(c); break;
			case 'a': r = r && (m[3] == 'p' ? isalpha(c) : isalnum(c)); break;
			case 's': r = r && isspace(c); break;
			case 'l': if (isupper(c)) r = false; if (islower(c)) cased = true; break;
			case 'u': if (islower(c)) r = false; if (isupper(c)) cased = true; break;
			}
		}
		if (m[2] == 'l' || m[2] == 'u')
			r = r && cased;
		return json_boolean(r);
	}
	if (!strcmp(m, "join")) {
		json_t *fa = json_pack("[O]", self);
		json_t *r = ev_call_filter(ev, "join", arg_get(args, kw, 0, NULL) ? arg_get(args, kw, 0, NULL) : json_null(), fa, NULL, pos);
		json_decref(fa);
		return r;
	}
	if (!strcmp(m, "splitlines")) {
		json_t *r = json_array();
		size_t a = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '\n' || s[i] == '\r') {
				json_array_append_new(r, json_stringn_nocheck(s + a, i - a));
				if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
					i++;
				a = i + 1;
			}
		}
		if (a < n)
			json_array_append_new(r, json_stringn_nocheck(s + a, n - a));
		return r;
	}
	if (!strcmp(m, "zfill") || !strcmp(m, "center") || !strcmp(m, "ljust") || !strcmp(m, "rjust")) {
		json_t *w = arg_get(args, kw, 0, NULL);
		if (!json_is_integer(w)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "%s() argument must be int", m);
			return NULL;
		}
		long long width = json_integer_value(w), len = (long long)utf8_len(s, n);
		if (width > TMPL_MAX_SEQ)
			width = TMPL_MAX_SEQ;
		struct strbuf sb = STRBUF_INIT;
		long long pad = width > len ? width - len : 0;
		long long left = m[0] == 'z' || m[0] == 'r' ? pad : m[0] == 'l' ? 0 : pad / 2 + (pad & width & 1);
		const char *fill = m[0] == 'z' ? "0" : " ";
		size_t start = 0;
		if (m[0] == 'z' && n && (s[0] == '-' || s[0] == '+')) {
			strbuf_addch(&sb, s[0]);
			start = 1;
		}
		for (long long i = 0; i < left; i++)
			strbuf_addstr(&sb, fill);
		strbuf_add(&sb, s + start, n - start);
		for (long long i = left; i < pad; i++)
			strbuf_addstr(&sb, fill);
		json_t *r = json_stringn_nocheck(sb.buf ? sb.buf : "", sb.len);
		strbuf_release(&sb);
		return r;
	}
	*known = false;
	return NULL;
}

json_t *py_dict_method(struct ev *ev, json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known)
{
	*known = true;
	const char *k;
	json_t *v;
	if (!strcmp(m, "items") || !strcmp(m, "iteritems")) {
		json_t *r = json_array();
		json_object_foreach(self, k, v)
			json_array_append_new(r, json_pack("[sO]", k, v));
		return r;
	}
	if (!strcmp(m, "keys") || !strcmp(m, "iterkeys"))
		return val_iter_list(self);
	if (!strcmp(m, "values") || !strcmp(m, "itervalues")) {
		json_t *r = json_array();
		json_object_foreach(self, k, v)
			json_array_append(r, v);
		return r;
	}
	if (!strcmp(m, "get")) {
		json_t *key = arg_get(args, kw, 0, NULL);
		json_t *d = arg_get(args, kw, 1, NULL);
		if (!key) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "get expected at least 1 argument, got 0");
			return NULL;
		}
		char *ks = val_to_cstr(key);
		json_t *r = json_object_get(self, ks);
		free(ks);
		return json_incref(r ? r : d ? d : json_null());
	}
	if (!strcmp(m, "copy"))
		return val_copy(self);
	if (!strcmp(m, "update")) {
		json_t *o = arg_get(args, kw, 0, NULL);
		if (json_is_object(o))
			json_object_update(self, o);
		if (kw)
			json_object_update(self, kw);
		return json_null();
	}
	if (!strcmp(m, "pop")) {
		json_t *key = arg_get(args, kw, 0, NULL);
		char *ks = key ? val_to_cstr(key) : xstrdup("");
		json_t *r = json_object_get(self, ks);
		if (r) {
			json_incref(r);
			json_object_del(self, ks);
		} else if (arg_get(args, kw, 1, NULL)) {
			r = json_incref(arg_get(args, kw, 1, NULL));
		} else {
			ev_error(ev, TMPL_ERR_TYPE, pos, "KeyError: '%s'", ks);
		}
		free(ks);
		return r;
	}
	if (!strcmp(m, "setdefault")) {
		json_t *key = arg_get(args, kw, 0, NULL);
		char *ks = key ? val_to_cstr(key) : xstrdup("");
		json_t *r = json_object_get(self, ks);
		if (!r) {
			r = arg_get(args, kw, 1, NULL);
			if (!r)
				r = json_null();
			json_object_set(self, ks, r);
		}
		free(ks);
		return json_incref(r);
	}
	*known = false;
	return NULL;
}

json_t *py_list_method(struct ev *ev, json_t *self, const char *m, json_t *args, json_t *kw, size_t pos, bool *known)
{
	*known = true;
	json_t *a = arg_get(args, kw, 0, NULL);
	if (!strcmp(m, "append")) {
		json_array_append(self, a ? a : json_null());
		return json_null();
	}
	if (!strcmp(m, "extend")) {
		json_t *l = a ? val_iter_list(a) : NULL;
		if (l)
			json_array_extend(self, l);
		json_decref(l);
		return json_null();
	}
	if (!strcmp(m, "insert")) {
		json_t *x = arg_get(args, kw, 1, NULL);
		long long i = a ? val_int(a) : 0, n = (long long)json_array_size(self);
		if (i < 0)
			i += n;
		if (i < 0)
			i = 0;
		if (i > n)
			i = n;
		json_array_insert(self, (size_t)i, x ? x : json_null());
		return json_null();
	}
	if (!strcmp(m, "pop")) {
		long long n = (long long)json_array_size(self), i = a ? val_int(a) : -1;
		if (i < 0)
			i += n;
		if (i < 0 || i >= n) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "pop index out of range");
			return NULL;
		}
		json_t *r = json_incref(json_array_get(self, (size_t)i));
		json_array_remove(self, (size_t)i);
		return r;
	}
	if (!strcmp(m, "index") || !strcmp(m, "count") || !strcmp(m, "remove")) {
		long long cnt = 0, idx = -1;
		for (size_t i = 0; i < json_array_size(self); i++)
			if (val_equal(json_array_get(self, i), a)) {
				if (idx < 0)
					idx = (long long)i;
				cnt++;
			}
		if (m[0] == 'c')
			return json_integer(cnt);
		if (idx < 0) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "x not in list");
			return NULL;
		}
		if (m[0] == 'r') {
			json_array_remove(self, (size_t)idx);
			return json_null();
		}
		return json_integer(idx);
	}
	if (!strcmp(m, "copy"))
		return val_copy(self);
	if (!strcmp(m, "reverse")) {
		size_t n = json_array_size(self);
		for (size_t i = 0; i < n / 2; i++) {
			json_t *x = json_incref(json_array_get(self, i));
			json_array_set(self, i, json_array_get(self, n - 1 - i));
			json_array_set_new(self, n - 1 - i, x);
		}
		return json_null();
	}
	if (!strcmp(m, "sort")) {
		json_t *s = ev_call_filter(ev, "sort", self, NULL, kw, pos);
		if (!s)
			return NULL;
		json_array_clear(self);
		json_array_extend(self, s);
		json_decref(s);
		return json_null();
	}
	*known = false;
	return NULL;
}
