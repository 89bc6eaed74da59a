/* apt.c: the `apt` module (and the run `package` uses on apt systems),
 * as one shell script on the node: dpkg-query decides what is missing
 * (idempotence), apt-get does the work non-interactively with the dpkg
 * lock waited for, the cache is refreshed when asked or older than
 * cache_valid_time. IM's `state=installed` and `state=removed` are
 * accepted as present/absent. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "util/banned.h"

json_t *apt_module_run(struct exec_ctx *x, json_t *args)
{
	json_t *names = pkg_names(args);
	const char *state = pkg_state(args_str(args, "state"));
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
	json_t *res = pkg_finish(x, &c, "apt");
	strbuf_release(&c);
	return res;
}

/* what run implements (module.h) */
static const char *const apt_params[] = {
	"name", "pkg", "package", "state", "update_cache", "update-cache", "cache_valid_time",
	"upgrade", "autoclean", "autoremove", "purge", "default_release", "install_recommends",
	"deb", NULL
};

static const char *const apt_node_paths[] = { "deb", NULL };

const struct task_module mod_apt = {
	.name = "apt",
	.params = apt_params,
	.run = apt_module_run,
	.node_paths = apt_node_paths,
};
