/* clouds.c: GET /clouds/ID/images and GET /clouds/ID/quotas of `imc
 * serve` (IM's REST.rst). ID is the "id" of a cloud line of the request's
 * Authorization header. None of imc's cloud backends can list images or
 * read quotas, so once the id is known the answer is IM's 400 error for a
 * connector without the operation: never an invented list. An id the
 * header does not hold is a 400 as well, naming it. */
#include "config.h"

#include <string.h>

#include "cloud/auth.h"
#include "server/server.h"
#include "util/banned.h"

void srv_cloud_info(struct srv_request *r, struct srv_reply *out)
{
	bool images = strcmp(r->seg[2], "images") == 0;
	const char *what = images ? "Error getting cloud images" : "Error getting cloud quotas";
	struct diag d = DIAG_INIT;
	struct auth_file *af = r->user.auth_path ? auth_file_load(r->user.auth_path, &d) : NULL;
	const struct auth_cred *c = af ? auth_find(af, r->seg[1], NULL) : NULL;
	if (!c)
		srv_reply_error(r, out, 400, "%s: no cloud with id '%s' in the authorization data", what, r->seg[1]);
	else
		srv_reply_error(r, out, 400, "%s: the %s cloud '%s' cannot %s in imc", what,
				auth_get(c, "type") ? auth_get(c, "type") : "unknown", r->seg[1],
				images ? "list its images" : "report its quotas");
	auth_file_free(af);
	diag_release(&d);
}
