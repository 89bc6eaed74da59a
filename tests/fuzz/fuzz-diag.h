/* fuzz-diag.h: for the fuzz harnesses: print the diagnostics an input
 * produced, as a user would see them, to /dev/null, so that the printing
 * (excerpts, carets, redaction) runs on every input too. */
#ifndef IMC_FUZZ_DIAG_H
#define IMC_FUZZ_DIAG_H

#include <stdio.h>

#include "util/diag.h"

static inline void fuzz_print_diag(const struct diag *d)
{
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		diag_print(d, null);
		fclose(null);
	}
}

#endif
