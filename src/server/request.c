/* request.c: what a handler of `imc serve` reads from its request beyond
 * the path (see server.h): query arguments, IM's yes/no flags, VM numbers
 * in the path, whether the body is a RADL IM would take. Below the
 * handlers and above libmicrohttpd, so that no handler calls into the
 * HTTP plumbing that calls it. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "server/server.h"
#include "util/banned.h"

const char *srv_query(const struct srv_request *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

int srv_query_flag(const struct srv_request *r, const char *name, bool def, bool *val)
{
	const char *v = srv_query(r, name);
	*val = def;
	if (!v)
		return 0;
	static const char *const yes[] = { "yes", "true", "1" }, *const no[] = { "no", "false", "0" };
	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*val = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*val = false;
			return 0;
		}
	}
	return -1;
}

int srv_vm_number(const char *s, size_t len, int *num)
{
	long v = 0;
	if (!len || len > 7)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*num = (int)v;
	return 0;
}

int srv_radl_body(const struct srv_request *r, struct srv_reply *out)
{
	static const char *const ok[] = { "text/plain", "*/*", "text/*", "application/json" };
	if (!r->content_type || !*r->content_type)
		return 0;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(r->content_type, ok[i]) == 0)
			return 0;
	srv_reply_error(r, out, 415, "Unsupported Media Type %s", r->content_type);
	return -1;
}
