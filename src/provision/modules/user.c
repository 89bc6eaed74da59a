/* user.c: the `user` module with useradd/usermod/userdel on the node:
 * create with uid, group, groups (+append), shell, home, create_home,
 * system, password (a hash), comment; change what differs; state=absent
 * (remove: home too); generate_ssh_key. Changed when anything was done. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* res's uid, group (the gid), comment, home and shell from a passwd
 * line NAME:PW:UID:GID:GECOS:HOME:SHELL */
static void set_account(json_t *res, const char *ent)
{
	const char *f[7];
	size_t len[7];
	for (int i = 0; i < 7; i++) {
		f[i] = ent;
		len[i] = strcspn(ent, i < 6 ? ":\n" : "\n");
		ent += len[i];
		if (i < 6 && *ent != ':')
			return;
		ent++;
	}
	json_object_set_new(res, "uid", json_integer(strtoll(f[2], NULL, 10)));
	json_object_set_new(res, "group", json_integer(strtoll(f[3], NULL, 10)));
	json_object_set_new(res, "comment", json_stringn(f[4], len[4]));
	json_object_set_new(res, "home", json_stringn(f[5], len[5]));
	json_object_set_new(res, "shell", json_stringn(f[6], len[6]));
}

static json_t *user_run(struct exec_ctx *x, json_t *args)
{
	const char *name = args_str(args, "name");
	if (!name)
		return res_fail("missing required arguments: name");
	const char *state = args_str(args, "state");
	char *uid = args_strdup(args, "uid");
	const char *group = args_str(args, "group");
	json_t *gv = json_object_get(args, "groups");
	char *groups = NULL;
	if (json_is_array(gv)) {
		struct strbuf g = STRBUF_INIT;
		size_t i;
		json_t *e;
		json_array_foreach(gv, i, e)
			strbuf_addf(&g, "%s%s", i ? "," : "", json_string_value(e) ? json_string_value(e) : "");
		groups = strbuf_detach(&g);
	} else if (json_is_string(gv))
		groups = xstrdup(json_string_value(gv));
	const char *shell = args_str(args, "shell");
	const char *home = args_str(args, "home");
	const char *pw = args_str(args, "password");
	const char *comment = args_str(args, "comment");
	bool append = args_bool(json_object_get(args, "append"), false);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "u=");
	sh_quote(&c, name);
	strbuf_addstr(&c, "; ");
	if (state && !strcmp(state, "absent")) {
		/* Ansible's userdel flags: force (-f) then remove (-r) */
		strbuf_addf(&c, "if id -u \"$u\" >/dev/null 2>&1; then userdel%s%s \"$u\" || exit 1; echo __imc_changed__; fi",
			    args_bool(json_object_get(args, "force"), false) ? " -f" : "",
			    args_bool(json_object_get(args, "remove"), false) ? " -r" : "");
	} else {
		strbuf_addstr(&c, "if ! id -u \"$u\" >/dev/null 2>&1; then useradd");
		mod_sh_flag(&c, "-u", uid);
		mod_sh_flag(&c, "-g", group);
		mod_sh_flag(&c, "-G", groups);
		mod_sh_flag(&c, "-s", shell);
		mod_sh_flag(&c, "-d", home);
		mod_sh_flag(&c, "-p", pw);
		mod_sh_flag(&c, "-c", comment);
		if (args_bool(json_object_get(args, "system"), false))
			strbuf_addstr(&c, " -r");
		/* createhome: Ansible's alias of create_home */
		json_t *ch = json_object_get(args, "create_home");
		if (!ch)
			ch = json_object_get(args, "createhome");
		strbuf_addstr(&c, args_bool(ch, true) ? " -m" : " -M");
		strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; else ");
		strbuf_addstr(&c, "ent=$(getent passwd \"$u\"); ");
		if (shell) {
			strbuf_addstr(&c, "[ \"$(echo \"$ent\" | cut -d: -f7)\" = ");
			sh_quote(&c, shell);
			strbuf_addstr(&c, " ] || { usermod -s ");
			sh_quote(&c, shell);
			strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; }; ");
		}
		if (home) {
			strbuf_addstr(&c, "[ \"$(echo \"$ent\" | cut -d: -f6)\" = ");
			sh_quote(&c, home);
			strbuf_addstr(&c, " ] || { usermod -d ");
			sh_quote(&c, home);
			strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; }; ");
		}
		if (uid) {
			strbuf_addstr(&c, "[ \"$(id -u \"$u\")\" = ");
			sh_quote(&c, uid);
			strbuf_addstr(&c, " ] || { usermod -u ");
			sh_quote(&c, uid);
			strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; }; ");
		}
		if (group) {
			strbuf_addstr(&c, "[ \"$(id -gn \"$u\")\" = ");
			sh_quote(&c, group);
			strbuf_addstr(&c, " ] || [ \"$(id -g \"$u\")\" = ");
			sh_quote(&c, group);
			strbuf_addstr(&c, " ] || { usermod -g ");
			sh_quote(&c, group);
			strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; }; ");
		}
		if (groups && *groups) {
			strbuf_addstr(&c, "have=\" $(id -Gn \"$u\") \"; miss=''; for g in $(echo ");
			sh_quote(&c, groups);
			strbuf_addstr(&c, " | tr ',' ' '); do case \"$have\" in *\" $g \"*) ;; *) miss=1;; esac; done; ");
			strbuf_addf(&c, "[ -z \"$miss\" ] || { usermod %s-G ", append ? "-a " : "");
			sh_quote(&c, groups);
			strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; }; ");
		}
		if (pw) {
			strbuf_addstr(&c, "[ \"$(getent shadow \"$u\" | cut -d: -f2)\" = ");
			sh_quote(&c, pw);
			strbuf_addstr(&c, " ] || { usermod -p ");
			sh_quote(&c, pw);
			strbuf_addstr(&c, " \"$u\" || exit 1; echo __imc_changed__; }; ");
		}
		strbuf_addstr(&c, "fi; ");
		if (args_bool(json_object_get(args, "generate_ssh_key"), false)) {
			const char *kf = args_str(args, "ssh_key_file");
			strbuf_addstr(&c, "h=$(getent passwd \"$u\" | cut -d: -f6); k=");
			if (kf)
				sh_quote(&c, kf);
			else
				strbuf_addstr(&c, "\"$h/.ssh/id_rsa\"");
			strbuf_addstr(&c, "; case \"$k\" in /*) ;; *) k=\"$h/$k\";; esac; if [ ! -f \"$k\" ]; then mkdir -p \"$(dirname \"$k\")\" && "
					  "ssh-keygen -q -t rsa -b 2048 -N '' -f \"$k\" && chown -R \"$u\" \"$(dirname \"$k\")\" || exit 1; echo __imc_changed__; fi; "
					  "echo \"__imc_pub__=$(cat \"$k.pub\")\"; ");
		}
		/* the account as it now is: Ansible's uid, group, comment, home
		 * and shell keys */
		strbuf_addstr(&c, "echo \"__imc_ent__=$(getent passwd \"$u\")\"");
	}
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		if (cr.rc != 0)
			res = res_fail("%s", cr.err.len ? strbuf_str(&cr.err) : "user management failed");
		else {
			const char *o = strbuf_str(&cr.out);
			res = res_new(strstr(o, "__imc_changed__") != NULL);
			json_object_set_new(res, "name", json_string(name));
			json_object_set_new(res, "state", json_string(state ? state : "present"));
			const char *pk = strstr(o, "__imc_pub__=");
			if (pk)
				json_object_set_new(res, "ssh_public_key", json_stringn(pk + 12, strcspn(pk + 12, "\n")));
			const char *ent = strstr(o, "__imc_ent__=");
			if (ent)
				set_account(res, ent + 12);
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	free(uid);
	free(groups);
	return res;
}

/* what run implements (module.h) */
static const char *const user_params[] = {
	"append", "comment", "create_home", "createhome", "force", "generate_ssh_key", "group", "groups", "home",
	"name", "password", "remove", "shell", "ssh_key_file", "state", "system", "uid", NULL
};

const struct task_module mod_user = { .name = "user", .params = user_params, .run = user_run };
