/* module.h: all a module author reads. A module is one file,
 * modules/NAME.c, ending with
 *
 *	const struct task_module mod_NAME = { .name = "NAME", .run = NAME_run };
 *
 * and listed in module-table.c's task_modules[]. Its run gets the task's
 * context x and its arguments, already templated; it returns a result
 * object and never NULL:
 *  - arguments: args_str(args, "key") (borrowed, NULL when absent),
 *    args_bool(), args_mode(), args_strdup() (args.h);
 *  - the node: x->conn (the host's connection, or the delegated host's
 *    under delegate_to); mod_sh() runs a shell command line there as
 *    the task's become user with its environment; mod_read(), mod_write(), mod_stat(),
 *    mod_attrs() read, write and stat a node file through that one call,
 *    so a module behaves the same over the local and the SSH connection;
 *    sh_quote() quotes a word for the command line (util/strbuf.h);
 *  - the result: res_new(changed), res_fail(fmt, ...) (failed, msg), then
 *    any return values with json_object_set_new(); res_set_output() puts
 *    a command's rc/stdout/stderr in it; a node that cannot be reached
 *    makes these helpers return -1 with *res already set: return it;
 *  - diff: mod_diff_wanted(x) says whether the task asked for the before
 *    and after content (the diff keyword); check mode (x->check_mode)
 *    reaches only modules marked same_in_check_mode or
 *    check_mode_native: the others run under Ansible in check mode, so
 *    their run never sees it;
 *  - the controller: x->vars (the task's variables), xt_value() and
 *    xt_render_text() to template (vars.h), mod_find_src() for role
 *    files/ and templates/, exec_set_fact() for facts (run.h) on
 *    x->facts_host when set (delegate_facts), else x->host; the
 *    inventory (inventory_*() in run.h) for add_host and group_by.
 * .check, when set, runs on the untemplated arguments when the play is
 * loaded, before any VM is touched; .params, when the parameters the run
 * implements are all it would check, does it without one. Functions returning json_t * return
 * a new reference. */
#ifndef IMC_PROVISION_MODULE_H
#define IMC_PROVISION_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "provision/args.h"
#include "provision/conn/conn.h"
#include "provision/run.h"
#include "provision/vars.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/strbuf.h"

struct task_module {
	const char *name;
	const char *const *aliases;  /* NULL-terminated, or NULL */
	bool free_form;              /* takes _raw_params */
	bool controller;             /* runs on the controller (set_fact, debug…) */
	/* runs once per play, on the first host, and only that host sees its
	 * result (Ansible's BYPASS_HOST_LOOP: add_host) */
	bool bypass_host_loop;
	/* in check mode it does exactly what it does outside it (it reads, or
	 * works on the controller's variables): imc runs it itself; any other
	 * module in check mode is run by Ansible (exec-fallback.c) */
	bool same_in_check_mode;
	/* implements check mode itself: its run sees x->check_mode, reports
	 * what it would change and changes nothing, as Ansible's module does */
	bool check_mode_native;
	/* The parameters run implements (NULL-terminated), when that list is
	 * all its static check is: any other is unsupported, so the task goes
	 * to Ansible or fails naming it (mod_check_params), never ignored. */
	const char *const *params;
	/* Its parameters of Ansible's type 'path' that the module reads on
	 * the node (aliases too; "NAME[]" a list of paths), NULL-terminated:
	 * a $VAR or leading ~ in them is expanded there before run, as
	 * AnsibleModule does (mod_expand_paths). */
	const char *const *node_paths;
	/* Its parameters whose leading ~ Ansible's action plugin expands
	 * first (ActionBase._remote_expand_user: copy, template, assemble,
	 * unarchive, fetch): "~" to the passwd home of the become user, else
	 * of the connection's user, never $HOME; "~NAME" to NAME's. */
	const char *const *action_home_paths;
	/* Static check of the (untemplated) args; runs before any VM is touched. */
	int (*check)(json_t *args, struct diag *d, const struct src_loc *loc);
	/* Runs with templated args; returns a result object (never NULL). */
	json_t *(*run)(struct exec_ctx *x, json_t *args);
};

/* module-table.c: the registry the executor looks modules up in (by name
 * or alias; NULL when unknown). */
const struct task_module *task_module_find(const char *name);
extern const struct task_module *const task_modules[];

/* Result helpers (modules/module-util.c) */
json_t *res_new(bool changed);
json_t *res_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* imc's refusal of what Ansible would run (a construct or an argument
 * imc lacks): a failure marked RES_REFUSED, which the executor takes
 * out of the result and turns into the end of the run (task_run.refused),
 * since no rescue or ignore_errors may stand in for Ansible's run. */
json_t *res_refused(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define RES_REFUSED "_imc_refused"
/* What Ansible reports of a module that died with a Python traceback
 * (an exception it does not catch): "MODULE FAILURE...", rc 1. */
json_t *res_module_failure(void);
void res_set_output(json_t *res, const struct conn_result *cr);
/* Ansible's "Invalid options for MODULE: a,b" failure of an action that
 * takes only the valid (NULL-terminated) arguments; NULL when args has
 * no other. */
json_t *res_bad_options(json_t *args, const char *module, const char *const *valid);
/* Expands the named 'path' parameters of args (see node_paths) in place,
 * with Python's expandvars and expanduser and the node's environment and
 * homes as the task's user sees them. Returns 0, or -1 (unreachable; *res
 * set to a result). */
int mod_expand_paths(struct exec_ctx *x, json_t *args, const char *const *names, json_t **res);
/* The same for action_home_paths' leading ~ (see there). */
int mod_expand_action_home(struct exec_ctx *x, json_t *args, const char *const *names, json_t **res);
/* Runs a shell command on the node as the task's become user with its
 * environment; cr holds the command's own output (not what the node's
 * login shell printed before running it). Returns 0 (ran) or -1
 * (unreachable; *res set to a result). */
int mod_sh(struct exec_ctx *x, const char *cmd, const void *in, size_t inlen,
	   struct conn_result *cr, json_t **res);
/* The same, keeping whatever the login shell printed too (raw, which
 * Ansible runs as a bare SSH command). */
int mod_sh_as_is(struct exec_ctx *x, const char *cmd, const void *in, size_t inlen,
	   struct conn_result *cr, json_t **res);
/* Runs a script whose output says "__imc_changed__" when it changed
 * something: the result is changed accordingly, or failed ("WHAT failed:
 * stderr") on a non-zero status. */
json_t *mod_sh_changed(struct exec_ctx *x, const char *cmd, const char *what);
/* A shell function, imc_dn PATH, that sets imc_d to dirname(1)'s answer
 * for PATH (trailing slashes, a name without '/', all slashes) with the
 * shell's own expansions: a module script that needs a directory's name
 * spends no process on it, where `$(dirname -- P)` forks two. Unlike the
 * command substitution, a directory name ending in newlines keeps them.
 * Put before the script's first call; it holds '%' signs, so it goes in
 * with strbuf_addstr or as a "%s" argument, never as a format. */
#define MOD_SH_DIRNAME \
	"imc_dn() { imc_d=$1; case $imc_d in *[!/]*) imc_d=${imc_d%\"${imc_d##*[!/]}\"}; " \
	"case $imc_d in */*) imc_d=${imc_d%/*}; case $imc_d in *[!/]*) " \
	"imc_d=${imc_d%\"${imc_d##*[!/]}\"};; *) imc_d=/;; esac;; *) imc_d=.;; esac;; " \
	"/*) imc_d=/;; *) imc_d=.;; esac; }; "
/* Appends " FLAG 'v'" to a command line when v is not NULL. */
void mod_sh_flag(struct strbuf *c, const char *flag, const char *v);
/* Reads a node file; *exists false when missing. -1 unreachable. */
struct node_stat {
	bool exists, isdir, isreg, islnk;
	bool isblk, ischr, isfifo, issock;
	long mode, size;
	long uid, gid;
	char owner[64], group[64];
	char target[512];
	char sha1[41];
	double mtime, atime, ctime;
	/* missing because a leading component is not a directory (ENOTDIR) */
	bool notdir;
};
int mod_stat(struct exec_ctx *x, const char *path, bool follow, bool checksum,
	     struct node_stat *st, json_t **res);
/* mod_stat that also runs then (shell, with the path in "$p") when the
 * path exists as the stat saw it, in the same round trip: tcr holds
 * what then printed on stdout, the stderr and the status (then's, or 0
 * when it did not run). -1 with *res as mod_stat's. */
int mod_stat_and(struct exec_ctx *x, const char *path, bool follow, bool checksum,
		 const char *then, struct node_stat *st, struct conn_result *tcr, json_t **res);
/* The stat memo (module-util.c): a command built by a module that ends
 * with mod_stat_memo_script(c) (with the path in "$p") also prints the
 * path's stat, which mod_stat_memo_take() then cuts from its stdout (on
 * success) and keeps, so that mod_stat and mod_path_info of that path
 * need no round trip of their own until the next command is sent. */
void mod_stat_memo_script(struct strbuf *c);
void mod_stat_memo_take(struct exec_ctx *x, const char *path, struct strbuf *out);
/* cat of path into data (*exists false when it is missing); a directory
 * fails with Ansible's "Path P is a directory !" (rc 256) */
int mod_read(struct exec_ctx *x, const char *path, struct strbuf *data, bool *exists, json_t **res);
/* What the node's file at path held when a module last read or wrote it
 * whole over this connection, and its SHA-1 (sum): a guess, true only if
 * nothing changed it since, for mod_write_if to check. false when none. */
bool mod_read_recall(struct exec_ctx *x, const char *path, struct strbuf *data, char sum[41]);
/* Writes data atomically (temp file in the same directory + rename), applying
 * mode when >= 0 (else keep the old mode or 0644 & ~umask). */
int mod_write(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
	      json_t **res);
/* mod_write run only when the node's path is a regular file this user
 * reads whose SHA-1 is sum (hex): 1 when it is not (nothing written),
 * else what mod_write returns. With mod_read_recall, a module editing a
 * file it read or wrote before sends its edit in one round trip. */
int mod_write_if(struct exec_ctx *x, const char *path, const char *sum, const void *data,
		 size_t len, long mode, json_t **res);
/* Runs pre (shell, with the path in "$p") then stats path, in one round trip. */
int mod_sh_stat(struct exec_ctx *x, const char *path, const char *pre, struct node_stat *st,
		json_t **res);
/* mod_write that also applies owner/group and returns the new stat (one round trip). */
int mod_write_stat(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
		   const char *owner, const char *group, struct node_stat *st, json_t **res);
/* mod_write_stat of a path that was missing, checking first, in the same
 * round trip, that its directory exists (a module that makes no missing
 * parent): 1 with that directory in *parent (malloc'd) when it does not,
 * nothing written. */
int mod_write_stat_new(struct exec_ctx *x, const char *path, const void *data, size_t len,
		       long mode, const char *owner, const char *group, struct node_stat *st,
		       char **parent, json_t **res);
/* mod_stat (following links, with the checksum) of path that also makes,
 * in the same round trip, the write mod_write_stat (mod_write_stat_new,
 * of a missing path) would make of data with these mode, owner and
 * group, when the node finds a file whose checksum differs from data's
 * (none for what is not a readable regular file) or a missing path in
 * an existing directory; never on a directory. For a module whose next
 * step decided from that stat is exactly that write, nothing sent
 * before it: that call then answers from this round trip (the write
 * memo, module-util.c). -1 with *res as mod_stat's. */
int mod_stat_write(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
		   const char *owner, const char *group, struct node_stat *st, json_t **res);
/* Applies mode/owner/group from args to path whose stat is st (updated;
 * in check mode, only says they would change, as mod_attrs_diff). As
 * Ansible, owner and group first: a mode that is neither octal nor
 * symbolic fails after them (mod_mode_error). */
int mod_attrs_st(struct exec_ctx *x, const char *path, json_t *args, struct node_stat *st,
		 bool *changed, json_t **res);
/* mod_attrs_st recording each change in diff, as mod_attrs_diff does. */
int mod_attrs_st_diff(struct exec_ctx *x, const char *path, json_t *args, struct node_stat *st,
		      bool *changed, json_t *diff, json_t **res);
/* One attribute's before and after (new references, taken) in Ansible's
 * attribute diff, when diff is not NULL (mod_attrs_diff's, for a module
 * that changed an attribute in a command of its own). */
void mod_diff_attr(json_t *diff, const char *key, json_t *before, json_t *after);
/* Applies mode/owner/group from args to path; sets *changed. */
int mod_attrs(struct exec_ctx *x, const char *path, json_t *args, bool *changed, json_t **res);
/* The same, recording in diff (an object, or NULL) the before and after
 * of each attribute that changes, as Ansible's attribute diff holds them;
 * in check mode these say what would change, and nothing changes. */
int mod_attrs_diff(struct exec_ctx *x, const char *path, json_t *args, bool *changed, json_t *diff,
		   json_t **res);
/* Ansible's failure for a mode neither octal nor symbolic: "mode must be in
 * octal or symbolic form", the details, path and path's attributes. */
json_t *mod_mode_error(struct exec_ctx *x, const char *path, json_t *mode);
/* Python's str.splitlines(): the lines of s, a list of strings. */
json_t *mod_splitlines(const char *s);
/* backup=yes: copies path (when it exists) to path.PID.DATE@TIME~ beside
 * it, as Ansible's backup_local names backups. Returns 0 with *dest the
 * backup's name ("" when path is missing; malloc'd), or -1 with *res set
 * (Ansible's "Could not make backup" failure, or unreachable). */
int mod_backup(struct exec_ctx *x, const char *path, char **dest, json_t **res);
/* validate=: writes data to a temporary file on the node, runs the command
 * with its %s replaced by that file's name, and removes the file. Returns 0
 * when the command ran (its status and output in cr), -1 with *res set
 * (no %s, as Ansible's "validate must contain %s", or unreachable). */
int mod_validate(struct exec_ctx *x, const char *validate, const void *data, size_t len,
		 struct conn_result *cr, json_t **res);
/* The validate= argument of lineinfile, blockinfile and replace: 0 when
 * absent or the command accepts data, else -1 with *res Ansible's
 * "failed to validate: rc:N error:..." (or unreachable). */
int mod_validated(struct exec_ctx *x, json_t *args, const void *data, size_t len, json_t **res);
/* lineinfile's and blockinfile's diff list: the content (before and after
 * only in diff mode) and the file attributes' headers (new reference). */
json_t *mod_content_diff(struct exec_ctx *x, const char *path, const struct strbuf *before,
			 const struct strbuf *after);
/* mkdir -p of path's directory on the node, for modules that create the
 * file they edit. Returns 0, or -1 unreachable (*res set when res). */
int mod_mkdir_parent(struct exec_ctx *x, const char *path, json_t **res);
/* Python's name of a JSON value's type, as Ansible's messages print it
 * ("dict", "list", "str", "int", "float", "bool", "NoneType"). */
const char *mod_pytype(const json_t *v);
/* A controller file a module sends (copy's or template's src...), read as
 * Ansible's action plugins get it (get_real_file): decrypted with the
 * vault secrets when vault-encrypted. 0; -1 when it cannot be read (errno
 * set, *res NULL), or with *res the failed result of a decryption error
 * in Ansible's words. */
int mod_read_src(const char *path, struct strbuf *data, json_t **res);
/* Controller-side file lookup: role files/ or templates/, play dir. Malloc'd or NULL. */
char *mod_find_src(struct exec_ctx *x, const char *sub, const char *src);
void mod_file_result(json_t *res, const struct node_stat *st, const char *path);
/* A case of a check_mode_native module whose check mode imc does not
 * compute (what, e.g. "recurse"): Ansible runs the task in check mode
 * (exec-fallback.c), or the result is a failure saying why. */
json_t *mod_check_unsupported(struct exec_ctx *x, const char *module, json_t *args, const char *what);
/* The diff keyword of the task (or its blocks, or play): modules then
 * return the before and after content in their diff, as with --diff. */
bool mod_diff_wanted(struct exec_ctx *x);
/* Adds Ansible's path information (owner, group, mode, state, size...) of
 * the result's path or dest, when it exists. -1 when the node is
 * unreachable (res left as it was). */
int mod_path_info(struct exec_ctx *x, json_t *res);
/* For a module's .check: every key of args must be in known (NULL-terminated;
 * keys starting with '_' are the loader's); each other one is an
 * "unsupported parameter" error, so that a parameter imc does not implement
 * is never silently ignored and the task can fall back to Ansible. */
int mod_check_params(const char *module, json_t *args, const char *const *known, struct diag *d,
		     const struct src_loc *loc);
/* AnsibleModule's mutually_exclusive: pairs is a NULL-terminated list of
 * parameter names two by two; the failure "parameters are mutually
 * exclusive: a|b, c|d" for every pair both given (new reference), else
 * NULL. */
json_t *mod_exclusive(json_t *args, const char *const *pairs);
/* An argument of Ansible's list type as a new array of strings: a list as
 * is (elements rendered as Python would), a string split on commas, absent
 * or null an empty list. */
json_t *mod_list(json_t *v);
/* Python's re.match (anchored) or re.search of pat in s[0..len): 1 a
 * match, 0 none, -1 when pat does not compile (*err, when err is not
 * NULL, then PCRE2's reason and position, malloc'd). */
int mod_re(const char *pat, const char *s, size_t len, bool anchored, char **err);
/* Arguments of Ansible's path type have ~ and $VAR expanded on the node
 * (expanduser, expandvars), which imc does not do: the failure to return
 * when one of keys holds either (new reference), else NULL. */
json_t *mod_unexpanded(const char *module, json_t *args, const char *const *keys);
/* Python's str.strip() of s[0..n): a new string without the blanks
 * around it. */
char *mod_strip(const char *s, size_t n);
/* AnsibleModule.get_bin_path: the node's path of the command name, looked
 * for in PATH and then /sbin, /usr/sbin and /usr/local/sbin (those that
 * exist and PATH lacks). 0 with *path malloc'd, or NULL when not found
 * and not required; -1 with *res set when required and not found (as
 * Ansible words it, naming the paths searched) or unreachable. */
int mod_bin_path(struct exec_ctx *x, const char *name, bool required, char **path, json_t **res);
/* An argument of Ansible's bool type: *out its value (dflt when absent
 * or null); NULL, or the failure Ansible gives a value that is not one of
 * its booleans (new reference). */
json_t *mod_bool_arg(json_t *args, const char *key, bool dflt, bool *out);
/* Runs a command string, Ansible command-module style result */
json_t *mod_run_command(struct exec_ctx *x, const char *cmd, json_t *cmd_repr, const char *in,
			const char *chdir);
/* The result mod_run_command gives for what a command sent at t0 returned
 * (for a module that sends the command itself, with checks before it). */
json_t *mod_command_result(const struct conn_result *cr, json_t *cmd_repr, time_t t0);

#endif
