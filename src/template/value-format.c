/* value-format.c: Python's printf-style formatting (`fmt % values`), for
 * the evaluator's % operator on strings, the format filter and the
 * sequence lookup's format= option. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Python %-formatting: %s %r %d %i %f %x %o %e %g %% with flags/width/precision.
 * The printf spec is rebuilt from validated characters only, hence the
 * non-literal formats below are safe. */
#pragma GCC diagnostic push

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

int py_percent_format(struct ev *ev, struct strbuf *out, const char *fmt, json_t *vals, size_t pos)
{
	json_t *list = json_is_array(vals) ? json_incref(vals) : json_pack("[O]", vals ? vals : json_null());
	size_t vi = 0;
	int rc = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			strbuf_addch(out, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			strbuf_addch(out, '%');
			continue;
		}
		char spec[32];
		size_t sl = 0;
		spec[sl++] = '%';
		json_t *named = NULL;
		if (*p == '(') {
			const char *e = strchr(p, ')');
			if (!e || !json_is_object(vals)) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "format requires a mapping");
				rc = -1;
				break;
			}
			char *key = xstrndup(p + 1, (size_t)(e - p) - 1);
			named = json_object_get(vals, key);
			free(key);
			p = e + 1;
		}
		while (*p && strchr("-+ #0", *p) && sl < 8)
			spec[sl++] = *p++;
		/* width and precision are bounded as a repeated string is: a
		 * 30-byte template must not ask for gigabytes of padding */
		unsigned long long width = 0, prec = 0;
		while (*p && isdigit((unsigned char)*p) && sl < 16) {
			width = width * 10 + (unsigned)(*p - '0');
			spec[sl++] = *p++;
		}
		if (*p == '.') {
			spec[sl++] = *p++;
			while (*p && isdigit((unsigned char)*p) && sl < 24) {
				prec = prec * 10 + (unsigned)(*p - '0');
				spec[sl++] = *p++;
			}
		}
		if (width > TMPL_MAX_SEQ || prec > TMPL_MAX_SEQ) {
			ev_error(ev, TMPL_ERR_LIMIT, pos, "format width or precision too large (over %d)", TMPL_MAX_SEQ);
			rc = -1;
			break;
		}
		char conv = *p;
		if (!conv || !strchr("sridfFxXoeEgGc", conv)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "unsupported format character '%c'", conv ? conv : '?');
			rc = -1;
			break;
		}
		json_t *v = named ? named : json_array_get(list, vi++);
		if (!v) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "not enough arguments for format string");
			rc = -1;
			break;
		}
		if (conv == 's' || conv == 'r') {
			struct strbuf t = STRBUF_INIT;
			if (conv == 's')
				val_str(&t, v);
			else
				val_repr(&t, v);
			spec[sl++] = 's';
			spec[sl] = 0;
			strbuf_addf(out, spec, strbuf_str(&t));
			strbuf_release(&t);
		} else if (conv == 'd' || conv == 'i' || conv == 'x' || conv == 'X' || conv == 'o' || conv == 'c') {
			double d;
			if (!val_num(v, &d)) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "%%%c format: a number is required, not %s", conv, val_typename(v));
				rc = -1;
				break;
			}
			spec[sl++] = 'l';
			spec[sl++] = 'l';
			spec[sl++] = conv == 'i' ? 'd' : conv;
			spec[sl] = 0;
			strbuf_addf(out, spec, val_int(v));
		} else {
			double d;
			if (!val_num(v, &d)) {
				ev_error(ev, TMPL_ERR_TYPE, pos, "must be real number, not %s", val_typename(v));
				rc = -1;
				break;
			}
			spec[sl++] = conv;
			spec[sl] = 0;
			strbuf_addf(out, spec, d);
		}
	}
	if (rc == 0 && json_is_array(vals) && vi < json_array_size(list)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "not all arguments converted during string formatting");
		rc = -1;
	}
	json_decref(list);
	return rc;
}

#pragma GCC diagnostic pop
