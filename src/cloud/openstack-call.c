/* openstack-call.c: one OpenStack API call as the backend makes it
 * (os_call): the token is fetched on first use (openstack-auth.c) and once
 * more when a service answers 401 (it expired or was revoked), so one
 * command never asks Keystone for more than it needs; HTTP 429, 5xx and
 * connection failures are retried up to 5 attempts with a delay of
 * rand * 2^(attempt-1) seconds (at most 20), or the server's Retry-After
 * when it asks for longer (at most 60). A call flagged OS_ONCE is never
 * retried here: creating a server is not idempotent, and its caller looks
 * for the server before trying again. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cloud/openstack.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const service_names[] = { "identity", "compute", "network", "image" };

int os_call(struct os_conn *c, enum os_service svc, const char *method, const char *path,
	    json_t *body, unsigned flags, json_t **reply, struct os_error *err)
{
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	bool reauthed = false;
	int ret = -1;

	if (reply)
		*reply = NULL;
	memset(err, 0, sizeof(*err));
	for (int attempt = 1;; attempt++) {
		long status = 0;
		char *resp = NULL;
		double retry_after = -1;
		os_error_release(err);
		if ((!c->token || !c->url[svc]) && os_auth(c, err) < 0)
			break;
		if (!c->url[svc]) {
			err->message = xasprintf("the service catalog has no %s endpoint%s%s",
						 service_names[svc], c->region ? " in region " : "",
						 c->region ? c->region : "");
			break;
		}
		char *url = xasprintf("%s%s", c->url[svc], path);
		int rc = os_http(c, method, url, text, flags, &status, &resp, &retry_after, NULL,
				 err);
		free(url);
		if (rc == 0) {
			if (reply && resp && *resp) {
				json_error_t je;
				*reply = json_loads(resp, JSON_DECODE_ANY, &je);
				if (!*reply) {
					err->status = status;
					err->message = xasprintf("malformed JSON reply to %s %s: %s", method,
								 path, je.text);
					free(resp);
					break;
				}
			}
			free(resp);
			ret = 0;
			break;
		}
		free(resp);
		if (status == 401 && !reauthed) {
			/* the token expired or was revoked: one new token, same request */
			log_info("openstack", "%s %s: token rejected, authenticating again", method, path);
			free(c->token);
			c->token = NULL;
			reauthed = true;
			attempt--;
			continue;
		}
		if (!err->retryable || (flags & OS_ONCE) || attempt >= c->max_attempts)
			break;
		double delay = os_backoff(c, attempt);
		if (retry_after > delay)
			delay = retry_after;
		log_info("openstack", "%s %s: HTTP %ld, retrying after %.2fs (attempt %d of %d)", method,
			 path, err->status, delay, attempt + 1, c->max_attempts);
		os_sleep(c, delay);
	}
	free(text);
	return ret;
}

