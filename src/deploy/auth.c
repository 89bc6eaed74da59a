/* auth.c: which auth file a deployment reads (see deploy.h). One rule for
 * every command and the worker: the file given, else the one stored at
 * creation, else HOME/auth.dat, else none (the embedded local cloud). */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

int deploy_auth(const char *given, const char *home, const char *stored, struct auth_file **af,
		char **used, struct diag *d)
{
	*af = NULL;
	if (used)
		*used = NULL;
	char *path = NULL;
	if (given)
		path = xstrdup(given);
	else if (stored)
		path = xstrdup(stored);
	else {
		char *def = xasprintf("%s/auth.dat", home);
		if (access(def, F_OK) == 0)
			path = def;
		else
			free(def);
	}
	if (!path)
		return 0;
	*af = auth_file_load(path, d);
	if (!*af) {
		free(path);
		return -1;
	}
	if (used) {
		char *abs = realpath(path, NULL);
		*used = abs ? abs : xstrdup(path);
	}
	free(path);
	return 0;
}
