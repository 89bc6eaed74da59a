/* docker.h: the Docker backend's internal interface (docs/docker.md).
 * docker-api.c speaks the Engine API (HTTP over the daemon's unix socket or
 * TCP, JSON bodies), docker-net.c makes the networks, docker.c is the
 * backend table. Everything the backend creates is named from the
 * infrastructure id and labelled with it (DOCKER_LABEL_INFRA), so that
 * destroy and cleanup_infra find it even when the store lost a row. */
#ifndef IMC_DOCKER_H
#define IMC_DOCKER_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>
#include <jansson.h>

#include "cloud/cloud.h"
#include "util/strbuf.h"

#define DOCKER_LOG "docker"
/* The API version every path is prefixed with: Docker 20.10's, which
 * every later daemon still serves. */
#define DOCKER_API "v1.41"
#define DOCKER_LABEL_INFRA "org.imc.infra"
#define DOCKER_LABEL_VM "org.imc.vm"
#define DOCKER_LABEL_NET "org.imc.net"

struct docker_conn {
	CURL *curl;
	char *socket;   /* unix socket path, or NULL for TCP */
	char *base;     /* "http://localhost/v1.41" or "http://HOST:PORT/v1.41" */
	char *where;    /* the daemon as a message names it */
};

/* One answer: status (0 when the daemon was not reached), the body parsed
 * as JSON when it is JSON, and the daemon's message of an error reply. */
struct docker_reply {
	long status;
	json_t *json;
	char *message;
};

/* host: the auth line's 'host' (unix:///path, tcp://h:p, http://h:p), or
 * NULL for $DOCKER_HOST, else the default socket. */
int docker_conn_init(struct docker_conn *c, const char *host, struct diag *d);
void docker_conn_release(struct docker_conn *c);
/* method path (after the version prefix, query included) with an optional
 * JSON body. Returns 0 when the daemon answered (any status), -1 with d
 * set when it could not be reached. */
int docker_call(struct docker_conn *c, const char *method, const char *path, json_t *body,
		struct docker_reply *r, struct diag *d);
void docker_reply_release(struct docker_reply *r);
/* An error for a reply that is not the expected one: the daemon's
 * status and message, with an exit code from the status. */
void docker_reply_diag(const struct docker_conn *c, const struct docker_reply *r, const char *what,
		       struct diag *d);
/* Pulls image (name[:tag]) when the daemon does not have it. */
int docker_image_ensure(struct docker_conn *c, const char *image, struct diag *d);
/* The pull stream's reader: JSON objects one per line, fed in pieces cut
 * anywhere. The first error line ("error" or "errorDetail.message") is
 * kept. */
struct docker_pull {
	struct strbuf line;
	char *error;
	size_t objects;
};
void docker_pull_feed(struct docker_pull *p, const char *data, size_t n);
/* Ends the stream (a last line without a newline counts). */
void docker_pull_finish(struct docker_pull *p);
void docker_pull_release(struct docker_pull *p);
/* Percent-encodes s into sb (a path segment or query value). */
void docker_escape(struct strbuf *sb, const char *s);

/* docker-net.c */
int docker_net_create(struct docker_conn *c, const char *infra_id, struct cloud_net *net,
		      struct diag *d);
/* Removes the network; gone already is success. */
int docker_net_remove(struct docker_conn *c, const char *name, struct diag *d);

/* docker-ready.c: waits until the sshd of container name (VM num) at ip
 * accepts pubkey (an OpenSSH line) for user. */
int docker_wait_ready(struct docker_conn *c, const char *name, int num, const char *ip,
		      const char *user, const char *pubkey, double timeout, struct diag *d);

/* docker-sweep.c: removes every object (containers, then volumes, then
 * networks) labelled with the infrastructure id, and, with vm >= 0, only
 * that VM's containers and volumes; returns when the daemon lists none. */
int docker_sweep(struct docker_conn *c, const char *infra_id, int vm, struct diag *d);

#endif
