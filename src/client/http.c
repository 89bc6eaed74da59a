/* http.c: the HTTP side of imc's client of IM's REST API (see client.h):
 * the Authorization header and one request through libcurl.
 *
 * The header carries the auth file as IM's clients send it: one credential
 * per line, the lines joined by the two characters backslash-n; within a
 * value, a newline (a PEM key read by file()) is a doubled backslash and
 * n, which the server turns back into the auth file's backslash-n. Values
 * are read by the CLI's own parser (cloud/auth.c), so file() is resolved
 * here (a server does not read the client's files) and every secret is
 * registered for masking. The header never reaches a log: libcurl is not
 * verbose and errors carry only the URL. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "client/client.h"
#include "cloud/auth.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A value as an auth line holds it: within double quotes (a '"' of its
 * own within single ones, the parser joins the spans), newlines as the
 * header's escaped backslash-n. */
static void add_value(struct strbuf *sb, const char *v)
{
	strbuf_addch(sb, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			strbuf_addstr(sb, "\"'\"'\"");
		else if (*p == '\n')
			strbuf_addstr(sb, "\\\\n");
		else if (*p != '\r')
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '"');
}

int client_open(struct client *c, const char *url, const char *auth_file, struct diag *d)
{
	memset(c, 0, sizeof(*c));
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	if (!auth_file) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "--server needs -a AUTHFILE: IM's auth file, with an InfrastructureManager line");
		return -1;
	}
	struct auth_file *af = auth_file_load(auth_file, d);
	if (!af)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < af->n; i++) {
		if (i)
			strbuf_addstr(&sb, "\\n");
		for (size_t k = 0; k < af->creds[i].n; k++) {
			strbuf_addf(&sb, "%s%s = ", k ? "; " : "", af->creds[i].items[k].key);
			add_value(&sb, af->creds[i].items[k].value);
		}
	}
	auth_file_free(af);
	c->auth = strbuf_detach(&sb);
	c->url = xstrndup(url, n);
	c->cacert = getenv("IMC_SERVER_CACERT");
	if (c->cacert && !*c->cacert)
		c->cacert = NULL;
	return 0;
}

void client_close(struct client *c)
{
	if (c->auth)
		memset(c->auth, 0, strlen(c->auth));
	free(c->auth);
	free(c->url);
	memset(c, 0, sizeof(*c));
}

static size_t write_cb(char *data, size_t size, size_t n, void *arg)
{
	strbuf_add(arg, data, size * n);
	return size * n;
}

int client_request(const struct client *c, const char *method, const char *path, const char *accept,
		   const char *body, size_t len, struct client_reply *rep, struct diag *d)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url = xasprintf("%s/%s", c->url, path);
	char *auth = xasprintf("Authorization: %s", c->auth);
	int rc = -1;
	rep->status = 0;
	strbuf_init(&rep->body, 0);
	if (!h) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "libcurl cannot start a request");
		goto out;
	}
	hdr = curl_slist_append(hdr, auth);
	if (accept) {
		char *a = xasprintf("Accept: %s", accept);
		hdr = curl_slist_append(hdr, a);
		free(a);
	}
	if (body)
		hdr = curl_slist_append(hdr, "Content-Type: text/plain");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "imc/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &rep->body);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	if (c->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->cacert);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	CURLcode cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s %s: %s", method, url, *errbuf ? errbuf : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &rep->status);
	rc = 0;
out:
	/* the header held the credentials */
	memset(auth, 0, strlen(auth));
	free(auth);
	free(url);
	curl_slist_free_all(hdr);
	if (h)
		curl_easy_cleanup(h);
	return rc;
}

char *client_escape(const char *s)
{
	CURL *h = curl_easy_init();
	char *e = h ? curl_easy_escape(h, s, 0) : NULL;
	char *copy = xstrdup(e ? e : "");
	curl_free(e);
	if (h)
		curl_easy_cleanup(h);
	return copy;
}

void client_reply_release(struct client_reply *rep)
{
	strbuf_release(&rep->body);
}
