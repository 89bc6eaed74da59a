/* xalloc.c: allocation wrappers that abort on exhaustion (see xalloc.h). */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void __attribute__((noreturn)) oom(size_t n)
{
	fprintf(stderr, "%s: fatal: out of memory (allocating %zu bytes)\n", diag_program(), n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(p, nmemb * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom(0);
	va_end(ap);
	return s;
}
