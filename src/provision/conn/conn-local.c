/* conn-local.c: the local connection (ansible -c local): every command runs
 * under /bin/sh -c in a child process of imc, with stdin fed from memory and
 * stdout/stderr captured. It implements the same vtable as the SSH
 * connection, so modules cannot tell the two apart. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pwd.h>

#include "provision/conn/conn.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int local_exec(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
		      struct conn_result *r, struct diag *d)
{
	int pin[2], pout[2], perr[2];
	conn_count(c);
	if (pipe2(pin, O_CLOEXEC) < 0 || pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create pipes: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot fork: %s", strerror(errno));
		close(pin[0]); close(pin[1]); close(pout[0]); close(pout[1]);
		close(perr[0]); close(perr[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	int fin = pin[1];
	fcntl(fin, F_SETFL, O_NONBLOCK);
	size_t off = 0;
	if (inlen == 0) {
		close(fin);
		fin = -1;
	}
	struct pollfd pf[3];
	int fds[2] = { pout[0], perr[0] };
	while (fds[0] >= 0 || fds[1] >= 0 || fin >= 0) {
		for (int i = 0; i < 2; i++) {
			pf[i].fd = fds[i];
			pf[i].events = POLLIN;
			pf[i].revents = 0;
		}
		pf[2].fd = fin;
		pf[2].events = POLLOUT;
		pf[2].revents = 0;
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i] < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[65536];
			ssize_t k = read(fds[i], buf, sizeof(buf));
			if (k > 0)
				strbuf_add(i == 0 ? &r->out : &r->err, buf, (size_t)k);
			else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(fds[i]);
				fds[i] = -1;
			}
		}
		if (fin >= 0 && (pf[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = write(fin, (const char *)in + off, inlen - off);
			if (k > 0)
				off += (size_t)k;
			if ((k < 0 && errno != EAGAIN && errno != EINTR) || off >= inlen) {
				close(fin);
				fin = -1;
			}
		}
	}
	pout[0] = fds[0];
	perr[0] = fds[1];
	if (fin >= 0)
		close(fin);
	if (pout[0] >= 0)
		close(pout[0]);
	if (perr[0] >= 0)
		close(perr[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

static void local_close(struct task_conn *c)
{
	free(c->user);
	free(c);
}

static const struct task_conn_ops local_ops = {
	.name = "local",
	.exec = local_exec,
	.close = local_close,
};

struct task_conn *conn_local_open(void)
{
	struct task_conn *c = xcalloc(1, sizeof(*c));
	c->ops = &local_ops;
	struct passwd *pw = getpwuid(geteuid());
	c->user = xstrdup(pw ? pw->pw_name : "root");
	c->is_root = geteuid() == 0;
	return c;
}
