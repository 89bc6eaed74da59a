/* lineinfile.c: the `lineinfile` module (the thesis recipes' most used),
 * following ansible-core's present()/absent() line by line: the last line
 * matching regexp is replaced (first with firstmatch), else the exact line
 * is looked for, else the line is inserted after/before the last anchor
 * match or at EOF/BOF; backrefs expand \1 and leave the file alone without
 * a match; absent deletes every matching line. Python's re is approximated
 * with PCRE2. The file is read and written through the connection. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "provision/modules/module-lines.h"
#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool eq_stripped(const char *a, const char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	return strlen(a) == n && !memcmp(a, line, n);
}

static pcre2_code *mod_regex(const char *re, char *err, size_t errlen)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
	if (!c) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(ec, buf, sizeof(buf));
		snprintf(err, errlen, "bad regular expression '%s': %s at offset %zu", re,
			 (const char *)buf, (size_t)eo);
	}
	return c;
}

/* re.search; md (may be NULL) gets the groups */
static bool re_search(pcre2_code *c, const char *s, pcre2_match_data *md)
{
	pcre2_match_data *own = md ? NULL : pcre2_match_data_create_from_pattern(c, NULL);
	int rc = pcre2_match(c, (PCRE2_SPTR)s, strlen(s), 0, 0, md ? md : own, NULL);
	if (own)
		pcre2_match_data_free(own);
	return rc >= 0;
}

/* match.expand(template): \1..\99, \g<n>, and Python escapes */
static char *expand(const char *tmpl, const char *subject, pcre2_match_data *md)
{
	struct strbuf sb = STRBUF_INIT;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	uint32_t n = pcre2_get_ovector_count(md);
	strbuf_addstr(&sb, "");
	for (const char *p = tmpl; *p; p++) {
		if (*p != '\\' || !p[1]) {
			strbuf_addch(&sb, *p);
			continue;
		}
		p++;
		int g = -1;
		if (*p >= '0' && *p <= '9') {
			g = *p - '0';
			if (p[1] >= '0' && p[1] <= '9') {
				g = g * 10 + (p[1] - '0');
				p++;
			}
		} else if (*p == 'g' && p[1] == '<') {
			g = (int)strtol(p + 2, NULL, 10);
			const char *e = strchr(p, '>');
			if (e)
				p = e;
		} else if (*p == 'n') {
			strbuf_addch(&sb, '\n');
			continue;
		} else if (*p == 't') {
			strbuf_addch(&sb, '\t');
			continue;
		} else if (*p == '\\') {
			strbuf_addch(&sb, '\\');
			continue;
		} else {
			strbuf_addch(&sb, '\\');
			strbuf_addch(&sb, *p);
			continue;
		}
		if (g >= 0 && (uint32_t)g < n && ov[2 * g] != PCRE2_UNSET)
			strbuf_add(&sb, subject + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
	}
	return strbuf_detach(&sb);
}

static const char *path_arg(json_t *args)
{
	static const char *const keys[] = { "path", "dest", "destfile", "name", NULL };
	for (const char *const *k = keys; *k; k++)
		if (args_str(args, *k))
			return args_str(args, *k);
	return NULL;
}

/* lineinfile's edit. With guess (what the file held when this connection
 * last read or wrote it, sum its SHA-1), the edit is computed from it and
 * its write sent guarded by that sum, in one round trip instead of a read
 * and a write; any outcome but that write made (or failing past the
 * guard) sets *retry, and the caller runs lif_edit again reading the file
 * as before: nothing but the guarded write has been sent then. */
static json_t *lif_edit(struct exec_ctx *x, json_t *args, const struct strbuf *guess,
			const char *sum, bool *retry)
{
	if (guess)
		*retry = true;
	const char *path = path_arg(args);
	if (!path)
		return res_fail("missing required arguments: path");
	static const char *const excl[] = {
		"insertbefore", "insertafter", "regexp", "search_string", "backrefs", "search_string", NULL,
	};
	json_t *bad = mod_exclusive(args, excl);
	if (bad)
		return bad;
	const char *regexp = args_str(args, "regexp");
	if (!regexp)
		regexp = args_str(args, "regex");
	const char *search = args_str(args, "search_string");
	char *line = args_strdup(args, "line");
	if (!line)
		line = args_strdup(args, "value");
	const char *state = args_str(args, "state");
	bool absent = state && !strcmp(state, "absent");
	bool backrefs = args_bool(json_object_get(args, "backrefs"), false);
	bool create = args_bool(json_object_get(args, "create"), false);
	bool firstmatch = args_bool(json_object_get(args, "firstmatch"), false);
	const char *ia = args_str(args, "insertafter");
	const char *ib = args_str(args, "insertbefore");
	json_t *res = NULL;
	char *backupdest = NULL;
	pcre2_code *re = NULL, *ins = NULL;
	pcre2_match_data *md = NULL;
	struct lines l = { 0 };
	struct strbuf data = STRBUF_INIT;
	char err[512];
	/* the module refuses a directory path before it looks at its
	 * parameters: looked at here only when one of them is refused, so
	 * that the path costs no round trip of its own otherwise */
	if ((!absent && ((backrefs && !regexp) || !line)) || (absent && !regexp && !search && !line)) {
		struct node_stat st;
		if (guess)
			goto out;
		if (mod_stat(x, path, true, false, &st, &res) < 0)
			goto out;
		if (st.exists && st.isdir) {
			res = res_fail("Path %s is a directory !", path);
			json_object_set_new(res, "rc", json_integer(256));
			goto out;
		}
	}
	if (!absent && backrefs && !regexp) {
		res = res_fail("regexp is required with backrefs=true");
		goto out;
	}
	if (!absent && !line) {
		res = res_fail("line is required with state=present");
		goto out;
	}
	if (absent && !regexp && !search && !line) {
		res = res_fail("one of line, search_string, or regexp is required with state=absent");
		goto out;
	}
	bool exists = true;
	if (guess)
		strbuf_add(&data, guess->buf ? guess->buf : "", guess->len);
	else if (mod_read(x, path, &data, &exists, &res) < 0)
		goto out;
	if (!exists) {
		if (absent) {
			/* the module exits with these two keys alone */
			res = json_pack("{s:b, s:s}", "changed", 0, "msg", "file not present");
			goto out;
		}
		if (!create) {
			res = res_fail("Destination %s does not exist !", path);
			json_object_set_new(res, "rc", json_integer(257));
			goto out;
		}
	}
	/* compiled once the file is known to be there, as the module does;
	 * one Python's re cannot compile kills the module (re.error) */
	if (regexp && !(re = mod_regex(regexp, err, sizeof(err)))) {
		res = res_module_failure();
		goto out;
	}
	const char *anchor = ia ? ia : ib;
	if (!absent && anchor && strcmp(anchor, "EOF") && strcmp(anchor, "BOF") &&
	    !(ins = mod_regex(anchor, err, sizeof(err)))) {
		res = res_module_failure();
		goto out;
	}
	lines_split(&l, data.buf ? data.buf : "", data.len);
	bool changed = false;
	const char *msg = "";
	char msgbuf[64];
	size_t found = 0;
	if (absent) {
		size_t k = 0;
		for (size_t i = 0; i < l.n; i++) {
			bool m = re ? re_search(re, l.v[i], NULL) : search ? strstr(l.v[i], search) != NULL
				 : eq_stripped(line, l.v[i]);
			if (m) {
				found++;
				free(l.v[i]);
			} else
				l.v[k++] = l.v[i];
		}
		l.n = k;
		changed = found > 0;
		if (changed) {
			snprintf(msgbuf, sizeof(msgbuf), "%zu line(s) removed", found);
			msg = msgbuf;
		}
	} else {
		long idx0 = -1, idx1 = -1;
		bool matched = false;
		md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
		char *match_line = NULL;
		if (re) {
			pcre2_match_data *tmp = pcre2_match_data_create_from_pattern(re, NULL);
			for (size_t i = 0; i < l.n; i++)
				if (re_search(re, l.v[i], tmp)) {
					idx0 = (long)i;
					matched = true;
					match_line = l.v[i];
					pcre2_match_data *sw = md;
					md = tmp;
					tmp = sw;
					if (firstmatch)
						break;
				}
			pcre2_match_data_free(tmp);
		} else if (search) {
			for (size_t i = 0; i < l.n; i++)
				if (strstr(l.v[i], search)) {
					idx0 = (long)i;
					matched = true;
					if (firstmatch)
						break;
				}
		}
		if (!matched) {
			for (size_t i = 0; i < l.n; i++) {
				if (eq_stripped(line, l.v[i]))
					idx0 = (long)i;
				else if (ins && re_search(ins, l.v[i], NULL)) {
					if (ia) {
						idx1 = (long)i + 1;
						if (firstmatch)
							break;
					}
					if (ib) {
						idx1 = (long)i;
						if (firstmatch)
							break;
					}
				}
			}
		}
		if (idx0 != -1) {
			char *nl = backrefs && matched && re ? expand(line, match_line, md) : xstrdup(line);
			size_t n = strlen(nl);
			if (!n || nl[n - 1] != '\n') {
				char *t = xasprintf("%s\n", nl);
				free(nl);
				nl = t;
			}
			if (strcmp(l.v[idx0], nl)) {
				free(l.v[idx0]);
				l.v[idx0] = nl;
				msg = "line replaced";
				changed = true;
			} else
				free(nl);
		} else if (backrefs) {
			/* nothing: backrefs without a match */
		} else if ((ib && !strcmp(ib, "BOF")) || (ia && !strcmp(ia, "BOF"))) {
			lines_insert(&l, 0, xasprintf("%s\n", line));
			msg = "line added";
			changed = true;
		} else if ((ia && !strcmp(ia, "EOF")) || idx1 == -1) {
			if (l.n) {
				size_t n = strlen(l.v[l.n - 1]);
				if (n && l.v[l.n - 1][n - 1] != '\n' && l.v[l.n - 1][n - 1] != '\r')
					lines_insert(&l, l.n, xstrdup("\n"));
			}
			lines_insert(&l, l.n, xasprintf("%s\n", line));
			msg = "line added";
			changed = true;
		} else if (ia && idx1 != -1) {
			if ((size_t)idx1 == l.n) {
				if (!eq_stripped(line, l.v[idx1 - 1])) {
					lines_insert(&l, l.n, xasprintf("%s\n", line));
					msg = "line added";
					changed = true;
				}
			} else if (!eq_stripped(line, l.v[idx1])) {
				lines_insert(&l, (size_t)idx1, xasprintf("%s\n", line));
				msg = "line added";
				changed = true;
			}
		} else {
			lines_insert(&l, (size_t)idx1, xasprintf("%s\n", line));
			msg = "line added";
			changed = true;
		}
	}
	struct strbuf outb = STRBUF_INIT;
	for (size_t i = 0; i < l.n; i++)
		strbuf_addstr(&outb, l.v[i]);
	json_t *diff = mod_content_diff(x, path, &data, &outb);
	if (x->check_mode && !exists) {
		/* check mode, no file yet: Ansible stops here with the content
		 * diff alone (no attributes, no list) */
		res = json_pack("{s:b, s:s, s:s, s:O}", "changed", changed, "msg", msg, "backup", "",
				"diff", json_array_get(diff, 0));
		goto out_diff;
	}
	/* check mode writes nothing: no backup, no validation either */
	if (changed && !x->check_mode) {
		if (!exists)
			mod_mkdir_parent(x, path, NULL);
		/* as Ansible's: the backup, then the validation, then the write */
		if (args_bool(json_object_get(args, "backup"), false) && exists &&
		    mod_backup(x, path, &backupdest, &res) < 0)
			goto out_diff;
		if (mod_validated(x, args, outb.buf ? outb.buf : "", outb.len, &res) < 0)
			goto out_diff;
		if (guess) {
			int w = mod_write_if(x, path, sum, outb.buf ? outb.buf : "", outb.len, -1, &res);
			if (w == 1)
				goto out_diff;
			/* written, or failed as the write after a read would */
			*retry = false;
			if (w < 0)
				goto out_diff;
		} else if (mod_write(x, path, outb.buf ? outb.buf : "", outb.len, -1, &res) < 0)
			goto out_diff;
	}
	if (guess && *retry)
		goto out_diff;
	bool attrs = false;
	if (mod_attrs_diff(x, path, args, &attrs, json_array_get(diff, 1), &res) < 0)
		goto out_diff;
	struct strbuf m = STRBUF_INIT;
	strbuf_addstr(&m, msg);
	if (attrs) {
		/* Ansible's check_file_attrs */
		strbuf_addstr(&m, changed ? " and " : "");
		strbuf_addstr(&m, "ownership, perms or SE linux context changed");
		changed = true;
	}
	res = json_pack("{s:b, s:s, s:s, s:O}", "changed", changed, "msg", strbuf_str(&m), "backup",
			backupdest ? backupdest : "", "diff", diff);
	strbuf_release(&m);
	if (absent)
		json_object_set_new(res, "found", json_integer((json_int_t)found));
	/* an empty pattern matches every line, so the last one is replaced
	 * instead of the line being appended: Ansible warns in its result */
	json_t *warn = json_array();
	if (!absent && regexp && !*regexp)
		json_array_append_new(warn, json_string(
			"The regular expression is an empty string, which will match every line in the file. "
			"This may have unintended consequences, such as replacing the last line in the file rather than appending. "
			"If this is desired, use '^' to match every line in the file and avoid this warning."));
	if (!absent && search && !*search)
		json_array_append_new(warn, json_string(
			"The search string is an empty string, which will match every line in the file. "
			"This may have unintended consequences, such as replacing the last line in the file rather than appending."));
	if (json_array_size(warn))
		json_object_set(res, "warnings", warn);
	json_decref(warn);
out_diff:
	json_decref(diff);
	strbuf_release(&outb);
out:
	if (md)
		pcre2_match_data_free(md);
	if (re)
		pcre2_code_free(re);
	if (ins)
		pcre2_code_free(ins);
	lines_free(&l);
	strbuf_release(&data);
	free(line);
	free(backupdest);
	return res;
}

static json_t *lif_run(struct exec_ctx *x, json_t *args)
{
	const char *path = path_arg(args);
	struct strbuf guess = STRBUF_INIT;
	char sum[41];
	bool retry = true;
	json_t *res = NULL;
	/* only a change written with nothing before it can ride on a guess:
	 * a backup or a validation runs on the node first */
	if (path && !x->check_mode && !args_str(args, "validate") &&
	    !args_bool(json_object_get(args, "backup"), false) &&
	    mod_read_recall(x, path, &guess, sum))
		res = lif_edit(x, args, &guess, sum, &retry);
	strbuf_release(&guess);
	if (retry) {
		json_decref(res);
		res = lif_edit(x, args, NULL, NULL, &retry);
	}
	return res;
}

static int lif_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	if (!path_arg(args)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "lineinfile: missing required arguments: path");
		return -1;
	}
	return 0;
}

static const char *const lineinfile_node_paths[] = { "path", "dest", "destfile", "name", NULL };

const struct task_module mod_lineinfile = {
	.name = "lineinfile", .check = lif_check, .run = lif_run, .check_mode_native = true,
	.node_paths = lineinfile_node_paths,
};
