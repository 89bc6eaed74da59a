/* find.c: the `find` module, as Ansible 2.14's: the files under paths whose
 * names match patterns (shell globs, or regexes anchored at the start with
 * use_regex) and not excludes, of file_type, filtered by age, size and
 * contains, with recurse, hidden and depth; returns files[] (each with
 * Ansible's stat fields), matched, examined, msg and skipped_paths. Never
 * changed.
 *
 * The node only lists: one `find -printf` per path gives every entry with
 * its lstat fields. The walk itself is redone here in the order Python's
 * os.walk takes (each directory's entries in directory order, files before
 * subdirectories, subdirectories in turn, symlinked ones not entered), since
 * the order of files[], the examined count (every entry of every directory
 * entered, even past depth or hidden) and depth pruning all follow it.
 * follow walks into symlinked directories too (os.walk's followlinks), each
 * listed when the walk reaches it; the fields are still the links' own
 * (Ansible lstats every entry). */
#include "config.h"

#include <fnmatch.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* One entry of the listing: the fields find printed, in FIELDS' order. */
enum { F_DEPTH, F_TYPE, F_LTYPE, F_MODE, F_UID, F_GID, F_SIZE, F_INO, F_DEV, F_NLINK, F_ATIME,
       F_CTIME, F_MTIME, F_USER, F_GROUP, F_REL, F_N };
#define FIELDS "%d\\t%y\\t%Y\\t%m\\t%U\\t%G\\t%s\\t%i\\t%D\\t%n\\t%A@\\t%C@\\t%T@\\t%u\\t%g\\t%P\\0"

struct entry {
	char *f[F_N];
	char *parent; /* rel path of the directory holding it ("" for the top) */
	const char *name;
};

struct opts {
	json_t *patterns, *excludes;
	const char *contains, *file_type, *age_stamp;
	bool use_regex, recurse, hidden, checksum, whole, follow;
	bool has_age, has_size;
	long long age, size;
	long depth;
	double now;
};

struct walk {
	struct exec_ctx *x;
	const struct opts *o;
	const char *top;
	struct entry *e;
	size_t n;
	long looked;
	json_t *files;
	json_t *unreach; /* set when the node could not be reached */
	char *err;       /* a path's error (Ansible skips the path with it) */
	int linked;      /* symlinked directories listed (follow) */
};

static size_t count_slash(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* One name against one pattern: a glob as Python's fnmatch (no escapes),
 * or a regex matched at the start (re.match). -1 when the regex is bad. */
static int name_match(const char *name, const char *pat, bool regex, char **err)
{
	if (!regex)
		return fnmatch(pat, name, FNM_NOESCAPE) == 0;
	return mod_re(pat, name, strlen(name), true, *err ? NULL : err);
}

/* Ansible's pfilter: a pattern matches and, when it does, no exclude. */
static bool pfilter(const struct opts *o, const char *name, char **err)
{
	size_t i, j;
	json_t *p, *e;
	json_array_foreach(o->patterns, i, p) {
		if (name_match(name, json_string_value(p), o->use_regex, err) != 1)
			continue;
		json_array_foreach(o->excludes, j, e)
			if (name_match(name, json_string_value(e), o->use_regex, err) == 1)
				return false;
		return true;
	}
	return false;
}

static bool agefilter(const struct opts *o, const struct entry *e)
{
	if (!o->has_age)
		return true;
	int f = !strcmp(o->age_stamp, "atime") ? F_ATIME : !strcmp(o->age_stamp, "ctime") ? F_CTIME
											       : F_MTIME;
	double d = o->now - strtod(e->f[f], NULL);
	double a = (double)(o->age < 0 ? -o->age : o->age);
	return o->age >= 0 ? d >= a : d <= a;
}

static bool sizefilter(const struct opts *o, const struct entry *e)
{
	if (!o->has_size)
		return true;
	long long s = strtoll(e->f[F_SIZE], NULL, 10);
	return o->size >= 0 ? s >= o->size : s <= -o->size;
}

/* contains: a line matching at its start, or the whole file searched
 * (read_whole_file); an unreadable file does not match. */
static int contentfilter(struct walk *w, const char *path, bool *hit)
{
	*hit = true;
	if (!w->o->contains)
		return 0;
	*hit = false;
	struct strbuf data = STRBUF_INIT;
	bool exists;
	if (mod_read(w->x, path, &data, &exists, &w->unreach) < 0) {
		strbuf_release(&data);
		return w->unreach ? -1 : 0;
	}
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)w->o->contains, PCRE2_ZERO_TERMINATED, PCRE2_UTF,
				      &ec, &eo, NULL);
	if (c && exists) {
		pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
		if (w->o->whole) {
			*hit = pcre2_match(c, (PCRE2_SPTR)data.buf, data.len, 0, 0, md, NULL) >= 0;
		} else {
			for (size_t at = 0; at < data.len && !*hit;) {
				const char *nl = memchr(data.buf + at, '\n', data.len - at);
				size_t end = nl ? (size_t)(nl - data.buf) + 1 : data.len;
				*hit = pcre2_match(c, (PCRE2_SPTR)data.buf + at, end - at, 0,
						   PCRE2_ANCHORED, md, NULL) >= 0;
				at = end;
			}
		}
		pcre2_match_data_free(md);
	}
	if (c)
		pcre2_code_free(c);
	strbuf_release(&data);
	return 0;
}

static json_t *statinfo(const struct entry *e, const char *path)
{
	json_t *r = json_object();
	json_object_set_new(r, "path", json_string(path));
	long mode = strtol(e->f[F_MODE], NULL, 8);
	char mb[16];
	snprintf(mb, sizeof(mb), "%04lo", mode);
	char t = e->f[F_TYPE][0];
	json_object_set_new(r, "mode", json_string(mb));
	json_object_set_new(r, "isdir", json_boolean(t == 'd'));
	json_object_set_new(r, "ischr", json_boolean(t == 'c'));
	json_object_set_new(r, "isblk", json_boolean(t == 'b'));
	json_object_set_new(r, "isreg", json_boolean(t == 'f'));
	json_object_set_new(r, "isfifo", json_boolean(t == 'p'));
	json_object_set_new(r, "islnk", json_boolean(t == 'l'));
	json_object_set_new(r, "issock", json_boolean(t == 's'));
	static const struct { const char *k; int f; } ints[] = {
		{ "uid", F_UID }, { "gid", F_GID }, { "size", F_SIZE },
		{ "inode", F_INO }, { "dev", F_DEV }, { "nlink", F_NLINK },
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		json_object_set_new(r, ints[i].k, json_integer(strtoll(e->f[ints[i].f], NULL, 10)));
	json_object_set_new(r, "atime", json_real(strtod(e->f[F_ATIME], NULL)));
	json_object_set_new(r, "mtime", json_real(strtod(e->f[F_MTIME], NULL)));
	json_object_set_new(r, "ctime", json_real(strtod(e->f[F_CTIME], NULL)));
	/* find prints the number for an id without a name; Python, "" */
	bool nouser = !strcmp(e->f[F_USER], e->f[F_UID]);
	bool nogroup = !strcmp(e->f[F_GROUP], e->f[F_GID]);
	json_object_set_new(r, "gr_name", json_string(nogroup ? "" : e->f[F_GROUP]));
	json_object_set_new(r, "pw_name", json_string(nouser ? "" : e->f[F_USER]));
	static const struct { const char *k; long bit; } bits[] = {
		{ "wusr", 0200 }, { "rusr", 0400 }, { "xusr", 0100 }, { "wgrp", 020 },
		{ "rgrp", 040 }, { "xgrp", 010 }, { "woth", 02 }, { "roth", 04 }, { "xoth", 01 },
		{ "isuid", 04000 }, { "isgid", 02000 },
	};
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		json_object_set_new(r, bits[i].k, json_boolean(mode & bits[i].bit));
	return r;
}

/* The sha1 of a matched regular file (get_checksum), through sha1sum. */
static int checksum(struct walk *w, json_t *r, const char *path)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "sha1sum -- ");
	sh_quote(&c, path);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(w->x, c.buf, NULL, 0, &cr, &w->unreach);
	if (rc == 0 && cr.rc == 0 && cr.out.len >= 40)
		json_object_set_new(r, "checksum", json_stringn(cr.out.buf, 40));
	conn_result_release(&cr);
	strbuf_release(&c);
	return rc;
}

/* One entry of a directory being walked: Ansible's type dispatch. */
static int consider(struct walk *w, const struct entry *e)
{
	const struct opts *o = w->o;
	struct strbuf j = STRBUF_INIT;
	strbuf_addstr(&j, w->top);
	if (j.len && j.buf[j.len - 1] != '/')
		strbuf_addch(&j, '/');
	strbuf_addstr(&j, e->f[F_REL]);
	char *path = path_normpath(j.buf);
	strbuf_release(&j);
	int rc = 0;
	char t = e->f[F_TYPE][0];
	const char *ft = o->file_type;
	bool any = !strcmp(ft, "any"), keep = false, sum = false;
	if (any || (t == 'd' && !strcmp(ft, "directory")) || (t == 'l' && !strcmp(ft, "link")) ||
	    (t == 'f' && !strcmp(ft, "file"))) {
		keep = pfilter(o, e->name, &w->err) && agefilter(o, e);
		if (keep && t == 'f') {
			keep = sizefilter(o, e);
			sum = o->checksum;
		}
		if (keep && t == 'f' && !any) {
			rc = contentfilter(w, path, &keep);
		}
	}
	if (keep && !w->err) {
		json_t *r = statinfo(e, path);
		if (sum && rc == 0)
			rc = checksum(w, r, path);
		json_array_append_new(w->files, r);
	}
	free(path);
	return rc;
}

/* Adds the records find printed (buf, n bytes) to w's entries, their
 * relative paths under prefix ("" or "DIR/"). */
static void add_entries(struct walk *w, const char *buf, size_t n, const char *prefix)
{
	for (size_t at = 0; at < n;) {
		const char *rec = buf + at;
		size_t len = strnlen(rec, n - at);
		at += len + 1;
		struct entry e = { 0 };
		const char *last = memrchr(rec, '\t', len);
		if (!last)
			continue;
		e.f[0] = xasprintf("%.*s\t%s%.*s", (int)(last - rec), rec, prefix,
				   (int)(len - (size_t)(last + 1 - rec)), last + 1);
		char *s = e.f[0];
		int k;
		for (k = 1; k < F_N; k++) {
			char *tab = strchr(s, '\t');
			if (!tab)
				break;
			*tab = '\0';
			s = tab + 1;
			e.f[k] = s;
		}
		if (k < F_N) {
			free(e.f[0]);
			continue;
		}
		const char *slash = strrchr(e.f[F_REL], '/');
		e.parent = slash ? xstrndup(e.f[F_REL], (size_t)(slash - e.f[F_REL])) : xstrdup("");
		e.name = slash ? slash + 1 : e.f[F_REL];
		w->e = xrealloc(w->e, (w->n + 1) * sizeof(*w->e));
		w->e[w->n++] = e;
	}
}

/* follow: the entries of the symlinked directory rel, listed through the
 * link (find -H). A directory that cannot be listed adds nothing, as
 * os.walk ignores it; past 40 links deep (a cycle), the walk stops there. */
static int list_linked(struct walk *w, const char *rel)
{
	if (++w->linked > 40)
		return 0;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s%s%s", w->top, w->top[0] && w->top[strlen(w->top) - 1] == '/' ? "" : "/", rel);
	sh_quote(&c, path.buf);
	strbuf_release(&path);
	strbuf_addstr(&c, "; exec find -H \"$p\" -mindepth 1 -printf '" FIELDS "' 2>/dev/null");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(w->x, c.buf, NULL, 0, &cr, &w->unreach);
	strbuf_release(&c);
	if (rc == 0) {
		char *prefix = xasprintf("%s/", rel);
		add_entries(w, cr.out.buf ? cr.out.buf : "", cr.out.len, prefix);
		free(prefix);
	}
	conn_result_release(&cr);
	return rc;
}

/* os.walk from the directory rel (top-down), as find.py consumes it. */
static int walk_dir(struct walk *w, const char *rel, long level)
{
	const struct opts *o = w->o;
	size_t nent = 0;
	for (size_t i = 0; i < w->n; i++)
		nent += !strcmp(w->e[i].parent, rel);
	w->looked += (long)nent;
	if (!nent)
		return 0;
	bool prune = false;
	/* files (not directories, following links) first, then directories */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < w->n && !w->err; i++) {
			struct entry *e = &w->e[i];
			if (strcmp(e->parent, rel) || (e->f[F_LTYPE][0] == 'd') != (pass == 1))
				continue;
			if (o->depth && level > o->depth) {
				prune = true;
				continue;
			}
			if (e->name[0] == '.' && !o->hidden)
				continue;
			if (consider(w, e) < 0)
				return -1;
		}
	}
	if (!o->recurse || prune || w->err)
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		struct entry *e = &w->e[i];
		bool linked = o->follow && e->f[F_TYPE][0] == 'l' && e->f[F_LTYPE][0] == 'd';
		if (strcmp(e->parent, rel) || (e->f[F_TYPE][0] != 'd' && !linked))
			continue;
		/* listing a linked directory adds entries: w->e moves */
		char *sub = xstrdup(e->f[F_REL]);
		int r = linked ? list_linked(w, sub) : 0;
		if (r == 0)
			r = walk_dir(w, sub, level + 1);
		free(sub);
		if (r < 0)
			return -1;
	}
	return 0;
}

static void entries_free(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].f[0]);
		free(e[i].parent);
	}
	free(e);
}

/* Lists one path on the node and walks it. -1 when unreachable. */
static int find_path(struct exec_ctx *x, const struct opts *o, const char *npath, json_t *files,
		     long *looked, json_t *skipped, json_t **unreach)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, npath);
	/* a bound on find's depth only: the walk below prunes exactly */
	long maxd = !o->recurse ? 1 : o->depth ? o->depth + 2 + (long)count_slash(npath) : 0;
	if (o->recurse && o->depth && maxd < 1)
		maxd = 1;
	strbuf_addstr(&c, "; [ -d \"$p\" ] || { echo notdir; exit 3; }; exec find \"$p\" -mindepth 1");
	if (maxd)
		strbuf_addf(&c, " -maxdepth %ld", maxd);
	strbuf_addstr(&c, " -printf '" FIELDS "'");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, unreach);
	strbuf_release(&c);
	if (rc < 0)
		goto out;
	if (cr.rc == 3 && !strcmp(strbuf_str(&cr.out), "notdir\n")) {
		char *m = xasprintf("'%s' is not a directory", npath);
		json_object_set_new(skipped, npath, json_string(m));
		free(m);
		goto out;
	}
	if (cr.rc != 0) {
		json_object_set_new(skipped, npath, json_string(strbuf_str(&cr.err)));
		goto out;
	}
	struct walk w = { .x = x, .o = o, .top = npath, .files = files };
	add_entries(&w, cr.out.buf ? cr.out.buf : "", cr.out.len, "");
	/* depth counts separators as Ansible does, from the path as given */
	struct strbuf wp = STRBUF_INIT;
	strbuf_addstr(&wp, npath);
	while (wp.len && wp.buf[wp.len - 1] == '/')
		wp.buf[--wp.len] = '\0';
	strbuf_addch(&wp, '/');
	char *first = xasprintf("%s/x", npath);
	char *nfirst = path_normpath(first);
	long level = (long)count_slash(nfirst) - (long)count_slash(wp.buf) + 1;
	free(first);
	free(nfirst);
	strbuf_release(&wp);
	rc = walk_dir(&w, "", level);
	*looked += w.looked;
	if (rc < 0)
		*unreach = w.unreach;
	else if (w.err)
		json_object_set_new(skipped, npath, json_string(w.err));
	free(w.err);
	entries_free(w.e, w.n);
out:
	conn_result_release(&cr);
	return rc;
}

/* age ("-3d") and size ("10k") with Ansible's units. */
static bool parse_unit(const char *s, const char *units, const long long *mult, long long *out)
{
	char *end;
	if (!s || !*s)
		return false;
	const char *d = s + (*s == '-');
	if (*d < '0' || *d > '9')
		return false;
	long long v = strtoll(s, &end, 10);
	long long m = 1;
	if (*end) {
		const char *u = strchr(units, end[0] | 0x20);
		if (!u || end[1])
			return false;
		m = mult[u - units];
	}
	*out = v * m;
	return true;
}

static json_t *find_run(struct exec_ctx *x, json_t *args)
{
	struct opts o = { 0 };
	json_t *res = NULL, *paths = NULL;
	json_t *pv = json_object_get(args, "paths");
	if (!pv)
		pv = json_object_get(args, "path");
	if (!pv)
		pv = json_object_get(args, "name");
	if (!pv)
		return res_fail("missing required arguments: paths");
	o.patterns = mod_list(json_object_get(args, json_object_get(args, "patterns") ? "patterns"
										      : "pattern"));
	o.excludes = mod_list(json_object_get(args, json_object_get(args, "excludes") ? "excludes"
										      : "exclude"));
	o.contains = args_str(args, "contains");
	o.file_type = args_str(args, "file_type");
	if (!o.file_type)
		o.file_type = "file";
	o.age_stamp = args_str(args, "age_stamp");
	if (!o.age_stamp)
		o.age_stamp = "mtime";
	o.use_regex = args_bool(json_object_get(args, "use_regex"), false);
	o.recurse = args_bool(json_object_get(args, "recurse"), false);
	o.hidden = args_bool(json_object_get(args, "hidden"), false);
	o.checksum = args_bool(json_object_get(args, "get_checksum"), false);
	o.whole = args_bool(json_object_get(args, "read_whole_file"), false);
	o.follow = args_bool(json_object_get(args, "follow"), false);
	static const char *const types[] = { "any", "directory", "file", "link", NULL };
	static const char *const stamps[] = { "atime", "ctime", "mtime", NULL };
	bool okt = false, oks = false;
	for (const char *const *t = types; *t; t++)
		okt |= !strcmp(*t, o.file_type);
	for (const char *const *t = stamps; *t; t++)
		oks |= !strcmp(*t, o.age_stamp);
	if (!okt) {
		res = res_fail("value of file_type must be one of: any, directory, file, link, got: %s",
			       o.file_type);
		goto out;
	}
	if (!oks) {
		res = res_fail("value of age_stamp must be one of: atime, ctime, mtime, got: %s",
			       o.age_stamp);
		goto out;
	}
	json_t *dv = json_object_get(args, "depth");
	if (dv && !json_is_null(dv)) {
		char *ds = args_strdup(args, "depth"), *end;
		o.depth = strtol(ds, &end, 10);
		bool bad = !*ds || *end;
		free(ds);
		if (bad) {
			res = res_fail("argument 'depth' is of type %s and we were unable to convert to int",
				       json_is_string(dv) ? "<class 'str'>" : "<class 'float'>");
			goto out;
		}
	}
	if (!json_array_size(o.patterns))
		json_array_append_new(o.patterns, json_string(o.use_regex ? ".*" : "*"));
	static const long long secs[] = { 1, 60, 3600, 86400, 604800 };
	static const long long bytes[] = { 1, 1024, 1024LL * 1024, 1024LL * 1024 * 1024,
					   1024LL * 1024 * 1024 * 1024 };
	char *age = args_strdup(args, "age"), *size = args_strdup(args, "size");
	o.has_age = age != NULL;
	o.has_size = size != NULL;
	if (age && !parse_unit(age, "smhdw", secs, &o.age)) {
		res = res_fail("failed to process age");
		json_object_set_new(res, "age", json_string(age));
	} else if (size && !parse_unit(size, "bkmgt", bytes, &o.size)) {
		res = res_fail("failed to process size");
		json_object_set_new(res, "size", json_string(size));
	}
	free(age);
	free(size);
	if (res)
		goto out;
	/* the node's clock, as the module's time.time() */
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, "date +%s.%N", NULL, 0, &cr, &res);
	o.now = strtod(strbuf_str(&cr.out), NULL);
	conn_result_release(&cr);
	if (rc < 0)
		goto out;
	paths = mod_list(pv);
	json_t *files = json_array(), *skipped = json_object();
	long looked = 0;
	size_t i;
	json_t *p;
	json_array_foreach(paths, i, p) {
		const char *np = json_string_value(p);
		json_t *one = json_pack("{s:s}", "paths", np);
		static const char *const keys[] = { "paths", NULL };
		res = mod_unexpanded("find", one, keys);
		json_decref(one);
		if (res) {
			json_decref(files);
			json_decref(skipped);
			goto out;
		}
		if (find_path(x, &o, np, files, &looked, skipped, &res) < 0) {
			json_decref(files);
			json_decref(skipped);
			goto out;
		}
	}
	res = res_new(false);
	json_object_set_new(res, "files", files);
	json_object_set_new(res, "msg", json_string(json_object_size(skipped)
							    ? "Not all paths examined, check warnings for details"
							    : "All paths examined"));
	json_object_set_new(res, "matched", json_integer((json_int_t)json_array_size(files)));
	json_object_set_new(res, "examined", json_integer(looked));
	json_object_set_new(res, "skipped_paths", skipped);
out:
	json_decref(paths);
	json_decref(o.patterns);
	json_decref(o.excludes);
	return res;
}

static int find_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "paths", "path", "name", "patterns", "pattern",
					     "excludes", "exclude", "contains", "read_whole_file",
					     "file_type", "age", "age_stamp", "size", "recurse",
					     "hidden", "get_checksum", "use_regex", "depth", "follow",
					     NULL };
	if (mod_check_params("find", args, known, d, loc) < 0)
		return -1;
	if (!json_object_get(args, "paths") && !json_object_get(args, "path") &&
	    !json_object_get(args, "name")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "find: missing required arguments: paths");
		return -1;
	}
	return 0;
}

static const char *const find_node_paths[] = { "paths[]", "name[]", "path[]", NULL };

const struct task_module mod_find = { .name = "find", .check = find_check, .run = find_run,
					 .same_in_check_mode = true, .node_paths = find_node_paths };
