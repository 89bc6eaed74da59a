/* module-pkg.c: what the package modules (apt, yum, dnf, package) share:
 * the package names of the task (a list or a comma-separated string), IM's
 * state names, the run of the generated script on the node (changed when it
 * printed "__imc_changed__" or "__imc_cache_updated__"), and the yum/dnf
 * script, which differs between the two only in the command's name. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/modules/module-shared.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* name may be a list or a comma-separated string */
json_t *pkg_names(json_t *args)
{
	json_t *v = json_object_get(args, "name");
	if (!v)
		v = json_object_get(args, "pkg");
	if (!v)
		v = json_object_get(args, "package");
	json_t *out = json_array();
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (json_is_string(e))
				json_array_append(out, e);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		while (*s) {
			size_t n = strcspn(s, ",");
			char *w = xstrndup(s, n);
			char *t = w;
			while (*t == ' ')
				t++;
			size_t tl = strlen(t);
			while (tl && t[tl - 1] == ' ')
				t[--tl] = 0;
			if (*t)
				json_array_append_new(out, json_string(t));
			free(w);
			s += n;
			if (*s == ',')
				s++;
		}
	}
	return out;
}

const char *pkg_state(const char *s)
{
	if (!s || !strcmp(s, "installed"))
		return "present";
	if (!strcmp(s, "removed"))
		return "absent";
	return s;
}

json_t *pkg_finish(struct exec_ctx *x, struct strbuf *c, const char *what)
{
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c->buf, NULL, 0, &cr, &res) < 0) {
		conn_result_release(&cr);
		return res;
	}
	const char *o = strbuf_str(&cr.out);
	bool changed = strstr(o, "__imc_changed__") != NULL;
	bool cache = strstr(o, "__imc_cache_updated__") != NULL;
	res = res_new(changed || cache);
	json_object_set_new(res, "cache_updated", json_boolean(cache));
	res_set_output(res, &cr);
	json_object_del(res, "rc");
	if (cr.rc != 0) {
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "rc", json_integer(cr.rc));
		const char *e = json_string_value(json_object_get(res, "stderr"));
		char *m = xasprintf("%s failed: %s", what, e && *e ? e : "non-zero return code");
		json_object_set_new(res, "msg", json_string(m));
		free(m);
	}
	conn_result_release(&cr);
	return res;
}

json_t *pkg_rpm_run(struct exec_ctx *x, json_t *args, const char *mgr)
{
	json_t *names = pkg_names(args);
	const char *state = pkg_state(args_str(args, "state"));
	struct strbuf c = STRBUF_INIT;
	strbuf_addf(&c, "M=%s; set --", mgr);
	size_t i;
	json_t *e;
	json_array_foreach(names, i, e) {
		strbuf_addch(&c, ' ');
		sh_quote(&c, json_string_value(e));
	}
	strbuf_addstr(&c, "; ");
	if (args_bool(json_object_get(args, "update_cache"), false))
		strbuf_addstr(&c, "$M -q makecache >/dev/null || exit 1; ");
	if (!strcmp(state, "present"))
		strbuf_addstr(&c, "m=''; for p in \"$@\"; do rpm -q --whatprovides \"$p\" >/dev/null 2>&1 || m=\"$m $p\"; done; "
				  "if [ -n \"$m\" ]; then $M -y install $m || exit 1; echo __imc_changed__; fi; exit 0");
	else if (!strcmp(state, "latest"))
		strbuf_addstr(&c, "b=$(rpm -q \"$@\" 2>&1); $M -y install \"$@\" || exit 1; $M -y upgrade \"$@\" >/dev/null 2>&1; "
				  "[ \"$(rpm -q \"$@\" 2>&1)\" = \"$b\" ] || echo __imc_changed__; exit 0");
	else if (!strcmp(state, "absent"))
		strbuf_addstr(&c, "m=''; for p in \"$@\"; do rpm -q \"$p\" >/dev/null 2>&1 && m=\"$m $p\"; done; "
				  "if [ -n \"$m\" ]; then $M -y remove $m || exit 1; echo __imc_changed__; fi; exit 0");
	else {
		json_decref(names);
		strbuf_release(&c);
		return res_fail("value of state must be one of: absent, installed, latest, present, removed, got: %s", state);
	}
	json_decref(names);
	json_t *res = pkg_finish(x, &c, mgr);
	strbuf_release(&c);
	return res;
}
