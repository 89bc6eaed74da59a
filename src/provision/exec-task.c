/* exec-task.c: running one task on one host, with every task keyword that
 * acts per host: when (per item in loops), loop/with_*, until/retries/delay,
 * async/poll, become, environment, delegate_to/delegate_facts,
 * changed_when/failed_when, register, ignore_errors and notify; then printing the outcome line and counting it
 * in the host's recap, as Ansible's linear strategy and default callback
 * do. Blocks, includes and handlers are driven by exec-play.c. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "provision/args.h"
#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/output.h"
#include "provision/play.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "template/template.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Merges an environment value, templated, into env: a dictionary, a list
 * of them, or (as Ansible allows) a template such as "{{ my_env }}" that
 * gives one. */
static int collect_env(struct exec_ctx *x, json_t *env, json_t *v, struct diag *d)
{
	if (!v || json_is_null(v))
		return 0;
	json_t *tv = xt_value(x, v, d);
	if (!tv)
		return -1;
	int rc = 0;
	if (json_is_object(tv))
		json_object_update(env, tv);
	else if (json_is_array(tv)) {
		size_t i;
		json_t *e;
		json_array_foreach(tv, i, e) {
			if (json_is_object(e))
				json_object_update(env, e);
			else if (!json_is_null(e)) {
				rc = -1;
				break;
			}
		}
	} else if (!(json_is_string(tv) && !*json_string_value(tv)))
		rc = -1;
	if (rc < 0)
		diag_error(d, IMC_EXIT_FAILED, NULL,
			   "The 'environment' keyword takes a list of dictionaries (or single dictionary)");
	json_decref(tv);
	return rc;
}

static int chain_env(struct exec_ctx *x, json_t *env, struct ptask *t, struct diag *d)
{
	if (!t)
		return 0;
	if (chain_env(x, env, t->parent, d) < 0)
		return -1;
	return collect_env(x, env, json_object_get(t->raw, "environment"), d);
}

/* Sets up become and environment of x for task t (environment templated). */
static int setup_exec(struct exec_ctx *x, struct diag *d)
{
	struct task_run *run = x->run;
	struct ptask *t = x->task;
	x->become_user = NULL;
	if (args_bool(exec_keyword(run, t, "become"), false)) {
		json_t *u = exec_keyword(run, t, "become_user");
		json_t *uv = u ? xt_value(x, u, d) : NULL;
		if (u && !uv)
			return -1;
		x->become_user_own = xstrdup(json_is_string(uv) ? json_string_value(uv) : "root");
		json_decref(uv);
		x->become_user = x->become_user_own;
	}
	json_t *env = json_object();
	if ((run->play && collect_env(x, env, json_object_get(run->play->raw, "environment"), d) < 0) ||
	    chain_env(x, env, t, d) < 0) {
		json_decref(env);
		return -1;
	}
	if (json_object_size(env))
		x->env = env;
	else
		json_decref(env);
	return 0;
}

static json_t *skip_result(void)
{
	return json_pack("{s:b, s:s, s:b}", "changed", 0, "skip_reason",
			 "Conditional result was False", "skipped", 1);
}

static bool res_failed(json_t *r)
{
	return json_is_true(json_object_get(r, "failed"));
}

static bool res_changed(json_t *r)
{
	return json_is_true(json_object_get(r, "changed"));
}

/* Evaluates a condition keyword of the task itself (not inherited). */
static int cond_of(struct exec_ctx *x, const char *kw, json_t *res, bool *out, bool *present,
		   struct diag *d)
{
	json_t *c = json_object_get(x->task->raw, kw);
	*present = c != NULL;
	if (!c)
		return 0;
	const char *reg = json_string_value(json_object_get(x->task->raw, "register"));
	if (reg && res) {
		json_object_set(x->vars, reg, res);
		exec_mark_registered(x->host, reg);
	}
	return xt_cond(x, c, out, d);
}

int exec_when(struct exec_ctx *x, struct ptask *t, bool *out, struct diag *d)
{
	*out = true;
	size_t n = 0;
	for (struct ptask *p = t; p; p = p->parent)
		n++;
	struct ptask **chain = xcalloc(n + 1, sizeof(*chain));
	n = 0;
	for (struct ptask *p = t; p; p = p->parent)
		chain[n++] = p;
	int rc = 0;
	/* Ansible prepends a parent's conditions to its child's: the
	 * outermost block's first, each list in its order, up to the first
	 * false one */
	for (size_t i = n; i-- > 0 && *out && rc == 0;) {
		json_t *w = json_object_get(chain[i]->raw, "when");
		size_t nc = json_is_array(w) ? json_array_size(w) : w ? 1 : 0;
		for (size_t k = 0; k < nc && *out; k++) {
			json_t *c = json_is_array(w) ? json_array_get(w, k) : w;
			if (xt_conditional(x, c, out, d) < 0) {
				rc = -1;
				break;
			}
		}
	}
	free(chain);
	if (rc < 0) {
		/* raised on the task: its position follows */
		*out = false;
		struct diag_item *it = d->n ? &d->items[d->n - 1] : NULL;
		if (it) {
			char *m = ansible_task_error(t, it->msg);
			free(it->msg);
			it->msg = m;
		}
	}
	return rc;
}

json_t *exec_when_failure(struct diag *d)
{
	return json_pack("{s:b, s:s}", "failed", 1, "msg", diag_first_message(d));
}

static json_t *fail_from_diag(struct diag *d)
{
	json_t *r = res_fail("%s", diag_first_message(d));
	return r;
}

/* The check_mode keyword (task, blocks, play), templated, into
 * x->check_mode; without one, the command line's --check. Ansible's
 * ansible_check_mode variable follows only --check (exec-vars.c). */
static int check_mode_of(struct exec_ctx *x, struct diag *d)
{
	json_t *kw = exec_keyword(x->run, x->task, "check_mode");
	x->check_mode = x->run->check;
	if (!kw)
		return 0;
	json_t *v = xt_value(x, kw, d);
	if (!v)
		return -1;
	x->check_mode = args_bool(v, false);
	json_decref(v);
	return 0;
}

/* Ansible's boolean(v, strict=True) as post_validate applies it to a
 * keyword: a module argument's booleans (args_is_bool: a bool, 1 or 0, or
 * one of its words in any case), and also null (the keyword unset) and
 * the floats 0.0 and 1.0. */
static bool valid_boolean(json_t *v)
{
	if (json_is_null(v))
		return true;
	if (json_is_real(v))
		return json_real_value(v) == 0 || json_real_value(v) == 1;
	return args_is_bool(v);
}

/* The task's boolean keywords, templated, checked as Ansible's
 * post_validate checks them once the task runs (after its when): one that
 * is no boolean fails the task in Ansible's words (NULL when all are).
 * Ansible lists the valid words in a Python set's order, which changes
 * from run to run; this is one of those orders. */
static json_t *bool_keywords_check(struct exec_ctx *x)
{
	static const char *const kws[] = { "diff", "check_mode", "ignore_errors", "ignore_unreachable",
					   "no_log", "run_once", "become", "delegate_facts",
					   "any_errors_fatal", NULL };
	for (const char *const *k = kws; *k; k++) {
		json_t *kw = exec_keyword(x->run, x->task, *k);
		if (!kw || valid_boolean(kw))
			continue;
		struct diag d = DIAG_INIT;
		json_t *v = xt_value(x, kw, &d);
		diag_release(&d);
		if (!v || valid_boolean(v)) {
			json_decref(v);
			continue;
		}
		char *text = json_is_string(v) ? xstrdup(json_string_value(v))
			     : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		char *e = xasprintf("The value '%s' is not a valid boolean.  Valid booleans include: 'off', "
				    "'on', 1, 0, 'no', '0', '1', 'false', 'y', 'yes', 'f', 'true', 't', 'n'",
				    text);
		json_t *r = res_fail("the field '%s' has an invalid value (%s), and could not be converted "
				     "to an bool.The error was: %s. %s", *k, text, e, e);
		free(e);
		free(text);
		json_decref(v);
		return r;
	}
	return NULL;
}

/* exec_ctx's check_unsupported: Ansible runs the task in check mode, or
 * the task fails saying why. */
static json_t *check_unsupported(struct exec_ctx *x, const char *module, json_t *args,
				 const char *what)
{
	if (fallback_available())
		return fallback_run(x, module, args);
	return res_fail("module '%s' with %s in check mode needs Ansible (imc's own module would act): %s",
			module, what,
			fallback_disabled() ? "the fallback is disabled" : "ansible-playbook is not installed");
}

/* Runs the module once (no retries), applying async and the result
 * overrides (changed_when/failed_when). */
static json_t *run_module(struct exec_ctx *x, json_t *args)
{
	/* what imc does not run itself: Ansible runs it (exec-fallback.c),
	 * or it fails now that it runs (play-load.c's unrunnable) */
	if (x->task->unrunnable)
		return res_fail("%s", x->task->unrunnable);
	/* templated here, once the task runs: a false when skips it first */
	struct diag cd = DIAG_INIT;
	if (check_mode_of(x, &cd) < 0) {
		json_t *r = fail_from_diag(&cd);
		diag_release(&cd);
		return r;
	}
	diag_release(&cd);
	json_t *bad = bool_keywords_check(x);
	if (bad)
		return bad;
	if (x->task->fallback)
		return fallback_run(x, x->task->fallback, args);
	const struct task_module *mod = task_module_find(x->task->module);
	json_t *res;
	json_t *async = json_object_get(x->task->raw, "async");
	long async_s = 0;
	if (async) {
		struct diag d = DIAG_INIT;
		json_t *av = xt_value(x, async, &d);
		if (!av) {
			res = fail_from_diag(&d);
			diag_release(&d);
			return res;
		}
		async_s = json_is_integer(av) ? (long)json_integer_value(av)
			  : json_is_string(av) ? strtol(json_string_value(av), NULL, 10) : 0;
		json_decref(av);
		diag_release(&d);
	}
	/* Ansible's action refuses an async task before running the module,
	 * check mode or not */
	if (async_s > 0 && (res = exec_async_refusal(x, mod)))
		return res;
	/* check mode: only the modules that act the same in it or implement
	 * it run here; Ansible runs the others, or the task fails */
	if (x->check_mode && !mod->same_in_check_mode && !mod->check_mode_native) {
		if (fallback_available())
			return fallback_run(x, mod->name, args);
		return res_fail("module '%s' in check mode needs Ansible (imc's own module would act): "
				"%s", mod->name,
				fallback_disabled() ? "the fallback is disabled" : "ansible-playbook is not installed");
	}
	/* the module's paths, as its action plugin and then AnsibleModule
	 * read them on the node */
	if (mod->action_home_paths && mod_expand_action_home(x, args, mod->action_home_paths, &res) < 0)
		return res;
	if (mod->node_paths && mod_expand_paths(x, args, mod->node_paths, &res) < 0)
		return res;
	if (async_s > 0) {
		json_t *pv = json_object_get(x->task->raw, "poll");
		struct diag d = DIAG_INIT;
		json_t *pt = pv ? xt_value(x, pv, &d) : NULL;
		long poll = pt ? (json_is_integer(pt) ? (long)json_integer_value(pt)
				  : strtol(json_string_value(pt) ? json_string_value(pt) : "10", NULL, 10))
			    : 10;
		json_decref(pt);
		diag_release(&d);
		res = exec_async_start(x, mod, args, async_s, poll);
	} else {
		unsigned long rt0 = conn_round_trips(x->conn);
		res = mod->run(x, args);
		log_debug("exec", "%s: %s: %lu round trips", x->host->name, x->task->display,
			  conn_round_trips(x->conn) - rt0);
	}
	return res;
}

/* A changed_when or failed_when that cannot be evaluated fails the task
 * with the module's result kept, the error in KW_result (as Ansible words
 * it: the changed_when target tests it with `is contains`), and, for
 * changed_when, failed_when not evaluated. */
static void override_error(struct exec_ctx *x, const char *kw, json_t *res, struct diag *d)
{
	json_t *c = json_object_get(x->task->raw, kw);
	char *text = json_is_string(c) ? xstrdup(json_string_value(c)) : out_json_compact(c);
	char *key = xasprintf("%s_result", kw);
	json_object_set_new(res, "failed", json_true());
	json_object_set_new(res, key, json_sprintf("The conditional check '%s' failed. The error was: "
						    "error while evaluating conditional (%s): %s",
						    text, text, diag_first_message(d)));
	free(key);
	free(text);
}

static void apply_overrides(struct exec_ctx *x, json_t *res)
{
	struct diag d = DIAG_INIT;
	bool v, present;
	if (cond_of(x, "changed_when", res, &v, &present, &d) < 0) {
		override_error(x, "changed_when", res, &d);
		diag_release(&d);
		return;
	} else if (present)
		json_object_set_new(res, "changed", json_boolean(v));
	diag_release(&d);
	diag_init(&d);
	if (cond_of(x, "failed_when", res, &v, &present, &d) < 0) {
		override_error(x, "failed_when", res, &d);
	} else if (present) {
		json_object_set_new(res, "failed_when_result", json_boolean(v));
		json_object_set_new(res, "failed", json_boolean(v));
	}
	diag_release(&d);
}

/* A keyword's value v templated to an integer (dflt when absent). */
static long int_value(struct exec_ctx *x, json_t *v, long dflt)
{
	if (!v || json_is_null(v))
		return dflt;
	struct diag d = DIAG_INIT;
	json_t *r = xt_value(x, v, &d);
	long n = dflt;
	if (json_is_integer(r))
		n = (long)json_integer_value(r);
	else if (json_is_real(r))
		n = (long)json_real_value(r);
	else if (json_is_string(r))
		n = strtol(json_string_value(r), NULL, 10);
	json_decref(r);
	diag_release(&d);
	return n;
}

static long int_kw(struct exec_ctx *x, const char *kw, long dflt)
{
	return int_value(x, json_object_get(x->task->raw, kw), dflt);
}

/* One execution of the task for the current item: args templated, module
 * run, until/retries handled. *fatal is set when the options could not be
 * templated: Ansible fails the task as a whole then, loop or not, with no
 * "changed" (the module never ran). */
/* Free-form text given to a module that takes none (debug: "{{ x }}"):
 * Ansible's parser keeps a templated one as _variable_params, whose value
 * must template to a mapping merged into the arguments; anything else
 * fails the task as "invalid or malformed argument". Returns 0, or -1
 * with *args replaced by the failure. */
static int variable_params(struct exec_ctx *x, json_t **args)
{
	static const char *const raw_ok[] = { "include_vars", "add_host", "set_fact", "group_by", NULL };
	const struct task_module *mod = task_module_find(x->task->module);
	json_t *orig = json_object_get(x->task->args, "_raw_params");
	if (!mod || mod->free_form || !json_is_string(orig) || !tmpl_has_template(json_string_value(orig)))
		return 0;
	for (size_t i = 0; raw_ok[i]; i++)
		if (!strcmp(mod->name, raw_ok[i]))
			return 0;
	json_t *v = json_incref(json_object_get(*args, "_raw_params"));
	json_object_del(*args, "_raw_params");
	if (json_is_object(v)) {
		json_t *merged = json_deep_copy(v);
		json_object_update(merged, *args);
		json_decref(*args);
		*args = merged;
		json_decref(v);
		return 0;
	}
	char *text = json_is_string(v) ? xstrdup(json_string_value(v)) : out_json_compact(v);
	json_decref(*args);
	*args = json_pack("{s:b, s:s++}", "failed", 1, "msg", "invalid or malformed argument: '", text, "'");
	free(text);
	json_decref(v);
	return -1;
}

/* Adds to defaults the module_defaults entry of v (a mapping, or a list
 * of them, later ones winning) for the task's module. */
static void defaults_from(json_t *v, const char *module, json_t *defaults)
{
	json_t *list = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *k;
		json_t *a;
		if (json_is_object(e))
			json_object_foreach(e, k, a)
				if (json_is_object(a) && !strcmp(play_short_module(k), module))
					json_object_update(defaults, a);
	}
	json_decref(list);
}

/* module_defaults: the play's, then each enclosing block's and the task's
 * own (the nearer win), for the task's module written short or in full,
 * templated; the task's own arguments override them. Returns 0, or -1
 * with *args replaced by the failure. */
static int module_defaults(struct exec_ctx *x, json_t **args)
{
	struct ptask *chain[64];
	size_t n = 0;
	for (struct ptask *p = x->task; p && n < 64; p = p->parent)
		chain[n++] = p;
	json_t *defaults = json_object();
	json_t *pv = x->run->play ? json_object_get(x->run->play->raw, "module_defaults") : NULL;
	if (pv)
		defaults_from(pv, x->task->module, defaults);
	while (n--) {
		json_t *v = json_object_get(chain[n]->raw, "module_defaults");
		if (v)
			defaults_from(v, x->task->module, defaults);
	}
	if (!json_object_size(defaults)) {
		json_decref(defaults);
		return 0;
	}
	struct diag d = DIAG_INIT;
	json_t *t = xt_value(x, defaults, &d);
	json_decref(defaults);
	if (!t) {
		json_decref(*args);
		*args = fail_from_diag(&d);
		diag_release(&d);
		return -1;
	}
	diag_release(&d);
	json_object_update(t, *args);
	json_decref(*args);
	*args = t;
	return 0;
}

/* The task keyword timeout (inherited from its block or play) in
 * seconds, templated; 0 when not set. */
static long task_timeout(struct exec_ctx *x)
{
	return int_value(x, exec_keyword(x->run, x->task, "timeout"), 0);
}

static json_t *run_once(struct exec_ctx *x, bool *fatal)
{
	struct diag d = DIAG_INIT;
	json_t *args = xt_value(x, x->task->args, &d);
	if (!args) {
		char *m = ansible_undefined_in_args(x->task, diag_first_message(&d));
		json_t *r = json_pack("{s:b, s:s}", "failed", 1, "msg", m ? m : diag_first_message(&d));
		free(m);
		diag_release(&d);
		*fatal = true;
		return r;
	}
	diag_release(&d);
	if (variable_params(x, &args) < 0 || module_defaults(x, &args) < 0) {
		*fatal = true;
		return args;
	}
	json_t *until = json_object_get(x->task->raw, "until");
	long retries = until ? int_kw(x, "retries", 3) : 0;
	long delay = until ? int_kw(x, "delay", 5) : 0;
	if (retries < 0)
		retries = 0;
	json_t *res = NULL;
	struct exec_progress pg;
	exec_progress_begin(x, &pg);
	long timeout = task_timeout(x);
	for (long attempt = 1;; attempt++) {
		json_decref(res);
		/* each attempt has the whole timeout, as Ansible's alarm */
		x->task_deadline = timeout > 0 ? task_now() + (double)timeout : 0;
		x->timed_out = false;
		res = run_module(x, args);
		/* a module that works here (pause, wait_for...) is not cut
		 * short, but past the deadline it fails as Ansible's would */
		if (x->task_deadline > 0 && task_now() >= x->task_deadline)
			x->timed_out = true;
		x->task_deadline = 0;
		if (x->timed_out) {
			/* Ansible's result for it: no module result, no
			 * changed_when or failed_when evaluated */
			json_decref(res);
			char *m = xasprintf("The %s action failed to execute in the expected time "
					    "frame (%ld) and was terminated",
					    x->task->action ? x->task->action : x->task->module, timeout);
			res = json_pack("{s:b, s:b, s:s}", "changed", 0, "failed", 1, "msg", m);
			free(m);
			break;
		}
		apply_overrides(x, res);
		if (!until)
			break;
		exec_progress_poll(x, &pg);
		bool ok = false, present;
		diag_init(&d);
		if (cond_of(x, "until", res, &ok, &present, &d) < 0) {
			json_object_set_new(res, "failed", json_true());
			json_object_set_new(res, "msg", json_string(diag_first_message(&d)));
			diag_release(&d);
			break;
		}
		diag_release(&d);
		if (ok) {
			json_object_set_new(res, "attempts", json_integer(attempt));
			break;
		}
		if (attempt > retries) {
			json_object_set_new(res, "attempts", json_integer(retries));
			json_object_set_new(res, "failed", json_true());
			break;
		}
		if (json_object_get(res, "unreachable"))
			break;
		out_line(x->run->out, x->host->index, "FAILED - RETRYING: [%s]: %s (%ld retries left).",
			 x->host->name, x->task->display, retries - attempt + 1);
		if (x->deadline > 0 && task_now() + (double)delay > x->deadline)
			break;
		if (delay > 0)
			sleep((unsigned)delay);
	}
	exec_progress_end(&pg);
	json_decref(args);
	return res;
}

/* The loop source as a list of items (new reference) or NULL with d set. */
json_t *exec_loop_items(struct exec_ctx *x, struct diag *d, bool *has_loop)
{
	json_t *raw = x->task->raw;
	const char *k;
	json_t *v;
	*has_loop = false;
	json_object_foreach(raw, k, v) {
		if (!strcmp(k, "loop")) {
			*has_loop = true;
			json_t *r = xt_value(x, v, d);
			if (r && !json_is_array(r)) {
				diag_error(d, IMC_EXIT_FAILED, NULL,
					   "Invalid data passed to 'loop', it requires a list, got this instead: %s. Hint: If you passed a list/dict of just one element, try adding wantlist=True to your lookup invocation or use q/query instead of lookup.",
					   json_is_string(r) ? json_string_value(r) : "a non-list");
				json_decref(r);
				return NULL;
			}
			return r;
		}
		if (strncmp(k, "with_", 5))
			continue;
		*has_loop = true;
		const char *lk = k + 5;
		json_t *terms = xt_value(x, v, d);
		if (!terms)
			return NULL;
		json_t *r;
		if (!strcmp(lk, "items") || !strcmp(lk, "list")) {
			/* a dict stays a dict for the lookup (Ansible's terms are
			 * any iterable): with_list refuses it, with_items
			 * iterates its keys */
			if (json_is_object(terms) && !strcmp(lk, "list")) {
				diag_error(d, IMC_EXIT_FAILED, NULL, "with_list expects a list");
				json_decref(terms);
				return NULL;
			}
			r = json_array();
			if (json_is_object(terms)) {
				const char *dk;
				json_t *dv;
				json_object_foreach(terms, dk, dv)
					json_array_append_new(r, json_string(dk));
			} else if (!json_is_array(terms)) {
				json_array_append(r, terms);
			} else {
				size_t i;
				json_t *e;
				json_array_foreach(terms, i, e) {
					if (json_is_array(e) && !strcmp(lk, "items"))
						json_array_extend(r, e);
					else
						json_array_append(r, e);
				}
			}
		} else if (!strcmp(lk, "dict")) {
			if (!json_is_object(terms)) {
				diag_error(d, IMC_EXIT_FAILED, NULL,
					   "with_dict expects a dict");
				json_decref(terms);
				return NULL;
			}
			r = json_array();
			const char *dk;
			json_t *dv;
			json_object_foreach(terms, dk, dv)
				json_array_append_new(r, json_pack("{s:s, s:O}", "key", dk, "value", dv));
		} else
			r = xt_lookup(x, lk, terms, d);
		json_decref(terms);
		return r;
	}
	return NULL;
}

/* The task's loop_control with loop_var (default "item") and index_var
 * templated once, before the first item, as Ansible post-validates them
 * (label, pause and extended keep their templates, read per item). A new
 * object; NULL with d set when a name does not template to a string. */
json_t *exec_loop_control(struct exec_ctx *x, struct diag *d)
{
	json_t *raw = json_object_get(x->task->raw, "loop_control");
	json_t *lc = json_is_object(raw) ? json_copy(raw) : json_object();
	static const char *const names[] = { "loop_var", "index_var" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		json_t *v = json_object_get(lc, names[i]);
		if (!v)
			continue;
		json_t *t = xt_value(x, v, d);
		if (!json_is_string(t)) {
			if (t)
				diag_error(d, IMC_EXIT_FAILED, NULL, "loop_control.%s must be a string", names[i]);
			json_decref(t);
			json_decref(lc);
			return NULL;
		}
		json_object_set_new(lc, names[i], t);
	}
	if (!json_object_get(lc, "loop_var"))
		json_object_set_new(lc, "loop_var", json_string("item"));
	return lc;
}

/* The variables of loop item i (of items) that loop_control gives, set in
 * into: the loop variable, ansible_loop_var, index_var and
 * ansible_index_var, and with extended, ansible_loop (allitems unless
 * extended_allitems is false), as Ansible's loop sets them. */
void exec_loop_item_vars(struct exec_ctx *x, json_t *lc, json_t *items, size_t i, json_t *into)
{
	const char *loop_var = json_string_value(json_object_get(lc, "loop_var"));
	const char *index_var = json_string_value(json_object_get(lc, "index_var"));
	size_t n = json_array_size(items);
	json_object_set(into, loop_var, json_array_get(items, i));
	json_object_set_new(into, "ansible_loop_var", json_string(loop_var));
	if (index_var) {
		json_object_set_new(into, index_var, json_integer((json_int_t)i));
		json_object_set_new(into, "ansible_index_var", json_string(index_var));
	}
	struct diag d = DIAG_INIT;
	json_t *ext = json_object_get(lc, "extended");
	json_t *ev = ext ? xt_value(x, ext, &d) : NULL;
	bool extended = args_bool(ev, false);
	json_decref(ev);
	if (!extended) {
		diag_release(&d);
		return;
	}
	json_t *all = json_object_get(lc, "extended_allitems");
	json_t *av = all ? xt_value(x, all, &d) : NULL;
	bool allitems = args_bool(av, true);
	json_decref(av);
	diag_release(&d);
	json_t *lv = json_pack("{s:I, s:I, s:I, s:I, s:b, s:b, s:I}", "index", (json_int_t)i + 1,
			       "index0", (json_int_t)i, "revindex", (json_int_t)(n - i),
			       "revindex0", (json_int_t)(n - i - 1), "first", i == 0, "last", i + 1 == n,
			       "length", (json_int_t)n);
	if (allitems)
		json_object_set(lv, "allitems", items);
	if (i > 0)
		json_object_set(lv, "previtem", json_array_get(items, i - 1));
	if (i + 1 < n)
		json_object_set(lv, "nextitem", json_array_get(items, i + 1));
	json_object_set_new(into, "ansible_loop", lv);
}

/* loop_control pause: seconds (templated, fractions allowed) slept between
 * two items, before every item but the first. */
static void loop_pause(struct exec_ctx *x, json_t *lc)
{
	json_t *p = json_object_get(lc, "pause");
	if (!p)
		return;
	struct diag d = DIAG_INIT;
	json_t *v = xt_value(x, p, &d);
	double s = json_is_number(v) ? json_number_value(v)
		   : json_is_string(v) ? strtod(json_string_value(v), NULL) : 0;
	json_decref(v);
	diag_release(&d);
	if (s > 0) {
		struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
}

/* The item's label as shown: loop_control.label templated, else the
 * item. A label that does not template fails the item's result ir
 * (*bad set), even a skipped one, as Ansible's loop does: "None" is
 * shown then. */
static char *item_label(json_t *item, json_t *lc, struct exec_ctx *x, json_t *ir, bool *bad)
{
	json_t *label = json_object_get(lc, "label");
	if (label) {
		struct diag d = DIAG_INIT;
		json_t *l = xt_value(x, label, &d);
		if (l) {
			diag_release(&d);
			char *s = tmpl_to_text(l);
			json_decref(l);
			return s;
		}
		/* Ansible's words: the undefined error and its cause, the
		 * same text twice, without the engine's position */
		const char *m = diag_first_message(&d);
		if (!strncmp(m, "AnsibleUndefinedVariable: ", 26))
			m += 26;
		const char *in = NULL;
		for (const char *p = strstr(m, " (in '"); p; p = strstr(p + 1, " (in '"))
			in = p;
		int n = in && m[strlen(m) - 1] == ')' ? (int)(in - m) : (int)strlen(m);
		json_object_set_new(ir, "failed", json_true());
		json_object_set_new(ir, "msg", json_sprintf("Failed to template loop_control.label: "
							    "%.*s. %.*s", n, m, n, m));
		diag_release(&d);
		*bad = true;
		return xstrdup("None");
	}
	return tmpl_to_text(item);
}

/* notify, as Ansible's Task and Block both have it: inherited from the
 * enclosing blocks and import_tasks (never from the play, which has no
 * notify), so every changed task an import with notify: brings in
 * notifies its handlers. Ansible notifies before its callback prints the
 * result: -1 when a notification no handler answers ended the run. */
static int notify_handlers(struct exec_ctx *x)
{
	json_t *n = NULL;
	for (const struct ptask *p = x->task; p && !n; p = p->parent)
		n = json_object_get(p->raw, "notify");
	if (!n || !x->run->notify)
		return 0;
	struct diag d = DIAG_INIT;
	json_t *names = xt_value(x, n, &d);
	diag_release(&d);
	if (!names)
		return 0;
	if (json_is_string(names)) {
		json_t *a = json_array();
		json_array_append(a, names);
		json_decref(names);
		names = a;
	}
	size_t i;
	json_t *e;
	json_array_foreach(names, i, e)
		if (json_is_string(e))
			x->run->notify(x->run, x->host, json_string_value(e));
	json_decref(names);
	return x->run->raised ? -1 : 0;
}

/* After one loop item: the next item sees what this one set, as in
 * Ansible, whose items share one variables dict that each result updates
 * (the registered name gets the item's result, facts are merged), so
 * set_fact: acc="{{ acc + [item] }}" accumulates over the items. */
static void loop_item_vars(struct exec_ctx *x, json_t *ir)
{
	const char *reg = json_string_value(json_object_get(x->task->raw, "register"));
	if (reg) {
		json_object_set_new(x->vars, reg, json_deep_copy(ir));
		exec_mark_registered(x->host, reg);
	}
	json_t *facts = json_object_get(ir, "ansible_facts");
	if (json_is_object(facts) && strcmp(x->task->module, "debug") &&
	    (exec_clean_facts(x->task->module) || !x->run->facts_not_vars))
		json_object_update(x->vars, facts);
}

/* no_log: what is printed and recorded instead of the result */
static json_t *censored(json_t *res)
{
	return json_pack("{s:s, s:b}", "censored",
			 "the output has been hidden due to the fact that 'no_log: true' was specified for this result",
			 "changed", json_is_true(json_object_get(res, "changed")));
}

/* Whether the module's result asks to be shown at any verbosity, as
 * debug's and a not quiet assert's do (_ansible_verbose_always). */
static bool verbose_always(const struct ptask *t)
{
	if (!t->module)
		return false;
	if (!strcmp(t->module, "debug"))
		return true;
	return !strcmp(t->module, "assert") && !args_bool(json_object_get(t->args, "quiet"), false);
}

/* Strips "failed": false at the top level (the json callback omits it). */
static void tidy_top(json_t *res)
{
	json_t *f = json_object_get(res, "failed");
	if (f && !json_is_true(f))
		json_object_del(res, "failed");
}

/* Where a task delegated to `to` runs: on the inventory host of that name
 * (its connection, shared: an SSH session runs one command at a time),
 * else on localhost through the local connection, else on the host
 * Ansible makes up for any other name, which a local run reaches locally
 * (ansible-playbook -c local applies to it too) and an SSH run cannot
 * (unsupported). Sets x->conn to that connection (*own when the caller
 * closes it after the task), the name the output shows and, with
 * delegate_facts, the host the facts go to (*facts_tmp when that host is
 * outside the inventory: they are kept nowhere, as Ansible keeps them
 * under a name no play can reach). Returns 0, or -1 with *res the
 * failure. */
static int delegate(struct exec_ctx *x, const char *to, bool *own, struct task_host **facts_tmp,
		    char **shown, json_t **res)
{
	struct task_run *run = x->run;
	struct task_host *h = x->host;
	struct task_host *th = inventory_find(run, to);
	struct task_conn *c;
	if (th && !th->conn) {
		*res = res_refused("delegate_to '%s': imc has no connection to that host: not supported by imc",
				to);
		return -1;
	}
	if (th)
		c = th->conn;
	else if (inventory_localhost_name(to) || inventory_local(run))
		c = conn_local_open();
	else {
		*res = res_refused("delegate_to '%s': a host outside the inventory, reached over SSH, "
				"is not supported by imc", to);
		return -1;
	}
	if (args_bool(exec_keyword(run, x->task, "delegate_facts"), false)) {
		if (!th)
			th = *facts_tmp = task_host_new(to, NULL, NULL);
		x->facts_host = th;
	}
	const char *addr = th ? json_string_value(json_object_get(th->vars, "ansible_host")) : NULL;
	*shown = xasprintf("%s -> %s", h->name, addr ? addr : to);
	*own = c != (th ? th->conn : NULL);
	x->conn = c;
	return 0;
}

/* The connection keyword (task, block or play). A host's inventory
 * variable ansible_connection outranks it, as in Ansible (imc's local
 * hosts carry one; IM's SSH hosts do not). Without one, 'local' runs the
 * task on this machine, as Ansible runs it on its controller; ssh, smart
 * and paramiko are the SSH connection the host already has; anything
 * else fails the task, named. Templating errors are left to the task's
 * other keywords' handling (pend). */
static void connection_keyword(struct exec_ctx *x, bool *own, json_t **pend)
{
	json_t *kw = exec_keyword(x->run, x->task, "connection");
	if (!kw)
		return;
	/* the host's ansible_connection, from wherever the inventory gives
	 * it (host line, group vars, group_vars/), outranks the keyword */
	json_t *iv = inventory_vars(x->run, x->host);
	bool inventory_says = json_object_get(iv, "ansible_connection") != NULL;
	json_decref(iv);
	if (inventory_says)
		return;
	struct diag d = DIAG_INIT;
	json_t *v = xt_value(x, kw, &d);
	const char *c = json_string_value(v);
	if (!c)
		*pend = v ? res_fail("connection must be a string") : fail_from_diag(&d);
	else if (!strcmp(c, "local")) {
		x->conn = conn_local_open();
		*own = true;
	} else if (strcmp(c, "ssh") && strcmp(c, "smart") && strcmp(c, "paramiko"))
		*pend = res_refused("connection '%s': not supported by imc", c);
	json_decref(v);
	diag_release(&d);
}

/* One connection setting the task asks for: the first of the variables
 * a and b in its variables (Ansible's variables outrank keywords), else
 * the keyword kw (task, blocks, play; alt: the play's old name for it),
 * templated; *from names where it came from. NULL when none is set (the
 * connection's own then holds), or with *pend the templating failure. */
static json_t *conn_setting(struct exec_ctx *x, const char *a, const char *b, const char *kw,
			    const char *alt, const char **from, json_t **pend)
{
	json_t *raw = json_object_get(x->vars, a);
	*from = a;
	if (!raw) {
		raw = json_object_get(x->vars, b);
		*from = b;
	}
	if (!raw) {
		raw = exec_keyword(x->run, x->task, kw);
		*from = kw;
	}
	if (!raw && alt && x->run->play) {
		raw = json_object_get(x->run->play->raw, alt);
		*from = alt;
	}
	if (!raw || json_is_null(raw))
		return NULL;
	struct diag d = DIAG_INIT;
	json_t *v = xt_value(x, raw, &d);
	if (!v)
		*pend = fail_from_diag(&d);
	diag_release(&d);
	return v;
}

/* The login user and port a task asks for (remote_user and port, or
 * ansible_user and ansible_port from any variable) on an SSH host: imc
 * keeps one session per host, so a task that asks for another user or
 * port than the session's fails, naming what asked for it, rather than
 * running as the session's user. The local connection ignores them, as
 * Ansible's does. */
static void connection_user(struct exec_ctx *x, json_t **pend)
{
	struct conn_ssh_opts o;
	if (!x->conn || conn_ssh_target(x->conn, &o) < 0)
		return;
	const char *from = NULL;
	json_t *u = conn_setting(x, "ansible_user", "ansible_ssh_user", "remote_user", "user", &from, pend);
	if (*pend)
		return;
	char *us = u && !json_is_string(u) ? out_json_compact(u) : NULL;
	const char *user = us ? us : json_string_value(u);
	if (user && o.user && strcmp(user, o.user))
		*pend = res_refused("%s '%s' differs from the user of the SSH session to '%s' ('%s'): a session "
				 "per user is not supported by imc", from, user, x->host->name, o.user);
	free(us);
	json_decref(u);
	if (*pend)
		return;
	json_t *p = conn_setting(x, "ansible_port", "ansible_ssh_port", "port", NULL, &from, pend);
	if (*pend || !p)
		return;
	char *end = NULL;
	long port = json_is_integer(p) ? (long)json_integer_value(p)
		    : json_is_string(p) ? strtol(json_string_value(p), &end, 10) : -1;
	if ((end && (*end || end == json_string_value(p))) || port != o.port) {
		char *ps = json_is_string(p) ? xstrdup(json_string_value(p)) : out_json_compact(p);
		*pend = res_refused("%s '%s' differs from the port of the SSH session to '%s' (%d): a session "
				 "per port is not supported by imc", from, ps, x->host->name, o.port);
		free(ps);
	}
	json_decref(p);
}

/* become_method (or ansible_become_method): sudo, Ansible's default, and
 * su are what imc runs; another method fails the run by name rather than
 * becoming by sudo in its place. */
static void become_method(struct exec_ctx *x, json_t **pend)
{
	if (!x->become_user)
		return;
	const char *from = NULL;
	json_t *m = conn_setting(x, "ansible_become_method", NULL, "become_method", NULL, &from, pend);
	if (*pend || !m)
		return;
	const char *ms = json_string_value(m);
	if (ms && strncmp(ms, "ansible.builtin.", 16) == 0)
		ms += 16;
	if (ms && !strcmp(ms, "su"))
		x->become_su = true;
	else if (!ms || strcmp(ms, "sudo")) {
		char *t = ms ? NULL : out_json_compact(m);
		*pend = res_refused("%s '%s': imc becomes with sudo or su only: not supported by imc", from,
				    ms ? ms : t);
		free(t);
	}
	json_decref(m);
}

/* Whether res (or one of its loop items) is imc's refusal (res_refused):
 * the mark is taken out, so that no result shows it. */
static bool take_refusal(json_t *res)
{
	bool refused = json_is_true(json_object_get(res, RES_REFUSED));
	json_object_del(res, RES_REFUSED);
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(res, "results"), i, r) {
		refused = refused || json_is_true(json_object_get(r, RES_REFUSED));
		json_object_del(r, RES_REFUSED);
	}
	return refused;
}

/* ansible_failed_task.name: the task's own name, templated with the
 * host's variables, without the role prefix of the banner; "" for a task
 * without a name (ansible-playbook 2.14 gives both so). */
static json_t *failed_task_name(struct exec_ctx *x)
{
	json_t *name = json_object_get(x->task->raw, "name");
	if (!json_is_string(name))
		return json_string("");
	struct diag d = DIAG_INIT;
	json_t *v = xt_value(x, name, &d);
	diag_release(&d);
	if (json_is_string(v))
		return v;
	json_decref(v);
	return json_copy(name);
}

static int task_host_run(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
			 json_t *inc_params, json_t **result);

int exec_task_host(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
		   json_t *inc_params, json_t **result)
{
	unsigned long scope = out_warning_scope_enter();
	int rc = task_host_run(run, t, h, rescuable, inc_params, result);
	out_warning_scope_leave(scope);
	return rc;
}

static int task_host_run(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
			 json_t *inc_params, json_t **result)
{
	struct exec_ctx x = { .run = run, .host = h, .task = t, .conn = h->conn,
			      .deadline = run->deadline, .check_unsupported = check_unsupported };
	x.vars = exec_build_vars(run, h, t, inc_params);
	struct diag d = DIAG_INIT;
	json_t *res = NULL;
	bool is_loop = false;
	json_t *lc = NULL;
	const char *loop_var = "item", *index_var = NULL;
	const struct task_module *mod = task_module_find(t->module);
	json_t *dt = NULL;
	bool own_conn = false;
	struct task_host *facts_tmp = NULL;
	char *deleg_name = NULL; /* "HOST -> DELEGATE" when delegated */
	/* A keyword that fails to template (become_user, environment,
	 * delegate_to) fails the task only if it runs: Ansible evaluates
	 * `when` first and never templates a skipped task's keywords (its
	 * play context error is kept until the condition is known). */
	json_t *pend = NULL;

	if (setup_exec(&x, &d) < 0) {
		pend = fail_from_diag(&d);
		diag_release(&d);
		diag_init(&d);
	}
	/* delegate_to (local_action is delegate_to: localhost): the task runs
	 * on the delegated host's connection with this host's variables */
	dt = pend ? NULL : json_object_get(t->raw, "delegate_to");
	if (dt) {
		json_t *dv = xt_value(&x, dt, &d);
		const char *to = json_string_value(dv);
		if (!to) {
			pend = dv ? res_fail("delegate_to must be a host name") : fail_from_diag(&d);
			diag_release(&d);
			diag_init(&d);
		} else if (strcmp(to, h->name))
			delegate(&x, to, &own_conn, &facts_tmp, &deleg_name, &pend);
		json_decref(dv);
	}
	if (!pend && !own_conn)
		connection_keyword(&x, &own_conn, &pend);
	/* a delegated task's connection settings are its delegate's */
	if (!pend && !own_conn && x.conn == h->conn)
		connection_user(&x, &pend);
	if (!pend)
		become_method(&x, &pend);
	if (!pend && !x.conn && mod && !mod->controller) {
		res = res_refused("imc has no connection to '%s' (a host added at run time, "
			       "outside a local run): not supported by imc", h->name);
		goto done;
	}
	json_t *items = exec_loop_items(&x, &d, &is_loop);
	if (is_loop && !items) {
		/* a loop source naming an undefined variable fails only if
		 * the task runs: a `when` false without the item skips it,
		 * as Ansible evaluates the condition once before failing */
		bool w = true;
		struct diag wd = DIAG_INIT;
		const char *m = diag_first_message(&d);
		if (m && !strncmp(m, "AnsibleUndefinedVariable", 24) &&
		    json_object_get(t->raw, "when") && exec_when(&x, t, &w, &wd) == 0 && !w)
			res = skip_result();
		else
			res = fail_from_diag(&d);
		diag_release(&wd);
		is_loop = false;
		goto done;
	}
	if (!is_loop) {
		bool w;
		if (exec_when(&x, t, &w, &d) < 0) {
			res = exec_when_failure(&d);
			goto done;
		}
		if (!w)
			res = skip_result();
		else if (pend) {
			res = pend;
			pend = NULL;
		} else if (mod && mod->controller && !mod->run)
			res = res_fail("module '%s' cannot run here", t->module);
		else {
			bool fatal = false;
			res = run_once(&x, &fatal);
		}
		goto done;
	}
	/* loops */
	lc = exec_loop_control(&x, &d);
	if (!lc) {
		json_decref(items);
		res = fail_from_diag(&d);
		is_loop = false;
		goto done;
	}
	loop_var = json_string_value(json_object_get(lc, "loop_var"));
	index_var = json_string_value(json_object_get(lc, "index_var"));
	json_t *results = json_array();
	bool any_changed = false, any_failed = false, all_skipped = true;
	size_t i;
	json_t *item;
	json_array_foreach(items, i, item) {
		if (i > 0)
			loop_pause(&x, lc);
		exec_loop_item_vars(&x, lc, items, i, x.vars);
		bool w;
		json_t *ir;
		diag_init(&d);
		bool fatal = false;
		if (exec_when(&x, t, &w, &d) < 0) {
			/* Ansible's executor raises it out of the loop */
			ir = exec_when_failure(&d);
			fatal = true;
		} else if (!w)
			ir = skip_result();
		else if (pend)
			ir = json_deep_copy(pend);
		else
			ir = run_once(&x, &fatal);
		if (fatal) {
			/* Ansible stops the loop there: the task fails as a
			 * whole, with no results, shown as a task's failure
			 * (fatal:), not an item's */
			json_decref(results);
			json_object_del(x.vars, loop_var);
			json_decref(items);
			res = ir;
			is_loop = false;
			goto done;
		}
		diag_release(&d);
		diag_init(&d);
		json_object_set(ir, loop_var, item);
		json_object_set_new(ir, "ansible_loop_var", json_string(loop_var));
		if (index_var) {
			json_object_set_new(ir, index_var, json_integer((json_int_t)i));
			json_object_set_new(ir, "ansible_index_var", json_string(index_var));
		}
		bool skipped = json_is_true(json_object_get(ir, "skipped"));
		if (!skipped && !json_object_get(ir, "failed"))
			json_object_set_new(ir, "failed", json_false());
		loop_item_vars(&x, ir);
		bool bad_label = false;
		char *label = args_bool(exec_keyword(run, t, "no_log"), false)
				      ? xstrdup("None") : item_label(item, lc, &x, ir, &bad_label);
		if (bad_label) {
			/* Ansible fails the item, skipped or not, shown by
			 * its result as the module's callback cleans it */
			json_t *shown = json_deep_copy(ir);
			char *vb = out_dump(run->out, shown, t->module, !skipped && verbose_always(t));
			out_line(run->out, h->index, "failed: [%s] (item=%s)%s",
				 deleg_name ? deleg_name : h->name, label, vb);
			free(vb);
			json_decref(shown);
		} else if (skipped) {
			char *vb = out_verbose(run->out, ir, t->module, false);
			out_line(run->out, h->index, "skipping: [%s] => (item=%s) %s", h->name, label, vb);
			free(vb);
		} else if (res_failed(ir)) {
			bool nl = args_bool(exec_keyword(run, t, "no_log"), false);
			json_t *shown = nl ? censored(ir) : json_deep_copy(ir);
			json_object_del(shown, "failed");
			char *js = out_json_compact(shown);
			out_line(run->out, h->index, "failed: [%s] (item=%s) => %s", deleg_name ? deleg_name : h->name,
				 label, js);
			free(js);
			json_decref(shown);
		} else {
			/* --diff (or the diff keyword): each item's diff
			 * before its line, as Ansible's callback shows it */
			if (json_object_get(ir, "diff") && mod_diff_wanted(&x))
				out_diff(run->out, h->index, ir);
			bool nl = args_bool(exec_keyword(run, t, "no_log"), false);
			json_t *shown = nl ? censored(ir) : json_incref(ir);
			char *vb = out_verbose(run->out, shown, t->module, verbose_always(t));
			out_line(run->out, h->index, "%s: [%s] => (item=%s)%s",
				 res_changed(ir) ? "changed" : "ok", deleg_name ? deleg_name : h->name, label, vb);
			free(vb);
			json_decref(shown);
		}
		free(label);
		any_changed |= res_changed(ir);
		any_failed |= res_failed(ir);
		all_skipped &= skipped;
		json_array_append_new(results, ir);
	}
	json_object_del(x.vars, loop_var);
	res = json_object();
	json_object_set_new(res, "changed", json_boolean(any_changed));
	if (all_skipped && json_array_size(items)) {
		/* failed too when an item failed (its label): Ansible's
		 * message is the skip's then */
		if (any_failed)
			json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "skipped", json_true());
		json_object_set_new(res, "msg", json_string("All items skipped"));
	} else if (any_failed) {
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "msg", json_string("One or more items failed"));
	} else
		json_object_set_new(res, "msg", json_string("All items completed"));
	json_object_set_new(res, "results", results);
	if (!json_array_size(items)) {
		json_object_set_new(res, "skipped", json_true());
		json_object_set_new(res, "skipped_reason", json_string("No items in the list"));
	}
	json_decref(items);

done:
	json_decref(pend);
	json_decref(lc);
	if (own_conn)
		conn_close(x.conn);
	task_host_free(facts_tmp);
	const char *who = deleg_name ? deleg_name : h->name;
	diag_release(&d);
	tidy_top(res);
	/* register (kept even when failed or skipped) */
	const char *reg = json_string_value(json_object_get(t->raw, "register"));
	bool failed = res_failed(res);
	bool unreachable = json_is_true(json_object_get(res, "unreachable"));
	bool skipped = json_is_true(json_object_get(res, "skipped"));
	bool refused = take_refusal(res);
	bool ignore = !refused && args_bool(exec_keyword(run, t, "ignore_errors"), false);
	bool nolog = args_bool(exec_keyword(run, t, "no_log"), false);
	if (refused) {
		const char *m = json_string_value(json_object_get(res, "msg"));
		task_run_refuse(run, t->display, m ? m : "refused by imc");
	}
	/* a module's result has failed set even when the module skipped
	 * (command in check mode); a skip of imc's own (when, loop) has not */
	bool own_skip = skipped && (is_loop || json_object_get(res, "skip_reason"));
	if (reg) {
		json_t *stored = json_deep_copy(res);
		if (!json_object_get(stored, "failed") && !own_skip)
			json_object_set_new(stored, "failed", json_false());
		/* a loop's registered result says it was not skipped (the
		 * callbacks' copy drops the key, as Ansible's clean_copy) */
		if (is_loop && !json_object_get(stored, "skipped"))
			json_object_set_new(stored, "skipped", json_false());
		exec_set_fact(run, h, reg, stored);
		exec_mark_registered(h, reg);
		json_decref(stored);
	}
	/* set_fact results are applied by the module through exec_set_fact */
	if (unreachable) {
		char *js = out_json_compact(res);
		out_line(run->out, h->index, "fatal: [%s]: UNREACHABLE! => %s", who, js);
		free(js);
		h->st.unreachable++;
		h->unreachable = true;
		h->failed = true;
		if (!h->error)
			h->error = xstrdup(json_string_value(json_object_get(res, "msg")) ?
					   json_string_value(json_object_get(res, "msg")) : "unreachable");
	} else if (failed) {
		if (is_loop && !strcmp(t->module, "debug")) {
			/* Ansible's callback cleans a debug result to its msg,
			 * which drops the loop's results: the task's line shows */
			char *vb = out_dump(run->out, res, t->module, false);
			out_line(run->out, h->index, "fatal: [%s]: FAILED!%s", who, vb);
			free(vb);
		} else if (!is_loop && verbose_always(t) && !strcmp(t->module, "assert") &&
			   json_object_get(res, "assertion") && !nolog) {
			/* a condition of assert that does not hold: its action's
			 * result asks to be shown in full (an error of the
			 * action, as a debug's, does not) */
			char *vb = out_dump(run->out, res, t->module, true);
			out_line(run->out, h->index, "fatal: [%s]: FAILED!%s", who, vb);
			free(vb);
		} else if (!is_loop) {
			json_t *shown = nolog ? censored(res) : json_deep_copy(res);
			json_object_del(shown, "failed");
			char *js = out_json_compact(shown);
			out_line(run->out, h->index, "fatal: [%s]: FAILED! => %s", who, js);
			free(js);
			json_decref(shown);
		}
		if (ignore) {
			out_line(run->out, h->index, "...ignoring");
			h->st.ok++;
			h->st.ignored++;
			if (res_changed(res))
				h->st.changed++;
		} else {
			/* Ansible counts a failure inside the block section of a
			 * block with rescue as rescued when it happens, whatever
			 * the rescue tasks then do (a failing rescue task counts
			 * again: as failed, or as rescued by an outer block) */
			if (rescuable && !refused)
				h->st.rescued++;
			else
				h->st.failed++;
			h->failed = true;
			pthread_mutex_lock(&run->lock);
			json_decref(h->fail_task);
			/* of Task.serialize(), the name and the action as written */
			const char *action = t->action ? t->action : t->module;
			h->fail_task = json_pack("{s:o, s:s?}", "name", failed_task_name(&x), "action", action);
			json_decref(h->fail_result);
			h->fail_result = json_incref(res);
			if (!h->error) {
				const char *m = json_string_value(json_object_get(res, "msg"));
				h->error = xasprintf("task '%s' failed: %s", t->display, m ? m : "");
			}
			pthread_mutex_unlock(&run->lock);
		}
	} else if (skipped) {
		if (!is_loop || json_array_size(json_object_get(res, "results")) == 0 ||
		    json_object_get(res, "results")) {
			/* a loop's items were shown: Ansible's callback drops them */
			json_t *shown = json_deep_copy(res);
			json_object_del(shown, "results");
			char *vb = out_verbose(run->out, shown, t->module, false);
			out_line(run->out, h->index, "skipping: [%s]%s", h->name, vb);
			free(vb);
			json_decref(shown);
		}
		h->st.skipped++;
	} else if (res_changed(res) && notify_handlers(&x) < 0) {
		/* a notification no handler answers ended the run */
	} else {
		bool ch = res_changed(res);
		if (!is_loop && json_object_get(res, "diff") && mod_diff_wanted(&x))
			out_diff(run->out, h->index, res);
		if (!is_loop) {
			json_t *shown = nolog ? censored(res) : json_incref(res);
			char *vb = out_verbose(run->out, shown, t->module, verbose_always(t));
			out_line(run->out, h->index, "%s: [%s]%s", ch ? "changed" : "ok", who, vb);
			free(vb);
			json_decref(shown);
		}
		h->st.ok++;
		if (ch)
			h->st.changed++;
	}
	if (nolog) {
		json_t *c = censored(res);
		out_record(run->out, h, c);
		json_decref(c);
	} else
		out_record(run->out, h, res);
	json_decref(x.vars);
	json_decref(x.env);
	free(x.become_user_own);
	free(x.stat_memo);
	free(x.write_memo);
	free(deleg_name);
	if (result)
		*result = res;
	else
		json_decref(res);
	return failed && !ignore ? -1 : 0;
}
