/* which.c: the $PATH lookup of the optional programs imc hands work to
 * when they are installed (ansible-playbook for what the executor does not
 * implement, ansible-vault for encrypted recipes), so that each caller
 * asks the same question the same way; and the controller's Python that
 * Ansible's variables name (which_python). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *which_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	char *p = xstrdup(path), *save = NULL, *found = NULL;
	for (char *dir = strtok_r(p, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", dir, prog);
		if (access(f, X_OK) == 0)
			found = f;
		else
			free(f);
	}
	free(p);
	return found;
}

bool which_found(const char *prog)
{
	char *f = which_path(prog);
	bool found = f != NULL;
	free(f);
	return found;
}

static char *python_path;

/* The Python a script runs under, from its "#!" line, when that is one
 * (directly or through env); NULL otherwise. */
static char *shebang_python(const char *script)
{
	char line[256] = "";
	FILE *f = fopen(script, "r");
	if (!f)
		return NULL;
	bool got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!got || strncmp(line, "#!", 2))
		return NULL;
	char *save = NULL;
	char *interp = strtok_r(line + 2, " \t\r\n", &save);
	if (!interp)
		return NULL;
	const char *base = strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp;
	if (!strcmp(base, "env")) {
		char *prog = strtok_r(NULL, " \t\r\n", &save);
		return prog && !strncmp(prog, "python", 6) ? which_path(prog) : NULL;
	}
	return !strncmp(base, "python", 6) ? xstrdup(interp) : NULL;
}

static void find_python(void)
{
	/* ansible-playbook's own interpreter, as its sys.executable is;
	 * an ansible-playbook that is no Python script (a wrapper) is
	 * passed over */
	const char *path = getenv("PATH");
	char *p = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	for (char *dir = strtok_r(p, ":", &save); dir && !python_path; dir = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/ansible-playbook", dir);
		if (access(f, X_OK) == 0)
			python_path = shebang_python(f);
		free(f);
	}
	free(p);
	if (!python_path)
		python_path = which_path("python3");
	if (!python_path)
		python_path = xstrdup("/usr/bin/python");
}

const char *which_python(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, find_python);
	return python_path;
}
