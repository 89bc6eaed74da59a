/* blockinfile.c: `blockinfile`: the text between the two marker lines
 * is replaced by the block, or markers and block are inserted (after or
 * before the last line matching insertafter/insertbefore, EOF by default,
 * BOF; a (?m) pattern's first match in the whole text instead), or
 * removed with state=absent; create makes the file. Messages as Ansible
 * words them (Block inserted, Block removed, File created). */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char *subst_mark(const char *marker, const char *mark)
{
	const char *p = strstr(marker, "{mark}");
	if (!p)
		return xstrdup(marker);
	return xasprintf("%.*s%s%s", (int)(p - marker), marker, mark, p + 6);
}

/* whether the Python pattern sets the MULTILINE flag for the whole of it:
 * Python takes global inline flags only at its start, as (?FLAGS) groups */
static bool multiline_flag(const char *re)
{
	while (re[0] == '(' && re[1] == '?') {
		size_t k = strspn(re + 2, "aiLmsux");
		if (!k || re[2 + k] != ')')
			return false;
		if (memchr(re + 2, 'm', k))
			return true;
		re += 3 + k;
	}
	return false;
}

static json_t *bif_run(struct exec_ctx *x, json_t *args)
{
	const char *path = args_str(args, "path");
	if (!path)
		path = args_str(args, "dest");
	if (!path)
		path = args_str(args, "name");
	if (!path)
		return res_fail("missing required arguments: path");
	static const char *const excl[] = { "insertbefore", "insertafter", NULL };
	json_t *bad = mod_exclusive(args, excl);
	if (bad)
		return bad;
	const char *block = args_str(args, "block");
	if (!block)
		block = args_str(args, "content");
	if (!block)
		block = "";
	const char *marker = args_str(args, "marker");
	if (!marker)
		marker = "# {mark} ANSIBLE MANAGED BLOCK";
	const char *mb = args_str(args, "marker_begin"), *me = args_str(args, "marker_end");
	char *begin = subst_mark(marker, mb ? mb : "BEGIN"), *end = subst_mark(marker, me ? me : "END");
	const char *state = args_str(args, "state");
	bool absent = state && !strcmp(state, "absent");
	const char *ia = args_str(args, "insertafter"), *ib = args_str(args, "insertbefore");
	struct strbuf data = STRBUF_INIT;
	bool exists;
	json_t *res = NULL;
	const char *msg = "";
	/* lines */
	char **ln = NULL;
	size_t n = 0;
	if (mod_read(x, path, &data, &exists, &res) < 0)
		goto out;
	if (!exists && !args_bool(json_object_get(args, "create"), false)) {
		res = res_fail("Path %s does not exist !", path);
		json_object_set_new(res, "rc", json_integer(257));
		goto out;
	}
	if (!exists && absent) {
		res = res_new(false);
		json_object_set_new(res, "msg", json_sprintf("File %s not present", path));
		goto out;
	}
	/* Ansible's algorithm, on lines that keep their newline: the last
	 * begin and the last end marker found delimit the old block (either
	 * order); without both, the block goes after the last line matching
	 * insertafter (EOF: the end), before the last matching insertbefore
	 * (BOF: the start), at the end when none matches; the line before it
	 * gets a newline it lacked; an empty block is no block */
	for (const char *p = data.buf ? data.buf : "", *e = p + data.len; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t k = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
		ln = xreallocarray(ln, n + 1, sizeof(*ln));
		ln[n++] = xstrndup(p, k);
		p += k;
	}
	char *b0 = xasprintf("%s\n", begin), *e0 = xasprintf("%s\n", end);
	long bi = -1, ei = -1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ln[i], b0))
			bi = (long)i;
		if (!strcmp(ln[i], e0))
			ei = (long)i;
	}
	/* new block lines */
	struct strbuf nb = STRBUF_INIT;
	if (!absent && *block) {
		strbuf_addstr(&nb, b0);
		strbuf_addstr(&nb, block);
		if (block[strlen(block) - 1] != '\n')
			strbuf_addch(&nb, '\n');
		strbuf_addstr(&nb, e0);
	}
	free(b0);
	free(e0);
	long at;
	size_t skip_from = 0, skip_to = 0; /* [from, to) of ln left out */
	if (bi < 0 || ei < 0) {
		const char *anchor = ia ? ia : ib;
		if (!ia && !ib)
			anchor = "EOF";
		at = (long)n;
		if (ib && !ia && !strcmp(ib, "BOF"))
			at = 0;
		else if (strcmp(anchor, "EOF") && strcmp(anchor, "BOF")) {
			int ec;
			PCRE2_SIZE eo;
			pcre2_code *re = pcre2_compile((PCRE2_SPTR)anchor, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
			if (!re) {
				res = res_fail("bad regular expression '%s'", anchor);
				strbuf_release(&nb);
				goto out;
			}
			long found = -1;
			pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
			if (multiline_flag(anchor)) {
				/* as Ansible: a (?m) pattern is searched in the whole
				 * text, its first match's line being the one after
				 * the newlines before its end (insertafter) or start */
				const char *t = data.buf ? data.buf : "";
				if (pcre2_match(re, (PCRE2_SPTR)t, data.len, 0, 0, md, NULL) >= 0) {
					PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
					size_t lim = ia ? ov[1] : ov[0];
					found = 0;
					for (size_t i = 0; i < lim; i++)
						found += t[i] == '\n';
				}
			} else {
				for (size_t i = 0; i < n; i++)
					if (pcre2_match(re, (PCRE2_SPTR)ln[i], strlen(ln[i]), 0, 0, md, NULL) >= 0)
						found = (long)i;
			}
			pcre2_match_data_free(md);
			pcre2_code_free(re);
			if (found >= 0)
				at = ia ? found + 1 : found;
			if (at > (long)n)
				at = (long)n;
		}
	} else {
		skip_from = (size_t)(bi < ei ? bi : ei);
		skip_to = (size_t)(bi < ei ? ei : bi) + 1;
		at = (long)skip_from;
	}
	/* the lines kept (the old block's left out), at an index of those */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (i < skip_from || i >= skip_to)
			ln[kept++] = ln[i];
		else
			free(ln[i]);
	n = kept;
	struct strbuf out = STRBUF_INIT;
	for (size_t i = 0; i <= n; i++) {
		if ((long)i == at) {
			if (i > 0 && out.len && out.buf[out.len - 1] != '\n')
				strbuf_addch(&out, '\n');
			strbuf_addstr(&out, strbuf_str(&nb));
		}
		if (i < n)
			strbuf_addstr(&out, ln[i]);
	}
	bool changed = !exists || out.len != data.len || memcmp(strbuf_str(&out), strbuf_str(&data), out.len);
	json_t *diff = mod_content_diff(x, path, &data, &out);
	char *backup_file = NULL;
	if (changed)
		msg = !exists ? "File created" : !nb.len ? "Block removed" : "Block inserted";
	if (x->check_mode && !exists) {
		/* check mode, no file yet: Ansible stops here with the content
		 * diff alone (no attributes, no list) */
		res = json_pack("{s:b, s:s, s:O}", "changed", changed, "msg", msg,
				"diff", json_array_get(diff, 0));
		goto out_diff;
	}
	/* check mode writes nothing: no backup, no validation either */
	if (changed && !x->check_mode) {
		/* as Ansible's: the backup, then the validation, then the write */
		if ((args_bool(json_object_get(args, "backup"), false) && exists &&
		     mod_backup(x, path, &backup_file, &res) < 0) ||
		    mod_validated(x, args, out.buf ? out.buf : "", out.len, &res) < 0 ||
		    mod_write(x, path, out.buf ? out.buf : "", out.len, -1, &res) < 0)
			goto out_diff;
	}
	bool attrs = false;
	if (mod_attrs_diff(x, path, args, &attrs, json_array_get(diff, 1), &res) == 0) {
		/* Ansible's check_file_attrs */
		char *m = xasprintf("%s%s%s", msg, !attrs ? "" : changed ? " and " : "",
				    attrs ? "ownership, perms or SE linux context changed" : "");
		res = json_pack("{s:b, s:s, s:O}", "changed", changed || attrs, "msg", m, "diff", diff);
		free(m);
		if (backup_file && *backup_file)
			json_object_set_new(res, "backup_file", json_string(backup_file));
	}
out_diff:
	free(backup_file);
	json_decref(diff);
	strbuf_release(&out);
	strbuf_release(&nb);
out:
	for (size_t i = 0; i < n; i++)
		free(ln[i]);
	free(ln);
	free(begin);
	free(end);
	strbuf_release(&data);
	return res;
}

/* what run implements (module.h) */
static const char *const blockinfile_params[] = {
	"backup", "block", "content", "create", "dest", "insertafter", "insertbefore",
	"marker", "marker_begin", "marker_end", "name", "path", "state", "validate", "mode",
	"owner", "group", "unsafe_writes", NULL
};

static const char *const blockinfile_node_paths[] = { "path", "dest", "destfile", "name", NULL };

const struct task_module mod_blockinfile = {
	.name = "blockinfile",
	.params = blockinfile_params,
	.run = bif_run,
	.check_mode_native = true,
	.node_paths = blockinfile_node_paths,
};
