/* pip.c: the `pip` module: names (with version specifiers), version,
 * requirements, virtualenv (created with virtualenv_command, default
 * `python3 -m venv`), executable, state present/latest/absent/
 * forcereinstall, extra_args, chdir. Changed when `pip freeze` differs
 * before and after, as Ansible decides. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *pip_run(struct exec_ctx *x, json_t *args)
{
	json_t *nv = json_object_get(args, "name");
	const char *version = args_str(args, "version");
	const char *req = args_str(args, "requirements");
	const char *venv = args_str(args, "virtualenv");
	const char *exe = args_str(args, "executable");
	const char *state = args_str(args, "state");
	const char *extra = args_str(args, "extra_args");
	const char *chdir = args_str(args, "chdir");
	if (!state)
		state = "present";
	if (!nv && !req)
		return res_fail("one of the following is required: name, requirements");
	struct strbuf c = STRBUF_INIT;
	if (chdir) {
		strbuf_addstr(&c, "cd ");
		sh_quote(&c, chdir);
		strbuf_addstr(&c, " || exit 1; ");
	}
	if (venv) {
		const char *vc = args_str(args, "virtualenv_command");
		strbuf_addstr(&c, "v=");
		sh_quote(&c, venv);
		strbuf_addf(&c, "; [ -x \"$v/bin/pip\" ] || %s \"$v\" || exit 1; P=\"$v/bin/pip\"; ",
			    vc ? vc : "python3 -m venv");
	} else if (exe) {
		strbuf_addstr(&c, "P=");
		sh_quote(&c, exe);
		strbuf_addstr(&c, "; ");
	} else {
		/* Ansible's: the pip module of the host's Python (the
		 * interpreter its modules run with), else pip3 on PATH */
		const char *py = json_string_value(json_object_get(x->vars, "ansible_python_interpreter"));
		strbuf_addstr(&c, "py=");
		sh_quote(&c, py ? py : "");
		strbuf_addstr(&c, "; [ -n \"$py\" ] || for py in /usr/bin/python3 python3; do command -v \"$py\" "
				  ">/dev/null 2>&1 && break; done; "
				  "if \"$py\" -c 'import pip' >/dev/null 2>&1; then P=\"$py -m pip.__main__\"; "
				  "else P=$(command -v pip3) || { echo 'Unable to find any of pip3 to use.  pip needs to "
				  "be installed.' >&2; exit 1; }; fi; ");
	}
	strbuf_addstr(&c, "set --");
	json_t *names = json_array();
	if (json_is_array(nv))
		json_array_extend(names, nv);
	else if (json_is_string(nv)) {
		const char *s = json_string_value(nv);
		while (*s) {
			size_t n = strcspn(s, ",");
			if (n)
				json_array_append_new(names, json_stringn(s, n));
			s += n;
			if (*s == ',')
				s++;
		}
	}
	size_t i;
	json_t *e;
	json_array_foreach(names, i, e) {
		strbuf_addch(&c, ' ');
		if (version && json_array_size(names) == 1) {
			char *w = xasprintf("%s==%s", json_string_value(e), version);
			sh_quote(&c, w);
			free(w);
		} else
			sh_quote(&c, json_string_value(e) ? json_string_value(e) : "");
	}
	if (req) {
		strbuf_addstr(&c, " -r ");
		sh_quote(&c, req);
	}
	strbuf_addstr(&c, "; b=$($P freeze 2>/dev/null); ");
	if (!strcmp(state, "absent"))
		strbuf_addstr(&c, "$P uninstall -y");
	else {
		strbuf_addstr(&c, "$P install -q");
		if (!strcmp(state, "latest"))
			strbuf_addstr(&c, " -U");
		else if (!strcmp(state, "forcereinstall"))
			strbuf_addstr(&c, " -U --force-reinstall");
	}
	if (extra) {
		strbuf_addch(&c, ' ');
		strbuf_addstr(&c, extra);
	}
	strbuf_addstr(&c, " \"$@\" || exit $?; a=$($P freeze 2>/dev/null); [ \"$a\" = \"$b\" ] || echo __imc_changed__");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		bool changed = strstr(strbuf_str(&cr.out), "__imc_changed__") != NULL;
		res = res_new(changed);
		res_set_output(res, &cr);
		json_object_set(res, "name", names);
		json_object_set_new(res, "version", version ? json_string(version) : json_null());
		json_object_set_new(res, "requirements", req ? json_string(req) : json_null());
		json_object_set_new(res, "virtualenv", venv ? json_string(venv) : json_null());
		json_object_set_new(res, "state", json_string(state));
		if (cr.rc != 0) {
			json_object_set_new(res, "failed", json_true());
			json_object_set_new(res, "msg", json_string(cr.err.len ? strbuf_str(&cr.err)
								   : "pip failed"));
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	json_decref(names);
	return res;
}

/* what run implements (module.h) */
static const char *const pip_params[] = {
	"chdir", "executable", "extra_args", "name", "requirements", "state", "version",
	"virtualenv", "virtualenv_command", NULL
};

static const char *const pip_node_paths[] = { "virtualenv", "virtualenv_command", "chdir", "executable", NULL };

const struct task_module mod_pip = {
	.name = "pip", .params = pip_params, .run = pip_run, .node_paths = pip_node_paths,
};
