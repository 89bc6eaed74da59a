/* local-ready.c: readiness of a local VM. A VM is running when its sshd
 * completes a key exchange showing the host key the backend generated for
 * it and answers that it accepts the infrastructure's public key (the
 * "publickey" query of RFC 4252 §7, which needs no private key). Checked
 * with libssh, polling with a short backoff until a deadline. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libssh/libssh.h>

#include "cloud/local.h"
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

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int local_wait_ready(const struct local_vm *vm, const char *user, const char *pubkey,
		     double timeout, struct diag *d)
{
	if (vm->nnics == 0) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "VM %d has no address", vm->num);
		return -1;
	}
	char *hostline = local_host_pubkey(vm);
	ssh_key want = hostline ? sshkey_import_line(hostline) : NULL;
	ssh_key auth = pubkey ? sshkey_import_line(pubkey) : NULL;
	free(hostline);
	int ret = -1;
	if (!want || !auth) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "VM %d: cannot read the %s key", vm->num,
			   want ? "infrastructure's public" : "host");
		goto out;
	}
	const char *ip = vm->nics[0].ip;
	unsigned port = vm->port > 0 ? (unsigned)vm->port : 22;
	double start = now(), deadline = start + timeout;
	char *last = xstrdup("no answer");
	char *pidf = xasprintf("%s/sshd.pid", vm->dir);
	long backoff = 5;
	for (int attempt = 0;; attempt++) {
		ssh_session s = ssh_new();
		long tmo = 2;
		bool no = false;
		ssh_options_set(s, SSH_OPTIONS_HOST, ip);
		ssh_options_set(s, SSH_OPTIONS_PORT, &port);
		ssh_options_set(s, SSH_OPTIONS_USER, user);
		ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &tmo);
		ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
		bool fatal = false, ok = false;
		if (ssh_connect(s) == SSH_OK) {
			ssh_key srv = NULL;
			if (ssh_get_server_publickey(s, &srv) != SSH_OK ||
			    ssh_key_cmp(srv, want, SSH_KEY_CMP_PUBLIC) != 0) {
				free(last);
				last = xstrdup("the server's host key is not the VM's");
				fatal = true;
			} else {
				int rc = ssh_userauth_try_publickey(s, NULL, auth);
				if (rc == SSH_AUTH_SUCCESS) {
					ok = true;
				} else {
					free(last);
					last = xasprintf("the server refuses the key for '%s'", user);
				}
			}
			ssh_key_free(srv);
			ssh_disconnect(s);
		} else {
			free(last);
			last = xstrdup(ssh_get_error(s));
		}
		ssh_free(s);
		if (ok) {
			log_debug(LOCAL_LOG, "VM %d ready after %.3f s (%d attempts)", vm->num,
				  now() - start, attempt + 1);
			ret = 0;
			break;
		}
		/* an sshd that died will not come back */
		double el = now() - start;
		pid_t pid = local_read_pidfile(pidf);
		if ((pid > 0 && !local_pid_alive(pid)) || (pid <= 0 && el > 5.0))
			fatal = true;
		if (fatal || now() + (double)backoff / 1000 > deadline) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: sshd at %s:%u not ready: %s",
				   vm->num, ip, port, last);
			break;
		}
		pause_ms(backoff);
		if (backoff < 100)
			backoff *= 2;
	}
	free(pidf);
	free(last);
out:
	ssh_key_free(want);
	ssh_key_free(auth);
	return ret;
}
