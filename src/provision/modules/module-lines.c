/* module-lines.c: a text file as a list of lines (module-lines.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/modules/module-lines.h"
#include "util/xalloc.h"
#include "util/banned.h"

void lines_insert(struct lines *l, size_t at, char *s)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 64;
		l->v = xreallocarray(l->v, l->alloc, sizeof(*l->v));
	}
	memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof(*l->v));
	l->v[at] = s;
	l->n++;
}

void lines_delete(struct lines *l, size_t at)
{
	free(l->v[at]);
	memmove(l->v + at, l->v + at + 1, (l->n - at - 1) * sizeof(*l->v));
	l->n--;
}

void lines_split(struct lines *l, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && s[j] != '\n')
			j++;
		if (j < len)
			j++;
		lines_insert(l, l->n, xstrndup(s + i, j - i));
		i = j;
	}
}

void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}
