/* owners.c: who an infrastructure belongs to, as IM's REST.rst has it:
 * GET /infrastructures/ID/authorization lists its owners' user names
 * (text/plain, one a line, or {"authorization": [...]}); POST
 * /infrastructures/ID/authorization, by an owner, adds the user whose
 * name and password the JSON body holds ({"username", "password"}, with
 * an optional "type" that must then be InfrastructureManager), or with
 * overwrite=yes makes that user the only owner. IM's documentation says
 * overwrite defaults to true, IM's server takes false: the server is
 * followed, since clients were written against it. The store keeps a
 * salted hash per owner, never a password (auth.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

void srv_owners_get(struct srv_request *r, struct srv_reply *out, const struct state_infra *in)
{
	json_t *names = json_array();
	struct strbuf text = STRBUF_INIT;
	struct srv_owner_line line;
	for (const char *pos = in->owner; srv_owner_next(&pos, &line);) {
		if (line.hash + line.hash_len == line.name) /* no " NAME" */
			continue;
		json_array_append_new(names, json_stringn(line.name, line.name_len));
		strbuf_addf(&text, "%s%.*s", text.len ? "\n" : "", (int)line.name_len, line.name);
	}
	srv_reply_prop(r, out, "authorization", strbuf_str(&text), names);
	strbuf_release(&text);
}

/* The user and password of the body, registered as secrets; -1 with IM's
 * answer in out. */
static int new_owner(struct srv_request *r, struct srv_reply *out, json_t **body, const char **user,
		     const char **password)
{
	static const char what[] = "Error modifying infrastructure owner";
	json_error_t jerr;
	if (r->content_type && *r->content_type && strcmp(r->content_type, "application/json") != 0) {
		srv_reply_error(r, out, 415, "Unsupported Media Type %s", r->content_type);
		return -1;
	}
	*body = json_loadb(r->body, r->len, 0, &jerr);
	if (!json_is_object(*body)) {
		srv_reply_error(r, out, 400, "Error parsing auth data: %s", *body ? "a JSON object is expected" : jerr.text);
		return -1;
	}
	json_t *pw = json_object_get(*body, "password");
	if (json_is_string(pw))
		secret_register(json_string_value(pw));
	const char *type = json_string_value(json_object_get(*body, "type"));
	*user = json_string_value(json_object_get(*body, "username"));
	*password = json_string_value(pw);
	if (type && strcasecmp(type, "InfrastructureManager") != 0) {
		srv_reply_error(r, out, 401, "%s: Invalid new infrastructure data provided: No credentials provided for the "
			       "InfrastructureManager.", what);
		return -1;
	}
	if (!*user || !**user || !*password) {
		srv_reply_error(r, out, 401, "%s: Invalid new infrastructure data provided: %s", what,
				json_object_get(*body, "token") ? "tokens are not supported by this server, give username "
								  "and password"
								: "username and password are needed");
		return -1;
	}
	return 0;
}

void srv_owners_change(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error modifying infrastructure owner";
	bool overwrite;
	struct state_infra in;
	struct diag d = DIAG_INIT;
	json_t *body = NULL;
	const char *user, *password;
	char *entry = NULL;
	if (srv_query_flag(r, "overwrite", false, &overwrite) < 0) {
		srv_reply_error(r, out, 400, "Incorrect value in overwrite parameter");
		return;
	}
	if (srv_infra(r, r->seg[1], what, false, &in, out) < 0)
		return;
	if (new_owner(r, out, &body, &user, &password) < 0)
		goto out;
	/* read again and written in one transaction, so that two changes at
	 * once both count */
	if (state_begin(r->st, &d) < 0)
		goto store_error;
	struct state_infra now;
	if (state_infra_get(r->st, in.id, &now, &d) != 0) {
		state_rollback(r->st);
		goto store_error;
	}
	int rc = 0;
	if (overwrite || !srv_owner_match(now.owner, user, password)) {
		entry = srv_owner_entry(user, password);
		char *owner = overwrite || !now.owner ? xstrdup(entry) : xasprintf("%s\n%s", now.owner, entry);
		rc = state_infra_set_owner(r->st, in.id, owner, &d);
		free(owner);
	}
	state_infra_release(&now);
	if (rc < 0 || state_commit(r->st, &d) < 0) {
		state_rollback(r->st);
		goto store_error;
	}
	log_info("serve", "infrastructure %s: owner '%s' %s by '%s'", in.id, user, overwrite ? "set" : "added",
		 r->user.username);
	srv_reply_empty(r, out);
	goto out;
store_error:
	srv_reply_diag(r, out, 400, what, &d);
out:
	free(entry);
	json_decref(body);
	state_infra_release(&in);
	diag_release(&d);
}
