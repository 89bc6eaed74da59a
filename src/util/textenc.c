/* textenc.c: text between UTF-8 and a named character encoding, as
 * Python's str.encode()/bytes.decode() with strict errors do for the
 * template module's output_encoding and the ini lookup's encoding. The
 * conversion is glibc's iconv; Python's spellings of a name (any case,
 * '_' for '-', latin_1) are tried as iconv's, and a name neither knows is
 * Python's LookupError, "unknown encoding: NAME". */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "util/textenc.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* iconv's descriptor for tocode <- fromcode, where one of them is the
 * user's name (at *name) and the other UTF-8; tries the name as written,
 * then with '_' and ' ' as '-' ("iso8859_15" -> "iso8859-15"), then
 * without them ("latin_1" -> "latin1"). (iconv_t)-1 when none opens. */
static iconv_t open_named(const char *name, bool to_named)
{
	char *alt[3];
	alt[0] = xstrdup(name);
	alt[1] = xstrdup(name);
	for (char *p = alt[1]; *p; p++)
		if (*p == '_' || *p == ' ')
			*p = '-';
	size_t k = 0;
	alt[2] = xstrdup(alt[1]);
	for (const char *p = alt[1]; *p; p++)
		if (*p != '-')
			alt[2][k++] = *p;
	alt[2][k] = 0;
	iconv_t cd = (iconv_t)-1;
	for (size_t i = 0; i < 3 && cd == (iconv_t)-1; i++)
		cd = to_named ? iconv_open(alt[i], "UTF-8") : iconv_open("UTF-8", alt[i]);
	for (size_t i = 0; i < 3; i++)
		free(alt[i]);
	return cd;
}

/* Whether name is want (lower case, no separators) once Python has
 * normalised it: case, '-', '_' and ' ' do not count. */
static bool cd_is(const char *name, const char *want)
{
	for (const char *p = name;; p++) {
		if (*p == '-' || *p == '_' || *p == ' ')
			continue;
		if (tolower((unsigned char)*p) != *want)
			return false;
		if (!*p)
			return true;
		want++;
	}
}

/* Python names UTF-8 and its aliases: no conversion needed. */
static bool is_utf8(const char *name)
{
	return cd_is(name, "utf8") || cd_is(name, "u8") || cd_is(name, "utf");
}

/* Characters (UTF-8 code points) in s[0..n): Python's position. */
static size_t chars_before(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	return c;
}

/* The code point at s (valid UTF-8, as the engine's text is). */
static unsigned long code_point(const char *s, size_t left)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] < 0x80 || left < 2)
		return u[0];
	if ((u[0] & 0xe0) == 0xc0)
		return ((u[0] & 0x1fUL) << 6) | (u[1] & 0x3f);
	if ((u[0] & 0xf0) == 0xe0 && left >= 3)
		return ((u[0] & 0x0fUL) << 12) | ((u[1] & 0x3fUL) << 6) | (u[2] & 0x3f);
	if (left >= 4)
		return ((u[0] & 0x07UL) << 18) | ((u[1] & 0x3fUL) << 12) | ((u[2] & 0x3fUL) << 6) | (u[3] & 0x3f);
	return u[0];
}

static int convert(const char *name, bool encode, const char *in, size_t n, struct strbuf *out, char **err)
{
	/* the engine's text is valid UTF-8 already; bytes read as UTF-8 are
	 * still checked, as Python's strict decoding does */
	if (encode && is_utf8(name)) {
		strbuf_add(out, in, n);
		return 0;
	}
	iconv_t cd = open_named(is_utf8(name) ? "UTF-8" : name, encode);
	if (cd == (iconv_t)-1) {
		*err = xasprintf("unknown encoding: %s", name);
		return -1;
	}
	int rc = 0;
	char *ip = (char *)(uintptr_t)in; /* iconv's prototype; it does not write the input */
	size_t il = n;
	char buf[4096];
	for (;;) {
		char *op = buf;
		size_t ol = sizeof(buf);
		/* with the input done, one more call writes what a stateful
		 * encoding needs to return to its initial state */
		bool flush = il == 0;
		size_t r = flush ? iconv(cd, NULL, NULL, &op, &ol) : iconv(cd, &ip, &il, &op, &ol);
		strbuf_add(out, buf, sizeof(buf) - ol);
		if (r != (size_t)-1) {
			if (flush)
				break;
			continue;
		}
		if (errno == E2BIG)
			continue;
		size_t at = (size_t)(ip - in);
		if (encode) {
			/* Python's codecs name themselves so in the message */
			unsigned long cp = code_point(ip, il);
			const char *codec = "charmap", *why = "character maps to <undefined>";
			if (cd_is(name, "latin1") || cd_is(name, "iso88591") || cd_is(name, "l1"))
				codec = "latin-1", why = "ordinal not in range(256)";
			else if (cd_is(name, "ascii") || cd_is(name, "usascii"))
				codec = "ascii", why = "ordinal not in range(128)";
			*err = xasprintf(cp > 0xffff ? "'%s' codec can't encode character '\\U%08lx' in position %zu: %s"
					 : cp > 0xff ? "'%s' codec can't encode character '\\u%04lx' in position %zu: %s"
						     : "'%s' codec can't encode character '\\x%02lx' in position %zu: %s",
					 codec, cp, chars_before(in, at), why);
		} else {
			*err = xasprintf("'%s' codec can't decode byte 0x%02x in position %zu: invalid %s", name,
					 (unsigned char)*ip, at, errno == EINVAL ? "end of data" : "start byte");
		}
		rc = -1;
		break;
	}
	iconv_close(cd);
	return rc;
}

int text_encode(const char *name, const char *utf8, size_t n, struct strbuf *out, char **err)
{
	return convert(name, true, utf8, n, out, err);
}

int text_decode(const char *name, const char *bytes, size_t n, struct strbuf *out, char **err)
{
	return convert(name, false, bytes, n, out, err);
}
