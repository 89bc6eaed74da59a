/* client.h: imc's commands against a remote `imc serve` or IM server
 * (`imc --server URL`, or IMC_SERVER), over IM's REST API with libcurl,
 * as IM's own client im_client.py does. http.c sends one request with the
 * Authorization header made from the auth file; commands.c is the table
 * of the commands that can run remotely and prints what the local
 * command prints. */
#ifndef IMC_CLIENT_CLIENT_H
#define IMC_CLIENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cmd.h"
#include "util/diag.h"
#include "util/strbuf.h"

struct client {
	char *url;          /* the server's base URL, without a trailing '/' */
	char *auth;         /* the Authorization header's value (secrets registered) */
	const char *cacert; /* CA file to verify an https server with, or NULL */
};

/* One request's answer. */
struct client_reply {
	long status;
	struct strbuf body;
};

/* http.c: reads the auth file (file() values resolved, as the CLI reads
 * it) into c->auth, in the form IM's servers read from the header. */
int client_open(struct client *c, const char *url, const char *auth_file, struct diag *d);
void client_close(struct client *c);
/* http.c: METHOD URL/PATH with Accept: accept (or none), and body (of
 * Content-Type text/plain) when not NULL. 0 with the answer in rep (any
 * status), or -1 with d set when no answer came. */
int client_request(const struct client *c, const char *method, const char *path, const char *accept,
		   const char *body, size_t len, struct client_reply *rep, struct diag *d);
void client_reply_release(struct client_reply *rep);

/* http.c: s escaped for a URL's query (malloc'd). */
char *client_escape(const char *s);

/* commands.c: runs a->cmd against a->ctx->server, after the command line
 * was parsed, and returns its exit status; *handled false (and nothing
 * done) for a command that has no REST call. */
int client_run(struct cmd_args *a, bool *handled);

#endif
