/* stat.c: the `stat` module: one shell round trip on the node (stat(1),
 * readlink, sha1sum), reported with Ansible's keys; a missing path is
 * exactly {exists: false}. Never changed. A checksum by another algorithm
 * than sha1, and a link's resolved source, take one more round trip. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "util/banned.h"
#include "util/strbuf.h"

/* stat's parameters and their aliases; get_mime and get_attributes only
 * add keys the harness and recipes never rely on (mimetype, attributes),
 * which imc leaves out */
static const char *const stat_known[] = {
	"path", "dest", "name", "follow", "get_checksum", "checksum_algorithm", "checksum",
	"checksum_algo", "get_md5", "get_mime", "mime", "mime_type", "mime-type", "get_attributes",
	"attr", "attributes", NULL,
};

/* first word of what CMD prints about "$p", or -1 with *res (unreachable
 * or the command failed) */
static int stat_query(struct exec_ctx *x, const char *path, const char *cmd, char *out, size_t n,
		      json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addf(&c, "; %s", cmd);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("cannot stat '%s': %s", path, strbuf_str(&cr.err));
		rc = -1;
	}
	if (rc == 0) {
		const char *o = strbuf_str(&cr.out);
		snprintf(out, n, "%.*s", (int)strcspn(o, " \n"), o);
	}
	conn_result_release(&cr);
	return rc;
}

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
	const char *algo = args_str(args, "checksum_algorithm");
	if (!algo)
		algo = args_str(args, "checksum");
	if (!algo)
		algo = args_str(args, "checksum_algo");
	if (!algo)
		algo = "sha1";
	static const char *const algos[] = { "md5", "sha1", "sha224", "sha256", "sha384", "sha512", NULL };
	bool algo_ok = false;
	for (const char *const *a = algos; *a && !algo_ok; a++)
		algo_ok = !strcmp(*a, algo);
	if (!algo_ok)
		return res_fail("value of checksum_algorithm must be one of: md5, sha1, sha224, sha256, "
				"sha384, sha512, got: %s", algo);
	if (mod_stat(x, path, follow, chk, &st, &res) < 0)
		return res;
	char sum[132] = "", real[512] = "";
	if (st.exists && st.isreg && chk && strcmp(algo, "sha1")) {
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "%ssum < \"$p\"", algo);
		if (stat_query(x, path, cmd, sum, sizeof(sum), &res) < 0)
			return res;
	}
	/* Ansible's lnk_source is the path resolved (os.path.realpath, which
	 * resolves what exists and keeps the rest), lnk_target what the link
	 * holds */
	/* readable/writeable/executable are os.access's, which follows the
	 * link: the target's mode (none for a dangling link) */
	char tmode[16] = "";
	if (st.exists && st.islnk) {
		if (stat_query(x, path, "stat -L -c %a -- \"$p\" 2>/dev/null || echo none", tmode,
			       sizeof(tmode), &res) < 0 ||
		    stat_query(x, path, "readlink -m -- \"$p\"", real, sizeof(real), &res) < 0)
			return res;
	}
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
		json_object_set_new(s, "isblk", json_boolean(st.isblk));
		json_object_set_new(s, "ischr", json_boolean(st.ischr));
		json_object_set_new(s, "isfifo", json_boolean(st.isfifo));
		json_object_set_new(s, "issock", json_boolean(st.issock));
		if (st.isreg && chk && sum[0])
			json_object_set_new(s, "checksum", json_string(sum));
		else if (st.isreg && chk && st.sha1[0] && !strcmp(algo, "sha1"))
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
		long am = st.mode;
		bool there = true;
		if (st.islnk) {
			there = strcmp(tmode, "none") != 0;
			am = there ? strtol(tmode, NULL, 8) : 0;
		}
		json_object_set_new(s, "readable", json_boolean(there && (root || (am & 0444))));
		json_object_set_new(s, "writeable", json_boolean(there && (root || (am & 0222))));
		json_object_set_new(s, "executable", json_boolean(there && (am & 0111)));
		if (st.islnk) {
			json_object_set_new(s, "lnk_source", json_string(real));
			json_object_set_new(s, "lnk_target", json_string(st.target));
		}
	}
	res = res_new(false);
	json_object_set_new(res, "stat", s);
	return res;
}

const struct task_module mod_stat_module = {
	.name = "stat", .params = stat_known, .run = stat_run, .same_in_check_mode = true,
};
