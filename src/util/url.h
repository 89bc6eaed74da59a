/* url.h: the pieces of a URL that several parts of imc read. */
#ifndef IMC_UTIL_URL_H
#define IMC_UTIL_URL_H

/* The host of "[scheme://]HOST[:PORT][/path][?query][#fragment]" (malloc'd),
 * or NULL when it has none. */
char *url_host(const char *url);

#endif
