/* capture.h: the standard output of a program run to its end (capture.c). */
#ifndef IMC_UTIL_CAPTURE_H
#define IMC_UTIL_CAPTURE_H

#include <stddef.h>

#include "util/strbuf.h"

/* Runs argv (argv[0] looked up on $PATH) with /dev/null as its stdin and
 * stderr, appends at most max bytes of its stdout to out (the rest is
 * read and dropped, so the program never blocks on a full pipe) and waits
 * for it. Returns its exit status, 127 when it could not be executed, or
 * -1 when it was killed by a signal or could not be started. */
int capture_output(const char *const argv[], size_t max, struct strbuf *out);

#endif
