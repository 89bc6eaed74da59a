/* apt_repository.c: the `apt_repository` module (ansible.builtin's of
 * ansible-core 2.14) for deb and deb-src lines, as it behaves on Debian and
 * Ubuntu. The sources are apt's own: the file Dir::Etc::sourcelist and
 * the *.list files of Dir::Etc::sourceparts, as `apt-config` reports them
 * (so APT_CONFIG in the task's environment moves them, as it does for
 * python-apt). Each line is read as the module reads it (a leading '#'
 * disables, a later '#' starts a comment, blanks collapse), and
 *  - present enables every line of the same source, disabled or not, or
 *    else appends it to a new file named after the URL's host and path
 *    (scheme, [options], user and password dropped, every run of other
 *    characters one '_') or filename=, under sourceparts; mode= applies to
 *    the files a line was appended to;
 *  - absent removes the enabled lines of the source, with the module's
 *    quirk of removing by the line's original number, so that of two equal
 *    lines in one file only the first goes.
 * When the dump of the sources changed, every file read is rewritten in
 * that normalised form and a file left without lines removed; then, with
 * update_cache (the default), the cache is updated through python-apt as
 * the module does, with its retries and back-off, and the sources are
 * reverted when it keeps failing. The module needs python-apt: it is
 * looked for (and installed with apt-get when missing, outside check
 * mode, unless install_python_apt=no) as the module does. Returns
 * changed, repo, state and diff (a list of before/after per file in diff
 * mode, else {}). Check mode computes the same and writes nothing.
 * A PPA (repo 'ppa:...') needs Launchpad's API for its key: refused when
 * the play is loaded (the task goes to Ansible), and when a templated repo
 * turns out to be one. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct src_line {
	int n; /* the line's number when read (the module keeps it) */
	bool valid, enabled;
	char *source, *comment;
};

struct src_file {
	char *name;
	struct src_line *l;
	size_t nl;
	bool appended; /* a line was appended (the module's new_repos) */
};

struct srclist {
	struct src_file *f;
	size_t nf;
	char *default_file, *parts; /* parts without its trailing '/' */
};

static void line_free(struct src_line *l)
{
	free(l->source);
	free(l->comment);
}

static void srclist_free(struct srclist *s)
{
	for (size_t i = 0; i < s->nf; i++) {
		for (size_t j = 0; j < s->f[i].nl; j++)
			line_free(&s->f[i].l[j]);
		free(s->f[i].l);
		free(s->f[i].name);
	}
	free(s->f);
	free(s->default_file);
	free(s->parts);
}

/* A copy of s (the module's deepcopy, kept to revert to). */
static void srclist_copy(struct srclist *to, const struct srclist *s)
{
	*to = (struct srclist){ .nf = s->nf, .default_file = xstrdup(s->default_file),
				.parts = xstrdup(s->parts) };
	to->f = xcalloc(s->nf ? s->nf : 1, sizeof(*to->f));
	for (size_t i = 0; i < s->nf; i++) {
		to->f[i] = (struct src_file){ .name = xstrdup(s->f[i].name), .nl = s->f[i].nl };
		to->f[i].l = xcalloc(s->f[i].nl ? s->f[i].nl : 1, sizeof(*to->f[i].l));
		for (size_t j = 0; j < s->f[i].nl; j++) {
			to->f[i].l[j] = s->f[i].l[j];
			to->f[i].l[j].source = xstrdup(s->f[i].l[j].source);
			to->f[i].l[j].comment = xstrdup(s->f[i].l[j].comment);
		}
	}
}

/* The module's _parse of one line; *rest, when not NULL, the text it
 * names in "Invalid repository string" (after the '#' and comment cut). */
static void parse_line(const char *text, struct src_line *l, char **rest)
{
	char *line = mod_strip(text, strlen(text)), *p = line;
	l->valid = false;
	l->enabled = true;
	l->comment = xstrdup("");
	if (*p == '#') {
		l->enabled = false;
		p++;
	}
	char *hash = strchr(p, '#');
	if (hash && hash > p) {
		free(l->comment);
		l->comment = mod_strip(hash + 1, strlen(hash + 1));
		*hash = '\0';
	}
	if (rest)
		*rest = xstrdup(p);
	l->source = mod_strip(p, strlen(p));
	if (*l->source) {
		/* a source spec: its words joined by single blanks */
		struct strbuf w = STRBUF_INIT;
		const char *s = l->source;
		size_t first = 0;
		while (*s) {
			s += strspn(s, " \t\n\r\f\v");
			size_t n = strcspn(s, " \t\n\r\f\v");
			if (!n)
				break;
			if (!w.len)
				first = n;
			strbuf_addf(&w, "%s%.*s", w.len ? " " : "", (int)n, s);
			s += n;
		}
		if ((first == 3 && !strncmp(w.buf, "deb", 3)) ||
		    (first == 7 && !strncmp(w.buf, "deb-src", 7))) {
			l->valid = true;
			free(l->source);
			l->source = strbuf_detach(&w);
		}
		strbuf_release(&w);
	}
	free(line);
}

static void add_line(struct src_file *f, const struct src_line *l)
{
	f->l = xrealloc(f->l, (f->nl + 1) * sizeof(*f->l));
	f->l[f->nl++] = *l;
}

static struct src_file *find_file(struct srclist *s, const char *name, bool create)
{
	for (size_t i = 0; i < s->nf; i++)
		if (!strcmp(s->f[i].name, name))
			return &s->f[i];
	if (!create)
		return NULL;
	s->f = xrealloc(s->f, (s->nf + 1) * sizeof(*s->f));
	s->f[s->nf] = (struct src_file){ .name = xstrdup(name) };
	return &s->f[s->nf++];
}

/* The module's load of one file: every line (Python's text lines). */
static void load_file(struct srclist *s, const char *name, const char *data, size_t len)
{
	struct src_file *f = find_file(s, name, true);
	int n = 0;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && data[j] != '\n' && data[j] != '\r')
			j++;
		char *text = xstrndup(data + i, j - i);
		struct src_line l = { .n = n };
		n++;
		parse_line(text, &l, NULL);
		add_line(f, &l);
		free(text);
		if (j < len && data[j] == '\r' && j + 1 < len && data[j + 1] == '\n')
			j++;
		i = j + 1;
	}
}

/* Reads apt's configuration and the source files on the node: for each
 * file "LEN\nNAME\n" and its content; first the two configured paths. */
static int load(struct exec_ctx *x, struct srclist *s, json_t **res)
{
	static const char script[] =
		"eval \"$(apt-config shell S Dir::Etc::sourcelist/f D Dir::Etc::sourceparts/d)\" || exit 3; "
		"printf '%s\\n%s\\n' \"$S\" \"${D%/}\"; "
		"emit() { printf '%s\\n%s\\n' \"$(wc -c < \"$1\")\" \"$1\" && cat \"$1\"; }; "
		"if [ -f \"$S\" ]; then emit \"$S\" || exit 4; fi; "
		"for f in \"${D%/}\"/*.list; do [ -e \"$f\" ] || [ -L \"$f\" ] || continue; emit \"$f\" || exit 4; done";
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, script, NULL, 0, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("%s", cr.rc == 3 ? "apt_repository: apt-config cannot say where apt's sources are"
						 : strbuf_str(&cr.err));
		rc = -1;
	}
	if (rc < 0)
		goto out;
	const char *o = cr.out.buf ? cr.out.buf : "", *end = o + cr.out.len;
	const char *nl = memchr(o, '\n', (size_t)(end - o));
	const char *nl2 = nl ? memchr(nl + 1, '\n', (size_t)(end - nl - 1)) : NULL;
	if (!nl2) {
		*res = res_fail("apt_repository: cannot read apt's configuration on the node");
		rc = -1;
		goto out;
	}
	s->default_file = xstrndup(o, (size_t)(nl - o));
	s->parts = xstrndup(nl + 1, (size_t)(nl2 - nl - 1));
	for (o = nl2 + 1; o < end;) {
		char *e;
		unsigned long len = strtoul(o, &e, 10);
		const char *name = e + 1;
		const char *ne = memchr(name, '\n', (size_t)(end - name));
		if (*e != '\n' || !ne || (size_t)(end - ne - 1) < len) {
			*res = res_fail("apt_repository: cannot read the sources on the node");
			rc = -1;
			goto out;
		}
		char *fn = xstrndup(name, (size_t)(ne - name));
		load_file(s, fn, ne + 1, len);
		free(fn);
		o = ne + 1 + len;
	}
out:
	conn_result_release(&cr);
	return rc;
}

static void render(const struct src_line *l, struct strbuf *out)
{
	strbuf_addf(out, "%s%s", l->enabled ? "" : "# ", l->source);
	if (*l->comment)
		strbuf_addf(out, " # %s", l->comment);
	strbuf_addch(out, '\n');
}

/* The module's dump(): file name -> content, for the files with lines. */
static json_t *dump(const struct srclist *s)
{
	json_t *d = json_object();
	for (size_t i = 0; i < s->nf; i++) {
		if (!s->f[i].nl)
			continue;
		struct strbuf c = STRBUF_INIT;
		for (size_t j = 0; j < s->f[i].nl; j++)
			render(&s->f[i].l[j], &c);
		json_object_set_new(d, s->f[i].name, json_string(strbuf_str(&c)));
		strbuf_release(&c);
	}
	return d;
}

/* The module's _suggest_filename: NULL when the source has no word past
 * its type (the module fails there). */
static char *suggest_filename(const char *source, const char *filename)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	/* drop [options]: '[' then at least one non-']' then ']' */
	for (const char *p = source; *p;) {
		const char *close = *p == '[' && p[1] && p[1] != ']' ? strchr(p + 1, ']') : NULL;
		if (close) {
			p = close + 1;
			continue;
		}
		strbuf_addch(&a, *p++);
	}
	/* drop every WORD:// */
	for (const char *p = strbuf_str(&a); *p;) {
		size_t w = 0;
		while (isalnum((unsigned char)p[w]) || p[w] == '_')
			w++;
		if (w && !strncmp(p + w, "://", 3)) {
			p += w + 3;
			continue;
		}
		if (w) {
			strbuf_add(&b, p, w);
			p += w;
		} else {
			strbuf_addch(&b, *p++);
		}
	}
	char *first = NULL;
	for (const char *p = strbuf_str(&b); *p && !first;) {
		p += strspn(p, " \t\n\r\f\v");
		size_t n = strcspn(p, " \t\n\r\f\v");
		if (n && !((n == 3 && !strncmp(p, "deb", 3)) || (n == 7 && !strncmp(p, "deb-src", 7))))
			first = xstrndup(p, n);
		p += n;
	}
	strbuf_release(&a);
	strbuf_release(&b);
	if (!first)
		return NULL;
	if (filename) {
		free(first);
		return xasprintf("%s.list", filename);
	}
	const char *host = strchr(first, '@') ? strchr(first, '@') + 1 : first;
	struct strbuf f = STRBUF_INIT;
	for (const char *p = host; *p;) {
		if (!isalnum((unsigned char)*p)) {
			p++;
			continue;
		}
		if (f.len)
			strbuf_addch(&f, '_');
		while (isalnum((unsigned char)*p))
			strbuf_addch(&f, *p++);
	}
	strbuf_addstr(&f, ".list");
	free(first);
	return strbuf_detach(&f);
}

/* The module's _add_valid_source: enable every line of the source, or
 * append it to file (expanded under sourceparts when it has no '/'). */
static void add_source(struct srclist *s, const char *source, const char *file)
{
	bool found = false;
	for (size_t i = 0; i < s->nf; i++) {
		struct src_file *f = &s->f[i];
		for (size_t j = 0; j < f->nl; j++) {
			if (!f->l[j].valid || strcmp(f->l[j].source, source))
				continue;
			size_t at = (size_t)f->l[j].n;
			if (at < f->nl)
				f->l[at].enabled = true;
			found = true;
		}
	}
	if (found)
		return;
	char *path = strchr(file, '/') ? xstrdup(file) : xasprintf("%s/%s", s->parts, file);
	struct src_file *f = find_file(s, path, true);
	struct src_line l = { .n = (int)f->nl, .valid = true, .enabled = true,
			      .source = xstrdup(source), .comment = xstrdup("") };
	add_line(f, &l);
	f->appended = true;
	free(path);
}

/* The module's _remove_valid_source, as Python runs it: popping by the
 * line's original number while iterating the same list. -1 when a number
 * is past the end (the module's IndexError). */
static int remove_source(struct srclist *s, const char *source)
{
	for (size_t i = 0; i < s->nf; i++) {
		struct src_file *f = &s->f[i];
		for (size_t j = 0; j < f->nl; j++) {
			struct src_line *l = &f->l[j];
			if (!l->valid || !l->enabled || strcmp(l->source, source))
				continue;
			size_t at = (size_t)l->n;
			if (at >= f->nl)
				return -1;
			line_free(&f->l[at]);
			memmove(f->l + at, f->l + at + 1, (f->nl - at - 1) * sizeof(*f->l));
			f->nl--;
		}
	}
	return 0;
}

/* The module's save(): every file with lines rewritten (its directory
 * made), mode applied to those a line was appended to; the others
 * removed. */
static int save(struct exec_ctx *x, struct srclist *s, json_t *mode, json_t **res)
{
	for (size_t i = 0; i < s->nf;) {
		struct src_file *f = &s->f[i];
		struct strbuf c = STRBUF_INIT;
		int rc = 0;
		if (f->nl) {
			for (size_t j = 0; j < f->nl; j++)
				render(&f->l[j], &c);
			rc = mod_mkdir_parent(x, f->name, res);
			if (rc == 0)
				rc = mod_write(x, f->name, c.buf, c.len, -1, res);
			if (rc == 0 && f->appended && mode && !json_is_null(mode)) {
				struct node_stat st;
				rc = mod_stat(x, f->name, true, false, &st, res);
				long m = rc == 0 ? args_mode(mode, st.mode & 07777) : -1;
				if (rc == 0 && m < 0) {
					*res = res_fail("mode must be in octal or symbolic form");
					rc = -1;
				} else if (rc == 0 && m != (st.mode & 07777)) {
					strbuf_reset(&c);
					strbuf_addf(&c, "chmod %lo ", (unsigned long)m);
					sh_quote(&c, f->name);
					json_t *r = mod_sh_changed(x, c.buf, "chmod");
					if (json_is_true(json_object_get(r, "failed")) ||
					    json_object_get(r, "unreachable")) {
						*res = r;
						rc = -1;
					} else {
						json_decref(r);
					}
				}
			}
			i++;
		} else {
			strbuf_addstr(&c, "rm -f -- ");
			sh_quote(&c, f->name);
			json_t *r = mod_sh_changed(x, c.buf, "rm");
			if (json_is_true(json_object_get(r, "failed")) || json_object_get(r, "unreachable")) {
				*res = r;
				rc = -1;
			} else {
				json_decref(r);
			}
			free(f->name);
			free(f->l);
			memmove(s->f + i, s->f + i + 1, (s->nf - i - 1) * sizeof(*s->f));
			s->nf--;
		}
		strbuf_release(&c);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* revert_sources_list: the new files removed, the old ones saved back as
 * they were read. */
static void revert(struct exec_ctx *x, json_t *before, json_t *after, struct srclist *old)
{
	const char *k;
	json_t *v, *r = NULL;
	struct strbuf c = STRBUF_INIT;
	json_object_foreach(after, k, v) {
		if (json_object_get(before, k))
			continue;
		strbuf_addstr(&c, c.len ? " " : "rm -f --");
		strbuf_addch(&c, ' ');
		sh_quote(&c, k);
	}
	if (c.len)
		json_decref(mod_sh_changed(x, c.buf, "rm"));
	strbuf_release(&c);
	for (size_t i = 0; i < old->nf; i++)
		old->f[i].appended = false;
	if (save(x, old, NULL, &r) < 0)
		json_decref(r);
}

/* probe_interpreters_for_module: the first system Python that imports
 * apt (malloc'd), or NULL. */
static int python_apt(struct exec_ctx *x, char **py, json_t **res)
{
	static const char script[] =
		"for i in /usr/bin/python3 /usr/bin/python2 /usr/bin/python; do [ -e \"$i\" ] && "
		"\"$i\" -c 'import apt' >/dev/null 2>&1 && { printf '%s' \"$i\"; exit 0; }; done; exit 1";
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, script, NULL, 0, &cr, res);
	*py = rc == 0 && cr.rc == 0 ? xstrdup(strbuf_str(&cr.out)) : NULL;
	conn_result_release(&cr);
	return rc;
}

/* The module's install_python_apt: apt-get update and install. */
static int install_python_apt(struct exec_ctx *x, json_t **res)
{
	char *apt_get = NULL;
	if (mod_bin_path(x, "apt-get", false, &apt_get, res) < 0)
		return -1;
	if (!apt_get)
		return 0;
	int rc = 0;
	for (int step = 0; step < 2 && rc == 0; step++) {
		struct strbuf c = STRBUF_INIT;
		sh_quote(&c, apt_get);
		strbuf_addstr(&c, step ? " install python3-apt -y -q" : " update");
		struct conn_result cr;
		conn_result_init(&cr);
		rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
		if (rc == 0 && cr.rc != 0) {
			char *e = mod_strip(strbuf_str(&cr.err), cr.err.len);
			*res = res_fail("Failed to auto-install python3-apt. Error was: '%s'", e);
			free(e);
			rc = -1;
		}
		conn_result_release(&cr);
		strbuf_release(&c);
	}
	free(apt_get);
	return rc;
}

/* apt.Cache().update() through python-apt, as the module calls it:
 * 0 updated, 1 failed (*err its FetchFailedException text), -1 with
 * *res set (python-apt raised something else: the module crashes). */
static int cache_update(struct exec_ctx *x, const char *py, char **err, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	sh_quote(&c, py);
	strbuf_addstr(&c, " -c 'import sys, apt\ntry:\n    apt.Cache().update()\n"
			  "except apt.cache.FetchFailedException as e:\n"
			  "    sys.stdout.write(str(e))\n    sys.exit(3)\n'");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc == 3) {
		free(*err);
		*err = xstrdup(strbuf_str(&cr.out));
		rc = 1;
	} else if (rc == 0 && cr.rc != 0) {
		*res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
		json_object_set_new(*res, "module_stderr", json_string(strbuf_str(&cr.err)));
		json_object_set_new(*res, "module_stdout", json_string(strbuf_str(&cr.out)));
		json_object_set_new(*res, "rc", json_integer(cr.rc));
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

/* An argument of Ansible's int type; NULL or the failure. */
static json_t *int_arg(json_t *args, const char *key, long dflt, long *out)
{
	json_t *v = json_object_get(args, key);
	*out = dflt;
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_integer(v)) {
		*out = (long)json_integer_value(v);
		return NULL;
	}
	if (json_is_string(v)) {
		char *e;
		const char *s = json_string_value(v);
		long n = strtol(s, &e, 10);
		if (*s && !*e) {
			*out = n;
			return NULL;
		}
	}
	struct strbuf r = STRBUF_INIT;
	args_pystr(&r, v);
	json_t *res = res_fail("argument '%s' is of type <class '%s'> and we were unable to convert to "
			       "int: <class '%s'> cannot be converted to an int", key, mod_pytype(v),
			       mod_pytype(v));
	strbuf_release(&r);
	return res;
}

static json_t *apt_repository_run(struct exec_ctx *x, json_t *args)
{
	char *repo = args_strdup(args, "repo"), *py = NULL, *err = NULL, *rest = NULL, *file = NULL;
	const char *state = args_str(args, "state"), *filename = args_str(args, "filename");
	struct srclist s = { 0 }, old = { 0 };
	struct src_line want = { 0 };
	json_t *res = NULL, *before = NULL, *after = NULL;
	bool update_cache, install, validate;
	long retries, max_delay;
	if (!state)
		state = "present";
	if (!repo) {
		res = res_fail("missing required arguments: repo");
		goto out;
	}
	json_t *uc = json_object_get(args, "update_cache") ? NULL : json_object_get(args, "update-cache");
	if (uc) {
		json_t *a = json_pack("{s:O}", "update_cache", uc);
		res = mod_bool_arg(a, "update_cache", true, &update_cache);
		json_decref(a);
	} else {
		res = mod_bool_arg(args, "update_cache", true, &update_cache);
	}
	if (res || (res = mod_bool_arg(args, "install_python_apt", true, &install)) ||
	    (res = mod_bool_arg(args, "validate_certs", true, &validate)) ||
	    (res = int_arg(args, "update_cache_retries", 5, &retries)) ||
	    (res = int_arg(args, "update_cache_retry_max_delay", 12, &max_delay)))
		goto out;
	if (strcmp(state, "present") && strcmp(state, "absent")) {
		res = res_fail("value of state must be one of: absent, present, got: %s", state);
		goto out;
	}
	if (python_apt(x, &py, &res) < 0)
		goto out;
	if (!py) {
		if (x->check_mode) {
			res = res_fail("python3-apt must be installed to use check mode. If run normally "
				       "this module can auto-install it.");
			goto out;
		}
		if (!install) {
			res = res_fail("python3-apt is not installed, and install_python_apt is False");
			goto out;
		}
		if (install_python_apt(x, &res) < 0 || python_apt(x, &py, &res) < 0)
			goto out;
		if (!py) {
			res = res_fail("python3-apt must be installed and visible from /usr/bin/python3.");
			goto out;
		}
	}
	if (!*repo) {
		res = res_fail("Please set argument 'repo' to a non-empty value");
		goto out;
	}
	if (!strncmp(repo, "ppa:", 4)) {
		res = res_fail("apt_repository: unsupported: a PPA repository ('%s') needs Launchpad's API, "
			       "which imc does not implement", repo);
		goto out;
	}
	if (filename && strchr(filename, '/')) {
		res = res_fail("apt_repository: unsupported: a filename holding '/' (%s) is relative to the "
			       "module's working directory", filename);
		goto out;
	}
	if (load(x, &s, &res) < 0)
		goto out;
	{
		/* UbuntuSourcesList wants one of the two, for PPA keys */
		char *ak = NULL, *gpg = NULL;
		int rc = mod_bin_path(x, "apt-key", false, &ak, &res);
		if (rc == 0)
			rc = mod_bin_path(x, "gpg", false, &gpg, &res);
		if (rc == 0 && !ak && !gpg) {
			res = res_fail("Either apt-key or gpg binary is required, but neither could be found");
			rc = -1;
		}
		free(ak);
		free(gpg);
		if (rc < 0)
			goto out;
	}
	srclist_copy(&old, &s);
	before = dump(&s);
	parse_line(repo, &want, &rest);
	if (!want.valid || !want.enabled) {
		res = res_fail("Invalid repository string: %s", rest);
		goto out;
	}
	if (!strcmp(state, "present")) {
		if (!(file = suggest_filename(want.source, filename))) {
			res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
			json_object_set_new(res, "module_stderr",
					    json_string("IndexError: list index out of range\n"));
			goto out;
		}
		add_source(&s, want.source, file);
	} else if (remove_source(&s, want.source) < 0) {
		res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
		json_object_set_new(res, "module_stderr", json_string("IndexError: pop index out of range\n"));
		goto out;
	}
	after = dump(&s);
	bool changed = !json_equal(before, after);
	json_t *diff;
	if (changed && mod_diff_wanted(x)) {
		diff = json_array();
		json_t *names = json_object();
		const char *k;
		json_t *v;
		json_object_foreach(before, k, v)
			json_object_set(names, k, json_true());
		json_object_foreach(after, k, v)
			json_object_set(names, k, json_true());
		json_object_foreach(names, k, v) {
			json_t *b = json_object_get(before, k), *a = json_object_get(after, k);
			json_array_append_new(diff, json_pack("{s:s, s:s, s:s, s:s}", "before",
							      b ? json_string_value(b) : "", "after",
							      a ? json_string_value(a) : "", "before_header",
							      b ? k : "/dev/null", "after_header",
							      a ? k : "/dev/null"));
		}
		json_decref(names);
	} else {
		diff = json_object();
	}
	if (changed && !x->check_mode) {
		if (save(x, &s, json_object_get(args, "mode"), &res) < 0) {
			revert(x, before, after, &old);
			json_decref(diff);
			goto out;
		}
		if (update_cache) {
			/* the module's retries: exponential back-off plus a random
			 * fraction, capped at the maximum delay */
			double rnd = (double)(rand() % 1001) / 1000.0;
			bool ok = false;
			for (long r = 0; r < retries && !ok; r++) {
				int u = cache_update(x, py, &err, &res);
				if (u < 0) {
					json_decref(diff);
					goto out;
				}
				if (u == 0) {
					ok = true;
					break;
				}
				double delay = (double)(1L << (r < 30 ? r : 30)) + rnd;
				if (delay > (double)max_delay)
					delay = (double)max_delay + rnd;
				char *sl = xasprintf("sleep %.3f", delay);
				json_decref(mod_sh_changed(x, sl, "sleep"));
				free(sl);
			}
			if (!ok) {
				revert(x, before, after, &old);
				res = res_fail("Failed to update apt cache: %s",
					       err && *err ? err : "unknown reason");
				json_decref(diff);
				goto out;
			}
		}
	}
	res = res_new(changed);
	json_object_set_new(res, "repo", json_string(repo));
	json_object_set_new(res, "state", json_string(state));
	json_object_set_new(res, "diff", diff);
out:
	free(repo);
	free(py);
	free(err);
	free(rest);
	free(file);
	line_free(&want);
	srclist_free(&s);
	srclist_free(&old);
	json_decref(before);
	json_decref(after);
	return res;
}

static int apt_repository_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "repo", "state", "mode", "update_cache", "update-cache",
					     "update_cache_retries", "update_cache_retry_max_delay",
					     "filename", "install_python_apt", "validate_certs",
					     "codename", NULL };
	const char *repo = args_str(args, "repo");
	if (repo && !strncmp(repo, "ppa:", 4)) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "apt_repository: unsupported repo '%s' (a PPA needs Launchpad's API)", repo);
		return -1;
	}
	return mod_check_params("apt_repository", args, known, d, loc);
}

const struct task_module mod_apt_repository = {
	.name = "apt_repository", .check = apt_repository_check, .run = apt_repository_run,
	.check_mode_native = true,
};
