/* docker-ready.c: readiness of a Docker VM. A container is running for imc
 * when its sshd answers that it accepts the infrastructure's public key for
 * the login user (the "publickey" query of RFC 4252 §7, which needs no
 * private key); polled with a short backoff until a deadline, and given up
 * at once when the container is no longer running (its command failed:
 * no sshd in the image, ...). The host key is the one the container made
 * at its first start, so it is not compared with anything. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libssh/libssh.h>

#include "cloud/docker.h"
#include "util/log.h"
#include "util/sshkey.h"
#include "util/xalloc.h"
#include "util/banned.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 when sshd accepts key for user, 0 when not (yet), with why set. */
static int probe(const char *ip, const char *user, ssh_key key, char **why)
{
	ssh_session s = ssh_new();
	unsigned port = 22;
	long tmo = 2;
	bool no = false;
	int ok = 0;
	ssh_options_set(s, SSH_OPTIONS_HOST, ip);
	ssh_options_set(s, SSH_OPTIONS_PORT, &port);
	ssh_options_set(s, SSH_OPTIONS_USER, user);
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &tmo);
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
	free(*why);
	if (ssh_connect(s) == SSH_OK) {
		if (ssh_userauth_try_publickey(s, NULL, key) == SSH_AUTH_SUCCESS) {
			ok = 1;
			*why = NULL;
		} else {
			*why = xasprintf("the server refuses the key for '%s'", user);
		}
		ssh_disconnect(s);
	} else {
		*why = xstrdup(ssh_get_error(s));
	}
	ssh_free(s);
	return ok;
}

/* Whether the container still runs; its exit code otherwise. */
static bool still_running(struct docker_conn *c, const char *name, long *exit_code)
{
	struct docker_reply r;
	struct diag tmp = DIAG_INIT;
	char *path = xasprintf("/containers/%s/json", name);
	bool run = true;
	if (docker_call(c, "GET", path, NULL, &r, &tmp) == 0) {
		json_t *st = json_object_get(r.json, "State");
		if (r.status == 404 || (r.status == 200 && !json_is_true(json_object_get(st, "Running")))) {
			run = false;
			*exit_code = (long)json_integer_value(json_object_get(st, "ExitCode"));
		}
		docker_reply_release(&r);
	}
	diag_release(&tmp);
	free(path);
	return run;
}

int docker_wait_ready(struct docker_conn *c, const char *name, int num, const char *ip,
		      const char *user, const char *pubkey, double timeout, struct diag *d)
{
	ssh_key key = pubkey ? sshkey_import_line(pubkey) : NULL;
	char *why = NULL;
	int ret = -1;
	if (!key) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "VM %d: cannot read the infrastructure's public key",
			   num);
		return -1;
	}
	double start = now(), deadline = start + timeout;
	long backoff_ms = 10;
	for (int attempt = 1;; attempt++) {
		if (probe(ip, user, key, &why)) {
			log_debug(DOCKER_LOG, "VM %d ready after %.3f s (%d attempts)", num, now() - start,
				  attempt);
			ret = 0;
			break;
		}
		long code = 0;
		if (!still_running(c, name, &code)) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "VM %d: container %s stopped (exit status %ld) before its sshd was ready%s",
				   num, name, code,
				   code == 127 ? ": the image has no /usr/sbin/sshd (openssh-server)" : "");
			break;
		}
		if (now() + (double)backoff_ms / 1000 > deadline) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: sshd at %s:22 not ready after %.0f s: %s",
				   num, ip, timeout, why ? why : "no answer");
			break;
		}
		struct timespec ts = { backoff_ms / 1000, (backoff_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		if (backoff_ms < 200)
			backoff_ms *= 2;
	}
	free(why);
	ssh_key_free(key);
	return ret;
}
