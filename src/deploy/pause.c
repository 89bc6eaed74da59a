/* pause.c: the worker's test hook (see spawn.h): at a named point, when
 * the environment asks, it says where it is through one fifo and waits
 * for a go through another, so a test can kill or inspect the worker at
 * an exact stage without sleeping. Its own file because every stage of the
 * worker calls it. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deploy/worker.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "worker"

void deploy_pause_at(const char *point)
{
	const char *want = getenv("IMC_TEST_PAUSE_AT");
	const char *dir = getenv("IMC_TEST_PAUSE_DIR");
	if (!want || !dir || strcmp(want, point) != 0)
		return;
	char *reached = xasprintf("%s/reached", dir), *resume = xasprintf("%s/resume", dir);
	int fd = open(reached, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		char buf[96];
		int n = snprintf(buf, sizeof(buf), "%s %d\n", point, (int)getpid());
		if (write(fd, buf, (size_t)n) < 0)
			log_warn(MOD, "test hook: cannot write '%s'", reached);
		close(fd);
	}
	fd = open(resume, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char c;
		while (read(fd, &c, 1) > 0)
			;
		close(fd);
	}
	free(reached);
	free(resume);
}
