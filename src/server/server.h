/* server.h: `imc serve`, IM's REST API (REST.rst of IM) on imc's store and
 * deployment engine. The files of src/server each do one job: http.c the
 * libmicrohttpd plumbing and the limits, route.c the table of resources,
 * request.c what a handler reads of its request,
 * auth.c the Authorization header and ownership, reply.c IM's content
 * types and error bodies, infra.c, vms.c, ops.c, resources.c and stats.c
 * the resources. A
 * handler sees a struct srv_request and fills a struct srv_reply; it
 * never sees libmicrohttpd.
 *
 * Every request opens its own connection to the store (a store is one
 * SQLite connection, not shared between threads) and closes it when
 * answered; the per-infrastructure locks of the store serialise the
 * server's changes with the CLI's and the workers'. */
#ifndef IMC_SERVER_SERVER_H
#define IMC_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cloud/auth.h"
#include "state/store.h"
#include "util/diag.h"
#include "util/strbuf.h"

struct srv_config {
	const char *home;       /* $IMC_HOME */
	const char *bind;       /* address to listen on */
	unsigned port;
	size_t max_body;        /* bytes; a longer body is answered 413 */
	size_t max_header;      /* bytes of request line and headers (MHD's pool) */
	unsigned max_conns;     /* connections at once; more are refused */
	unsigned timeout;       /* seconds a connection may stay idle */
	double create_wait;     /* seconds a synchronous create waits for the worker */
	const char *pid_file;   /* written once listening, or NULL */
	const char *tls_cert;   /* PEM certificate (chain) file: HTTPS; NULL: HTTP */
	const char *tls_key;    /* PEM private key file, with tls_cert */
};

/* Serves until SIGINT or SIGTERM. 0, or -1 with d set (cannot listen). */
int server_run(const struct srv_config *cfg, struct diag *d);

/* The user a request authenticated as (auth.c). */
struct srv_user {
	struct auth_file *af;   /* the header's credentials */
	const char *username;   /* of the InfrastructureManager line (borrowed from af) */
	char *auth_path;        /* the cloud lines written for the engine (authfile.c) */
	bool keep_auth;         /* auth_path became an infrastructure's: not removed */
};

struct srv_request {
	const struct srv_config *cfg;
	const char *method;
	char **seg;             /* the path's segments, decoded */
	size_t nseg;
	const char *accept;     /* media type of Accept (parameters dropped), or NULL */
	const char *content_type; /* likewise for Content-Type */
	const char *authorization;
	const char *body;       /* NUL-terminated */
	size_t len;
	const char *base;       /* "http[s]://HOST" as the client named the server */
	void *conn;             /* for srv_query (http.c) */
	struct srv_user user;
	struct state_store *st; /* opened for the request by route.c */
};

/* What a handler answers: status, media type and body. */
struct srv_reply {
	unsigned status;
	const char *type;
	struct strbuf body;
};

/* owners.c: GET and POST /infrastructures/ID/authorization. */
void srv_owners_get(struct srv_request *r, struct srv_reply *out, const struct state_infra *in);
void srv_owners_change(struct srv_request *r, struct srv_reply *out);

/* stats.c: GET /stats, GET and POST /oai. */
void srv_stats(struct srv_request *r, struct srv_reply *out);
void srv_oai(struct srv_request *r, struct srv_reply *out);

/* request.c: the value of query argument name, or NULL. */
const char *srv_query(const struct srv_request *r, const char *name);
/* request.c: IM's flags (yes, no, true, false, 1, 0): 0 or 1 in *val (def when
 * absent); -1 when the value is none of those. */
int srv_query_flag(const struct srv_request *r, const char *name, bool def, bool *val);

/* request.c: a VM number of the path ("0", "12"): 0, or -1. */
int srv_vm_number(const char *s, size_t len, int *num);
/* route.c: answers r. */
void srv_route(struct srv_request *r, struct srv_reply *out);

/* auth.c: reads r->authorization into r->user; -1 with the 401 answer in out. */
int srv_auth(struct srv_request *r, struct srv_reply *out);
/* auth.c: frees u; its auth file goes too unless keep_auth. */
void srv_user_release(const char *home, struct srv_user *u);
/* auth.c: an infrastructure's owners are lines "SALT$SHA256 USERNAME",
 * the hash over the salt, the name and the password (never stored).
 * srv_owner_entry is a new line for user and password (malloc'd),
 * srv_owner_new the owner value of a new infrastructure of user u. */
char *srv_owner_entry(const char *user, const char *password);
char *srv_owner_new(const struct srv_user *u);
/* auth.c: one line of an owner value: its hash ("SALT$HEX") and the user
 * name after it (empty in lines written before owners had names). */
struct srv_owner_line {
	const char *hash, *name;
	size_t hash_len, name_len;
};
/* auth.c: the line at *pos into *line, *pos moved past it; false at the end. */
bool srv_owner_next(const char **pos, struct srv_owner_line *line);
/* auth.c: whether owner holds a line of user with password; of u. */
bool srv_owner_match(const char *owner, const char *user, const char *password);
bool srv_owner_is(const struct srv_user *u, const char *owner);
/* auth.c: the live infrastructure id of r's user into *in; -1 with IM's
 * answer in out (404 unknown or deleted, 403 another user's); what is
 * the operation in IM's message ("Error Getting Inf. prop"). With recover,
 * a dead worker's infrastructure is recorded so first (deploy_recover), as
 * for the commands with CMD_RECOVER. */
int srv_infra(struct srv_request *r, const char *id, const char *what, bool recover, struct state_infra *in,
	      struct srv_reply *out);

/* authfile.c: the request's auth file, HOME/serve/auth-RANDOM.dat (0600),
 * with len bytes of text; *path gets its name. */
int srv_authfile_write(const char *home, const char *text, size_t len, char **path, struct diag *d);
/* authfile.c: removes path if it is one of the server's auth files. */
void srv_authfile_drop(const char *home, const char *path);
/* authfile.c: removes the server's auth files that no live infrastructure
 * of the store names (what a crash left), before serving. */
int srv_authfile_sweep(const char *home, struct diag *d);

/* background.c: runs fn(arg) in a thread of its own, after the request
 * is answered: 0, or -1 with d set (fn not run; arg still the caller's). */
int srv_background(void (*fn)(void *arg), void *arg, struct diag *d);
/* background.c: returns once every background job ended (at stop). */
void srv_background_wait(void);

/* reply.c: content negotiation and IM's bodies. */
void srv_reply_text(struct srv_reply *out, unsigned status, const char *text);
/* An error as IM answers it: text/plain, or {"message", "code"} with
 * Accept: application/json, or a small HTML page with Accept: text/html. */
void srv_reply_error(const struct srv_request *r, struct srv_reply *out, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The first error of d as IM's error (status), prefixed with what. */
void srv_reply_diag(const struct srv_request *r, struct srv_reply *out, unsigned status, const char *what,
		    const struct diag *d);
/* A list of URIs BASE/PATH[i]: text/uri-list, or {"uri-list": [{"uri"}]}. */
void srv_reply_uris(const struct srv_request *r, struct srv_reply *out, char **paths, size_t n);
/* One URI: text/uri-list, or {"uri": ...}. */
void srv_reply_uri(const struct srv_request *r, struct srv_reply *out, const char *path);
/* A property: text/plain value (text), or {"name": json}. json is stolen. */
void srv_reply_prop(const struct srv_request *r, struct srv_reply *out, const char *name, const char *text,
		    json_t *json);
/* An empty 200 answer (operations that succeeded). */
void srv_reply_empty(const struct srv_request *r, struct srv_reply *out);

/* request.c: 0 when the body's media type is one IM takes for RADL: text (or
 * none) for RADL, application/json for RADL-JSON (told apart by the
 * parser); else -1 with IM's 415 in out (TOSCA, text/yaml, included). */
int srv_radl_body(const struct srv_request *r, struct srv_reply *out);

/* The resources: each answers r (route.c picks by method and path). */
void srv_version(struct srv_request *r, struct srv_reply *out);
void srv_infra_list(struct srv_request *r, struct srv_reply *out);
void srv_infra_create(struct srv_request *r, struct srv_reply *out);
void srv_infra_info(struct srv_request *r, struct srv_reply *out);
void srv_infra_prop(struct srv_request *r, struct srv_reply *out);
void srv_infra_data(struct srv_request *r, struct srv_reply *out);
void srv_infra_import(struct srv_request *r, struct srv_reply *out);
void srv_cloud_info(struct srv_request *r, struct srv_reply *out);
void srv_infra_destroy(struct srv_request *r, struct srv_reply *out);
void srv_vm_info(struct srv_request *r, struct srv_reply *out);
void srv_vm_snapshot(struct srv_request *r, struct srv_reply *out);
void srv_vm_prop(struct srv_request *r, struct srv_reply *out);
void srv_infra_op(struct srv_request *r, struct srv_reply *out);
void srv_infra_add(struct srv_request *r, struct srv_reply *out);
void srv_vm_remove(struct srv_request *r, struct srv_reply *out);
void srv_vm_alter(struct srv_request *r, struct srv_reply *out);
void srv_infra_reconfigure(struct srv_request *r, struct srv_reply *out);
void srv_vm_op(struct srv_request *r, struct srv_reply *out);

#endif
