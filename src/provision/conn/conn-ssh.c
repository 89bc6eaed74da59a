/* conn-ssh.c: the SSH connection, with libssh: one persistent session per
 * host, its commands run by one persistent shell on the node
 * (conn-pshell.c) or, where that shell cannot carry them (a node without
 * base64(1), a large stdin, raw's login-shell semantics), by one exec
 * channel per command (no ControlMaster or Python needed),
 * public key authentication with the infrastructure's ed25519 key, the
 * host key pinned on first contact (reported through on_hostkey) and
 * verified on every later connection (a changed key is refused), waiting
 * for sshd to come up with backoff until a deadline, and one reconnect when
 * an established session turns out dropped before a command started (a
 * command that may have started is never sent twice). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "provision/conn/conn-pshell.h"
#include "provision/conn/conn.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct ssh_priv {
	/* one command at a time: a session is shared when tasks of other
	 * hosts are delegated to this one (delegate_to) */
	pthread_mutex_t lock;
	ssh_session s;
	struct pshell *ps; /* NULL until first used, or when it cannot be */
	bool no_ps;        /* this node cannot carry the persistent shell */
	char *host, *user, *key_path, *pinned;
	int port;
	int timeout;
	void (*on_hostkey)(void *opaque, const char *key);
	void *opaque;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void lib_init(void)
{
	ssh_init();
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "TYPE BASE64" of the server's key; malloc'd or NULL */
static char *server_key(ssh_session s)
{
	ssh_key k = NULL;
	if (ssh_get_server_publickey(s, &k) != SSH_OK)
		return NULL;
	char *b64 = NULL;
	char *r = NULL;
	if (ssh_pki_export_pubkey_base64(k, &b64) == SSH_OK)
		r = xasprintf("%s %s", ssh_key_type_to_char(ssh_key_type(k)), b64);
	ssh_string_free_char(b64);
	ssh_key_free(k);
	return r;
}

/* compares "TYPE BASE64[ comment]" ignoring comments */
static bool same_key(const char *a, const char *b)
{
	size_t na = strcspn(a, " "), nb = strcspn(b, " ");
	if (na != nb || strncmp(a, b, na))
		return false;
	a += na + strspn(a + na, " ");
	b += nb + strspn(b + nb, " ");
	size_t la = strcspn(a, " \n"), lb = strcspn(b, " \n");
	return la == lb && !strncmp(a, b, la);
}

static int try_connect(struct ssh_priv *p, struct diag *d, bool *retryable)
{
	*retryable = false;
	ssh_session s = ssh_new();
	if (!s) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot create an SSH session");
		return -1;
	}
	long to = 10;
	int verbosity = SSH_LOG_NOLOG;
	int nodelay = 1;
	ssh_options_set(s, SSH_OPTIONS_HOST, p->host);
	ssh_options_set(s, SSH_OPTIONS_PORT, &p->port);
	ssh_options_set(s, SSH_OPTIONS_USER, p->user);
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &to);
	ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
	ssh_options_set(s, SSH_OPTIONS_NODELAY, &nodelay);
	/* never read or write the user's ~/.ssh: the pin is ours */
	ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
	ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &(int){ 0 });
	if (ssh_connect(s) != SSH_OK) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot connect to %s port %d: %s", p->host,
			   p->port, ssh_get_error(s));
		ssh_free(s);
		*retryable = true;
		return -1;
	}
	char *key = server_key(s);
	if (!key) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: cannot read the SSH host key", p->host);
		goto fail;
	}
	if (p->pinned) {
		if (!same_key(p->pinned, key)) {
			size_t n = strcspn(key, " ");
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "host key verification failed for %s port %d: the %.*s key differs from "
				   "the one pinned on first contact; refusing to connect (possible "
				   "man-in-the-middle, or the VM was rebuilt)",
				   p->host, p->port, (int)n, key);
			free(key);
			goto fail;
		}
	} else {
		p->pinned = xstrdup(key);
		if (p->on_hostkey)
			p->on_hostkey(p->opaque, key);
	}
	free(key);
	ssh_key priv = NULL;
	if (ssh_pki_import_privkey_file(p->key_path, NULL, NULL, NULL, &priv) != SSH_OK) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot read the private key '%s'", p->key_path);
		goto fail;
	}
	int rc = ssh_userauth_publickey(s, NULL, priv);
	ssh_key_free(priv);
	if (rc != SSH_AUTH_SUCCESS) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: SSH public key authentication as '%s' failed%s%s",
			   p->host, p->user, rc == SSH_AUTH_ERROR ? ": " : "",
			   rc == SSH_AUTH_ERROR ? ssh_get_error(s) : "");
		/* a fresh VM may not have the key installed yet */
		*retryable = true;
		goto fail;
	}
	p->s = s;
	return 0;
fail:
	ssh_disconnect(s);
	ssh_free(s);
	return -1;
}

/* Connects, retrying with backoff until p->timeout seconds have passed. */
static int ssh_reconnect(struct ssh_priv *p, struct diag *d)
{
	double end = now_s() + (p->timeout > 0 ? p->timeout : 0);
	double wait = 0.1;
	for (;;) {
		struct diag tmp = DIAG_INIT;
		bool retry;
		if (try_connect(p, &tmp, &retry) == 0) {
			diag_release(&tmp);
			return 0;
		}
		log_debug("ssh", "%s:%d: %s%s", p->host, p->port, diag_first_message(&tmp),
			  retry ? " (retrying)" : "");
		if (!retry || now_s() + wait > end) {
			diag_error(d, tmp.code ? tmp.code : IMC_EXIT_UNAVAILABLE, NULL, "%s",
				   diag_first_message(&tmp));
			diag_release(&tmp);
			return -1;
		}
		diag_release(&tmp);
		usleep((useconds_t)(wait * 1e6));
		wait = wait * 2 > 2 ? 2 : wait * 2;
	}
}

/* The signal that ended a channel's command, by the name SSH gives it
 * (RFC 4254: the signal's name without "SIG"), for the 128 + signal status
 * a shell reports, as the persistent shell does. */
static void on_exit_signal(ssh_session s, ssh_channel ch, const char *name, int core,
			   const char *errmsg, const char *lang, void *userdata)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
		{ "ABRT", SIGABRT }, { "FPE", SIGFPE }, { "KILL", SIGKILL }, { "SEGV", SIGSEGV },
		{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 },
	};
	(void)s, (void)ch, (void)core, (void)errmsg, (void)lang;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (name && !strcmp(name, sigs[i].name))
			*(int *)userdata = sigs[i].sig;
}

static int run_channel(struct ssh_priv *p, const char *cmd, const void *in, size_t inlen,
		       struct conn_result *r, bool *retry)
{
	*retry = false;
	ssh_channel ch = ssh_channel_new(p->s);
	if (!ch) {
		*retry = true;
		return -1;
	}
	if (ssh_channel_open_session(ch) != SSH_OK) {
		ssh_channel_free(ch);
		*retry = true;
		return -1;
	}
	int sig = 0;
	struct ssh_channel_callbacks_struct cb = { .userdata = &sig,
						   .channel_exit_signal_function = on_exit_signal };
	ssh_callbacks_init(&cb);
	ssh_set_channel_callbacks(ch, &cb);
	if (ssh_channel_request_exec(ch, cmd) != SSH_OK)
		goto fail;
	size_t off = 0;
	while (off < inlen) {
		int n = ssh_channel_write(ch, (const char *)in + off,
					  (uint32_t)(inlen - off > 65536 ? 65536 : inlen - off));
		if (n < 0)
			goto fail;
		off += (size_t)n;
	}
	ssh_channel_send_eof(ch);
	char buf[65536];
	for (;;) {
		int n = ssh_channel_read_timeout(ch, buf, sizeof(buf), 0, 1000);
		if (n == SSH_ERROR)
			goto fail;
		if (n > 0)
			strbuf_add(&r->out, buf, (size_t)n);
		int e;
		while ((e = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 1)) > 0)
			strbuf_add(&r->err, buf, (size_t)e);
		if (e == SSH_ERROR)
			goto fail;
		if (n == 0 && ssh_channel_is_eof(ch))
			break;
	}
	int e;
	while ((e = ssh_channel_read(ch, buf, sizeof(buf), 1)) > 0)
		strbuf_add(&r->err, buf, (size_t)e);
	r->rc = ssh_channel_get_exit_status(ch);
	if (r->rc < 0)
		r->rc = sig ? 128 + sig : 255;
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return 0;
fail:
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	return -1;
}

/* Ends the session and its shell (whose channel the session owns). */
static void drop_session(struct ssh_priv *p)
{
	pshell_close(p->ps);
	p->ps = NULL;
	if (p->s) {
		ssh_disconnect(p->s);
		ssh_free(p->s);
		p->s = NULL;
	}
}

/* Runs cmd through the persistent shell: 0 ran, -1 broke while running (d
 * set), 1 not run (the caller uses a channel of its own). */
static int ps_exec(struct ssh_priv *p, const char *cmd, const void *in, size_t inlen,
		   struct conn_result *r, struct diag *d)
{
	if (p->no_ps)
		return 1;
	if (!p->ps) {
		p->ps = pshell_open(p->s, p->host);
		if (!p->ps) {
			p->no_ps = ssh_is_connected(p->s);
			return 1;
		}
	}
	/* too large for this shell, not a shell that fails: keep it */
	if (inlen > pshell_max_stdin(p->ps))
		return 1;
	int rc = pshell_exec(p->ps, cmd, in, inlen, r, d);
	if (rc != 0) {
		pshell_close(p->ps);
		p->ps = NULL;
		/* a shell that refused a command on a live session will again */
		if (rc > 0 && ssh_is_connected(p->s))
			p->no_ps = true;
	}
	return rc;
}

static int ssh_exec_locked(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
			   struct conn_result *r, struct diag *d, bool login)
{
	struct ssh_priv *p = c->priv;
	bool retry = true;
	conn_count(c);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!p->s || !ssh_is_connected(p->s)) {
			drop_session(p);
			int saved = p->timeout;
			p->timeout = saved > 30 ? 30 : saved;
			int rc = ssh_reconnect(p, d);
			p->timeout = saved;
			if (rc < 0)
				return -1;
		}
		if (!login) {
			int prc = ps_exec(p, cmd, in, inlen, r, d);
			if (prc <= 0)
				return prc;
		}
		strbuf_reset(&r->out);
		strbuf_reset(&r->err);
		if (run_channel(p, cmd, in, inlen, r, &retry) == 0)
			return 0;
		/* once the command may have started, it is never sent again: a
		 * second run of a non-idempotent command (a reboot, an append)
		 * would differ from Ansible, which reports the host unreachable */
		if (!retry) {
			if (ssh_is_connected(p->s))
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: SSH command failed: %s", p->host,
					   ssh_get_error(p->s));
			else
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
					   "%s: SSH connection lost while the command ran (not run again)", p->host);
			drop_session(p);
			return -1;
		}
		/* the session dropped before the command started: reconnect once */
		drop_session(p);
	}
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: SSH connection lost", p->host);
	return -1;
}

static int ssh_exec(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
		    struct conn_result *r, struct diag *d)
{
	struct ssh_priv *p = c->priv;
	pthread_mutex_lock(&p->lock);
	int rc = ssh_exec_locked(c, cmd, in, inlen, r, d, false);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static int ssh_exec_login(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
			  struct conn_result *r, struct diag *d)
{
	struct ssh_priv *p = c->priv;
	pthread_mutex_lock(&p->lock);
	int rc = ssh_exec_locked(c, cmd, in, inlen, r, d, true);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static void ssh_close(struct task_conn *c)
{
	struct ssh_priv *p = c->priv;
	pthread_mutex_destroy(&p->lock);
	drop_session(p);
	free(p->host);
	free(p->user);
	free(p->key_path);
	free(p->pinned);
	free(p);
	free(c->user);
	free(c);
}

/* True when s is "0" (optionally followed by a newline). */
static bool atoi_strict_zero(const char *s)
{
	return s[0] == '0' && (s[1] == '\0' || s[1] == '\n');
}

static const struct task_conn_ops ssh_ops = {
	.name = "ssh",
	.exec = ssh_exec,
	.exec_login = ssh_exec_login,
	.close = ssh_close,
};

int conn_ssh_target(struct task_conn *c, struct conn_ssh_opts *o)
{
	if (!c || c->ops != &ssh_ops)
		return -1;
	struct ssh_priv *p = c->priv;
	pthread_mutex_lock(&p->lock);
	*o = (struct conn_ssh_opts){ .host = p->host, .port = p->port, .user = p->user,
				     .key_path = p->key_path, .pinned_key = p->pinned };
	pthread_mutex_unlock(&p->lock);
	return 0;
}

struct task_conn *conn_ssh_open(const struct conn_ssh_opts *o, struct diag *d)
{
	pthread_once(&init_once, lib_init);
	struct ssh_priv *p = xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->host = xstrdup(o->host);
	p->user = xstrdup(o->user ? o->user : "root");
	p->key_path = xstrdup(o->key_path ? o->key_path : "");
	p->pinned = o->pinned_key ? xstrdup(o->pinned_key) : NULL;
	p->port = o->port > 0 ? o->port : 22;
	p->timeout = o->timeout;
	p->on_hostkey = o->on_hostkey;
	p->opaque = o->opaque;
	if (ssh_reconnect(p, d) < 0) {
		pthread_mutex_destroy(&p->lock);
		free(p->host);
		free(p->user);
		free(p->key_path);
		free(p->pinned);
		free(p);
		return NULL;
	}
	struct task_conn *c = xcalloc(1, sizeof(*c));
	c->ops = &ssh_ops;
	c->priv = p;
	c->user = xstrdup(p->user);
	/* Root is uid 0, whatever the login name (a cloud's 'ubuntu' may be
	 * mapped to uid 0, as the local cloud's VMs do): ask once. */
	c->is_root = !strcmp(p->user, "root");
	struct conn_result r;
	conn_result_init(&r);
	struct diag idd = DIAG_INIT;
	if (ssh_exec(c, "id -u", NULL, 0, &r, &idd) == 0 && r.rc == 0)
		c->is_root = atoi_strict_zero(strbuf_str(&r.out));
	conn_result_release(&r);
	diag_release(&idd);
	return c;
}
