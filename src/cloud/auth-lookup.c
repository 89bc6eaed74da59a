/* auth-lookup.c: finding a credential and its values in a parsed auth file
 * (auth.h). Apart from the reader (auth.c) because the reader asks the
 * backend registry which keys are secret, the registry names every backend,
 * and the backends read their credential's values: in one file with the
 * reader, these look-ups would close that chain into a call cycle. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "cloud/auth.h"
#include "util/banned.h"

const char *auth_get(const struct auth_cred *cred, const char *key)
{
	if (!cred)
		return NULL;
	for (size_t i = 0; i < cred->n; i++)
		if (strcmp(cred->items[i].key, key) == 0)
			return cred->items[i].value;
	return NULL;
}

const struct auth_cred *auth_find(const struct auth_file *af, const char *id, const char *type)
{
	if (!af)
		return NULL;
	for (size_t i = 0; i < af->n; i++) {
		const struct auth_cred *c = &af->creds[i];
		if (id) {
			const char *cid = auth_get(c, "id");
			if (cid && strcmp(cid, id) == 0)
				return c;
		} else if (type) {
			const char *ct = auth_get(c, "type");
			if (ct && strcasecmp(ct, type) == 0)
				return c;
		}
	}
	return NULL;
}
