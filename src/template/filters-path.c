/* filters-path.c: Ansible's filters over controller paths, Windows paths and
 * URLs: basename, dirname, splitext, expanduser, realpath, path_join,
 * expandvars, relpath and fileglob (Python's os.path and glob on the
 * machine running imc, which is Ansible's controller), win_basename,
 * win_dirname and win_splitdrive (Python's ntpath), urlsplit, and the URL
 * parser that the uri/url/urn tests (tests.c) share with it. vault
 * and unvault are here only to fail clearly: the engine holds no vault
 * secrets. Each follows ansible-core 2.14 on Debian 12 (Python 3.11); the
 * cases in tests/unit/test-template-cases.json were checked against its
 * Templar, including which inputs are errors. */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "template/engine.h"
#include "util/pypath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/vault.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

/* The argument of a Python function that calls os.fspath(): only a string
 * will do (Python raises TypeError for anything else). */
static const char *need_path(struct ev *ev, const json_t *v, const char *fn, size_t pos)
{
	if (json_is_string(v))
		return json_string_value(v);
	ev_error(ev, TMPL_ERR_TYPE, pos, "%s: expected str, bytes or os.PathLike object, not %s", fn,
		 val_typename(v));
	return NULL;
}

/* ---- expandvars ---------------------------------------------------------- */

/* posixpath.expandvars: $name (ASCII word characters) and ${name} are
 * replaced by the environment's value; unknown names stay as written. */
FILTER_FN(expandvars)
{
	(void)args; (void)kw;
	const char *s = need_path(ev, in, "expandvars", pos);
	if (!s)
		return NULL;
	char *x = pypath_expandvars_local(s);
	json_t *r = json_stringn_nocheck(x, strlen(x));
	free(x);
	return r;
}

/* ---- relpath ------------------------------------------------------------- */

/* The components of os.path.abspath(path): relative paths are taken from
 * the working directory; "." and empty parts vanish, ".." drops one. */
static json_t *abs_parts(const char *path)
{
	json_t *parts = json_array();
	char *cwd = NULL;
	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			cwd = xstrdup("/");
	}
	char *full = cwd ? xasprintf("%s/%s", cwd, path) : xstrdup(path);
	for (char *p = full; *p;) {
		char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 2 && !strncmp(p, "..", 2)) {
			if (json_array_size(parts))
				json_array_remove(parts, json_array_size(parts) - 1);
		} else if (n && !(n == 1 && *p == '.')) {
			json_array_append_new(parts, json_stringn_nocheck(p, n));
		}
		p += n;
		if (*p)
			p++;
	}
	free(full);
	free(cwd);
	return parts;
}

/* path | relpath(start='.'): posixpath.relpath. */
FILTER_FN(relpath)
{
	const char *path = need_path(ev, in, "relpath", pos);
	if (!path)
		return NULL;
	json_t *startj = ARG(0, "start");
	const char *start = ".";
	if (startj && !json_is_null(startj) && !(start = need_path(ev, startj, "relpath", pos)))
		return NULL;
	if (!*path) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "no path specified");
		return NULL;
	}
	json_t *sp = abs_parts(start), *pp = abs_parts(path);
	size_t i = 0;
	while (i < json_array_size(sp) && i < json_array_size(pp) &&
	       val_equal(json_array_get(sp, i), json_array_get(pp, i)))
		i++;
	struct strbuf sb = STRBUF_INIT;
	for (size_t k = i; k < json_array_size(sp); k++)
		strbuf_addstr(&sb, sb.len ? "/.." : "..");
	for (size_t k = i; k < json_array_size(pp); k++) {
		if (sb.len)
			strbuf_addch(&sb, '/');
		strbuf_add(&sb, json_string_value(json_array_get(pp, k)), json_string_length(json_array_get(pp, k)));
	}
	if (!sb.len)
		strbuf_addch(&sb, '.');
	json_decref(sp);
	json_decref(pp);
	return val_str_take(&sb);
}

/* ---- fileglob ------------------------------------------------------------ */

/* pattern | fileglob: the regular files that Python's glob.glob finds on
 * the controller. Python's glob has no backslash escapes, braces or tilde,
 * hides dot files from wildcards and lists directories in their own order,
 * as glob(3) does with these flags. */
FILTER_FN(fileglob)
{
	(void)args; (void)kw;
	const char *pat = need_path(ev, in, "fileglob", pos);
	if (!pat)
		return NULL;
	json_t *r = json_array();
	glob_t g;
	if (*pat && glob(pat, GLOB_NOESCAPE | GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct stat st;
			if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
				json_array_append_new(r, json_stringn_nocheck(g.gl_pathv[i], strlen(g.gl_pathv[i])));
		}
		globfree(&g);
	}
	return r;
}

/* ---- Windows paths (ntpath) ---------------------------------------------- */

/* The length of ntpath.splitdrive(p)[0]: "X:" (the colon is the second
 * character, which may follow a multibyte one), or a UNC "\\server\share"
 * (either slash), or the whole text when the share is incomplete. */
static size_t nt_drive_len(const char *p, size_t n)
{
#define NTSEP(c) ((c) == '\\' || (c) == '/')
	if (n < 2)
		return 0;
	if (NTSEP(p[0]) && NTSEP(p[1])) {
		size_t start = 2;
		if (n >= 8 && p[2] == '?' && NTSEP(p[3]) && toupper((unsigned char)p[4]) == 'U' &&
		    toupper((unsigned char)p[5]) == 'N' && toupper((unsigned char)p[6]) == 'C' && NTSEP(p[7]))
			start = 8;
		size_t i = start;
		while (i < n && !NTSEP(p[i]))
			i++;
		if (i >= n)
			return n;
		i++;
		while (i < n && !NTSEP(p[i]))
			i++;
		return i;
	}
	size_t first = 1;
	while (first < n && ((unsigned char)p[first] & 0xc0) == 0x80)
		first++;
	return first < n && p[first] == ':' ? first + 1 : 0;
}

/* ntpath.split: (drive + head without its trailing separators unless it is
 * all separators, tail). */
static void nt_split(const char *p, size_t n, size_t *headlen, size_t *tailstart)
{
	size_t d = nt_drive_len(p, n);
	size_t i = n;
	while (i > d && !NTSEP(p[i - 1]))
		i--;
	size_t h = i;
	while (h > d && NTSEP(p[h - 1]))
		h--;
	*headlen = h > d ? h : i;
	*tailstart = i;
#undef NTSEP
}

FILTER_FN(win_basename)
{
	(void)args; (void)kw;
	const char *p = need_path(ev, in, "win_basename", pos);
	if (!p)
		return NULL;
	size_t h, t;
	nt_split(p, json_string_length(in), &h, &t);
	return json_stringn_nocheck(p + t, json_string_length(in) - t);
}

FILTER_FN(win_dirname)
{
	(void)args; (void)kw;
	const char *p = need_path(ev, in, "win_dirname", pos);
	if (!p)
		return NULL;
	size_t h, t;
	nt_split(p, json_string_length(in), &h, &t);
	return json_stringn_nocheck(p, h);
}

FILTER_FN(win_splitdrive)
{
	(void)args; (void)kw;
	const char *p = need_path(ev, in, "win_splitdrive", pos);
	if (!p)
		return NULL;
	size_t n = json_string_length(in), d = nt_drive_len(p, n);
	json_t *r = json_array();
	json_array_append_new(r, json_stringn_nocheck(p, d));
	json_array_append_new(r, json_stringn_nocheck(p + d, n - d));
	return r;
}

/* ---- URLs ---------------------------------------------------------------- */

void url_parts_release(struct url_parts *u)
{
	free(u->scheme);
	free(u->netloc);
	free(u->path);
	free(u->query);
	free(u->fragment);
	memset(u, 0, sizeof(*u));
}

/* Python's ipaddress.ip_address for the text inside brackets: an IPv6
 * address, with an optional non-empty %zone. */
static bool ipv6_ok(const char *h, size_t n)
{
	char *s = xstrndup(h, n), *pct = strchr(s, '%');
	bool ok = true;
	if (pct) {
		ok = pct[1] && !strchr(pct + 1, '%');
		*pct = 0;
	}
	unsigned char buf[16];
	ok = ok && inet_pton(AF_INET6, s, buf) == 1;
	free(s);
	return ok;
}

/* urllib.parse's checks of a netloc holding brackets (anywhere): nothing
 * before '[', only ":port" after ']', and the host (bracketed or not) an
 * IPv6 address or the "vX.Y" future form; an IPv4 address or a name fails
 * as Python's ipaddress does. */
static bool bracketed_netloc_ok(const char *netloc)
{
	const char *at = strrchr(netloc, '@');
	const char *hp = at ? at + 1 : netloc, *h;
	const char *ob = strchr(hp, '[');
	size_t hl;
	if (ob) {
		if (ob != hp)
			return false;
		const char *cb = strchr(ob + 1, ']');
		h = ob + 1;
		hl = cb ? (size_t)(cb - h) : strlen(h);
		if (cb && cb[1] && cb[1] != ':')
			return false;
	} else {
		h = hp;
		hl = strcspn(hp, ":");
	}
	if (hl && h[0] == 'v') {
		size_t k = 1;
		while (k < hl && isxdigit((unsigned char)h[k]))
			k++;
		return k > 1 && k + 1 < hl && h[k] == '.';
	}
	return ipv6_ok(h, hl);
}

/* Python 3.11's urllib.parse.urlsplit: leading C0 controls and spaces
 * dropped, tabs and newlines removed, a scheme of [A-Za-z0-9+-.] starting
 * with a letter, "//netloc", "#fragment", "?query". Returns 0, or -1 with
 * Python's ValueError text in *err. */
int url_split(const char *s, size_t n, struct url_parts *u, const char **err)
{
	memset(u, 0, sizeof(*u));
	while (n && (unsigned char)*s <= ' ') {
		s++;
		n--;
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			strbuf_addch(&sb, s[i]);
	char *url = strbuf_detach(&sb);
	const char *p = url;
	const char *colon = strchr(p, ':');
	if (colon && colon > p && isalpha((unsigned char)p[0])) {
		const char *c = p;
		while (c < colon && (isalnum((unsigned char)*c) || strchr("+-.", *c)))
			c++;
		if (c == colon) {
			u->scheme = xstrndup(p, (size_t)(colon - p));
			for (char *q = u->scheme; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			p = colon + 1;
		}
	}
	if (p[0] == '/' && p[1] == '/') {
		size_t k = strcspn(p + 2, "/?#");
		u->netloc = xstrndup(p + 2, k);
		p += 2 + k;
		bool ob = strchr(u->netloc, '['), cb = strchr(u->netloc, ']');
		if (ob != cb || (ob && !bracketed_netloc_ok(u->netloc))) {
			*err = "Invalid IPv6 URL";
			free(url);
			url_parts_release(u);
			return -1;
		}
	}
	const char *hash = strchr(p, '#');
	u->fragment = xstrdup(hash ? hash + 1 : "");
	size_t rest = hash ? (size_t)(hash - p) : strlen(p);
	const char *q = memchr(p, '?', rest);
	u->query = q ? xstrndup(q + 1, rest - (size_t)(q - p) - 1) : xstrdup("");
	u->path = xstrndup(p, q ? (size_t)(q - p) : rest);
	if (!u->scheme)
		u->scheme = xstrdup("");
	if (!u->netloc)
		u->netloc = xstrdup("");
	free(url);
	return 0;
}

/* The username, password, hostname and port properties of a SplitResult;
 * the port is checked as Python does when it is read (an error). */
static int url_netloc_dict(struct ev *ev, const char *netloc, json_t *d, size_t pos)
{
	const char *at = strrchr(netloc, '@');
	json_t *user = json_null(), *pass = json_null(), *host = json_null(), *port = json_null();
	if (at) {
		const char *c = memchr(netloc, ':', (size_t)(at - netloc));
		user = json_stringn_nocheck(netloc, (size_t)((c ? c : at) - netloc));
		if (c)
			pass = json_stringn_nocheck(c + 1, (size_t)(at - c - 1));
	}
	const char *hi = at ? at + 1 : netloc, *hend, *ptxt;
	const char *ob = strchr(hi, '[');
	if (ob) {
		const char *cb = strchr(ob + 1, ']');
		hi = ob + 1;
		hend = cb ? cb : hi + strlen(hi);
		const char *c = cb ? strchr(cb, ':') : NULL;
		ptxt = c ? c + 1 : "";
	} else {
		const char *c = strchr(hi, ':');
		hend = c ? c : hi + strlen(hi);
		ptxt = c ? c + 1 : "";
	}
	if (hend > hi) {
		char *h = xstrndup(hi, (size_t)(hend - hi));
		for (char *q = h; *q && *q != '%'; q++) /* a zone keeps its case */
			*q = (char)tolower((unsigned char)*q);
		host = json_stringn_nocheck(h, strlen(h));
		free(h);
	}
	int rc = 0;
	if (*ptxt) {
		if (strspn(ptxt, "0123456789") != strlen(ptxt)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "Port could not be cast to integer value as '%s'", ptxt);
			rc = -1;
		} else if (strlen(ptxt) > 5 || atol(ptxt) > 65535) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "Port out of range 0-65535");
			rc = -1;
		} else {
			port = json_integer(atol(ptxt));
		}
	}
	/* in the order of Python's dir(), as Ansible's object_to_dict lists them */
	json_object_set_new(d, "hostname", host);
	json_object_set_new(d, "password", pass);
	json_object_set_new(d, "port", port);
	json_object_set_new(d, "username", user);
	return rc;
}

/* url | urlsplit(query=''): the URL's parts as a dict, or the one part named
 * by query. */
FILTER_FN(urlsplit)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "urlsplit: expected a string, got %s", val_typename(in));
		return NULL;
	}
	const char *query = "";
	if (arg_str(ev, args, kw, 0, "query", "", &query, pos) < 0)
		return NULL;
	struct url_parts u;
	const char *err;
	if (url_split(json_string_value(in), json_string_length(in), &u, &err) < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "urlsplit: %s", err);
		return NULL;
	}
	json_t *d = json_object(), *r = NULL;
	json_object_set_new(d, "fragment", json_string(u.fragment));
	if (url_netloc_dict(ev, u.netloc, d, pos) < 0)
		goto out;
	json_object_set_new(d, "netloc", json_string(u.netloc));
	json_object_set_new(d, "path", json_string(u.path));
	json_object_set_new(d, "query", json_string(u.query));
	json_object_set_new(d, "scheme", json_string(u.scheme));
	/* keep Python's dir() order: fragment, hostname, netloc, password, path,
	 * port, query, scheme, username */
	const char *order[] = { "fragment", "hostname", "netloc", "password", "path", "port", "query", "scheme", "username" };
	json_t *sorted = json_object();
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		json_object_set(sorted, order[i], json_object_get(d, order[i]));
	json_decref(d);
	d = sorted;
	if (!*query) {
		r = json_incref(d);
	} else if (!(r = json_object_get(d, query))) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "urlsplit: unknown URL component: %s", query);
	} else {
		json_incref(r);
	}
out:
	json_decref(d);
	url_parts_release(&u);
	return r;
}

/* ---- vault / unvault ----------------------------------------------------- */

/* Ansible's AnsibleFilterTypeError (a TypeError) for an argument that
 * must be text: "WHAT, instead we got: <class 'T'>" */
static bool vault_text_arg(struct ev *ev, const json_t *v, const char *what, size_t pos)
{
	if (!v || json_is_string(v))
		return true;
	ev_error(ev, TMPL_ERR_TYPE, pos, "%s, instead we got: <class '%s'>", what, val_typename(v));
	return false;
}

/* vault(data, secret, salt=None, vaultid='filter_default',
 * wrap_object=False): data encrypted with the secret given, as Ansible's
 * filter (a random salt unless one is given; its text is the salt). The
 * AnsibleVaultEncryptedUnicode object that wrap_object asks for is a
 * Python type imc's values cannot be, so that is refused. */
FILTER_FN(vault)
{
	json_t *secret = ARG(0, "secret"), *salt = ARG(1, "salt"), *vid = ARG(2, "vaultid");
	json_t *wrap = ARG(3, "wrap_object");
	if (!vault_text_arg(ev, secret, "Secret passed is required to be a string", pos) ||
	    !vault_text_arg(ev, in, "Can only vault strings", pos))
		return NULL;
	if (wrap && val_truthy(wrap)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "the vault filter's wrap_object (an AnsibleVaultEncryptedUnicode) "
			 "is not supported by imc");
		return NULL;
	}
	json_t *salt_text = salt && !json_is_null(salt) ? val_pystr(salt) : NULL;
	const char *sec = secret ? json_string_value(secret) : "";
	const char *data = in ? json_string_value(in) : "";
	char *err = NULL;
	char *v = vault_encrypt(data, in ? json_string_length(in) : 0, sec, secret ? json_string_length(secret) : 0,
				salt_text ? json_string_value(salt_text) : NULL,
				salt_text ? json_string_length(salt_text) : 0,
				vid && json_is_string(vid) ? json_string_value(vid) : "filter_default", &err);
	json_decref(salt_text);
	if (!v) {
		ev_error(ev, TMPL_ERR_FILTER, pos, "Unable to encrypt: %s. %s", err, err);
		free(err);
		return NULL;
	}
	json_t *r = json_string(v);
	free(v);
	return r;
}

/* unvault(vault, secret, vaultid='filter_default'): the text decrypted with
 * that one secret; text that is not vault-encrypted comes back as it is. */
FILTER_FN(unvault)
{
	json_t *secret = ARG(0, "secret"), *vid = ARG(1, "vaultid");
	if (!vault_text_arg(ev, secret, "Secret passed is required to be as string", pos) ||
	    !vault_text_arg(ev, in, "Vault should be in the form of a string", pos))
		return NULL;
	const char *data = in ? json_string_value(in) : "";
	size_t n = in ? json_string_length(in) : 0;
	if (!vault_is_encrypted(data, n))
		return json_string(data);
	char *plain = NULL, *err = NULL;
	size_t np = 0;
	if (vault_decrypt_secret(data, n, vid && json_is_string(vid) ? json_string_value(vid) : "filter_default",
				 secret ? json_string_value(secret) : "", secret ? json_string_length(secret) : 0,
				 &plain, &np, &err) < 0) {
		ev_error(ev, TMPL_ERR_FILTER, pos, "Unable to decrypt: %s. %s", err, err);
		free(err);
		return NULL;
	}
	json_t *r = json_stringn(plain, np);
	vault_free_plain(plain, np);
	if (!r)
		ev_error(ev, TMPL_ERR_FILTER, pos, "Unable to decrypt: the decrypted text is not UTF-8");
	return r;
}

/* ---- POSIX paths (os.path) ----------------------------------------------- */

FILTER_FN(basename)
{
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	const char *sl = strrchr(p, '/');
	json_t *r = json_string(sl ? sl + 1 : p);
	json_decref(s);
	return r ? r : json_string("");
}

FILTER_FN(dirname)
{
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	const char *sl = strrchr(p, '/');
	size_t n = sl ? (size_t)(sl - p) + 1 : 0;
	size_t allslash = 0;
	while (allslash < n && p[allslash] == '/')
		allslash++;
	if (n && allslash != n)
		while (n > 0 && p[n - 1] == '/')
			n--;
	json_t *r = json_stringn_nocheck(p, n);
	json_decref(s);
	return r;
}

FILTER_FN(splitext)
{
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	size_t n = json_string_length(s);
	const char *sl = strrchr(p, '/');
	size_t base = sl ? (size_t)(sl - p) + 1 : 0;
	const char *dot = strrchr(p + base, '.');
	size_t cut = n;
	if (dot) {
		/* leading dots of the basename do not start an extension */
		size_t d = (size_t)(dot - p);
		size_t k = base;
		while (k < n && p[k] == '.')
			k++;
		if (d >= k)
			cut = d;
	}
	json_t *r = json_pack("[s%s%]", p, cut, p + cut, n - cut);
	json_decref(s);
	return r ? r : json_pack("[ss]", "", "");
}

FILTER_FN(expanduser)
{
	json_t *s = val_pystr(in);
	const char *p = json_string_value(s);
	if (p[0] == '~' && (p[1] == '/' || !p[1])) {
		const char *home = getenv("HOME");
		char *x = xasprintf("%s%s", home ? home : "", p + 1);
		json_decref(s);
		json_t *r = json_string(x);
		free(x);
		return r ? r : json_string("");
	}
	return s;
}

FILTER_FN(realpath)
{
	json_t *s = val_pystr(in);
	char *rp = realpath(json_string_value(s), NULL);
	if (rp) {
		json_decref(s);
		json_t *r = json_string(rp);
		free(rp);
		return r ? r : json_string("");
	}
	return s;
}

FILTER_FN(path_join)
{
	json_t *l = json_is_array(in) ? json_incref(in) : json_pack("[O]", in);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_array_size(l); i++) {
		json_t *x = json_array_get(l, i);
		char *s = val_to_cstr(x);
		if (s[0] == '/')
			strbuf_reset(&sb);
		else if (sb.len && sb.buf[sb.len - 1] != '/')
			strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, s);
		free(s);
	}
	json_decref(l);
	return val_str_take(&sb);
}
