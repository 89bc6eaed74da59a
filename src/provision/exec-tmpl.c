/* exec-tmpl.c: the executor's side of templating: builds the tmpl_env a
 * task evaluates in (its merged variables, hostvars/groups resolved on
 * demand, controller search path for lookups: role files/ and templates/,
 * the play directory), and wraps the engine's calls so that modules only
 * see xt_value / xt_cond / xt_render_text. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/output.h"
#include "provision/play.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "template/template.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *resolve(void *ud, const char *name)
{
	struct exec_ctx *x = ud;
	if (!strcmp(name, "hostvars"))
		return exec_hostvars(x->run);
	return NULL;
}

static bool hostvar_unsafe(void *ud, const char *host, const char *name)
{
	struct exec_ctx *x = ud;
	return x->run && exec_hostvar_registered(x->run, host, name);
}

struct env_paths {
	const char *v[7]; /* 4 role dirs, 2 playbook dirs, NULL */
	char *own[4];
};

static void template_warning(void *ud, const char *msg);

static void setup_env(struct exec_ctx *x, struct tmpl_env *env, struct env_paths *sp)
{
	memset(env, 0, sizeof(*env));
	memset(sp, 0, sizeof(*sp));
	env->vars = x->vars;
	env->resolve = resolve;
	env->resolve_ud = x;
	env->hostvar_unsafe = hostvar_unsafe;
	env->warn = template_warning;
	env->warn_ud = x;
	env->allow_pipe = true;
	int n = 0;
	struct task_role *r = x->task ? x->task->role : NULL;
	if (r) {
		sp->own[0] = xasprintf("%s/files", r->dir);
		sp->own[1] = xasprintf("%s/templates", r->dir);
		sp->own[2] = xasprintf("%s/tasks", r->dir);
		sp->v[n++] = sp->own[0];
		sp->v[n++] = sp->own[1];
		sp->v[n++] = sp->own[2];
		sp->v[n++] = r->dir;
	}
	if (x->run && x->run->pb) {
		sp->own[3] = xasprintf("%s/files", x->run->pb->dir);
		sp->v[n++] = sp->own[3];
		sp->v[n++] = x->run->pb->dir;
		env->pipe_dir = x->run->pb->dir;
	}
	sp->v[n] = NULL;
	env->search_path = sp->v;
	/* registered results are data: a '{{' in a command's output is text */
	env->unsafe = x->host ? x->host->registered : NULL;
	env->native = x->host ? x->host->native : NULL;
}

static void release_env(struct env_paths *sp)
{
	for (int i = 0; i < 4; i++)
		free(sp->own[i]);
}

/* Drops arguments that templated to `omit`. */
static void drop_omit(json_t *v)
{
	if (json_is_object(v)) {
		const char *k;
		json_t *e;
		void *tmp;
		json_object_foreach_safe(v, tmp, k, e) {
			if (json_is_string(e) && !strcmp(json_string_value(e), TMPL_OMIT))
				json_object_del(v, k);
			else
				drop_omit(e);
		}
	} else if (json_is_array(v)) {
		for (size_t i = json_array_size(v); i-- > 0;) {
			json_t *e = json_array_get(v, i);
			if (json_is_string(e) && !strcmp(json_string_value(e), TMPL_OMIT))
				json_array_remove(v, i);
			else
				drop_omit(e);
		}
	}
}

/* When an undefined variable is met while a variable's own value is
 * templated, the engine says "M (in 'TEXT', column N)"; Ansible words that
 * "TEXT: M. M" (the value's template, then the error and its cause). Other
 * messages are returned as they are. Returns a malloc'd string. */
static char *ansible_lazy_var_message(const char *msg)
{
	const char *in = strstr(msg, " (in '");
	const char *end = in ? strstr(in, "', column ") : NULL;
	if (!in || !end || strstr(in + 6, "...") || strchr(msg, '\n'))
		return xstrdup(msg);
	const char *text = in + 6;
	return xasprintf("%.*s: %.*s. %.*s", (int)(end - text), text, (int)(in - msg), msg,
			 (int)(in - msg), msg);
}

/* The engine's message without its " (in 'TEXT', column N)" tail. */
static char *without_position(const char *msg)
{
	const char *in = NULL;
	for (const char *p = strstr(msg, " (in '"); p; p = strstr(p + 1, " (in '"))
		in = p;
	if (!in || !strstr(in, "', column ") || msg[strlen(msg) - 1] != ')')
		return xstrdup(msg);
	return xasprintf("%.*s", (int)(in - msg), msg);
}

/* A failure of a !vault value that could not be decrypted (play-yaml.c)
 * is Ansible's decryption message alone, however deep the value was:
 * true when the last error of d was one (its message then replaced). */
static bool vault_failure(struct diag *d)
{
	static const char mark[] = PLAY_VAULT_UNDECRYPTABLE " | mandatory('";
	struct diag_item *it = d->n ? &d->items[d->n - 1] : NULL;
	const char *p = it ? strstr(it->msg, mark) : NULL;
	if (!p)
		return false;
	struct strbuf sb = STRBUF_INIT;
	for (p += sizeof(mark) - 1; *p && *p != '\''; p++) {
		if (*p == '\\' && p[1])
			p++;
		strbuf_addch(&sb, *p);
	}
	free(it->msg);
	it->msg = strbuf_detach(&sb);
	return true;
}

/* vault_failure for a conditional: Ansible names the check first */
static bool vault_cond_failure(struct diag *d, json_t *cond)
{
	if (!vault_failure(d))
		return false;
	struct diag_item *it = &d->items[d->n - 1];
	if (json_is_string(cond)) {
		char *m = xasprintf("The conditional check '%s' failed. The error was: %s", json_string_value(cond),
				    it->msg);
		free(it->msg);
		it->msg = m;
	}
	return true;
}

json_t *xt_value(struct exec_ctx *x, json_t *v, struct diag *d)
{
	struct tmpl_env env;
	struct env_paths sp;
	setup_env(x, &env, &sp);
	json_t *r = tmpl_render_value(&env, v, d);
	if (!r && vault_failure(d)) {
		/* reported as it is */
	} else if (!r && env.err_kind == TMPL_ERR_UNDEFINED && d->n) {
		/* Ansible's wording for the task message */
		struct diag_item *it = &d->items[d->n - 1];
		char *m = xasprintf("AnsibleUndefinedVariable: %s", it->msg);
		free(it->msg);
		it->msg = m;
	} else if (!r && env.err_kind == TMPL_ERR_TYPE && d->n) {
		/* Ansible's templar on a TypeError: the value's template, then
		 * the error and its cause (the same words twice). A template
		 * the engine shortened ("...") is left in the engine's words. */
		struct diag_item *it = &d->items[d->n - 1];
		const char *in = strstr(it->msg, " (in '");
		const char *end = in ? strstr(in, "', column ") : NULL;
		if (in && end && !strstr(in + 6, "...")) {
			char *m = without_position(it->msg);
			char *w = xasprintf("Unexpected templating type error occurred on (%.*s): %s. %s",
					    (int)(end - (in + 6)), in + 6, m, m);
			free(m);
			free(it->msg);
			it->msg = w;
		}
	} else if (!r && (env.err_kind == TMPL_ERR_FILTER || env.err_kind == TMPL_ERR_LOOKUP) && d->n) {
		/* Ansible's own filter and lookup errors are shown in their
		 * words alone */
		struct diag_item *it = &d->items[d->n - 1];
		char *m = without_position(it->msg);
		free(it->msg);
		it->msg = m;
	}
	release_env(&sp);
	if (r)
		drop_omit(r);
	return r;
}

/* A warning as Ansible's Display prints it: "[WARNING]: " and the text,
 * wrapped at 79 columns (textwrap, which wordwrap is). */
void exec_warning(struct task_run *run, const char *text)
{
	if (!run || !run->out)
		return;
	char *m = xasprintf("[WARNING]: %s", text);
	struct tmpl_env env;
	memset(&env, 0, sizeof(env));
	env.vars = json_pack("{s:s}", "m", m);
	env.unsafe = json_pack("{s:b}", "m", 1); /* data, not a template */
	struct diag d = DIAG_INIT;
	json_t *w = tmpl_eval(&env, "m | wordwrap(79)", &d);
	out_warning(run->out, json_is_string(w) ? json_string_value(w) : m);
	json_decref(w);
	json_decref(env.vars);
	json_decref(env.unsafe);
	diag_release(&d);
	free(m);
}

/* the templates' own warnings (tmpl_env.warn) */
static void template_warning(void *ud, const char *msg)
{
	struct exec_ctx *x = ud;
	exec_warning(x->run, msg);
}

/* Ansible's warning for a condition written with {{ }} or {% %} (it
 * templates it first, then evaluates the result). */
static void warn_templated(struct exec_ctx *x, json_t *cond)
{
	if (!x->run || !x->run->out)
		return;
	if (json_is_array(cond)) {
		size_t i;
		json_t *e;
		json_array_foreach(cond, i, e)
			warn_templated(x, e);
		return;
	}
	if (!json_is_string(cond) || !tmpl_has_template(json_string_value(cond)))
		return;
	char *m = xasprintf("conditional statements should not include jinja2 templating "
			    "delimiters such as {{ }} or {%% %%}. Found: %s", json_string_value(cond));
	exec_warning(x->run, m);
	free(m);
}

/* An Ansible filter error in a condition, as its Conditional words it:
 * the check, then the filter's own message. */
static void filter_cond_error(json_t *cond, struct diag *d)
{
	struct diag_item *it = &d->items[d->n - 1];
	char *text = json_is_string(cond) ? xstrdup(json_string_value(cond)) : out_json_compact(cond);
	char *m = without_position(it->msg);
	free(it->msg);
	it->msg = xasprintf("The conditional check '%s' failed. The error was: %s", text, m);
	free(m);
	free(text);
}

int xt_cond(struct exec_ctx *x, json_t *cond, bool *out, struct diag *d)
{
	struct tmpl_env env;
	struct env_paths sp;
	warn_templated(x, cond);
	setup_env(x, &env, &sp);
	int rc = tmpl_eval_cond(&env, cond, out, d);
	if (rc < 0 && !vault_cond_failure(d, cond) && d->n &&
	    (env.err_kind == TMPL_ERR_FILTER || env.err_kind == TMPL_ERR_LOOKUP))
		filter_cond_error(cond, d);
	release_env(&sp);
	return rc;
}

int xt_conditional(struct exec_ctx *x, json_t *cond, bool *out, struct diag *d)
{
	struct tmpl_env env;
	struct env_paths sp;
	warn_templated(x, cond);
	setup_env(x, &env, &sp);
	int rc = tmpl_eval_cond(&env, cond, out, d);
	if (rc < 0 && vault_cond_failure(d, cond)) {
		/* reported as it is */
	} else if (rc < 0 && d->n && (env.err_kind == TMPL_ERR_UNDEFINED || env.err_kind == TMPL_ERR_TYPE)) {
		/* Ansible 2.14's assert: the check and its text, then the
		 * error with its cause (the same words, twice); a type error is
		 * reported on the conditional as Ansible wraps it in {% if %} */
		struct diag_item *it = &d->items[d->n - 1];
		char *text = json_is_string(cond) ? xstrdup(json_string_value(cond)) : out_json_compact(cond);
		char *m = without_position(it->msg);
		char *w = env.err_kind == TMPL_ERR_UNDEFINED
				  ? xasprintf("The conditional check '%s' failed. The error was: error while "
					      "evaluating conditional (%s): %s. %s", text, text, m, m)
				  : xasprintf("The conditional check '%s' failed. The error was: Unexpected "
					      "templating type error occurred on ({%% if %s %%} True {%% else %%} "
					      "False {%% endif %%}): %s. %s", text, text, m, m);
		free(it->msg);
		it->msg = w;
		free(m);
		free(text);
	} else if (rc < 0 && d->n && (env.err_kind == TMPL_ERR_FILTER || env.err_kind == TMPL_ERR_LOOKUP)) {
		filter_cond_error(cond, d);
	}
	release_env(&sp);
	return rc;
}

char *xt_render_text(struct exec_ctx *x, const char *text, const char *src_path, struct diag *d)
{
	return xt_render_template(x, text, src_path, true, false, NULL, NULL, d);
}

char *xt_render_template(struct exec_ctx *x, const char *text, const char *src_path, bool trim_blocks,
			 bool lstrip_blocks, const char *newline, const struct tmpl_syntax *syn, struct diag *d)
{
	struct tmpl_env env;
	struct env_paths sp;
	setup_env(x, &env, &sp);
	env.origin = src_path;
	env.no_trim_blocks = !trim_blocks;
	env.lstrip_blocks = lstrip_blocks;
	env.newline_sequence = newline;
	env.syntax = syn;
	char *r = tmpl_render_string(&env, text, d);
	if (!r && vault_failure(d)) {
		/* reported as it is */
	} else if (!r && env.err_kind == TMPL_ERR_UNDEFINED && d->n) {
		/* the template action wraps the error with its own cause:
		 * AnsibleUndefinedVariable(e, orig_exc=e) prints it twice */
		struct diag_item *it = &d->items[d->n - 1];
		char *inner = ansible_lazy_var_message(it->msg);
		char *m = xasprintf("AnsibleUndefinedVariable: %s. %s", inner, inner);
		free(inner);
		free(it->msg);
		it->msg = m;
	} else if (!r && env.err_kind == TMPL_ERR_SYNTAX && d->n) {
		/* the action reports Jinja's and its own parse errors (a
		 * malformed "#jinja2:" line) as "AnsibleError: ..." */
		struct diag_item *it = &d->items[d->n - 1];
		char *m = xasprintf("AnsibleError: %s", it->msg);
		free(it->msg);
		it->msg = m;
	}
	release_env(&sp);
	return r;
}

json_t *xt_expr(struct exec_ctx *x, const char *expr, struct diag *d)
{
	struct tmpl_env env;
	struct env_paths sp;
	setup_env(x, &env, &sp);
	json_t *r = tmpl_eval(&env, expr, d);
	if (!r)
		vault_failure(d);
	release_env(&sp);
	return r;
}

json_t *xt_lookup(struct exec_ctx *x, const char *name, json_t *terms, struct diag *d)
{
	struct tmpl_env env;
	struct env_paths sp;
	setup_env(x, &env, &sp);
	json_t *r = tmpl_lookup(&env, name, terms, NULL, true, d);
	release_env(&sp);
	return r;
}

bool xt_known_filter(const char *name)
{
	return tmpl_has_filter(name);
}

bool xt_is_template(const char *s)
{
	return tmpl_has_template(s);
}
