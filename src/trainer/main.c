/* main.c: imc-train's entry point. Picks the mode: a distributed role
 * (--role ps|chief|worker, or a TF_CONFIG naming a task, as TensorFlow
 * does; handled by dist-main.c) or single-process training (--local, the
 * default otherwise; train-local.c). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "trainer/dist.h"
#include "trainer/train-local.h"
#include "util/diag.h"
#include "util/exitcode.h"
#include "util/banned.h"

/* True when TF_CONFIG holds a "task" object (malformed JSON is left for
 * dist-main.c to report, so it counts as a task too). */
static bool tf_config_names_task(void)
{
	const char *env = getenv("TF_CONFIG");
	if (!env || !*env)
		return false;
	json_t *j = json_loads(env, 0, NULL);
	bool task = !j || json_is_object(json_object_get(j, "task"));
	json_decref(j);
	return task;
}

int main(int argc, char **argv)
{
	bool local = false;
	diag_set_program("imc-train");
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--role") == 0 || strncmp(argv[i], "--role=", 7) == 0)
			return trainer_dist_main(argc, argv);
		if (strcmp(argv[i], "--local") == 0)
			local = true;
	}
	if (!local && tf_config_names_task())
		return trainer_dist_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("imc-train %s\n", PACKAGE_VERSION);
		return ferror(stdout) || fflush(stdout) ? IMC_EXIT_IOERR : IMC_EXIT_OK;
	}
	return trainer_local_main(argc, argv);
}
