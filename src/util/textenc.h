/* textenc.h: text between UTF-8 and a named encoding (glibc's iconv under
 * Python's names and strict errors). */
#ifndef IMC_UTIL_TEXTENC_H
#define IMC_UTIL_TEXTENC_H

#include <stddef.h>

#include "util/strbuf.h"

/* Appends utf8[0..n) encoded in NAME to out (text_encode), or bytes[0..n)
 * in NAME decoded to UTF-8 (text_decode). 0, or -1 with *err (malloc'd)
 * in Python's words: "unknown encoding: NAME", "'NAME' codec can't
 * encode character '\u0101' in position 3: ...". out may then hold part
 * of the result. */
int text_encode(const char *name, const char *utf8, size_t n, struct strbuf *out, char **err);
int text_decode(const char *name, const char *bytes, size_t n, struct strbuf *out, char **err);

#endif
