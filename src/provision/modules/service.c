/* service.c: the `service` module, whose run `systemd` shares: systemctl when
 * the node runs systemd, else the service(8) command / init scripts.
 * started/stopped change only when the state differs, restarted/reloaded
 * always change, enabled when the boot setting differs; daemon_reload and
 * masked for systemd. */
#include "config.h"

#include <string.h>

#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "util/banned.h"

json_t *service_module_run(struct exec_ctx *x, json_t *args)
{
	const char *name = args_str(args, "name");
	const char *state = args_str(args, "state");
	json_t *en = json_object_get(args, "enabled");
	json_t *masked = json_object_get(args, "masked");
	bool reload = args_bool(json_object_get(args, "daemon_reload"), false) ||
		      args_bool(json_object_get(args, "daemon-reload"), false);
	if (!name && !reload)
		return res_fail("missing required arguments: name");
	if (state && strcmp(state, "started") && strcmp(state, "stopped") &&
	    strcmp(state, "restarted") && strcmp(state, "reloaded"))
		return res_fail("value of state must be one of: reloaded, restarted, started, stopped, got: %s", state);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "n=");
	sh_quote(&c, name ? name : "");
	strbuf_addstr(&c, "; if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then ");
	if (reload)
		strbuf_addstr(&c, "systemctl daemon-reload || exit 1; ");
	if (name) {
		if (masked)
			strbuf_addf(&c, "m=$(systemctl is-enabled \"$n\" 2>/dev/null); if [ %d = 1 ] && [ \"$m\" != masked ]; then systemctl mask \"$n\" || exit 1; echo __imc_changed__; "
				    "elif [ %d = 0 ] && [ \"$m\" = masked ]; then systemctl unmask \"$n\" || exit 1; echo __imc_changed__; fi; ",
				    args_bool(masked, false), args_bool(masked, false));
		if (en)
			strbuf_addf(&c, "e=$(systemctl is-enabled \"$n\" 2>/dev/null); if [ %d = 1 ]; then case \"$e\" in enabled|static|alias|indirect|generated) ;; *) systemctl enable \"$n\" || exit 1; echo __imc_changed__;; esac; "
				    "else if [ \"$e\" = enabled ]; then systemctl disable \"$n\" || exit 1; echo __imc_changed__; fi; fi; ",
				    args_bool(en, false));
		if (state) {
			if (!strcmp(state, "started"))
				strbuf_addstr(&c, "systemctl is-active -q \"$n\" || { systemctl start \"$n\" || exit 1; echo __imc_changed__; }; ");
			else if (!strcmp(state, "stopped"))
				strbuf_addstr(&c, "if systemctl is-active -q \"$n\"; then systemctl stop \"$n\" || exit 1; echo __imc_changed__; fi; ");
			else if (!strcmp(state, "restarted"))
				strbuf_addstr(&c, "systemctl restart \"$n\" || exit 1; echo __imc_changed__; ");
			else
				strbuf_addstr(&c, "systemctl reload-or-restart \"$n\" || exit 1; echo __imc_changed__; ");
		}
		strbuf_addstr(&c, "echo \"__imc_status__=$(systemctl is-active \"$n\" 2>/dev/null)\"; ");
	}
	strbuf_addstr(&c, "else ");
	if (name) {
		strbuf_addstr(&c, "S() { if command -v service >/dev/null 2>&1; then service \"$n\" \"$1\"; "
				  "elif [ -x \"/etc/init.d/$n\" ]; then \"/etc/init.d/$n\" \"$1\"; else echo \"no service $n\" >&2; return 1; fi; }; ");
		if (en)
			strbuf_addf(&c, "if command -v update-rc.d >/dev/null 2>&1; then if [ %d = 1 ]; then ls /etc/rc[2345].d/S*\"$n\" >/dev/null 2>&1 || { update-rc.d \"$n\" enable >/dev/null 2>&1 || update-rc.d \"$n\" defaults >/dev/null; echo __imc_changed__; }; "
				    "else ls /etc/rc[2345].d/S*\"$n\" >/dev/null 2>&1 && { update-rc.d \"$n\" disable >/dev/null; echo __imc_changed__; }; fi; fi; ",
				    args_bool(en, false));
		if (state) {
			if (!strcmp(state, "started"))
				strbuf_addstr(&c, "S status >/dev/null 2>&1 || { S start || exit 1; echo __imc_changed__; }; ");
			else if (!strcmp(state, "stopped"))
				strbuf_addstr(&c, "if S status >/dev/null 2>&1; then S stop || exit 1; echo __imc_changed__; fi; ");
			else if (!strcmp(state, "restarted"))
				strbuf_addstr(&c, "S restart || exit 1; echo __imc_changed__; ");
			else
				strbuf_addstr(&c, "S reload || S restart || exit 1; echo __imc_changed__; ");
		}
	}
	strbuf_addstr(&c, "fi; exit 0");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		const char *o = strbuf_str(&cr.out);
		if (cr.rc != 0) {
			const char *verb = !state ? "configure" : !strcmp(state, "started") ? "start"
					   : !strcmp(state, "stopped") ? "stop"
					   : !strcmp(state, "restarted") ? "restart" : "reload";
			res = res_fail("Unable to %s service %s: %s", verb, name ? name : "",
				       strbuf_str(&cr.err));
		} else {
			res = res_new(strstr(o, "__imc_changed__") != NULL);
			if (name)
				json_object_set_new(res, "name", json_string(name));
			if (state)
				json_object_set_new(res, "state", json_string(state));
			if (en)
				json_object_set_new(res, "enabled", json_boolean(args_bool(en, false)));
			const char *st = strstr(o, "__imc_status__=");
			if (st)
				json_object_set_new(res, "status", json_pack("{s:s%}", "ActiveState", st + 15,
							strcspn(st + 15, "\n")));
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}

/* what run implements (module.h) */
static const char *const service_params[] = {
	"name", "state", "enabled", "daemon_reload", "daemon-reload", "masked", NULL
};

const struct task_module mod_service = {
	.name = "service",
	.params = service_params,
	.run = service_module_run,
};
