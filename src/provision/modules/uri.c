/* uri.c: the `uri` module, as ansible-core 2.14's: the request is made from
 * the node (where Ansible's module runs) with the node's curl, one request
 * per round trip, and imc follows redirects itself so that the rules are
 * Ansible's and not curl's: follow_redirects=safe follows only GET and
 * HEAD, all/yes turn a 301 POST, a 302 and a 303 into a GET and keep the
 * method and body on 307/308, urllib2 is Python's own handler, none/no
 * stop at the first 3xx; at most 10 hops and 4 visits of one URL, as
 * urllib. The result is fetch_url's: the final response's headers as
 * lowercased keys with '-' as '_', url, status, redirected, cookies,
 * cookies_string, msg "OK (N bytes)" (or Python's HTTPError text, or
 * "Request failed: <urlopen error ...>"), content with return_content,
 * json when the content type is JSON, elapsed; a status not in
 * status_code fails with "Status code was N and not [..]: msg". dest
 * saves the body (If-Modified-Since from its mtime unless force; a 304
 * writes nothing), with the file attributes. Check mode is Ansible's:
 * the module does not support it, so the task is skipped, with Ansible's
 * message. Parameters
 * imc does not implement (src/remote_src, unix_socket, ciphers,
 * unredirected_headers, form-multipart, gssapi, SELinux attributes) make
 * the task fall back to Ansible when the play is loaded. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "provision/module.h"
#include "template/template.h"
#include "util/base64.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_HOPS 10
#define MAX_REPEATS 4

/* One response, as the node's curl returned it. */
struct hop {
	int curl_rc;
	int code;            /* HTTP status, -1 when there is no response */
	char *reason;        /* the status line's reason phrase */
	json_t *headers;     /* lowercased name -> value, duplicates joined ", " */
	json_t *last;        /* lowercased name -> last value (HTTPError's dict) */
	json_t *set_cookies; /* array of the Set-Cookie values */
	struct strbuf body;
	char *err;           /* curl's message on failure */
};

static void hop_release(struct hop *h)
{
	free(h->reason);
	json_decref(h->headers);
	json_decref(h->last);
	json_decref(h->set_cookies);
	strbuf_release(&h->body);
	free(h->err);
	memset(h, 0, sizeof(*h));
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Parses the last header block of hdr[0..len) (curl writes one per
 * response it read: a 100 Continue or an authentication probe before). */
static void parse_headers(struct hop *h, const char *hdr, size_t len)
{
	const char *blk = hdr, *end = hdr + len;
	for (const char *p = hdr; p + 5 <= end; p++)
		if ((p == hdr || p[-1] == '\n') && !strncmp(p, "HTTP/", 5))
			blk = p;
	h->headers = json_object();
	h->last = json_object();
	h->set_cookies = json_array();
	const char *p = blk;
	bool first = true;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t ln = n;
		if (ln && p[ln - 1] == '\r')
			ln--;
		if (first) {
			const char *sp = memchr(p, ' ', ln);
			if (sp) {
				h->code = (int)strtol(sp + 1, NULL, 10);
				const char *rs = memchr(sp + 1, ' ', ln - (size_t)(sp + 1 - p));
				h->reason = rs ? xstrndup(rs + 1, ln - (size_t)(rs + 1 - p)) : xstrdup("");
			}
			first = false;
		} else if (ln == 0) {
			break;
		} else {
			const char *colon = memchr(p, ':', ln);
			if (colon && p[0] != ' ' && p[0] != '\t') {
				char *k = xstrndup(p, (size_t)(colon - p));
				const char *v = colon + 1;
				while (v < p + ln && (*v == ' ' || *v == '\t'))
					v++;
				char *val = xstrndup(v, (size_t)(p + ln - v));
				lower(k);
				const char *old = json_string_value(json_object_get(h->headers, k));
				if (old) {
					char *j = xasprintf("%s, %s", old, val);
					json_object_set_new(h->headers, k, json_string(j));
					free(j);
				} else
					json_object_set_new(h->headers, k, json_string(val));
				json_object_set_new(h->last, k, json_string(val));
				if (!strcmp(k, "set-cookie"))
					json_array_append_new(h->set_cookies, json_string(val));
				free(k);
				free(val);
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* The scheme://netloc part of url (its length). */
static size_t url_origin_len(const char *url)
{
	const char *s = strstr(url, "://");
	if (!s)
		return 0;
	return (size_t)(s + 3 - url) + strcspn(s + 3, "/?#");
}

/* urllib's urljoin of a Location header onto the request's URL, with a
 * space as %20 (Ansible's handler does that). */
static char *join_url(const char *base, const char *loc)
{
	struct strbuf sb = STRBUF_INIT;
	size_t ol = url_origin_len(base);
	if (strstr(loc, "://"))
		strbuf_addstr(&sb, loc);
	else if (!strncmp(loc, "//", 2)) {
		const char *s = strstr(base, "://");
		strbuf_add(&sb, base, s ? (size_t)(s + 1 - base) : 0);
		strbuf_addstr(&sb, loc);
	} else if (loc[0] == '/') {
		strbuf_add(&sb, base, ol);
		strbuf_addstr(&sb, loc);
	} else if (loc[0] == '?') {
		strbuf_add(&sb, base, ol + strcspn(base + ol, "?#"));
		strbuf_addstr(&sb, loc);
	} else {
		size_t pl = ol + strcspn(base + ol, "?#");
		size_t cut = ol;
		for (size_t i = ol; i < pl; i++)
			if (base[i] == '/')
				cut = i + 1;
		strbuf_add(&sb, base, cut);
		if (cut == ol)
			strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, loc);
	}
	struct strbuf out = STRBUF_INIT;
	for (const char *p = strbuf_str(&sb); *p; p++)
		if (*p == ' ')
			strbuf_addstr(&out, "%20");
		else
			strbuf_addch(&out, *p);
	strbuf_release(&sb);
	return strbuf_detach(&out);
}

/* Ansible's absolute_location() of the location result key: its own
 * simple join (not urljoin) against the task's url. */
static char *absolute_location(const char *url, const char *loc)
{
	if (strstr(loc, "://"))
		return xstrdup(loc);
	if (loc[0] == '/') {
		size_t ol = url_origin_len(url);
		size_t pl = strcspn(url + ol, "?#");
		struct strbuf sb = STRBUF_INIT;
		if (pl == 0)
			strbuf_addstr(&sb, url);
		else {
			/* url.replace(path, ''): every occurrence */
			char *path = xstrndup(url + ol, pl);
			for (const char *p = url; *p;) {
				const char *q = strstr(p, path);
				if (!q) {
					strbuf_addstr(&sb, p);
					break;
				}
				strbuf_add(&sb, p, (size_t)(q - p));
				p = q + pl;
			}
			free(path);
		}
		strbuf_addstr(&sb, loc);
		return strbuf_detach(&sb);
	}
	const char *slash = strrchr(url, '/');
	return xasprintf("%.*s/%s", slash ? (int)(slash - url) : 0, url, loc);
}

/* The body the request sends, as Ansible encodes it for body_format. */
static int encode_body(json_t *body, const char *fmt, struct strbuf *out, char **err)
{
	if (!body || json_is_null(body))
		return 0;
	if (json_is_string(body)) {
		strbuf_add(out, json_string_value(body), json_string_length(body));
		return 0;
	}
	if (!strcmp(fmt, "json")) {
		/* json.dumps: the templating engine's to_json writes it byte for byte */
		struct tmpl_env env = { 0 };
		env.vars = json_pack("{s:O}", "b", body);
		struct diag d = DIAG_INIT;
		json_t *s = tmpl_eval(&env, "b | to_json", &d);
		json_decref(env.vars);
		diag_release(&d);
		if (!json_is_string(s)) {
			json_decref(s);
			*err = xstrdup("cannot encode body as JSON");
			return -1;
		}
		strbuf_add(out, json_string_value(s), json_string_length(s));
		json_decref(s);
		return 0;
	}
	if (!strcmp(fmt, "form-urlencoded")) {
		/* urlencode(doseq=True) of the pairs, a list value repeating its key */
		if (!json_is_object(body) && !json_is_array(body)) {
			*err = xstrdup("failed to parse body as form_urlencoded: cannot form-urlencode body, expect list or dict");
			return -1;
		}
		json_t *pairs = json_array();
		if (json_is_object(body)) {
			const char *k;
			json_t *v;
			json_object_foreach(body, k, v)
				json_array_append_new(pairs, json_pack("[sO]", k, v));
		} else {
			size_t i;
			json_t *e;
			json_array_foreach(body, i, e) {
				if (!json_is_array(e) || json_array_size(e) != 2) {
					json_decref(pairs);
					*err = xstrdup("failed to parse body as form_urlencoded: not enough values to unpack (expected 2)");
					return -1;
				}
				json_array_append(pairs, e);
			}
		}
		size_t i;
		json_t *pr;
		bool first = true;
		json_array_foreach(pairs, i, pr) {
			json_t *k = json_array_get(pr, 0), *v = json_array_get(pr, 1);
			json_t *vals = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
			size_t j;
			json_t *e;
			json_array_foreach(vals, j, e) {
				if (json_is_null(e))
					continue;
				for (int side = 0; side < 2; side++) {
					char *t = tmpl_to_text(side ? e : k);
					if (side)
						strbuf_addch(out, '=');
					else if (!first)
						strbuf_addch(out, '&');
					for (const unsigned char *p = (const unsigned char *)t; *p; p++)
						if (isalnum(*p) || strchr("_.-~", *p))
							strbuf_addch(out, (char)*p);
						else if (*p == ' ')
							strbuf_addch(out, '+');
						else
							strbuf_addf(out, "%%%02X", *p);
					free(t);
				}
				first = false;
			}
			json_decref(vals);
		}
		json_decref(pairs);
		return 0;
	}
	char *t = tmpl_to_text(body);
	strbuf_addstr(out, t);
	free(t);
	return 0;
}

/* A raw body that is not a string goes to http.client as it is: a dict
 * or a list is sent chunk by chunk, its items as the chunks, and the
 * first that is not bytes stops the request with Python's TypeError
 * (fetch_url's "An unknown error occurred"); a number or a boolean is
 * neither bytes nor iterable. NULL when Python would send it. */
static char *raw_body_error(json_t *body, const char *fmt)
{
	if (!body || json_is_null(body) || json_is_string(body) || strcmp(fmt, "raw"))
		return NULL;
	if (json_is_object(body)) {
		const char *k;
		json_t *v;
		json_object_foreach(body, k, v)
			if (*k)
				return xstrdup("can't concat str to bytes");
		return NULL;
	}
	if (!json_is_array(body))
		return xasprintf("message_body should be a bytes-like object or an iterable, got <class '%s'>",
				 mod_pytype(body));
	size_t i;
	json_t *e;
	json_array_foreach(body, i, e) {
		/* falsy chunks are skipped */
		if (json_is_null(e) || json_is_false(e) || (json_is_integer(e) && !json_integer_value(e)) ||
		    (json_is_real(e) && json_real_value(e) == 0) || (json_is_string(e) && !json_string_length(e)) ||
		    (json_is_array(e) && !json_array_size(e)) || (json_is_object(e) && !json_object_size(e)))
			continue;
		if (json_is_string(e) || json_is_array(e) || json_is_object(e))
			return xasprintf("can't concat %s to bytes", mod_pytype(e));
		return xasprintf("object of type '%s' has no len()", mod_pytype(e));
	}
	return NULL;
}

/* gunzip of a gzip Content-Encoding (decompress=true); -1 when it is not gzip. */
static int gunzip(struct strbuf *b)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	struct strbuf out = STRBUF_INIT;
	unsigned char buf[16384];
	z.next_in = (unsigned char *)b->buf;
	z.avail_in = (uInt)b->len;
	int rc;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END) {
			inflateEnd(&z);
			strbuf_release(&out);
			return -1;
		}
		strbuf_add(&out, buf, sizeof(buf) - z.avail_out);
	} while (rc != Z_STREAM_END && z.avail_in > 0);
	inflateEnd(&z);
	strbuf_release(b);
	*b = out;
	return 0;
}

struct req {
	const char *method;
	bool head_only;
	struct strbuf body;
	bool has_body;
	json_t *headers; /* name -> value, as sent */
};

/* One request from the node; 0 with h filled (a failed connection too),
 * -1 when the node is unreachable (*res set). */
static int do_hop(struct exec_ctx *x, json_t *args, const char *url, struct req *rq,
		  const char *ims_file, json_t *cookies, struct hop *h, json_t **res)
{
	long timeout = 30;
	json_t *tv = json_object_get(args, "timeout");
	if (json_is_integer(tv))
		timeout = (long)json_integer_value(tv);
	else if (json_is_string(tv))
		timeout = strtol(json_string_value(tv), NULL, 10);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "curl -sS --globoff");
	if (rq->head_only)
		strbuf_addstr(&c, " --head");
	else {
		strbuf_addstr(&c, " -X ");
		sh_quote(&c, rq->method);
	}
	/* Python's timeout bounds the connection and each read, not the whole transfer */
	strbuf_addf(&c, " --connect-timeout %ld --speed-limit 1 --speed-time %ld", timeout, timeout);
	if (!args_bool(json_object_get(args, "validate_certs"), true))
		strbuf_addstr(&c, " -k");
	mod_sh_flag(&c, "--cacert", args_str(args, "ca_path"));
	mod_sh_flag(&c, "--cert", args_str(args, "client_cert"));
	mod_sh_flag(&c, "--key", args_str(args, "client_key"));
	if (!args_bool(json_object_get(args, "use_proxy"), true))
		strbuf_addstr(&c, " --noproxy '*'");
	const char *user = args_str(args, "url_username");
	const char *pass = args_str(args, "url_password");
	bool force_basic = args_bool(json_object_get(args, "force_basic_auth"), false);
	if (user && *user && !force_basic) {
		/* urllib's basic and digest handlers answer a 401 challenge */
		struct strbuf up = STRBUF_INIT;
		strbuf_addf(&up, "%s:%s", user, pass ? pass : "");
		strbuf_addstr(&c, " --anyauth -u ");
		sh_quote(&c, up.buf);
		strbuf_release(&up);
	} else if (!(user && *user) && args_bool(json_object_get(args, "use_netrc"), true))
		strbuf_addstr(&c, " --netrc-optional");
	/* urllib sends no Accept header; curl's own is removed */
	strbuf_addstr(&c, " -H 'Accept:'");
	const char *k;
	json_t *v;
	json_object_foreach(rq->headers, k, v) {
		struct strbuf hv = STRBUF_INIT;
		char *t = tmpl_to_text(v);
		if (*t)
			strbuf_addf(&hv, "%s: %s", k, t);
		else
			strbuf_addf(&hv, "%s;", k);
		free(t);
		strbuf_addstr(&c, " -H ");
		sh_quote(&c, hv.buf);
		strbuf_release(&hv);
	}
	if (json_object_size(cookies)) {
		struct strbuf cv = STRBUF_INIT;
		strbuf_addstr(&cv, "Cookie: ");
		bool first = true;
		json_object_foreach(cookies, k, v) {
			strbuf_addf(&cv, "%s%s=%s", first ? "" : "; ", k, json_string_value(v));
			first = false;
		}
		strbuf_addstr(&c, " -H ");
		sh_quote(&c, cv.buf);
		strbuf_release(&cv);
	}
	if (rq->has_body)
		strbuf_addstr(&c, " --data-binary @-");
	if (ims_file) {
		strbuf_addstr(&c, " -z ");
		sh_quote(&c, ims_file);
	}
	/* the headers, then the body, on stdout (--head writes them there itself) */
	strbuf_addstr(&c, rq->head_only ? "" : " -D -");
	strbuf_addstr(&c, " -o - -w '\\n__imc_w__ %{size_header} %{size_download}\\n' -- ");
	sh_quote(&c, url);
	strbuf_addstr(&c, rq->has_body ? "" : " </dev/null");
	strbuf_addstr(&c, "; echo \"__imc_rc__ $?\"");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, rq->has_body ? rq->body.buf : NULL, rq->has_body ? rq->body.len : 0,
			&cr, res);
	strbuf_release(&c);
	if (rc < 0) {
		conn_result_release(&cr);
		return -1;
	}
	memset(h, 0, sizeof(*h));
	h->code = -1;
	strbuf_init(&h->body, 0);
	const char *o = cr.out.buf ? cr.out.buf : "";
	size_t olen = cr.out.len;
	const char *w = NULL;
	for (size_t i = olen; i-- > 0;)
		if (i + 10 <= olen && !memcmp(o + i, "__imc_w__ ", 10) && (i == 0 || o[i - 1] == '\n')) {
			w = o + i;
			break;
		}
	const char *rcs = NULL;
	for (size_t i = olen; i-- > 0;)
		if (i + 11 <= olen && !memcmp(o + i, "__imc_rc__ ", 11)) {
			rcs = o + i;
			break;
		}
	h->curl_rc = rcs ? (int)strtol(rcs + 11, NULL, 10) : 127;
	if (w) {
		unsigned long hs = 0, bs = 0;
		if (sscanf(w + 10, "%lu %lu", &hs, &bs) == 2 && hs + bs <= (size_t)(w - o)) {
			parse_headers(h, o, hs);
			strbuf_add(&h->body, o + hs, bs);
		}
	}
	if (!h->headers) {
		h->headers = json_object();
		h->last = json_object();
		h->set_cookies = json_array();
	}
	if (h->curl_rc != 0) {
		const char *e = strbuf_str(&cr.err);
		const char *m = strstr(e, "curl: ");
		h->err = xstrndup(m ? m : e, strcspn(m ? m : e, "\n"));
	}
	conn_result_release(&cr);
	return 0;
}

/* Python's repr of the status_code list ("[200, 201]") */
static char *codes_repr(const long *codes, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addch(&sb, '[');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%ld", i ? ", " : "", codes[i]);
	strbuf_addch(&sb, ']');
	return strbuf_detach(&sb);
}

/* fetch_url's message when no response came back, as Python words it. */
static char *conn_failure_msg(const struct hop *h)
{
	const char *e = h->err ? h->err : "";
	switch (h->curl_rc) {
	case 7:
		return xstrdup("Request failed: <urlopen error [Errno 111] Connection refused>");
	case 6:
		return xstrdup("Request failed: <urlopen error [Errno -2] Name or service not known>");
	case 28:
		if (strstr(e, "Connection timed out") || strstr(e, "connect"))
			return xstrdup("Request failed: <urlopen error timed out>");
		return xstrdup("Connection failure: timed out");
	case 52:
		return xstrdup("Connection failure: connection was closed before a valid response was received: ");
	default:
		return xasprintf("Request failed: <urlopen error %s>", e);
	}
}

static bool is_json_type(const char *ct)
{
	/* email's get_content_type(): text/plain when absent or malformed */
	char *t = xstrndup(ct ? ct : "text/plain", strcspn(ct ? ct : "text/plain", ";"));
	char *s = t, *e = t + strlen(t);
	while (*s == ' ')
		s++;
	while (e > s && e[-1] == ' ')
		*--e = 0;
	lower(s);
	char *slash = strchr(s, '/');
	bool r = false;
	if (slash && !strchr(slash + 1, '/')) {
		char *sub = slash + 1;
		sub[strcspn(sub, ",")] = 0;
		char *plus = strchr(sub, '+');
		const char *cand = plus ? plus + 1 : sub;
		r = !strcmp(cand, "json") || !strcmp(cand, "javascript");
	}
	free(t);
	return r;
}

/* The filename of a dest directory: Content-Disposition's filename, else
 * the final URL's last path component, else index.html. */
static char *response_filename(const char *url, json_t *headers)
{
	const char *cd = json_string_value(json_object_get(headers, "content-disposition"));
	const char *fn = cd ? strstr(cd, "filename=") : NULL;
	if (fn) {
		fn += 9;
		if (*fn == '"')
			return xstrndup(fn + 1, strcspn(fn + 1, "\""));
		return xstrndup(fn, strcspn(fn, "; "));
	}
	size_t ol = url_origin_len(url);
	size_t pl = strcspn(url + ol, "?#");
	while (pl && url[ol + pl - 1] == '/')
		pl--;
	size_t s = pl;
	while (s && url[ol + s - 1] != '/')
		s--;
	if (s == pl)
		return xstrdup("index.html");
	/* unquote */
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = ol + s; i < ol + pl; i++) {
		if (url[i] == '%' && isxdigit((unsigned char)url[i + 1]) && isxdigit((unsigned char)url[i + 2])) {
			char hx[3] = { url[i + 1], url[i + 2], 0 };
			strbuf_addch(&sb, (char)strtol(hx, NULL, 16));
			i += 2;
		} else
			strbuf_addch(&sb, url[i]);
	}
	return strbuf_detach(&sb);
}

/* Records the Set-Cookie values of a response (name=value; attributes). */
static void take_cookies(json_t *jar, json_t *set)
{
	size_t i;
	json_t *e;
	json_array_foreach(set, i, e) {
		const char *s = json_string_value(e);
		size_t n = strcspn(s, ";");
		const char *eq = memchr(s, '=', n);
		if (!eq)
			continue;
		char *k = xstrndup(s, (size_t)(eq - s));
		char *v = xstrndup(eq + 1, n - (size_t)(eq + 1 - s));
		json_object_set_new(jar, k, json_string(v));
		free(k);
		free(v);
	}
}

/* Whether (and how) the redirect handler of follow follows a code for method:
 * 0 no (the response is the result), 1 yes. *method becomes the next
 * request's method; *keep_body whether the body and its headers go on. */
static int follow_rule(const char *follow, int code, const char **method, bool *keep_body)
{
	bool redirect = code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
	if (!redirect)
		return 0;
	const char *m = *method;
	if (!strcmp(follow, "urllib2")) {
		bool ok = (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0) ||
			  ((code == 301 || code == 302 || code == 303) && !strcmp(m, "POST"));
		if (!ok)
			return 0;
		*method = !strcmp(m, "HEAD") ? "HEAD" : "GET";
		*keep_body = false;
		return 1;
	}
	if (!strcmp(follow, "no") || !strcmp(follow, "none"))
		return 0;
	if (!strcmp(follow, "safe") && strcmp(m, "GET") && strcmp(m, "HEAD"))
		return 0;
	if (code == 307 || code == 308) {
		*keep_body = true;
		return 1;
	}
	*keep_body = false;
	if ((code == 303 || code == 302) && strcmp(m, "HEAD"))
		*method = "GET";
	if (code == 301 && !strcmp(m, "POST"))
		*method = "GET";
	return 1;
}

static json_t *uri_run(struct exec_ctx *x, json_t *args)
{
	/* the aliases user and password, as their canonical names */
	static const char *const alias[][2] = { { "user", "url_username" }, { "password", "url_password" } };
	for (size_t i = 0; i < 2; i++) {
		json_t *v = json_object_get(args, alias[i][0]);
		if (v && !json_object_get(args, alias[i][1]))
			json_object_set(args, alias[i][1], v);
	}
	json_t *res = NULL;
	const char *url = args_str(args, "url");
	if (!url)
		return res_fail("missing required arguments: url");
	const char *pass = args_str(args, "url_password");
	if (pass && *pass)
		secret_register(pass);
	char *method = args_strdup(args, "method");
	if (!method)
		method = xstrdup("GET");
	for (char *p = method; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	char *fmt = args_strdup(args, "body_format");
	if (!fmt)
		fmt = xstrdup("raw");
	lower(fmt);
	const char *follow = args_str(args, "follow_redirects");
	if (!follow)
		follow = "safe";
	static const char *const frs[] = { "all", "no", "none", "safe", "urllib2", "yes", NULL };
	bool fr_ok = false;
	for (const char *const *p = frs; *p && !fr_ok; p++)
		fr_ok = !strcmp(*p, follow);
	if (!fr_ok) {
		free(method);
		free(fmt);
		return res_fail("value of follow_redirects must be one of: all, no, none, safe, urllib2, yes, got: %s", follow);
	}
	if (x->check_mode) {
		/* AnsibleModule without supports_check_mode, after checking the
		 * arguments: the task is skipped */
		free(method);
		free(fmt);
		return json_pack("{s:b, s:s, s:b}", "changed", 0, "msg",
				 "remote module (ansible.legacy.uri) does not support check mode", "skipped", 1);
	}
	const char *dest = args_str(args, "dest");
	bool return_content = args_bool(json_object_get(args, "return_content"), false);
	/* force is accepted and, as in Ansible's uri (fetch_url is not given
	 * it), changes nothing: dest still sends If-Modified-Since */
	bool decompress = args_bool(json_object_get(args, "decompress"), true);
	json_t *sc = mod_list(json_object_get(args, "status_code"));
	size_t ncodes = json_array_size(sc) ? json_array_size(sc) : 1;
	long *codes = xcalloc(ncodes, sizeof(*codes));
	codes[0] = 200;
	struct req rq = { .method = NULL, .body = STRBUF_INIT, .headers = json_object() };
	struct hop h = { 0 };
	char *final_url = NULL, *dest_path = NULL, *err = NULL;
	json_t *jar = json_object();
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < json_array_size(sc); i++) {
		const char *s = json_string_value(json_array_get(sc, i));
		char *e;
		codes[i] = strtol(s, &e, 10);
		if (!*s || *e) {
			res = res_fail("Elements value for option 'status_code' is of type str and we were unable to convert to int: invalid literal for int() with base 10: '%s'", s);
			goto out;
		}
	}
	bool upper = *method != 0;
	for (const char *p = method; *p; p++)
		upper = upper && *p >= 'A' && *p <= 'Z';
	if (!upper) {
		res = res_fail("Parameter 'method' needs to be a single word in uppercase, like GET or POST.");
		goto out;
	}
	json_t *hd = json_object_get(args, "headers");
	if (json_is_object(hd))
		json_object_update(rq.headers, hd);
	bool has_ct = false;
	const char *k;
	json_t *v;
	json_object_foreach(rq.headers, k, v) {
		char *lk = xstrdup(k);
		lower(lk);
		has_ct = has_ct || !strcmp(lk, "content-type");
		free(lk);
	}
	json_t *body = json_object_get(args, "body");
	if (encode_body(body, fmt, &rq.body, &err) < 0) {
		res = res_fail("%s", err);
		json_object_set_new(res, "elapsed", json_integer(0));
		goto out;
	}
	rq.has_body = body && !json_is_null(body);
	if ((json_is_object(body) || json_is_array(body)) && !strcmp(fmt, "raw")) {
		/* a dict or list whose chunks are all empty (raw_body_error
		 * has none to complain about): http.client sends no chunk, an
		 * empty chunked body */
		strbuf_reset(&rq.body);
		json_object_set_new(rq.headers, "Transfer-Encoding", json_string("chunked"));
	}
	if (!strcmp(fmt, "json") && !has_ct)
		json_object_set_new(rq.headers, "Content-Type", json_string("application/json"));
	else if (!strcmp(fmt, "form-urlencoded") && !has_ct)
		json_object_set_new(rq.headers, "Content-Type",
				    json_string("application/x-www-form-urlencoded"));
	/* urllib's Request: the agent and the cache or If-Modified-Since headers */
	const char *agent = args_str(args, "http_agent");
	json_object_set_new(rq.headers, "User-Agent", json_string(agent ? agent : "ansible-httpget"));
	const char *user = args_str(args, "url_username");
	if (user && *user && args_bool(json_object_get(args, "force_basic_auth"), false)) {
		struct strbuf up = STRBUF_INIT, b64 = STRBUF_INIT;
		strbuf_addf(&up, "%s:%s", user, pass ? pass : "");
		char *enc = base64_encode(up.buf, up.len);
		strbuf_addf(&b64, "Basic %s", enc);
		secret_register(enc);
		free(enc);
		json_object_set_new(rq.headers, "Authorization", json_string(b64.buf));
		strbuf_release(&up);
		strbuf_release(&b64);
	}

	/* creates= and removes=: the task is skipped, as Ansible's module says */
	struct node_stat st;
	static const char *const guards[][2] = { { "creates", "exists" }, { "removes", "does not exist" } };
	for (size_t g = 0; g < 2; g++) {
		const char *gp = args_str(args, guards[g][0]);
		if (!gp)
			continue;
		if (mod_stat(x, gp, true, false, &st, &res) < 0)
			goto out;
		if (st.exists == (g == 0)) {
			res = res_new(false);
			char *m = xasprintf("skipped, since '%s' %s", gp, guards[g][1]);
			json_object_set_new(res, "stdout", json_string(m));
			json_object_set_new(res, "stdout_lines", json_pack("[s]", m));
			free(m);
			goto out;
		}
	}
	bool dest_file = false;
	if (dest) {
		if (mod_stat(x, dest, true, false, &st, &res) < 0)
			goto out;
		dest_file = st.exists && st.isreg;
	}

	/* the requests, following redirects as Ansible's handler does */
	rq.method = method;
	final_url = xstrdup(url);
	json_t *visited = json_object();
	bool http_error = false;
	char *err_msg = NULL;
	char *body_err = raw_body_error(body, fmt);
	for (int hops = 0;; hops++) {
		if (body_err) {
			h.code = -1;
			err_msg = xasprintf("An unknown error occurred: %s", body_err);
			free(body_err);
			break;
		}
		rq.head_only = !strcmp(rq.method, "HEAD");
		if (do_hop(x, args, final_url, &rq, dest_file ? dest : NULL, jar, &h, &res) < 0) {
			json_decref(visited);
			goto out;
		}
		if (h.code < 0 || h.curl_rc != 0) {
			h.code = -1;
			err_msg = conn_failure_msg(&h);
			break;
		}
		take_cookies(jar, h.set_cookies);
		const char *loc = json_string_value(json_object_get(h.headers, "location"));
		if (!loc)
			loc = json_string_value(json_object_get(h.headers, "uri"));
		const char *nm = rq.method;
		bool keep = true;
		/* urllib: any status outside 2xx is an HTTPError unless followed
		 * (a redirect without Location is not) */
		if (!loc || !follow_rule(follow, h.code, &nm, &keep)) {
			http_error = h.code < 200 || h.code >= 300;
			break;
		}
		char *next = join_url(final_url, loc);
		json_int_t seen = json_integer_value(json_object_get(visited, next));
		if (seen >= MAX_REPEATS || (int)json_object_size(visited) >= MAX_HOPS) {
			err_msg = xasprintf("HTTP Error %d: The HTTP server returned a redirect error that would lead to an infinite loop.\n"
					    "The last 30x error message was:\n%s", h.code, h.reason ? h.reason : "");
			free(next);
			http_error = true;
			break;
		}
		json_object_set_new(visited, next, json_integer(seen + 1));
		free(final_url);
		final_url = next;
		rq.method = nm;
		if (!keep) {
			rq.has_body = false;
			const char *drop[] = { "content-length", "content-type", "transfer-encoding", NULL };
			void *tmp;
			json_object_foreach_safe(rq.headers, tmp, k, v) {
				char *lk = xstrdup(k);
				lower(lk);
				for (const char *const *d = drop; *d; d++)
					if (!strcmp(lk, *d))
						json_object_del(rq.headers, k);
				free(lk);
			}
		}
		hop_release(&h);
	}
	json_decref(visited);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* fetch_url's info, then uri's result */
	res = res_new(false);
	bool ok_resp = h.code >= 0 && !http_error;
	if (h.code >= 0) {
		json_t *src = ok_resp ? h.headers : h.last;
		json_object_foreach(src, k, v) {
			char *uk = xstrdup(k);
			for (char *p = uk; *p; p++)
				if (*p == '-')
					*p = '_';
			json_object_set(res, uk, v);
			free(uk);
		}
	}
	if (ok_resp) {
		struct strbuf cs = STRBUF_INIT;
		json_object_foreach(jar, k, v)
			strbuf_addf(&cs, "%s%s=%s", cs.len ? "; " : "", k, json_string_value(v));
		json_object_set_new(res, "cookies_string", json_string(strbuf_str(&cs)));
		strbuf_release(&cs);
		json_object_set(res, "cookies", jar);
		const char *cl = json_string_value(json_object_get(h.last, "content-length"));
		char *m = xasprintf("OK (%s bytes)", cl ? cl : "unknown");
		json_object_set_new(res, "msg", json_string(m));
		free(m);
		json_object_set_new(res, "url", json_string(final_url));
		if (decompress) {
			const char *ce = json_string_value(json_object_get(h.last, "content-encoding"));
			if (ce && !strcasecmp(ce, "gzip"))
				gunzip(&h.body);
		}
	} else {
		json_object_set_new(res, "url", json_string(url));
		if (!err_msg)
			err_msg = xasprintf("HTTP Error %d: %s", h.code, h.reason ? h.reason : "");
		json_object_set_new(res, "msg", json_string(err_msg));
	}
	free(err_msg);
	json_object_set_new(res, "status", json_integer(h.code));
	json_object_set_new(res, "redirected", json_boolean(ok_resp && strcmp(final_url, url)));
	json_object_set_new(res, "elapsed", json_integer((json_int_t)(t1.tv_sec - t0.tv_sec -
								       (t1.tv_nsec < t0.tv_nsec))));
	json_object_set_new(res, "changed", json_false());
	bool in_codes = false;
	for (size_t i = 0; i < ncodes; i++)
		in_codes = in_codes || codes[i] == h.code;
	const char *ctype = h.code >= 0 ? json_string_value(json_object_get(h.last, "content-type")) : NULL;
	bool maybe_json = h.code >= 0 && ctype && is_json_type(ctype);
	if (h.code < 0)
		maybe_json = false;
	bool maybe_output = maybe_json || return_content || !in_codes;
	/* an error response whose content is not read keeps it as 'body' */
	if (!ok_resp && h.code >= 0 && !maybe_output)
		json_object_set_new(res, "body", json_stringn(h.body.buf ? h.body.buf : "", h.body.len));

	if (h.code >= 0 && dest) {
		dest_path = xstrdup(dest);
		if (st.exists && st.isdir) {
			char *fn = response_filename(final_url, h.headers);
			free(dest_path);
			dest_path = xasprintf("%s/%s", dest, fn);
			free(fn);
		}
		if (in_codes && h.code != 304) {
			/* written only when the content differs; changed either way */
			struct node_stat ds;
			json_t *r2 = NULL;
			char sum[41];
			hash_sha1_hex(h.body.buf ? h.body.buf : "", h.body.len, sum);
			if (mod_stat(x, dest_path, true, true, &ds, &r2) < 0) {
				json_decref(res);
				res = r2;
				goto out;
			}
			if (!(ds.exists && !strcmp(ds.sha1, sum)) &&
			    mod_write(x, dest_path, h.body.buf ? h.body.buf : "", h.body.len, -1, &r2) < 0) {
				json_decref(res);
				res = r2;
				goto out;
			}
			bool changed = true;
			if (mod_attrs(x, dest_path, args, &changed, &r2) < 0) {
				json_decref(res);
				res = r2;
				goto out;
			}
			json_object_set_new(res, "changed", json_true());
		}
		json_object_set_new(res, "path", json_string(dest_path));
	}
	if (json_object_get(res, "location")) {
		char *al = absolute_location(url, json_string_value(json_object_get(res, "location")));
		json_object_set_new(res, "location", json_string(al));
		free(al);
	}
	json_t *content = NULL;
	if (maybe_output || h.code < 0) {
		content = json_stringn(h.body.buf ? h.body.buf : "", h.body.len);
		if (!content)
			content = json_string("");
		if (maybe_json) {
			json_t *js = json_loadb(h.body.buf ? h.body.buf : "", h.body.len,
						JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
			if (js)
				json_object_set_new(res, "json", js);
		}
	}
	if (!in_codes) {
		char *cr = codes_repr(codes, ncodes);
		const char *m0 = json_string_value(json_object_get(res, "msg"));
		char *m = xasprintf("Status code was %d and not %s: %s", h.code, cr, m0 ? m0 : "");
		json_object_set_new(res, "msg", json_string(m));
		json_object_set_new(res, "failed", json_true());
		free(m);
		free(cr);
	}
	if (return_content && content)
		json_object_set(res, "content", content);
	json_decref(content);
	if (dest_path && mod_path_info(x, res) < 0) {
		json_decref(res);
		res = res_fail("the node became unreachable");
	}
out:
	hop_release(&h);
	json_decref(jar);
	json_decref(sc);
	json_decref(rq.headers);
	strbuf_release(&rq.body);
	free(codes);
	free(method);
	free(fmt);
	free(final_url);
	free(dest_path);
	free(err);
	return res;
}

static int uri_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = {
		"url", "dest", "url_username", "user", "url_password", "password", "body",
		"body_format", "method", "return_content", "follow_redirects", "creates", "removes",
		"status_code", "timeout", "headers", "ca_path", "decompress", "use_netrc", "force",
		"http_agent", "use_proxy", "validate_certs", "force_basic_auth", "client_cert",
		"client_key", "use_gssapi", "mode", "owner", "group", NULL };
	if (mod_check_params("uri", args, known, d, loc) < 0)
		return -1;
	const char *fmt = args_str(args, "body_format");
	if (fmt && !xt_is_template(fmt) && strcasecmp(fmt, "raw") && strcasecmp(fmt, "json") &&
	    strcasecmp(fmt, "form-urlencoded")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "uri: unsupported parameter 'body_format' value %s", fmt);
		return -1;
	}
	const char *fr = args_str(args, "follow_redirects");
	static const char *const frs[] = { "all", "no", "none", "safe", "urllib2", "yes", NULL };
	bool ok = !fr || xt_is_template(fr);
	for (const char *const *p = frs; *p && !ok; p++)
		ok = !strcmp(*p, fr);
	if (!ok) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "uri: value of follow_redirects must be one of: all, no, none, safe, urllib2, yes, got: %s", fr);
		return -1;
	}
	json_t *g = json_object_get(args, "use_gssapi");
	if (g && args_bool(g, false)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "uri: unsupported parameter 'use_gssapi'");
		return -1;
	}
	return 0;
}

static const char *const uri_node_paths[] = { "dest", "creates", "removes", "unix_socket", "ca_path", "client_cert", "client_key", NULL };

const struct task_module mod_uri = {
	.name = "uri", .check = uri_check, .run = uri_run, .check_mode_native = true,
	.node_paths = uri_node_paths,
};
