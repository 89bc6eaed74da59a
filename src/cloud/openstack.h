/* openstack.h: internals of the 'openstack' backend, shared by its files:
 *   openstack-http.c    one JSON exchange over libcurl with the session's
 *                       token, the reading of the services' error bodies,
 *                       backoff and (scaled) sleeping
 *   openstack-auth.c    Keystone v3 password authentication and the
 *                       service catalog (compute, network, image URLs)
 *   openstack-call.c    an API call: authentication on first use and on
 *                       401, retries of 429/5xx honouring Retry-After
 *   openstack-flavor.c  the smallest flavor that fits the RADL's size
 *   openstack-sg.c      RADL outports -> Neutron security groups
 *   openstack-server.c  reading servers: state, addresses, the servers of
 *                       an infrastructure found by their metadata
 *   openstack-sweep.c   destroy's sweep: servers, floating IPs, groups and
 *                       the key pair of an infrastructure, in order
 *   openstack.c         the driver operations and the cloud_openstack table
 * Nothing here is used outside src/cloud/openstack* and its tests.
 *
 * Ownership: every struct owns its strings; *_release() frees them and
 * accepts a zeroed struct. JSON values returned to a caller are new
 * references (json_decref). */
#ifndef IMC_CLOUD_OPENSTACK_H
#define IMC_CLOUD_OPENSTACK_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>
#include <jansson.h>

#include "state/vmstate.h"
#include "util/diag.h"

/* Metadata on every server, and the description of every floating IP and
 * security group the backend makes: how a sweep finds them. */
#define OS_META_INFRA "imc-infra-id"
#define OS_META_VMNUM "imc-vm-num"

enum os_service { OS_IDENTITY, OS_COMPUTE, OS_NETWORK, OS_IMAGE };

/* One cloud: the auth line's values (borrowed), the token and catalog
 * (owned), a curl handle. */
struct os_conn {
	char *auth_url;          /* Keystone base, without a trailing "/v3" */
	const char *user;
	const char *password;
	const char *project;     /* 'tenant' */
	const char *domain;      /* user and project domain name */
	const char *region;      /* 'service_region', or NULL: the first */
	char *token;             /* X-Subject-Token, registered as a secret */
	char *url[4];            /* by enum os_service; [OS_IDENTITY] unused */
	CURL *curl;
	double time_scale;       /* multiplies every delay (IMC_OPENSTACK_TIME_SCALE) */
	int max_attempts;
	unsigned seed;
	unsigned long requests;
};

/* What a call that did not succeed left behind. */
struct os_error {
	long status;             /* 0: transport failure */
	char *fault;             /* "itemNotFound", "SecurityGroupInUse", ... or NULL */
	char *message;
	bool retryable;
	bool transport;
};

/* Call flags. */
enum {
	/* One attempt only: the caller decides whether a retry is safe (a
	 * server create that may have happened). */
	OS_ONCE = 1 << 0,
	/* Do not log the request body (it holds the password). */
	OS_QUIET = 1 << 1,
};

/* ---- openstack-http.c ---- */

int os_conn_init(struct os_conn *c, struct diag *d);
void os_conn_release(struct os_conn *c);
/* The raw exchange, without authentication or retries (os_auth uses it).
 * url is absolute; *hdr_token receives X-Subject-Token when wanted. */
int os_http(struct os_conn *c, const char *method, const char *url, const char *body,
	    unsigned flags, long *status, char **resp, double *retry_after, char **hdr_token,
	    struct os_error *err);
void os_error_release(struct os_error *e);
/* Records e in d as "openstack: cannot WHAT: HTTP N FAULT: MESSAGE". */
void os_error_diag(const struct os_error *e, struct diag *d, const char *what);
/* Sleeps seconds * time_scale. */
void os_sleep(const struct os_conn *c, double seconds);
/* Retry delay for attempt (1-based): rand * 2^(attempt-1) s, at most 20. */
double os_backoff(struct os_conn *c, int attempt);
/* Reads an error body (Nova's {"itemNotFound": {...}}, Neutron's
 * {"NeutronError": {...}}, Keystone's {"error": {...}}) into e. */
void os_error_parse(const char *body, struct os_error *e);
/* Percent-encodes s for a query string. */
char *os_urlencode(const char *s);

/* ---- openstack-call.c ---- */

/* Sends METHOD to the service's URL + path with body (may be NULL),
 * authenticating first when there is no token and once more on a 401.
 * Retries 429 and 5xx (and connection failures) up to max_attempts unless
 * OS_ONCE. On 2xx returns 0 with *reply the parsed body (NULL when empty;
 * reply may be NULL). Otherwise -1 with err filled (release it). */
int os_call(struct os_conn *c, enum os_service svc, const char *method, const char *path,
	    json_t *body, unsigned flags, json_t **reply, struct os_error *err);

/* ---- openstack-auth.c ---- */

/* Keystone v3 password auth scoped to the project; sets c->token and the
 * service URLs from the catalog. */
int os_auth(struct os_conn *c, struct os_error *err);

/* ---- openstack-flavor.c ---- */

struct os_flavor {
	char *id;
	char *name;
	int vcpus;
	long long ram_mib;
	long long disk_gib;
};

/* The flavor for a VM: instance_type by name (or fnmatch pattern), else
 * the smallest (vcpus, ram, disk) with at least cpus, memory and disk.
 * Returns 0 with *out filled, or -1 with d set. */
int os_flavor_pick(json_t *flavors, const char *instance_type, int cpus, long long memory_bytes,
		   long long disk_bytes, struct os_flavor *out, struct diag *d);
void os_flavor_release(struct os_flavor *f);

/* ---- openstack-sg.c ---- */

/* Finds or creates group NAME for network NET (its description records
 * the infrastructure and whether the network is public) with the rules of
 * outports, plus tcp and udp from the group itself. Idempotent. *id and
 * *public are set. outports are validated before anything is made. */
int os_sg_ensure(struct os_conn *c, const char *infra, const char *name, const char *net,
		 bool public, const char *outports, char **id, struct diag *d);
/* The group named name: 1 with *id (and *public) set, 0 when none. */
int os_sg_lookup(struct os_conn *c, const char *name, char **id, bool *public, struct diag *d);

/* ---- openstack-server.c ---- */

struct os_server {
	char *id;
	char *status;        /* "BUILD", "ACTIVE", "SHUTOFF", "ERROR", ... */
	char *fault;         /* fault.message of an ERROR server */
	char *private_ip;    /* first fixed IPv4 */
	char *public_ip;     /* first floating IPv4 */
	int vm_num;          /* metadata imc-vm-num, -1 when absent */
};

/* Reads one "server" object. */
void os_server_read(json_t *server, struct os_server *out);
void os_server_release(struct os_server *s);
void os_servers_free(struct os_server *v, size_t n);
enum vm_state os_server_state(const char *status);
/* GET /servers/ID: 1 with *out, 0 when it does not exist, -1 with d. */
int os_server_get(struct os_conn *c, const char *id, struct os_server *out, struct diag *d);
/* The servers whose metadata names infra (every page of /servers/detail). */
int os_servers_of(struct os_conn *c, const char *infra, struct os_server **v, size_t *n,
		  struct diag *d);

/* ---- openstack-sweep.c ---- */

/* Bounded polling of one command: IMC_OPENSTACK_SWEEP_DEADLINE seconds
 * (default 600) on a clock that adds the nominal delays the time scale
 * skipped, so a test scaled to 0 reaches it after as many polls as a real
 * run, without sleeping. */
struct os_deadline {
	bool started;
	double end;
	double skipped;
};

/* Sleeps seconds (scaled), clipped to the deadline; false once it passed. */
bool os_deadline_sleep(struct os_deadline *dl, const struct os_conn *c, double seconds);
/* Deletes server id and waits until it is gone. */
int os_server_delete_wait(struct os_conn *c, struct os_deadline *dl, const char *id, int num,
			  struct diag *d);
/* Releases the floating IPs of infra (of VM num; -1: of every VM). */
int os_fips_release(struct os_conn *c, const char *infra, int num, struct diag *d);
/* Everything of infra: servers (waited until gone), floating IPs, the
 * groups named "imc-INFRA-*" and the key pair. What it cannot remove is
 * named in one error. */
int os_sweep(struct os_conn *c, struct os_deadline *dl, const char *infra, const char *key,
	     struct diag *d);
/* Deletes the group named name (absent: success), retrying while a
 * server still holds it, until the deadline. */
int os_sg_delete_named(struct os_conn *c, struct os_deadline *dl, const char *name,
		       struct diag *d);
int os_key_delete(struct os_conn *c, const char *key, struct diag *d);

#endif
