/* command.c: the `command` module, and the run that `shell` shares
 * (Ansible's shell is the command module with a shell): creates/removes
 * (globs, checked after chdir), chdir, stdin, argv; command runs its argv
 * without a shell (the words are single-quoted so that pipes stay
 * literal), shell runs the text under /bin/sh or `executable`. Results as
 * Ansible's: rc, stdout/stderr with trailing newlines stripped, *_lines,
 * msg "non-zero return code". */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- the checks before the command --------------------------------------
 * chdir, creates and removes are checked by the same script that then
 * runs the command, so that a command with them is one round trip, as one
 * without. The checks run first, in Ansible's order; one that decides
 * prints PRE_MARK and its word on stdout and ends the script before the
 * command; otherwise RUN_MARK is printed just before the command starts,
 * so that whatever precedes it on stdout is the checks' and whatever
 * follows it the command's. The checks set no variable the command could
 * see (a shell command runs in the same shell): the paths are quoted in
 * place and a glob is matched in a subshell. */
#define PRE_MARK "\036imc-pre\036"
#define RUN_MARK "\036imc-run\036"

/* Appends the test that some path matching p (a glob, as Python's glob)
 * exists or is a link, as a command whose status says so. */
static void exists_test(struct strbuf *c, const char *p)
{
	if (!has_glob(p)) {
		strbuf_addstr(c, "{ [ -e ");
		sh_quote(c, p);
		strbuf_addstr(c, " ] || [ -L ");
		sh_quote(c, p);
		strbuf_addstr(c, " ]; }");
		return;
	}
	/* the pattern is word-split by the shell only at its spaces: quote
	 * those; a subshell, whose loop variable goes with it */
	strbuf_addstr(c, "( for f in ");
	for (const char *q = p; *q; q++) {
		if (strchr(" \t'\"$`\\;&|<>()", *q))
			strbuf_addch(c, '\\');
		strbuf_addch(c, *q);
	}
	strbuf_addstr(c, "; do { [ -e \"$f\" ] || [ -L \"$f\" ]; } && exit 0; done; exit 1 )");
}

/* Appends the checks (see above) to c, when there are any. */
static void pre_checks(struct strbuf *c, const char *chdir, const char *creates, const char *removes)
{
	if (chdir) {
		/* os.chdir's errno: ENOENT, ENOTDIR, else EACCES; -P: the module's
		 * os.chdir leaves the process in the physical directory, and the
		 * shell it starts sets $PWD so, through a link too (target
		 * command_shell, "command symlink handling") */
		strbuf_addstr(c, "cd -P -- ");
		sh_quote(c, chdir);
		strbuf_addstr(c, " 2>/dev/null || { [ -e ");
		sh_quote(c, chdir);
		strbuf_addstr(c, " ] || { printf '" PRE_MARK "chdir 2'; exit 0; }; [ -d ");
		sh_quote(c, chdir);
		strbuf_addstr(c, " ] || { printf '" PRE_MARK "chdir 20'; exit 0; }; "
				 "printf '" PRE_MARK "chdir 13'; exit 0; }; ");
	}
	if (creates) {
		exists_test(c, creates);
		strbuf_addstr(c, " && { printf '" PRE_MARK "creates'; exit 0; }; ");
	}
	if (removes) {
		exists_test(c, removes);
		strbuf_addstr(c, " || { printf '" PRE_MARK "removes'; exit 0; }; ");
	}
	if (chdir || creates || removes)
		strbuf_addstr(c, "printf '" RUN_MARK "'; ");
}

/* creates/removes decided: "Did" (or in check mode "Would") not run,
 * with the never-set times null as Ansible leaves them */
static json_t *not_run(json_t *cmd, const char *p, bool exists, bool check)
{
	json_t *r = json_object();
	char *out = xasprintf("skipped, since %s %s", p, exists ? "exists" : "does not exist");
	char *msg = xasprintf("%s not run command since '%s' %s", check ? "Would" : "Did", p,
			      exists ? "exists" : "does not exist");
	json_object_set_new(r, "changed", json_false());
	json_object_set_new(r, "start", json_null());
	json_object_set_new(r, "end", json_null());
	json_object_set_new(r, "delta", json_null());
	json_object_set(r, "cmd", cmd);
	json_object_set_new(r, "rc", json_integer(0));
	json_object_set_new(r, "stdout", json_string(out));
	json_object_set_new(r, "stdout_lines", json_pack("[s]", out));
	json_object_set_new(r, "stderr", json_string(""));
	json_object_set_new(r, "stderr_lines", json_array());
	json_object_set_new(r, "msg", json_string(msg));
	free(out);
	free(msg);
	return r;
}

/* what Ansible's command module returns when it fails before running
 * anything: its initial result with msg (and the controller's *_lines) */
static void early_failure(json_t *res, json_t *cmd, json_t *rc)
{
	json_object_set_new(res, "changed", json_false());
	json_object_set(res, "cmd", cmd ? cmd : json_null());
	json_object_set_new(res, "rc", rc);
	json_object_set_new(res, "stdout", json_string(""));
	json_object_set_new(res, "stderr", json_string(""));
	json_object_set_new(res, "stdout_lines", json_array());
	json_object_set_new(res, "stderr_lines", json_array());
}

/* What the checks decided (the output of a script that began with
 * pre_checks): NULL when the command ran, its mark then cut from stdout;
 * else the task's result, Ansible's for a directory it cannot enter or
 * for creates/removes deciding. */
static json_t *pre_decided(struct conn_result *cr, const char *chdir, const char *creates,
			   const char *removes, json_t *cmd, bool check)
{
	static const char pre[] = PRE_MARK, run[] = RUN_MARK;
	const char *o = strbuf_str(&cr->out);
	if (!strncmp(o, run, sizeof(run) - 1)) {
		memmove(cr->out.buf, cr->out.buf + sizeof(run) - 1, cr->out.len - (sizeof(run) - 1) + 1);
		cr->out.len -= sizeof(run) - 1;
		return NULL;
	}
	if (strncmp(o, pre, sizeof(pre) - 1))
		return NULL; /* the checks did not run (a become that failed): as the command's */
	const char *w = o + sizeof(pre) - 1;
	if (!strncmp(w, "chdir ", 6)) {
		int e = (int)strtol(w + 6, NULL, 10);
		const char *why = e == 2 ? "No such file or directory" :
				  e == 20 ? "Not a directory" : "Permission denied";
		json_t *res = res_fail("Unable to change directory before execution: [Errno %d] %s: b'%s'",
				       e, why, chdir);
		early_failure(res, cmd, json_null());
		return res;
	}
	if (!strcmp(w, "creates"))
		return not_run(cmd, creates, true, check);
	return not_run(cmd, removes, false, check);
}

/* strip_empty_ends=false: the command's output as it came, trailing
 * newlines kept. mod_run_command strips them, so the command ends with a
 * mark on each stream that survives the strip and comes off here. */
static void unstrip(json_t *res)
{
	static const char *const keys[][2] = { { "stdout", "stdout_lines" }, { "stderr", "stderr_lines" } };
	for (size_t i = 0; i < 2; i++) {
		const char *v = json_string_value(json_object_get(res, keys[i][0]));
		if (!v)
			continue;
		size_t n = strlen(v);
		if (n && v[n - 1] == '\001')
			n--;
		json_t *s = json_stringn(v, n);
		/* Python's splitlines: no empty last line for a final newline */
		json_t *lines = json_array();
		const char *p = json_string_value(s), *end = p + n;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			json_array_append_new(lines, json_stringn(p, len));
			p += len + (nl ? 1 : 0);
		}
		json_object_set_new(res, keys[i][0], s);
		json_object_set_new(res, keys[i][1], lines);
	}
}

/* Ansible's command module runs its argv after Python's
 * os.path.expanduser(os.path.expandvars(word)) of each word, on the node:
 * $NAME and ${NAME} (NAME of ASCII letters, digits and _ for the first;
 * anything but } for the second) replaced by the node's environment and
 * left as written when unset; then a leading ~ or ~user (up to the first /)
 * replaced by $HOME or the user's home, trailing slashes of the home
 * dropped, left as written for an unknown user. awk reads the word from
 * its environment (no escapes processed) and knows the node's ENVIRON. */
static const char expand_awk[] =
	"BEGIN { w = ENVIRON[\"__IMC_W\"]; delete ENVIRON[\"__IMC_W\"]; o = \"\"; n = length(w); i = 1; "
	"while (i <= n) { c = substr(w, i, 1); if (c != \"$\") { o = o c; i++; continue } "
	"r = substr(w, i + 1); l = 0; "
	"if (match(r, /^[A-Za-z0-9_]+/)) { k = substr(r, 1, RLENGTH); l = RLENGTH } "
	"else if (match(r, /^[{][^}]*[}]/)) { k = substr(r, 2, RLENGTH - 2); l = RLENGTH } "
	"if (!l) { o = o c; i++; continue } "
	"if (k in ENVIRON) o = o ENVIRON[k]; else o = o substr(w, i, l + 1); i += l + 1 } "
	"w = o; if (substr(w, 1, 1) == \"~\") { j = index(substr(w, 2), \"/\"); "
	"j = j ? j : length(w); u = substr(w, 2, j - 1); h = \"\"; f = 0; "
	"if (u == \"\" && (\"HOME\" in ENVIRON)) { h = ENVIRON[\"HOME\"]; f = 1 } "
	"else { q = u; gsub(/'/, \"'\\\\''\", q); "
	"cmd = u == \"\" ? \"getent passwd \\\"$(id -u)\\\"\" : \"getent passwd -- '\" q \"'\"; "
	"if ((cmd | getline e) > 0) { split(e, a, \":\"); h = a[6]; f = 1 } close(cmd) } "
	"if (f) { sub(/\\/+$/, \"\", h); w = h substr(w, j + 1); if (w == \"\") w = \"/\" } } "
	"printf \"%s\", w }";

/* one word of the command's argv onto c: quoted as it is, or (with a $
 * or a leading ~) the variable the expansion set before, in *pre */
static void add_word(struct strbuf *c, struct strbuf *pre, const char *w, size_t i)
{
	strbuf_addch(c, ' ');
	if (!strchr(w, '$') && w[0] != '~') {
		sh_quote(c, w);
		return;
	}
	if (!pre->len) {
		strbuf_addstr(pre, "__imc_awk=");
		sh_quote(pre, expand_awk);
		strbuf_addstr(pre, "; ");
	}
	strbuf_addf(pre, "__imc_w%zu=$(__IMC_W=", i);
	sh_quote(pre, w);
	strbuf_addf(pre, " awk \"$__imc_awk\" </dev/null; printf x); __imc_w%zu=${__imc_w%zu%%x}; ", i, i);
	strbuf_addf(c, "\"$__imc_w%zu\"", i);
}

/* Ansible's command module failing on its arguments: the keys it promises
 * in every result, rc 256 */
static json_t *arg_error(const char *msg)
{
	json_t *res = res_fail("%s", msg);
	json_object_set_new(res, "rc", json_integer(256));
	json_object_set_new(res, "stdout", json_string(""));
	json_object_set_new(res, "stderr", json_string(""));
	json_object_set_new(res, "stdout_lines", json_array());
	json_object_set_new(res, "stderr_lines", json_array());
	static const char *const nulls[] = { "cmd", "start", "end", "delta" };
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		json_object_set_new(res, nulls[i], json_null());
	return res;
}

static json_t *run_command(struct exec_ctx *x, json_t *args, bool shell)
{
	const char *raw = args_str(args, "_raw_params");
	if (!raw)
		raw = args_str(args, "cmd");
	json_t *argv = json_object_get(args, "argv");
	const char *chdir = args_str(args, "chdir");
	json_t *cmd_repr;
	json_t *words = NULL;
	/* Ansible checks these before anything runs, raw being blank once
	 * stripped */
	bool blank = !raw || !raw[strspn(raw, " \t\n\r\f\v")];
	bool has_argv = json_is_array(argv) && json_array_size(argv);
	if (blank && (shell || !has_argv))
		return arg_error("no command given");
	if (!blank && has_argv)
		return arg_error("only command or argv can be given, not both");
	if (shell) {
		cmd_repr = json_string(raw);
	} else {
		if (has_argv)
			words = json_deep_copy(argv);
		else
			words = args_shlex(raw);
		if (!words)
			return res_fail("cannot parse the command line '%s'", raw);
		if (!json_array_size(words)) {
			json_decref(words);
			return arg_error("no command given");
		}
		cmd_repr = json_incref(words);
	}
	json_t *res = NULL;
	struct strbuf c = STRBUF_INIT;
	char *creates = args_strdup(args, "creates");
	char *removes = args_strdup(args, "removes");
	if (raw && json_is_array(argv) && json_array_size(argv)) {
		res = res_fail("only command or argv can be given, not both");
		early_failure(res, NULL, json_integer(256));
		goto out;
	}
	/* Ansible changes directory before it looks at creates/removes, and
	 * a directory it cannot enter fails the task before anything runs:
	 * the checks (pre_checks) open the script that runs the command */
	pre_checks(&c, chdir, creates, removes);
	if (x->check_mode) {
		if (c.len) {
			struct conn_result cr;
			conn_result_init(&cr);
			if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0)
				res = pre_decided(&cr, chdir, creates, removes, cmd_repr, true);
			conn_result_release(&cr);
			if (res)
				goto out;
		}
		/* check mode runs nothing: with creates/removes (which
		 * did not decide) the command would change something, else
		 * the task is skipped, both with Ansible's message */
		res = json_object();
		early_failure(res, cmd_repr, json_integer(0));
		json_object_set_new(res, "start", json_null());
		json_object_set_new(res, "end", json_null());
		json_object_set_new(res, "delta", json_null());
		json_object_set_new(res, "msg", json_string("Command would have run if not in check mode"));
		if (creates || removes)
			json_object_set_new(res, "changed", json_true());
		else {
			/* a module's skip is a result: failed false is set */
			json_object_set_new(res, "skipped", json_true());
			json_object_set_new(res, "failed", json_false());
		}
		goto out;
	}
	char *in = NULL;
	const char *stdin_s = args_str(args, "stdin");
	if (stdin_s)
		in = args_bool(json_object_get(args, "stdin_add_newline"), true)
			     ? xasprintf("%s\n", stdin_s) : xstrdup(stdin_s);
	bool checked = c.len > 0;
	if (shell) {
		const char *exe = args_str(args, "executable");
		if (exe) {
			if (args_bool(json_object_get(args, "strip_empty_ends"), true))
				strbuf_addstr(&c, "exec ");
			sh_quote(&c, exe);
			strbuf_addstr(&c, " -c ");
			sh_quote(&c, raw);
		} else if (!args_bool(json_object_get(args, "strip_empty_ends"), true))
			strbuf_addf(&c, "(\n%s\n)", raw); /* its own exit must not skip the mark */
		else
			strbuf_addstr(&c, raw);
	} else {
		/* the words (expanded first), the first looked up */
		struct strbuf pre = STRBUF_INIT, a0 = STRBUF_INIT, rest = STRBUF_INIT;
		size_t i;
		json_t *w;
		json_array_foreach(words, i, w) {
			struct strbuf t = STRBUF_INIT;
			if (!json_is_string(w))
				args_pystr(&t, w);
			add_word(i ? &rest : &a0, &pre, json_is_string(w) ? json_string_value(w) : strbuf_str(&t), i);
			strbuf_release(&t);
		}
		strbuf_addstr(&c, strbuf_str(&pre));
		strbuf_addstr(&c, "command -v --");
		strbuf_addstr(&c, strbuf_str(&a0));
		strbuf_addstr(&c, " >/dev/null 2>&1 || { echo __imc_enoent__ >&2; exit 127; };");
		if (args_bool(json_object_get(args, "strip_empty_ends"), true))
			strbuf_addstr(&c, " exec");
		strbuf_addstr(&c, strbuf_str(&a0));
		strbuf_addstr(&c, strbuf_str(&rest));
		strbuf_release(&pre);
		strbuf_release(&a0);
		strbuf_release(&rest);
	}
	bool strip = args_bool(json_object_get(args, "strip_empty_ends"), true);
	if (!strip)
		strbuf_addstr(&c, "\n__imc_rc=$?; printf '\\001'; printf '\\001' >&2; exit $__imc_rc");
	if (checked) {
		/* the directory is entered by the checks */
		struct conn_result cr;
		conn_result_init(&cr);
		time_t t0 = time(NULL);
		if (mod_sh(x, c.buf, in, in ? strlen(in) : 0, &cr, &res) == 0 &&
		    !(res = pre_decided(&cr, chdir, creates, removes, cmd_repr, false))) {
			res = mod_command_result(&cr, cmd_repr, t0);
			if (!strip)
				unstrip(res);
		}
		conn_result_release(&cr);
	} else {
		res = mod_run_command(x, c.buf, cmd_repr, in, NULL);
		if (!strip)
			unstrip(res);
	}
	free(in);
	if (!shell && json_integer_value(json_object_get(res, "rc")) == 127 &&
	    !strcmp(json_string_value(json_object_get(res, "stderr")) ?
		    json_string_value(json_object_get(res, "stderr")) : "", "__imc_enoent__")) {
		const char *a0 = json_string_value(json_array_get(words, 0));
		json_decref(res);
		res = res_fail("[Errno 2] No such file or directory: b'%s'", a0);
		json_object_set_new(res, "rc", json_integer(2));
		json_object_set_new(res, "cmd", json_string(raw ? raw : a0));
		json_object_set_new(res, "stdout", json_string(""));
		json_object_set_new(res, "stderr", json_string(""));
		json_object_set_new(res, "stdout_lines", json_array());
		json_object_set_new(res, "stderr_lines", json_array());
	}
out:
	strbuf_release(&c);
	free(creates);
	free(removes);
	json_decref(words);
	json_decref(cmd_repr);
	return res;
}

json_t *command_module_run(struct exec_ctx *x, json_t *args, bool shell)
{
	json_t *res = run_command(x, args, shell);
	/* command ignores executable, and says so as Ansible's command module
	 * does, whatever the outcome (its warning comes before anything) */
	if (!shell && args_str(args, "executable")) {
		json_t *w = json_object_get(res, "warnings");
		if (!json_is_array(w)) {
			w = json_array();
			json_object_set_new(res, "warnings", w);
		}
		json_array_append_new(w, json_sprintf("As of Ansible 2.4, the parameter 'executable' is no "
						      "longer supported with the 'command' module. Not "
						      "using '%s'.", args_str(args, "executable")));
	}
	return res;
}

static json_t *command_run(struct exec_ctx *x, json_t *args)
{
	return command_module_run(x, args, false);
}

int command_module_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	if (!json_object_get(args, "_raw_params") && !json_object_get(args, "cmd") &&
	    !json_object_get(args, "argv")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "no command given");
		return -1;
	}
	return 0;
}

static const char *const command_node_paths[] = { "chdir", "creates", "removes", NULL };

const struct task_module mod_command = {
	.name = "command", .free_form = true, .check = command_module_check, .run = command_run,
	.check_mode_native = true,
	.node_paths = command_node_paths,
};
