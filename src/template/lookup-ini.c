/* lookup-ini.c: the ini lookup — the value of a key in a section of an INI
 * file, or of a Java properties file (type=properties: one section of its
 * own), as Ansible's ini lookup reads it with Python's configparser:
 * '=' or ':' between key and value, full-line comments ('#', ';'),
 * indented lines continuing a value, keys folded to lower case unless
 * case_sensitive, a [DEFAULT] section every other inherits, a duplicate
 * section or key an error, %(name)s interpolation and %% on reading, a
 * key without a value only with allow_no_value (allow_none). Options
 * (keywords, or the old k=v words after the key): file (ansible.ini, in
 * the files search path), section (global), re (the key is a regular
 * expression matched at the start of each key: every match's value),
 * default (what a missing key gives, ''), encoding (utf-8; any iconv
 * has), type (ini or properties). Its own file: INI parsing is a job of
 * its own. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/textenc.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- configparser ----------------------------------------------------------- */

/* A parsed file: "DEFAULT" holds the defaults; other sections are objects
 * of key -> string (or null: a key without a value), in file order. */
struct ini {
	json_t *defaults;
	json_t *sections;
	bool case_sensitive;
};

static char *fold_key(const struct ini *f, const char *k, size_t n)
{
	char *s = xstrndup(k, n);
	if (f->case_sensitive)
		return s;
	json_t *j = json_string(s);
	free(s);
	if (!j)
		return xstrndup(k, n);
	json_t *l = val_case_map(j, CASE_LOWER);
	json_decref(j);
	s = xstrdup(json_string_value(l));
	json_decref(l);
	return s;
}

static size_t trim_end(const char *s, size_t n)
{
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n;
}

/* Python's repr of a line for the parser's messages (the line with its
 * '\n'). */
static void repr_line(struct strbuf *sb, const char *l, size_t n, bool nl)
{
	json_t *s = json_stringn_nocheck(l, n);
	struct strbuf t = STRBUF_INIT;
	strbuf_add(&t, l, n);
	if (nl)
		strbuf_addch(&t, '\n');
	json_t *u = json_stringn_nocheck(t.buf, t.len);
	val_repr(sb, u);
	json_decref(u);
	json_decref(s);
	strbuf_release(&t);
}

/* Each value's lines joined, trailing blank ones dropped (a key without a
 * value stays null). */
static void join_values(json_t *s)
{
	const char *k;
	json_t *lv;
	json_object_foreach(s, k, lv) {
		if (!json_is_array(lv))
			continue;
		struct strbuf j = STRBUF_INIT;
		for (size_t i = 0; i < json_array_size(lv); i++) {
			if (i)
				strbuf_addch(&j, '\n');
			strbuf_addstr(&j, json_string_value(json_array_get(lv, i)));
		}
		const char *b = strbuf_str(&j);
		json_object_set_new(s, k, json_stringn_nocheck(b, trim_end(b, j.len)));
		strbuf_release(&j);
	}
}

/* Parses text as ConfigParser.read_file does; 0, or -1 with *err set to
 * Python's message. Values are joined multi-line lists, stripped. */
static int ini_parse(struct ini *f, const char *text, bool allow_no_value, char **err)
{
	json_t *cur = NULL;      /* the current section's object */
	char *cur_name = NULL;
	json_t *added = json_object(); /* "section" and "section\x01key" seen */
	json_t *vals = NULL;     /* the current option's list of lines */
	char *optname = NULL;
	size_t indent_level = 0;
	struct strbuf perr = STRBUF_INIT; /* ParsingError's lines */
	int rc = 0;
	size_t lineno = 0;
	const char *line = text;
	while (*line && rc == 0) {
		lineno++;
		const char *le = strchr(line, '\n');
		size_t ll = le ? (size_t)(le - line) : strlen(line);
		const char *next = le ? le + 1 : line + ll;
		/* the stripped line */
		const char *v = line;
		size_t vn = ll;
		while (vn && isspace((unsigned char)*v)) {
			v++;
			vn--;
		}
		vn = trim_end(v, vn);
		bool comment = vn && (*v == '#' || *v == ';');
		if (!vn || comment) {
			/* an empty line inside a value is part of it */
			if (!comment && cur && optname && vals)
				json_array_append_new(vals, json_string(""));
			line = next;
			continue;
		}
		size_t cur_indent = (size_t)(v - line);
		if (cur && optname && cur_indent > indent_level) {
			if (vals)
				json_array_append_new(vals, json_stringn_nocheck(v, vn));
			line = next;
			continue;
		}
		indent_level = cur_indent;
		const char *rb = vn > 2 && *v == '[' ? memrchr(v + 1, ']', vn - 1) : NULL;
		if (rb && rb > v + 1) {
			char *name = xstrndup(v + 1, (size_t)(rb - v - 1));
			if (!strcmp(name, "DEFAULT")) {
				cur = f->defaults;
			} else if (json_object_get(added, name)) {
				*err = xasprintf("While reading from '<\?\?\?>' [line %2zu]: section '%s' already exists", lineno, name);
				rc = -1;
			} else {
				cur = json_object_get(f->sections, name);
				if (!cur) {
					cur = json_object();
					json_object_set_new(f->sections, name, cur);
				}
				json_object_set_new(added, name, json_true());
			}
			free(cur_name);
			cur_name = name;
			free(optname);
			optname = NULL;
			vals = NULL;
			line = next;
			continue;
		}
		if (!cur) {
			struct strbuf m = STRBUF_INIT;
			strbuf_addf(&m, "File contains no section headers.\nfile: '<\?\?\?>', line: %zu\n", lineno);
			repr_line(&m, line, ll, le != NULL);
			*err = strbuf_detach(&m);
			rc = -1;
			break;
		}
		/* option: the text up to the first '=' or ':' */
		size_t d = 0;
		while (d < vn && v[d] != '=' && v[d] != ':')
			d++;
		if (d == vn && !allow_no_value) {
			if (!perr.len)
				strbuf_addstr(&perr, "Source contains parsing errors: '<\?\?\?>'");
			strbuf_addf(&perr, "\n\t[line %2zu]: ", lineno);
			repr_line(&perr, line, ll, le != NULL);
			line = next;
			continue;
		}
		size_t kn = trim_end(v, d);
		free(optname);
		optname = fold_key(f, v, kn);
		char *seen = xasprintf("%s\x01%s", cur_name, optname);
		if (json_object_get(added, seen)) {
			*err = xasprintf("While reading from '<\?\?\?>' [line %2zu]: option '%s' in section '%s' already exists",
					 lineno, optname, cur_name);
			rc = -1;
		}
		json_object_set_new(added, seen, json_true());
		free(seen);
		if (d == vn) {
			json_object_set_new(cur, optname, json_null());
			vals = NULL;
		} else {
			const char *val = v + d + 1;
			size_t valn = vn - d - 1;
			while (valn && isspace((unsigned char)*val)) {
				val++;
				valn--;
			}
			vals = json_array();
			json_array_append_new(vals, json_stringn_nocheck(val, valn));
			json_object_set_new(cur, optname, vals);
		}
		line = next;
	}
	free(optname);
	free(cur_name);
	json_decref(added);
	if (rc == 0 && perr.len) {
		*err = strbuf_detach(&perr);
		rc = -1;
	}
	strbuf_release(&perr);
	if (rc < 0)
		return -1;
	join_values(f->defaults);
	const char *sk;
	json_t *sec;
	json_object_foreach(f->sections, sk, sec)
		join_values(sec);
	return 0;
}

/* BasicInterpolation's reading of option in section: %% is %, %(name)s
 * the value of name there (or in DEFAULT), to a depth of 10. */
static int interpolate(const json_t *map, const char *section, const char *option, const char *raw,
		       const char *rest, struct strbuf *acc, int depth, char **err)
{
	if (depth > 10) {
		*err = xasprintf("Recursion limit exceeded in value substitution: option '%s' in section '%s' contains an "
				 "interpolation key which cannot be substituted in 10 steps. Raw value: '%s'",
				 option, section, raw);
		return -1;
	}
	while (*rest) {
		const char *p = strchr(rest, '%');
		if (!p) {
			strbuf_addstr(acc, rest);
			return 0;
		}
		strbuf_add(acc, rest, (size_t)(p - rest));
		rest = p;
		if (rest[1] == '%') {
			strbuf_addch(acc, '%');
			rest += 2;
		} else if (rest[1] == '(') {
			const char *cl = strchr(rest + 2, ')');
			if (!cl || cl == rest + 2 || cl[1] != 's') {
				*err = xasprintf("bad interpolation variable reference '%s'", rest);
				return -1;
			}
			char *var = xstrndup(rest + 2, (size_t)(cl - rest - 2));
			for (char *q = var; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			const json_t *v = json_object_get(map, var);
			rest = cl + 2;
			if (!json_is_string(v)) {
				*err = xasprintf("Bad value substitution: option '%s' in section '%s' contains an interpolation "
						 "key '%s' which is not a valid option name. Raw value: '%s'",
						 option, section, var, raw);
				free(var);
				return -1;
			}
			free(var);
			const char *vs = json_string_value(v);
			if (strchr(vs, '%')) {
				if (interpolate(map, section, option, raw, vs, acc, depth + 1, err) < 0)
					return -1;
			} else {
				strbuf_addstr(acc, vs);
			}
		} else {
			*err = xasprintf("'%%' must be followed by '%%' or '(', found: '%s'", rest);
			return -1;
		}
	}
	return 0;
}

/* The options of a section as cp.items() sees them: the defaults, then the
 * section's own (which override). NULL when there is no such section. */
static json_t *section_map(const struct ini *f, const char *section)
{
	json_t *own = !strcmp(section, "DEFAULT") ? json_object() : json_object_get(f->sections, section);
	if (!own)
		return NULL;
	json_t *m = json_copy(f->defaults);
	if (!strcmp(section, "DEFAULT"))
		json_decref(own);
	else
		json_object_update(m, own);
	return m;
}

/* ---- the lookup ------------------------------------------------------------- */

static const char *const ini_opts[] = { "file", "section", "re", "encoding", "default", "type", "case_sensitive",
					"allow_no_value", "allow_none", NULL };

static bool known_opt(const char *k)
{
	for (const char *const *n = ini_opts; *n; n++)
		if (!strcmp(k, *n))
			return true;
	return false;
}

/* Ansible's _parse_params: the term's whitespace-separated words, each
 * joined to the option the last "name=" word started (the key's words
 * first), as a list of the words' groups. */
static json_t *parse_params(const char *term)
{
	json_t *groups = json_array();
	json_t *by_key = json_object();
	const char *thiskey = "key";
	const char *p = term;
	size_t idp = 0;
	for (;; idp++) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		char *phrase = xstrndup(s, (size_t)(p - s));
		if (strchr(phrase, '=')) {
			for (const char *const *n = ini_opts; *n; n++) {
				char *pat = xasprintf("%s=", *n);
				if (strstr(phrase, pat))
					thiskey = *n;
				free(pat);
			}
		}
		json_t *cur = json_object_get(by_key, thiskey);
		if (idp == 0 || !cur || !json_string_length(cur)) {
			json_object_set_new(by_key, thiskey, json_string(phrase));
			json_array_append_new(groups, json_string(thiskey));
		} else {
			char *j = xasprintf("%s %s", json_string_value(cur), phrase);
			json_object_set_new(by_key, thiskey, json_string(j));
			free(j);
		}
		free(phrase);
	}
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(groups); i++)
		json_array_append(r, json_object_get(by_key, json_string_value(json_array_get(groups, i))));
	json_decref(groups);
	json_decref(by_key);
	return r;
}

/* The Python class of the exception behind msg, as lookup() names it:
 * configparser's errors and the codecs' are told by their words;
 * LOOKUP_RAISED for the plugin's own AnsibleLookupError and
 * AnsibleOptionsError, which are not wrapped. */
static const char *error_class(const char *msg)
{
	static const struct {
		const char *start, *exc;
	} classes[] = {
		{ "Duplicate option in ", LOOKUP_RAISED },
		{ "No section ", LOOKUP_RAISED },
		{ "Could not use ", LOOKUP_RAISED },
		{ "No key to lookup ", LOOKUP_RAISED },
		{ "Invalid filename: ", "ansible.errors.AnsibleParserError" },
		{ "an error occurred while trying to read", "ansible.errors.AnsibleParserError" },
		{ "File contains no section headers", "configparser.MissingSectionHeaderError" },
		{ "Source contains parsing errors", "configparser.ParsingError" },
		{ "While reading from ", "configparser.DuplicateSectionError" },
		{ "Recursion limit exceeded", "configparser.InterpolationDepthError" },
		{ "Bad value substitution", "configparser.InterpolationMissingOptionError" },
		{ "bad interpolation variable reference", "configparser.InterpolationSyntaxError" },
		{ "'%' must be followed", "configparser.InterpolationSyntaxError" },
		{ "unknown encoding", "LookupError" },
	};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strncmp(msg, classes[i].start, strlen(classes[i].start)))
			return classes[i].exc;
	if (strstr(msg, " is not a valid option."))
		return LOOKUP_RAISED;
	if (strstr(msg, "codec can't decode"))
		return "UnicodeDecodeError";
	return NULL;
}

static json_t *lookup_fail(struct ev *ev, size_t pos, json_t *ret, json_t *opts, char *msg)
{
	ev_lookup_error(ev, error_class(msg), pos, "%s", msg);
	free(msg);
	json_decref(ret);
	json_decref(opts);
	return NULL;
}

LOOKUP_FN(ini)
{
	json_t *opts = json_pack("{s:s, s:s, s:b, s:s, s:s, s:s, s:b, s:b}", "file", "ansible.ini", "section", "global",
				 "re", 0, "encoding", "utf-8", "default", "", "type", "ini", "case_sensitive", 0,
				 "allow_no_value", 0);
	json_t *ret = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(kw, k, v) {
		if (!strcmp(k, "wantlist") || !strcmp(k, "errors"))
			continue;
		/* one the plugin does not define is ignored, as Ansible's
		 * config manager reads only those it defines */
		if (!known_opt(k))
			continue;
		json_object_set(opts, !strcmp(k, "allow_none") ? "allow_no_value" : k, v);
	}
	struct ini f = { .case_sensitive = val_truthy(json_object_get(opts, "case_sensitive")) };
	bool allow_nv = val_truthy(json_object_get(opts, "allow_no_value"));
	for (size_t i = 0; i < json_array_size(terms); i++) {
		char *term = val_to_cstr(json_array_get(terms, i));
		char *key = xstrdup(term);
		/* the old inline options: values stay text (so re=false is true) */
		const char *t = term;
		while (isspace((unsigned char)*t))
			t++;
		size_t tn = trim_end(t, strlen(t));
		if (strchr(term, '=') || memchr(t, ' ', tn)) {
			json_t *params = parse_params(term);
			bool updated = false;
			for (size_t j = 0; j < json_array_size(params); j++) {
				const char *pm = json_string_value(json_array_get(params, j));
				const char *eq = strchr(pm, '=');
				if (eq) {
					if (strchr(eq + 1, '=')) {
						char *m = xasprintf("Could not use '%s' from '%s': too many values to unpack "
								    "(expected 2)", pm, term);
						json_decref(params);
						free(term);
						free(key);
						return lookup_fail(ev, pos, ret, opts, m);
					}
					char *name = xstrndup(pm, (size_t)(eq - pm));
					if (!known_opt(name)) {
						char *m = xasprintf("%s is not a valid option.", name);
						free(name);
						json_decref(params);
						free(term);
						free(key);
						return lookup_fail(ev, pos, ret, opts, m);
					}
					json_object_set_new(opts, !strcmp(name, "allow_none") ? "allow_no_value" : name,
							    json_string(eq + 1));
					free(name);
				} else if (!strcmp(key, term)) {
					free(key);
					key = xstrdup(pm);
					updated = true;
				}
			}
			json_decref(params);
			if (!updated) {
				char *m = xasprintf("No key to lookup was provided as first term with in string inline "
						    "options: %s", term);
				free(term);
				free(key);
				return lookup_fail(ev, pos, ret, opts, m);
			}
		}
		free(term);
		char *file = val_to_cstr(json_object_get(opts, "file"));
		char *enc = val_to_cstr(json_object_get(opts, "encoding"));
		bool props = json_is_string(json_object_get(opts, "type")) &&
			     !strcmp(json_string_value(json_object_get(opts, "type")), "properties");
		if (props)
			json_object_set_new(opts, "section", json_string("java_properties"));
		char *section = val_to_cstr(json_object_get(opts, "section"));
		bool is_re = val_truthy(json_object_get(opts, "re"));
		char *path = ev_find_lookup_file(ev, file);
		struct strbuf raw = STRBUF_INIT, text = STRBUF_INIT;
		char *err = NULL;
		int rc = 0;
		f.defaults = json_object();
		f.sections = json_object();
		if (!path || strbuf_read_file(&raw, path) < 0) {
			/* the loader's errors (a file not found is None there) */
			err = path ? xasprintf("an error occurred while trying to read the file '%s': %s", path,
					       strerror(errno))
				   : xstrdup("Invalid filename: 'None'");
			rc = -1;
		}
		if (rc == 0 && props)
			strbuf_addstr(&text, "[java_properties]\n");
		if (rc == 0 && text_decode(enc, raw.buf ? raw.buf : "", raw.len, &text, &err) < 0)
			rc = -1;
		if (rc == 0 && ini_parse(&f, strbuf_str(&text), allow_nv, &err) < 0) {
			if (!strncmp(err, "While reading", 13) && strstr(err, "option '")) {
				char *m = xasprintf("Duplicate option in '%s': %s", file, err);
				free(err);
				err = m;
			}
			rc = -1;
		}
		json_t *map = rc == 0 ? section_map(&f, section) : NULL;
		if (rc == 0 && !map) {
			err = xasprintf("No section '%s' in %s", section, file);
			rc = -1;
		}
		if (rc == 0 && is_re) {
			const char *ok;
			json_t *ov;
			json_object_foreach(map, ok, ov) {
				int m = regex_search(ev, key, 0, ok, strlen(ok), true, pos);
				if (m < 0) {
					rc = -2;
					break;
				}
				if (!m)
					continue;
				if (!json_is_string(ov)) {
					json_array_append_new(ret, json_null());
					continue;
				}
				struct strbuf acc = STRBUF_INIT;
				if (interpolate(map, section, ok, json_string_value(ov), json_string_value(ov), &acc, 1, &err) < 0) {
					strbuf_release(&acc);
					rc = -1;
					break;
				}
				json_array_append_new(ret, json_stringn_nocheck(acc.buf ? acc.buf : "", acc.len));
				strbuf_release(&acc);
			}
		} else if (rc == 0) {
			char *fk = fold_key(&f, key, strlen(key));
			json_t *ov = json_object_get(map, fk);
			if (!ov) {
				json_t *dflt = json_object_get(opts, "default");
				if (!json_is_null(dflt))
					json_array_append(ret, dflt);
			} else if (json_is_string(ov)) {
				struct strbuf acc = STRBUF_INIT;
				if (interpolate(map, section, fk, json_string_value(ov), json_string_value(ov), &acc, 1, &err) < 0)
					rc = -1;
				else
					json_array_append_new(ret, json_stringn_nocheck(acc.buf ? acc.buf : "", acc.len));
				strbuf_release(&acc);
			}
			/* a key without a value gives nothing, as Ansible skips None */
			free(fk);
		}
		json_decref(map);
		json_decref(f.defaults);
		json_decref(f.sections);
		strbuf_release(&raw);
		strbuf_release(&text);
		free(path);
		free(file);
		free(enc);
		free(section);
		free(key);
		if (rc == -2) {
			json_decref(ret);
			json_decref(opts);
			return NULL;
		}
		if (rc < 0)
			return lookup_fail(ev, pos, ret, opts, err);
	}
	json_decref(opts);
	return ret;
}
