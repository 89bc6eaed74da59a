/* module-lines.h: a text file as a list of lines, each keeping its '\n' (the last
 * one may lack it), for the modules that edit files line by line
 * (lineinfile, ini_file). The list owns its strings. */
#ifndef IMC_PROVISION_MODULE_LINES_H
#define IMC_PROVISION_MODULE_LINES_H

#include <stddef.h>

struct lines {
	char **v;
	size_t n, alloc;
};

/* Inserts s (taking it) before line at (at == n: appends). */
void lines_insert(struct lines *l, size_t at, char *s);
/* Deletes and frees line at. */
void lines_delete(struct lines *l, size_t at);
/* Appends the lines of s[0..len). */
void lines_split(struct lines *l, const char *s, size_t len);
void lines_free(struct lines *l);

#endif
