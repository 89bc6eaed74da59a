/* get_url.c: the `get_url` module as Ansible 2.14's, working on the node
 * with curl: an existing dest with a matching checksum is left alone
 * ("file already exists", attributes applied); else the URL is fetched
 * (If-Modified-Since from an existing dest unless force, so a 304 is an
 * unchanged result; redirects followed; HEAD in check mode) into a
 * temporary directory, dest a directory takes the Content-Disposition
 * filename or the URL's basename, and dest is replaced (backup first)
 * only when the sha1 of what came differs from dest's; the checksum is
 * verified afterwards (a mismatch removes dest and fails), then
 * mode/owner/group. The result holds what Ansible's does: url, dest,
 * src, checksum_src, checksum_dest, md5sum, msg ("OK (N bytes)"),
 * status_code, elapsed, backup_file and dest's path information.
 * Check mode is native, as Ansible's: a HEAD request (a file:// URL is
 * read as it is), changed when dest is missing or its sha1 differs from
 * what came, nothing written. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* the value of "KEY=" in the script's output (malloc'd), or NULL */
static char *marker(const char *out, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = out; *l; ) {
		size_t n = strcspn(l, "\n");
		if (n > kl && !strncmp(l, key, kl) && l[kl] == '=')
			return xstrndup(l + kl + 1, n - kl - 1);
		l += n;
		if (*l)
			l++;
	}
	return NULL;
}

/* Runs cmd on the node for its output alone, stripped (malloc'd); NULL
 * when the node is unreachable (*res set). */
static char *node_output(struct exec_ctx *x, const char *cmd, json_t **res)
{
	struct conn_result cr;
	conn_result_init(&cr);
	char *o = NULL;
	if (mod_sh(x, cmd, NULL, 0, &cr, res) == 0)
		o = mod_strip(cr.out.buf ? cr.out.buf : "", cr.out.len);
	conn_result_release(&cr);
	return o;
}

/* "CMD < 'path' | cut -d' ' -f1": the digest of a node file */
static char *node_digest(struct exec_ctx *x, const char *prog, const char *path, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addf(&c, "%s < ", prog);
	sh_quote(&c, path);
	strbuf_addstr(&c, " | cut -d' ' -f1");
	char *o = node_output(x, c.buf, res);
	strbuf_release(&c);
	return o;
}

/* The path urllib opens for a file: URL (url2pathname of what follows
 * the host: %XX decoded), malloc'd */
static char *file_url_path(const char *url)
{
	const char *p = url + 5;
	if (!strncmp(p, "//", 2)) {
		p = strchr(p + 2, '/');
		if (!p)
			p = "";
	}
	struct strbuf sb = STRBUF_INIT;
	for (; *p && *p != '?' && *p != '#'; p++) {
		if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			char hex[3] = { p[1], p[2], 0 };
			strbuf_addch(&sb, (char)strtol(hex, NULL, 16));
			p += 2;
		} else {
			strbuf_addch(&sb, *p);
		}
	}
	return strbuf_detach(&sb);
}

static json_t *get_url_run(struct exec_ctx *x, json_t *args)
{
	const char *url = args_str(args, "url");
	const char *dest = args_str(args, "dest");
	if (!url || !dest)
		return res_fail("missing required arguments: %s", !url && !dest ? "url, dest" : !url ? "url" : "dest");
	json_t *res;
	json_t *r = NULL;
	bool force, validate, backup;
	if ((res = mod_bool_arg(args, "force", false, &force)) ||
	    (res = mod_bool_arg(args, "validate_certs", true, &validate)) ||
	    (res = mod_bool_arg(args, "backup", false, &backup)))
		return res;
	const char *const paths[] = { "dest", "tmp_dest", NULL };
	if ((res = mod_unexpanded("get_url", args, paths)))
		return res;
	json_t *tv = json_object_get(args, "timeout");
	long timeout = tv ? (json_is_integer(tv) ? (long)json_integer_value(tv)
			     : strtol(json_string_value(tv) ? json_string_value(tv) : "10", NULL, 10)) : 10;
	const char *user = args_str(args, "url_username");
	if (!user)
		user = args_str(args, "username");
	const char *pass = args_str(args, "url_password");
	if (!pass)
		pass = args_str(args, "password");
	if (pass)
		secret_register(pass);
	const char *tmp_dest = args_str(args, "tmp_dest");
	/* checksum ALGORITHM:HEX, the hex with non-word characters removed
	 * and lowercased as Ansible's */
	const char *checksum = args_str(args, "checksum");
	char algo[16] = "", sum[160] = "";
	if (checksum && *checksum) {
		const char *colon = strchr(checksum, ':');
		if (!colon) {
			res = res_fail("The checksum parameter has to be in format <algorithm>:<checksum>");
			goto fail_result;
		}
		if (strstr(colon + 1, "://"))
			return res_fail("get_url: unsupported: a checksum given as a URL");
		if (colon - checksum >= (long)sizeof(algo) || strlen(colon + 1) >= sizeof(sum))
			return res_fail("The checksum format is invalid");
		snprintf(algo, sizeof(algo), "%.*s", (int)(colon - checksum), checksum);
		size_t k = 0;
		for (const char *p = colon + 1; *p; p++)
			if (isalnum((unsigned char)*p) || *p == '_')
				sum[k++] = (char)tolower((unsigned char)*p);
		sum[k] = 0;
		if (!k || strspn(sum, "0123456789abcdef") != k) {
			res = res_fail("The checksum format is invalid");
			goto fail_result;
		}
		static const char *const algos[] = { "md5", "sha1", "sha224", "sha256", "sha384", "sha512", NULL };
		bool known = false;
		for (int i = 0; algos[i]; i++)
			known = known || !strcmp(algo, algos[i]);
		if (!known)
			return res_fail("get_url: unsupported: checksum algorithm '%s'", algo);
	}
	bool is_file = !strncmp(url, "file:", 5);
	bool is_http = !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "u=");
	sh_quote(&c, url);
	strbuf_addstr(&c, "; d=");
	sh_quote(&c, dest);
	strbuf_addf(&c, "; F=%d; S='%s'; ", force, sum);
	strbuf_addstr(&c, "if [ -d \"$d\" ]; then DD=1; else DD=0; fi; Z=0; "
			  "if [ $DD = 0 ] && [ -e \"$d\" ]; then ");
	if (*sum)
		strbuf_addf(&c, "if [ $F = 0 ]; then [ \"$(%ssum < \"$d\" | cut -d' ' -f1)\" = \"$S\" ] && { echo EXISTS=1; exit 0; }; F=1; fi; ",
			    algo);
	strbuf_addstr(&c, "Z=1; fi; T=$(mktemp -d ");
	if (tmp_dest) {
		strbuf_addstr(&c, "\"$(printf %s ");
		sh_quote(&c, tmp_dest);
		strbuf_addstr(&c, ")/.imc_gu.XXXXXX\"");
	} else
		strbuf_addstr(&c, "/tmp/.imc_gu.XXXXXX");
	strbuf_addstr(&c, ") || exit 1; echo \"T=$T\"; : > \"$T/h\"; ");
	strbuf_addf(&c, "set -- curl -sS -L --max-time %ld%s -D \"$T/h\" -o \"$T/b\" -w '%%{http_code} %%{url_effective}'",
		    timeout, validate ? "" : " -k");
	if (is_http) {
		strbuf_addstr(&c, "; [ $Z = 1 ] && [ $F = 0 ] && set -- \"$@\" -z \"$d\"");
		if (x->check_mode)
			strbuf_addstr(&c, "; set -- \"$@\" -I");
	}
	if (user) {
		struct strbuf up = STRBUF_INIT;
		strbuf_addf(&up, "%s:%s", user, pass ? pass : "");
		strbuf_addstr(&c, "; set -- \"$@\" -u ");
		sh_quote(&c, up.buf);
		strbuf_release(&up);
	}
	json_t *headers = json_object_get(args, "headers");
	if (json_is_object(headers)) {
		const char *k;
		json_t *v;
		json_object_foreach(headers, k, v) {
			struct strbuf h = STRBUF_INIT;
			strbuf_addf(&h, "%s: ", k);
			if (json_is_string(v))
				strbuf_addstr(&h, json_string_value(v));
			else
				args_pystr(&h, v);
			strbuf_addstr(&c, "; set -- \"$@\" -H ");
			sh_quote(&c, h.buf);
			strbuf_release(&h);
		}
	}
	/* urllib opens a file:// URL's path itself: a path it cannot open
	 * fails with the OSError's number (stat, then open) */
	char *local = is_file ? file_url_path(url) : NULL;
	if (local) {
		strbuf_addstr(&c, "; lp=");
		sh_quote(&c, local);
		strbuf_addstr(&c, "; if [ ! -e \"$lp\" ]; then echo FE=2; exit 0; elif [ -d \"$lp\" ]; then echo FE=21; exit 0; "
				  "elif [ ! -r \"$lp\" ]; then echo FE=13; exit 0; fi");
	}
	/* a HEAD's headers land in the body file: what Python reads of a
	 * HEAD is empty */
	strbuf_addf(&c, "; r=$(\"$@\" \"$u\" 2>\"$T/e\"); rc=$?; %s"
			"echo \"R=$rc\"; echo \"C=${r%%%% *}\"; eff=${r#* }; "
			"[ $rc = 0 ] || { echo \"E=$(head -c 2000 \"$T/e\" | tr '\\n' ' ')\"; exit 0; }; ",
		    x->check_mode && is_http ? ": > \"$T/b\"; " : "");
	strbuf_addstr(&c, "st=$(grep -i '^HTTP/' \"$T/h\" | tail -n 1 | tr -d '\\r'); echo \"ST=$st\"; "
			  "cl=$(grep -i '^content-length:' \"$T/h\" | tail -n 1 | tr -d '\\r' | sed 's/^[^:]*: *//'); echo \"CL=$cl\"; "
			  "echo \"SZ=$(wc -c < \"$T/b\")\"; "
			  "if [ $DD = 1 ]; then fn=$(grep -i '^content-disposition:' \"$T/h\" | tail -n 1 | tr -d '\\r' | "
			  "sed -n 's/^[^:]*: *attachment; \\{0,1\\}filename=\"\\{0,1\\}\\([^\"]*\\).*/\\1/p'); fn=${fn##*/}; "
			  "if [ -z \"$fn\" ]; then p=${eff%%\\?*}; p=${p%%#*}; p=${p#*://}; case \"$p\" in */*) p=/${p#*/};; *) p='';; esac; "
			  "fn=${p##*/}; [ -n \"$fn\" ] || fn=index.html; fi; d=\"${d%/}/$fn\"; fi; echo \"DEST=$d\"; "
			  "echo \"CS=$(sha1sum < \"$T/b\" | cut -d' ' -f1)\"; "
			  "if [ -e \"$d\" ]; then [ -w \"$d\" ] || { echo \"E2=Destination $d is not writable\"; exit 0; }; "
			  "[ -r \"$d\" ] || { echo \"E2=Destination $d is not readable\"; exit 0; }; "
			  "echo \"CD=$(sha1sum < \"$d\" | cut -d' ' -f1)\"; "
			  "else p=$(dirname \"$d\"); [ -e \"$p\" ] || { echo \"E2=Destination $p does not exist\"; exit 0; }; "
			  "[ -w \"$p\" ] || { echo \"E2=Destination $p is not writable\"; exit 0; }; fi; exit 0");
	struct conn_result cr;
	conn_result_init(&cr);
	char *tmp = NULL, *rdest = NULL, *cs = NULL, *cd = NULL, *st = NULL, *cl = NULL, *e = NULL;
	char *code = NULL, *sz = NULL, *e2 = NULL, *rc = NULL, *exists = NULL, *msg = NULL;
	char *backup_file = NULL, *fe = NULL;
	res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
		goto out;
	if (cr.rc != 0) {
		res = res_fail("%s", cr.err.len ? strbuf_str(&cr.err) : "get_url failed");
		goto out;
	}
	const char *o = strbuf_str(&cr.out);
	exists = marker(o, "EXISTS");
	tmp = marker(o, "T");
	rc = marker(o, "R");
	code = marker(o, "C");
	e = marker(o, "E");
	e2 = marker(o, "E2");
	st = marker(o, "ST");
	cl = marker(o, "CL");
	sz = marker(o, "SZ");
	rdest = marker(o, "DEST");
	cs = marker(o, "CS");
	cd = marker(o, "CD");
	r = json_pack("{s:b,s:n,s:n,s:s,s:i,s:s}", "changed", false, "checksum_dest", "checksum_src", "dest", dest,
		      "elapsed", 0, "url", url);
	if (exists) {
		/* a checksum given and matched: attributes only */
		bool changed = false;
		if (mod_attrs(x, dest, args, &changed, &res) < 0)
			goto out;
		json_object_set_new(r, "changed", json_boolean(changed));
		json_object_set_new(r, "msg", json_string(changed ? "file already exists but file attributes changed"
							  : "file already exists"));
		res = r;
		r = NULL;
		goto path_info;
	}
	long status = code ? strtol(code, NULL, 10) : 0;
	/* the reason phrase of the final status line, as Python's HTTPError
	 * words it */
	const char *reason = st ? strchr(st, ' ') : NULL;
	reason = reason ? strchr(reason + 1, ' ') : NULL;
	if (status == 304) {
		res = json_pack("{s:s,s:s,s:b,s:s,s:i,s:i}", "url", url, "dest", dest, "changed", false,
				"msg", "HTTP Error 304: Not Modified", "status_code", 304, "elapsed", 0);
		goto path_info;
	}
	fe = marker(o, "FE");
	if (fe) {
		static const char *const why[][2] = { { "2", "No such file or directory" },
						      { "21", "Is a directory" }, { "13", "Permission denied" } };
		const char *w = "";
		for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++)
			if (!strcmp(fe, why[k][0]))
				w = why[k][1];
		free(e);
		e = xasprintf("<urlopen error [Errno %s] %s: '%s'>", fe, w, local);
	}
	if (e || !rc || strcmp(rc, "0")) {
		/* fetch_url's status -1: the message, url, dest and elapsed,
		 * with dest's information as fail_json adds it */
		res = res_fail("Request failed: %s", e && *e ? e : "download error");
		json_object_set_new(res, "url", json_string(url));
		json_object_set_new(res, "dest", json_string(dest));
		json_object_set_new(res, "elapsed", json_integer(0));
		goto path_info;
	}
	if (!is_file && status != 200) {
		res = res_fail("Request failed");
		json_object_set_new(res, "status_code", json_integer(status));
		json_object_set_new(res, "response", json_sprintf("HTTP Error %ld: %s", status, reason ? reason + 1 : ""));
		json_object_set_new(res, "url", json_string(url));
		json_object_set_new(res, "dest", json_string(dest));
		json_object_set_new(res, "elapsed", json_integer(0));
		goto out;
	}
	msg = is_file ? xasprintf("OK (%s bytes)", sz ? sz : "0")
		      : xasprintf("OK (%s bytes)", cl && *cl ? cl : "unknown");
	json_object_set_new(r, "dest", json_string(rdest));
	json_object_set_new(r, "src", json_sprintf("%s/b", tmp));
	json_object_set_new(r, "checksum_src", json_string(cs));
	if (cd)
		json_object_set_new(r, "checksum_dest", json_string(cd));
	if (e2) {
		res = json_incref(r);
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "msg", json_string(e2));
		goto path_info;
	}
	bool changed = !cd || strcmp(cs, cd);
	if (x->check_mode) {
		json_object_set_new(r, "changed", json_boolean(changed));
		json_object_set_new(r, "msg", json_string(msg));
		res = r;
		r = NULL;
		goto path_info;
	}
	if (changed) {
		if (backup && cd && mod_backup(x, rdest, &backup_file, &res) < 0)
			goto out;
		/* Ansible's atomic_move: an existing dest's mode and owner
		 * kept, a new one 0666 less the umask */
		strbuf_reset(&c);
		strbuf_addstr(&c, "t=");
		sh_quote(&c, tmp);
		strbuf_addstr(&c, "/b; d=");
		sh_quote(&c, rdest);
		strbuf_addstr(&c, "; if [ -e \"$d\" ]; then chmod --reference=\"$d\" \"$t\" && chown --reference=\"$d\" \"$t\"; "
				  "else chmod \"$(printf %o $((0666 & ~0$(umask))))\" \"$t\"; fi && mv -f \"$t\" \"$d\" && echo moved");
		char *moved = node_output(x, c.buf, &res);
		bool ok = moved && !strcmp(moved, "moved");
		free(moved);
		if (!ok) {
			if (!res)
				res = res_fail("failed to copy %s/b to %s", tmp, rdest);
			goto out;
		}
	}
	json_object_set_new(r, "changed", json_boolean(changed));
	if (*sum) {
		char *prog = xasprintf("%ssum", algo);
		char *got = node_digest(x, prog, rdest, &res);
		free(prog);
		if (!got)
			goto out;
		if (strcmp(got, sum)) {
			strbuf_reset(&c);
			strbuf_addstr(&c, "rm -f ");
			sh_quote(&c, rdest);
			json_t *ig = NULL;
			free(node_output(x, c.buf, &ig));
			json_decref(ig);
			/* with the result so far: changed, as dest was written */
			res = json_incref(r);
			json_object_set_new(res, "failed", json_true());
			json_object_set_new(res, "msg", json_sprintf("The checksum for %s did not match %s; it was %s.",
								     rdest, sum, got));
			free(got);
			goto out;
		}
		free(got);
	}
	if (mod_attrs(x, rdest, args, &changed, &res) < 0)
		goto out;
	json_object_set_new(r, "changed", json_boolean(changed));
	char *m5 = node_digest(x, "md5sum", rdest, &res);
	if (!m5)
		goto out;
	json_object_set_new(r, "md5sum", json_string(m5));
	free(m5);
	if (backup_file && *backup_file)
		json_object_set_new(r, "backup_file", json_string(backup_file));
	json_object_set_new(r, "msg", json_string(msg));
	/* Python's urllib gives a file:// response no status */
	json_object_set_new(r, "status_code", is_file ? json_null() : json_integer(status));
	res = r;
	r = NULL;
path_info:
	/* unreachable now: the result stays without dest's information */
	mod_path_info(x, res);
out:
	json_decref(r);
	if (tmp) {
		strbuf_reset(&c);
		strbuf_addstr(&c, "rm -rf ");
		sh_quote(&c, tmp);
		json_t *ig = NULL;
		free(node_output(x, c.buf, &ig));
		json_decref(ig);
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	free(tmp);
	free(rdest);
	free(cs);
	free(cd);
	free(st);
	free(cl);
	free(e);
	free(e2);
	free(code);
	free(sz);
	free(rc);
	free(exists);
	free(msg);
	free(backup_file);
	free(fe);
	free(local);
	return res;
fail_result:
	/* Ansible's failures before any request carry the result so far */
	r = json_pack("{s:n,s:n,s:s,s:i,s:s}", "checksum_dest", "checksum_src", "dest", dest, "elapsed", 0,
		      "url", url);
	json_object_update_missing(res, r);
	json_decref(r);
	mod_path_info(x, res);
	return res;
}

/* what run implements (module.h) */
static const char *const get_url_params[] = {
	"backup", "checksum", "dest", "force", "group", "headers", "mode", "owner", "password", "timeout",
	"tmp_dest", "unsafe_writes", "url", "url_password", "url_username", "username", "validate_certs", NULL
};

static const char *const get_url_node_paths[] = { "dest", "tmp_dest", "client_cert", "client_key", NULL };

const struct task_module mod_get_url = {
	.name = "get_url",
	.params = get_url_params,
	.check_mode_native = true,
	.run = get_url_run,
	.node_paths = get_url_node_paths,
};
