/* http.c: the HTTP side of `imc serve` (see server.h): a libmicrohttpd
 * daemon (HTTPS with --tls-cert/--tls-key, through its GnuTLS) with a
 * thread per connection (a synchronous create waits for its
 * worker without holding up the other clients), the limits every request
 * is held to (header size through MHD's per-connection memory pool, body
 * size counted here, connections at once, idle time per connection), the
 * body collected, the request handed to route.c and the answer sent.
 * Nothing logged here carries a header's value: the Authorization header
 * holds passwords. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* What one request collected between the calls MHD makes for it. */
struct srv_conn {
	struct strbuf body;
	bool too_big;
};

/* The media type of a header, without its parameters (";charset=..."). */
static char *media_type(struct MHD_Connection *c, const char *header)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, header);
	if (!v)
		return NULL;
	size_t n = strcspn(v, ";,");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	return xstrndup(v, n);
}

/* Splits the path into decoded segments ("/a//b/" gives a, b). */
static void split_path(const char *url, char ***seg, size_t *n)
{
	*seg = NULL;
	*n = 0;
	const char *p = url;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, "/");
		char *s = xstrndup(p, len);
		MHD_http_unescape(s);
		*seg = xreallocarray(*seg, *n + 1, sizeof(**seg));
		(*seg)[(*n)++] = s;
		p += len;
	}
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct srv_reply *out)
{
	size_t len = out->body.len;
	char *body = strbuf_detach(&out->body);
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (out->type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, out->type);
	enum MHD_Result ret = MHD_queue_response(c, out->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	const struct srv_config *cfg = cls;
	struct srv_conn *sc = *con_cls;
	(void)version;
	if (!sc) {
		sc = xcalloc(1, sizeof(*sc));
		strbuf_init(&sc->body, 0);
		*con_cls = sc;
		/* a declared length over the limit is refused before it is sent */
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > cfg->max_body)
			sc->too_big = true;
		else
			return MHD_YES;
	}
	if (*upload_size && !sc->too_big) {
		if (sc->body.len + *upload_size > cfg->max_body)
			sc->too_big = true;
		else
			strbuf_add(&sc->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	*upload_size = 0;
	/* the credentials this request registers are released at its end */
	secret_scope_begin();
	struct srv_request r = { .cfg = cfg, .method = method, .conn = c };
	struct srv_reply out = { .status = 200 };
	strbuf_init(&out.body, 0);
	char *accept = media_type(c, MHD_HTTP_HEADER_ACCEPT);
	char *ctype = media_type(c, MHD_HTTP_HEADER_CONTENT_TYPE);
	r.accept = accept;
	r.content_type = ctype;
	r.authorization = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const char *scheme = cfg->tls_cert ? "https" : "http";
	char *base = host ? xasprintf("%s://%s", scheme, host) : xasprintf("%s://%s:%u", scheme, cfg->bind, cfg->port);
	r.base = base;
	split_path(url, &r.seg, &r.nseg);
	if (sc->too_big)
		srv_reply_error(&r, &out, MHD_HTTP_CONTENT_TOO_LARGE,
				"Request body too large (more than %zu bytes)", cfg->max_body);
	else {
		r.body = strbuf_str(&sc->body);
		r.len = sc->body.len;
		srv_route(&r, &out);
	}
	log_info("serve", "%s %s: %u", method, url, out.status);
	enum MHD_Result ret = send_reply(c, &out);
	strbuf_release(&out.body);
	for (size_t i = 0; i < r.nseg; i++)
		free(r.seg[i]);
	free(r.seg);
	free(base);
	free(accept);
	free(ctype);
	secret_scope_end();
	return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
	struct srv_conn *sc = *con_cls;
	(void)cls;
	(void)c;
	(void)why;
	if (!sc)
		return;
	strbuf_release(&sc->body);
	free(sc);
	*con_cls = NULL;
}

static int write_pid_file(const char *path, struct diag *d)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *fp = fopen(tmp, "w");
	int rc = -1;
	if (!fp || fprintf(fp, "%ld\n", (long)getpid()) < 0 || fclose(fp) != 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", tmp, strerror(errno));
		fp = NULL;
	} else if (rename(tmp, path) < 0)
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path, strerror(errno));
	else
		rc = 0;
	free(tmp);
	return rc;
}

/* The certificate and key of --tls-cert/--tls-key into cert and key:
 * 0, or -1 with d set (no TLS in this libmicrohttpd, a file unreadable). */
static int read_tls(const struct srv_config *cfg, struct strbuf *cert, struct strbuf *key, struct diag *d)
{
	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "this libmicrohttpd was built without TLS: no --tls-cert");
		return -1;
	}
	if (strbuf_read_file(cert, cfg->tls_cert) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s': %s", cfg->tls_cert, strerror(errno));
		return -1;
	}
	if (strbuf_read_file(key, cfg->tls_key) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s': %s", cfg->tls_key, strerror(errno));
		return -1;
	}
	return 0;
}

int server_run(const struct srv_config *cfg, struct diag *d)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port) };
	struct strbuf cert = STRBUF_INIT, key = STRBUF_INIT;
	int rc = -1;
	if (inet_pton(AF_INET, cfg->bind, &sa.sin_addr) != 1) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "'%s' is not an IPv4 address to listen on", cfg->bind);
		return -1;
	}
	if (cfg->tls_cert && read_tls(cfg, &cert, &key, d) < 0)
		goto out;
	/* SIGINT and SIGTERM are taken by sigwait below, in no other thread:
	 * blocked before MHD starts its threads, which inherit the mask */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* with TLS, GnuTLS (inside libmicrohttpd) takes the PEM texts */
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)(uintptr_t)strbuf_str(&cert) },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)(uintptr_t)strbuf_str(&key) },
		{ MHD_OPTION_END, 0, NULL },
	};
	if (cfg->tls_cert)
		flags |= MHD_USE_TLS;
	else
		tls[0].option = MHD_OPTION_END;
	struct MHD_Daemon *daemon = MHD_start_daemon(
		flags, (uint16_t)cfg->port, NULL, NULL, answer, (void *)(uintptr_t)cfg, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT, cfg->max_conns, MHD_OPTION_CONNECTION_TIMEOUT,
		cfg->timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT, cfg->max_header, MHD_OPTION_NOTIFY_COMPLETED,
		completed, NULL, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	if (!daemon) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot listen on %s:%u%s", cfg->bind, cfg->port,
			   cfg->tls_cert ? " (or the certificate and key do not go together)" : "");
		goto out;
	}
	/* port 0: the kernel picked one, which the client must learn */
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	unsigned port = info && info->port ? info->port : cfg->port;
	fprintf(stderr, "imc serve: listening on %s://%s:%u/ (IMC_HOME %s)\n", cfg->tls_cert ? "https" : "http",
		cfg->bind, port, cfg->home);
	if (cfg->pid_file && write_pid_file(cfg->pid_file, d) < 0) {
		MHD_stop_daemon(daemon);
		goto out;
	}
	int sig = 0;
	while (sigwait(&set, &sig) != 0)
		;
	log_info("serve", "signal %d: stopping", sig);
	MHD_stop_daemon(daemon);
	srv_background_wait();
	if (cfg->pid_file)
		unlink(cfg->pid_file);
	rc = 0;
out:
	/* the private key is not left in freed memory */
	if (key.buf)
		memset(key.buf, 0, key.len);
	strbuf_release(&key);
	strbuf_release(&cert);
	return rc;
}
