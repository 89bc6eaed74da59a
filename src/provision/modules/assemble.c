/* assemble.c: the `assemble` module, as Ansible 2.14's: the regular
 * files of the directory src, in sorted name order (those matching
 * regexp, when given; hidden ones skipped with ignore_hidden), joined into
 * dest, with delimiter (backslash escapes decoded, a newline added when it
 * lacks one) between fragments and a newline after a fragment that lacks
 * one.
 * - remote_src (the default): src is on the node; validate and backup
 *   before replacing a dest that differs; mode/owner/group applied either
 *   way. Returns src, dest, checksum, md5sum, msg "OK", backup_file and
 *   dest's path information.
 * - remote_src false: Ansible's assemble action joins the fragments of a
 *   controller directory (found as copy finds its src) and hands the
 *   result to the copy module as a temporary file named "src": so a
 *   directory dest gets dest/src, and the result is copy's (dest, src,
 *   checksum, md5sum, backup_file and dest's attributes, no msg).
 * In check mode Ansible's action does nothing whatever its arguments: it
 * is skipped, "check mode is not supported for this task.", and so here. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Python's codecs.escape_decode: \n \t \\ \' \" \a \b \f \v \r, \ooo
 * octal and \xhh; anything else keeps its backslash. */
static void escape_decode(struct strbuf *out, const char *s)
{
	static const char from[] = "ntr\\'\"abfv", to[] = "\n\t\r\\'\"\a\b\f\v";
	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			strbuf_addch(out, *s);
			continue;
		}
		const char *e = strchr(from, s[1]);
		if (e && s[1]) {
			strbuf_addch(out, to[e - from]);
			s++;
		} else if (s[1] >= '0' && s[1] <= '7') {
			int v = 0, n = 0;
			for (; n < 3 && s[1] >= '0' && s[1] <= '7'; n++, s++)
				v = v * 8 + (s[1] - '0');
			strbuf_addch(out, (char)(v & 0xff));
		} else if (s[1] == 'x' && strchr("0123456789abcdefABCDEF", s[2] ? s[2] : 'g') &&
			   strchr("0123456789abcdefABCDEF", s[3] ? s[3] : 'g')) {
			char hex[3] = { s[2], s[3], 0 };
			strbuf_addch(out, (char)strtol(hex, NULL, 16));
			s += 3;
		} else if (s[1] == '\n') {
			s++; /* a backslash-newline is dropped */
		} else {
			strbuf_addch(out, *s);
		}
	}
}

/* The fragments' names (regular files, sorted byte-wise as Python sorts
 * str) and contents, from one shell round trip: NAME\0SIZE\0CONTENT... */
static int fragments(struct exec_ctx *x, const char *src, struct strbuf *out, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "s=");
	sh_quote(&c, src);
	strbuf_addstr(&c, "; [ -e \"$s\" ] || { echo missing; exit 3; }; [ -d \"$s\" ] || "
			 "{ echo notdir; exit 3; }; cd -- \"$s\" || exit 1; "
			 "LC_ALL=C ls -A | while IFS= read -r f; do [ -f \"$f\" ] || continue; "
			 "printf '%s\\0%s\\0' \"$f\" \"$(wc -c < \"$f\")\"; cat -- \"$f\"; done");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc == 3) {
		const char *o = strbuf_str(&cr.out);
		*res = res_fail(!strcmp(o, "missing\n") ? "Source (%s) does not exist"
							: "Source (%s) is not a directory",
				src);
		rc = -1;
	} else if (rc == 0 && cr.rc != 0) {
		*res = res_fail("%s", strbuf_str(&cr.err));
		rc = -1;
	} else if (rc == 0) {
		strbuf_add(out, cr.out.buf, cr.out.len);
	}
	conn_result_release(&cr);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The same list as fragments() makes, from a controller directory. A
 * vault-encrypted fragment is decrypted, as Ansible's action does (decrypt,
 * the default). */
static int local_fragments(const char *dir, bool decrypt, struct strbuf *out, json_t **res)
{
	DIR *d = opendir(dir);
	if (!d) {
		*res = res_fail("Source (%s) is not a directory", dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		struct stat sb;
		struct strbuf data = STRBUF_INIT;
		if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
			json_t *fail = NULL;
			if ((decrypt ? mod_read_src(p, &data, &fail) : strbuf_read_file(&data, p)) < 0 &&
			    rc == 0) {
				*res = fail ? fail : res_fail("Could not read '%s'", p);
				fail = NULL;
				rc = -1;
			}
			json_decref(fail);
			strbuf_addstr(out, names[i]);
			strbuf_addch(out, 0);
			strbuf_addf(out, "%zu", data.len);
			strbuf_addch(out, 0);
			strbuf_add(out, data.buf ? data.buf : "", data.len);
		}
		strbuf_release(&data);
		free(p);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* remote_src false, once the fragments are joined in data: the copy
 * module's run on that content (copy_put_content is the copy action's),
 * its result made the module's own (it always names src and md5sum; no
 * path, no diff list). */
static json_t *copy_assembled(struct exec_ctx *x, json_t *args, const char *dest,
			      const struct strbuf *data)
{
	json_t *res = NULL;
	char *final = copy_final_dest(x, NULL, dest, "src", &res);
	if (!final)
		return res;
	json_t *cargs = json_deep_copy(args);
	json_object_del(cargs, "src");
	res = copy_put_content(x, cargs, final, dest, data->buf ? data->buf : "", data->len);
	json_decref(cargs);
	free(final);
	/* the checksum copy's action adds to a failure is not the module's */
	if (json_is_true(json_object_get(res, "failed"))) {
		json_object_del(res, "checksum");
		return res;
	}
	char md5[33];
	hash_md5_hex(data->buf ? data->buf : "", data->len, md5);
	json_object_del(res, "path");
	json_object_del(res, "diff");
	json_object_set_new(res, "md5sum", json_string(md5));
	json_object_set_new(res, "src", json_string("<controller>"));
	return res;
}

static json_t *assemble_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src"), *dest = args_str(args, "dest");
	const char *delim = args_str(args, "delimiter"), *regexp = args_str(args, "regexp");
	const char *validate = args_str(args, "validate");
	bool hidden = args_bool(json_object_get(args, "ignore_hidden"), false);
	bool backup = args_bool(json_object_get(args, "backup"), false);
	json_t *res = NULL;
	struct strbuf list = STRBUF_INIT, data = STRBUF_INIT, dl = STRBUF_INIT;
	char *bak = NULL, *local = NULL;
	if (x->check_mode)
		return json_pack("{s:b, s:b, s:s}", "changed", 0, "skipped", 1, "msg",
				 "check mode is not supported for this task.");
	if (!src || !dest)
		return res_fail("src and dest are required");
	bool remote = args_bool(json_object_get(args, "remote_src"), true);
	/* the paths as Ansible reads them: with remote_src its assemble
	 * module alone, src and dest expanded on the node; else its action
	 * first expands dest's ~ to the user's passwd home (and src is the
	 * controller's, mod_find_src expands it there) */
	static const char *const both[] = { "src", "dest", NULL }, *const dest_key[] = { "dest", NULL };
	if ((!remote && mod_expand_action_home(x, args, dest_key, &res) < 0) ||
	    mod_expand_paths(x, args, remote ? both : dest_key, &res) < 0)
		return res;
	src = args_str(args, "src");
	dest = args_str(args, "dest");
	const char *const paths[] = { "dest", remote ? "src" : NULL, NULL };
	if ((res = mod_unexpanded("assemble", args, paths)))
		return res;
	if (!remote) {
		struct stat sb;
		local = mod_find_src(x, "files", src);
		if (!local || stat(local, &sb) < 0) {
			res = src[0] == '/' ? res_fail("Could not find or access '%s' on the Ansible "
						       "Controller.\nIf you are using a module and "
						       "expect the file to exist on the remote, see the "
						       "remote_src option", src)
					    : res_fail("Could not find or access '%s'", src);
			goto out;
		}
		if (!S_ISDIR(sb.st_mode)) {
			res = res_fail("Source (%s) is not a directory", local);
			goto out;
		}
	}
	/* the module's order: the source first, then regexp and validate
	 * (the action's with remote_src false: validate is the copy's) */
	if (remote ? fragments(x, src, &list, &res) < 0 : local_fragments(local, args_bool(json_object_get(args, "decrypt"), true), &list, &res) < 0)
		goto out;
	char *rerr = NULL;
	if (regexp && mod_re(regexp, "", 0, false, &rerr) < 0) {
		res = res_fail("Invalid Regexp (%s) in \"%s\"", rerr, regexp);
		free(rerr);
		goto out;
	}
	if (remote && validate && !strstr(validate, "%s")) {
		res = res_fail("validate must contain %%s: %s", validate);
		goto out;
	}
	if (delim) {
		escape_decode(&dl, delim);
		if (!dl.len || dl.buf[dl.len - 1] != '\n')
			strbuf_addch(&dl, '\n');
	}
	bool first = true, add_nl = false;
	for (size_t at = 0; at < list.len;) {
		const char *name = list.buf + at;
		at += strlen(name) + 1;
		size_t len = (size_t)strtoul(list.buf + at, NULL, 10);
		at += strlen(list.buf + at) + 1;
		const char *content = list.buf + at;
		at += len;
		if (regexp && mod_re(regexp, name, strlen(name), false, NULL) != 1)
			continue;
		if (hidden && name[0] == '.')
			continue;
		if (add_nl)
			strbuf_addch(&data, '\n');
		if (!first && delim)
			strbuf_add(&data, dl.buf, dl.len);
		strbuf_add(&data, content, len);
		first = false;
		add_nl = !len || content[len - 1] != '\n';
	}
	if (!remote) {
		res = copy_assembled(x, args, dest, &data);
		goto out;
	}
	char sum[41], md5[33];
	hash_sha1_hex(data.buf, data.len, sum);
	hash_md5_hex(data.buf, data.len, md5);
	struct node_stat st;
	if (mod_stat(x, dest, true, true, &st, &res) < 0)
		goto out;
	if (st.exists && st.isdir) {
		/* Ansible's module takes dest's checksum first */
		res = res_fail("attempted to take checksum of directory: %s", dest);
		goto out;
	}
	bool changed = false;
	json_t *validation = NULL;
	if (!st.exists || !st.isreg || strcmp(st.sha1, sum)) {
		if (validate) {
			struct conn_result cr;
			conn_result_init(&cr);
			if (mod_validate(x, validate, data.buf, data.len, &cr, &res) < 0) {
				conn_result_release(&cr);
				goto out;
			}
			validation = json_pack("{s:i, s:s, s:s}", "rc", cr.rc, "stdout",
					       strbuf_str(&cr.out), "stderr", strbuf_str(&cr.err));
			if (cr.rc != 0) {
				res = res_fail("failed to validate: rc:%d error:%s", cr.rc,
					       strbuf_str(&cr.err));
				conn_result_release(&cr);
				json_decref(validation);
				goto out;
			}
			conn_result_release(&cr);
		}
		if (backup && st.exists && mod_backup(x, dest, &bak, &res) < 0) {
			json_decref(validation);
			goto out;
		}
		if (mod_write(x, dest, data.buf, data.len, -1, &res) < 0) {
			json_decref(validation);
			goto out;
		}
		changed = true;
	}
	bool attrs = false;
	if (mod_attrs(x, dest, args, &attrs, &res) < 0) {
		json_decref(validation);
		goto out;
	}
	res = res_new(changed || attrs);
	json_object_set_new(res, "src", json_string(src));
	json_object_set_new(res, "dest", json_string(dest));
	json_object_set_new(res, "checksum", json_string(sum));
	json_object_set_new(res, "md5sum", json_string(md5));
	if (validation)
		json_object_set_new(res, "validation", validation);
	if (bak)
		json_object_set_new(res, "backup_file", json_string(bak));
	json_object_set_new(res, "msg", json_string("OK"));
	mod_path_info(x, res);
out:
	free(bak);
	free(local);
	strbuf_release(&list);
	strbuf_release(&data);
	strbuf_release(&dl);
	return res;
}

/* what run implements (module.h) */
static const char *const assemble_params[] = {
	"src", "dest", "delimiter", "regexp", "ignore_hidden", "backup", "validate", "remote_src",
	"decrypt", "mode", "owner", "group", NULL
};

const struct task_module mod_assemble = {
	.name = "assemble",
	.params = assemble_params,
	.run = assemble_run,
	.check_mode_native = true,
};
