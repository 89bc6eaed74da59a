/* ec2-http.c: the EC2 Query API transport. Every request is a POST of a
 * form-encoded body (Action=...&Version=2016-11-15&...) to the regional
 * endpoint, signed by libcurl's own AWS SigV4 (CURLOPT_AWS_SIGV4, with the
 * region and service given explicitly, because libcurl's guess from the
 * host name is wrong for endpoint overrides). POST, not GET: libcurl 7.88
 * does not sort a query string before signing (curl issue #9717).
 *
 * Retries follow botocore's policy for ec2 (vectors/ec2/model/
 * botocore-_retry.json): connection errors, HTTP 429/500/502/503/504/509,
 * the throttling codes and RequestLimitExceeded / EC2ThrottledException,
 * at most 5 attempts, delay rand * 2^(attempt-1) seconds ("base": "rand",
 * "growth_factor": 2). IMC_EC2_TIME_SCALE multiplies every delay, so tests
 * run with 0 and never sleep.
 *
 * Secrets: the secret key only reaches libcurl (CURLOPT_PASSWORD) and the
 * session token only a request header; neither is logged (CURLOPT_VERBOSE
 * is never set), and ec2.c registers both with secret_register(). */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/cloud-http.h"
#include "cloud/ec2.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define EC2_REPLY_CAP (16u << 20)

void ec2_uri_encode(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || *p == '~') {
			strbuf_addch(sb, (char)*p);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[*p >> 4]);
			strbuf_addch(sb, hex[*p & 15]);
		}
	}
}

void ec2_query_init(struct ec2_query *q, const char *action)
{
	memset(q, 0, sizeof(*q));
	ec2_query_add(q, "Action", action);
	ec2_query_add(q, "Version", EC2_API_VERSION);
}

void ec2_query_add(struct ec2_query *q, const char *key, const char *value)
{
	if (q->n + 1 > q->alloc) {
		q->alloc = q->alloc ? q->alloc * 2 : 16;
		q->kv = xreallocarray(q->kv, q->alloc, 2 * sizeof(char *));
	}
	q->kv[2 * q->n] = xstrdup(key);
	q->kv[2 * q->n + 1] = xstrdup(value ? value : "");
	q->n++;
}

void ec2_query_addf(struct ec2_query *q, const char *value, const char *keyfmt, ...)
{
	struct strbuf k = STRBUF_INIT;
	va_list ap;
	va_start(ap, keyfmt);
	strbuf_vaddf(&k, keyfmt, ap);
	va_end(ap);
	ec2_query_add(q, strbuf_str(&k), value);
	strbuf_release(&k);
}

void ec2_query_addint(struct ec2_query *q, const char *key, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	ec2_query_add(q, key, buf);
}

const char *ec2_query_action(const struct ec2_query *q)
{
	return q->n ? q->kv[1] : "";
}

void ec2_query_release(struct ec2_query *q)
{
	for (size_t i = 0; i < 2 * q->n; i++)
		free(q->kv[i]);
	free(q->kv);
	memset(q, 0, sizeof(*q));
}

char *ec2_query_encode(const struct ec2_query *q)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < q->n; i++) {
		if (i)
			strbuf_addch(&sb, '&');
		ec2_uri_encode(&sb, q->kv[2 * i]);
		strbuf_addch(&sb, '=');
		ec2_uri_encode(&sb, q->kv[2 * i + 1]);
	}
	return strbuf_detach(&sb);
}

int ec2_conn_init(struct ec2_conn *c, const char *endpoint, const char *region,
		  const char *access_key, const char *secret_key, const char *token,
		  struct diag *d)
{
	memset(c, 0, sizeof(*c));
	cloud_curl_init();
	if (endpoint && *endpoint) {
		if (strstr(endpoint, "://"))
			c->endpoint = xasprintf("%s%s", endpoint,
						endpoint[strlen(endpoint) - 1] == '/' ? "" : "/");
		else
			c->endpoint = xasprintf("https://%s%s", endpoint,
						endpoint[strlen(endpoint) - 1] == '/' ? "" : "/");
	} else {
		c->endpoint = xasprintf("https://ec2.%s.amazonaws.com/", region);
	}
	c->region = xstrdup(region);
	c->service = xstrdup("ec2");
	c->access_key = access_key;
	c->secret_key = secret_key;
	c->token = token;
	c->max_attempts = 5;
	c->time_scale = cloud_time_scale("IMC_EC2_TIME_SCALE");
	c->seed = cloud_seed(c);
	c->curl = curl_easy_init();
	if (!c->curl) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "ec2: cannot initialise libcurl");
		ec2_conn_release(c);
		return -1;
	}
	return 0;
}

void ec2_conn_release(struct ec2_conn *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->endpoint);
	free(c->region);
	free(c->service);
	memset(c, 0, sizeof(*c));
}

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct strbuf *sb = userdata;
	strbuf_add(sb, ptr, size * nmemb);
	return size * nmemb;
}

CURLcode ec2_http_send(struct ec2_conn *c, const char *method, const char *url,
		       struct curl_slist *headers, const char *body, size_t body_len,
		       long *status, struct strbuf *resp, char *errbuf)
{
	CURL *h = c->curl;
	char provider[160];

	snprintf(provider, sizeof(provider), "aws:amz:%s:%s", c->region, c->service);
	cloud_curl_request(h, url);
	curl_easy_setopt(h, CURLOPT_AWS_SIGV4, provider);
	curl_easy_setopt(h, CURLOPT_USERNAME, c->access_key ? c->access_key : "");
	curl_easy_setopt(h, CURLOPT_PASSWORD, c->secret_key ? c->secret_key : "");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	if (headers)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)body_len);
	} else if (strcmp(method, "GET") != 0) {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	}
	errbuf[0] = '\0';
	c->requests++;
	CURLcode rc = curl_easy_perform(h);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

bool ec2_retryable(long status, const char *code)
{
	static const char *const codes[] = {
		"RequestLimitExceeded", "EC2ThrottledException", "Throttling",
		"ThrottlingException", "ThrottledException", "RequestThrottledException",
		"ProvisionedThroughputExceededException", "InternalError", "Unavailable",
		"ServiceUnavailable", NULL,
	};
	if (code)
		for (size_t i = 0; codes[i]; i++)
			if (strcmp(code, codes[i]) == 0)
				return true;
	switch (status) {
	case 429: case 500: case 502: case 503: case 504: case 509:
		return true;
	default:
		return false;
	}
}

double ec2_backoff(struct ec2_conn *c, int attempt)
{
	return cloud_backoff(&c->seed, attempt);
}

void ec2_sleep(const struct ec2_conn *c, double seconds)
{
	cloud_sleep(seconds * c->time_scale);
}

void ec2_error_release(struct ec2_error *e)
{
	free(e->code);
	free(e->message);
	free(e->request_id);
	memset(e, 0, sizeof(*e));
}

bool ec2_error_is(const struct ec2_error *e, const char *code)
{
	if (!e->code)
		return false;
	size_t n = strlen(code);
	if (n && code[n - 1] == '.')
		return strncmp(e->code, code, n) == 0;
	return strcmp(e->code, code) == 0;
}

void ec2_error_diag(const struct ec2_conn *c, const struct ec2_error *e, struct diag *d,
		    const char *what)
{
	enum imc_exit code = IMC_EXIT_FAILED;
	if (e->transport || e->retryable)
		code = IMC_EXIT_UNAVAILABLE;
	else if (e->code && (strcmp(e->code, "UnauthorizedOperation") == 0 ||
			     strcmp(e->code, "AuthFailure") == 0 ||
			     strcmp(e->code, "SignatureDoesNotMatch") == 0 ||
			     strcmp(e->code, "InvalidClientTokenId") == 0 ||
			     strcmp(e->code, "OptInRequired") == 0 ||
			     strcmp(e->code, "Blocked") == 0 || e->status == 401 || e->status == 403))
		code = IMC_EXIT_NOPERM;
	else if (e->code && (strncmp(e->code, "InvalidAMIID.", 13) == 0 ||
			     strncmp(e->code, "InvalidParameter", 16) == 0 ||
			     strcmp(e->code, "MissingParameter") == 0 ||
			     strcmp(e->code, "InvalidInstanceAttributeValue") == 0 ||
			     strcmp(e->code, "Unsupported") == 0))
		code = IMC_EXIT_DATAERR;

	if (e->transport)
		diag_error(d, code, NULL, "ec2 (%s, %s): cannot %s: %s", c->region,
			   c->endpoint, what, e->message ? e->message : "network error");
	else if (e->code)
		diag_error(d, code, NULL, "ec2 (%s): cannot %s: %s: %s%s%s%s", c->region, what,
			   e->code, e->message ? e->message : "(no message)",
			   e->request_id ? " (request id " : "",
			   e->request_id ? e->request_id : "", e->request_id ? ")" : "");
	else
		diag_error(d, code, NULL, "ec2 (%s): cannot %s: HTTP status %ld%s%s", c->region,
			   what, e->status, e->message ? ": " : "", e->message ? e->message : "");
	if (e->retryable)
		diag_note(d, NULL, "gave up after %d attempts", c->max_attempts);
}

int ec2_call(struct ec2_conn *c, const struct ec2_query *q, xmlDoc **doc, struct ec2_error *err)
{
	char *body = ec2_query_encode(q);
	size_t blen = strlen(body);
	const char *action = ec2_query_action(q);
	struct curl_slist *hdr = NULL;
	struct strbuf resp = STRBUF_INIT;
	char errbuf[CURL_ERROR_SIZE];
	int ret = -1;

	memset(err, 0, sizeof(*err));
	*doc = NULL;
	hdr = curl_slist_append(hdr, "Content-Type: application/x-www-form-urlencoded; charset=utf-8");
	/* No "Expect:" to disable 100-continue: libcurl 7.88 signs an emptied
	 * header it then does not send, and the signature no longer matches
	 * (found with the SigV4 vectors). Query bodies stay far below the
	 * 1 MiB at which libcurl would add Expect itself. */
	if (c->token && *c->token) {
		char *t = xasprintf("X-Amz-Security-Token: %s", c->token);
		hdr = curl_slist_append(hdr, t);
		free(t);
	}
	log_trace("ec2", "%s %s body: %s", c->region, action, body);

	for (int attempt = 1;; attempt++) {
		long status = 0;
		strbuf_release(&resp);
		strbuf_init(&resp, EC2_REPLY_CAP);
		ec2_error_release(err);
		log_debug("ec2", "%s %s (attempt %d)", c->region, action, attempt);
		CURLcode rc = ec2_http_send(c, "POST", c->endpoint, hdr, body, blen, &status,
					    &resp, errbuf);
		if (rc != CURLE_OK) {
			err->transport = true;
			err->retryable = cloud_curl_retryable(rc);
			err->message = xasprintf("%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
		} else if (resp.truncated) {
			err->status = status;
			err->message = xasprintf("%s reply larger than %u bytes", action, EC2_REPLY_CAP);
		} else if (status == 200) {
			*doc = ec2_xml_parse(resp.buf, resp.len);
			if (*doc) {
				log_trace("ec2", "%s %s reply: %s", c->region, action, strbuf_str(&resp));
				ret = 0;
				break;
			}
			err->status = status;
			err->message = xasprintf("malformed XML reply to %s", action);
		} else {
			err->status = status;
			if (ec2_xml_error(resp.buf, resp.len, err) < 0)
				err->message = xasprintf("unexpected reply to %s (not an EC2 error document)",
							 action);
			err->retryable = ec2_retryable(status, err->code);
		}
		log_debug("ec2", "%s %s failed: status %ld %s: %s%s", c->region, action, err->status,
			  err->code ? err->code : "-", err->message ? err->message : "",
			  err->retryable ? " (retryable)" : "");
		if (!err->retryable || attempt >= c->max_attempts)
			break;
		double delay = ec2_backoff(c, attempt);
		log_info("ec2", "%s %s: %s, retrying in %.2fs (attempt %d of %d)", c->region, action,
			 err->code ? err->code : (err->message ? err->message : "error"),
			 delay * c->time_scale, attempt + 1, c->max_attempts);
		ec2_sleep(c, delay);
	}
	curl_slist_free_all(hdr);
	strbuf_release(&resp);
	free(body);
	return ret;
}
