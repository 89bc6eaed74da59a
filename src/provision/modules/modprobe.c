/* modprobe.c: the `modprobe` module (community.general.modprobe), as the
 * collection Debian 12's ansible ships behaves: a kernel module counts as
 * loaded when /proc/modules lists it (dashes read as underscores) or
 * /lib/modules/RELEASE/modules.builtin holds it; state=present runs
 * `modprobe NAME PARAMS...` when it is not loaded, absent `modprobe -r
 * NAME` when it is. In check mode both run with -n (modprobe's dry run)
 * and report changed, as the module does. A load that modprobe accepts but
 * that leaves the module unloaded (a blacklist, an install rule) is not
 * changed and warns with `modprobe -n --first-time`'s error. Returns
 * changed, name, params and state; a failed modprobe its rc, stdout and
 * stderr, with stderr as msg.
 * persistent=present|absent (files in /etc/modules-load.d and
 * /etc/modprobe.d) is not implemented: refused when the play is loaded, so
 * the task goes to Ansible. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The module's module_loaded(): 0 (*loaded set), or -1 with *res the
 * failure (the file it could not open, as Python words it), or unreachable. */
static int module_loaded(struct exec_ctx *x, const char *name, bool *loaded, json_t **res)
{
	static const char script[] =
		"m=/proc/modules; [ -r $m ] || { printf \"[Errno 2] No such file or directory: '%s'\" $m; exit 2; }; "
		"N=\"$N \" awk 'index($0, ENVIRON[\"N\"]) == 1 { f = 1; exit } END { exit !f }' $m && { echo loaded; exit 0; }; "
		"b=/lib/modules/$(uname -r)/modules.builtin; "
		"[ -r \"$b\" ] || { printf \"[Errno 2] No such file or directory: '%s'\" \"$b\"; exit 2; }; "
		"K=\"/$K.ko\" awk '{ sub(/[ \\t\\r\\n\\f\\v]+$/, \"\"); s = ENVIRON[\"K\"]; "
		"if (length($0) >= length(s) && substr($0, length($0) - length(s) + 1) == s) { f = 1; exit } } "
		"END { exit !f }' \"$b\" && { echo loaded; exit 0; }; echo no";
	struct strbuf c = STRBUF_INIT;
	char *under = xstrdup(name);
	for (char *p = under; *p; p++)
		if (*p == '-')
			*p = '_';
	strbuf_addstr(&c, "N=");
	sh_quote(&c, under);
	strbuf_addstr(&c, " K=");
	sh_quote(&c, name);
	strbuf_addf(&c, "; %s", script);
	free(under);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("%s", strbuf_str(&cr.out));
		rc = -1;
	}
	*loaded = rc == 0 && !strncmp(strbuf_str(&cr.out), "loaded", 6);
	conn_result_release(&cr);
	return rc;
}

static void add_result(json_t *res, bool changed, const char *name, const char *params,
		       const char *state)
{
	if (!json_is_true(json_object_get(res, "changed")))
		json_object_set_new(res, "changed", json_boolean(changed));
	json_object_set_new(res, "name", json_string(name));
	json_object_set_new(res, "params", json_string(params));
	json_object_set_new(res, "state", json_string(state));
}

/* Runs modprobe's argv (quoted words); 0 with its result in cr, -1 unreachable. */
static int run_argv(struct exec_ctx *x, json_t *argv, struct conn_result *cr, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	size_t i;
	json_t *w;
	json_array_foreach(argv, i, w) {
		if (i)
			strbuf_addch(&c, ' ');
		sh_quote(&c, json_string_value(w));
	}
	int rc = mod_sh(x, c.buf, NULL, 0, cr, res);
	strbuf_release(&c);
	return rc;
}

/* modprobe's failure: its stderr as msg, with rc, stdout and stderr. */
static json_t *modprobe_failed(const struct conn_result *cr)
{
	json_t *res = res_fail("%s", strbuf_str(&cr->err));
	json_object_set_new(res, "rc", json_integer(cr->rc));
	json_object_set_new(res, "stdout", json_string(strbuf_str(&cr->out)));
	json_object_set_new(res, "stderr", json_string(strbuf_str(&cr->err)));
	return res;
}

static json_t *modprobe_run(struct exec_ctx *x, json_t *args)
{
	char *name = args_strdup(args, "name"), *params = args_strdup(args, "params");
	const char *state = args_str(args, "state"), *persistent = args_str(args, "persistent");
	char *bin = NULL;
	json_t *res = NULL, *argv = NULL, *words = NULL;
	bool changed = false, loaded;
	struct conn_result cr;
	conn_result_init(&cr);
	if (!state)
		state = "present";
	if (!params)
		params = xstrdup("");
	if (!name) {
		res = res_fail("missing required arguments: name");
		goto out;
	}
	if (strcmp(state, "present") && strcmp(state, "absent")) {
		res = res_fail("value of state must be one of: absent, present, got: %s", state);
		goto out;
	}
	if (persistent && strcmp(persistent, "disabled")) {
		if (strcmp(persistent, "present") && strcmp(persistent, "absent"))
			res = res_fail("value of persistent must be one of: disabled, present, absent, got: %s",
				       persistent);
		else
			res = res_fail("modprobe: unsupported parameter 'persistent' (%s)", persistent);
		goto out;
	}
	if (!(words = args_shlex(params))) {
		res = res_fail("modprobe: cannot split params as shlex does: %s", params);
		goto out;
	}
	if (mod_bin_path(x, "modprobe", true, &bin, &res) < 0)
		goto out;
	if (module_loaded(x, name, &loaded, &res) < 0)
		goto fail;
	bool present = !strcmp(state, "present");
	if (present && !loaded) {
		argv = json_pack("[s]", bin);
		if (x->check_mode)
			json_array_append_new(argv, json_string("-n"));
		json_array_append_new(argv, json_string(name));
		json_array_extend(argv, words);
		if (run_argv(x, argv, &cr, &res) < 0)
			goto out;
		if (cr.rc != 0) {
			res = modprobe_failed(&cr);
			goto fail;
		}
		if (x->check_mode) {
			changed = true;
		} else {
			if (module_loaded(x, name, &loaded, &res) < 0)
				goto fail;
			if (loaded) {
				changed = true;
			} else {
				/* modprobe said yes and nothing loaded: the module's warning
				 * is the reason modprobe gives for a first-time load */
				json_decref(argv);
				argv = json_pack("[sss]", bin, "-n", "--first-time");
				json_array_append_new(argv, json_string(name));
				json_array_extend(argv, words);
				conn_result_release(&cr);
				conn_result_init(&cr);
				if (run_argv(x, argv, &cr, &res) < 0)
					goto out;
				res = res_new(false);
				if (cr.rc != 0)
					json_object_set_new(res, "warnings",
							    json_pack("[s]", strbuf_str(&cr.err)));
			}
		}
	} else if (!present && loaded) {
		argv = json_pack("[sss]", bin, "-r", name);
		if (x->check_mode)
			json_array_append_new(argv, json_string("-n"));
		if (run_argv(x, argv, &cr, &res) < 0)
			goto out;
		if (cr.rc != 0) {
			res = modprobe_failed(&cr);
			goto fail;
		}
		changed = true;
	}
	if (!res)
		res = res_new(changed);
fail:
	/* a failure carries the module's result fields too (changed as it
	 * was then), as Ansible's fail_json(**self.result) */
	if (!json_object_get(res, "unreachable"))
		add_result(res, changed, name, params, state);
out:
	free(name);
	free(params);
	free(bin);
	json_decref(argv);
	json_decref(words);
	conn_result_release(&cr);
	return res;
}

static int modprobe_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "name", "state", "params", "persistent", NULL };
	if (mod_check_params("modprobe", args, known, d, loc) < 0)
		return -1;
	const char *p = args_str(args, "persistent");
	if (p && (!strcmp(p, "present") || !strcmp(p, "absent"))) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "modprobe: unsupported parameter 'persistent' (%s): the files of "
			   "/etc/modules-load.d and /etc/modprobe.d are not implemented", p);
		return -1;
	}
	return 0;
}

const struct task_module mod_modprobe = {
	.name = "modprobe", .check = modprobe_check, .run = modprobe_run, .check_mode_native = true,
};
