/* inventory-file.c: the sources `imc play -i` reads, as Ansible's
 * inventory manager reads them: each source (a comma list, a file, a
 * directory of files) adds to one model (inventory-model.c); a file is
 * read by the YAML plugin's rules when it is a YAML mapping and by the INI
 * plugin's (inventory-ini.c) otherwise. Here too: the group_vars/ and
 * host_vars/ directories that sit beside an inventory source or the
 * playbook (Ansible's host_group_vars plugin: NAME, NAME.yml, NAME.yaml or
 * NAME.json, the first that exists, or a directory of such files read in
 * name order). */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "provision/inventory.h"
#include "provision/play.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_DIR_DEPTH 16

/* ---- YAML inventories -------------------------------------------------------- */

static const char *type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "dict";
	case JSON_ARRAY: return "list";
	case JSON_STRING: return "str";
	case JSON_INTEGER: return "int";
	case JSON_REAL: return "float";
	case JSON_TRUE: case JSON_FALSE: return "bool";
	default: return "NoneType";
	}
}

static void warn(struct inv_model *m, char *msg)
{
	json_array_append_new(m->warnings, json_string(msg));
	free(msg);
}

/* The YAML plugin's _parse_group: a group's vars, children (groups in
 * turn) and hosts, in the order its keys come. */
static int yaml_group(struct inv_model *m, const char *file, const struct yaml_doc *yd,
		      const char *group, json_t *data, int depth, struct diag *d)
{
	struct src_loc loc = { .file = file, .line = yaml_line_of(yd, data), .col = 0 };
	if (depth > 64) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "groups nested deeper than 64");
		return -1;
	}
	if (!json_is_object(data) && !json_is_null(data)) {
		warn(m, xasprintf("Skipping '%s' as this is not a valid group definition", group));
		return 1;
	}
	inv_add_group(m, group);
	if (json_is_null(data))
		return 0;
	static const char *const sections[] = { "vars", "children", "hosts" };
	for (int i = 0; i < 3; i++) {
		json_t *s = json_object_get(data, sections[i]);
		if (json_is_string(s)) {
			json_t *o = json_object();
			json_object_set_new(o, json_string_value(s), json_null());
			json_object_set_new(data, sections[i], o);
		} else if (s && !json_is_object(s) && !json_is_null(s)) {
			diag_error(d, IMC_EXIT_DATAERR, &loc,
				   "invalid \"%s\" entry for \"%s\" group, requires a dictionary, found \"%s\" instead",
				   sections[i], group, type_name(s));
			return -1;
		}
	}
	const char *key;
	json_t *v;
	json_object_foreach(data, key, v) {
		if (!json_is_object(v)) {
			if (!json_is_null(v))
				warn(m, xasprintf("Skipping key (%s) in group (%s) as it is not a mapping, it is a %s",
						  key, group, type_name(v)));
			continue;
		}
		if (!strcmp(key, "vars")) {
			json_object_update(json_object_get(inv_add_group(m, group), "vars"), v);
		} else if (!strcmp(key, "children")) {
			const char *sub;
			json_t *sv;
			json_object_foreach(v, sub, sv) {
				struct src_loc sl = { .file = file, .line = yaml_line_of(yd, sv), .col = 0 };
				int r = yaml_group(m, file, yd, sub, sv, depth + 1, d);
				if (r < 0 || inv_add_child(m, group, sub, sl.line ? &sl : &loc, d) < 0)
					return -1;
			}
		} else if (!strcmp(key, "hosts")) {
			const char *pat;
			json_t *hv;
			json_object_foreach(v, pat, hv) {
				struct src_loc hl = { .file = file, .line = yaml_line_of(yd, hv), .col = 0 };
				if (!hl.line)
					hl = loc;
				if (!json_is_object(hv) && !json_is_null(hv)) {
					diag_error(d, IMC_EXIT_DATAERR, &hl,
						   "invalid data from file, expected dictionary for host '%s' and got a %s",
						   pat, type_name(hv));
					return -1;
				}
				json_t *names = json_array();
				int port;
				if (inv_expand_hosts(pat, names, &port, &hl, d) < 0) {
					json_decref(names);
					return -1;
				}
				size_t i;
				json_t *n;
				json_array_foreach(names, i, n) {
					inv_add_host(m, json_string_value(n), group, port);
					if (json_is_object(hv))
						json_object_update(json_object_get(m->hosts, json_string_value(n)), hv);
				}
				json_decref(names);
			}
		} else
			warn(m, xasprintf("Skipping unexpected key (%s) in group (%s), only \"vars\", \"children\" and \"hosts\" are valid",
					  key, group));
	}
	return 0;
}

static int yaml_parse(struct inv_model *m, const char *file, json_t *doc, const struct yaml_doc *yd,
		      struct diag *d)
{
	const char *g;
	json_t *v;
	json_object_foreach(doc, g, v)
		if (yaml_group(m, file, yd, g, v, 0, d) < 0)
			return -1;
	return 0;
}

/* ---- sources ---------------------------------------------------------------- */

static bool has_ext(const char *name, const char *const *exts)
{
	size_t n = strlen(name);
	for (; *exts; exts++) {
		size_t k = strlen(*exts);
		if (n >= k && !strcmp(name + n - k, *exts))
			return true;
	}
	return false;
}

static const char *const yaml_exts[] = { ".yml", ".yaml", ".json", NULL };

/* One inventory file: YAML when it loads as a mapping (and its name has
 * no extension or a YAML one, as the YAML plugin checks), INI otherwise. */
static int load_file(struct inv_model *m, const char *path, struct diag *d)
{
	struct stat st;
	struct strbuf sb = STRBUF_INIT;
	char *plain = NULL;
	size_t nplain = 0;
	int rc = -1;
	if (stat(path, &st) == 0 && (st.st_mode & 0111)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "%s: an executable inventory is an inventory script to Ansible, which imc does not run",
			   path);
		return -1;
	}
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read inventory '%s': %m", path);
		return -1;
	}
	const char *text = sb.buf ? sb.buf : "";
	size_t len = sb.len;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (has_ext(base, (const char *const[]){ ".toml", NULL })) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: TOML inventories are not supported by imc", path);
		goto out;
	}
	/* Ansible's inventory plugins read a vault-encrypted file decrypted
	 * (where Ansible then only warns that the source could not be
	 * parsed, a decryption failure stops imc) */
	if (vault_is_encrypted(text, len)) {
		char *err = NULL;
		if (vault_decrypt(text, len, path, &plain, &nplain, &err) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: %s", path, err);
			free(err);
			goto out;
		}
		text = plain;
		len = nplain;
	}
	if (!strchr(base, '.') || has_ext(base, yaml_exts)) {
		struct diag yd_diag = DIAG_INIT;
		struct yaml_doc *yd = NULL;
		json_t *doc = yaml_load(text, len, path, 0, &yd, &yd_diag);
		diag_release(&yd_diag);
		if (json_is_object(doc) && json_object_size(doc)) {
			if (json_object_get(doc, "plugin"))
				diag_error(d, IMC_EXIT_DATAERR, NULL,
					   "%s: an inventory plugin configuration (plugin: %s) is not supported by imc",
					   path, json_string_value(json_object_get(doc, "plugin"))
						 ? json_string_value(json_object_get(doc, "plugin")) : "?");
			else
				rc = yaml_parse(m, path, doc, yd, d);
			json_decref(doc);
			yaml_doc_free(yd);
			goto out;
		}
		json_decref(doc);
		yaml_doc_free(yd);
	}
	rc = inventory_ini_parse(m, path, text, d);
out:
	vault_free_plain(plain, nplain);
	strbuf_release(&sb);
	return rc;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted; NULL when it cannot be read. */
static char **list_dir(const char *dir, size_t *n)
{
	*n = 0;
	DIR *dp = opendir(dir);
	if (!dp)
		return NULL;
	char **v = NULL;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n + 1 >= cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(dp);
	if (v)
		qsort(v, *n, sizeof(*v), cmp_strp);
	else
		v = xcalloc(1, sizeof(*v));
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A directory source: its files in name order, the names Ansible ignores
 * left out (hidden ones, group_vars, host_vars, vars_plugins, and its
 * INVENTORY_IGNORE_EXTS), subdirectories in turn. */
static int load_dir(struct inv_model *m, const char *dir, int depth, struct diag *d)
{
	static const char *const ignored[] = { ".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md",
					       ".txt", ".rst", ".orig", ".ini", ".cfg", ".retry", NULL };
	size_t n;
	char **names = list_dir(dir, &n);
	if (!names || depth > MAX_DIR_DEPTH) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read inventory directory '%s'", dir);
		free_list(names, n);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *e = names[i];
		if (e[0] == '.' || !strcmp(e, "host_vars") || !strcmp(e, "group_vars") ||
		    !strcmp(e, "vars_plugins") || has_ext(e, ignored))
			continue;
		char *p = xasprintf("%s/%s", dir, e);
		rc = is_dir(p) ? load_dir(m, p, depth + 1, d) : load_file(m, p, d);
		free(p);
	}
	free_list(names, n);
	return rc;
}

int inventory_load(struct inv_model *m, const char *source, struct diag *d)
{
	struct stat st;
	if (stat(source, &st) < 0) {
		/* a host list, as imc play -i always took it: each host on
		 * this machine through the local connection */
		char *list = xstrdup(source), *save = NULL;
		int rc = 0;
		for (char *t = strtok_r(list, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
			while (*t == ' ')
				t++;
			size_t k = strlen(t);
			while (k && t[k - 1] == ' ')
				t[--k] = 0;
			if (!k)
				continue;
			inv_add_host(m, t, "ungrouped", -1);
			json_object_set_new(json_object_get(m->hosts, t), "ansible_connection",
					    json_string("local"));
		}
		free(list);
		return rc;
	}
	json_array_append_new(m->dirs, json_string(source));
	if (S_ISDIR(st.st_mode))
		return load_dir(m, source, 0, d);
	char *dir = xstrdup(source), *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else {
		free(dir);
		dir = xstrdup(".");
	}
	json_array_set_new(m->dirs, json_array_size(m->dirs) - 1, json_string(dir));
	free(dir);
	return load_file(m, source, d);
}

/* ---- group_vars/ and host_vars/ --------------------------------------------- */

/* One vars file merged into into (top-level keys replaced, as Ansible's
 * default hash_behaviour). */
static int vars_file(const char *path, json_t *into, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = -1;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s': %m", path);
		goto out;
	}
	json_t *doc = yaml_load(sb.buf ? sb.buf : "", sb.len, path, 0, NULL, d);
	if (!doc && diag_has_errors(d))
		goto out;
	if (doc && !json_is_null(doc) && !json_is_object(doc)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: a vars file must be a mapping, not a %s", path,
			   type_name(doc));
		json_decref(doc);
		goto out;
	}
	if (json_is_object(doc))
		json_object_update(into, doc);
	json_decref(doc);
	rc = 0;
out:
	strbuf_release(&sb);
	return rc;
}

/* The files of a NAME/ directory, in Ansible's order: names sorted, the
 * hidden and '~' ones left out, subdirectories without an extension
 * entered, files without an extension or with a YAML one read. */
static int vars_tree(const char *dir, json_t *into, int depth, struct diag *d)
{
	size_t n;
	char **names = list_dir(dir, &n);
	if (!names || depth > MAX_DIR_DEPTH) {
		free_list(names, n);
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s'", dir);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *e = names[i];
		size_t len = strlen(e);
		if (e[0] == '.' || e[len - 1] == '~')
			continue;
		char *p = xasprintf("%s/%s", dir, e);
		const char *dot = strrchr(e, '.');
		if (is_dir(p)) {
			if (!dot)
				rc = vars_tree(p, into, depth + 1, d);
		} else if (!dot || has_ext(e, yaml_exts))
			rc = vars_file(p, into, d);
		free(p);
	}
	free_list(names, n);
	return rc;
}

/* group_vars/ or host_vars/ of dir: NAME -> its vars, for each NAME a
 * file or directory there stands for (NAME itself first, then NAME.yml,
 * NAME.yaml, NAME.json: the first that exists). */
static int vars_subdir(const char *dir, const char *sub, json_t *out, struct diag *d)
{
	char *vd = xasprintf("%s/%s", dir, sub);
	size_t n = 0;
	char **names = is_dir(vd) ? list_dir(vd, &n) : NULL;
	int rc = 0;
	json_t *prio = json_object();
	for (size_t i = 0; names && i < n; i++) {
		const char *e = names[i];
		if (e[0] == '.')
			continue;
		/* e stands for NAME e (rank 0) and, with a YAML extension,
		 * for NAME without it (rank 1 to 3) */
		for (int k = 0; k < 4; k++) {
			char *name;
			if (!k)
				name = xstrdup(e);
			else {
				size_t el = strlen(yaml_exts[k - 1]), len = strlen(e);
				if (len <= el || strcmp(e + len - el, yaml_exts[k - 1]))
					continue;
				name = xstrndup(e, len - el);
			}
			json_t *cur = json_object_get(prio, name);
			if (!cur || json_integer_value(json_object_get(cur, "rank")) > k)
				json_object_set_new(prio, name, json_pack("{s:i, s:s}", "rank", k, "file", e));
			free(name);
		}
	}
	const char *name;
	json_t *e;
	json_object_foreach(prio, name, e) {
		char *p = xasprintf("%s/%s", vd, json_string_value(json_object_get(e, "file")));
		json_t *vars = json_object();
		rc = is_dir(p) ? vars_tree(p, vars, 0, d) : vars_file(p, vars, d);
		json_object_set_new(out, name, vars);
		free(p);
		if (rc)
			break;
	}
	json_decref(prio);
	free_list(names, n);
	free(vd);
	return rc;
}

json_t *inventory_vars_dirs(const char *dir, struct diag *d)
{
	json_t *r = json_pack("{s:{}, s:{}}", "group_vars", "host_vars");
	if (vars_subdir(dir, "group_vars", json_object_get(r, "group_vars"), d) < 0 ||
	    vars_subdir(dir, "host_vars", json_object_get(r, "host_vars"), d) < 0) {
		json_decref(r);
		return NULL;
	}
	return r;
}

json_t *inventory_group_priorities(json_t *file, struct diag *d)
{
	json_t *prio = json_object();
	const char *g;
	json_t *vars;
	json_object_foreach(file, g, vars) {
		json_t *p = json_object_get(vars, "ansible_group_priority");
		if (!p)
			continue;
		char *end = NULL;
		long long v = json_is_integer(p) ? json_integer_value(p)
			      : json_is_string(p) ? strtoll(json_string_value(p), &end, 10) : 0;
		if (!json_is_integer(p) && (!json_is_string(p) || end == json_string_value(p) || *end)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "group '%s': ansible_group_priority must be an integer", g);
			json_decref(prio);
			return NULL;
		}
		json_object_set_new(prio, g, json_integer(v));
		json_object_del(vars, "ansible_group_priority");
	}
	return prio;
}
