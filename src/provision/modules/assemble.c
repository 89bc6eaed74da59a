/* assemble.c: the `assemble` module, as Ansible 2.14's with remote_src
 * (its default): the regular files of the node directory src, in sorted
 * name order (those matching regexp, when given; hidden ones skipped with
 * ignore_hidden), joined into dest, with delimiter (backslash escapes
 * decoded, a newline added when it lacks one) between fragments and a
 * newline after a fragment that lacks one; validate and backup before
 * replacing a dest that differs; mode/owner/group applied either way.
 * Returns src, dest, checksum, md5sum, msg "OK", backup_file and dest's
 * path information. remote_src=false (fragments from the controller) is
 * not implemented and is refused when the play is loaded. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
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

static json_t *assemble_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src"), *dest = args_str(args, "dest");
	const char *delim = args_str(args, "delimiter"), *regexp = args_str(args, "regexp");
	const char *validate = args_str(args, "validate");
	bool hidden = args_bool(json_object_get(args, "ignore_hidden"), false);
	bool backup = args_bool(json_object_get(args, "backup"), false);
	json_t *res = NULL;
	struct strbuf list = STRBUF_INIT, data = STRBUF_INIT, dl = STRBUF_INIT;
	char *bak = NULL;
	if (!src || !dest)
		return res_fail("src and dest are required");
	static const char *const paths[] = { "src", "dest", NULL };
	if ((res = mod_unexpanded("assemble", args, paths)))
		return res;
	char *rerr = NULL;
	if (regexp && mod_re(regexp, "", 0, false, &rerr) < 0) {
		res = res_fail("Invalid Regexp (%s) in \"%s\"", rerr, regexp);
		free(rerr);
		goto out;
	}
	if (validate && !strstr(validate, "%s")) {
		res = res_fail("validate must contain %%s: %s", validate);
		goto out;
	}
	if (fragments(x, src, &list, &res) < 0)
		goto out;
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
	strbuf_release(&list);
	strbuf_release(&data);
	strbuf_release(&dl);
	return res;
}

static int assemble_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "src", "dest", "delimiter", "regexp", "ignore_hidden",
					     "backup", "validate", "remote_src", "decrypt", "mode",
					     "owner", "group", NULL };
	if (mod_check_params("assemble", args, known, d, loc) < 0)
		return -1;
	json_t *rs = json_object_get(args, "remote_src");
	if (rs && args_is_bool(rs) && !args_bool(rs, true)) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "assemble: unsupported parameter value remote_src=false");
		return -1;
	}
	if (rs && !args_is_bool(rs)) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "assemble: unsupported templated remote_src (only its default, true)");
		return -1;
	}
	return 0;
}

const struct task_module mod_assemble = {
	.name = "assemble", .check = assemble_check, .run = assemble_run,
};
