/* include_vars.c: the `include_vars` action, as Ansible 2.14's: loads
 * variables from a YAML/JSON file on the controller (file=, or the free
 * form; looked up in the role's vars/, the task's directory, the play's),
 * or from every file of a directory (dir=, under the role's vars/ or the
 * task file's directory) with files_matching, ignore_files, extensions,
 * ignore_unknown_extensions and depth, optionally under one name=, and
 * with hash_behaviour. The variables are set for the host at include_vars
 * precedence (exec_include_var: above task vars, below set_fact); the
 * result holds them in ansible_facts and the files read in
 * ansible_included_var_files. Failures say what Ansible says, in
 * "message" for a file or directory problem (as Ansible's action does)
 * and in msg for an invalid option. */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const dir_args[] = { "dir", "depth", "files_matching", "ignore_files",
					"extensions", "ignore_unknown_extensions", NULL };
static const char *const file_args[] = { "file", "_raw_params", NULL };
static const char *const all_args[] = { "name", "hash_behaviour", NULL };

static bool in(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (!strcmp(*l, k))
			return true;
	return false;
}

/* re.search(pat, s), with "$" appended when at_end; -1 when pat is invalid. */
static int re_search(const char *pat, const char *s, bool at_end)
{
	char *p = at_end ? xasprintf("%s$", pat) : xstrdup(pat);
	int rc = mod_re(p, s, strlen(s), false, NULL);
	free(p);
	return rc;
}

struct inc {
	json_t *files;      /* ansible_included_var_files */
	json_t *results;    /* the variables read */
	json_t *exts;       /* valid extensions */
	char *err;          /* a failure's message (result key "message") */
	json_t *json_keys;  /* the variables read from a file that is JSON text */
};

/* What Ansible reports when its action raises: failed and msg, no
 * changed (and an empty stdout for an error it did not anticipate). */
__attribute__((format(printf, 2, 3)))
static json_t *raised(bool unexpected, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	json_t *r = json_pack("{s:b, s:s}", "failed", 1, "msg", strbuf_str(&sb));
	if (unexpected)
		json_object_set_new(r, "stdout", json_string(""));
	strbuf_release(&sb);
	return r;
}

/* os.path.splitext's extension (without the dot) is one of exts. */
static bool valid_ext(const struct inc *in_, const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	const char *b = base + strspn(base, ".");
	const char *dot = strrchr(b, '.');
	const char *ext = dot ? dot + 1 : "";
	size_t i;
	json_t *e;
	json_array_foreach(in_->exts, i, e)
		if (!strcmp(json_string_value(e), ext))
			return true;
	return false;
}

/* Ansible's _load_files: -1 on a failure (in_->err set, or *res for a
 * parse error, which fails the task with its msg). */
static int load_file(struct inc *in_, const char *path, bool check_ext, json_t **res)
{
	if (check_ext && !valid_ext(in_, path)) {
		struct strbuf sb = STRBUF_INIT;
		size_t i;
		json_t *e;
		json_array_foreach(in_->exts, i, e)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", json_string_value(e));
		in_->err = xasprintf("%s does not have a valid extension: %s", path, strbuf_str(&sb));
		strbuf_release(&sb);
		return -1;
	}
	struct strbuf text = STRBUF_INIT;
	struct diag d = DIAG_INIT;
	int rc = -1;
	if (strbuf_read_file(&text, path) < 0) {
		*res = raised(false, "Could not find or access '%s' on the Ansible Controller.", path);
		goto out;
	}
	json_t *data = yaml_load(text.buf ? text.buf : "", text.len, path, 0, NULL, &d);
	if (!data && !check_ext) {
		/* a single file: the action catches the parser's error, a
		 * failure in "message" */
		in_->err = xstrdup(diag_first_message(&d));
		goto out;
	}
	if (!data) {
		*res = raised(false, "%s", diag_first_message(&d));
		goto out;
	}
	if (json_is_null(data) || (json_is_false(data)) || (json_is_string(data) && !*json_string_value(data))) {
		json_decref(data);
		data = json_object();
	}
	if (!json_is_object(data)) {
		in_->err = xasprintf("%s must be stored as a dictionary/hash", path);
		json_decref(data);
		goto out;
	}
	json_array_append_new(in_->files, json_string(path));
	{
		/* Ansible's loader tries JSON first: a file that is JSON text
		 * gives Python's dict, list and str, YAML its own types */
		json_t *j = json_loadb(text.buf ? text.buf : "", text.len, JSON_DECODE_ANY, NULL);
		const char *k;
		json_t *v;
		json_object_foreach(data, k, v)
			json_object_set_new(in_->json_keys, k, json_boolean(j != NULL));
		json_decref(j);
	}
	json_object_update(in_->results, data);
	json_decref(data);
	rc = 0;
out:
	diag_release(&d);
	strbuf_release(&text);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* os.walk(dir) (no symlinked directory entered): every directory's path
 * and its non-directory entries, appended to roots / files. */
static void walk(const char *dir, json_t *roots)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return;
	json_t *files = json_array(), *subs = json_array();
	struct dirent *de;
	while ((de = readdir(dh))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
		struct stat st, lst;
		bool isdir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		if (isdir && lstat(p, &lst) == 0 && !S_ISLNK(lst.st_mode))
			json_array_append_new(subs, json_string(p));
		if (!isdir)
			json_array_append_new(files, json_string(de->d_name));
		free(p);
	}
	closedir(dh);
	json_array_append_new(roots, json_pack("{s:s, s:o}", "root", dir, "files", files));
	size_t i;
	json_t *s;
	json_array_foreach(subs, i, s)
		walk(json_string_value(s), roots);
	json_decref(subs);
}

/* The list of ignore_files or extensions: a list, or a string (ignore_files
 * split on whitespace; extensions, as Ansible's list(str), one per character). */
static json_t *str_list(json_t *v, bool chars)
{
	json_t *l = json_array();
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (json_is_string(e))
				json_array_append(l, e);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		while (*s) {
			if (chars) {
				json_array_append_new(l, json_stringn(s, 1));
				s++;
				continue;
			}
			s += strspn(s, " \t\n\r\f\v");
			size_t n = strcspn(s, " \t\n\r\f\v");
			if (n)
				json_array_append_new(l, json_stringn(s, n));
			s += n;
		}
	}
	return l;
}

static int load_dir(struct exec_ctx *x, json_t *args, struct inc *in_, json_t **res)
{
	const char *dir = args_str(args, "dir");
	const char *matching = args_str(args, "files_matching");
	bool ign_unknown = args_bool(json_object_get(args, "ignore_unknown_extensions"), false);
	json_t *dv = json_object_get(args, "depth");
	long depth = json_is_integer(dv) ? (long)json_integer_value(dv) : 0;
	/* Ansible compares a string depth (depth=1 in k=v form) with an int
	 * and fails; an empty one is no depth */
	bool str_depth = json_is_string(dv) && *json_string_value(dv);
	json_t *ignore = str_list(json_object_get(args, "ignore_files"), false);
	struct task_role *role = NULL;
	for (struct ptask *p = x->task; p && !role; p = p->parent)
		role = p->role;
	char *src = NULL;
	int rc = 0;
	struct stat st;
	if (role) {
		size_t first = strcspn(dir, "/");
		if (first == 4 && !strncmp(dir, "vars", 4)) {
			char *p = xasprintf("%s/%s", role->dir, dir);
			src = stat(p, &st) == 0 ? p : (free(p), xstrdup(dir));
		} else {
			src = dir[0] == '/' ? xstrdup(dir) : xasprintf("%s/vars/%s", role->dir, dir);
		}
	} else {
		const char *base = x->task->dir ? x->task->dir : x->run->pb ? x->run->pb->dir : ".";
		src = dir[0] == '/' ? xstrdup(dir) : xasprintf("%s/%s", base, dir);
	}
	if (stat(src, &st) != 0) {
		in_->err = xasprintf("%s directory does not exist", src);
		rc = -1;
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		in_->err = xasprintf("%s is not a directory", src);
		rc = -1;
		goto out;
	}
	json_t *roots = json_array();
	walk(src, roots);
	/* Ansible sorts the walk by directory path and counts depth in that order */
	size_t nr = json_array_size(roots);
	const char **names = xcalloc(nr ? nr : 1, sizeof(*names));
	for (size_t i = 0; i < nr; i++)
		names[i] = json_string_value(json_object_get(json_array_get(roots, i), "root"));
	qsort(names, nr, sizeof(*names), cmp_str);
	if (str_depth && nr) {
		*res = raised(true, "Unexpected failure during module execution: %s",
			      "'<=' not supported between instances of 'int' and 'str'");
		rc = -2;
	}
	for (size_t r = 0; r < nr && rc == 0; r++) {
		if (depth && (long)r + 1 > depth)
			break;
		json_t *files = NULL;
		for (size_t i = 0; i < nr; i++) {
			json_t *e = json_array_get(roots, i);
			if (!strcmp(json_string_value(json_object_get(e, "root")), names[r]))
				files = json_object_get(e, "files");
		}
		size_t n = json_array_size(files);
		const char **fl = xcalloc(n ? n : 1, sizeof(*fl));
		/* a directory's variables count only when all its files loaded */
		json_t *kept = in_->results;
		in_->results = json_object();
		for (size_t i = 0; i < n; i++)
			fl[i] = json_string_value(json_array_get(files, i));
		qsort(fl, n, sizeof(*fl), cmp_str);
		for (size_t i = 0; i < n && rc == 0; i++) {
			const char *f = fl[i];
			if (role) {
				char *a = xasprintf("%s/%s", role->dir, f);
				char *b = xasprintf("%s/vars/main.yml", names[r]);
				bool skip = !strcmp(a, b);
				free(a);
				free(b);
				if (skip)
					continue;
			}
			if (matching && re_search(matching, f, false) != 1)
				continue;
			bool ignored = false;
			size_t k;
			json_t *pat;
			json_array_foreach(ignore, k, pat) {
				int m = re_search(json_string_value(pat), f, true);
				if (m < 0) {
					*res = raised(false, "Invalid regular expression: %s",
						      json_string_value(pat));
					rc = -2;
					break;
				}
				if (m) {
					ignored = true;
					break;
				}
			}
			if (rc || ignored)
				continue;
			char *fp = xasprintf("%s%s%s", names[r],
					     names[r][strlen(names[r]) - 1] == '/' ? "" : "/", f);
			if (stat(fp, &st) == 0 && (!ign_unknown || valid_ext(in_, f)))
				rc = load_file(in_, fp, true, res);
			free(fp);
		}
		free(fl);
		if (rc == 0)
			json_object_update(kept, in_->results);
		json_decref(in_->results);
		in_->results = kept;
	}
	free(names);
	json_decref(roots);
out:
	json_decref(ignore);
	free(src);
	return rc;
}

/* Ansible's merge_hash: b into a copy of a, dicts merged recursively. */
static json_t *merge_hash(json_t *a, json_t *b)
{
	json_t *r = json_deep_copy(a);
	const char *k;
	json_t *v;
	json_object_foreach(b, k, v) {
		json_t *old = json_object_get(r, k);
		if (json_is_object(old) && json_is_object(v))
			json_object_set_new(r, k, merge_hash(old, v));
		else
			json_object_set(r, k, v);
	}
	return r;
}

static json_t *include_vars_run(struct exec_ctx *x, json_t *args)
{
	const char *k;
	json_t *v;
	int dirs = 0, files = 0;
	json_object_foreach(args, k, v) {
		if (in(dir_args, k))
			dirs++;
		else if (in(file_args, k))
			files++;
		else if (!in(all_args, k))
			return raised(false, "%s is not a valid option in include_vars", k);
	}
	if (dirs && files)
		return raised(false, "%s", "You are mixing file only and dir only arguments, these are incompatible");
	json_t *ev = json_object_get(args, "extensions");
	if (ev && !json_is_array(ev) && !json_is_string(ev))
		return raised(false, "%s", "Invalid type for \"extensions\" option, it must be a list");
	struct inc in_ = { .files = json_array(), .results = json_object(), .json_keys = json_object() };
	in_.exts = ev ? str_list(ev, true) : json_pack("[s, s, s]", "yaml", "yml", "json");
	json_t *res = NULL;
	const char *name = args_str(args, "name"), *hb = args_str(args, "hash_behaviour");
	int rc;
	if (args_str(args, "dir")) {
		rc = load_dir(x, args, &in_, &res);
	} else {
		const char *f = args_str(args, "file");
		char *fc = NULL;
		if (!f && args_str(args, "_raw_params")) {
			fc = xstrdup(args_str(args, "_raw_params"));
			size_t n = strlen(fc);
			while (n && fc[n - 1] == '\n')
				fc[--n] = '\0';
		}
		const char *src = f ? f : fc;
		char *path = src && *src ? mod_find_src(x, "vars", src) : NULL;
		if (src && !*src) {
			/* an empty name (first_found with errors='ignore' found
			 * none): Ansible's AnsibleFileNotFound without a file name */
			in_.err = xstrdup("Could not find file on the Ansible Controller.\nIf you are using "
					  "a module and expect the file to exist on the remote, see the "
					  "remote_src option");
			rc = -1;
		} else if (!path) {
			in_.err = xasprintf("Could not find or access '%s' on the Ansible Controller.",
					    f ? f : fc ? fc : "None");
			rc = -1;
		} else if (access(path, R_OK) != 0) {
			/* an absolute path: the action's _find_needle raising,
			 * which it catches, a failure in "message" */
			in_.err = xasprintf("Could not find or access '%s' on the Ansible Controller.\nIf you are "
					    "using a module and expect the file to exist on the remote, see the "
					    "remote_src option", path);
			rc = -1;
		} else {
			rc = load_file(&in_, path, false, &res);
		}
		free(path);
		free(fc);
	}
	if (res)
		goto out;
	json_t *results = in_.results;
	if (name) {
		results = json_pack("{s:O}", name, in_.results);
		json_decref(in_.results);
		in_.results = results;
	}
	res = res_new(false);
	if (rc < 0) {
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "message", json_string(in_.err ? in_.err : ""));
	} else if (hb && strcmp(hb, "replace")) {
		bool merge = !strcmp(hb, "merge");
		json_object_foreach(results, k, v) {
			json_t *old = json_object_get(x->vars, k);
			if (!json_is_object(old) || !json_is_object(v)) {
				json_decref(res);
				/* Ansible's message ends with both values as JSON */
				char *a = json_dumps(old ? old : json_null(), JSON_ENCODE_ANY);
				char *b = json_dumps(v, JSON_ENCODE_ANY);
				/* the file's value as Ansible's YAML loader typed it */
				bool yaml = !name && !json_is_true(json_object_get(in_.json_keys, k));
				const char *vt = !yaml ? mod_pytype(v) : json_is_object(v) ? "AnsibleMapping"
						 : json_is_array(v) ? "AnsibleSequence"
						 : json_is_string(v) ? "AnsibleUnicode" : mod_pytype(v);
				res = raised(false, "failed to combine variables, expected dicts but "
					     "got a '%s' and a '%s': \n%s\n%s", old ? mod_pytype(old) : "NoneType",
					     vt, a ? a : "null", b ? b : "null");
				free(a);
				free(b);
				goto out;
			}
			json_t *c;
			if (merge) {
				c = merge_hash(old, v);
			} else {
				c = json_deep_copy(old);
				json_object_update(c, v);
			}
			json_object_set_new(results, k, c);
		}
	}
	json_object_set(res, "ansible_included_var_files", in_.files);
	json_object_set(res, "ansible_facts", results);
	if (rc == 0)
		json_object_foreach(results, k, v)
			exec_include_var(x->host, k, v);
out:
	json_decref(in_.files);
	json_decref(in_.results);
	json_decref(in_.exts);
	json_decref(in_.json_keys);
	free(in_.err);
	return res;
}

const struct task_module mod_include_vars = {
	.name = "include_vars", .controller = true, .same_in_check_mode = true, .run = include_vars_run,
};
