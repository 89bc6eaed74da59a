/* infra.c: the infrastructures resource of `imc serve` (IM's REST.rst):
 * GET /infrastructures (the user's, optionally filtered by a regular
 * expression on the RADL), POST /infrastructures (create, through
 * deploy_submit as 'imc create'), GET /infrastructures/ID (its VMs' URIs),
 * GET /infrastructures/ID/PROPERTY (state, contmsg, radl, outputs; data
 * is data.c) and
 * DELETE /infrastructures/ID (through deploy_destroy as 'imc destroy';
 * with async=yes after the answer, in background.c),
 * and GET /version. Each answers what the command of the same name
 * would, in IM's REST shapes (reply.c). */
#include "config.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

void srv_version(struct srv_request *r, struct srv_reply *out)
{
	srv_reply_prop(r, out, "version", PACKAGE_VERSION, NULL);
}

void srv_infra_list(struct srv_request *r, struct srv_reply *out)
{
	const char *filter = srv_query(r, "filter");
	struct diag d = DIAG_INIT;
	char **ids = NULL, **paths = NULL;
	size_t n = 0, np = 0;
	regex_t re;
	if (filter && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) != 0) {
		srv_reply_error(r, out, 400, "Error Getting Inf. List: invalid regular expression in filter");
		return;
	}
	if (state_infra_list(r->st, &ids, &n, &d) < 0) {
		srv_reply_diag(r, out, 400, "Error Getting Inf. List", &d);
		goto out;
	}
	paths = xcalloc(n ? n : 1, sizeof(*paths));
	for (size_t i = 0; i < n; i++) {
		struct state_infra in;
		if (state_infra_get(r->st, ids[i], &in, &d) != 0)
			continue;
		if (!in.deleted && srv_owner_is(&r->user, in.owner) &&
		    (!filter || (in.radl && regexec(&re, in.radl, 0, NULL, 0) == 0)))
			paths[np++] = xasprintf("infrastructures/%s", in.id);
		state_infra_release(&in);
	}
	srv_reply_uris(r, out, paths, np);
out:
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	for (size_t i = 0; i < np; i++)
		free(paths[i]);
	free(ids);
	free(paths);
	if (filter)
		regfree(&re);
	diag_release(&d);
}

void srv_infra_create(struct srv_request *r, struct srv_reply *out)
{
	bool async, dry_run;
	if (srv_query_flag(r, "async", false, &async) < 0) {
		srv_reply_error(r, out, 400, "Error Creating Inf.: Incorrect value in async parameter");
		return;
	}
	if (srv_query_flag(r, "dry_run", false, &dry_run) < 0 || dry_run) {
		srv_reply_error(r, out, 400, "Error Creating Inf.: dry_run is not supported by this server");
		return;
	}
	if (srv_radl_body(r, out) < 0)
		return;
	struct diag d = DIAG_INIT;
	char *owner = srv_owner_new(&r->user), *id = NULL;
	struct deploy_submission req = { .file = "body", .text = r->body, .len = r->len,
					 .auth_given = r->user.auth_path, .owner = owner };
	if (deploy_submit(&req, r->cfg->home, &r->st, &id, &d) < 0) {
		srv_reply_diag(r, out, diag_has_errors(&d) && d.code == IMC_EXIT_IOERR ? 500 : 400,
			       "Error Creating Inf.", &d);
		goto out;
	}
	/* the store names the request's auth file as the one the
	 * infrastructure's workers read: it stays until the destroy */
	r->user.keep_auth = true;
	log_info("serve", "infrastructure %s created for user '%s'", id, r->user.username);
	if (!async)
		deploy_wait_created(r->st, id, r->cfg->create_wait);
	char *path = xasprintf("infrastructures/%s", id);
	srv_reply_uri(r, out, path);
	free(path);
out:
	free(owner);
	free(id);
	diag_release(&d);
}

void srv_infra_info(struct srv_request *r, struct srv_reply *out)
{
	struct state_infra in;
	struct diag d = DIAG_INIT;
	struct state_vm *vms = NULL;
	size_t n = 0;
	if (srv_infra(r, r->seg[1], "Error Getting Inf. info", true, &in, out) < 0)
		return;
	if (state_vm_list(r->st, in.id, &vms, &n, &d) < 0) {
		srv_reply_diag(r, out, 400, "Error Getting Inf. info", &d);
		goto out;
	}
	char **paths = xcalloc(n ? n : 1, sizeof(*paths));
	for (size_t i = 0; i < n; i++)
		paths[i] = xasprintf("infrastructures/%s/vms/%d", in.id, vms[i].num);
	srv_reply_uris(r, out, paths, n);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
out:
	state_vm_list_free(vms, n);
	state_infra_release(&in);
	diag_release(&d);
}

/* {"NAME": VALUE} of the outputs the deployment fetched back: a value
 * that is a JSON number or boolean stays one, a file is its path. */
static json_t *outputs_json(struct state_store *st, const char *id, struct diag *d)
{
	struct state_output *outs = NULL;
	size_t n = 0;
	if (state_output_list(st, id, &outs, &n, d) < 0)
		return NULL;
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++) {
		json_t *v = NULL;
		if (!outs[i].path && outs[i].value) {
			v = json_loads(outs[i].value, JSON_DECODE_ANY, NULL);
			if (v && !json_is_number(v) && !json_is_boolean(v)) {
				json_decref(v);
				v = NULL;
			}
		}
		if (!v)
			v = json_string(outs[i].path ? outs[i].path : outs[i].value ? outs[i].value : "");
		json_object_set_new(o, outs[i].name, v);
	}
	state_output_list_free(outs, n);
	return o;
}

void srv_infra_prop(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Getting Inf. prop";
	const char *prop = r->seg[2];
	struct state_infra in;
	struct diag d = DIAG_INIT;
	if (srv_infra(r, r->seg[1], what, true, &in, out) < 0)
		return;
	if (strcmp(prop, "state") == 0) {
		/* IM: {"state": {"state": S, "vm_states": {"N": S}}} */
		deploy_refresh(r->st, &in, r->user.auth_path, &d);
		json_t *doc = json_object();
		struct strbuf sb = STRBUF_INIT;
		if (deploy_state_report(r->st, in.id, false, doc, &sb, &d) < 0)
			srv_reply_diag(r, out, 400, what, &d);
		else {
			struct srv_request as_json = *r;
			as_json.accept = "application/json";
			srv_reply_prop(&as_json, out, "state", NULL, json_incref(json_object_get(doc, "state")));
		}
		json_decref(doc);
		strbuf_release(&sb);
	} else if (strcmp(prop, "contmsg") == 0) {
		bool header_only;
		struct strbuf log = STRBUF_INIT;
		if (srv_query_flag(r, "headeronly", false, &header_only) < 0)
			srv_reply_error(r, out, 400, "%s: Incorrect value in headeronly parameter", what);
		else if (state_log_get(r->st, in.id, header_only ? -1 : -2, &log, &d) < 0)
			srv_reply_diag(r, out, 400, what, &d);
		else
			srv_reply_prop(r, out, "contmsg", strbuf_str(&log), NULL);
		strbuf_release(&log);
	} else if (strcmp(prop, "radl") == 0) {
		/* the credentials written in the RADL are registered as
		 * secrets by parsing it, then masked in the answer */
		radl_doc_free(deploy_radl(&in, &d));
		srv_reply_prop(r, out, "radl", in.radl ? in.radl : "", NULL);
	} else if (strcmp(prop, "outputs") == 0) {
		json_t *o = outputs_json(r->st, in.id, &d);
		if (!o)
			srv_reply_diag(r, out, 400, what, &d);
		else {
			struct srv_request as_json = *r;
			as_json.accept = "application/json";
			srv_reply_prop(&as_json, out, "outputs", NULL, o);
		}
	} else if (strcmp(prop, "authorization") == 0)
		srv_owners_get(r, out, &in);
	else if (strcmp(prop, "tosca") == 0)
		/* imc takes no TOSCA: every infrastructure is one IM made from RADL */
		srv_reply_error(r, out, 403, "'tosca' infrastructure property is not valid in this infrastructure");
	else
		srv_reply_error(r, out, 404, "%s: Incorrect infrastructure property '%s'", what, prop);
	state_infra_release(&in);
	diag_release(&d);
}

/* An asynchronous destroy, after its answer (background.c). */
struct destroy_job {
	char *home, *id, *auth, *stored_auth, *user;
	bool force;
};

static void destroy_job_free(struct destroy_job *j)
{
	free(j->home);
	free(j->id);
	free(j->auth);
	free(j->stored_auth);
	free(j->user);
	free(j);
}

static void destroy_in_background(void *arg)
{
	struct destroy_job *j = arg;
	struct diag d = DIAG_INIT;
	bool already;
	secret_scope_begin();
	struct state_store *st = state_open(j->home, &d);
	if (st && deploy_destroy(st, j->id, j->auth, j->force, &already, &d) == 0) {
		if (!already)
			srv_authfile_drop(j->home, j->stored_auth);
		log_info("serve", "infrastructure %s destroyed for user '%s' (async)", j->id, j->user);
	} else
		log_warn("serve", "infrastructure %s: the asynchronous destroy failed: %s", j->id,
			 diag_first_message(&d));
	state_close(st);
	/* the request's auth file was left for this job */
	srv_authfile_drop(j->home, j->auth);
	diag_release(&d);
	destroy_job_free(j);
	secret_scope_end();
}

void srv_infra_destroy(struct srv_request *r, struct srv_reply *out)
{
	static const char what[] = "Error Destroying Inf";
	bool force, async, already;
	struct state_infra in;
	struct diag d = DIAG_INIT;
	if (srv_query_flag(r, "force", false, &force) < 0 || srv_query_flag(r, "async", false, &async) < 0) {
		srv_reply_error(r, out, 400, "%s: Incorrect value in force or async parameter", what);
		return;
	}
	if (srv_infra(r, r->seg[1], what, false, &in, out) < 0)
		return;
	if (async) {
		/* IM: answered at once, the destroy goes on; its outcome is
		 * the infrastructure's state (404 once it is deleted) */
		struct destroy_job *j = xcalloc(1, sizeof(*j));
		*j = (struct destroy_job){ .home = xstrdup(r->cfg->home), .id = xstrdup(in.id),
					   .auth = xstrdup(r->user.auth_path),
					   .stored_auth = in.auth_path ? xstrdup(in.auth_path) : NULL,
					   .user = xstrdup(r->user.username), .force = force };
		if (srv_background(destroy_in_background, j, &d) < 0) {
			destroy_job_free(j);
			srv_reply_diag(r, out, 500, what, &d);
		} else {
			r->user.keep_auth = true; /* the job's now */
			srv_reply_empty(r, out);
		}
	} else if (deploy_destroy(r->st, in.id, r->user.auth_path, force, &already, &d) < 0)
		srv_reply_diag(r, out, 400, what, &d);
	else {
		if (!already)
			srv_authfile_drop(r->cfg->home, in.auth_path);
		log_info("serve", "infrastructure %s destroyed for user '%s'", in.id, r->user.username);
		srv_reply_empty(r, out);
	}
	state_infra_release(&in);
	diag_release(&d);
}
