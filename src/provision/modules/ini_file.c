/* ini_file.c: `ini_file` (community.general's, which IM's recipes
 * use): sets, adds or removes option = value lines in a section of an
 * INI-style file, or removes a whole section, line by line as the
 * reference does, so that comments, order and unrelated lines stay:
 * - the section runs from its "[name]" line (a line that starts with it)
 *   to the next line starting with '['; no section means the lines before
 *   the first section;
 * - present: the lines of the option (commented out ones too, "#opt = v")
 *   are rewritten with the wanted values, the extra ones removed
 *   (exclusive, the default), and missing values added after the section's
 *   last line that is neither blank nor a comment; a missing section is
 *   appended at the end of the file;
 * - absent: the option's active lines are removed (all of them, or with
 *   exclusive=false only those holding one of the values), or the whole
 *   section when no option is given.
 * Messages as the reference words them (OK, option added, option changed,
 * section and option added, only section added, section removed).
 * Check mode is the reference's: the same edit computed and reported
 * (changed, msg, the diff), nothing written, no directory made, and the
 * file's attributes neither set nor compared (its check mode skips them,
 * so a mode that would change does not make the task changed). */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "provision/modules/module-lines.h"
#include "provision/module.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* "[#;]?[ \t]*OPTION[ \t]*(=|$)[ \t]*(.*)": the option's line, also when
 * commented out (with_comment), capturing its value. */
struct opt_re {
	pcre2_code *any, *active;
	pcre2_match_data *md;
};

static void quote_re(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
}

static pcre2_code *opt_compile(const char *option, bool with_comment)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, with_comment ? "[#;]?[ \\t]*" : "[ \\t]*");
	quote_re(&sb, option);
	strbuf_addstr(&sb, "[ \\t]*(=|$)[ \\t]*(.*)");
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)sb.buf, sb.len, PCRE2_ANCHORED, &ec, &eo, NULL);
	strbuf_release(&sb);
	return re;
}

/* Whether line is the option's; its value (malloc'd) in *value. */
static bool opt_match(struct opt_re *r, bool with_comment, const char *line, char **value)
{
	pcre2_code *re = with_comment ? r->any : r->active;
	if (!re || pcre2_match(re, (PCRE2_SPTR)line, strlen(line), 0, 0, r->md, NULL) < 0)
		return false;
	if (value) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
		*value = xstrndup(line + ov[4], ov[5] - ov[4]);
	}
	return true;
}

/* Blank or a comment: what a new option line goes after the last of. */
static bool blank_or_comment(const char *line)
{
	line += strspn(line, " \t");
	return !*line || *line == '\n' || *line == '#' || *line == ';';
}

static int value_index(char **values, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(values[i], v))
			return (int)i;
	return -1;
}

static void values_remove(char **values, size_t *n, size_t i)
{
	free(values[i]);
	memmove(values + i, values + i + 1, (*n - i - 1) * sizeof(*values));
	(*n)--;
}

struct ini_args {
	const char *section, *option;
	char **values;
	size_t nvalues;
	bool absent, exclusive, no_extra_spaces, allow_no_value;
};

static char *assignment(const struct ini_args *a, const char *value)
{
	return xasprintf(a->no_extra_spaces ? "%s=%s\n" : "%s = %s\n", a->option, value);
}

/* Replaces section line i (marking it changed) and says whether it differed. */
static bool set_line(struct lines *sec, bool *touched, size_t i, char *line, const char **msg)
{
	bool differs = strcmp(sec->v[i], line) != 0;
	if (differs)
		*msg = "option changed";
	free(sec->v[i]);
	sec->v[i] = line;
	touched[i] = true;
	return differs;
}

/* state=present on the section's lines (sec->v[0] is its header): the
 * option's lines get the wanted values, the others go (exclusive), and
 * the values left are added after the last line that is neither blank
 * nor a comment. */
static bool edit_present(struct lines *sec, struct ini_args *a, struct opt_re *re,
			 const char **msg, bool *died)
{
	bool changed = false, no_value_present = false;
	/* the reference matches every line against re.escape(option) here,
	 * which dies on no option (a TypeError): a module failure as soon as
	 * the section has a line (the lines before any section always do) */
	if (a->exclusive && !a->allow_no_value && !a->option && a->nvalues && sec->n) {
		*died = true;
		return false;
	}
	bool *touched = xcalloc(sec->n + 1, sizeof(*touched));
	for (size_t i = 0; a->option && i < sec->n; i++) {
		char *v = NULL;
		if (!opt_match(re, true, sec->v[i], &v))
			continue;
		int k = a->nvalues ? value_index(a->values, a->nvalues, v) : -1;
		if (k >= 0) {
			bool bare = !*v && a->allow_no_value;
			changed |= set_line(sec, touched, i,
					    bare ? xasprintf("%s\n", a->option) : assignment(a, v), msg);
			no_value_present |= bare;
			values_remove(a->values, &a->nvalues, (size_t)k);
		} else if (!a->nvalues && a->allow_no_value) {
			changed |= set_line(sec, touched, i, xasprintf("%s\n", a->option), msg);
			no_value_present = true;
			free(v);
			break;
		}
		free(v);
	}
	if (a->exclusive && !a->allow_no_value) {
		for (size_t i = 0; i < sec->n && a->nvalues; i++)
			if (!touched[i] && opt_match(re, true, sec->v[i], NULL)) {
				changed |= set_line(sec, touched, i, assignment(a, a->values[0]), msg);
				values_remove(a->values, &a->nvalues, 0);
			}
		for (size_t i = sec->n; i-- > 1;)
			if (!touched[i] && opt_match(re, true, sec->v[i], NULL)) {
				lines_delete(sec, i);
				memmove(touched + i, touched + i + 1, (sec->n - i) * sizeof(*touched));
				changed = true;
				*msg = "option changed";
			}
	}
	free(touched);
	for (size_t i = sec->n; i > 0; i--) {
		if (blank_or_comment(sec->v[i - 1]))
			continue;
		if (a->option && a->nvalues) {
			for (size_t k = a->nvalues; k-- > 0;)
				lines_insert(sec, i, assignment(a, a->values[k]));
			*msg = "option added";
			changed = true;
		} else if (a->option && a->allow_no_value && !no_value_present) {
			lines_insert(sec, i, xasprintf("%s\n", a->option));
			*msg = "option added";
			changed = true;
		}
		break;
	}
	return changed;
}

/* state=absent on the section's lines: the option's active lines (all, or
 * with exclusive=false those holding one of the values), or the whole
 * section when no option is given. */
static bool edit_absent(struct lines *sec, const struct ini_args *a, struct opt_re *re,
			const char **msg)
{
	bool changed = false;
	if (!a->option) {
		changed = sec->n > 0;
		while (sec->n)
			lines_delete(sec, sec->n - 1);
		if (changed)
			*msg = "section removed";
		return changed;
	}
	for (size_t i = sec->n; i-- > 0;) {
		char *v = NULL;
		if (!opt_match(re, false, sec->v[i], &v))
			continue;
		if (a->exclusive || value_index(a->values, a->nvalues, v) >= 0) {
			lines_delete(sec, i);
			changed = true;
			*msg = "option changed";
		}
		free(v);
	}
	return changed;
}

/* The reference's do_ini on the lines of the file; returns whether they
 * changed, with its message; *died when the reference's module dies. */
static bool edit_ini(struct lines *file, struct ini_args *a, const char **msg, bool *died)
{
	static const char fake[] = "ad01e11446efb704fcdbdb21f2c43757423d91c5";
	bool changed = false;
	*msg = "OK";
	if (!file->n)
		lines_insert(file, 0, xstrdup("\n"));
	char *last = file->v[file->n - 1];
	if (!*last || last[strlen(last) - 1] != '\n') {
		file->v[file->n - 1] = xasprintf("%s\n", last);
		free(last);
		changed = true;
	}
	/* sentinels: a section no file has before the first line (the lines
	 * that belong to no section), an opening bracket after the last */
	lines_insert(file, 0, xasprintf("[%s]", fake));
	lines_insert(file, file->n, xstrdup("["));
	char *header = xasprintf("[%s]", a->section && *a->section ? a->section : fake);
	size_t start = 0, end = 0;
	bool within = false;
	for (size_t i = 0; i < file->n; i++) {
		if (!strncmp(file->v[i], header, strlen(header))) {
			within = true;
			start = i;
		} else if (file->v[i][0] == '[' && within) {
			end = i;
			break;
		}
	}
	/* the section's lines, edited apart, then put back */
	struct lines sec = { 0 };
	for (size_t i = start; i < end; i++)
		lines_insert(&sec, sec.n, xstrdup(file->v[i]));
	struct opt_re re = { 0 };
	if (a->option) {
		re.any = opt_compile(a->option, true);
		re.active = opt_compile(a->option, false);
		re.md = pcre2_match_data_create(4, NULL);
	}
	changed |= a->absent ? edit_absent(&sec, a, &re, msg) : edit_present(&sec, a, &re, msg, died);
	pcre2_match_data_free(re.md);
	pcre2_code_free(re.any);
	pcre2_code_free(re.active);
	for (size_t i = start; i < end; i++)
		lines_delete(file, start);
	for (size_t i = 0; i < sec.n; i++)
		lines_insert(file, start + i, sec.v[i]);
	free(sec.v);
	/* the sentinels go as the module drops them (del lines[0], then
	 * del lines[-1:]), whatever the edit left: removing the lines of no
	 * section removed the first one too */
	if (file->n)
		lines_delete(file, 0);
	if (file->n)
		lines_delete(file, file->n - 1);
	if (!within && !a->absent) {
		lines_insert(file, file->n, xasprintf("%s\n", header));
		*msg = "section and option added";
		if (a->option && a->nvalues)
			for (size_t k = 0; k < a->nvalues; k++)
				lines_insert(file, file->n, assignment(a, a->values[k]));
		else if (a->option && a->allow_no_value)
			lines_insert(file, file->n, xasprintf("%s\n", a->option));
		else
			*msg = "only section added";
		changed = true;
	}
	free(header);
	return changed;
}

/* value or values, deduplicated in order, as strings. */
static int read_values(json_t *args, struct ini_args *a, json_t **res)
{
	json_t *vs = json_object_get(args, "values");
	char *value = args_strdup(args, "value");
	if (value && vs && !json_is_null(vs)) {
		free(value);
		*res = res_fail("parameters are mutually exclusive: value|values");
		return -1;
	}
	a->values = xcalloc(json_array_size(vs) + 2, sizeof(*a->values));
	if (value) {
		a->values[a->nvalues++] = value;
		return 0;
	}
	size_t i;
	json_t *e;
	json_array_foreach(vs, i, e) {
		json_t *one = json_pack("{s:O}", "v", e);
		char *s = args_strdup(one, "v");
		json_decref(one);
		if (s && value_index(a->values, a->nvalues, s) < 0)
			a->values[a->nvalues++] = s;
		else
			free(s);
	}
	return 0;
}

static json_t *ini_run(struct exec_ctx *x, json_t *args)
{
	const char *path = args_str(args, "path");
	if (!path)
		path = args_str(args, "dest");
	if (!path)
		return res_fail("missing required arguments: path");
	const char *state = args_str(args, "state");
	if (state && strcmp(state, "present") && strcmp(state, "absent"))
		return res_fail("value of state must be one of: absent, present, got: %s", state);
	struct ini_args a = {
		.section = args_str(args, "section"),
		.option = args_str(args, "option"),
		.absent = state && !strcmp(state, "absent"),
		.exclusive = args_bool(json_object_get(args, "exclusive"), true),
		.no_extra_spaces = args_bool(json_object_get(args, "no_extra_spaces"), false),
		.allow_no_value = args_bool(json_object_get(args, "allow_no_value"), false),
	};
	json_t *res = NULL, *diff = NULL;
	char *backup_file = NULL;
	struct strbuf data = STRBUF_INIT, out = STRBUF_INIT, before = STRBUF_INIT;
	struct lines file = { 0 };
	bool exists;
	if (read_values(args, &a, &res) < 0)
		goto out;
	if (!a.absent && !a.allow_no_value && !a.nvalues) {
		res = res_fail("Parameter 'value(s)' must be defined if state=present and "
			       "allow_no_value=False.");
		goto out;
	}
	if (mod_read(x, path, &data, &exists, &res) < 0) {
		/* community.general's ini_file opens a directory as a file and
		 * dies with a traceback: Ansible reports a module failure */
		if (json_integer_value(json_object_get(res, "rc")) == 256) {
			json_decref(res);
			res = res_module_failure();
		}
		goto out;
	}
	if (!exists && !args_bool(json_object_get(args, "create"), true)) {
		res = res_fail("Destination %s does not exist!", path);
		json_object_set_new(res, "rc", json_integer(257));
		goto out;
	}
	const char *p = data.buf ? data.buf : "";
	size_t len = data.len;
	/* utf-8-sig: a byte order mark is not part of the first line */
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
		p += 3;
		len -= 3;
	}
	lines_split(&file, p, len);
	strbuf_add(&before, p, len);
	const char *msg;
	bool died = false;
	bool changed = edit_ini(&file, &a, &msg, &died);
	if (died) {
		res = res_module_failure();
		goto out;
	}
	for (size_t i = 0; i < file.n; i++)
		strbuf_addstr(&out, file.v[i]);
	diff = mod_content_diff(x, path, &before, &out);
	if (changed && !x->check_mode) {
		int rc = 0;
		if (!exists)
			rc = mod_mkdir_parent(x, path, &res);
		else if (args_bool(json_object_get(args, "backup"), false))
			rc = mod_backup(x, path, &backup_file, &res);
		if (rc == 0)
			rc = mod_write(x, path, out.buf ? out.buf : "", out.len, -1, &res);
		if (rc < 0)
			goto out;
	}
	if (x->check_mode || mod_attrs(x, path, args, &changed, &res) == 0) {
		res = json_pack("{s:b, s:s, s:s, s:O}", "changed", changed, "msg", msg, "path", path,
				"diff", json_array_get(diff, 0));
		if (backup_file && *backup_file)
			json_object_set_new(res, "backup_file", json_string(backup_file));
		/* the module's exit names path: Ansible adds its attributes */
		mod_path_info(x, res);
	}
out:
	for (size_t i = 0; i < a.nvalues; i++)
		free(a.values[i]);
	free(a.values);
	lines_free(&file);
	json_decref(diff);
	strbuf_release(&out);
	strbuf_release(&before);
	strbuf_release(&data);
	free(backup_file);
	return res;
}

/* what run implements (module.h) */
static const char *const ini_file_params[] = {
	"allow_no_value", "backup", "create", "dest", "exclusive", "no_extra_spaces", "option",
	"path", "section", "state", "value", "values", "mode", "owner", "group",
	"unsafe_writes", NULL
};

static const char *const ini_file_node_paths[] = { "path", "dest", NULL };

const struct task_module mod_ini_file = {
	.name = "ini_file",
	.check_mode_native = true,
	.params = ini_file_params,
	.run = ini_run,
	.node_paths = ini_file_node_paths,
};
