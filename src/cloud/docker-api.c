/* docker-api.c: the Docker Engine API transport. Requests go over the
 * daemon's unix socket (libcurl's CURLOPT_UNIX_SOCKET_PATH, host part
 * "localhost") or plain TCP, every path under /v1.41, bodies are JSON
 * (jansson). An error reply is {"message": "..."} with the status telling
 * the kind (404 no such object, 409 conflict, 400 bad parameter, 500 the
 * daemon failed); it becomes a diag naming the daemon, the status and the
 * message. The image pull answers 200 with a stream of JSON objects, one a
 * line, whose failure is a line carrying "error"/"errorDetail": read by
 * docker_pull_*, which accepts the stream cut at any byte.
 *
 * Nothing here is a secret (the Engine API over a socket has no
 * credentials); request bodies are logged at trace level. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/docker.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Replies beyond this are not the small documents this backend reads. */
#define DOCKER_REPLY_CAP (16u << 20)
#define DEFAULT_SOCKET "/var/run/docker.sock"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void docker_escape(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '_' || *p == '.' || *p == '~') {
			strbuf_addch(sb, (char)*p);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[*p >> 4]);
			strbuf_addch(sb, hex[*p & 15]);
		}
	}
}

int docker_conn_init(struct docker_conn *c, const char *host, struct diag *d)
{
	memset(c, 0, sizeof(*c));
	pthread_once(&curl_once, curl_init_once);
	if (!host || !*host)
		host = getenv("DOCKER_HOST");
	if (!host || !*host)
		host = "unix://" DEFAULT_SOCKET;
	const char *hp = NULL;
	if (strncmp(host, "unix://", 7) == 0 || host[0] == '/') {
		c->socket = xstrdup(host[0] == '/' ? host : host + 7);
		c->base = xstrdup("http://localhost/" DOCKER_API);
		c->where = xasprintf("unix://%s", c->socket);
	} else if (strncasecmp(host, "tcp://", 6) == 0) {
		hp = host + 6;
	} else if (strncasecmp(host, "http://", 7) == 0) {
		hp = host + 7;
	} else if (strstr(host, "://")) {
		/* https needs the client certificate of IM's TLS setup, which
		 * this backend does not read: refuse rather than talk without it */
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "docker: host '%s': only unix://PATH, tcp://HOST:PORT and http://HOST:PORT daemons are supported",
			   host);
		return -1;
	} else {
		hp = host;
	}
	if (hp) {
		size_t n = strcspn(hp, "/");
		if (n == 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "docker: host '%s' names no host", host);
			return -1;
		}
		/* the daemon's TCP port when none is given */
		bool port = memchr(hp, ':', n) != NULL && hp[0] != '[';
		c->base = xasprintf("http://%.*s%s/" DOCKER_API, (int)n, hp, port ? "" : ":2375");
		c->where = xasprintf("http://%.*s%s", (int)n, hp, port ? "" : ":2375");
	}
	c->curl = curl_easy_init();
	if (!c->curl) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "docker: cannot initialise libcurl");
		docker_conn_release(c);
		return -1;
	}
	return 0;
}

void docker_conn_release(struct docker_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->socket);
	free(c->base);
	free(c->where);
	memset(c, 0, sizeof(*c));
}

void docker_reply_release(struct docker_reply *r)
{
	json_decref(r->json);
	free(r->message);
	memset(r, 0, sizeof(*r));
}

static size_t to_strbuf(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	strbuf_add(userdata, ptr, size * nmemb);
	return size * nmemb;
}

static size_t to_pull(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	docker_pull_feed(userdata, ptr, size * nmemb);
	return size * nmemb;
}

/* One request; the body goes to write(data). Returns the CURLcode. */
static CURLcode send_req(struct docker_conn *c, const char *method, const char *path,
			 const char *body, curl_write_callback write, void *data, long timeout,
			 long *status, char *errbuf)
{
	CURL *h = c->curl;
	struct curl_slist *hdr = NULL;
	char *url = xasprintf("%s%s", c->base, path);
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	if (c->socket)
		curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->socket);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "imc/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, data);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	if (body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	} else if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, 0L);
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	errbuf[0] = '\0';
	CURLcode rc = curl_easy_perform(h);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(hdr);
	free(url);
	return rc;
}

static void unreachable(const struct docker_conn *c, CURLcode rc, const char *errbuf,
			const char *method, const char *path, struct diag *d)
{
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "docker: cannot reach the daemon at %s (%s %s): %s",
		   c->where, method, path, errbuf[0] ? errbuf : curl_easy_strerror(rc));
}

int docker_call(struct docker_conn *c, const char *method, const char *path, json_t *body,
		struct docker_reply *r, struct diag *d)
{
	struct strbuf resp = STRBUF_INIT;
	char errbuf[CURL_ERROR_SIZE];
	char *btxt = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int ret = -1;
	long status = 0;

	memset(r, 0, sizeof(*r));
	strbuf_init(&resp, DOCKER_REPLY_CAP);
	log_debug(DOCKER_LOG, "%s %s", method, path);
	if (btxt)
		log_trace(DOCKER_LOG, "%s %s body: %s", method, path, btxt);
	/* stopping a container waits for its grace period: the longest call */
	CURLcode rc = send_req(c, method, path, btxt, to_strbuf, &resp, 300L, &status, errbuf);
	if (rc != CURLE_OK) {
		unreachable(c, rc, errbuf, method, path, d);
		goto out;
	}
	r->status = status;
	if (resp.len) {
		r->json = json_loadb(resp.buf, resp.len, JSON_DECODE_ANY, NULL);
		log_trace(DOCKER_LOG, "%s %s: %ld %s", method, path, status, strbuf_str(&resp));
	}
	if (status >= 300 && status != 304) {
		const char *m = json_string_value(json_object_get(r->json, "message"));
		if (m)
			r->message = xstrdup(m);
		else if (resp.len && !r->json)
			r->message = xstrndup(resp.buf, resp.len > 200 ? 200 : resp.len);
		/* a daemon's message has newlines at times: one line */
		for (char *p = r->message; p && *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		for (size_t n = r->message ? strlen(r->message) : 0; n && r->message[n - 1] == ' '; n--)
			r->message[n - 1] = '\0';
	}
	ret = 0;
out:
	free(btxt);
	strbuf_release(&resp);
	return ret;
}

void docker_reply_diag(const struct docker_conn *c, const struct docker_reply *r, const char *what,
		       struct diag *d)
{
	enum imc_exit code = IMC_EXIT_FAILED;
	if (r->status >= 500)
		code = IMC_EXIT_UNAVAILABLE;
	else if (r->status == 400)
		code = IMC_EXIT_DATAERR;
	else if (r->status == 401 || r->status == 403)
		code = IMC_EXIT_NOPERM;
	diag_error(d, code, NULL, "docker (%s): cannot %s: HTTP %ld: %s", c->where, what, r->status,
		   r->message ? r->message : "(no message)");
}

/* ---- the pull stream ---- */

static void pull_line(struct docker_pull *p, const char *s, size_t n)
{
	while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		return;
	json_t *o = json_loadb(s, n, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return;
	}
	p->objects++;
	const char *e = json_string_value(json_object_get(json_object_get(o, "errorDetail"), "message"));
	if (!e || !*e)
		e = json_string_value(json_object_get(o, "error"));
	/* the error reply of a refused pull (not a stream) */
	if (!e || !*e)
		e = json_string_value(json_object_get(o, "message"));
	if (e && *e && !p->error)
		p->error = xstrdup(e);
	const char *st = json_string_value(json_object_get(o, "status"));
	if (st)
		log_debug(DOCKER_LOG, "pull: %s", st);
	json_decref(o);
}

void docker_pull_feed(struct docker_pull *p, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			pull_line(p, p->line.buf ? p->line.buf : "", p->line.len);
			strbuf_reset(&p->line);
		} else {
			strbuf_addch(&p->line, data[i]);
		}
	}
}

void docker_pull_finish(struct docker_pull *p)
{
	if (p->line.len)
		pull_line(p, p->line.buf, p->line.len);
	strbuf_reset(&p->line);
}

void docker_pull_release(struct docker_pull *p)
{
	strbuf_release(&p->line);
	free(p->error);
	memset(p, 0, sizeof(*p));
}

/* name[:tag] -> fromImage and tag (a ':' after the last '/' starts the
 * tag; a digest reference is pulled whole). */
static void split_ref(const char *image, char **name, char **tag)
{
	const char *slash = strrchr(image, '/');
	const char *colon = strrchr(image, ':');
	if (strchr(image, '@') || !colon || (slash && colon < slash)) {
		*name = xstrdup(image);
		*tag = xstrdup(strchr(image, '@') ? "" : "latest");
	} else {
		*name = xstrndup(image, (size_t)(colon - image));
		*tag = xstrdup(colon + 1);
	}
}

int docker_image_ensure(struct docker_conn *c, const char *image, struct diag *d)
{
	struct strbuf path = STRBUF_INIT;
	struct docker_reply r;
	struct docker_pull p = { 0 };
	char *name = NULL, *tag = NULL;
	char errbuf[CURL_ERROR_SIZE];
	int ret = -1;

	strbuf_addstr(&path, "/images/");
	docker_escape(&path, image);
	strbuf_addstr(&path, "/json");
	if (docker_call(c, "GET", strbuf_str(&path), NULL, &r, d) < 0)
		goto out;
	if (r.status == 200) {
		docker_reply_release(&r);
		ret = 0;
		goto out;
	}
	if (r.status != 404) {
		docker_reply_diag(c, &r, "look up the image", d);
		docker_reply_release(&r);
		goto out;
	}
	docker_reply_release(&r);
	split_ref(image, &name, &tag);
	strbuf_reset(&path);
	strbuf_addstr(&path, "/images/create?fromImage=");
	docker_escape(&path, name);
	if (*tag) {
		strbuf_addstr(&path, "&tag=");
		docker_escape(&path, tag);
	}
	log_info(DOCKER_LOG, "pulling image '%s'", image);
	long status = 0;
	CURLcode rc = send_req(c, "POST", strbuf_str(&path), NULL, to_pull, &p, 3600L, &status, errbuf);
	docker_pull_finish(&p);
	if (rc != CURLE_OK) {
		unreachable(c, rc, errbuf, "POST", strbuf_str(&path), d);
	} else if (status != 200) {
		diag_error(d, status == 404 ? IMC_EXIT_DATAERR : IMC_EXIT_FAILED, NULL,
			   "docker (%s): cannot pull image '%s': HTTP %ld%s%s", c->where, image, status,
			   p.error ? ": " : "", p.error ? p.error : "");
	} else if (p.error) {
		/* a failed pull still answers 200: the error is in the stream */
		diag_error(d, IMC_EXIT_FAILED, NULL, "docker (%s): cannot pull image '%s': %s", c->where,
			   image, p.error);
	} else {
		ret = 0;
	}
out:
	docker_pull_release(&p);
	free(name);
	free(tag);
	strbuf_release(&path);
	return ret;
}
