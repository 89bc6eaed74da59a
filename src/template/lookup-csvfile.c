/* lookup-csvfile.c: the csvfile lookup — the column `col` of the first row
 * of a CSV file whose first field is the search key, as Ansible's csvfile
 * reads it with Python's csv module (fields quoted with '"', "" inside a
 * quoted field, text after a closing quote kept, \r\n or \n line ends).
 * Options (keywords, or k=v words after the key in the term): file
 * (default ansible.csv, found in the files search path), delimiter
 * (default TAB, "TAB" meaning a tab), col (default 1), default (what a
 * missing key gives), encoding (utf-8 only). Its own file: CSV parsing is
 * a job of its own. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The rows of text (delim a single character): an array of arrays of
 * strings. */
static json_t *csv_rows(const char *s, size_t n, char delim)
{
	json_t *rows = json_array();
	json_t *row = json_array();
	struct strbuf f = STRBUF_INIT;
	bool quoted = false, any = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (quoted) {
			if (c == '"' && i + 1 < n && s[i + 1] == '"') {
				strbuf_addch(&f, '"');
				i++;
			} else if (c == '"')
				quoted = false;
			else
				strbuf_addch(&f, c);
			continue;
		}
		if (c == '"' && f.len == 0) {
			quoted = true;
			any = true;
		} else if (c == delim) {
			json_array_append_new(row, json_stringn_nocheck(strbuf_str(&f), f.len));
			strbuf_reset(&f);
			any = true;
		} else if (c == '\n' || c == '\r') {
			if (c == '\r' && i + 1 < n && s[i + 1] == '\n')
				i++;
			if (any || f.len)
				json_array_append_new(row, json_stringn_nocheck(strbuf_str(&f), f.len));
			json_array_append_new(rows, row);
			row = json_array();
			strbuf_reset(&f);
			any = false;
		} else {
			strbuf_addch(&f, c);
			any = true;
		}
	}
	if (any || f.len) {
		json_array_append_new(row, json_stringn_nocheck(strbuf_str(&f), f.len));
		json_array_append_new(rows, row);
	} else
		json_decref(row);
	strbuf_release(&f);
	return rows;
}

/* One option's value: the term's k=v word, else the keyword, else dflt. */
static json_t *option(json_t *kv, json_t *kw, const char *name, json_t *dflt)
{
	json_t *v = json_object_get(kv, name);
	if (!v && kw)
		v = json_object_get(kw, name);
	return v ? v : dflt;
}

LOOKUP_FN(csvfile)
{
	static const char *const names[] = { "file", "delimiter", "col", "default", "encoding", NULL };
	json_t *r = json_array();
	const char *k;
	json_t *v;
	/* a keyword option the plugin does not define is ignored, as
	 * Ansible's config manager reads only those it defines; an unknown
	 * inline one is its AnsibleAssertionError, raised as AnsibleError */
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *term = val_to_cstr(json_array_get(terms, i));
		json_t *kv = lookup_parse_kv(term, true);
		free(term);
		const char *key = json_string_value(json_object_get(kv, "_raw_params"));
		json_object_foreach(kv, k, v) {
			bool known = !strcmp(k, "_raw_params");
			for (const char *const *n = names; *n; n++)
				known |= !strcmp(k, *n);
			if (!known) {
				ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s is not a valid option", k);
				json_decref(kv);
				goto fail;
			}
		}
		if (!key) {
			json_decref(kv);
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "Search key is required but was not found");
			goto fail;
		}
		json_t *def_file = json_string("ansible.csv"), *def_delim = json_string("TAB");
		json_t *def_col = json_integer(1);
		char *file = val_to_cstr(option(kv, kw, "file", def_file));
		char *delim = val_to_cstr(option(kv, kw, "delimiter", def_delim));
		char *col = val_to_cstr(option(kv, kw, "col", def_col));
		json_t *dflt = option(kv, kw, "default", NULL);
		json_t *enc = option(kv, kw, "encoding", NULL);
		json_decref(def_file);
		json_decref(def_delim);
		json_decref(def_col);
		int rc = 0;
		char *path = NULL, *text = NULL;
		struct strbuf sb = STRBUF_INIT;
		json_t *rows = NULL, *found = NULL;
		if (enc && strcmp(val_s(enc), "utf-8") && strcmp(val_s(enc), "utf8")) {
			ev_lookup_error(ev, LOOKUP_RAISED, pos, "csvfile: encoding '%s' is not supported by imc",
					val_s(enc));
			rc = -1;
			goto next;
		}
		if (!strcmp(delim, "TAB")) {
			free(delim);
			delim = xstrdup("\t");
		}
		if (strlen(delim) != 1) {
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "csvfile: \"delimiter\" must be a 1-character string");
			rc = -1;
			goto next;
		}
		path = ev_find_lookup_file(ev, file);
		if (!path || strbuf_read_file(&sb, path) < 0) {
			/* open(to_bytes(filename)): the name as bytes */
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "csvfile: [Errno 2] No such file or directory: b'%s'",
				 path ? path : "None");
			rc = -1;
			goto next;
		}
		rows = csv_rows(strbuf_str(&sb), sb.len, delim[0]);
		size_t ri;
		json_t *row;
		json_array_foreach(rows, ri, row) {
			if (!json_array_size(row) || strcmp(json_string_value(json_array_get(row, 0)), key))
				continue;
			char *end;
			errno = 0;
			long c = strtol(col, &end, 10);
			if (end == col || *end || errno) {
				ev_error(ev, TMPL_ERR_LOOKUP, pos,
					 "csvfile: invalid literal for int() with base 10: '%s'", col);
				rc = -1;
			} else if (c < 0 ? (size_t)-c > json_array_size(row) : (size_t)c >= json_array_size(row)) {
				ev_error(ev, TMPL_ERR_LOOKUP, pos, "csvfile: list index out of range");
				rc = -1;
			} else
				found = json_array_get(row, c < 0 ? json_array_size(row) - (size_t)-c : (size_t)c);
			break;
		}
		if (found)
			json_array_append(r, found);
		else if (rc == 0 && dflt && !json_is_null(dflt))
			json_array_append(r, dflt);
next:
		json_decref(rows);
		strbuf_release(&sb);
		free(text);
		free(path);
		free(file);
		free(delim);
		free(col);
		json_decref(kv);
		if (rc < 0)
			goto fail;
	}
	return r;
fail:
	json_decref(r);
	return NULL;
}
