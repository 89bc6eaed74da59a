/* mkdir.c: mkdir -p (see mkdir.h), shared by the local cloud backend and
 * the test driver of every backend, which both lay out directories under
 * $IMC_HOME. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mkdir.h"
#include "util/xalloc.h"
#include "util/banned.h"

int mkdir_p(const char *path, mode_t mode, struct diag *d)
{
	char *p = xstrdup(path);
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		char save = *q;
		*q = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create directory '%s': %s", p,
				   strerror(errno));
			free(p);
			return -1;
		}
		*q = save;
		if (!save)
			break;
	}
	free(p);
	return 0;
}
