/* test-ec2-sigv4.c: the AWS SigV4 test suite (tests/vectors/aws-sigv4)
 * against the signer imc uses, libcurl's CURLOPT_AWS_SIGV4, through the
 * backend's own sender ec2_http_send(). Each case's request is sent to a
 * capture endpoint on 127.0.0.1 (a thread of this test) with the case's
 * headers, including its X-Amz-Date (which libcurl uses instead of the
 * clock) and its Host (which libcurl signs instead of 127.0.0.1:PORT); the
 * Authorization header that arrives must equal the case's .authz byte for
 * byte. Cases libcurl 7.88's signer cannot reproduce are listed in
 * unsupported[] with the reason; they are checked to still fail, so that a
 * newer libcurl that fixes one is noticed. */
#include "config.h"

#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloud/ec2.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const struct {
	const char *name;
	const char *why;
} unsupported[] = {
	{ "get-header-value-multiline", "folded header lines cannot be sent through libcurl (and imc never sends them)" },
	{ "get-vanilla-query-order-key", "libcurl 7.88 does not sort the query string before signing (curl #9717); imc POSTs a form body instead" },
	{ "get-vanilla-query-order-value", "libcurl 7.88 does not sort the query string (curl #9717)" },
	{ "get-vanilla-query-order-key-case", "libcurl 7.88 does not sort the query string (curl #9717)" },
	{ "get-vanilla-query-order-encoded", "libcurl 7.88 neither sorts nor re-encodes the query string (curl #9717)" },
	{ "get-vanilla-utf8-query", "libcurl 7.88 does not percent-encode the query string for signing" },
	{ "get-utf8", "the raw UTF-8 path is sent as is, and libcurl 7.88 signs the path without URI-encoding it" },
	{ "get-space", "a raw space in the path is not a valid request target for libcurl" },
	{ "get-special-character", "libcurl 7.88 signs the path without URI-encoding it" },
	{ "get-slash", "libcurl 7.88 does not merge repeated slashes when signing" },
	{ "get-slashes", "libcurl 7.88 does not merge repeated slashes when signing" },
	{ "get-header-key-duplicate", "libcurl 7.88 does not join repeated headers into one canonical header" },
	{ "get-header-value-order", "libcurl 7.88 does not join repeated headers into one canonical header" },
};

static const char *why_unsupported(const char *name)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (strcmp(unsupported[i].name, name) == 0)
			return unsupported[i].why;
	return NULL;
}

/* ---- capture endpoint ---- */

struct capture {
	int fd;
	int port;
	pthread_mutex_t mu;
	char *authz; /* last Authorization header value */
};

static void *capture_main(void *arg)
{
	struct capture *c = arg;
	for (;;) {
		int cfd = accept(c->fd, NULL, NULL);
		if (cfd < 0)
			return NULL;
		struct strbuf req = STRBUF_INIT;
		char buf[4096];
		char *hend = NULL;
		while (!(hend = strstr(strbuf_str(&req), "\r\n\r\n"))) {
			ssize_t r = read(cfd, buf, sizeof(buf));
			if (r <= 0)
				break;
			strbuf_add(&req, buf, (size_t)r);
		}
		if (hend) {
			/* drain the body */
			long clen = 0;
			const char *cl = strcasestr(req.buf, "\r\nContent-Length:");
			if (cl && cl < hend)
				clen = strtol(cl + 17, NULL, 10);
			size_t have = req.len - (size_t)(hend + 4 - req.buf);
			while ((long)have < clen) {
				ssize_t r = read(cfd, buf, sizeof(buf));
				if (r <= 0)
					break;
				have += (size_t)r;
			}
			const char *a = strcasestr(req.buf, "\r\nAuthorization:");
			pthread_mutex_lock(&c->mu);
			free(c->authz);
			c->authz = NULL;
			if (a) {
				a += 16;
				while (*a == ' ')
					a++;
				const char *e = strstr(a, "\r\n");
				c->authz = xstrndup(a, (size_t)(e - a));
			}
			pthread_mutex_unlock(&c->mu);
		}
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
		if (write(cfd, ok, sizeof(ok) - 1) < 0) {
			/* the client went away; nothing to do */
		}
		close(cfd);
		strbuf_release(&req);
	}
}

static struct capture cap;
static pthread_t cap_thread;
static char vecdir[4096];

static int setup(void **state)
{
	snprintf(vecdir, sizeof(vecdir), "%s/tests/vectors/aws-sigv4", IMC_SRCDIR);
	const char *top = getenv("top_srcdir");
	if (top)
		snprintf(vecdir, sizeof(vecdir), "%s/tests/vectors/aws-sigv4", top);
	cap.fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	if (bind(cap.fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(cap.fd, 8) < 0 ||
	    getsockname(cap.fd, (struct sockaddr *)&sa, &sl) < 0)
		return -1;
	cap.port = ntohs(sa.sin_port);
	pthread_mutex_init(&cap.mu, NULL);
	return pthread_create(&cap_thread, NULL, capture_main, &cap);
}

static int teardown(void **state)
{
	shutdown(cap.fd, SHUT_RDWR);
	close(cap.fd);
	pthread_join(cap_thread, NULL);
	free(cap.authz);
	return 0;
}

/* ---- cases ---- */

static char *slurp(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb);
}

#define TOKEN_GET "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"

/* Sends case name (files in dir) and returns the Authorization received. */
static char *sign_case(const char *dir, const char *name)
{
	size_t len;
	char *path = xasprintf("%s/%s.req", dir, name);
	char *req = slurp(path, &len);
	free(path);
	assert_non_null(req);
	char *nl = strchr(req, '\n');
	assert_non_null(nl);
	*nl = '\0';
	char method[16], target[1024];
	assert_int_equal(sscanf(req, "%15s %1023s", method, target), 2);
	/* a raw space in the target: the method is followed by the path up to " HTTP/" */
	char *http = strstr(req, " HTTP/");
	if (http) {
		size_t tl = (size_t)(http - (req + strlen(method) + 1));
		if (tl < sizeof(target))
			snprintf(target, sizeof(target), "%.*s", (int)tl, req + strlen(method) + 1);
	}
	struct curl_slist *hdr = NULL;
	char *p = nl + 1, *body = NULL;
	while (*p) {
		char *e = strchr(p, '\n');
		if (e)
			*e = '\0';
		if (!*p) {
			body = e ? e + 1 : NULL;
			break;
		}
		if (*p == ' ' || *p == '\t') {
			p = e ? e + 1 : p + strlen(p);
			continue; /* folded continuation: not sendable */
		}
		hdr = curl_slist_append(hdr, p);
		if (!e)
			break;
		p = e + 1;
	}
	if (strcmp(name, "get-vanilla-with-session-token") == 0)
		hdr = curl_slist_append(hdr, "X-Amz-Security-Token:" TOKEN_GET);

	struct ec2_conn c;
	struct diag d = DIAG_INIT;
	assert_int_equal(ec2_conn_init(&c, NULL, "us-east-1", "AKIDEXAMPLE",
				       "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", NULL, &d), 0);
	free(c.service);
	c.service = xstrdup("service");
	char url[1200];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", cap.port, target);
	long status = 0;
	struct strbuf resp = STRBUF_INIT;
	char errbuf[CURL_ERROR_SIZE];
	pthread_mutex_lock(&cap.mu);
	free(cap.authz);
	cap.authz = NULL;
	pthread_mutex_unlock(&cap.mu);
	CURLcode rc = ec2_http_send(&c, method, url, hdr, body, body ? strlen(body) : 0, &status,
				    &resp, errbuf);
	char *got = NULL;
	if (rc == CURLE_OK) {
		pthread_mutex_lock(&cap.mu);
		got = cap.authz ? xstrdup(cap.authz) : NULL;
		pthread_mutex_unlock(&cap.mu);
	}
	strbuf_release(&resp);
	ec2_conn_release(&c);
	curl_slist_free_all(hdr);
	diag_release(&d);
	free(req);
	return got;
}

static int checked, passed, known, mismatches;

static void run_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = xasprintf("%s/%s", dir, de->d_name);
		char *path = xasprintf("%s/%s.req", sub, de->d_name);
		if (access(path, R_OK) != 0) {
			free(path);
			run_dir(sub);
			free(sub);
			continue;
		}
		free(path);
		path = xasprintf("%s/%s.authz", sub, de->d_name);
		char *want = slurp(path, NULL);
		free(path);
		assert_non_null(want);
		char *got = sign_case(sub, de->d_name);
		bool same = got && strcmp(got, want) == 0;
		const char *why = why_unsupported(de->d_name);
		checked++;
		if (why) {
			known++;
			printf("# unsupported %s: %s%s (got %s)\n", de->d_name, why,
			       same ? " [NOW PASSES: remove from unsupported[]]" : "", got ? "a different signature" : "no request");
			if (same)
				mismatches++;
		} else if (!same) {
			printf("not ok %s: Authorization\n#  got:  %s\n#  want: %s\n", de->d_name,
			       got ? got : "(none)", want);
			mismatches++;
		} else {
			printf("ok %s\n", de->d_name);
			passed++;
		}
		free(got);
		free(want);
		free(sub);
	}
	closedir(dp);
}

static void test_sigv4_suite(void **state)
{
	if (access(vecdir, R_OK) != 0) {
		fail_msg("the test vectors are missing: %s", vecdir);
	}
	run_dir(vecdir);
	printf("# %d cases: %d signed identically, %d unsupported by libcurl %s\n", checked, passed,
	       known, curl_version_info(CURLVERSION_NOW)->version);
	assert_int_equal(mismatches, 0);
	assert_int_equal(checked, 34);
	assert_int_equal(passed, 21);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigv4_suite),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
