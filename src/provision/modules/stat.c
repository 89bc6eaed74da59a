/* stat.c: the `stat` module: one shell round trip on the node (stat(1),
 * readlink, sha1sum), reported with Ansible's keys; a missing path is
 * exactly {exists: false}. Never changed. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "util/banned.h"

static json_t *stat_run(struct exec_ctx *x, json_t *args)
{
	const char *path = args_str(args, "path");
	if (!path)
		path = args_str(args, "dest");
	if (!path)
		path = args_str(args, "name");
	if (!path)
		return res_fail("missing required arguments: path");
	struct node_stat st;
	json_t *res = NULL;
	bool follow = args_bool(json_object_get(args, "follow"), false);
	bool chk = args_bool(json_object_get(args, "get_checksum"), true);
	if (mod_stat(x, path, follow, chk, &st, &res) < 0)
		return res;
	json_t *s = json_object();
	json_object_set_new(s, "exists", json_boolean(st.exists));
	if (st.exists) {
		char mb[16];
		long m = st.mode;
		snprintf(mb, sizeof(mb), "0%03lo", m);
		json_object_set_new(s, "path", json_string(path));
		json_object_set_new(s, "mode", json_string(mb));
		json_object_set_new(s, "isdir", json_boolean(st.isdir));
		json_object_set_new(s, "isreg", json_boolean(st.isreg));
		json_object_set_new(s, "islnk", json_boolean(st.islnk));
		json_object_set_new(s, "size", json_integer(st.size));
		json_object_set_new(s, "uid", json_integer(st.uid));
		json_object_set_new(s, "gid", json_integer(st.gid));
		json_object_set_new(s, "pw_name", json_string(st.owner));
		json_object_set_new(s, "gr_name", json_string(st.group));
		json_object_set_new(s, "mtime", json_real(st.mtime));
		json_object_set_new(s, "atime", json_real(st.atime));
		json_object_set_new(s, "ctime", json_real(st.ctime));
		if (st.isreg && chk && st.sha1[0])
			json_object_set_new(s, "checksum", json_string(st.sha1));
		static const struct { const char *k; long bit; } bits[] = {
			{ "rusr", 0400 }, { "wusr", 0200 }, { "xusr", 0100 }, { "rgrp", 040 },
			{ "wgrp", 020 }, { "xgrp", 010 }, { "roth", 04 }, { "woth", 02 }, { "xoth", 01 },
			{ "isuid", 04000 }, { "isgid", 02000 },
		};
		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			json_object_set_new(s, bits[i].k, json_boolean(st.mode & bits[i].bit));
		bool root = x->conn->is_root && !x->become_user;
		root |= x->become_user && !strcmp(x->become_user, "root");
		json_object_set_new(s, "readable", json_boolean(root || (st.mode & 0444)));
		json_object_set_new(s, "writeable", json_boolean(root || (st.mode & 0222)));
		json_object_set_new(s, "executable", json_boolean(st.mode & 0111));
		if (st.islnk) {
			json_object_set_new(s, "lnk_source", json_string(st.target));
			json_object_set_new(s, "lnk_target", json_string(st.target));
		}
	}
	res = res_new(false);
	json_object_set_new(res, "stat", s);
	return res;
}

const struct task_module mod_stat_module = {
	.name = "stat", .run = stat_run, .same_in_check_mode = true,
};
