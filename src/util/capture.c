/* capture.c: see capture.h. Used to ask another tool (ansible-config) for
 * what only it knows, rather than imitate its resolution. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/capture.h"
#include "util/banned.h"

int capture_output(const char *const argv[], size_t max, struct strbuf *out)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 2);
		}
		/* execvp's argv is not const; the child execs or exits */
		execvp(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(p[1]);
	char buf[8192];
	for (;;) {
		ssize_t n = read(p[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t keep = out->len >= max ? 0 : max - out->len;
		strbuf_add(out, buf, (size_t)n < keep ? (size_t)n : keep);
	}
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
