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
 * and so does this one, nothing extracted; a zip archive in check mode
 * (Ansible compares every member) goes to Ansible.
 * NEEDSWORK: a zip archive out of check mode is extracted and reported
 * changed every time (Ansible's module compares the members first). */
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
	const char *const paths[] = { "src", "dest", "creates", NULL };
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
	json_t *files = json_array();
	json_t *argv = NULL;
	char *tmp = NULL, *node_src = NULL, *handler = NULL, *zflag = NULL, *tar = NULL;
	/* Ansible strips the excludes' trailing '/' for tar */
	json_t *ex0 = mod_list(json_object_get(args, "exclude"));
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
	strbuf_addstr(&c, "; T=$(mktemp -d /tmp/.imc_ar.XXXXXX) || exit 1; echo \"T=$T\"; ");
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
			  "if command -v unzip >/dev/null 2>&1 && unzip -l \"$s\" >/dev/null 2>&1; then echo H=ZipArchive; exit 0; fi; ");
	if (x->check_mode) {
		/* Ansible's TgzArchive exits skipped in check mode */
		strbuf_addstr(&c, "echo H=check; exit 0");
	} else {
		strbuf_addstr(&c, "P=$(command -v gtar || command -v tar) || { echo H=; exit 0; }; "
				  "case \"$(\"$P\" --version 2>/dev/null)\" in tar*GNU*) ;; *) echo H=; exit 0;; esac; echo \"P=$P\"; "
				  "for z in -z '' -j -J --use-compress-program=zstd; do "
				  "if l=$(\"$P\" --list -C \"$d\" $z");
		tar_opts(NULL, &c, "", opts, args, false, exclude);
		strbuf_addstr(&c, " -f \"$s\"");
		json_array_foreach(include, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e));
		}
		strbuf_addstr(&c, " 2>/dev/null) && [ -n \"$l\" ]; then echo \"Z=$z\"; echo \"U=$(id -u)\"; printf '%s\\n' \"$l\" | sed 's/^/L=/'; "
				  "\"$P\" --diff -C \"$d\" $z");
		tar_opts(NULL, &c, "", opts, args, true, exclude);
		strbuf_addstr(&c, " -f \"$s\"");
		json_array_foreach(include, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e));
		}
		strbuf_addstr(&c, " 2>&1 | sed 's/^/D=/'; echo H=tar; exit 0; fi; done; echo H=; exit 0");
	}
	if (mod_sh(x, c.buf, data.buf, data.len, &cr, &res) < 0)
		goto out;
	bool uid0 = false, differs = false;
	bool owner = args_str(args, "owner") && *args_str(args, "owner");
	bool group = args_str(args, "group") && *args_str(args, "group");
	bool mode = json_object_get(args, "mode") && !json_is_null(json_object_get(args, "mode"));
	const char *err_msg = NULL;
	for (const char *l = strbuf_str(&cr.out); *l; ) {
		size_t n = strcspn(l, "\n");
		if (!strncmp(l, "T=", 2))
			tmp = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "S=", 2))
			node_src = xstrndup(l + 2, n - 2);
		else if (!strncmp(l, "E=", 2) && !err_msg)
			err_msg = l + 2;
		else if (!strncmp(l, "H=", 2))
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
	if (handler && !strcmp(handler, "ZipArchive") && x->check_mode) {
		res = mod_check_unsupported(x, "unarchive", args, "a zip archive");
		goto out;
	}
	if (!handler || !*handler) {
		res = res_fail("Failed to find handler for \"%s\". Make sure the required command to extract the "
			       "file is installed.", node_src ? node_src : src);
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
		if (json_array_size(exclude)) {
			json_array_append_new(argv, json_string("-x"));
			json_array_extend(argv, exclude);
		}
		json_array_extend(argv, include);
		json_array_append_new(argv, json_string("-d"));
		json_array_append_new(argv, json_string(dest));
		differs = true;
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
	if (!strcmp(handler, "ZipArchive") && !json_array_size(files)) {
		/* the members, for attributes and list_files */
		strbuf_reset(&c);
		strbuf_addstr(&c, "unzip -Z1 ");
		sh_quote(&c, node_src);
		conn_result_release(&cr);
		conn_result_init(&cr);
		if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
			goto out;
		json_t *l = mod_splitlines(strbuf_str(&cr.out));
		json_array_foreach(l, i, e) {
			bool skip = false;
			size_t j;
			json_t *p;
			json_array_foreach(exclude, j, p)
				skip = skip || !fnmatch(json_string_value(p), json_string_value(e), 0);
			if (!skip)
				json_array_append(files, e);
		}
		json_decref(l);
	}
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

const struct task_module mod_unarchive = {
	.name = "unarchive",
	.params = unarchive_params,
	.check_mode_native = true,
	.run = unarchive_run,
};
