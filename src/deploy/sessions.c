/* sessions.c: cloud sessions of an infrastructure (see deploy.h): one
 * opened for a (cloud, credential) pair with the infrastructure's public
 * key, and a cache that opens each pair once, remembering why one could
 * not be opened so that every VM on it reports the same reason without
 * asking the cloud again. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "util/sshkey.h"
#include "util/xalloc.h"
#include "util/banned.h"

int deploy_cloud_open(struct state_store *st, const struct state_infra *in, const char *cloud,
		      const char *cred_id, const struct auth_file *af, struct cloud_session *s,
		      struct diag *d)
{
	memset(s, 0, sizeof(*s));
	s->drv = cloud_driver_find(cloud);
	if (!s->drv) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' is not supported by this imc", cloud);
		return -1;
	}
	s->infra_id = in->id;
	s->home = state_home(st);
	if (cred_id)
		s->cred = auth_find(af, cred_id, NULL);
	if (!s->cred)
		s->cred = auth_find(af, NULL, cloud);
	if (!s->cred && cloud_needs_credentials(cloud)) {
		diag_error(d, IMC_EXIT_NOPERM, NULL, "no credentials for cloud '%s'%s%s%s in the auth file", cloud,
			   cred_id ? " (auth id '" : "", cred_id ? cred_id : "", cred_id ? "')" : "");
		return -1;
	}
	char *kp = deploy_key_path(state_home(st), in->id);
	struct diag ignore = DIAG_INIT;
	char *pub = access(kp, F_OK) == 0 ? sshkey_read_public(kp, &ignore) : NULL;
	diag_release(&ignore);
	free(kp);
	s->pubkey = pub;
	if (s->drv->open && s->drv->open(s, d) < 0) {
		free(pub);
		s->pubkey = NULL;
		return -1;
	}
	return 0;
}

void deploy_cloud_close(struct cloud_session *s)
{
	if (!s || !s->drv)
		return;
	if (s->drv->close)
		s->drv->close(s);
	free((void *)(uintptr_t)s->pubkey);
	s->pubkey = NULL;
	s->drv = NULL;
}

struct cloud_session *deploy_session(struct deploy_sessions *c, struct state_store *st,
				     const struct state_infra *in, const char *cloud,
				     const char *cred_id, const struct auth_file *af, const char **err,
				     enum imc_exit *code)
{
	char *key = xasprintf("%s\x1f%s", cloud, cred_id ? cred_id : "");
	size_t i = 0;
	while (i < c->n && strcmp(c->keys[i], key) != 0)
		i++;
	if (i < c->n) {
		free(key);
	} else {
		c->s = xreallocarray(c->s, c->n + 1, sizeof(*c->s));
		c->keys = xreallocarray(c->keys, c->n + 1, sizeof(*c->keys));
		c->err = xreallocarray(c->err, c->n + 1, sizeof(*c->err));
		c->code = xreallocarray(c->code, c->n + 1, sizeof(*c->code));
		struct diag d = DIAG_INIT;
		c->keys[i] = key;
		bool ok = deploy_cloud_open(st, in, cloud, cred_id, af, &c->s[i], &d) == 0;
		c->err[i] = ok ? NULL : xstrdup(diag_first_message(&d));
		c->code[i] = ok ? IMC_EXIT_OK : d.code ? d.code : IMC_EXIT_UNAVAILABLE;
		diag_release(&d);
		c->n++;
	}
	*err = c->err[i];
	if (code)
		*code = c->code[i];
	return c->err[i] ? NULL : &c->s[i];
}

void deploy_sessions_free(struct deploy_sessions *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!c->err[i])
			deploy_cloud_close(&c->s[i]);
		free(c->keys[i]);
		free(c->err[i]);
	}
	free(c->s);
	free(c->keys);
	free(c->err);
	free(c->code);
}

