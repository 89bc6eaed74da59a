/* data.c: export and import over `imc serve` (IM's REST.rst): GET
 * /infrastructures/ID/data answers the infrastructure's record as 'imc
 * export' prints it, as the property "data" (a JSON string); with
 * delete=yes the infrastructure is then forgotten (its cloud resources
 * stay). PUT /infrastructures takes such a record (application/json) and
 * answers the URI of the infrastructure it became, owned by the requesting
 * user with the request's auth file, as a create is. Both run the
 * commands' code (deploy_export, deploy_import). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "deploy/deploy.h"
#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

void srv_infra_data(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Getting Inf. prop";
	struct state_infra in;
	struct diag d = DIAG_INIT;
	bool del;
	json_t *doc = NULL;
	char *text = NULL;
	if (srv_query_flag(r, "delete", false, &del) < 0) {
		srv_reply_error(r, out, 400, "%s: Incorrect value in delete parameter", what);
		return;
	}
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	doc = json_object();
	if (deploy_export(r->st, &in, del, doc, &d) < 0) {
		srv_reply_diag(r, out, 400, what, &d);
		goto out;
	}
	text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	if (!text) {
		srv_reply_error(r, out, 500, "%s: cannot serialize the infrastructure", what);
		goto out;
	}
	/* the forgotten infrastructure's workers are gone: its auth file
	 * goes with it, as after a destroy */
	if (del) {
		srv_authfile_drop(r->cfg->home, in.auth_path);
		log_info("serve", "infrastructure %s exported and forgotten for user '%s'", in.id, r->user.username);
	}
	srv_reply_prop(r, out, "data", text, NULL);
out:
	free(text);
	json_decref(doc);
	state_infra_release(&in);
	diag_release(&d);
}

void srv_infra_import(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Importing Inf.";
	struct diag d = DIAG_INIT;
	json_error_t jerr;
	json_t *doc = NULL;
	char *owner = NULL, *id = NULL;
	if (r->content_type && *r->content_type && strcmp(r->content_type, "application/json") != 0) {
		srv_reply_error(r, out, 415, "Unsupported Media Type %s", r->content_type);
		return;
	}
	doc = json_loadb(r->body, r->len, JSON_DECODE_ANY, &jerr);
	/* IM's client saves what export answered with json.dumps, which
	 * quotes the record once more: a JSON string holding the record is
	 * that record */
	if (json_is_string(doc)) {
		json_t *inner = json_loadb(json_string_value(doc), json_string_length(doc), 0, &jerr);
		json_decref(doc);
		doc = inner;
	} else if (doc && !json_is_object(doc) && !json_is_array(doc)) {
		json_decref(doc);
		doc = json_loadb(r->body, r->len, 0, &jerr); /* the error a record's reader gives */
	}
	if (!doc) {
		srv_reply_error(r, out, 400, "%s: invalid JSON at line %d: %s", what, jerr.line, jerr.text);
		goto out;
	}
	if (deploy_import_check(doc, "body", &d) < 0) {
		srv_reply_diag(r, out, 400, what, &d);
		goto out;
	}
	owner = srv_owner_new(&r->user);
	if (deploy_import(r->st, doc, owner, r->user.auth_path, &id, &d) < 0) {
		srv_reply_diag(r, out, 400, what, &d);
		goto out;
	}
	/* the store names the request's auth file as the infrastructure's:
	 * it stays until the destroy */
	r->user.keep_auth = true;
	log_info("serve", "infrastructure %s imported for user '%s'", id, r->user.username);
	char *path = xasprintf("infrastructures/%s", id);
	srv_reply_uri(r, out, path);
	free(path);
out:
	free(owner);
	free(id);
	json_decref(doc);
	diag_release(&d);
}
