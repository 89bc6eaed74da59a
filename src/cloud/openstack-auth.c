/* openstack-auth.c: Keystone v3 password authentication (IM's
 * auth_version = 3.x_password): POST AUTH_URL/v3/auth/tokens with the user
 * and project named in their domain; the token comes back in the
 * X-Subject-Token header and the body's token.catalog lists every service
 * with its endpoints. The public endpoint of compute, network and image in
 * the auth line's service_region (or the first region listed) is kept;
 * the network and image URLs get their API version ("/v2.0", "/v2") when
 * the catalog gives the bare service root, as most clouds do.
 *
 * Transport failures and 5xx are retried as any call (openstack-http.c);
 * a 401 here is the credential itself being rejected and is final. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cloud/openstack.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *auth_body(const struct os_conn *c)
{
	return json_pack("{s:{s:{s:[s],s:{s:{s:s,s:{s:s},s:s}}},s:{s:{s:s,s:{s:s}}}}}", "auth",
			 "identity", "methods", "password", "password", "user", "name", c->user,
			 "domain", "name", c->domain, "password", c->password, "scope", "project",
			 "name", c->project, "domain", "name", c->domain);
}

/* url without trailing '/', with suffix appended unless it ends with it. */
static char *versioned(const char *url, const char *suffix)
{
	size_t n = strlen(url), k = suffix ? strlen(suffix) : 0;
	while (n && url[n - 1] == '/')
		n--;
	if (!suffix || (n >= k && strncmp(url + n - k, suffix, k) == 0))
		return xstrndup(url, n);
	return xasprintf("%.*s%s", (int)n, url, suffix);
}

static const char *endpoint_of(json_t *catalog, const char *type, const char *region)
{
	size_t i, j;
	json_t *svc, *ep;
	json_array_foreach(catalog, i, svc) {
		const char *t = json_string_value(json_object_get(svc, "type"));
		if (!t || strcmp(t, type) != 0)
			continue;
		json_array_foreach(json_object_get(svc, "endpoints"), j, ep) {
			const char *iface = json_string_value(json_object_get(ep, "interface"));
			const char *r = json_string_value(json_object_get(ep, "region"));
			const char *rid = json_string_value(json_object_get(ep, "region_id"));
			if (!iface || strcmp(iface, "public") != 0)
				continue;
			if (region && !(r && strcmp(r, region) == 0) && !(rid && strcmp(rid, region) == 0))
				continue;
			return json_string_value(json_object_get(ep, "url"));
		}
	}
	return NULL;
}

int os_auth(struct os_conn *c, struct os_error *err)
{
	json_t *body = auth_body(c), *reply = NULL;
	char *text = json_dumps(body, JSON_COMPACT), *resp = NULL, *token = NULL;
	char *url = xasprintf("%s/v3/auth/tokens", c->auth_url);
	int ret = -1;

	json_decref(body);
	for (int attempt = 1;; attempt++) {
		long status;
		double retry_after = -1;
		free(resp);
		resp = NULL;
		free(token);
		token = NULL;
		os_error_release(err);
		if (os_http(c, "POST", url, text, OS_QUIET, &status, &resp, &retry_after, &token,
			    err) == 0)
			break;
		if (!err->retryable || attempt >= c->max_attempts)
			goto out;
		double delay = os_backoff(c, attempt);
		os_sleep(c, retry_after > delay ? retry_after : delay);
	}
	if (!token || !*token) {
		err->message = xasprintf("Keystone at %s answered without an X-Subject-Token", url);
		goto out;
	}
	secret_register(token);
	reply = json_loads(resp, 0, NULL);
	json_t *catalog = json_object_get(json_object_get(reply, "token"), "catalog");
	if (!json_is_array(catalog)) {
		err->message = xasprintf("Keystone's token has no service catalog (is the project '%s' right?)",
					 c->project);
		goto out;
	}
	static const char *const types[] = { NULL, "compute", "network", "image" };
	static const char *const suffixes[] = { NULL, NULL, "/v2.0", "/v2" };
	for (int s = OS_COMPUTE; s <= OS_IMAGE; s++) {
		const char *u = endpoint_of(catalog, types[s], c->region);
		free(c->url[s]);
		c->url[s] = u ? versioned(u, suffixes[s]) : NULL;
	}
	free(c->token);
	c->token = token;
	token = NULL;
	log_debug("openstack", "authenticated to %s as %s (project %s); compute %s", c->auth_url,
		  c->user, c->project, c->url[OS_COMPUTE] ? c->url[OS_COMPUTE] : "(none)");
	ret = 0;
out:
	json_decref(reply);
	free(token);
	free(resp);
	/* the body holds the password: wipe it before it is freed */
	if (text)
		memset(text, 0, strlen(text));
	free(text);
	free(url);
	return ret;
}
