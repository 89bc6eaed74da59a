/* mod-file.c: the `file` module: state absent/directory/file/link/hard/
 * touch with mode/owner/group, as Ansible reports them (mode applied to
 * every directory the task creates; touch changed on every run; absent on
 * a missing path unchanged; links reported with mode 0777). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/task.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int sh_simple(struct exec_ctx *x, const char *cmd, json_t **res)
{
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, cmd, NULL, 0, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("%s", cr.err.len ? strbuf_str(&cr.err) : "command failed");
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

static const char *path_arg(json_t *args)
{
	const char *p = args_str(args, "path");
	if (!p)
		p = args_str(args, "dest");
	if (!p)
		p = args_str(args, "name");
	return p;
}

static json_t *file_run(struct exec_ctx *x, json_t *args)
{
	const char *path = path_arg(args);
	if (!path)
		return res_fail("missing required arguments: path");
	const char *state = args_str(args, "state");
	json_t *res = NULL;
	struct node_stat st;
	/* one round trip for the common cases */
	if (state && !strcmp(state, "absent")) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "p=");
		sh_quote(&c, path);
		strbuf_addstr(&c, "; if [ -e \"$p\" ] || [ -L \"$p\" ]; then rm -rf -- \"$p\" || exit 1; echo __imc_changed__; fi");
		struct conn_result cr;
		conn_result_init(&cr);
		if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
			if (cr.rc)
				res = res_fail("cannot remove %s: %s", path, strbuf_str(&cr.err));
			else {
				res = res_new(strstr(strbuf_str(&cr.out), "__imc_changed__") != NULL);
				json_object_set_new(res, "path", json_string(path));
				json_object_set_new(res, "state", json_string("absent"));
			}
		}
		conn_result_release(&cr);
		strbuf_release(&c);
		return res;
	}
	if (state && !strcmp(state, "touch")) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "touch -- \"$p\"");
		json_t *mv = json_object_get(args, "mode");
		bool numeric = json_is_integer(mv) ||
			       (json_is_string(mv) && *json_string_value(mv) &&
				strspn(json_string_value(mv), "01234567") == strlen(json_string_value(mv)));
		if (numeric)
			strbuf_addf(&c, " && chmod %lo -- \"$p\"", args_mode(mv, 0644) & 07777);
		bool changed = true;
		int rc = mod_sh_stat(x, path, c.buf, &st, &res);
		strbuf_release(&c);
		if (rc < 0)
			return res;
		json_t *rest = numeric ? json_deep_copy(args) : json_incref(args);
		if (numeric)
			json_object_del(rest, "mode");
		rc = mod_attrs_st(x, path, rest, &st, &changed, &res);
		json_decref(rest);
		if (rc < 0)
			return res;
		res = res_new(true);
		json_object_set_new(res, "dest", json_string(path));
		mod_file_result(res, &st, path);
		return res;
	}
	if (mod_stat(x, path, false, false, &st, &res) < 0)
		return res;
	if (!state)
		state = !st.exists ? "file" : st.islnk ? "link" : st.isdir ? "directory" : "file";
	bool changed = false;
	bool st_valid = true;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; ");
	const char *key = "path";
	if (!strcmp(state, "absent")) {
		if (st.exists) {
			strbuf_addstr(&c, "rm -rf -- \"$p\"");
			if (sh_simple(x, c.buf, &res) < 0)
				goto out;
			changed = true;
		}
		res = res_new(changed);
		json_object_set_new(res, "path", json_string(path));
		json_object_set_new(res, "state", json_string("absent"));
		goto out;
	} else if (!strcmp(state, "directory")) {
		if (st.exists && !st.isdir) {
			res = res_fail("%s already exists as a %s", path, st.islnk ? "link" : "file");
			json_object_set_new(res, "path", json_string(path));
			goto out;
		}
		if (!st.exists) {
			long mode = args_mode(json_object_get(args, "mode"), 0755 | 040000);
			if (mode == -2) {
				res = res_fail("bad symbolic permission for mode");
				goto out;
			}
			strbuf_addstr(&c, "m=''; d=\"$p\"; while [ ! -e \"$d\" ]; do m=\"$d\n$m\"; d=$(dirname -- \"$d\"); done; "
				      "mkdir -p -- \"$p\" || exit 1; ");
			if (mode >= 0)
				strbuf_addf(&c, "printf '%%s\\n' \"$m\" | while IFS= read -r x; do [ -n \"$x\" ] && chmod %lo -- \"$x\"; done; ", mode);
			strbuf_addstr(&c, "true");
			if (mod_sh_stat(x, path, c.buf, &st, &res) < 0)
				goto out;
			changed = true;
		} else if (args_bool(json_object_get(args, "recurse"), false)) {
			st_valid = false;
			json_t *mv = json_object_get(args, "mode");
			const char *o = args_str(args, "owner"), *g = args_str(args, "group");
			/* recursive: apply and detect change by comparing a listing */
			strbuf_addstr(&c, "b=$(find \"$p\" -printf '%m %u %g\\n' | md5sum); ");
			if (mv) {
				strbuf_addstr(&c, "chmod -R ");
				if (json_is_integer(mv))
					strbuf_addf(&c, "%llo", (unsigned long long)json_integer_value(mv));
				else
					sh_quote(&c, json_string_value(mv) ? json_string_value(mv) : "");
				strbuf_addstr(&c, " -- \"$p\"; ");
			}
			if (o) {
				strbuf_addstr(&c, "chown -R ");
				sh_quote(&c, o);
				strbuf_addstr(&c, " -- \"$p\"; ");
			}
			if (g) {
				strbuf_addstr(&c, "chgrp -R ");
				sh_quote(&c, g);
				strbuf_addstr(&c, " -- \"$p\"; ");
			}
			strbuf_addstr(&c, "a=$(find \"$p\" -printf '%m %u %g\\n' | md5sum); [ \"$a\" = \"$b\" ] && exit 3; exit 0");
			struct conn_result cr;
			conn_result_init(&cr);
			if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0) {
				conn_result_release(&cr);
				goto out;
			}
			changed = cr.rc == 0;
			conn_result_release(&cr);
		}
	} else if (!strcmp(state, "file")) {
		if (!st.exists) {
			res = res_fail("file (%s) is absent, cannot continue", path);
			json_object_set_new(res, "path", json_string(path));
			json_object_set_new(res, "state", json_string("absent"));
			goto out;
		}
		if (st.isdir) {
			res = res_fail("%s is a directory, not a file", path);
			goto out;
		}
	} else if (!strcmp(state, "link") || !strcmp(state, "hard")) {
		const char *src = args_str(args, "src");
		key = "dest";
		if (!src) {
			res = res_fail("src option requires state to be 'link' or 'hard'");
			goto out;
		}
		bool hard = !strcmp(state, "hard");
		if (!hard && st.exists && st.islnk && !strcmp(st.target, src)) {
			/* already right */
		} else {
			if (st.exists && st.isdir && !st.islnk) {
				if (!args_bool(json_object_get(args, "force"), false)) {
					res = res_fail("refusing to convert from directory to symlink for %s", path);
					goto out;
				}
			}
			if (hard) {
				strbuf_addstr(&c, "s=");
				sh_quote(&c, src);
				strbuf_addstr(&c, "; [ \"$p\" -ef \"$s\" ] && exit 3; ln -f -- \"$s\" \"$p\"");
			} else {
				strbuf_addstr(&c, "ln -sfn -- ");
				sh_quote(&c, src);
				strbuf_addstr(&c, " \"$p\"");
			}
			struct conn_result cr;
			conn_result_init(&cr);
			if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0) {
				conn_result_release(&cr);
				goto out;
			}
			if (cr.rc != 0 && cr.rc != 3) {
				res = res_fail("cannot link %s: %s", path, strbuf_str(&cr.err));
				conn_result_release(&cr);
				goto out;
			}
			changed = cr.rc == 0;
			conn_result_release(&cr);
		}
		if (!hard) {
			if (mod_stat(x, path, false, false, &st, &res) < 0)
				goto out;
			res = res_new(changed);
			json_object_set_new(res, "dest", json_string(path));
			json_object_set_new(res, "src", json_string(src));
			mod_file_result(res, &st, path);
			goto out;
		}
	} else if (!strcmp(state, "touch")) {
		key = "dest";
		strbuf_addstr(&c, "touch -- \"$p\"");
		if (!st.exists) {
			long mode = args_mode(json_object_get(args, "mode"), 0644);
			(void)mode;
		}
		if (sh_simple(x, c.buf, &res) < 0)
			goto out;
		changed = true;
		st_valid = false;
	} else {
		res = res_fail("value of state must be one of: absent, directory, file, hard, link, touch, got: %s", state);
		goto out;
	}
	if (!st_valid && mod_stat(x, path, false, false, &st, &res) < 0)
		goto out;
	if (mod_attrs_st(x, path, args, &st, &changed, &res) < 0)
		goto out;
	res = res_new(changed);
	json_object_set_new(res, key, json_string(path));
	mod_file_result(res, &st, path);
out:
	strbuf_release(&c);
	return res;
}

static int file_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	if (!path_arg(args)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "file: missing required arguments: path");
		return -1;
	}
	return 0;
}

const struct task_module mod_file = {
	.name = "file", .check = file_check, .run = file_run,
};
