/* path.h: lexical path arithmetic as Python's os.path does it (path.c),
 * for the modules whose results Ansible computes that way. */
#ifndef IMC_UTIL_PATH_H
#define IMC_UTIL_PATH_H

/* os.path.normpath of a POSIX path (caller frees): '.' components and
 * repeated slashes dropped, '..' folded into its parent (at the root it
 * stays the root), no trailing slash, "." for an empty result; a path
 * starting with exactly two slashes keeps them, as POSIX allows. */
char *path_normpath(const char *p);

#endif
