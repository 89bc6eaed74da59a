/* vars.h: the variables a task sees on a host (exec-vars.c) and the glue
 * that templates with them (exec-tmpl.c, over template/template.h). */
#ifndef IMC_PROVISION_VARS_H
#define IMC_PROVISION_VARS_H

#include <stdbool.h>

#include <jansson.h>

#include "provision/play.h"
#include "provision/run.h"
#include "util/diag.h"

/* exec-vars.c: the variables a task sees on a host (new reference). */
json_t *exec_build_vars(struct task_run *run, struct task_host *host, struct ptask *t,
			json_t *include_params);
json_t *exec_hostvars(struct task_run *run);
/* Whether variable name of host (as hostvars shows it) holds a registered
 * result: data, never templated. */
bool exec_hostvar_registered(struct task_run *run, const char *host, const char *name);
/* Sets variable name of host h as include_vars does: above task vars,
 * below set_fact and registered results (v borrowed). */
void exec_include_var(struct task_host *h, const char *name, json_t *v);
/* The innermost value of keyword kw along t's block chain, then the
 * play's (borrowed; NULL when none sets it). */
json_t *exec_keyword(struct task_run *run, struct ptask *t, const char *kw);

/* exec-tmpl.c: glue to the templating engine (template.h). */
/* A warning as Ansible's Display prints it ("[WARNING]: " and the text,
 * wrapped at 79 columns), once per text (out_warning). */
void exec_warning(struct task_run *run, const char *text);
json_t *xt_value(struct exec_ctx *x, json_t *v, struct diag *d);     /* templated copy */
int xt_cond(struct exec_ctx *x, json_t *cond, bool *out, struct diag *d);
/* xt_cond as Ansible's Conditional evaluates a task's when and assert's
 * that: an error is worded as it words it (the check, then the error). */
int xt_conditional(struct exec_ctx *x, json_t *cond, bool *out, struct diag *d);
char *xt_render_text(struct exec_ctx *x, const char *text, const char *src_path, struct diag *d);
/* xt_render_text with the template module's Jinja options (newline NULL:
 * "\n"; syn NULL: Jinja's delimiters). */
struct tmpl_syntax;
char *xt_render_template(struct exec_ctx *x, const char *text, const char *src_path, bool trim_blocks,
			 bool lstrip_blocks, const char *newline, const struct tmpl_syntax *syn, struct diag *d);
json_t *xt_expr(struct exec_ctx *x, const char *expr, struct diag *d);
json_t *xt_lookup(struct exec_ctx *x, const char *name, json_t *terms, struct diag *d);
/* The set of filters/tests/lookups supported (for the static check). */
bool xt_known_filter(const char *name);
/* True when s holds a template ({{ }}, {% %}), so that modules need not
 * include the template engine's header. */
bool xt_is_template(const char *s);

#endif
