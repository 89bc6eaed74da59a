/* local.h: imc-train --local, single-process training (local.c). */
#ifndef IMC_TRAINER_LOCAL_H
#define IMC_TRAINER_LOCAL_H

#include <stdio.h>

/* Returns an exit status (util/exitcode.h). */
int trainer_local_main(int argc, char **argv);
/* Prints the usage text of imc-train to fp. */
void trainer_usage(FILE *fp);

struct diag;
/* Option values for every imc-train mode: s must be a whole integer (or a
 * number) within [lo, hi]; otherwise -1 with a usage error naming opt. */
int trainer_parse_long(const char *opt, const char *s, long lo, long hi, long *out,
		       struct diag *d);
int trainer_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
			 struct diag *d);

#endif
