/* unarchive.c: the `unarchive` module as Ansible 2.14's action and
 * module: creates (skipped when it exists), dest an existing directory,
 * the archive sent from the controller (or src on the node with
 * remote_src, or downloaded there when src is a URL), the handler picked
 * in Ansible's order (unzip when it lists the archive, else GNU tar with
 * -z, none, -j, -J, zstd), then for tar: the members listed, `tar --diff`
 * read as Ansible reads it (a missing file, a differing mode, mtime,
 * owner or group when not set by the task) and the archive extracted only
 * when something differs, so a second run is unchanged; mode/owner/group
 * applied to every member and top directory. The result holds handler,
 * dest, src, changed, extract_results {cmd, rc, out, err} when extracted,
 * files with list_files, and dest's path information.
 * Check mode is native where Ansible's is: with a tar archive Ansible's
 * module exits skipped ("does not support check mode when using gtar")
 * and so does this one, nothing extracted. A zip archive is compared
 * member by member as Ansible's ZipArchive does (zipinfo -T -s: type,
 * size, mtime, CRC32, mode, owner and group of each member in dest) and
 * extracted with unzip -o only when one differs; in check mode that
 * comparison is the result. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Ansible's AnsibleActionSkip: skipped, not changed, msg the reason */
static json_t *skipped(const char *msg)
{
	json_t *res = res_new(false);
	json_object_set_new(res, "skipped", json_true());
	json_object_set_new(res, "msg", json_string(msg));
	return res;
}

/* whether a `tar --diff` line says the tree differs, as Ansible's
 * is_unarchived reads it (root: owner and group unless the task sets
 * them; mode unless the task sets it) */
static bool diff_line_counts(const char *l, size_t n, bool root, bool owner, bool group, bool mode)
{
#define ENDS(s) (n >= sizeof(s) - 1 && !memcmp(l + n - (sizeof(s) - 1), s, sizeof(s) - 1))
	if (ENDS(": : Warning: Cannot stat: No such file or directory"))
		return false;
	if ((root && !owner && ENDS(": Uid differs")) || (root && !group && ENDS(": Gid differs")) ||
	    (!mode && ENDS(": Mode differs")) || ENDS(": Mod time differs") ||
	    ENDS(": Warning: Cannot stat: No such file or directory"))
		return true;
#undef ENDS
	char *s = xstrndup(l, n);
	bool r = strstr(s, ": Invalid owner") || strstr(s, ": Invalid group");
	free(s);
	return r;
}

/* the tar options Ansible passes after -C DEST: the compression flag,
 * extra_opts (after --show-transformed-names), --owner/--group for
 * --diff and --extract, --keep-newer-files, the excludes; in argv as
 * JSON strings and in sh as quoted words */
static void tar_opts(json_t *argv, struct strbuf *sh, const char *zflag, json_t *opts, json_t *args,
		     bool attrs, json_t *excludes)
{
	json_t *words = json_array();
	if (*zflag)
		json_array_append_new(words, json_string(zflag));
	if (json_array_size(opts)) {
		json_array_append_new(words, json_string("--show-transformed-names"));
		json_array_extend(words, opts);
	}
	if (attrs) {
		const char *o = args_str(args, "owner"), *g = args_str(args, "group");
		if (o && *o)
			json_array_append_new(words, json_sprintf("--owner=%s", o));
		if (g && *g)
			json_array_append_new(words, json_sprintf("--group=%s", g));
		if (args_bool(json_object_get(args, "keep_newer"), false))
			json_array_append_new(words, json_string("--keep-newer-files"));
	}
	size_t i;
	json_t *e;
	json_array_foreach(excludes, i, e)
		json_array_append_new(words, json_sprintf("--exclude=%s", json_string_value(e)));
	json_array_foreach(words, i, e) {
		if (argv)
			json_array_append(argv, e);
		strbuf_addch(sh, ' ');
		sh_quote(sh, json_string_value(e));
	}
	json_decref(words);
}

/* The zip handler's look at dest, in the first script (cwd dest, $T the
 * temporary directory, $s the archive): what Ansible's
 * ZipArchive.is_unarchived reads, printed for zip_unarchived: the node's
 * uid, umask, user and group (ZU, ZM, ZRO, ZRG), the task's owner and
 * group resolved (ZFO, ZFG: "name:id"), the members (ZN, unzip -Z1) and
 * their CRCs (ZV, unzip -v), zipinfo -T -s's status (ZR) and lines (ZI),
 * each line followed by its dest entry's lstat (ZS, or "-" when missing),
 * the CRC32 of a regular file (ZC: gzip's trailer, four bytes), the mode
 * a symbolic mode gives it (ZX) and the member's time as the node's
 * local time reads it (ZW, seconds). */
static void zip_probe(struct strbuf *c, json_t *args, json_t *zex, json_t *include)
{
	const char *o = args_str(args, "owner"), *g = args_str(args, "group");
	json_t *m = json_object_get(args, "mode");
	const char *ms = json_string_value(m);
	bool symbolic = ms && *ms && strspn(ms, "01234567") != strlen(ms);
	size_t i;
	json_t *e;
	strbuf_addstr(c, "echo \"ZU=$(id -u)\"; echo \"ZM=$(umask)\"; echo \"ZRO=$(id -un):$(id -u)\"; "
			 "echo \"ZRG=$(id -gn):$(id -g)\"; ");
	if (o && *o) {
		strbuf_addstr(c, "echo \"ZFO=$(getent passwd ");
		sh_quote(c, o);
		strbuf_addstr(c, " | head -n 1 | cut -d: -f1,3)\"; ");
	}
	if (g && *g) {
		strbuf_addstr(c, "echo \"ZFG=$(getent group ");
		sh_quote(c, g);
		strbuf_addstr(c, " | head -n 1 | cut -d: -f1,3)\"; ");
	}
	strbuf_addstr(c, "unzip -Z1 \"$s\" 2>/dev/null | sed 's/^/ZN=/'; unzip -v \"$s\" 2>/dev/null | sed 's/^/ZV=/'; "
			 "zipinfo -T -s \"$s\"");
	if (json_array_size(zex)) {
		strbuf_addstr(c, " -x");
		json_array_foreach(zex, i, e) {
			strbuf_addch(c, ' ');
			sh_quote(c, json_string_value(e));
		}
	}
	json_array_foreach(include, i, e) {
		strbuf_addch(c, ' ');
		sh_quote(c, json_string_value(e));
	}
	strbuf_addstr(c, " > \"$T/zi\" 2>/dev/null; echo \"ZR=$?\"; "
			 "while IFS= read -r l; do printf 'ZI=%s\\n' \"$l\"; "
			 "n=$(printf '%s\\n' \"$l\" | sed -E 's/^[[:space:]]*([^[:space:]]+[[:space:]]+){7}//'); "
			 "f=\"$d/$n\"; if st=$(stat -c '%f %s %Y %u %g %U %G' -- \"$f\" 2>/dev/null); then "
			 "echo \"ZS=$st\"; if [ -f \"$f\" ] && [ ! -L \"$f\" ]; then "
			 "echo \"ZC=$(gzip -c < \"$f\" | tail -c 8 | od -An -tu1 -N4)\"; fi; ");
	if (symbolic) {
		strbuf_addstr(c, "t=$(mktemp \"$T/m.XXXXXX\") && chmod \"$(stat -c %a -- \"$f\")\" \"$t\" && chmod ");
		sh_quote(c, ms);
		strbuf_addstr(c, " \"$t\" 2>/dev/null && echo \"ZX=$(stat -c %a \"$t\")\"; rm -f \"$t\"; ");
	}
	strbuf_addstr(c, "else echo ZS=-; fi; w=$(printf '%s\\n' \"$l\" | awk '{print $7}' | "
			 "sed -E 's/^(....)(..)(..)\\.(..)(..)(..)$/\\1-\\2-\\3 \\4:\\5:\\6/'); "
			 "echo \"ZW=$(date -d \"$w\" +%s 2>/dev/null)\"; done < \"$T/zi\"; ");
}

/* "KEY=" lines of out, one after another: the value of the next one
 * from *at (malloc'd), NULL at the end; stops (NULL) at a line of stop */
static char *zline(const char *out, size_t *at, const char *key, const char *stop)
{
	size_t kl = strlen(key), sl = stop ? strlen(stop) : 0;
	while (out[*at]) {
		const char *l = out + *at;
		size_t n = strcspn(l, "\n");
		if (stop && *at && n >= sl && !strncmp(l, stop, sl))
			return NULL;
		*at += n + (l[n] == '\n');
		if (n >= kl && !strncmp(l, key, kl))
			return xstrndup(l + kl, n - kl);
	}
	return NULL;
}

/* the value of the first "KEY=" line (malloc'd, "" when none) */
static char *zval(const char *out, const char *key)
{
	size_t at = 0;
	char *v = zline(out, &at, key, NULL);
	return v ? v : xstrdup("");
}

/* ZipArchive._permstr_to_octal: the bits of rwx-like letters, less umask */
static long permstr_mode(const char *p, long umask)
{
	long m = 0;
	for (int k = 0; k < 9; k++)
		if (strchr("rwxst", p[8 - k]))
			m |= 1L << k;
	return m & ~umask;
}

/* Python's str.split(None, 7): up to eight fields, the last one the rest (malloc'd) */
static size_t split8(const char *p, char *f[8])
{
	size_t n = 0;
	while (n < 8) {
		p += strspn(p, " \t\n\r\f\v");
		if (!*p)
			break;
		size_t l = n == 7 ? strlen(p) : strcspn(p, " \t\n\r\f\v");
		f[n++] = xstrndup(p, l);
		p += l;
	}
	return n;
}

/* "name:id" of zip_probe's ZRO/ZRG/ZFO/ZFG line into name and id; false when empty */
static bool name_id(const char *v, char name[64], long *id)
{
	const char *colon = strrchr(v, ':');
	if (!*v || !colon)
		return false;
	snprintf(name, 64, "%.*s", (int)(colon - v), v);
	*id = strtol(colon + 1, NULL, 10);
	return true;
}

/* The mode the task's mode argument asks of a member (its symbolic form
 * as the node computed it, zx), or -1 when there is none */
static long task_mode(json_t *m, const char *zx)
{
	if (!m || json_is_null(m))
		return -1;
	if (json_is_integer(m))
		return (long)json_integer_value(m);
	const char *s = json_string_value(m);
	if (!s || !*s)
		return -1;
	if (strspn(s, "01234567") == strlen(s))
		return strtol(s, NULL, 8);
	return zx ? strtol(zx, NULL, 8) : -1;
}

/* The first comma-separated part of a symbolic mode that Ansible's
 * _symbolic_mode_to_octal rejects (it matches each against
 * ^[ugoa]*[-+=]([rwxXst]*|[ugo])$), or NULL when every part is good. */
static char *bad_symbolic_part(const char *mode)
{
	for (const char *p = mode;;) {
		size_t n = strcspn(p, ",");
		const char *q = p + strspn(p, "ugoa");
		bool ok = q < p + n && strchr("-+=", *q);
		if (ok) {
			const char *perms = q + 1;
			size_t np = (size_t)(p + n - perms);
			size_t good = strspn(perms, "rwxXst");
			ok = good >= np || (np == 1 && strchr("ugo", *perms));
		}
		if (!ok)
			return xstrndup(p, n);
		if (!p[n])
			return NULL;
		p += n + 1;
	}
}

/* Ansible's ZipArchive.is_unarchived over zip_probe's output: 1 when
 * every member is in dest as the archive has it (type, size, mtime,
 * CRC32, mode, owner, group), 0 when one is not, -1 with *res the
 * module's failure (a permission string it cannot read: Ansible's
 * uncaught UnarchiveError). With keep_newer, a member older than its
 * file in dest is appended to zex (left out of the extraction and of the
 * member list, as Ansible's excludes are). */
static int zip_unarchived(const char *out, json_t *args, json_t *zex, bool keep_newer, json_t **res)
{
	char *v = zval(out, "ZR=");
	int unarchived = !strcmp(v, "0");
	bool includes = false;
	free(v);
	v = zval(out, "ZM=");
	long umask = strtol(v, NULL, 8);
	free(v);
	char run_owner[64] = "", run_group[64] = "", fut_owner[64], fut_group[64];
	long run_uid = 0, run_gid = 0, fut_uid, fut_gid;
	v = zval(out, "ZRO=");
	name_id(v, run_owner, &run_uid);
	free(v);
	v = zval(out, "ZRG=");
	name_id(v, run_group, &run_gid);
	free(v);
	/* an owner or group the node does not know is the running one's */
	v = zval(out, "ZFO=");
	if (!name_id(v, fut_owner, &fut_uid))
		snprintf(fut_owner, sizeof(fut_owner), "%s", run_owner), fut_uid = run_uid;
	free(v);
	v = zval(out, "ZFG=");
	if (!name_id(v, fut_group, &fut_gid))
		snprintf(fut_group, sizeof(fut_group), "%s", run_group), fut_gid = run_gid;
	free(v);
	/* the members' CRCs: unzip -v's lines but the first three and last two */
	json_t *crcs = json_object(), *vl = json_array();
	size_t at = 0;
	for (char *l; (l = zline(out, &at, "ZV=", NULL));)
		json_array_append_new(vl, json_string(l)), free(l);
	for (size_t k = 3; k + 2 < json_array_size(vl); k++) {
		char *f[8];
		size_t nf = split8(json_string_value(json_array_get(vl, k)), f);
		if (nf == 8)
			json_object_set_new(crcs, f[7], json_integer(strtol(f[6], NULL, 16)));
		for (size_t q = 0; q < nf; q++)
			free(f[q]);
	}
	json_decref(vl);
	int rc = 0;
	at = 0;
	for (char *line; (line = zline(out, &at, "ZI=", NULL)); free(line)) {
		/* what follows this line, up to the next one */
		size_t rec = at;
		char *st = zline(out, &rec, "ZS=", "ZI=");
		rec = at;
		char *crc = zline(out, &rec, "ZC=", "ZI=");
		rec = at;
		char *zx = zline(out, &rec, "ZX=", "ZI=");
		rec = at;
		char *zw = zline(out, &rec, "ZW=", "ZI=");
		char *pcs[8] = { 0 };
		size_t np = split8(line, pcs);
		bool change = false, skip = np != 8;
		skip = skip || (strlen(pcs[0]) != 7 && strlen(pcs[0]) != 10) || strlen(pcs[6]) != 15 ||
		       !strchr("dl-?", pcs[0][0]) || !pcs[0][0] || strspn(pcs[0] + 1, "rwxstah-") != strlen(pcs[0] + 1);
		size_t k;
		json_t *e;
		json_array_foreach(zex, k, e)
			skip = skip || !strcmp(json_string_value(e), pcs[7]);
		if (skip)
			goto next;
		char ztype = pcs[0][0], ftype = 'f';
		const char *path = pcs[7];
		bool isdir_name = path[strlen(path) - 1] == '/';
		if (isdir_name)
			ftype = 'd';
		else if (ztype == 'l')
			ftype = 'L';
		char perm[10];
		long file_umask = 0;
		if (strlen(pcs[0]) == 7) {
			snprintf(perm, sizeof(perm), "%s", isdir_name || !strcmp(pcs[0] + 1, "rwx---") ? "rwxrwxrwx" : "rw-rw-rw-");
			file_umask = umask;
		} else {
			snprintf(perm, sizeof(perm), "%s", pcs[0] + 1);
		}
		for (int q = 0; q < 9; q++)
			if (!strchr(q % 3 == 0 ? "r-" : q % 3 == 1 ? "w-" : "SsTtx-", perm[q])) {
				*res = res_module_failure();
				rc = -1;
				goto next;
			}
		if (!st || !strcmp(st, "-")) {
			includes = true;
			goto next;
		}
		unsigned long rawmode = 0;
		long size = 0, mtime = 0, uid = 0, gid = 0;
		char owner[64] = "", group[64] = "";
		sscanf(st, "%lx %ld %ld %ld %ld %63s %63s", &rawmode, &size, &mtime, &uid, &gid, owner, group);
		unsigned long fmt = rawmode & 0170000;
		bool isreg = fmt == 0100000, isdir = fmt == 0040000, islnk = fmt == 0120000;
		if ((ftype == 'd' && !isdir) || (ftype == 'f' && !isreg) || (ftype == 'L' && !islnk)) {
			includes = true;
			if (ftype == 'f')
				unarchived = 0;
			goto next;
		}
		long stamp = zw && *zw ? strtol(zw, NULL, 10) : -1;
		if (isreg) {
			if (keep_newer) {
				if (stamp > mtime) {
					change = true;
				} else if (stamp < mtime) {
					json_array_append_new(zex, json_string(path));
					goto next;
				}
			} else if (stamp != mtime) {
				change = true;
			}
			if (strtol(pcs[3], NULL, 10) != size)
				change = true;
			unsigned b[4] = { 0 };
			long want = json_integer_value(json_object_get(crcs, path));
			if (!crc || sscanf(crc, "%u %u %u %u", &b[0], &b[1], &b[2], &b[3]) != 4 ||
			    (long)(b[0] | b[1] << 8 | b[2] << 16 | (unsigned long)b[3] << 24) != want)
				change = true;
		}
		if (ftype != 'L') {
			/* a symbolic mode it cannot read fails the module on the
			 * first member already in dest, named as in the archive */
			const char *ms = json_string_value(json_object_get(args, "mode"));
			char *bad = ms && *ms && strspn(ms, "01234567") != strlen(ms) ? bad_symbolic_part(ms) : NULL;
			if (bad) {
				*res = res_fail("bad symbolic permission for mode: %s", bad);
				json_object_set_new(*res, "path", json_string(path));
				free(bad);
				rc = -1;
				goto next;
			}
			long mode = task_mode(json_object_get(args, "mode"), zx);
			if (mode < 0)
				mode = permstr_mode(perm, ztype == '?' ? 0 : file_umask);
			if (mode != (long)(rawmode & 07777))
				change = true;
		}
		/* stat says UNKNOWN for an id without a name: the ids compared */
		if (strcmp(owner, "UNKNOWN") ? strcmp(owner, fut_owner) != 0 : uid != fut_uid)
			change = true;
		if (strcmp(group, "UNKNOWN") ? strcmp(group, fut_group) != 0 : gid != fut_gid)
			change = true;
		includes = includes || change;
next:
		for (size_t q = 0; q < np; q++)
			free(pcs[q]);
		free(st);
		free(crc);
		free(zx);
		free(zw);
		if (rc < 0) {
			free(line);
			break;
		}
	}
	json_decref(crcs);
	if (rc < 0)
		return -1;
	return unarchived && !includes;
}

static json_t *unarchive_run(struct exec_ctx *x, json_t *args)
{
	if (json_object_get(args, "copy") && json_object_get(args, "remote_src"))
		return res_fail("parameters are mutually exclusive: ('copy', 'remote_src')");
	const char *src = args_str(args, "src");
	const char *dest = args_str(args, "dest");
	if (!src || !dest)
		return res_fail("src (or content) and dest are required");
	const char *const excl[] = { "include", "exclude", NULL };
	json_t *res = mod_exclusive(args, excl);
	if (res)
		return res;
	bool remote;
	if ((res = mod_bool_arg(args, "remote_src", false, &remote)))
		return res;
	if (json_object_get(args, "copy")) {
		bool copy;
		if ((res = mod_bool_arg(args, "copy", true, &copy)))
			return res;
		remote = !copy;
	}
	bool list_files;
	if ((res = mod_bool_arg(args, "list_files", false, &list_files)))
		return res;
	/* src on the node is one of the module's paths (node_paths); on the
	 * controller, mod_find_src expands it there */
	static const char *const src_key[] = { "src", NULL };
	if (remote && mod_expand_paths(x, args, src_key, &res) < 0)
		return res;
	src = args_str(args, "src");
	const char *const paths[] = { "dest", "creates", remote ? "src" : NULL, NULL };
	if ((res = mod_unexpanded("unarchive", args, paths)))
		return res;
	const char *creates = args_str(args, "creates");
	struct node_stat st;
	if (creates) {
		if (mod_stat(x, creates, true, false, &st, &res) < 0)
			return res;
		if (st.exists) {
			char *m = xasprintf("skipped, since %s exists", creates);
			res = skipped(m);
			free(m);
			return res;
		}
	}
	if (mod_stat(x, dest, true, false, &st, &res) < 0)
		return res;
	if (!st.exists || !st.isdir)
		return res_fail("dest '%s' must be an existing dir", dest);
	bool is_url = remote && strstr(src, "://");
	struct strbuf data = STRBUF_INIT;
	struct strbuf c = STRBUF_INIT;
	struct strbuf topt = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *opts = mod_list(json_object_get(args, "extra_opts"));
	json_t *exclude = json_array(), *include = mod_list(json_object_get(args, "include"));
	json_t *files = json_array(), *reasons = json_array();
	json_t *argv = NULL;
	char *tmp = NULL, *node_src = NULL, *handler = NULL, *zflag = NULL, *tar = NULL;
	/* Ansible strips the excludes' trailing '/' for tar */
	json_t *ex0 = mod_list(json_object_get(args, "exclude"));
	/* the zip handler takes them as given, and adds to them (keep_newer) */
	json_t *zex = json_deep_copy(ex0);
	size_t i;
	json_t *e;
	json_array_foreach(ex0, i, e) {
		const char *s = json_string_value(e);
		size_t n = strlen(s);
		while (n && s[n - 1] == '/')
			n--;
		json_array_append_new(exclude, json_stringn(s, n));
	}
	json_decref(ex0);
	if (!remote) {
		char *path = mod_find_src(x, "files", src);
		if (!path || mod_read_src(path, &data, &res) < 0) {
			free(path);
			if (!res)
				res = res_fail("Could not find or access '%s' on the Ansible Controller.", src);
			goto out;
		}
		free(path);
	}
	/* one script: the archive put in place, Ansible's module checks, the
	 * handler, the member list and tar --diff */
	strbuf_addstr(&c, "d=");
	sh_quote(&c, dest);
	strbuf_addstr(&c, "; T=$(mktemp -d \"${TMPDIR:-/tmp}/.imc_ar.XXXXXX\") || exit 1; echo \"T=$T\"; ");
	if (!remote)
		strbuf_addstr(&c, "s=\"$T/source\"; cat > \"$s\" || exit 1; ");
	else if (is_url) {
		strbuf_addstr(&c, "u=");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; s=\"$T/${u##*/}\"; if command -v curl >/dev/null 2>&1; then e=$(curl -fsSL -o \"$s\" \"$u\" 2>&1); "
				  "else e=$(wget -q -O \"$s\" \"$u\" 2>&1); fi || { echo \"E=Failure downloading $u, $e\"; exit 0; }; ");
	} else {
		strbuf_addstr(&c, "s=");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; [ -e \"$s\" ] || { echo \"E=Source '$s' does not exist\"; exit 0; }; ");
	}
	strbuf_addstr(&c, "echo \"S=$s\"; [ -r \"$s\" ] || { echo \"E=Source '$s' not readable\"; exit 0; }; "
			  "[ -s \"$s\" ] || { echo \"E=Invalid archive '$s', the file is 0 bytes\"; exit 0; }; "
			  "[ -d \"$d\" ] || { echo \"E=Destination '$d' is not a directory\"; exit 0; }; "
			  "cd \"$d\" || exit 1; export LANG=C LC_ALL=C LC_MESSAGES=C LANGUAGE=C; "
			  /* rs: a handler's reason for not handling the archive
			   * (Y= lines, then Y- when it ends in a newline, else Y.) */
			  "rs() { sed 's/^/Y=/' \"$1\"; if [ -n \"$(tail -c 1 \"$1\")\" ]; then echo Y.; else echo Y-; fi; }; "
			  "zu=$(command -v unzip); zi=$(command -v zipinfo); if [ -n \"$zu\" ] && [ -n \"$zi\" ]; then "
			  "if unzip -l \"$s\" >/dev/null 2>\"$T/ze\"; then echo H=ZipArchive; ");
	zip_probe(&c, args, zex, include);
	strbuf_addstr(&c, "exit 0; fi; { printf 'Command \"%s\" could not handle archive: ' \"$zu\"; cat \"$T/ze\"; } > \"$T/r\"; "
			  "else m=; [ -n \"$zu\" ] || m=unzip; [ -n \"$zi\" ] || m=\"${m:+$m\' or \'}zipinfo\"; "
			  "printf \"Unable to find required '%s' binary in the path.\" \"$m\" > \"$T/r\"; fi; rs \"$T/r\"; ");
	if (x->check_mode) {
		/* Ansible's TgzArchive exits skipped in check mode */
		strbuf_addstr(&c, "echo H=check; exit 0");
	} else {
		strbuf_addstr(&c, "P=$(command -v gtar || command -v tar) || { printf \"Unable to find required 'gtar' or 'tar' "
				  "binary in the path\" > \"$T/r\"; rs \"$T/r\"; echo H=; exit 0; }; "
				  "case \"$(\"$P\" --version 2>/dev/null)\" in tar*GNU*) ty=;; bsdtar*) ty=bsd;; *) ty=None;; esac; "
				  "if [ -n \"$ty\" ]; then printf 'Command \"%s\" detected as tar type %s. GNU tar required.' \"$P\" \"$ty\" "
				  "> \"$T/r\"; rs \"$T/r\"; echo H=; exit 0; fi; echo \"P=$P\"; "
				  "for z in -z '' -j -J --use-compress-program=zstd; do "
				  "if \"$P\" --list -C \"$d\" $z");
		tar_opts(NULL, &c, "", opts, args, false, exclude);
		strbuf_addstr(&c, " -f \"$s\"");
		json_array_foreach(include, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e));
		}
		strbuf_addstr(&c, " > \"$T/tl\" 2>\"$T/te\"; then if [ -s \"$T/tl\" ]; then echo \"Z=$z\"; echo \"U=$(id -u)\"; "
				  "sed 's/^/L=/' \"$T/tl\"; \"$P\" --diff -C \"$d\" $z");
		tar_opts(NULL, &c, "", opts, args, true, exclude);
		strbuf_addstr(&c, " -f \"$s\"");
		json_array_foreach(include, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e));
		}
		strbuf_addstr(&c, " 2>&1 | sed 's/^/D=/'; echo H=tar; exit 0; fi; "
				  "printf 'Command \"%s\" found no files in archive. Empty archive files are not supported.' \"$P\" > \"$T/r\"; "
				  "else { printf 'Command \"%s\" could not handle archive: Unable to list files in the archive: ' \"$P\"; "
				  "cat \"$T/te\"; } > \"$T/r\"; fi; rs \"$T/r\"; done; echo H=; exit 0");
	}
	if (mod_sh(x, c.buf, data.buf, data.len, &cr, &res) < 0)
		goto out;
	bool uid0 = false, differs = false;
	bool owner = args_str(args, "owner") && *args_str(args, "owner");
	bool group = args_str(args, "group") && *args_str(args, "group");
	bool mode = json_object_get(args, "mode") && !json_is_null(json_object_get(args, "mode"));
	const char *err_msg = NULL;
	struct strbuf reason = STRBUF_INIT;
	bool reason_open = false;
	for (const char *l = strbuf_str(&cr.out); *l; ) {
		size_t n = strcspn(l, "\n");
		if (!strncmp(l, "T=", 2))
			tmp = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "S=", 2))
			node_src = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "E=", 2) && !err_msg)
			err_msg = l + 2;
		else if (!strncmp(l, "Y=", 2))
			strbuf_addf(&reason, "%s%.*s", reason_open ? "\n" : "", (int)n - 2, l + 2), reason_open = true;
		else if (n == 2 && (!strncmp(l, "Y-", 2) || !strncmp(l, "Y.", 2))) {
			/* Ansible keeps its handlers' reasons in a set: each once */
			if (l[1] == '-')
				strbuf_addch(&reason, '\n');
			json_t *r = json_string(strbuf_str(&reason));
			bool seen = false;
			json_array_foreach(reasons, i, e)
				seen = seen || json_equal(e, r);
			if (!seen)
				json_array_append(reasons, r);
			json_decref(r);
			strbuf_reset(&reason);
			reason_open = false;
		} else if (!strncmp(l, "H=", 2))
			handler = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "Z=", 2))
			zflag = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "P=", 2))
			tar = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "U=", 2))
			uid0 = l[2] == '0' && n == 3;
		else if (!strncmp(l, "L=", 2)) {
			/* absolute names are taken relative to dest; excluded
			 * ones left out (Python's fnmatch) */
			const char *f = l + 2;
			size_t fl = n - 2;
			if (fl && *f == '/')
				f++, fl--;
			char *name = xstrndup(f, fl);
			bool skip = false;
			json_array_foreach(exclude, i, e)
				skip = skip || !fnmatch(json_string_value(e), name, 0);
			if (!skip)
				json_array_append_new(files, json_string(name));
			free(name);
		} else if (!strncmp(l, "D=", 2))
			differs = differs || diff_line_counts(l + 2, n - 2, uid0, owner, group, mode);
		l += n;
		if (*l)
			l++;
	}
	strbuf_release(&reason);
	if (cr.rc != 0) {
		res = res_fail("%s", cr.err.len ? strbuf_str(&cr.err) : "unarchive failed");
		goto out;
	}
	if (err_msg) {
		res = res_fail("%.*s", (int)strcspn(err_msg, "\n"), err_msg);
		goto out;
	}
	if (handler && !strcmp(handler, "check")) {
		res = skipped("remote module (ansible.legacy.unarchive) does not support check mode when using gtar");
		goto out;
	}
	int zip_done = -1;
	if (handler && !strcmp(handler, "ZipArchive")) {
		bool keep_newer;
		if ((res = mod_bool_arg(args, "keep_newer", false, &keep_newer)))
			goto out;
		zip_done = zip_unarchived(strbuf_str(&cr.out), args, zex, keep_newer, &res);
		if (zip_done < 0)
			goto out;
		/* the members (Python's namelist) less the excludes, by fnmatch */
		size_t at = 0;
		for (char *n; (n = zline(strbuf_str(&cr.out), &at, "ZN=", NULL)); free(n)) {
			bool skip = false;
			json_array_foreach(zex, i, e)
				skip = skip || !fnmatch(json_string_value(e), n, 0);
			if (!skip)
				json_array_append_new(files, json_string(n));
		}
	}
	if (!handler || !*handler) {
		struct strbuf m = STRBUF_INIT;
		json_array_foreach(reasons, i, e)
			strbuf_addf(&m, "%s%s", i ? "\n" : "", json_string_value(e));
		res = res_fail("Failed to find handler for \"%s\". Make sure the required command to extract the "
			       "file is installed.\n%s", node_src ? node_src : src, strbuf_str(&m));
		strbuf_release(&m);
		goto out;
	}
	res = json_object();
	bool changed = false;
	struct conn_result xr;
	conn_result_init(&xr);
	strbuf_reset(&c);
	strbuf_addstr(&c, "cd ");
	sh_quote(&c, dest);
	strbuf_addstr(&c, " && export LANG=C LC_ALL=C LC_MESSAGES=C LANGUAGE=C && ");
	argv = json_array();
	if (!strcmp(handler, "ZipArchive")) {
		free(handler);
		handler = xstrdup("ZipArchive");
		json_array_append_new(argv, json_string("unzip"));
		json_array_append_new(argv, json_string("-o"));
		json_array_extend(argv, opts);
		json_array_append_new(argv, json_string(node_src));
		if (json_array_size(zex)) {
			json_array_append_new(argv, json_string("-x"));
			json_array_extend(argv, zex);
		}
		json_array_extend(argv, include);
		json_array_append_new(argv, json_string("-d"));
		json_array_append_new(argv, json_string(dest));
		differs = !zip_done;
	} else {
		static const char *const names[][2] = {
			{ "-z", "TgzArchive" }, { "", "TarArchive" }, { "-j", "TarBzipArchive" },
			{ "-J", "TarXzArchive" }, { "--use-compress-program=zstd", "TarZstdArchive" },
		};
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (zflag && !strcmp(zflag, names[k][0])) {
				free(handler);
				handler = xstrdup(names[k][1]);
			}
		json_array_append_new(argv, json_string(tar));
		json_array_append_new(argv, json_string("--extract"));
		json_array_append_new(argv, json_string("-C"));
		json_array_append_new(argv, json_string(dest));
		tar_opts(argv, &topt, zflag ? zflag : "", opts, args, true, exclude);
		json_array_append_new(argv, json_string("-f"));
		json_array_append_new(argv, json_string(node_src));
		json_array_extend(argv, include);
	}
	json_array_foreach(argv, i, e) {
		if (i)
			strbuf_addch(&c, ' ');
		sh_quote(&c, json_string_value(e));
	}
	json_object_set_new(res, "handler", json_string(handler));
	json_object_set_new(res, "dest", json_string(dest));
	json_object_set_new(res, "src", json_string(node_src));
	if (x->check_mode) {
		/* zip only (tar skipped above): what is_unarchived found,
		 * nothing extracted, no attribute applied */
		changed = !zip_done;
		conn_result_release(&xr);
		goto result;
	}
	if (differs) {
		if (mod_sh(x, c.buf, NULL, 0, &xr, &res) < 0) {
			conn_result_release(&xr);
			goto out;
		}
		json_t *er = json_pack("{s:O,s:i,s:s,s:s}", "cmd", argv, "rc", xr.rc, "out", strbuf_str(&xr.out),
				       "err", strbuf_str(&xr.err));
		json_object_set_new(res, "extract_results", er);
		if (xr.rc != 0) {
			json_object_set_new(res, "failed", json_true());
			json_object_set_new(res, "changed", json_false());
			json_object_set_new(res, "msg", json_sprintf("failed to unpack %s to %s", node_src, dest));
			conn_result_release(&xr);
			goto out;
		}
		changed = true;
	}
	conn_result_release(&xr);
	if (owner || group || mode) {
		/* every member, then each top directory, as Ansible's
		 * set_fs_attributes_if_different */
		json_t *members = json_array(), *tops = json_array();
		json_array_foreach(files, i, e) {
			const char *f = json_string_value(e);
			json_array_append_new(members, json_sprintf("%s/%s", dest, f));
			const char *sl = strchr(f, '/');
			json_t *top = sl ? json_sprintf("%s/%.*s", dest, (int)(sl - f), f) : NULL;
			size_t j;
			json_t *t;
			json_array_foreach(tops, j, t)
				if (top && json_equal(t, top))
					json_decref(top), top = NULL;
			if (top)
				json_array_append_new(tops, top);
		}
		json_array_extend(members, tops);
		json_decref(tops);
		json_array_foreach(members, i, e) {
			json_t *fr = NULL;
			if (mod_attrs(x, json_string_value(e), args, &changed, &fr) < 0) {
				json_decref(res);
				json_decref(members);
				res = fr;
				goto out;
			}
		}
		json_decref(members);
	}
result:
	json_object_set_new(res, "changed", json_boolean(changed));
	if (list_files)
		json_object_set(res, "files", files);
	/* unreachable now: the result stays without dest's information */
	mod_path_info(x, res);
out:
	if (tmp) {
		/* Ansible removes its temporary directory, the archive with it */
		strbuf_reset(&c);
		strbuf_addstr(&c, "rm -rf ");
		sh_quote(&c, tmp);
		struct conn_result rr;
		conn_result_init(&rr);
		json_t *ignored = NULL;
		mod_sh(x, c.buf, NULL, 0, &rr, &ignored);
		json_decref(ignored);
		conn_result_release(&rr);
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	strbuf_release(&topt);
	strbuf_release(&data);
	json_decref(opts);
	json_decref(exclude);
	json_decref(zex);
	json_decref(reasons);
	json_decref(include);
	json_decref(files);
	json_decref(argv);
	free(tmp);
	free(node_src);
	free(handler);
	free(zflag);
	free(tar);
	return res;
}

/* what run implements (module.h) */
static const char *const unarchive_params[] = {
	"copy", "creates", "dest", "exclude", "extra_opts", "group", "include", "keep_newer",
	"list_files", "mode", "owner", "remote_src", "src", "unsafe_writes", NULL
};

static const char *const unarchive_home_paths[] = { "dest", "creates", NULL };
static const char *const unarchive_node_paths[] = { "dest", "creates", NULL };

const struct task_module mod_unarchive = {
	.name = "unarchive",
	.params = unarchive_params,
	.check_mode_native = true,
	.run = unarchive_run,
	.node_paths = unarchive_node_paths, .action_home_paths = unarchive_home_paths,
};
