/* which.h: whether a program is on $PATH (which.c). */
#ifndef IMC_UTIL_WHICH_H
#define IMC_UTIL_WHICH_H

#include <stdbool.h>

/* True when an executable file named prog is in a directory of $PATH
 * (/usr/bin:/bin when unset). */
bool which_found(const char *prog);

#endif
