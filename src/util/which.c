/* which.c: the $PATH lookup of the optional programs imc hands work to
 * when they are installed (ansible-playbook for what the executor does not
 * implement, ansible-vault for encrypted recipes), so that each caller
 * asks the same question the same way. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

bool which_found(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	char *p = xstrdup(path), *save = NULL;
	bool found = false;
	for (char *dir = strtok_r(p, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", dir, prog);
		found = access(f, X_OK) == 0;
		free(f);
	}
	free(p);
	return found;
}
