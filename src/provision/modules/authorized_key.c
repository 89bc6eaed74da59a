/* authorized_key.c: the `authorized_key` module (ansible.posix.authorized_key):
 * public key lines in ~USER/.ssh/authorized_keys (or path), present or
 * absent, exclusive, with key_options and comment replacing the key's own.
 *
 * Why it parses the file as Ansible does rather than comparing lines: the
 * collection's module keeps the file as a table keyed by each key's blob
 * (a line that holds no key is keyed by the line itself), so a key whose
 * options or comment differ replaces the old line at the end of the file,
 * two lines of one blob collapse to the later one, a key without comment
 * is written with a trailing blank, exclusive also drops comment and empty
 * lines, and absent removes by blob whatever the options. The file is read
 * and written in two round trips (the look, then the write with the
 * directory and file set-up keyfile() makes); the result echoes the
 * arguments and the keyfile, then add_path_info's stat of path. A key
 * given as an http(s) URL (which Ansible downloads) is not implemented:
 * an error naming it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* one ssh option: value NULL for a bare one ("no-pty") */
struct ak_opt {
	char *name, *value;
};

/* one entry of the module's table (its tuple key, type, options, comment, rank) */
struct ak_key {
	char *id;	/* the blob, or for a line that is no key the line itself */
	char *type;	/* "skipped" for such a line */
	struct ak_opt *opts;
	size_t nopts;
	bool has_opts;	/* False for a skipped line (None), else a table, maybe empty */
	char *comment;	/* NULL: None */
	long rank;
	bool gone;	/* deleted from the table */
};

struct ak_table {
	struct ak_key *v;
	size_t n, alloc;
};

static const char *const key_types[] = {
	"sk-ecdsa-sha2-nistp256@openssh.com", "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
	"webauthn-sk-ecdsa-sha2-nistp256@openssh.com", "ecdsa-sha2-nistp256",
	"ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521",
	"ecdsa-sha2-nistp521-cert-v01@openssh.com", "sk-ssh-ed25519@openssh.com",
	"sk-ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519", "ssh-ed25519-cert-v01@openssh.com",
	"ssh-dss", "ssh-rsa", "ssh-xmss@openssh.com", "ssh-xmss-cert-v01@openssh.com",
	"rsa-sha2-256", "rsa-sha2-512", "ssh-rsa-cert-v01@openssh.com",
	"rsa-sha2-256-cert-v01@openssh.com", "rsa-sha2-512-cert-v01@openssh.com",
	"ssh-dss-cert-v01@openssh.com", NULL
};

static void key_free(struct ak_key *k)
{
	free(k->id);
	free(k->type);
	for (size_t i = 0; i < k->nopts; i++) {
		free(k->opts[i].name);
		free(k->opts[i].value);
	}
	free(k->opts);
	free(k->comment);
	memset(k, 0, sizeof(*k));
}

static void table_free(struct ak_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		key_free(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static struct ak_key *table_get(struct ak_table *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].gone && !strcmp(t->v[i].id, id))
			return &t->v[i];
	return NULL;
}

/* table[id] = k (taken): a dict's assignment, in place for a present id,
 * else at the end */
static void table_set(struct ak_table *t, struct ak_key *k)
{
	struct ak_key *old = table_get(t, k->id);
	if (old) {
		key_free(old);
		*old = *k;
		return;
	}
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 16;
		t->v = xreallocarray(t->v, t->alloc, sizeof(*t->v));
	}
	t->v[t->n++] = *k;
}

static size_t table_len(const struct ak_table *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += !t->v[i].gone;
	return n;
}

static void opt_add(struct ak_key *k, const char *s, size_t len)
{
	k->opts = xreallocarray(k->opts, k->nopts + 1, sizeof(*k->opts));
	const char *eq = memchr(s, '=', len);
	struct ak_opt *o = &k->opts[k->nopts++];
	o->name = xstrndup(s, eq ? (size_t)(eq - s) : len);
	o->value = eq ? xstrndup(eq + 1, len - (size_t)(eq + 1 - s)) : NULL;
}

/* The module's parseoptions: re.split of the options by the pattern of
 * an option (characters but , " and ', or a quoted string), the text
 * between the first and the last match kept: each match an option, and
 * each separator but a lone comma an option too (a bare one). */
static void parse_options(struct ak_key *k, const char *s)
{
	k->has_opts = true;
	size_t len = s ? strlen(s) : 0;
	struct { size_t at, len; bool match; } *part = NULL;
	size_t np = 0, i = 0, sep = 0;
	while (i < len) {
		size_t j = i;
		for (;;) {
			if (j < len && !strchr(",\"'", s[j])) {
				j++;
				continue;
			}
			const char *close = j < len && s[j] != ',' ? strchr(s + j + 1, s[j]) : NULL;
			if (!close)
				break;
			j = (size_t)(close - s) + 1;
		}
		if (j == i) {
			i++;
			continue;
		}
		part = xreallocarray(part, np + 2, sizeof(*part));
		part[np].at = sep, part[np].len = i - sep, part[np].match = false, np++;
		part[np].at = i, part[np].len = j - i, part[np].match = true, np++;
		i = sep = j;
	}
	/* [1:-1] of re.split's list: from the first match to the last one */
	for (size_t p = 1; p < np; p++) {
		if (!part[p].match && part[p].len == 1 && s[part[p].at] == ',')
			continue;
		opt_add(k, s + part[p].at, part[p].len);
	}
	free(part);
}

/* shlex's words of the module's parsekey: whitespace-separated, no quotes */
static size_t words(const char *s, char ***w)
{
	size_t n = 0;
	*w = NULL;
	for (const char *p = s;;) {
		p += strspn(p, " \t\r\n");
		if (!*p)
			break;
		size_t l = strcspn(p, " \t\r\n");
		*w = xreallocarray(*w, n + 1, sizeof(**w));
		(*w)[n++] = xstrndup(p, l);
		p += l;
	}
	return n;
}

static char *join(char **w, size_t from, size_t to)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = from; i < to; i++)
		strbuf_addf(&sb, "%s%s", i > from ? " " : "", w[i]);
	return strbuf_detach(&sb);
}

/* The module's parsekey: 0 with *k set, 1 for no key type in the line
 * (None), -1 for a type without a blob after it (Python's IndexError,
 * which ends the module). */
static int parse_key(const char *line, long rank, struct ak_key *k)
{
	memset(k, 0, sizeof(*k));
	struct strbuf raw = STRBUF_INIT;
	for (const char *p = line; *p; p++) {
		if (p[0] == '\\' && p[1] == '#')
			continue;
		strbuf_addch(&raw, *p);
	}
	char **w;
	size_t n = words(strbuf_str(&raw), &w), type = n;
	int rc = 0;
	if (n && !strcmp(w[0], "#")) {
		k->id = strbuf_detach(&raw);
		k->type = xstrdup("skipped");
		k->rank = rank;
		goto out;
	}
	for (size_t i = 0; i < n && type == n; i++)
		for (const char *const *t = key_types; *t; t++)
			if (!strcmp(w[i], *t)) {
				type = i;
				break;
			}
	if (type == n) {
		rc = 1;
		goto out;
	}
	if (type + 1 >= n) {
		rc = -1;
		goto out;
	}
	char *opts = type ? join(w, 0, type) : NULL;
	parse_options(k, opts);
	free(opts);
	k->type = xstrdup(w[type]);
	k->id = xstrdup(w[type + 1]);
	k->comment = join(w, type + 2, n);
	k->rank = rank;
out:
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
	strbuf_release(&raw);
	return rc;
}

/* str.splitlines(): the next line of s from *at, with its end when
 * keepends, or NULL at the end */
static char *next_line(const char *s, size_t len, size_t *at, bool keepends)
{
	if (*at >= len)
		return NULL;
	size_t i = *at;
	while (i < len && !strchr("\n\r\v\f\034\035\036", s[i]))
		i++;
	size_t end = i;
	if (i < len)
		i += s[i] == '\r' && i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
	char *line = xstrndup(s + *at, (keepends ? i : end) - *at);
	*at = i;
	return line;
}

/* The module's parsekeys of the file's text; -1 where parsekey raises */
static int parse_file(const char *s, size_t len, struct ak_table *t)
{
	size_t at = 0;
	long rank = 0;
	for (char *line; (line = next_line(s, len, &at, true)); rank++) {
		struct ak_key k;
		int rc = parse_key(line, rank, &k);
		if (rc < 0) {
			free(line);
			return -1;
		}
		if (rc == 1) {
			k.id = xstrdup(line);
			k.type = xstrdup("skipped");
			k.rank = rank;
		}
		table_set(t, &k);
		free(line);
	}
	return 0;
}

/* keydict's ==, a dict of lists: the same names, each with the same values in order */
static bool opts_equal(const struct ak_key *a, const struct ak_key *b)
{
	if (a->has_opts != b->has_opts || a->nopts != b->nopts)
		return false;
	for (size_t i = 0; i < a->nopts; i++) {
		size_t ia = 0, ib = 0;
		const char *name = a->opts[i].name;
		for (;;) {
			while (ia < a->nopts && strcmp(a->opts[ia].name, name))
				ia++;
			while (ib < b->nopts && strcmp(b->opts[ib].name, name))
				ib++;
			if (ia == a->nopts || ib == b->nopts) {
				if (ia != a->nopts || ib != b->nopts)
					return false;
				break;
			}
			const char *va = a->opts[ia].value, *vb = b->opts[ib].value;
			if ((!va || !vb) ? va != vb : strcmp(va, vb) != 0)
				return false;
			ia++, ib++;
		}
	}
	return true;
}

static bool key_same(const struct ak_key *a, const struct ak_key *b)
{
	if (strcmp(a->type, b->type) || !opts_equal(a, b))
		return false;
	if (!a->comment || !b->comment)
		return a->comment == b->comment;
	return !strcmp(a->comment, b->comment);
}

static int rank_cmp(const void *pa, const void *pb)
{
	const struct ak_key *a = *(const struct ak_key *const *)pa, *b = *(const struct ak_key *const *)pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a < b ? -1 : a > b;	/* sorted() is stable: the table's order */
}

/* The module's serialize: the table by rank; a key "OPTIONS TYPE BLOB COMMENT\n" */
static void serialize(struct ak_table *t, struct strbuf *out)
{
	struct ak_key **v = xreallocarray(NULL, t->n + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!t->v[i].gone)
			v[n++] = &t->v[i];
	qsort(v, n, sizeof(*v), rank_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct ak_key *k = v[i];
		if (!strcmp(k->type, "skipped")) {
			strbuf_addstr(out, k->id);
			continue;
		}
		for (size_t o = 0; o < k->nopts; o++) {
			strbuf_addf(out, "%s%s", o ? "," : "", k->opts[o].name);
			if (k->opts[o].value)
				strbuf_addf(out, "=%s", k->opts[o].value);
		}
		strbuf_addf(out, "%s%s %s %s\n", k->nopts ? " " : "", k->type, k->id,
			    k->comment ? k->comment : "None");
	}
	free(v);
}

/* Python's open() in text mode reads "\r\n" and "\r" as "\n" */
static void universal_newlines(struct strbuf *sb)
{
	size_t o = 0;
	for (size_t i = 0; i < sb->len; i++) {
		if (sb->buf[i] == '\r') {
			sb->buf[o++] = '\n';
			if (i + 1 < sb->len && sb->buf[i + 1] == '\n')
				i++;
		} else {
			sb->buf[o++] = sb->buf[i];
		}
	}
	sb->len = o;
	if (sb->buf)
		sb->buf[o] = '\0';
}

/* The look: the user's passwd entry ("U NAME:...:HOME:SHELL" or "N"),
 * the key file's realpath when follow ("R PATH"), then "F" and the
 * file's content when it is a regular file (else "A"); the memo's stat
 * of path after it. */
static int look(struct exec_ctx *x, const char *user, const char *path, bool follow,
		struct strbuf *pw, struct strbuf *real, struct strbuf *data, bool *isfile, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "u=");
	sh_quote(&c, user);
	strbuf_addstr(&c, "; p=");
	sh_quote(&c, path ? path : "");
	strbuf_addstr(&c, "; if e=$(getent passwd \"$u\"); then printf 'U %s\\n' \"$e\" | head -n 1; "
			 "else echo N; e=; fi; f=$p; if [ -z \"$p\" ] && [ -n \"$e\" ]; then "
			 "h=$(printf '%s\\n' \"$e\" | head -n 1 | cut -d: -f6); f=\"$h/.ssh/authorized_keys\"; fi; ");
	if (follow)
		strbuf_addstr(&c, "printf 'R %s\\n' \"$(realpath -m -- \"$f\")\"; ");
	strbuf_addstr(&c, "if [ -n \"$f\" ] && [ -f \"$f\" ]; then echo F; cat -- \"$f\" || exit 1; else echo A; fi; ");
	if (path)
		mod_stat_memo_script(&c);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc < 0)
		goto out;
	if (path && cr.rc == 0)
		mod_stat_memo_take(x, path, &cr.out);
	const char *o = strbuf_str(&cr.out);
	if (cr.rc != 0 || (strncmp(o, "U ", 2) && strncmp(o, "N\n", 2))) {
		*res = res_fail("authorized_key: cannot read the key file: %s", strbuf_str(&cr.err));
		rc = -1;
		goto out;
	}
	size_t l = strcspn(o, "\n");
	if (o[0] == 'U')
		strbuf_add(pw, o + 2, l - 2);
	o += l + 1;
	if (follow && !strncmp(o, "R ", 2)) {
		l = strcspn(o, "\n");
		strbuf_add(real, o + 2, l - 2);
		o += l + 1;
	}
	*isfile = !strncmp(o, "F\n", 2);
	if (*isfile) {
		o += 2;
		strbuf_add(data, o, cr.out.len - (size_t)(o - cr.out.buf));
		universal_newlines(data);
	}
out:
	conn_result_release(&cr);
	return rc;
}

/* passwd field n (0-based) of an entry, malloc'd */
static char *pw_field(const char *e, int n)
{
	for (; n > 0 && e; n--) {
		e = strchr(e, ':');
		if (e)
			e++;
	}
	return e ? xstrndup(e, strcspn(e, ":")) : xstrdup("");
}

/* The write: keyfile(write=True)'s set-up (with manage_dir, the key
 * file's directory made 0700 when missing, and owned by the user, mode
 * 0700, in any case; a missing key file made, with its directories; the
 * file owned by the user, mode 0600) and then the module's writefile:
 * the content through a temporary file moved over the key file, with the
 * mode and owner the file has. The memo's stat of path last. */
static int write_keys(struct exec_ctx *x, const char *file, const char *sshdir, const char *path,
		      const char *uid, const char *gid, bool manage_dir, const struct strbuf *content,
		      json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "f=");
	sh_quote(&c, file);
	strbuf_addstr(&c, "; d=");
	sh_quote(&c, sshdir);
	strbuf_addf(&c, "; o=%s:%s; ", uid, gid);
	if (manage_dir)
		/* os.mkdir's errors as Python words them */
		strbuf_addstr(&c, "if [ ! -e \"$d\" ]; then if ! mkdir -m 0700 -- \"$d\" 2>/dev/null; then "
				 "q=$(dirname -- \"$d\"); if [ -L \"$d\" ]; then m='[Errno 17] File exists'; "
				 "elif [ ! -e \"$q\" ]; then m='[Errno 2] No such file or directory'; "
				 "elif [ ! -d \"$q\" ]; then m='[Errno 20] Not a directory'; "
				 "else m='[Errno 13] Permission denied'; fi; "
				 "printf 'Failed to create directory %s : %s: '\\''%s'\\''' \"$d\" \"$m\" \"$d\" >&2; exit 3; fi; fi; "
				 "chown \"$o\" -- \"$d\" && chmod 0700 -- \"$d\" || exit 1; ");
	strbuf_addstr(&c, "if [ ! -e \"$f\" ]; then mkdir -p -- \"$(dirname -- \"$f\")\" && : > \"$f\" || exit 1; fi; "
			 "chown \"$o\" -- \"$f\" 2>/dev/null && chmod 0600 -- \"$f\" 2>/dev/null; "
			 "t=$(mktemp \"$(dirname -- \"$f\")/.imc_ak.XXXXXX\") || exit 1; "
			 "if cat > \"$t\" && chmod \"$(stat -L -c %a -- \"$f\")\" -- \"$t\" && "
			 "chown \"$(stat -L -c %u:%g -- \"$f\")\" -- \"$t\" && mv -f -- \"$t\" \"$f\"; then :; "
			 "else rm -f -- \"$t\"; exit 1; fi; ");
	if (path) {
		strbuf_addstr(&c, "p=");
		sh_quote(&c, path);
		strbuf_addstr(&c, "; ");
		mod_stat_memo_script(&c);
	}
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, content->buf ? content->buf : "", content->len, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc == 3) {
		*res = res_fail("%s", strbuf_str(&cr.err));
		rc = -1;
	} else if (rc == 0 && cr.rc != 0) {
		*res = res_fail("authorized_key: cannot write %s: %s", file, strbuf_str(&cr.err));
		rc = -1;
	} else if (rc == 0 && path) {
		mod_stat_memo_take(x, path, &cr.out);
	}
	conn_result_release(&cr);
	return rc;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *authkey_run(struct exec_ctx *x, json_t *args)
{
	const char *user = args_str(args, "user"), *key = args_str(args, "key");
	const char *path = args_str(args, "path"), *state = args_str(args, "state");
	const char *key_options = args_str(args, "key_options"), *comment = args_str(args, "comment");
	bool manage_dir, exclusive, validate_certs, follow, present;
	struct ak_table t = { 0 };
	struct ak_key nk = { 0 };
	struct strbuf pw = STRBUF_INIT, real = STRBUF_INIT, data = STRBUF_INIT, out = STRBUF_INIT;
	char *keyfile = NULL, *file = NULL, *sshdir = NULL, *uid = NULL, *gid = NULL;
	json_t *res = NULL, *keep = json_array();
	static const char *const paths[] = { "path", NULL };
	if (!user || !key) {
		res = res_fail("missing required arguments: %s", !user && !key ? "key, user" : !user ? "user" : "key");
		goto out;
	}
	if ((res = mod_bool_arg(args, "manage_dir", true, &manage_dir)) ||
	    (res = mod_bool_arg(args, "exclusive", false, &exclusive)) ||
	    (res = mod_bool_arg(args, "validate_certs", true, &validate_certs)) ||
	    (res = mod_bool_arg(args, "follow", false, &follow)))
		goto out;
	if (state && strcmp(state, "present") && strcmp(state, "absent")) {
		res = res_fail("value of state must be one of: absent, present, got: %s", state);
		goto out;
	}
	if ((res = mod_unexpanded("authorized_key", args, paths)))
		goto out;
	present = !state || !strcmp(state, "present");
	if (!strncmp(key, "http", 4)) {
		res = res_fail("authorized_key: a key fetched from a URL (%s) is not implemented", key);
		goto out;
	}
	bool isfile = false;
	if (look(x, user, path, follow && !x->check_mode, &pw, &real, &data, &isfile, &res) < 0)
		goto out;
	/* keyfile(): in check mode a given path is taken as it is, else the
	 * user must exist */
	if (!(x->check_mode && path)) {
		if (!pw.len) {
			if (x->check_mode)
				res = res_fail("Either user must exist or you must provide full path to key file in check mode");
			else
				res = res_fail("Failed to lookup user %s: \"getpwnam(): name not found: '%s'\"", user, user);
			goto out;
		}
		uid = pw_field(pw.buf, 2);
		gid = pw_field(pw.buf, 3);
	}
	if (path) {
		keyfile = xstrdup(path);
		sshdir = xstrndup(path, strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path) : 0);
	} else {
		char *home = pw_field(pw.buf, 5);
		sshdir = xasprintf("%s/.ssh", home);
		keyfile = xasprintf("%s/authorized_keys", sshdir);
		free(home);
	}
	if (!isfile)
		strbuf_reset(&data);
	if (parse_file(data.buf ? data.buf : "", data.len, &t) < 0) {
		res = res_module_failure();
		goto out;
	}
	bool do_write = false;
	long max_rank = (long)table_len(&t), rank = 0;
	size_t at = 0;
	for (char *line; (line = next_line(key, strlen(key), &at, false)); free(line)) {
		if (!*line || line[0] == '#')
			continue;
		int rc = parse_key(line, rank, &nk);
		if (rc < 0) {
			res = res_module_failure();
			free(line);
			goto out;
		}
		if (rc == 1) {
			res = res_fail("invalid key specified: %s", line);
			free(line);
			goto out;
		}
		rank++;
		if (key_options) {
			for (size_t i = 0; i < nk.nopts; i++) {
				free(nk.opts[i].name);
				free(nk.opts[i].value);
			}
			nk.nopts = 0;
			parse_options(&nk, key_options);
		}
		if (comment) {
			free(nk.comment);
			nk.comment = xstrdup(comment);
		}
		struct ak_key *old = table_get(&t, nk.id);
		bool matched = old && (!present || key_same(&nk, old));
		if (present) {
			json_array_append_new(keep, json_string(nk.id));
			if (old && !matched) {
				old->gone = true;
				do_write = true;
			}
			if (!matched) {
				nk.rank += max_rank;
				table_set(&t, &nk);
				memset(&nk, 0, sizeof(nk));
				do_write = true;
			}
		} else if (matched) {
			old->gone = true;
			do_write = true;
		}
		key_free(&nk);
	}
	if (present && exclusive) {
		for (size_t i = 0; i < t.n; i++) {
			if (t.v[i].gone)
				continue;
			bool kept = false;
			size_t j;
			json_t *v;
			json_array_foreach(keep, j, v)
				kept |= !strcmp(json_string_value(v), t.v[i].id);
			if (!kept) {
				t.v[i].gone = true;
				do_write = true;
			}
		}
	}
	/* keyfile(write=True): follow writes through the link */
	file = xstrdup(follow && real.len ? real.buf : keyfile);
	if (do_write) {
		serialize(&t, &out);
		if (!x->check_mode && write_keys(x, file, sshdir, path, uid, gid, manage_dir, &out, &res) < 0)
			goto out;
	}
	res = res_new(do_write);
	json_object_set_new(res, "user", json_string(user));
	json_object_set_new(res, "key", json_string(key));
	json_object_set_new(res, "path", str_or_null(path));
	json_object_set_new(res, "manage_dir", json_boolean(manage_dir));
	json_object_set_new(res, "state", json_string(present ? "present" : "absent"));
	json_object_set_new(res, "key_options", str_or_null(key_options));
	json_object_set_new(res, "exclusive", json_boolean(exclusive));
	json_object_set_new(res, "comment", str_or_null(comment));
	json_object_set_new(res, "validate_certs", json_boolean(validate_certs));
	json_object_set_new(res, "follow", json_boolean(follow));
	json_object_set_new(res, "keyfile", json_string(keyfile));
	if (do_write && mod_diff_wanted(x)) {
		json_t *diff = json_object();
		json_object_set_new(diff, "before_header", json_string(keyfile));
		json_object_set_new(diff, "after_header", json_string(file));
		json_object_set_new(diff, "before", json_stringn(data.buf ? data.buf : "", data.len));
		json_object_set_new(diff, "after", json_stringn(out.buf ? out.buf : "", out.len));
		json_object_set_new(res, "diff", diff);
	}
	if (mod_path_info(x, res) < 0) {
		json_decref(res);
		res = res_fail("authorized_key: the node went away");
	}
out:
	key_free(&nk);
	table_free(&t);
	json_decref(keep);
	strbuf_release(&pw);
	strbuf_release(&real);
	strbuf_release(&data);
	strbuf_release(&out);
	free(keyfile);
	free(file);
	free(sshdir);
	free(uid);
	free(gid);
	return res;
}

/* what run implements (module.h) */
static const char *const authorized_key_params[] = {
	"comment", "exclusive", "follow", "key", "key_options", "manage_dir", "path", "state",
	"user", "validate_certs", NULL
};

static const char *const authorized_key_node_paths[] = { "path", NULL };

const struct task_module mod_authorized_key = {
	.name = "authorized_key",
	.params = authorized_key_params,
	.run = authkey_run,
	.check_mode_native = true,
	.node_paths = authorized_key_node_paths,
};
