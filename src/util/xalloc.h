/* xalloc.h: allocation that never returns NULL. Running out of memory aborts
 * with a message (tmux xmalloc.c), so callers need no failure paths for it. */
#ifndef IMC_XALLOC_H
#define IMC_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows an array of nmemb elements of size bytes; overflow-checked. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Allocating printf; aborts on failure. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
