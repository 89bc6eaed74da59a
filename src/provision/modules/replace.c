/* replace.c: the `replace` module: every match of regexp in the file
 * (between optional after/before anchors) replaced by `replace` with
 * backreferences, PCRE2 standing in for Python's re (MULTILINE). */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *replace_run(struct exec_ctx *x, json_t *args)
{
	const char *path = args_str(args, "path");
	if (!path)
		path = args_str(args, "dest");
	if (!path)
		path = args_str(args, "name");
	const char *re_s = args_str(args, "regexp");
	const char *rep = args_str(args, "replace");
	if (!path || !re_s)
		return res_fail("missing required arguments: path, regexp");
	if (!rep)
		rep = "";
	json_t *res = NULL;
	struct strbuf data = STRBUF_INIT;
	bool exists;
	if (mod_read(x, path, &data, &exists, &res) < 0)
		goto out;
	if (!exists) {
		res = res_fail("Path %s does not exist !", path);
		json_object_set_new(res, "rc", json_integer(257));
		goto out;
	}
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)re_s, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE | PCRE2_UTF,
				       &ec, &eo, NULL);
	if (!re) {
		res = res_fail("bad regular expression '%s'", re_s);
		goto out;
	}
	/* Python's \1 and \g<1> become PCRE2's $1 */
	struct strbuf r = STRBUF_INIT;
	for (const char *p = rep; *p; p++) {
		if (*p == '$')
			strbuf_addstr(&r, "$$");
		else if (*p == '\\' && p[1] >= '0' && p[1] <= '9') {
			strbuf_addf(&r, "${%c}", p[1]);
			p++;
		} else if (*p == '\\' && p[1] == 'g' && p[2] == '<') {
			const char *e = strchr(p, '>');
			if (e) {
				strbuf_addf(&r, "${%.*s}", (int)(e - p - 3), p + 3);
				p = e;
			} else
				strbuf_addch(&r, *p);
		} else if (*p == '\\' && p[1] == 'n') {
			strbuf_addch(&r, '\n');
			p++;
		} else
			strbuf_addch(&r, *p);
	}
	PCRE2_SIZE outlen = data.len * 2 + 1024;
	PCRE2_UCHAR *outbuf = NULL;
	int n;
	for (;;) {
		outbuf = xrealloc(outbuf, outlen);
		PCRE2_SIZE ol = outlen;
		n = pcre2_substitute(re, (PCRE2_SPTR)(data.buf ? data.buf : ""), data.len, 0,
				     PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_EXTENDED | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH,
				     NULL, NULL, (PCRE2_SPTR)strbuf_str(&r), r.len, outbuf, &ol);
		if (n == PCRE2_ERROR_NOMEMORY) {
			outlen = ol + 1;
			continue;
		}
		outlen = ol;
		break;
	}
	pcre2_code_free(re);
	strbuf_release(&r);
	if (n < 0) {
		res = res_fail("replace failed (pcre2 error %d)", n);
		free(outbuf);
		goto out;
	}
	bool changed = n > 0 && (outlen != data.len || memcmp(outbuf, data.buf, outlen));
	char *backup_file = NULL;
	res = NULL;
	/* as Ansible's: the backup, then the validation, then the write */
	if (changed &&
	    ((args_bool(json_object_get(args, "backup"), false) &&
	      mod_backup(x, path, &backup_file, &res) < 0) ||
	     mod_validated(x, args, outbuf, outlen, &res) < 0 ||
	     mod_write(x, path, outbuf, outlen, -1, &res) < 0))
		goto out_buf;
	bool attrs = false;
	if (mod_attrs(x, path, args, &attrs, &res) < 0)
		goto out_buf;
	struct strbuf msg = STRBUF_INIT;
	if (changed)
		strbuf_addf(&msg, "%d replacements made", n);
	if (attrs) /* Ansible's check_file_attrs */
		strbuf_addf(&msg, "%sownership, perms or SE linux context changed", changed ? " and " : "");
	res = res_new(changed || attrs);
	json_object_set_new(res, "msg", json_string(strbuf_str(&msg)));
	strbuf_release(&msg);
	if (backup_file && *backup_file)
		json_object_set_new(res, "backup_file", json_string(backup_file));
	if (changed && mod_diff_wanted(x))
		json_object_set_new(res, "diff", json_pack("{s:s, s:s, s:s, s:s%}", "before_header", path,
			"before", strbuf_str(&data), "after_header", path, "after", (const char *)outbuf, (size_t)outlen));
out_buf:
	free(backup_file);
	free(outbuf);
out:
	strbuf_release(&data);
	return res;
}

const struct task_module mod_replace = { .name = "replace", .run = replace_run };
