/* auth.h: the auth file (IM's format or a JSON list of objects), read into
 * a list of credentials, one per line/object. Every value of a secret key
 * (password, token, private keys, ...) is registered with secret_register()
 * as it is read, so it can never reach a log or an error.
 * An auth_file owns all its strings; auth_file_free() accepts NULL. */
#ifndef IMC_AUTH_H
#define IMC_AUTH_H

#include <stddef.h>

#include "util/diag.h"

struct auth_item {
	char *key;
	char *value;
};

struct auth_cred {
	struct auth_item *items;
	size_t n;
	int line;          /* line in the auth file (or index+1 for JSON) */
};

struct auth_file {
	char *path;
	struct auth_cred *creds;
	size_t n;
};

/* Parses an auth file; on error returns NULL with the line in d (exit 65). */
struct auth_file *auth_file_load(const char *path, struct diag *d);
struct auth_file *auth_file_parse(const char *path, const char *text, size_t len, struct diag *d);
void auth_file_free(struct auth_file *af);
/* The value of key in cred, or NULL. */
const char *auth_get(const struct auth_cred *cred, const char *key);
/* The first credential whose 'id' is id (or, with id NULL, whose 'type'
 * matches type case-insensitively), or NULL. */
const struct auth_cred *auth_find(const struct auth_file *af, const char *id, const char *type);

#endif
