/* play-load.c: loading play lists into the executor's structures: plays,
 * task lists (module + args resolved once, k=v strings parsed), blocks,
 * static imports inlined, roles found and instantiated (defaults, vars,
 * handlers, parameters, de-duplication). RADL recipes get IM's play header
 * merged in (hosts, gather_facts: false, become: yes). Everything unknown
 * (module, keyword) is reported here with its file:line, before any host is
 * touched: that is the executor's static check. */
#include "config.h"

#include <libgen.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "provision/args.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/play.h"
#include "template/template.h"
#include "util/xalloc.h"
#include "util/banned.h"

bool play_error_unsupported(const struct diag *d)
{
	static const char *const marks[] = { "unsupported ", "no filter named", "no test named",
					     "no lookup plugin named", "not supported", NULL };
	if (!d->nerrors)
		return false;
	for (size_t i = 0; i < d->n; i++) {
		if (d->items[i].level != DIAG_ERROR)
			continue;
		bool hit = false;
		for (const char *const *m = marks; *m; m++)
			if (strstr(d->items[i].msg, *m))
				hit = true;
		if (!hit)
			return false;
	}
	return true;
}

void *play_alloc(struct task_playbook *pb, size_t n)
{
	void *p = xcalloc(1, n);
	pthread_mutex_lock(&pb->lock);
	if (pb->npool == pb->apool) {
		pb->apool = pb->apool ? pb->apool * 2 : 64;
		pb->pool = xreallocarray(pb->pool, pb->apool, sizeof(*pb->pool));
	}
	pb->pool[pb->npool++] = p;
	pthread_mutex_unlock(&pb->lock);
	return p;
}

/* The playbook takes ownership of ref (which may be NULL) until play_free:
 * the pool frees memory, not references. Returns ref, borrowed. */
static json_t *play_keep(struct task_playbook *pb, json_t *ref)
{
	if (!ref)
		return NULL;
	pthread_mutex_lock(&pb->lock);
	if (!pb->refs)
		pb->refs = json_array();
	json_array_append_new(pb->refs, ref);
	pthread_mutex_unlock(&pb->lock);
	return ref;
}

char *play_strdup(struct task_playbook *pb, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = play_alloc(pb, n);
	memcpy(p, s, n);
	return p;
}

static const char *const task_keywords[] = {
	"name", "when", "register", "loop", "loop_control", "until", "retries", "delay",
	"async", "poll", "become", "become_user", "become_method", "become_flags",
	"environment", "args", "ignore_errors", "failed_when", "changed_when", "notify",
	"vars", "tags", "delegate_to", "delegate_facts", "run_once", "listen", "no_log",
	"block", "rescue", "always", "action", "local_action", "connection", "check_mode",
	"diff", "ignore_unreachable", "any_errors_fatal", "throttle", "timeout", "debugger",
	"collections", "module_defaults", "remote_user", "become_exe", "port", NULL,
};

bool play_order_valid(const char *order)
{
	static const char *const orders[] = { "inventory", "reverse_inventory", "sorted",
					      "reverse_sorted", "shuffle", NULL };
	for (const char *const *o = orders; *o; o++)
		if (!strcmp(order, *o))
			return true;
	return false;
}

bool play_percent(json_t *v, double *out)
{
	if (json_is_integer(v) || json_is_real(v)) {
		*out = json_number_value(v);
		return true;
	}
	const char *s = json_string_value(v);
	if (!s || tmpl_has_template(s))
		return false;
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	double d = strtod(s, &end);
	if (end == s)
		return false;
	if (*end == '%')
		end++;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*out = d;
	return true;
}

/* One item of serial as Ansible's pct_to_int reads it: an integer (or
 * its text), or "N%" of the play's hosts rounded down, at least 1. */
static bool serial_item(json_t *v, size_t nhosts, long *out)
{
	if (json_is_integer(v)) {
		*out = (long)json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		*out = (long)json_real_value(v);
		return true;
	}
	const char *s = json_string_value(v);
	if (!s || tmpl_has_template(s))
		return false;
	char *end;
	long n = strtol(s, &end, 10);
	if (end == s)
		return false;
	if (*end == '%' && !end[1]) {
		*out = (long)((double)n / 100.0 * (double)nhosts);
		if (!*out)
			*out = 1;
		return true;
	}
	if (*end)
		return false;
	*out = n;
	return true;
}

bool play_serial_size(json_t *serial, size_t i, size_t nhosts, long *out)
{
	if (!json_is_array(serial))
		return serial_item(serial, nhosts, out);
	size_t n = json_array_size(serial);
	if (!n) {
		*out = 0;
		return true;
	}
	return serial_item(json_array_get(serial, i < n ? i : n - 1), nhosts, out);
}

/* module_defaults as imc carries it out (exec-task.c): a mapping of
 * module names to their default arguments, or a list of such mappings;
 * NULL when v is one, else why not. An action group ('group/NAME') is
 * refused: imc does not know which modules each collection puts in it. */
static const char *module_defaults_refusal(json_t *v)
{
	if (json_is_null(v))
		return NULL;
	json_t *list = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
	const char *why = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *k;
		json_t *a;
		if (!json_is_object(e)) {
			why = "imc reads only mappings of module names";
			break;
		}
		json_object_foreach(e, k, a) {
			if (!strncmp(k, "group/", 6))
				why = "imc does not know the modules of an action group";
			else if (!json_is_object(a) && !json_is_null(a))
				why = "imc reads only a mapping of arguments per module";
		}
	}
	json_decref(list);
	return why;
}

int play_strategy_free(const char *s)
{
	if (!strncmp(s, "ansible.builtin.", 16))
		s += 16;
	if (!strcmp(s, "linear"))
		return 0;
	if (!strcmp(s, "free") || !strcmp(s, "host_pinned"))
		return 1;
	return -1;
}

/* A keyword imc accepts but does not carry out, with a value that would
 * make Ansible do something different from imc (NULL when the value
 * changes nothing imc does): the play then goes to ansible-playbook as a
 * whole, or stops with this error, rather than run with the keyword
 * silently ignored. A templated value of a keyword imc carries out
 * (serial, order...) is refused too: the play loop reads them as
 * written. */
static const char *unenforced_keyword(const char *k, json_t *v)
{
	if (!strcmp(k, "module_defaults"))
		return module_defaults_refusal(v);
	static const char *const any[] = { "vars_prompt", NULL };
	for (const char *const *p = any; *p; p++)
		if (!strcmp(k, *p))
			return json_is_null(v) || (json_is_array(v) && !json_array_size(v)) ||
					       (json_is_object(v) && !json_object_size(v))
				       ? NULL : "imc does not implement it";
	const char *s = json_string_value(v);
	if (!strcmp(k, "serial")) {
		long n;
		bool ok = json_is_null(v) || play_serial_size(v, 0, 1, &n);
		for (size_t i = 0; ok && json_is_array(v) && i < json_array_size(v); i++)
			ok = play_serial_size(v, i, 1, &n);
		return ok ? NULL : "imc reads only integers and percentages, untemplated";
	}
	if (!strcmp(k, "max_fail_percentage")) {
		double pct;
		return json_is_null(v) || play_percent(v, &pct)
			       ? NULL : "imc reads only a number or a percentage, untemplated";
	}
	/* a templated strategy is checked when the play starts (exec-play.c) */
	if (!strcmp(k, "strategy"))
		return s && (play_strategy_free(s) >= 0 || tmpl_has_template(s))
			       ? NULL : "imc runs only the linear, free and host_pinned strategies";
	if (!strcmp(k, "order"))
		return json_is_null(v) || (s && !tmpl_has_template(s))
			       ? NULL : "imc reads only an order written as is, untemplated";
	if (!strcmp(k, "debugger"))
		return s && !strcmp(s, "never") ? NULL : "imc has no interactive debugger";
	if (!strcmp(k, "force_handlers") || !strcmp(k, "any_errors_fatal"))
		return json_is_null(v) || json_is_boolean(v) || (s && args_is_bool(v))
			       ? NULL : "imc reads only a boolean written as is, untemplated";
	return NULL;
}

static int check_unenforced(json_t *raw, const char *what, const struct src_loc *loc,
			    struct diag *d)
{
	int rc = 0;
	const char *k;
	json_t *v;
	json_object_foreach(raw, k, v) {
		/* Ansible's strategy reads a task's or block's any_errors_fatal
		 * untemplated, as Python truth (exec-play.c does too) */
		if (strcmp(what, "play") && !strcmp(k, "any_errors_fatal"))
			continue;
		const char *why = unenforced_keyword(k, v);
		if (why) {
			diag_error(d, IMC_EXIT_DATAERR, loc, "unsupported %s keyword '%s' (%s)", what, k,
				   why);
			rc = -1;
		}
	}
	return rc;
}

static bool is_keyword(const char *k)
{
	if (!strncmp(k, "with_", 5))
		return true;
	for (const char *const *p = task_keywords; *p; p++)
		if (!strcmp(k, *p))
			return true;
	return false;
}

const char *play_short_module(const char *m)
{
	static const char *const prefixes[] = { "ansible.builtin.", "ansible.legacy.",
						"ansible.posix.", "community.general.", NULL };
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(m, *p, strlen(*p)))
			return m + strlen(*p);
	return m;
}

json_t *play_action_value(json_t *raw, const char *action)
{
	json_t *v = json_object_get(raw, action);
	char key[64];
	if (!v && snprintf(key, sizeof(key), "ansible.builtin.%s", action) < (int)sizeof(key))
		v = json_object_get(raw, key);
	if (!v && snprintf(key, sizeof(key), "ansible.legacy.%s", action) < (int)sizeof(key))
		v = json_object_get(raw, key);
	return v;
}

static const char *const engine_modules[] = {
	"include_tasks", "import_tasks", "include", "include_role", "import_role", "meta",
	"import_playbook", NULL,
};

static bool is_engine_module(const char *m)
{
	for (const char *const *p = engine_modules; *p; p++)
		if (!strcmp(m, *p))
			return true;
	return false;
}

/* The modules Ansible's parser lets take free-form text (its
 * RAW_PARAM_MODULES, Windows' left out). */
static const char *const raw_param_modules[] = {
	"command", "shell", "script", "raw", "include", "include_tasks", "include_role",
	"import_tasks", "import_role", "include_vars", "meta", "set_fact", "add_host", "group_by",
	NULL,
};

/* Free-form text (no k=v) given to a module that takes none, as
 * written: Ansible's parser refuses it at load, unless the text is a
 * template (its mapping is merged at run time: exec-task.c). */
static bool free_text_refused(json_t *args, const char *written)
{
	const char *rp = json_string_value(json_object_get(args, "_raw_params"));
	if (!rp || !*rp || tmpl_has_template(rp))
		return false;
	const char *base = strrchr(written, '.');
	base = base ? base + 1 : written;
	for (size_t i = 0; raw_param_modules[i]; i++)
		if (!strcmp(base, raw_param_modules[i]))
			return false;
	return true;
}

/* Whether a k=v in the module's free-form text stays part of the text
 * (Ansible's FREEFORM_ACTIONS: command, shell, script, raw) rather than
 * being an argument of its own, as it is for include, include_tasks,
 * import_tasks and meta (file.yml a=1: the file and a=1). */
static bool is_free_form(const char *m)
{
	const struct task_module *mod = task_module_find(m);
	return mod && mod->free_form;
}

/* Checks template syntax and filter names of every string inside v. */
static int check_strings(json_t *v, bool is_expr, const struct src_loc *loc, struct diag *d)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (!is_expr && !tmpl_has_template(s))
			return 0;
		struct diag tmp = DIAG_INIT;
		bool expr = is_expr && !tmpl_has_template(s);
		if (tmpl_check(s, expr, NULL, &tmp) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, loc, "%s", diag_first_message(&tmp));
			diag_release(&tmp);
			return -1;
		}
		diag_release(&tmp);
		return 0;
	}
	int rc = 0;
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			rc |= check_strings(e, is_expr, loc, d);
	} else if (json_is_object(v)) {
		const char *k;
		json_t *e;
		json_object_foreach(v, k, e)
			rc |= check_strings(e, is_expr, loc, d);
	}
	return rc;
}

/* ---- what Ansible runs for imc (exec-fallback.c) ---------------------------- */

/* Whether t is loaded by a dynamic include (include_tasks, include_role):
 * Ansible loads such a file when the include runs. */
static bool in_dynamic_include(const struct ptask *t)
{
	for (const struct ptask *p = t->parent; p; p = p->parent)
		if (p->module && (!strcmp(p->module, "include_tasks") || !strcmp(p->module, "include_role")))
			return true;
	return false;
}

/* t will run under Ansible: listed for the static check and the reports. */
static void mark_fallback(struct task_playbook *pb, struct ptask *t, const char *written,
			  const struct src_loc *loc, const char *why)
{
	t->fallback = written;
	t->module = written;
	pthread_mutex_lock(&pb->lock);
	if (!pb->fallbacks)
		pb->fallbacks = json_array();
	json_array_append_new(pb->fallbacks, json_pack("{s:s, s:i, s:s, s:s, s:s}", "file",
						       loc->file ? loc->file : "", "line", loc->line,
						       "task", json_string_value(json_object_get(t->raw, "name"))
						       ? json_string_value(json_object_get(t->raw, "name")) : written,
						       "module", written, "why", why));
	pthread_mutex_unlock(&pb->lock);
}

/* A module imc does not implement: Ansible runs the task when it knows
 * the module; a name neither knows is Ansible's load error; without an
 * Ansible to run it, an error here, or at run time in a dynamically
 * included file (where a task that does not run does not fail). */
static int unknown_module(struct task_playbook *pb, struct ptask *t, const char *written,
			  const char *module, const struct src_loc *loc, struct diag *d)
{
	if (fallback_available()) {
		char *lib = fallback_libdirs(pb, t->role);
		bool known = fallback_resolve(written, lib);
		free(lib);
		if (known) {
			mark_fallback(pb, t, written, loc, "module not implemented by imc");
			return 0;
		}
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "couldn't resolve module/action '%s'. This often indicates a misspelling, "
			   "missing collection, or incorrect module path.", written);
		return -1;
	}
	char *msg = xasprintf("unsupported module '%s'%s", module,
			      fallback_disabled() ? " (and IMC_NO_FALLBACK or --no-fallback forbids running it under Ansible)"
						  : " (and Ansible is not installed to run it)");
	if (in_dynamic_include(t)) {
		t->unrunnable = play_strdup(pb, msg);
		t->fallback = NULL;
		free(msg);
		return 0;
	}
	diag_error(d, IMC_EXIT_DATAERR, loc, "%s", msg);
	free(msg);
	return -1;
}

/* Whether every error of a module's static check is one Ansible's argument
 * validation reports when the task runs (a missing required argument, no
 * command): Ansible fails that task then, which ignore_errors or a rescue
 * may catch, and runs the tasks before it. The modules whose check says
 * so repeat the test in their run, with Ansible's message. */
static bool runtime_argument_error(const struct diag *cd)
{
	if (!cd->nerrors)
		return false;
	for (size_t i = 0; i < cd->n; i++)
		if (cd->items[i].level == DIAG_ERROR && !strstr(cd->items[i].msg, "missing required arguments: ") &&
		    strcmp(cd->items[i].msg, "no command given"))
			return false;
	return true;
}

/* A native module's static check: an argument imc does not implement
 * hands the task to Ansible when it can run it, else is the error. */
static int check_module_args(struct task_playbook *pb, struct ptask *t,
			     const struct task_module *mod, const char *written, json_t *args,
			     const struct src_loc *loc, struct diag *d)
{
	struct diag cd = DIAG_INIT;
	int rc = 0;
	int checked = mod->check ? mod->check(args, &cd, loc)
				 : mod_check_params(mod->name, args, mod->params, &cd, loc);
	if (checked < 0 && !runtime_argument_error(&cd)) {
		char *lib = NULL;
		if (play_error_unsupported(&cd) && fallback_available() &&
		    fallback_resolve(written, lib = fallback_libdirs(pb, t->role))) {
			mark_fallback(pb, t, written, loc, diag_first_message(&cd));
		} else {
			for (size_t i = 0; i < cd.n; i++) {
				const struct diag_item *it = &cd.items[i];
				struct src_loc l = { it->file, it->line, it->col };
				if (it->level == DIAG_ERROR)
					diag_error(d, cd.code, it->line ? &l : NULL, "%s", it->msg);
				else if (it->level == DIAG_WARNING)
					diag_warning(d, it->line ? &l : NULL, "%s", it->msg);
				else
					diag_note(d, it->line ? &l : NULL, "%s", it->msg);
			}
			rc = -1;
		}
		free(lib);
	}
	diag_release(&cd);
	return rc;
}

/* Keywords of a task Ansible runs that imc cannot hand over with it: the
 * task is then outside what imc runs (and the whole playbook goes to
 * ansible-playbook when it can). */
static int fallback_keywords(const struct ptask *t, const struct src_loc *loc, struct diag *d)
{
	static const char *const kws[] = { "async", NULL };
	for (const char *const *k = kws; *k; k++)
		if (json_object_get(t->raw, *k)) {
			diag_error(d, IMC_EXIT_DATAERR, loc,
				   "unsupported keyword '%s' on a task run by Ansible (module '%s')", *k,
				   t->fallback);
			return -1;
		}
	return 0;
}

/* The arguments of a task include as Ansible's TaskInclude takes them:
 * include_tasks and import_tasks take a file (and include_tasks apply),
 * any other is refused at load in Ansible's words; the legacy include's
 * others are variables of the tasks it brings, templated when it runs
 * (exec-play.c's legacy_include_vars). */
static int include_options(json_t *args, const char *written, const struct src_loc *loc, struct diag *d)
{
	bool legacy = !strcmp(play_short_module(written), "include");
	bool is_import = !strcmp(play_short_module(written), "import_tasks");
	struct strbuf bad = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v) {
		if (!legacy && strcmp(k, "_raw_params") && strcmp(k, "file") && strcmp(k, "apply"))
			strbuf_addf(&bad, "%s%s", bad.len ? "," : "", k);
	}
	if (!bad.len && is_import && json_object_get(args, "apply"))
		strbuf_addstr(&bad, "apply");
	int rc = 0;
	if (bad.len) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "Invalid options for %s: %s", written, bad.buf);
		rc = -1;
	}
	strbuf_release(&bad);
	return rc;
}

/* A name loaded statically, templated as Ansible templates it then (the
 * loading play's variables under the extra vars); NULL when it is no
 * template or cannot be templated yet (then taken as written). */
static char *static_name(struct task_playbook *pb, const char *name)
{
	if (!tmpl_has_template(name))
		return NULL;
	json_t *vars = pb->loading_play_vars ? json_deep_copy(pb->loading_play_vars) : json_object();
	if (pb->extra_vars)
		json_object_update(vars, pb->extra_vars);
	struct tmpl_env env = { .vars = vars };
	struct diag td = DIAG_INIT;
	char *r = tmpl_render_text(&env, name, &td);
	diag_release(&td);
	json_decref(vars);
	return r;
}

static struct ptask *parse_task(struct task_playbook *pb, json_t *raw, const struct yaml_doc *ydoc,
				const char *file, const char *dir, struct task_role *role,
				struct ptask *parent, bool handler, struct diag *d);

int play_parse_tasks(struct task_playbook *pb, json_t *list, const struct yaml_doc *ydoc,
		     const char *file, const char *dir, struct task_role *role,
		     struct ptask *parent, bool handler, struct ptask ***out, size_t *nout,
		     struct diag *d)
{
	*out = NULL;
	*nout = 0;
	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list)) {
		struct src_loc loc = { file, yaml_line_of(ydoc, list), yaml_col_of(ydoc, list) };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "a task list must be a YAML list");
		return -1;
	}
	size_t i;
	json_t *e;
	int rc = 0;
	struct ptask **v = play_alloc(pb, (json_array_size(list) + 1) * sizeof(*v));
	size_t n = 0;
	json_array_foreach(list, i, e) {
		struct ptask *t = parse_task(pb, e, ydoc, file, dir, role, parent, handler, d);
		if (!t) {
			rc = -1;
			continue;
		}
		v[n++] = t;
	}
	*out = v;
	*nout = n;
	return rc;
}

static int load_yaml_file(const char *path, json_t **out, struct yaml_doc **ydoc, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s': %m", path);
		strbuf_release(&sb);
		return -1;
	}
	*out = yaml_load(sb.buf ? sb.buf : "", sb.len, path, 0, ydoc, d);
	/* kept so that an error found in it later shows the offending line;
	 * an encrypted file's lines are those of its plaintext, not shown */
	if (sb.len && strncmp(sb.buf, "$ANSIBLE_VAULT", 14) != 0)
		diag_add_source(d, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return *out ? 0 : -1;
}

static bool file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool dir_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *dir_of(const char *path)
{
	char *c = xstrdup(path);
	char *r = xstrdup(dirname(c));
	free(c);
	return r;
}

/* Loads a static tasks file into an import wrapper. */
static struct ptask *import_tasks(struct task_playbook *pb, struct ptask *t, const char *fname,
				  struct diag *d, const struct src_loc *loc)
{
	char *path = NULL;
	if (fname[0] == '/')
		path = xstrdup(fname);
	else {
		const char *cands[4] = { t->dir, NULL, NULL, NULL };
		char *c1 = t->role ? xasprintf("%s/tasks", t->role->dir) : NULL;
		cands[1] = c1;
		cands[2] = pb->dir;
		for (int i = 0; i < 3 && !path; i++) {
			if (!cands[i])
				continue;
			char *p = xasprintf("%s/%s", cands[i], fname);
			if (file_exists(p))
				path = p;
			else
				free(p);
		}
		free(c1);
	}
	if (!path) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "cannot find tasks file '%s'", fname);
		return NULL;
	}
	json_t *list;
	struct yaml_doc *ydoc = NULL;
	if (load_yaml_file(path, &list, &ydoc, d) < 0) {
		free(path);
		return NULL;
	}
	const char *pfile = play_strdup(pb, path);
	char *dd = dir_of(path);
	const char *pdir = play_strdup(pb, dd);
	free(dd);
	free(path);
	t->is_block = true;
	t->module = NULL;
	/* under handlers:, what it imports are handlers */
	int rc = play_parse_tasks(pb, list, ydoc, pfile, pdir, t->role, t, t->is_handler, &t->block,
				  &t->nblock, d);
	yaml_doc_free(ydoc);
	json_decref(list);
	return rc < 0 ? NULL : t;
}

/* A vars keyword as Ansible loads it: a mapping, or a list of mappings
 * merged in order (later names win), null as none; normalised in place
 * in owner so that every reader sees one mapping. what is Ansible's class
 * name for its error (Play, Block, Task). */
static int load_vars(json_t *owner, const char *what, const struct src_loc *loc, struct diag *d)
{
	json_t *v = json_object_get(owner, "vars");
	if (!v || json_is_object(v))
		return 0;
	json_t *all = json_object();
	size_t i;
	json_t *e;
	if (json_is_array(v))
		json_array_foreach(v, i, e) {
			if (!json_is_object(e))
				goto bad;
			json_object_update(all, e);
		}
	else if (!json_is_null(v))
		goto bad;
	json_object_set_new(owner, "vars", all);
	return 0;
bad:
	json_decref(all);
	diag_error(d, IMC_EXIT_DATAERR, loc,
		   "Vars in a %s must be specified as a dictionary, or a list of dictionaries", what);
	return -1;
}

static struct ptask *parse_task(struct task_playbook *pb, json_t *raw, const struct yaml_doc *ydoc,
				const char *file, const char *dir, struct task_role *role,
				struct ptask *parent, bool handler, struct diag *d)
{
	struct src_loc loc = { file, yaml_line_of(ydoc, raw), yaml_col_of(ydoc, raw) };
	if (!json_is_object(raw)) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "a task must be a YAML mapping");
		return NULL;
	}
	struct ptask *t = play_alloc(pb, sizeof(*t));
	t->raw = play_keep(pb, json_incref(raw));
	t->file = file;
	t->line = loc.line;
	t->col = yaml_col_of(ydoc, raw);
	t->dir = dir;
	t->role = role;
	t->parent = parent;
	t->is_handler = handler;

	/* checked at load, as Ansible does, so even a skipped task stops the play */
	json_t *reg = json_object_get(raw, "register");
	if (reg) {
		char *name = json_is_string(reg) ? xstrdup(json_string_value(reg))
			     : json_is_integer(reg) ? xasprintf("%lld", (long long)json_integer_value(reg))
			     : NULL;
		if (!name || !args_identifier(name)) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "Invalid variable name in 'register' specified: '%s'",
				   name ? name : "(not a string)");
			free(name);
			return NULL;
		}
		free(name);
	}

	if (load_vars(raw, json_object_get(raw, "block") ? "Block" : "Task", &loc, d) < 0)
		return NULL;
	int rc = 0;
	/* a block of handlers is one, a block within it is refused */
	if (json_object_get(raw, "block") && handler && parent && json_object_get(parent->raw, "block")) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "Using a block as a handler is not supported.");
		return NULL;
	}
	if (json_object_get(raw, "block")) {
		t->is_block = true;
		rc |= play_parse_tasks(pb, json_object_get(raw, "block"), ydoc, file, dir, role, t,
				       handler, &t->block, &t->nblock, d);
		rc |= play_parse_tasks(pb, json_object_get(raw, "rescue"), ydoc, file, dir, role, t,
				       handler, &t->rescue, &t->nrescue, d);
		rc |= play_parse_tasks(pb, json_object_get(raw, "always"), ydoc, file, dir, role, t,
				       handler, &t->always, &t->nalways, d);
		const char *k;
		json_t *v;
		json_object_foreach(raw, k, v)
			if (!is_keyword(k)) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "unsupported keyword '%s' on a block", k);
				rc = -1;
			}
		rc |= check_unenforced(raw, "block", &loc, d);
		const char *name = json_string_value(json_object_get(raw, "name"));
		t->display = play_strdup(pb, name ? name : "block");
		return rc < 0 ? NULL : t;
	}

	/* find the module */
	const char *module = NULL, *written = NULL; /* written: the name as the task gives it */
	json_t *margs = NULL;
	const char *k;
	json_t *v;
	json_object_foreach(raw, k, v) {
		if (is_keyword(k) && strcmp(k, "action") && strcmp(k, "local_action"))
			continue;
		if (module) {
			diag_error(d, IMC_EXIT_DATAERR, &loc,
				   "conflicting action statements: %s, %s", module, k);
			json_decref(margs);
			return NULL;
		}
		if (!strcmp(k, "action") || !strcmp(k, "local_action")) {
			if (json_is_string(v)) {
				const char *s = json_string_value(v);
				size_t n = strcspn(s, " \t\n");
				char *m = xstrndup(s, n);
				written = play_strdup(pb, m);
				module = play_strdup(pb, play_short_module(m));
				free(m);
				margs = json_string(s + n + strspn(s + n, " \t\n"));
			} else if (json_is_object(v) && json_is_string(json_object_get(v, "module"))) {
				written = play_strdup(pb, json_string_value(json_object_get(v, "module")));
				module = play_strdup(pb, play_short_module(written));
				margs = json_deep_copy(v);
				json_object_del(margs, "module");
			} else {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "malformed '%s'", k);
				return NULL;
			}
		} else {
			written = play_strdup(pb, k);
			module = play_strdup(pb, play_short_module(k));
			margs = json_incref(v);
		}
	}
	if (!module) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "no module/action detected in task");
		return NULL;
	}
	/* local_action is the action delegated to localhost, whatever
	 * delegate_to says (Ansible's parser sets it so) */
	if (json_object_get(raw, "local_action"))
		json_object_set_new(raw, "delegate_to", json_string("localhost"));
	t->action = written;
	if (t->is_handler && (!strcmp(module, "include_role") || !strcmp(module, "import_role"))) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "Using '%s' as a handler is not supported.", written);
		json_decref(margs);
		return NULL;
	}
	if (!strcmp(module, "include"))
		module = "include_tasks";
	if (!strcmp(module, "systemd_service"))
		module = "systemd";
	const struct task_module *mod = task_module_find(module);
	if (!mod && !is_engine_module(module) &&
	    unknown_module(pb, t, written, module, &loc, d) < 0) {
		json_decref(margs);
		return NULL;
	}
	if (mod)
		module = mod->name;
	t->module = t->fallback ? t->fallback : module;
	json_t *args;
	if (json_is_string(margs))
		args = args_parse_kv(json_string_value(margs), is_free_form(module), d);
	else if (json_is_object(margs))
		args = json_deep_copy(margs);
	else if (!margs || json_is_null(margs))
		args = json_object();
	else if (json_is_array(margs) && !strcmp(module, "argv")) {
		args = json_object();
	} else {
		args = json_object();
		json_object_set(args, "_raw_params", margs);
	}
	json_decref(margs);
	if (free_text_refused(args, written)) {
		/* Ansible's parser error; it lists the modules in no fixed order */
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; raw_param_modules[i]; i++)
			strbuf_addf(&sb, "%s%s, ansible.builtin.%s, ansible.legacy.%s", i ? ", " : "",
				    raw_param_modules[i], raw_param_modules[i], raw_param_modules[i]);
		diag_error(d, IMC_EXIT_DATAERR, &loc,
			   "this task '%s' has extra params, which is only allowed in the following "
			   "modules: %s", written, strbuf_str(&sb));
		strbuf_release(&sb);
		json_decref(args);
		return NULL;
	}
	json_t *extra = json_object_get(raw, "args");
	if (json_is_object(extra)) {
		json_t *merged = json_deep_copy(extra);
		json_object_update(merged, args);
		json_decref(args);
		args = merged;
	}
	if ((!strcmp(module, "include_tasks") || !strcmp(module, "import_tasks")) &&
	    include_options(args, written, &loc, d) < 0) {
		json_decref(args);
		return NULL;
	}
	t->args = play_keep(pb, args);

	const char *name = json_string_value(json_object_get(raw, "name"));
	/* an unnamed task is shown by its action as written (its FQCN), an
	 * include_role by "ACTION : ROLE" (Ansible's IncludeRole.get_name) */
	const char *irole = !strcmp(module, "include_role")
				    ? args_str(args, "name") ? args_str(args, "name") : args_str(args, "role")
				    : NULL;
	if (!name && irole) {
		char *n = xasprintf("%s : %s", written ? written : module, irole);
		t->display = play_strdup(pb, n);
		free(n);
	} else
		t->display = play_strdup(pb, name ? name : written ? written : module);
	if (role) {
		char *p = xasprintf("%s : %s", role->name, t->display);
		t->display = play_strdup(pb, p);
		free(p);
	}

	/* static check of keywords and templates */
	json_object_foreach(raw, k, v) {
		if (!strncmp(k, "with_", 5)) {
			const char *lk = k + 5;
			if (strcmp(lk, "items") && strcmp(lk, "list") && strcmp(lk, "dict") &&
			    !tmpl_has_lookup(lk)) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "unsupported loop 'with_%s'", lk);
				rc = -1;
			}
		}
		if (!strcmp(k, "when") || !strcmp(k, "failed_when") || !strcmp(k, "changed_when") ||
		    !strcmp(k, "until"))
			rc |= check_strings(v, true, &loc, d);
		else if (!strcmp(k, "delegate_to") || !strcmp(k, "connection") || !strcmp(k, "run_once")) {
			/* accepted: delegate_to localhost / run_once handled by the engine */
		}
	}
	rc |= check_unenforced(raw, "task", &loc, d);
	rc |= check_strings(args, false, &loc, d);
	if (mod && (mod->check || mod->params) && check_module_args(pb, t, mod, written, args, &loc, d) < 0)
		rc = -1;
	if (t->fallback && fallback_keywords(t, &loc, d) < 0)
		rc = -1;
	if (rc < 0)
		return NULL;

	/* static imports */
	if (!strcmp(module, "import_tasks")) {
		const char *f = args_str(args, "_raw_params");
		if (!f)
			f = args_str(args, "file");
		if (!f) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "import_tasks needs a file name");
			return NULL;
		}
		return import_tasks(pb, t, f, d, &loc);
	}
	if (!strcmp(module, "import_role")) {
		const char *rn = args_str(args, "name");
		if (!rn) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "import_role needs a name");
			return NULL;
		}
		/* Ansible templates the name as it loads the import, with the
		 * play's variables and the extra vars (no host's) */
		char *templated = static_name(pb, rn);
		struct ptask *w = NULL;
		struct task_role *r = play_load_role(pb, templated ? templated : rn, NULL, dir, args, &w, t, d);
		free(templated);
		if (!r)
			return NULL;
		t->is_block = true;
		t->module = NULL;
		t->block = play_alloc(pb, sizeof(struct ptask *));
		t->block[0] = w;
		t->nblock = 1;
	}
	return t;
}

/* ---- roles --------------------------------------------------------------- */

static char *find_role_dir(struct task_playbook *pb, const char *name, const char *from_dir)
{
	struct strbuf cands = STRBUF_INIT;
	if (from_dir)
		strbuf_addf(&cands, "%s/roles:%s:", from_dir, from_dir);
	if (pb->dir)
		strbuf_addf(&cands, "%s/roles:%s:", pb->dir, pb->dir);
	if (pb->roles_path)
		strbuf_addf(&cands, "%s:", pb->roles_path);
	const char *env = getenv("IMC_ROLES_PATH");
	if (env)
		strbuf_addf(&cands, "%s:", env);
	strbuf_addstr(&cands, "recipes/roles:" IMC_SRCDIR "/recipes/roles:" IMC_DATADIR "/roles:"
			      IMC_DATADIR "/recipes/roles");
	char *r = NULL;
	const char *p = cands.buf;
	while (p && *p && !r) {
		size_t n = strcspn(p, ":");
		if (n) {
			char *base = xstrndup(p, n);
			char *cand = xasprintf("%s/%s", base, name);
			if (dir_exists(cand))
				r = cand;
			else
				free(cand);
			free(base);
		}
		p += n;
		if (*p == ':')
			p++;
	}
	strbuf_release(&cands);
	return r;
}

/* tasks/main.yml or tasks/main.yaml or tasks/main */
static char *role_file(const char *dir, const char *sub, const char *base)
{
	static const char *const exts[] = { ".yml", ".yaml", "", NULL };
	for (const char *const *e = exts; *e; e++) {
		char *p = xasprintf("%s/%s/%s%s", dir, sub, base, *e);
		if (file_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

/* A role's file sub/NAME: from (an import_role/include_role's arguments,
 * may be NULL) names it with SUB_from, else main. A file named but absent
 * is Ansible's error; *path gets the file (NULL when none). */
static int role_from_file(const char *dir, const char *sub, json_t *from, char **path,
			  struct diag *d)
{
	char *key = xasprintf("%s_from", sub);
	const char *name = args_str(from, key);
	free(key);
	*path = role_file(dir, sub, name ? name : "main");
	if (!*path && name) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "Could not find specified file in role: %s/%s", sub,
			   name);
		return -1;
	}
	return 0;
}

static json_t *role_vars_file(const char *dir, const char *sub, json_t *from, struct diag *d, int *rc)
{
	char *p = NULL;
	if (role_from_file(dir, sub, from, &p, d) < 0)
		*rc = -1;
	if (!p)
		return json_object();
	json_t *v = NULL;
	struct yaml_doc *ydoc = NULL;
	if (load_yaml_file(p, &v, &ydoc, d) < 0)
		*rc = -1;
	yaml_doc_free(ydoc);
	if (v && json_is_null(v)) {
		json_decref(v);
		v = json_object();
	}
	if (v && !json_is_object(v)) {
		struct src_loc loc = { p, 1, 1 };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "role variables must be a YAML mapping");
		json_decref(v);
		v = NULL;
		*rc = -1;
	}
	free(p);
	return v ? v : json_object();
}


struct task_role *play_load_role(struct task_playbook *pb, const char *name, json_t *params,
				 const char *from_dir, json_t *from,
				 struct ptask **wrapper, struct ptask *parent, struct diag *d)
{
	const char *tasks_from = args_str(from, "tasks_from");
	char *dir = find_role_dir(pb, name, from_dir);
	if (!dir) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "the role '%s' was not found (searched roles/ next to the playbook, "
			   "the roles path, $IMC_ROLES_PATH and recipes/roles)", name);
		return NULL;
	}
	int rc = 0;
	struct task_role *r = play_alloc(pb, sizeof(*r));
	r->name = play_strdup(pb, name);
	r->dir = play_strdup(pb, dir);
	free(dir);
	r->defaults = play_keep(pb, role_vars_file(r->dir, "defaults", from, d, &rc));
	r->vars = play_keep(pb, role_vars_file(r->dir, "vars", from, d, &rc));
	r->params = play_keep(pb, params ? json_incref(params) : json_object());

	struct ptask *w = play_alloc(pb, sizeof(*w));
	w->is_block = true;
	w->role = r;
	w->parent = parent;
	w->raw = play_keep(pb, json_object());
	w->display = r->name;
	w->dir = r->dir;
	w->file = r->dir;
	/* a role include_role or import_role brings runs each time (Ansible
	 * loads it apart from its play's role cache); one in roles: or a
	 * dependency runs once per host in the play */
	w->role_start = !from;
	char *pj = json_dumps(r->params, JSON_COMPACT | JSON_SORT_KEYS);
	char *key = xasprintf("%s\n%s", r->dir, pj ? pj : "");
	r->key = play_strdup(pb, key);
	free(key);
	free(pj);

	/* meta dependencies run first */
	char *meta = role_file(r->dir, "meta", "main");
	struct ptask **deps = NULL;
	size_t ndeps = 0;
	if (meta) {
		json_t *m = NULL;
		struct yaml_doc *ydoc = NULL;
		if (load_yaml_file(meta, &m, &ydoc, d) < 0)
			rc = -1;
		r->allow_duplicates = args_bool(json_object_get(m, "allow_duplicates"), false);
		json_t *dl = json_object_get(m, "dependencies");
		if (json_is_array(dl) && json_array_size(dl)) {
			deps = play_alloc(pb, json_array_size(dl) * sizeof(*deps));
			size_t i;
			json_t *e;
			json_array_foreach(dl, i, e) {
				const char *dn = json_is_string(e) ? json_string_value(e)
						 : json_string_value(json_object_get(e, "role"));
				if (!dn)
					dn = json_string_value(json_object_get(e, "name"));
				if (!dn)
					continue;
				json_t *dp = json_is_object(e) ? json_deep_copy(e) : json_object();
				json_object_del(dp, "role");
				json_object_del(dp, "name");
				struct ptask *dw = NULL;
				if (!play_load_role(pb, dn, dp, r->dir, NULL, &dw, w, d))
					rc = -1;
				else
					deps[ndeps++] = dw;
				json_decref(dp);
			}
		}
		json_decref(m);
		yaml_doc_free(ydoc);
		free(meta);
	}

	char *tf = role_file(r->dir, "tasks", tasks_from ? tasks_from : "main");
	struct ptask **tasks = NULL;
	size_t ntasks = 0;
	if (tf) {
		json_t *list = NULL;
		struct yaml_doc *ydoc = NULL;
		if (load_yaml_file(tf, &list, &ydoc, d) < 0)
			rc = -1;
		else {
			char *tdir = dir_of(tf);
			rc |= play_parse_tasks(pb, list, ydoc, play_strdup(pb, tf), play_strdup(pb, tdir),
					       r, w, false, &tasks, &ntasks, d);
			free(tdir);
		}
		json_decref(list);
		yaml_doc_free(ydoc);
		free(tf);
	} else if (tasks_from) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "role '%s' has no tasks file '%s'", name, tasks_from);
		rc = -1;
	}
	w->block = play_alloc(pb, (ndeps + ntasks + 1) * sizeof(*w->block));
	for (size_t i = 0; i < ndeps; i++)
		w->block[w->nblock++] = deps[i];
	for (size_t i = 0; i < ntasks; i++)
		w->block[w->nblock++] = tasks[i];

	char *hf = NULL;
	if (role_from_file(r->dir, "handlers", from, &hf, d) < 0)
		rc = -1;
	if (hf) {
		json_t *list = NULL;
		struct yaml_doc *ydoc = NULL;
		if (load_yaml_file(hf, &list, &ydoc, d) < 0)
			rc = -1;
		else {
			char *hdir = dir_of(hf);
			rc |= play_parse_tasks(pb, list, ydoc, play_strdup(pb, hf), play_strdup(pb, hdir),
					       r, w, true, &r->handlers, &r->nhandlers, d);
			free(hdir);
		}
		json_decref(list);
		yaml_doc_free(ydoc);
		free(hf);
	}
	if (rc < 0)
		return NULL;
	*wrapper = w;
	return r;
}

/* ---- include_tasks at run time -------------------------------------------- */

int play_load_tasks_file(struct task_playbook *pb, const char *path, struct task_role *role,
			 struct ptask *parent, struct ptask ***out, size_t *nout, struct diag *d)
{
	json_t *list;
	struct yaml_doc *ydoc = NULL;
	if (load_yaml_file(path, &list, &ydoc, d) < 0)
		return -1;
	char *dd = dir_of(path);
	int rc = play_parse_tasks(pb, list, ydoc, play_strdup(pb, path), play_strdup(pb, dd), role,
				  parent, parent && parent->is_handler, out, nout, d);
	free(dd);
	yaml_doc_free(ydoc);
	json_decref(list);
	return rc;
}

/* ---- plays --------------------------------------------------------------- */

static const char *const play_keywords[] = {
	"name", "hosts", "gather_facts", "vars", "vars_files", "pre_tasks", "tasks", "post_tasks",
	"handlers", "roles", "become", "become_user", "become_method", "environment", "tags",
	"connection", "remote_user", "serial", "strategy", "any_errors_fatal", "ignore_errors",
	"max_fail_percentage", "order", "no_log", "collections", "module_defaults", "force_handlers",
	"gather_subset", "gather_timeout", "check_mode", "diff", "port", "vars_prompt", "throttle",
	"timeout", "run_once", "debugger", "user", NULL,
};

/* Ansible's checks of a play's own fields, in its words: hosts given
 * empty, task sections that are not lists, user with remote_user, a
 * vars_prompt entry without a name. */
static int play_fields_check(json_t *raw, const struct src_loc *loc, struct diag *d)
{
	int rc = 0;
	json_t *hosts = json_object_get(raw, "hosts");
	if (hosts && (json_is_null(hosts) || (json_is_array(hosts) && !json_array_size(hosts)) ||
		      (json_is_string(hosts) && !json_string_length(hosts)))) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "Hosts list cannot be empty. Please check your playbook");
		rc = -1;
	}
	static const char *const sections[] = { "tasks", "pre_tasks", "post_tasks", "handlers", NULL };
	for (size_t i = 0; sections[i]; i++) {
		json_t *v = json_object_get(raw, sections[i]);
		if (!v || json_is_null(v) || json_is_array(v))
			continue;
		if (i == 0) {
			struct strbuf sb = STRBUF_INIT;
			args_pystr(&sb, v);
			diag_error(d, IMC_EXIT_DATAERR, loc,
				   "A malformed block was encountered while loading tasks: %s should be a "
				   "list or None but is <class '%s'>", strbuf_str(&sb), mod_pytype(v));
			strbuf_release(&sb);
		} else
			diag_error(d, IMC_EXIT_DATAERR, loc,
				   "A malformed block was encountered while loading %s", sections[i]);
		rc = -1;
	}
	if (json_object_get(raw, "user") && json_object_get(raw, "remote_user")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "both 'user' and 'remote_user' are set for this play.");
		rc = -1;
	}
	json_t *vp = json_object_get(raw, "vars_prompt");
	size_t i;
	json_t *e;
	json_array_foreach(vp, i, e)
		if (!json_is_object(e) || !json_object_get(e, "name")) {
			diag_error(d, IMC_EXIT_DATAERR, loc,
				   "Invalid vars_prompt data structure, missing 'name' key");
			return -1;
		}
	return rc;
}

static int parse_roles(struct task_playbook *pb, struct task_play *p, json_t *roles,
		       const struct yaml_doc *ydoc, const char *file, struct diag *d)
{
	if (!roles || json_is_null(roles))
		return 0;
	struct src_loc loc = { file, yaml_line_of(ydoc, roles), yaml_col_of(ydoc, roles) };
	if (!json_is_array(roles)) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "A malformed role declaration was encountered.");
		return -1;
	}
	static const char *const role_kw[] = { "role", "name", "when", "tags", "become",
					       "become_user", "become_method", "vars",
					       "environment", "ignore_errors", "delegate_to",
					       "no_log", "connection", NULL };
	p->roles = play_alloc(pb, (json_array_size(roles) + 1) * sizeof(*p->roles));
	json_t *seen = json_array();
	size_t i;
	json_t *e;
	int rc = 0;
	json_array_foreach(roles, i, e) {
		struct src_loc eloc = { file, yaml_line_of(ydoc, e), 1 };
		const char *name;
		json_t *params = json_object();
		json_t *kws = json_object();
		if (json_is_string(e))
			name = json_string_value(e);
		else if (json_is_object(e)) {
			name = json_string_value(json_object_get(e, "role"));
			if (!name)
				name = json_string_value(json_object_get(e, "name"));
			const char *k;
			json_t *v;
			json_object_foreach(e, k, v) {
				bool kw = false;
				for (const char *const *r = role_kw; *r; r++)
					if (!strcmp(k, *r))
						kw = true;
				if (!kw)
					json_object_set(params, k, v);
				else if (strcmp(k, "role") && strcmp(k, "name"))
					json_object_set(kws, k, v);
			}
		} else
			name = NULL;
		if (name && strchr(name, ',')) {
			diag_error(d, IMC_EXIT_DATAERR, &eloc, "Invalid old style role requirement: %s", name);
			rc = -1;
			json_decref(params);
			json_decref(kws);
			continue;
		}
		if (!name) {
			diag_error(d, IMC_EXIT_DATAERR, &eloc, "a role entry needs a 'role' name");
			rc = -1;
			json_decref(params);
			json_decref(kws);
			continue;
		}
		/* a role listed twice with identical parameters runs once */
		json_t *key = json_pack("{s:s, s:O, s:O}", "n", name, "p", params, "k", kws);
		bool dup = false;
		size_t j;
		json_t *s;
		json_array_foreach(seen, j, s)
			if (json_equal(s, key))
				dup = true;
		if (dup) {
			json_decref(key);
			json_decref(params);
			json_decref(kws);
			continue;
		}
		json_array_append_new(seen, key);
		struct ptask *w = NULL;
		if (!play_load_role(pb, name, params, pb->dir, NULL, &w, NULL, d)) {
			/* add the position to the role error */
			diag_note(d, &eloc, "role '%s' is used here", name);
			rc = -1;
		} else {
			w->raw = play_keep(pb, json_incref(kws));
			p->roles[p->nroles++] = w;
		}
		json_decref(params);
		json_decref(kws);
	}
	json_decref(seen);
	return rc;
}

/* One vars_files file into vars, as Ansible's variable manager reads it:
 * a mapping, or a list of mappings merged in order; an empty file adds
 * nothing; anything else is an error in Ansible's words. A
 * vault-encrypted file is decrypted by yaml_load. */
static int load_vars_file(const char *path, json_t *vars, const struct src_loc *loc, struct diag *d)
{
	json_t *doc;
	struct yaml_doc *yd = NULL;
	if (load_yaml_file(path, &doc, &yd, d) < 0) {
		yaml_doc_free(yd);
		return -1;
	}
	yaml_doc_free(yd);
	int rc = 0;
	bool list_of_maps = json_is_array(doc);
	for (size_t i = 0; list_of_maps && i < json_array_size(doc); i++)
		list_of_maps = json_is_object(json_array_get(doc, i));
	if (json_is_object(doc)) {
		json_object_update(vars, doc);
	} else if (list_of_maps) {
		for (size_t i = 0; i < json_array_size(doc); i++)
			json_object_update(vars, json_array_get(doc, i));
	} else if (!json_is_null(doc)) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "%s: variable files must contain either a dictionary of variables, or a list of dictionaries",
			   path);
		rc = -1;
	}
	json_decref(doc);
	return rc;
}

/* What an import_playbook entry gives each play it brings, as Ansible's
 * PlaybookInclude does: its vars over the play's, its tags added to the
 * play's, its when before each block of the play's pre_tasks, roles,
 * tasks and post_tasks (not its handlers) and on its fact gathering. An
 * import inside an imported playbook gives its plays its own first, then
 * the outer one's. */
struct pb_import {
	json_t *vars;                 /* object */
	json_t *when;                 /* list, or NULL */
	json_t *tags;                 /* list, or NULL */
	const struct pb_import *outer;
};

/* Tags as Ansible's Taggable loads them: a list as it is, a string split
 * at commas, each part stripped when strip (new reference; NULL when v
 * is neither) */
static json_t *tags_list(json_t *v, bool strip)
{
	if (json_is_array(v))
		return json_incref(v);
	if (!json_is_string(v))
		return NULL;
	json_t *l = json_array();
	const char *p = json_string_value(v);
	for (;;) {
		size_t n = strcspn(p, ",");
		const char *a = p, *b = p + n;
		while (strip && a < b && isspace((unsigned char)*a))
			a++;
		while (strip && b > a && isspace((unsigned char)b[-1]))
			b--;
		json_array_append_new(l, json_stringn(a, (size_t)(b - a)));
		if (!p[n])
			break;
		p += n + 1;
	}
	return l;
}

/* when before the conditions of v (a list, or one condition): a new list */
static json_t *when_prepended(json_t *when, json_t *v)
{
	json_t *l = json_copy(when);
	if (json_is_array(v))
		json_array_extend(l, v);
	else if (v)
		json_array_append(l, v);
	return l;
}

/* Ansible's Block.is_block */
static bool is_block_ds(json_t *v)
{
	return json_is_object(v) && (json_object_get(v, "block") || json_object_get(v, "rescue") ||
				     json_object_get(v, "always"));
}

/* when before each block of a task list: an explicit block's own when
 * follows it; each run of tasks outside blocks (one of Ansible's
 * implicit blocks) goes into a block holding when. The tasks themselves
 * are kept (their positions are found by identity). New reference. */
static json_t *when_before_blocks(json_t *list, json_t *when)
{
	if (!json_is_array(list))
		return json_incref(list); /* refused later, as it is */
	json_t *out = json_array(), *run = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		if (is_block_ds(e)) {
			if (run)
				json_array_append_new(out, json_pack("{s:o, s:O}", "block", run, "when", when));
			run = NULL;
			json_object_set_new(e, "when", when_prepended(when, json_object_get(e, "when")));
			json_array_append(out, e);
		} else {
			if (!run)
				run = json_array();
			json_array_append(run, e);
		}
	}
	if (run)
		json_array_append_new(out, json_pack("{s:o, s:O}", "block", run, "when", when));
	return out;
}

/* when before each role's own (a role named alone becomes a mapping) */
static void when_before_roles(json_t *roles, json_t *when)
{
	size_t i;
	json_t *e;
	json_array_foreach(roles, i, e) {
		if (json_is_string(e))
			json_array_set_new(roles, i, json_pack("{s:O, s:O}", "role", e, "when", when));
		else if (json_is_object(e))
			json_object_set_new(e, "when", when_prepended(when, json_object_get(e, "when")));
	}
}

/* What one import gives play raw (see struct pb_import); -1 on a tags
 * variable that is no string, which Ansible cannot split either. */
static int apply_import(json_t *raw, const struct pb_import *imp, json_t **gather_when,
			const struct src_loc *loc, struct diag *d)
{
	json_t *pv = json_object_get(raw, "vars"), *vars = json_object();
	size_t i;
	json_t *e;
	if (json_is_object(pv))
		json_object_update(vars, pv);
	else if (json_is_array(pv))
		json_array_foreach(pv, i, e)
			if (json_is_object(e))
				json_object_update(vars, e);
	json_object_update(vars, imp->vars);
	json_t *tags = tags_list(json_object_get(raw, "tags"), true);
	if (!tags)
		tags = json_array();
	/* a variable named tags adds to the play's own tags (Ansible pops it
	 * and splits it at commas, the parts not stripped, into the play's
	 * tags list: into a fresh default list, lost, when the play has no
	 * tags of its own) */
	json_t *tv = json_object_get(vars, "tags");
	if (tv && !json_is_string(tv)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "import_playbook: a variable 'tags' that is not a string "
			   "(Ansible splits it at commas)");
		json_decref(vars);
		json_decref(tags);
		return -1;
	}
	if (tv) {
		json_t *more = tags_list(tv, false);
		if (json_object_get(raw, "tags"))
			json_array_extend(tags, more);
		json_decref(more);
		json_object_del(vars, "tags");
	}
	if (imp->tags)
		json_array_extend(tags, imp->tags);
	json_object_set_new(raw, "vars", vars);
	if (json_array_size(tags))
		json_object_set_new(raw, "tags", tags);
	else
		json_decref(tags);
	if (!imp->when)
		return 0;
	static const char *const sections[] = { "pre_tasks", "tasks", "post_tasks", NULL };
	for (const char *const *sec = sections; *sec; sec++)
		if (json_object_get(raw, *sec))
			json_object_set_new(raw, *sec, when_before_blocks(json_object_get(raw, *sec), imp->when));
	if (json_is_array(json_object_get(raw, "roles")))
		when_before_roles(json_object_get(raw, "roles"), imp->when);
	/* the gathering takes the last import's when alone (Ansible sets
	 * its play's included conditional, import after import) */
	json_decref(*gather_when);
	*gather_when = json_incref(imp->when);
	return 0;
}

/* The plays of the playbook an import_playbook entry names, each given
 * what the entry gives (struct pb_import) after what any import around
 * it gives. */
static int parse_play(struct task_playbook *pb, json_t *raw, const struct yaml_doc *ydoc,
		      const char *file, const struct pb_import *outer, struct diag *d);

static int parse_import(struct task_playbook *pb, json_t *raw, const struct src_loc *loc,
			const struct pb_import *outer, struct diag *d)
{
	/* Ansible loads the fields every playbook object has, and then uses
	 * none of them but vars (become, connection... on an import change
	 * nothing there either) */
	static const char *const base_fields[] = {
		"name", "connection", "port", "remote_user", "vars", "module_defaults", "environment",
		"no_log", "run_once", "ignore_errors", "ignore_unreachable", "check_mode", "diff",
		"any_errors_fatal", "throttle", "timeout", "debugger", "become", "become_method",
		"become_user", "become_flags", "become_exe", "when", "tags", NULL,
	};
	const char *key = NULL, *k;
	json_t *v;
	json_object_foreach(raw, k, v) {
		size_t i = 0;
		while (base_fields[i] && strcmp(k, base_fields[i]))
			i++;
		if (!strcmp(k, "import_playbook") || !strcmp(k, "ansible.builtin.import_playbook") ||
		    !strcmp(k, "ansible.legacy.import_playbook"))
			key = k;
		else if (!base_fields[i]) {
			diag_error(d, IMC_EXIT_DATAERR, loc, "'%s' is not a valid attribute for a PlaybookInclude", k);
			return -1;
		}
	}
	json_t *fv = json_object_get(raw, key);
	const char *f = json_string_value(fv);
	if (!fv || json_is_null(fv)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "playbook import parameter is missing");
		return -1;
	}
	if (!f) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "import_playbook needs a file name");
		return -1;
	}
	if (tmpl_has_template(f) || strpbrk(f, " \t")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "import_playbook: %s is not supported by imc",
			   tmpl_has_template(f) ? "a templated file name" : "parameters after the file name (use vars)");
		return -1;
	}
	json_t *iv = json_object_get(raw, "vars");
	if (iv && !json_is_object(iv) && !json_is_null(iv)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "vars for import_playbook statements must be specified as a dictionary");
		return -1;
	}
	json_t *when = json_object_get(raw, "when");
	struct pb_import imp = {
		.vars = json_is_object(iv) ? iv : NULL,
		.when = when && !json_is_null(when) ? (json_is_array(when) ? json_incref(when) : json_pack("[O]", when)) : NULL,
		.tags = tags_list(json_object_get(raw, "tags"), true),
		.outer = outer,
	};
	json_t *novars = json_object();
	if (!imp.vars)
		imp.vars = novars;
	char *path = f[0] == '/' ? xstrdup(f) : xasprintf("%s/%s", pb->dir, f);
	json_t *doc;
	struct yaml_doc *yd = NULL;
	int rc = load_yaml_file(path, &doc, &yd, d);
	if (rc == 0) {
		const char *pf = play_strdup(pb, path);
		if (!json_is_array(doc)) {
			struct src_loc l2 = { pf, 1, 1 };
			diag_error(d, IMC_EXIT_DATAERR, &l2, "a playbook must be a list of plays");
			rc = -1;
		} else {
			size_t i;
			json_t *e;
			json_array_foreach(doc, i, e)
				rc |= parse_play(pb, e, yd, pf, &imp, d);
		}
		json_decref(doc);
	}
	yaml_doc_free(yd);
	free(path);
	json_decref(novars);
	json_decref(imp.when);
	json_decref(imp.tags);
	return rc;
}

static int parse_play(struct task_playbook *pb, json_t *raw, const struct yaml_doc *ydoc,
		      const char *file, const struct pb_import *imp, struct diag *d)
{
	struct src_loc loc = { file, yaml_line_of(ydoc, raw), yaml_col_of(ydoc, raw) };
	if (!json_is_object(raw)) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "a play must be a YAML mapping");
		return -1;
	}
	if (play_action_value(raw, "import_playbook"))
		return parse_import(pb, raw, &loc, imp, d);
	int rc = 0;
	const char *k;
	json_t *v;
	json_object_foreach(raw, k, v) {
		bool ok = false;
		for (const char *const *p = play_keywords; *p; p++)
			if (!strcmp(k, *p))
				ok = true;
		if (!ok) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "unsupported play keyword '%s'", k);
			rc = -1;
		}
	}
	if (play_fields_check(raw, &loc, d) < 0)
		return -1;
	rc |= check_unenforced(raw, "play", &loc, d);
	json_t *gather_when = NULL;
	for (const struct pb_import *i = imp; i && rc == 0; i = i->outer)
		rc |= apply_import(raw, i, &gather_when, &loc, d);
	const char *order = json_string_value(json_object_get(raw, "order"));
	if (order && !tmpl_has_template(order) && !play_order_valid(order)) {
		/* Ansible's words, raised when the play starts */
		diag_error(d, IMC_EXIT_DATAERR, &loc, "Invalid 'order' specified for inventory hosts: %s",
			   order);
		rc = -1;
	}
	struct task_play *p = play_alloc(pb, sizeof(*p));
	p->raw = play_keep(pb, json_incref(raw));
	json_t *hosts = json_object_get(raw, "hosts");
	if (json_is_array(hosts)) {
		struct strbuf sb = STRBUF_INIT;
		size_t i;
		json_t *e;
		json_array_foreach(hosts, i, e)
			strbuf_addf(&sb, "%s%s", i ? ":" : "", json_string_value(e) ? json_string_value(e) : "");
		p->hosts = play_strdup(pb, sb.buf);
		strbuf_release(&sb);
	} else
		p->hosts = play_strdup(pb, json_is_string(hosts) ? json_string_value(hosts) : "all");
	const char *name = json_string_value(json_object_get(raw, "name"));
	p->name = play_strdup(pb, name ? name : p->hosts);
	p->gather_facts = args_bool(json_object_get(raw, "gather_facts"), true);
	p->gather_when = gather_when ? play_keep(pb, gather_when) : NULL;
	if (load_vars(raw, "Play", &loc, d) < 0)
		rc = -1;
	p->vars = json_object_get(raw, "vars");
	p->vars = play_keep(pb, json_is_object(p->vars) ? json_incref(p->vars) : json_object());
	json_t *vf = json_object_get(raw, "vars_files");
	/* one file may be given alone, not in a list */
	vf = json_is_string(vf) ? json_pack("[O]", vf) : json_incref(vf);
	if (json_is_array(vf)) {
		size_t i;
		json_t *e;
		json_array_foreach(vf, i, e) {
			const char *f = json_string_value(e);
			/* what imc would read otherwise than Ansible: a list of
			 * alternatives (the first found), a name to template */
			if (!f || tmpl_has_template(f)) {
				diag_error(d, IMC_EXIT_DATAERR, &loc,
					   "vars_files: %s is not supported by imc",
					   f ? "a templated file name" : "an entry that is not a file name");
				rc = -1;
				continue;
			}
			char *path = f[0] == '/' ? xstrdup(f) : xasprintf("%s/%s", pb->dir, f);
			rc |= load_vars_file(path, p->vars, &loc, d);
			free(path);
		}
	}
	json_decref(vf);
	pb->loading_play_vars = p->vars;
	rc |= play_parse_tasks(pb, json_object_get(raw, "pre_tasks"), ydoc, file, pb->dir, NULL, NULL,
			       false, &p->pre_tasks, &p->npre, d);
	rc |= play_parse_tasks(pb, json_object_get(raw, "tasks"), ydoc, file, pb->dir, NULL, NULL,
			       false, &p->tasks, &p->ntasks, d);
	rc |= play_parse_tasks(pb, json_object_get(raw, "post_tasks"), ydoc, file, pb->dir, NULL,
			       NULL, false, &p->post_tasks, &p->npost, d);
	rc |= play_parse_tasks(pb, json_object_get(raw, "handlers"), ydoc, file, pb->dir, NULL, NULL,
			       true, &p->handlers, &p->nhandlers, d);
	rc |= parse_roles(pb, p, json_object_get(raw, "roles"), ydoc, file, d);
	pb->loading_play_vars = NULL;
	pb->plays = xreallocarray(pb->plays, pb->nplays + 1, sizeof(*pb->plays));
	pb->plays[pb->nplays++] = p;
	return rc;
}

static struct task_playbook *pb_new(const char *file, const char *dir, const char *roles_path)
{
	struct task_playbook *pb = xcalloc(1, sizeof(*pb));
	pthread_mutex_init(&pb->lock, NULL);
	pb->file = xstrdup(file);
	pb->dir = xstrdup(dir);
	pb->roles_path = roles_path;
	return pb;
}

static struct task_playbook *load_doc(struct task_playbook *pb, json_t *doc,
				      const struct yaml_doc *ydoc, struct diag *d)
{
	if (!json_is_array(doc)) {
		struct src_loc loc = { pb->file, yaml_line_of(ydoc, doc), yaml_col_of(ydoc, doc) };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "a playbook must be a list of plays");
		play_free(pb);
		return NULL;
	}
	if (!json_array_size(doc)) {
		char *rp = realpath(pb->file, NULL);
		struct src_loc loc = { pb->file, yaml_line_of(ydoc, doc), yaml_col_of(ydoc, doc) };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "A playbook must contain at least one play: %s",
			   rp ? rp : pb->file);
		free(rp);
		play_free(pb);
		return NULL;
	}
	int rc = 0;
	size_t i;
	json_t *e;
	json_array_foreach(doc, i, e)
		rc |= parse_play(pb, e, ydoc, pb->file, NULL, d);
	if (rc < 0) {
		play_free(pb);
		return NULL;
	}
	return pb;
}

struct task_playbook *play_load_file(const char *path, const char *roles_path, json_t *extra_vars,
				     struct diag *d)
{
	json_t *doc;
	struct yaml_doc *ydoc = NULL;
	if (load_yaml_file(path, &doc, &ydoc, d) < 0)
		return NULL;
	char *rp = realpath(path, NULL);
	char *dir = dir_of(rp ? rp : path);
	struct task_playbook *pb = pb_new(path, dir, roles_path);
	free(dir);
	free(rp);
	pb->extra_vars = extra_vars;
	pb = load_doc(pb, doc, ydoc, d);
	if (pb)
		pb->extra_vars = NULL;
	json_decref(doc);
	yaml_doc_free(ydoc);
	return pb;
}

/* IM's add_ansible_header + merge_recipes: dict keys merged, list keys
 * concatenated, empty keys dropped. On a scalar clash the recipe wins. */
static void merge_header(json_t *play)
{
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(play, tmp, k, v)
		if (json_is_null(v))
			json_object_del(play, k);
	if (!json_object_get(play, "hosts"))
		json_object_set_new(play, "hosts", json_string("all"));
	if (!json_object_get(play, "gather_facts"))
		json_object_set_new(play, "gather_facts", json_false());
	if (!json_object_get(play, "become"))
		json_object_set_new(play, "become", json_true());
}

struct task_playbook *play_load_text(const char *text, const char *file, int line_offset,
				     const char *dir, const char *roles_path, bool im_header,
				     struct diag *d)
{
	struct yaml_doc *ydoc = NULL;
	json_t *doc = yaml_load(text, strlen(text), file, line_offset, &ydoc, d);
	if (!doc)
		return NULL;
	if (json_is_null(doc)) {
		json_decref(doc);
		doc = json_array();
	}
	if (im_header && json_is_array(doc)) {
		size_t i;
		json_t *e;
		json_array_foreach(doc, i, e)
			/* an import_playbook entry is no play (Ansible refuses
			 * hosts on it): the header is for the plays only */
			if (json_is_object(e) && !play_action_value(e, "import_playbook"))
				merge_header(e);
	}
	struct task_playbook *pb = pb_new(file, dir ? dir : ".", roles_path);
	pb = load_doc(pb, doc, ydoc, d);
	json_decref(doc);
	yaml_doc_free(ydoc);
	return pb;
}

void play_free(struct task_playbook *pb)
{
	if (!pb)
		return;
	free(pb->plays);
	json_decref(pb->refs);
	json_decref(pb->fallbacks);
	for (size_t i = 0; i < pb->npool; i++)
		free(pb->pool[i]);
	free(pb->pool);
	pthread_mutex_destroy(&pb->lock);
	free(pb->file);
	free(pb->dir);
	free(pb);
}
