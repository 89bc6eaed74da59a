/* mod-apt.c: the `apt` module and `package` (which dispatches on the node's
 * package manager: apt, dnf or yum), as one shell script on the node:
 * dpkg-query decides what is missing (idempotence), apt-get does the work
 * non-interactively with the dpkg lock waited for, the cache is refreshed
 * when asked or older than cache_valid_time. IM's `state=installed` and
 * `state=removed` are accepted as present/absent. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/task.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* name may be a list or a comma-separated string */
static json_t *names_of(json_t *args)
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

static const char *norm_state(const char *s)
{
	if (!s || !strcmp(s, "installed"))
		return "present";
	if (!strcmp(s, "removed"))
		return "absent";
	return s;
}

static json_t *finish(struct exec_ctx *x, struct strbuf *c, const char *what)
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

static json_t *apt_run(struct exec_ctx *x, json_t *args)
{
	json_t *names = names_of(args);
	const char *state = norm_state(args_str(args, "state"));
	bool update = args_bool(json_object_get(args, "update_cache"), false) ||
		      args_bool(json_object_get(args, "update-cache"), false);
	long valid = 0;
	json_t *cv = json_object_get(args, "cache_valid_time");
	if (cv)
		valid = json_is_integer(cv) ? (long)json_integer_value(cv)
			: strtol(json_string_value(cv) ? json_string_value(cv) : "0", NULL, 10);
	const char *upgrade = args_str(args, "upgrade");
	const char *deb = args_str(args, "deb");
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "export DEBIAN_FRONTEND=noninteractive; "
			  "A='apt-get -y -q -o DPkg::Lock::Timeout=60 -o Dpkg::Options::=--force-confdef "
			  "-o Dpkg::Options::=--force-confold'; ");
	if (!args_bool(json_object_get(args, "install_recommends"), true))
		strbuf_addstr(&c, "A=\"$A --no-install-recommends\"; ");
	const char *rel = args_str(args, "default_release");
	if (rel) {
		strbuf_addstr(&c, "A=\"$A -t ");
		sh_quote(&c, rel);
		strbuf_addstr(&c, "\"; ");
	}
	if (update) {
		if (valid > 0)
			strbuf_addf(&c, "s=/var/lib/apt/periodic/update-success-stamp; [ -f \"$s\" ] || s=/var/cache/apt/pkgcache.bin; "
				    "age=$(( $(date +%%s) - $(stat -c %%Y \"$s\" 2>/dev/null || echo 0) )); "
				    "if [ $age -gt %ld ]; then apt-get -q -o DPkg::Lock::Timeout=60 update || exit 1; "
				    "echo __imc_cache_updated__; fi; ", valid);
		else
			strbuf_addstr(&c, "apt-get -q -o DPkg::Lock::Timeout=60 update || exit 1; echo __imc_cache_updated__; ");
	}
	if (deb) {
		strbuf_addstr(&c, "d=");
		sh_quote(&c, deb);
		strbuf_addstr(&c, "; p=$(dpkg-deb -f \"$d\" Package) && v=$(dpkg-deb -f \"$d\" Version) && "
				  "[ \"$(dpkg-query -W -f='${Version}' \"$p\" 2>/dev/null)\" = \"$v\" ] || "
				  "{ $A install \"$d\" || exit 1; echo __imc_changed__; }; ");
	}
	size_t i;
	json_t *e;
	if (json_array_size(names)) {
		strbuf_addstr(&c, "set --");
		json_array_foreach(names, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e));
		}
		strbuf_addstr(&c, "; ");
		if (!strcmp(state, "present") || !strcmp(state, "fixed")) {
			strbuf_addstr(&c, "m=''; for p in \"$@\"; do n=${p%%=*}; v=''; [ \"$n\" != \"$p\" ] && v=${p#*=}; "
					  "st=$(dpkg-query -W -f='${Status} ${Version}' \"$n\" 2>/dev/null); "
					  "case \"$st\" in \"install ok installed\"*) [ -z \"$v\" ] || case \"${st##* }\" in $v) ;; *) m=\"$m $p\";; esac;; *) m=\"$m $p\";; esac; done; "
					  "if [ -n \"$m\" ]; then $A install $m || exit 1; echo __imc_changed__; fi; ");
		} else if (!strcmp(state, "latest")) {
			strbuf_addstr(&c, "b=$(dpkg-query -W -f='${Package} ${Version}\\n' \"$@\" 2>/dev/null); "
					  "$A install \"$@\" || exit 1; "
					  "a=$(dpkg-query -W -f='${Package} ${Version}\\n' \"$@\" 2>/dev/null); "
					  "[ \"$a\" = \"$b\" ] || echo __imc_changed__; ");
		} else if (!strcmp(state, "absent")) {
			strbuf_addstr(&c, "m=''; for p in \"$@\"; do case \"$(dpkg-query -W -f='${Status}' \"$p\" 2>/dev/null)\" in "
					  "\"install ok installed\"|*\" config-files\") m=\"$m $p\";; esac; done; ");
			strbuf_addf(&c, "if [ -n \"$m\" ]; then $A %s $m || exit 1; echo __imc_changed__; fi; ",
				    args_bool(json_object_get(args, "purge"), false) ? "purge" : "remove");
		} else if (!strcmp(state, "build-dep")) {
			strbuf_addstr(&c, "$A build-dep \"$@\" || exit 1; echo __imc_changed__; ");
		} else {
			json_decref(names);
			strbuf_release(&c);
			return res_fail("value of state must be one of: absent, build-dep, fixed, latest, present, got: %s",
					state);
		}
	}
	if (upgrade && strcmp(upgrade, "no")) {
		const char *how = !strcmp(upgrade, "dist") || !strcmp(upgrade, "full") ? "dist-upgrade" : "upgrade";
		strbuf_addf(&c, "o=$($A %s) || exit 1; echo \"$o\"; echo \"$o\" | grep -q '^0 upgraded, 0 newly installed, 0 to remove' || echo __imc_changed__; ", how);
	}
	if (args_bool(json_object_get(args, "autoremove"), false))
		strbuf_addstr(&c, "o=$($A autoremove) || exit 1; echo \"$o\" | grep -q ' 0 to remove' || echo __imc_changed__; ");
	if (args_bool(json_object_get(args, "autoclean"), false))
		strbuf_addstr(&c, "apt-get -q autoclean >/dev/null; ");
	strbuf_addstr(&c, "exit 0");
	json_decref(names);
	json_t *res = finish(x, &c, "apt");
	strbuf_release(&c);
	return res;
}

static json_t *rpm_run(struct exec_ctx *x, json_t *args, const char *mgr)
{
	json_t *names = names_of(args);
	const char *state = norm_state(args_str(args, "state"));
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
	json_t *res = finish(x, &c, mgr);
	strbuf_release(&c);
	return res;
}

static const char *pkg_mgr(struct exec_ctx *x)
{
	const char *f = json_string_value(json_object_get(x->vars, "ansible_pkg_mgr"));
	if (f && *f && strcmp(f, "unknown"))
		return f;
	struct conn_result cr;
	conn_result_init(&cr);
	static const char *const mgrs[] = { "apt", "dnf", "yum", NULL };
	const char *r = "apt";
	if (mod_sh(x, "for m in apt-get dnf yum; do command -v $m >/dev/null 2>&1 && { echo $m; exit 0; }; done; echo none",
		   NULL, 0, &cr, NULL) == 0) {
		const char *o = strbuf_str(&cr.out);
		for (const char *const *m = mgrs; *m; m++)
			if (!strncmp(o, *m, strlen(*m)))
				r = *m;
	}
	conn_result_release(&cr);
	return r;
}

static json_t *package_run(struct exec_ctx *x, json_t *args)
{
	const char *use = args_str(args, "use");
	const char *m = use && strcmp(use, "auto") ? use : pkg_mgr(x);
	if (!strcmp(m, "apt"))
		return apt_run(x, args);
	if (!strcmp(m, "dnf") || !strcmp(m, "yum"))
		return rpm_run(x, args, m);
	return res_fail("package manager '%s' is not supported", m);
}

static json_t *yum_run(struct exec_ctx *x, json_t *args)
{
	return rpm_run(x, args, "yum");
}

static json_t *dnf_run(struct exec_ctx *x, json_t *args)
{
	return rpm_run(x, args, "dnf");
}

const struct task_module mod_apt = { .name = "apt", .run = apt_run };
const struct task_module mod_package = { .name = "package", .run = package_run };
const struct task_module mod_yum = { .name = "yum", .run = yum_run };
const struct task_module mod_dnf = { .name = "dnf", .run = dnf_run };
