/* mkdir.h: creating a directory and its missing parents (mkdir -p). */
#ifndef IMC_UTIL_MKDIR_H
#define IMC_UTIL_MKDIR_H

#include <sys/types.h>

#include "util/diag.h"

/* Creates path and every missing parent with mode (existing ones are left
 * as they are); -1 with the directory that could not be made in d (exit
 * 74). */
int mkdir_p(const char *path, mode_t mode, struct diag *d);

#endif
