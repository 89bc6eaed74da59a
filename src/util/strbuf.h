/* strbuf.h: a growable, always NUL-terminated byte buffer (git's strbuf).
 * The buffer owns its bytes; strbuf_detach() hands them to the caller.
 * A cap (0 = none) bounds buffers that hold remote output: appends past it
 * are dropped and 'truncated' is set (curl's dynbuf). */
#ifndef IMC_STRBUF_H
#define IMC_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t cap;
	bool truncated;
};

#define STRBUF_INIT { 0 }

void strbuf_init(struct strbuf *sb, size_t cap);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Returns the contents ("" for an empty buffer, never NULL). */
const char *strbuf_str(const struct strbuf *sb);
/* Appends code point cp (at most 0x10FFFF) as UTF-8. */
void strbuf_add_utf8(struct strbuf *sb, unsigned long cp);
/* Reads a whole file; returns 0, or -1 with errno set. */
int strbuf_read_file(struct strbuf *sb, const char *path);
/* Shell quoting: appends s as one single-quoted word (for /bin/sh on
 * the node or on the controller). */
void sh_quote(struct strbuf *sb, const char *s);

#endif
