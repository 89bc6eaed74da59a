/* local-run.c: runs a helper program (iproute2's ip) for the local backend
 * with fork/execvp and an argv array, never through a shell, so that no
 * RADL value can ever be interpreted as shell syntax. Optional text on its
 * stdin (for `ip -batch -`); stdout and stderr are captured together. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The absolute path of prog found in PATH before fork (execvp is not
 * async-signal-safe in the child of a threaded process); malloc'd, or NULL
 * to let execvp search. */
static char *resolve(const char *prog)
{
	if (strchr(prog, '/'))
		return NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char *cand = xasprintf("%.*s/%s", (int)n, path, prog);
		if (n && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

int local_run(const char *const *argv, const char *input, struct strbuf *out, struct diag *d)
{
	char *exe = resolve(argv[0]);
	int in[2] = { -1, -1 }, outp[2] = { -1, -1 };
	struct strbuf tmp = STRBUF_INIT;
	struct strbuf *o = out ? out : &tmp;

	if (!out)
		strbuf_init(&tmp, 64 * 1024);
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(outp, O_CLOEXEC) < 0) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot create a pipe: %s", strerror(errno));
		goto fail_pipes;
	}
	/* a child that stops reading must not kill us with SIGPIPE */
	sigset_t pipeset, oldset;
	sigemptyset(&pipeset);
	sigaddset(&pipeset, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipeset, &oldset);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		pthread_sigmask(SIG_SETMASK, &oldset, NULL);
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot fork: %s", strerror(errno));
		goto fail_pipes;
	}
	if (pid == 0) {
		/* child: only async-signal-safe calls from here. It dies with us:
		 * an orphaned `ip -batch` would go on creating namespaces while
		 * cleanup_infra removes them. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(126);
		dup2(in[0], 0);
		dup2(outp[1], 1);
		dup2(outp[1], 2);
		sigprocmask(SIG_SETMASK, &oldset, NULL);
		union { const char *const *c; char *const *m; } av = { .c = argv };
		if (exe)
			execv(exe, av.m);
		else
			execvp(argv[0], av.m);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	in[0] = outp[1] = -1;

	size_t ilen = input ? strlen(input) : 0, ioff = 0;
	if (ilen == 0) {
		close(in[1]);
		in[1] = -1;
	}
	for (;;) {
		struct pollfd pf[2] = { { outp[0], POLLIN, 0 }, { in[1], POLLOUT, 0 } };
		int nf = in[1] >= 0 ? 2 : 1;
		if (poll(pf, (nfds_t)nf, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (nf == 2 && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(in[1], input + ioff, ilen - ioff);
			if (w > 0)
				ioff += (size_t)w;
			if (w < 0 && errno != EINTR && errno != EAGAIN)
				ioff = ilen; /* the child stopped reading */
			if (ioff >= ilen) {
				close(in[1]);
				in[1] = -1;
			}
		}
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char buf[4096];
			ssize_t r = read(outp[0], buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			strbuf_add(o, buf, (size_t)r);
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	close(outp[0]);
	{
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipeset, NULL, &zero) > 0)
			;
		pthread_sigmask(SIG_SETMASK, &oldset, NULL);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(exe);
	exe = NULL;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		strbuf_release(&tmp);
		return 0;
	}
	{
		/* first line of the output says what went wrong */
		const char *txt = strbuf_str(o);
		size_t n = strcspn(txt, "\n");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && n == 0)
			diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot run '%s'", argv[0]);
		else
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "'%s %s' failed: %.*s", argv[0],
				   argv[1] ? argv[1] : "", (int)n, txt);
		log_debug(LOCAL_LOG, "%s output: %s", argv[0], txt);
	}
	strbuf_release(&tmp);
	return -1;

fail_pipes:
	free(exe);
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	strbuf_release(&tmp);
	return -1;
}
