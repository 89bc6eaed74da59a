/* module-shared.h: what one module file borrows from another, for the
 * modules that are one module under several names or options: shell runs
 * command's code, systemd service's, template writes as copy does, and
 * apt, yum, dnf and package share the package script helpers
 * (module-pkg.c); and the async job table of async_status.c, which
 * exec-async.c adds the jobs it starts to. A new module needs none of this: module authors read
 * module.h. */
#ifndef IMC_PROVISION_MODULE_SHARED_H
#define IMC_PROVISION_MODULE_SHARED_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "provision/module.h"
#include "util/strbuf.h"

/* command.c: runs the command (shell false: argv split, no shell) or the
 * shell text (shell true); the static check that a command was given. */
json_t *command_module_run(struct exec_ctx *x, json_t *args, bool shell);
int command_module_check(json_t *args, struct diag *d, const struct src_loc *loc);

/* copy.c: writes data to dest when its checksum differs, then applies
 * the attributes and backup of args; the copy result (new reference).
 * given is the dest as the task named it (dest is the file in it when it
 * is a directory), which the answer without force names. */
json_t *copy_put_content(struct exec_ctx *x, json_t *args, const char *dest, const char *given,
			 const void *data, size_t len);
/* A failure of the copy module (the module's, not the action's own):
 * the checksum of what the action meant to write added, as Ansible's
 * action adds it to whatever its module returned. */
void copy_sum_failure(json_t *res, const void *data, size_t len);
/* dest ending in '/' or naming a directory on the node: dest/basename(src)
 * (malloc'd; a missing dest/ made, with args' directory_mode, owner and
 * group when args is not NULL); NULL with *res set when the node is
 * unreachable or the directory cannot be made. */
char *copy_final_dest(struct exec_ctx *x, json_t *args, const char *dest, const char *src, json_t **res);
/* copy_final_dest before copy_put_content of data with args: its stat of
 * dest also makes the write (mod_stat_write) when the write is decided by
 * that stat alone. */
char *copy_final_dest_put(struct exec_ctx *x, const char *dest, const char *src, json_t *args,
			  const void *data, size_t len, json_t **res);

/* service.c: the service module's run (systemd uses it too). */
json_t *service_module_run(struct exec_ctx *x, json_t *args);

/* apt.c: the apt module's run (package uses it on apt systems). */
json_t *apt_module_run(struct exec_ctx *x, json_t *args);

/* module-pkg.c */
/* The package names of name/pkg/package: a list or a comma-separated
 * string (new reference, an array of strings). */
json_t *pkg_names(json_t *args);
/* IM's state names: installed -> present, removed -> absent; NULL -> present. */
const char *pkg_state(const char *s);
/* Runs the package script c on the node; changed when it printed
 * "__imc_changed__" or "__imc_cache_updated__"; failed "WHAT failed: ..."
 * on a non-zero status. */
json_t *pkg_finish(struct exec_ctx *x, struct strbuf *c, const char *what);
/* The yum/dnf module run, with mgr "yum" or "dnf". */
json_t *pkg_rpm_run(struct exec_ctx *x, json_t *args, const char *mgr);

/* modules/async_status.c: the async job table. A new job id (malloc'd);
 * adds job jid: a detached command (cmd its repr, command or shell)
 * or the finished result of a module run at start; the state of job jid
 * as async_status reports it (new reference). */
char *async_job_new_id(void);
void async_job_add(const char *jid, json_t *cmd, json_t *result);
json_t *async_job_status(struct exec_ctx *x, const char *jid);

#endif
