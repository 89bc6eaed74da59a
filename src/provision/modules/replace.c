/* replace.c: the `replace` module: every match of regexp in the file
 * (between optional after/before anchors) replaced by `replace` with
 * backreferences, PCRE2 standing in for Python's re (MULTILINE). The
 * after/before section is Ansible's: the text matched by
 * AFTER(?P<subsection>.*?)BEFORE (or AFTER(.*) / (.*)BEFORE) with DOTALL,
 * first match; no match ends the task unchanged, attributes untouched. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const replace_known[] = {
	"path", "dest", "destfile", "name", "regexp", "replace", "after", "before", "backup",
	"validate", "encoding", "mode", "owner", "group", "unsafe_writes", NULL,
};

/* the [start, end) of the after/before section in s, 1; 0 when the
 * pattern does not match; -1 when it does not compile (*err) */
static int section(const char *pat, const char *s, size_t len, size_t *start, size_t *end, char **err)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL | PCRE2_UTF,
				      &ec, &eo, NULL);
	if (!c) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(ec, buf, sizeof(buf));
		*err = xasprintf("%s at position %zu", (const char *)buf, (size_t)eo);
		return -1;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
	int rc = pcre2_match(c, (PCRE2_SPTR)s, len, 0, 0, md, NULL) >= 0;
	if (rc) {
		uint32_t n;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (pcre2_substring_number_from_name(c, (PCRE2_SPTR) "subsection") < 0)
			n = 1;
		else
			n = (uint32_t)pcre2_substring_number_from_name(c, (PCRE2_SPTR) "subsection");
		*start = ov[2 * n];
		*end = ov[2 * n + 1];
	}
	pcre2_match_data_free(md);
	pcre2_code_free(c);
	return rc;
}

static json_t *replace_run(struct exec_ctx *x, json_t *args)
{
	const char *path = args_str(args, "path");
	if (!path)
		path = args_str(args, "dest");
	if (!path)
		path = args_str(args, "destfile");
	if (!path)
		path = args_str(args, "name");
	const char *enc = args_str(args, "encoding");
	if (enc && strcasecmp(enc, "utf-8") && strcasecmp(enc, "utf8"))
		return res_fail("replace: unsupported: encoding '%s' (imc edits UTF-8 text only)", enc);
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
	/* the section the replacements are made in: all of data, or the
	 * part between after and before */
	const char *after = args_str(args, "after"), *before = args_str(args, "before");
	size_t s0 = 0, s1 = data.len;
	if ((after && *after) || (before && *before)) {
		char *pat = (after && *after && before && *before)
				    ? xasprintf("%s(?P<subsection>.*?)%s", after, before)
				    : (after && *after) ? xasprintf("%s(?P<subsection>.*)", after)
							: xasprintf("(?P<subsection>.*)%s", before);
		char *err = NULL;
		int m = section(pat, data.buf ? data.buf : "", data.len, &s0, &s1, &err);
		if (m <= 0) {
			/* a pattern Python's re cannot compile kills the module */
			if (m < 0) {
				res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
				json_object_set_new(res, "rc", json_integer(1));
			} else {
				res = res_new(false);
				json_object_set_new(res, "msg", json_sprintf("Pattern for before/after params did "
									    "not match the given file: %s", pat));
				json_object_set_new(res, "rc", json_integer(0));
			}
			free(pat);
			free(err);
			goto out;
		}
		free(pat);
	}
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)re_s, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE | PCRE2_UTF,
				       &ec, &eo, NULL);
	if (!re) {
		res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
		json_object_set_new(res, "rc", json_integer(1));
		goto out;
	}
	/* a reference to a group the pattern lacks: Python's re raises while
	 * compiling the template, match or not, and the module dies on it */
	uint32_t ngroups = 0;
	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &ngroups);
	for (const char *p = rep; *p; p++) {
		bool bad = false;
		if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
			bad = (uint32_t)(p[1] - '0') > ngroups;
		else if (*p == '\\' && p[1] == 'g' && p[2] == '<') {
			const char *e = strchr(p, '>');
			char *name = e ? xstrndup(p + 3, (size_t)(e - p - 3)) : NULL;
			if (name && *name && strspn(name, "0123456789") == strlen(name))
				bad = strtoul(name, NULL, 10) > ngroups;
			else if (name)
				bad = pcre2_substring_number_from_name(re, (PCRE2_SPTR)name) < 0;
			free(name);
		}
		if (*p == '\\' && p[1])
			p++;
		if (bad) {
			pcre2_code_free(re);
			res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
			json_object_set_new(res, "rc", json_integer(1));
			goto out;
		}
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
		n = pcre2_substitute(re, (PCRE2_SPTR)(data.buf ? data.buf + s0 : ""), s1 - s0, 0,
				     PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_EXTENDED | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH |
					     PCRE2_SUBSTITUTE_UNSET_EMPTY,
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
	bool changed = n > 0 && (outlen != s1 - s0 || memcmp(outbuf, data.buf + s0, outlen));
	if (changed && (s0 > 0 || s1 < data.len)) {
		/* the section put back between what precedes and follows it */
		struct strbuf whole = STRBUF_INIT;
		strbuf_add(&whole, data.buf, s0);
		strbuf_add(&whole, (const char *)outbuf, outlen);
		strbuf_add(&whole, data.buf + s1, data.len - s1);
		free(outbuf);
		outlen = whole.len;
		outbuf = (PCRE2_UCHAR *)strbuf_detach(&whole);
	}
	char *backup_file = NULL;
	res = NULL;
	/* as Ansible's: the backup, then the validation, then the write;
	 * none of them in check mode */
	if (changed && !x->check_mode &&
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
	json_object_set_new(res, "rc", json_integer(0));
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

static const char *const replace_node_paths[] = { "path", "dest", "destfile", "name", NULL };

const struct task_module mod_replace = {
	.name = "replace", .params = replace_known, .run = replace_run, .check_mode_native = true,
	.node_paths = replace_node_paths,
};
