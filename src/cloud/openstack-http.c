/* openstack-http.c: the OpenStack transport: one JSON exchange over
 * libcurl (os_http), with the session's token in X-Auth-Token, the
 * Retry-After and X-Subject-Token headers read, and the services' error
 * bodies parsed; and the retry policy's pieces (os_backoff, os_sleep).
 * Authentication and retries are openstack-call.c's, which uses this file
 * and openstack-auth.c.
 *
 * Retryable: HTTP 429, 500, 502, 503, 504 and connection failures.
 * IMC_OPENSTACK_TIME_SCALE multiplies every delay, so tests run with 0
 * and never sleep.
 *
 * Secrets: the password travels only in the Keystone request body, which
 * is never logged (OS_QUIET); the token only in a header; both are
 * registered with secret_register(), and CURLOPT_VERBOSE is never set. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/cloud-http.h"
#include "cloud/openstack.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define OS_REPLY_CAP (16u << 20)
#define RETRY_AFTER_MAX 60.0

int os_conn_init(struct os_conn *c, struct diag *d)
{
	cloud_curl_init();
	c->max_attempts = 5;
	c->time_scale = cloud_time_scale("IMC_OPENSTACK_TIME_SCALE");
	c->seed = cloud_seed(c);
	c->curl = curl_easy_init();
	if (!c->curl) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "openstack: cannot initialise libcurl");
		return -1;
	}
	return 0;
}

void os_conn_release(struct os_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
	free(c->auth_url);
	free(c->token);
	for (size_t i = 0; i < sizeof(c->url) / sizeof(c->url[0]); i++)
		free(c->url[i]);
	c->auth_url = c->token = NULL;
	memset(c->url, 0, sizeof(c->url));
}

char *os_urlencode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	struct strbuf sb = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || *p == '-' || *p == '_' || *p == '.' || *p == '~') {
			strbuf_addch(&sb, (char)*p);
		} else {
			strbuf_addch(&sb, '%');
			strbuf_addch(&sb, hex[*p >> 4]);
			strbuf_addch(&sb, hex[*p & 15]);
		}
	}
	return strbuf_detach(&sb);
}

struct hdr_state {
	double retry_after;
	char *token;
};

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	strbuf_add(userdata, ptr, size * nmemb);
	return size * nmemb;
}

/* Value of header name in line (case-insensitive), trimmed, or NULL. */
static char *header_value(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);
	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return NULL;
	const char *v = line + n + 1, *end = line + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	return xstrndup(v, (size_t)(end - v));
}

static size_t header_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct hdr_state *h = userdata;
	size_t len = size * nmemb;
	char *v = header_value(ptr, len, "Retry-After");
	if (v) {
		/* delta-seconds only: an HTTP date would need the server's clock */
		char *end;
		double s = strtod(v, &end);
		if (end != v && *end == '\0' && s >= 0)
			h->retry_after = s > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : s;
		free(v);
	}
	v = header_value(ptr, len, "X-Subject-Token");
	if (v) {
		free(h->token);
		h->token = v;
	}
	return len;
}

void os_error_release(struct os_error *e)
{
	free(e->fault);
	free(e->message);
	memset(e, 0, sizeof(*e));
}

/* The readers of a service's error: the one top-level key names the fault
 * (Nova: "itemNotFound", "badRequest", ...), except Neutron's
 * "NeutronError" and Keystone's "error", whose type/title name it. */
void os_error_parse(const char *body, struct os_error *e)
{
	json_t *root = body && *body ? json_loads(body, JSON_DECODE_ANY, NULL) : NULL;
	const char *key;
	json_t *v;
	if (json_is_object(root) && json_object_size(root) == 1) {
		json_object_foreach(root, key, v) {
			if (!json_is_object(v))
				break;
			const char *fault = key;
			const char *t = json_string_value(json_object_get(v, "type"));
			if (!t)
				t = json_string_value(json_object_get(v, "title"));
			if (t && (strcmp(key, "NeutronError") == 0 || strcmp(key, "error") == 0))
				fault = t;
			const char *m = json_string_value(json_object_get(v, "message"));
			free(e->fault);
			e->fault = xstrdup(fault);
			if (m) {
				free(e->message);
				e->message = xstrdup(m);
			}
		}
	}
	json_decref(root);
}

static bool status_retryable(long status)
{
	return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

int os_http(struct os_conn *c, const char *method, const char *url, const char *body,
	    unsigned flags, long *status, char **resp, double *retry_after, char **hdr_token,
	    struct os_error *err)
{
	CURL *h = c->curl;
	struct strbuf out = STRBUF_INIT;
	struct hdr_state hs = { -1, NULL };
	struct curl_slist *hdr = NULL;
	char errbuf[CURL_ERROR_SIZE];
	int ret = -1;

	memset(err, 0, sizeof(*err));
	*status = 0;
	*resp = NULL;
	strbuf_init(&out, OS_REPLY_CAP);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (body)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	if (c->token && !hdr_token) {
		char *t = xasprintf("X-Auth-Token: %s", c->token);
		hdr = curl_slist_append(hdr, t);
		free(t);
	}
	cloud_curl_request(h, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &out);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &hs);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	if (strcmp(method, "GET") != 0)
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	errbuf[0] = '\0';
	if (!(flags & OS_QUIET) && body)
		log_trace("openstack", "%s %s body: %s", method, url, body);
	c->requests++;
	CURLcode rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	if (rc != CURLE_OK) {
		err->transport = true;
		err->retryable = cloud_curl_retryable(rc);
		err->message = xstrdup(errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	if (out.truncated) {
		err->status = *status;
		err->message = xasprintf("reply larger than %u bytes", OS_REPLY_CAP);
		goto out;
	}
	if (*status < 200 || *status > 299) {
		err->status = *status;
		os_error_parse(strbuf_str(&out), err);
		if (!err->message)
			err->message = xasprintf("HTTP status %ld", *status);
		err->retryable = status_retryable(*status);
		log_debug("openstack", "%s %s: %ld %s: %s", method, url, *status,
			  err->fault ? err->fault : "-", err->message);
	} else {
		log_trace("openstack", "%s %s: %ld %s", method, url, *status, strbuf_str(&out));
		ret = 0;
	}
	*resp = strbuf_detach(&out);
out:
	if (retry_after)
		*retry_after = hs.retry_after;
	if (hdr_token && hs.token) {
		*hdr_token = hs.token;
		hs.token = NULL;
	}
	free(hs.token);
	strbuf_release(&out);
	curl_slist_free_all(hdr);
	return ret;
}

double os_backoff(struct os_conn *c, int attempt)
{
	return cloud_backoff(&c->seed, attempt);
}

void os_sleep(const struct os_conn *c, double seconds)
{
	cloud_sleep(seconds * c->time_scale);
}

void os_error_diag(const struct os_error *e, struct diag *d, const char *what)
{
	enum imc_exit code = IMC_EXIT_FAILED;
	if (e->transport || e->retryable)
		code = IMC_EXIT_UNAVAILABLE;
	else if (e->status == 401 || e->status == 403)
		code = IMC_EXIT_NOPERM;
	else if (e->status == 400 || e->status == 404)
		code = IMC_EXIT_DATAERR;
	if (e->transport)
		diag_error(d, code, NULL, "openstack: cannot %s: %s", what,
			   e->message ? e->message : "network error");
	else
		diag_error(d, code, NULL, "openstack: cannot %s: HTTP %ld%s%s: %s", what, e->status,
			   e->fault ? " " : "", e->fault ? e->fault : "",
			   e->message ? e->message : "(no message)");
	if (e->retryable)
		diag_note(d, NULL, "gave up after the attempts the retry policy allows");
}
