/* cmd-ssh.c: 'imc ssh ID [VM] [-- COMMAND...]': an interactive shell, or
 * one command, on a VM of an infrastructure, over SSH with the
 * infrastructure's own key and the VM's pinned host key (never trusting a
 * key on first sight when one is pinned). Runs the OpenSSH client
 * (fork/execvp with an argv array) and exits with the remote command's
 * status; 69 when the VM cannot be reached. With --json a COMMAND is
 * required: its stdout, stderr and status come back in one JSON document.
 *
 * The VM defaults to the lowest-numbered one (IM's master). The login user
 * is the backend's when it says (the local cloud logs in as root), else the
 * stored one. Known hosts go to $IMC_HOME/infra/ID/known_hosts (0600). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "state/store.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define OUTPUT_CAP (16u << 20)

static bool reachable_state(enum vm_state s)
{
	return s == VM_RUNNING || s == VM_CONFIGURED || s == VM_UNCONFIGURED || s == VM_UNKNOWN;
}

/* "TYPE BASE64" from a stored key ("TYPE BASE64 [comment]"), or NULL. */
static char *key_words(const char *k)
{
	if (!k || (strncmp(k, "ssh-", 4) && strncmp(k, "ecdsa-", 6)))
		return NULL;
	const char *sp = strchr(k, ' ');
	if (!sp)
		return NULL;
	size_t n = (size_t)(sp - k) + 1 + strcspn(sp + 1, " \r\n");
	return xstrndup(k, n);
}

/* A JSON string of remote output; bytes that are not UTF-8 become '?'. */
static json_t *text_json(char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	for (char *p = s; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	return json_string(s);
}

/* Runs argv; with out/err non-NULL captures them (stdin from /dev/null). */
static int run_ssh(char **argv, struct strbuf *out, struct strbuf *err, int *status,
		   struct diag *d)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	if (out && (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid_t pid = fork();
	if (pid < 0) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot fork: %s", strerror(errno));
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		return -1;
	}
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		if (out) {
			int null = open("/dev/null", O_RDONLY);
			dup2(null, 0);
			dup2(po[1], 1);
			dup2(pe[1], 2);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "imc ssh: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		close(po[1]);
		close(pe[1]);
		struct pollfd pf[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int open_fds = 2;
		while (open_fds > 0) {
			if (poll(pf, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < 2; i++) {
				if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				char buf[8192];
				ssize_t r = read(pf[i].fd, buf, sizeof(buf));
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0) {
					close(pf[i].fd);
					pf[i].fd = -1;
					open_fds--;
					continue;
				}
				strbuf_add(i == 0 ? out : err, buf, (size_t)r);
			}
		}
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return 0;
}

/* Before anything is opened: --json captures a command's output. */
static int check_operands(struct cmd_args *a)
{
	if (a->ctx->json && a->nrest == 0)
		return cmd_usage_error(a->cmd, "--json needs a COMMAND after '--'");
	return 0;
}

static int run(struct cmd_args *a)
{
	int ncmd = a->nrest;
	struct state_vm *vms = NULL;
	size_t nvm = 0;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *key = NULL, *known = NULL, *hostkey = NULL, *user = NULL, *dest = NULL;
	char **av = NULL;
	json_t *data = NULL;
	int want = -1, rc = IMC_EXIT_OK;

	if (a->noperands == 2 && cli_vm_arg(a->operands[1], &want, a->d) < 0)
		goto out;
	if (state_vm_list(a->st, a->in->id, &vms, &nvm, a->d) < 0)
		goto out;
	struct state_vm *vm = NULL;
	for (size_t i = 0; i < nvm; i++)
		if (want < 0 ? (!vm || vms[i].num < vm->num) : vms[i].num == want)
			vm = &vms[i];
	if (!vm) {
		if (want < 0)
			diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM", a->in->id);
		else
			diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id,
				   want);
		goto out;
	}
	const char *addr = vm->public_ip ? vm->public_ip : vm->private_ip;
	if (!reachable_state(vm->state) || !addr) {
		diag_error(a->d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d is %s%s: no SSH to it", vm->num,
			   vm_state_name(vm->state), addr ? "" : " and has no address");
		goto out;
	}
	data = vm->data ? json_loads(vm->data, 0, NULL) : NULL;
	const char *duser = json_string_value(json_object_get(data, "user"));
	user = xstrdup(duser ? duser : vm->user ? vm->user : "root");
	hostkey = key_words(vm->hostkey);
	if (!hostkey)
		hostkey = key_words(json_string_value(json_object_get(data, "host_key")));
	key = deploy_key_path(state_home(a->st), a->in->id);
	if (access(key, R_OK) < 0) {
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "the key of infrastructure '%s' is gone (%s)",
			   a->in->id, key);
		goto out;
	}
	char *idir = state_infra_dir(a->st, a->in->id, a->d);
	if (!idir)
		goto out;
	known = xasprintf("%s/known_hosts", idir);
	free(idir);
	int port = vm->ssh_port > 0 ? vm->ssh_port : 22;
	if (hostkey) {
		char *line = port == 22 ? xasprintf("%s %s\n", addr, hostkey)
					: xasprintf("[%s]:%d %s\n", addr, port, hostkey);
		int fd = open(known, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		bool okw = fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line);
		if (fd >= 0)
			close(fd);
		free(line);
		if (!okw) {
			diag_error(a->d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", known,
				   strerror(errno));
			goto out;
		}
	} else {
		log_warn("ssh", "VM %d has no pinned host key: accepting the first one seen",
			 vm->num);
	}
	char *portstr = xasprintf("%d", port);
	char *ident = xasprintf("IdentityFile=%s", key);
	char *khf = xasprintf("UserKnownHostsFile=%s", known);
	dest = xasprintf("%s@%s", user, addr);
	const char *fixed[] = {
		"ssh", "-p", portstr, "-o", ident, "-o", "IdentitiesOnly=yes", "-o", khf,
		"-o", "GlobalKnownHostsFile=/dev/null", "-o",
		hostkey ? "StrictHostKeyChecking=yes" : "StrictHostKeyChecking=accept-new",
		"-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
		"-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR",
	};
	size_t nf = sizeof(fixed) / sizeof(fixed[0]);
	av = xcalloc(nf + 4 + (size_t)ncmd + 1, sizeof(*av));
	size_t k = 0;
	for (size_t i = 0; i < nf; i++)
		av[k++] = xstrdup(fixed[i]);
	if (a->ctx->json)
		av[k++] = xstrdup("-T"); /* else ssh picks: a tty for a shell */
	av[k++] = xstrdup(dest);
	if (ncmd) {
		av[k++] = xstrdup("--");
		for (int i = 0; i < ncmd; i++)
			av[k++] = xstrdup(a->rest[i]);
	}
	av[k] = NULL;
	free(portstr);
	free(ident);
	free(khf);

	log_info("ssh", "VM %d: %s port %d", vm->num, dest, port);
	int status = 0;
	if (a->ctx->json) {
		strbuf_init(&out, OUTPUT_CAP);
		strbuf_init(&err, OUTPUT_CAP);
	}
	if (run_ssh(av, a->ctx->json ? &out : NULL, a->ctx->json ? &err : NULL, &status, a->d) < 0)
		goto out;
	if (status == 255 || status == 127) {
		diag_error(a->d, IMC_EXIT_UNAVAILABLE, NULL, "cannot reach VM %d over SSH (%s port %d)",
			   vm->num, dest, port);
		if (a->ctx->json && err.len)
			diag_note(a->d, NULL, "%.*s", (int)strcspn(strbuf_str(&err), "\n"), strbuf_str(&err));
		goto out;
	}
	if (a->ctx->json) {
		json_t *doc = cli_json_doc();
		char *ro = redact(strbuf_str(&out)), *re = redact(strbuf_str(&err));
		json_object_set_new(doc, "id", json_string(a->in->id));
		json_object_set_new(doc, "vm", json_integer(vm->num));
		json_object_set_new(doc, "exit_status", json_integer(status));
		json_object_set_new(doc, "stdout", text_json(ro));
		json_object_set_new(doc, "stderr", text_json(re));
		json_object_set_new(doc, "truncated", json_boolean(out.truncated || err.truncated));
		free(ro);
		free(re);
		cli_json_print(doc);
	}
	rc = status;
out:
	for (size_t i = 0; av && av[i]; i++)
		free(av[i]);
	free(av);
	json_decref(data);
	strbuf_release(&out);
	strbuf_release(&err);
	free(key);
	free(known);
	free(hostkey);
	free(user);
	free(dest);
	state_vm_list_free(vms, nvm);
	return rc;
}

const struct imc_cmd cmd_ssh_entry = {
	.name = "ssh", .synopsis = "ID [VM] [-- COMMAND...]",
	.summary = "open a shell or run a command on a VM",
	.flags = CMD_NEEDS_INFRA | CMD_REST | CMD_ERRORS_ONLY, .check = check_operands, .run = run,
};
