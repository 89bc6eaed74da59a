/* main.c: imc-train's entry point. Picks the mode: a distributed role
 * (--role ps|chief|worker, handled by dist-main.c) or single-process
 * training (--local, the default; local.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "trainer/dist.h"
#include "trainer/local.h"
#include "util/exitcode.h"
#include "util/banned.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--role") == 0 || strncmp(argv[i], "--role=", 7) == 0)
			return trainer_dist_main(argc, argv);
	}
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("imc-train %s\n", PACKAGE_VERSION);
		return ferror(stdout) || fflush(stdout) ? IMC_EXIT_IOERR : IMC_EXIT_OK;
	}
	return trainer_local_main(argc, argv);
}
