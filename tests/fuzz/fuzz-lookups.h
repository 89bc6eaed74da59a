/* fuzz-lookups.h: the lookup hook the templating harnesses install. The
 * password lookup writes controller files: never let fuzz input choose
 * where (pipe and lines are off as allow_pipe is false). */
#ifndef IMC_FUZZ_LOOKUPS_H
#define IMC_FUZZ_LOOKUPS_H

#include <string.h>

#include <jansson.h>

#include "util/diag.h"

static int no_side_effects(void *ud, const char *name, json_t *terms, json_t *kwargs, json_t **out, struct diag *d)
{
	(void)ud;
	(void)terms;
	(void)kwargs;
	(void)d;
	if (strcmp(name, "password"))
		return 1;
	*out = json_pack("[s]", "fuzz-password");
	return 0;
}

#endif
