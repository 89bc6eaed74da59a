/* stat.c: the `stat` module: one shell round trip on the node (stat(1),
 * readlink, sha1sum), reported with Ansible's keys; a missing path is
 * exactly {exists: false}. Never changed. The keys from other tools
 * (inode, device and block numbers from stat(1), mimetype and charset
 * from file(1), attributes from lsattr(1), as Ansible's module runs them)
 * are printed in the same round trip; a checksum by another algorithm
 * than sha1, md5 and a link's resolved source take one more each. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* stat's parameters and their aliases */
static const char *const stat_known[] = {
	"path", "dest", "name", "follow", "get_checksum", "checksum_algorithm", "checksum",
	"checksum_algo", "get_md5", "get_mime", "mime", "mime_type", "mime-type", "get_attributes",
	"attr", "attributes", NULL,
};

/* lsattr's letters and Ansible's names for them (FILE_ATTRIBUTES) */
static const struct { char c; const char *name; } attr_names[] = {
	{ 'A', "noatime" }, { 'a', "append" }, { 'c', "compressed" }, { 'C', "nocow" },
	{ 'd', "nodump" }, { 'D', "dirsync" }, { 'e', "extents" }, { 'E', "encrypted" },
	{ 'h', "blocksize" }, { 'i', "immutable" }, { 'I', "indexed" }, { 'j', "journalled" },
	{ 'N', "inline" }, { 's', "zero" }, { 'S', "synchronous" }, { 't', "notail" },
	{ 'T', "blockroot" }, { 'u', "undelete" }, { 'X', "compressedraw" }, { 'Z', "compresseddirty" },
};

/* the first of several aliases given, as a bool (dflt when none is) */
static bool bool_alias(json_t *args, const char *const *keys, bool dflt)
{
	for (; *keys; keys++)
		if (json_object_get(args, *keys))
			return args_bool(json_object_get(args, *keys), dflt);
	return dflt;
}

/* [b, e) without Python's strip() whitespace, as a JSON string */
static json_t *trimmed(const char *b, const char *e)
{
	while (b < e && *b && strchr(" \t\n\r\f\v", *b))
		b++;
	while (e > b && e[-1] && strchr(" \t\n\r\f\v", e[-1]))
		e--;
	return json_stringn(b, (size_t)(e - b));
}

/* The keys Ansible's stat takes from os.stat beyond mod_stat's (inode,
 * dev, nlink, blocks, block_size, device_type), from `file --mime-type
 * --mime-encoding` (mimetype and charset, 'unknown' without file(1) or
 * when it fails) and from `lsattr -vd` (version, attr_flags, attributes;
 * null, '' and [] when lsattr fails, as on a link or tmpfs): the shell
 * that prints them, run in mod_stat's round trip (mod_stat_and) */
static void extras_script(struct strbuf *c, bool follow, bool mime, bool attrs)
{
	strbuf_addf(c, "stat %s-c '%%d %%i %%h %%b %%o %%t %%T' -- \"$p\" || exit 1; ", follow ? "-L " : "");
	/* imc_sp prints $o with each newline a space, as `tr '\n' ' '`
	 * would, without a pipe and a process for it */
	if (mime || attrs)
		strbuf_addstr(c, "imc_nl='\n'; imc_sp() { while :; do case $o in *\"$imc_nl\"*) "
			      "printf '%s ' \"${o%%\"$imc_nl\"*}\"; o=${o#*\"$imc_nl\"};; "
			      "*) printf '%s' \"$o\"; return;; esac; done; }; ");
	if (mime)
		strbuf_addstr(c, "o=$(file --mime-type --mime-encoding \"$p\" 2>/dev/null) && imc_sp; echo; ");
	if (attrs)
		strbuf_addstr(c, "o=$(lsattr -vd \"$p\" 2>/dev/null) && imc_sp; echo");
}

/* Puts what extras_script printed (cr) into s; -1 with *res when it
 * failed. */
static int stat_extras(const struct conn_result *cr, const char *path, bool mime, bool attrs,
		       json_t *s, json_t **res)
{
	if (cr->rc != 0) {
		*res = res_fail("cannot stat '%s': %s", path, strbuf_str(&cr->err));
		return -1;
	}
	char *out = xstrdup(strbuf_str(&cr->out));
	char *line[3] = { out, NULL, NULL };
	for (int i = 1; i < 3 && line[i - 1]; i++) {
		char *nl = strchr(line[i - 1], '\n');
		if (nl) {
			*nl = '\0';
			line[i] = nl + 1;
		}
	}
	unsigned long long dev = 0, ino = 0, nlink = 0, blocks = 0, blksize = 0;
	unsigned int maj = 0, min = 0;
	sscanf(line[0], "%llu %llu %llu %llu %llu %x %x", &dev, &ino, &nlink, &blocks, &blksize, &maj, &min);
	json_object_set_new(s, "inode", json_integer((json_int_t)ino));
	json_object_set_new(s, "dev", json_integer((json_int_t)dev));
	json_object_set_new(s, "nlink", json_integer((json_int_t)nlink));
	json_object_set_new(s, "blocks", json_integer((json_int_t)blocks));
	json_object_set_new(s, "block_size", json_integer((json_int_t)blksize));
	/* st_rdev as Linux's makedev encodes it (what Python reports) */
	unsigned long long rdev = ((unsigned long long)(maj & 0xfffff000u) << 32) |
				  ((unsigned long long)(maj & 0xfffu) << 8) |
				  ((unsigned long long)(min & 0xffffff00u) << 12) | (min & 0xffu);
	json_object_set_new(s, "device_type", json_integer((json_int_t)rdev));
	int next = 1;
	if (mime) {
		/* Ansible: the text after the last ':' split at ';' into the
		 * type and charset=VALUE */
		const char *l = line[next++];
		const char *colon = l ? strrchr(l, ':') : NULL;
		const char *semi = colon ? strchr(colon, ';') : NULL;
		const char *eq = semi ? strchr(semi, '=') : NULL;
		json_t *mt = json_string("unknown"), *cs = json_string("unknown");
		if (eq && !strchr(semi + 1, ';')) {
			json_decref(mt);
			json_decref(cs);
			mt = trimmed(colon + 1, semi);
			cs = trimmed(eq + 1, eq + strlen(eq));
		}
		json_object_set_new(s, "mimetype", mt);
		json_object_set_new(s, "charset", cs);
	}
	if (attrs) {
		const char *l = line[next];
		char ver[64] = "", flags[64] = "";
		json_t *names = json_array();
		if (l && sscanf(l, "%63s %63s", ver, flags) == 2) {
			size_t k = 0;
			for (size_t i = 0; flags[i]; i++)
				if (flags[i] != '-')
					flags[k++] = flags[i];
			flags[k] = '\0';
			for (size_t i = 0; flags[i]; i++)
				for (size_t j = 0; j < sizeof(attr_names) / sizeof(attr_names[0]); j++)
					if (attr_names[j].c == flags[i])
						json_array_append_new(names, json_string(attr_names[j].name));
			json_object_set_new(s, "version", json_string(ver));
		} else {
			flags[0] = '\0';
			json_object_set_new(s, "version", json_null());
		}
		json_object_set_new(s, "attributes", names);
		json_object_set_new(s, "attr_flags", json_string(flags));
	}
	free(out);
	return 0;
}

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

/* stat_run's result from the path's stat st and the extras' output xcr */
static json_t *stat_module_result(struct exec_ctx *x, const char *path, const struct node_stat *st0,
				  json_t *args, const char *algo, bool chk, bool mime, bool attrs,
				  const struct conn_result *xcr)
{
	struct node_stat st = *st0;
	json_t *res = NULL;
	bool md5 = args_bool(json_object_get(args, "get_md5"), false);
	char sum[132] = "", real[512] = "", md5sum[40] = "";
	if (st.exists && st.isreg && md5 &&
	    stat_query(x, path, "md5sum < \"$p\"", md5sum, sizeof(md5sum), &res) < 0)
		return res;
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
		snprintf(mb, sizeof(mb), "%04lo", m & 07777);
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
		if (st.isreg && md5)
			json_object_set_new(s, "md5", json_string(md5sum));
		if (stat_extras(xcr, path, mime, attrs, s, &res) < 0) {
			json_decref(s);
			return res;
		}
	}
	res = res_new(false);
	json_object_set_new(res, "stat", s);
	return res;
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
	static const char *const mime_keys[] = { "get_mime", "mime", "mime_type", "mime-type", NULL };
	static const char *const attr_keys[] = { "get_attributes", "attr", "attributes", NULL };
	bool mime = bool_alias(args, mime_keys, true), attrs = bool_alias(args, attr_keys, true);
	/* the extras are printed in the stat's round trip, and read (their
	 * failure reported) where Ansible's module takes them: after the
	 * other queries below */
	struct strbuf ex = STRBUF_INIT;
	extras_script(&ex, follow, mime, attrs);
	struct conn_result xcr;
	conn_result_init(&xcr);
	int src = mod_stat_and(x, path, follow, chk, ex.buf, &st, &xcr, &res);
	strbuf_release(&ex);
	if (src < 0) {
		conn_result_release(&xcr);
		return res;
	}
	res = stat_module_result(x, path, &st, args, algo, chk, mime, attrs, &xcr);
	conn_result_release(&xcr);
	return res;
}

static const char *const stat_node_paths[] = { "path", "dest", "name", NULL };

const struct task_module mod_stat_module = {
	.name = "stat", .params = stat_known, .run = stat_run, .same_in_check_mode = true,
	.node_paths = stat_node_paths,
};
