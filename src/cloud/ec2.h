/* ec2.h: internals of the 'ec2' backend, shared by its files:
 *   ec2-http.c   form-encoded Query API requests over libcurl, signed by
 *                libcurl's own AWS SigV4, with retries (botocore's policy)
 *   ec2-xml.c    libxml2 reply parsing (instances, errors, groups)
 *   ec2-types.c  the bundled instance-type table (cheapest fitting type)
 *   ec2-sg.c     RADL outports -> security-group rules, group lifecycle
 *   ec2-state.c  the per-infrastructure file that remembers regions and
 *                network definitions across processes (crash safety)
 *   ec2-sweep.c  destroy's sweep: everything tagged with (or named after)
 *                the infrastructure, removed in dependency order within a
 *                deadline
 *   ec2.c        the driver operations and the cloud_ec2 table
 * Nothing here is used outside src/cloud/ec2* and its tests.
 *
 * Ownership: every struct owns its strings; *_release() frees them and
 * accepts a zeroed struct. */
#ifndef IMC_CLOUD_EC2_H
#define IMC_CLOUD_EC2_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>
#include <libxml/tree.h>

#include "util/diag.h"
#include "util/strbuf.h"

#define EC2_API_VERSION "2016-11-15"
/* Tag carried by everything the backend creates. */
#define EC2_TAG_INFRA "imc-infra-id"
#define EC2_TAG_VMNUM "imc-vm-num"

/* ---- ec2-http.c ---- */

/* One region's connection: endpoint, credentials (borrowed), a curl handle. */
struct ec2_conn {
	char *endpoint;          /* URL ending in '/' */
	char *region;
	char *service;           /* SigV4 service name: "ec2" */
	const char *access_key;  /* borrowed from the auth line */
	const char *secret_key;
	const char *token;       /* STS session token, or NULL */
	CURL *curl;
	double time_scale;       /* multiplies every delay (IMC_EC2_TIME_SCALE) */
	int max_attempts;        /* botocore: 5 */
	unsigned seed;           /* jitter */
	unsigned long requests;  /* HTTP requests sent (for tests/logs) */
};

/* A Query API request: ordered key/value pairs, Action and Version first. */
struct ec2_query {
	char **kv;  /* key0, value0, key1, value1, ... */
	size_t n;   /* pairs */
	size_t alloc;
};

/* What an EC2 call that did not succeed left behind. code is NULL for a
 * transport failure (message then says what curl said). */
struct ec2_error {
	long status;
	char *code;
	char *message;
	char *request_id;
	bool retryable;
	bool transport;
};

/* endpoint NULL means https://ec2.REGION.amazonaws.com/; a host without a
 * scheme gets https://. Returns 0, or -1 with d set. */
int ec2_conn_init(struct ec2_conn *c, const char *endpoint, const char *region,
		  const char *access_key, const char *secret_key, const char *token,
		  struct diag *d);
void ec2_conn_release(struct ec2_conn *c);

void ec2_query_init(struct ec2_query *q, const char *action);
void ec2_query_add(struct ec2_query *q, const char *key, const char *value);
void ec2_query_addf(struct ec2_query *q, const char *value, const char *keyfmt, ...)
	__attribute__((format(printf, 3, 4)));
void ec2_query_addint(struct ec2_query *q, const char *key, long long v);
const char *ec2_query_action(const struct ec2_query *q);
void ec2_query_release(struct ec2_query *q);
/* The form body: key=value&... with RFC 3986 percent-encoding (AWS's). */
char *ec2_query_encode(const struct ec2_query *q);
/* AWS URI encoding of s (unreserved A-Za-z0-9-_.~ kept) appended to sb. */
void ec2_uri_encode(struct strbuf *sb, const char *s);

/* Sends one action, retrying what botocore's policy retries. On success
 * returns 0 with *doc the parsed reply (caller frees with xmlFreeDoc). On
 * failure returns -1 with err filled (caller releases it). */
int ec2_call(struct ec2_conn *c, const struct ec2_query *q, xmlDoc **doc, struct ec2_error *err);
void ec2_error_release(struct ec2_error *e);
/* True when err is the EC2 error code (or code prefix ending in '.'). */
bool ec2_error_is(const struct ec2_error *e, const char *code);
/* Records e in d as "ec2 (REGION): cannot WHAT: CODE: MESSAGE (request id
 * ID)", with an exit status chosen from the code. */
void ec2_error_diag(const struct ec2_conn *c, const struct ec2_error *e, struct diag *d,
		    const char *what);
/* Classifier (botocore's _retry.json for ec2 plus InternalError). */
bool ec2_retryable(long status, const char *code);
/* Sleeps seconds * time_scale. */
void ec2_sleep(const struct ec2_conn *c, double seconds);
/* Retry delay for the given attempt (1-based): rand * 2^(attempt-1) s. */
double ec2_backoff(struct ec2_conn *c, int attempt);

/* Raw signed request (used by ec2_call, and by the SigV4 vector test).
 * headers may be NULL. Returns the CURLcode; *status and resp are set. */
CURLcode ec2_http_send(struct ec2_conn *c, const char *method, const char *url,
		       struct curl_slist *headers, const char *body, size_t body_len,
		       long *status, struct strbuf *resp, char *errbuf);

/* ---- ec2-xml.c ---- */

struct ec2_instance {
	char *id;
	char *state;       /* "pending", "running", ... */
	int code;          /* EC2 state code, -1 if absent */
	char *private_ip;
	char *public_ip;
	char *reason;      /* stateReason/message, if any */
	char *client_token;
	char *type;        /* instanceType */
};

xmlDoc *ec2_xml_parse(const char *buf, size_t len);
/* First child element of n with local name name, or NULL. */
xmlNode *ec2_xml_child(const xmlNode *n, const char *name);
/* First descendant element (depth first) with local name name, or NULL. */
xmlNode *ec2_xml_find(const xmlNode *n, const char *name);
/* Trimmed text of child name of n, malloc'd, or NULL when absent/empty. */
char *ec2_xml_text(const xmlNode *n, const char *name);
/* Parses an error body into e (code, message, request id). Returns 0, or
 * -1 when buf is not an EC2 error document. */
int ec2_xml_error(const char *buf, size_t len, struct ec2_error *e);
/* The instances of a RunInstances, DescribeInstances, Start/Stop/Terminate
 * reply (reservationSet/item/instancesSet/item or instancesSet/item). */
int ec2_xml_instances(xmlDoc *doc, struct ec2_instance **out, size_t *n);
void ec2_instances_free(struct ec2_instance *v, size_t n);
/* Every text of elements named field inside <set>/<item> (e.g.
 * securityGroupInfo/groupId, keySet/keyName). */
int ec2_xml_set_values(xmlDoc *doc, const char *set, const char *field, char ***out, size_t *n);
void ec2_strv_free(char **v, size_t n);

/* ---- ec2-types.c ---- */

struct ec2_type {
	const char *name;
	int vcpus;
	int memory_mib;
	int gpus;
	double usd_hour;   /* on-demand Linux, us-east-1 */
};

/* Cheapest type with at least cpus, memory and gpus (0 = any), or NULL. */
const struct ec2_type *ec2_type_pick(int cpus, long long memory_bytes, int gpus);
/* The same among the types whose name matches the fnmatch pattern. */
const struct ec2_type *ec2_type_pick_pattern(const char *pattern, int cpus, long long memory_bytes,
					     int gpus);
const struct ec2_type *ec2_type_find(const char *name);
const struct ec2_type *ec2_types(size_t *n);

/* ---- ec2-sg.c ---- */

struct ec2_rule {
	char proto[8];   /* "tcp", "udp", "icmp" */
	int from, to;    /* -1 for icmp (all types) */
	char cidr[48];
};

/* Parses RADL outports ([CIDR-]PORT[:PORT][/PROTO][-PORT[/PROTO]], comma
 * separated) into ingress rules; with
 * public, 22/tcp from anywhere is added when missing. outports may be NULL.
 * Errors name the network and the bad part. */
int ec2_outports_parse(const char *net, const char *outports, bool public,
		       struct ec2_rule **rules, size_t *n, struct diag *d);
/* Finds or creates group name (tagged with infra), then authorizes the
 * rules and all traffic from the group itself. Idempotent. *group_id is
 * malloc'd. */
int ec2_sg_ensure(struct ec2_conn *c, const char *infra, const char *name,
		  const struct ec2_rule *rules, size_t n, char **group_id, struct diag *d);
/* Group id of name, or NULL (with 0) when there is none. */
int ec2_sg_lookup(struct ec2_conn *c, const char *name, char **group_id, struct diag *d);

/* ---- ec2-state.c ---- */

struct ec2_netdef {
	char *name;
	bool public;
	char *outports;
};

/* What the backend must remember about an infrastructure between
 * processes: the regions it touched (written before the first request in a
 * region) and the network definitions (written by net_create). Kept in
 * $IMC_HOME/ec2/INFRA.json, mode 0600. */
struct ec2_state {
	char *path;
	char **regions;
	size_t nregions;
	struct ec2_netdef *nets;
	size_t nnets;
};

int ec2_state_load(struct ec2_state *st, const char *home, const char *infra, struct diag *d);
int ec2_state_save(const struct ec2_state *st, struct diag *d);
/* Adds and saves; returns 0 when already there. */
int ec2_state_add_region(struct ec2_state *st, const char *region, struct diag *d);
int ec2_state_add_net(struct ec2_state *st, const char *name, bool public,
		      const char *outports, struct diag *d);
const struct ec2_netdef *ec2_state_net(const struct ec2_state *st, const char *name);
/* Removes the file (after a complete cleanup). */
void ec2_state_remove(struct ec2_state *st);
void ec2_state_release(struct ec2_state *st);

/* ---- ec2-sweep.c ---- */

/* The time budget of one command's sweeps (destroy, cleanup): seconds from
 * IMC_EC2_SWEEP_DEADLINE, default 600. Its clock is the monotonic clock
 * plus the nominal delays that IMC_EC2_TIME_SCALE skipped, so a test that
 * scales delays to 0 still reaches the deadline after as many polls as a
 * real run would make, without sleeping. Zeroed = not started. */
struct ec2_deadline {
	bool started;
	double budget;
	double end;
	double skipped;
};

/* One region's sweep: what it could not remove is named in left. */
struct ec2_sweep {
	struct ec2_conn *conn;
	const char *infra;
	struct ec2_deadline *dl;  /* started by ec2_sweep_init */
	struct strbuf left;       /* "instance i-1 (shutting-down), ..." */
};

void ec2_sweep_init(struct ec2_sweep *sw, struct ec2_conn *c, const char *infra,
		    struct ec2_deadline *dl);
void ec2_sweep_release(struct ec2_sweep *sw);
/* Sleeps seconds (scaled), clipped to the deadline; false once it passed. */
bool ec2_deadline_sleep(struct ec2_deadline *dl, const struct ec2_conn *c, double seconds);
/* The infrastructure's instances in any state but terminated (tag filter,
 * every page). */
int ec2_sweep_list_instances(struct ec2_sweep *sw, struct ec2_instance **v, size_t *n,
			     struct diag *d);
/* Terminates them and polls until every one is terminated. */
int ec2_sweep_instances(struct ec2_sweep *sw, struct diag *d);
/* Deletes the group named name (absent: success); DependencyViolation is
 * retried with backoff until the deadline. */
int ec2_sweep_group_named(struct ec2_sweep *sw, const char *name, struct diag *d);
/* Releases the tagged elastic IPs, deletes the groups tagged or named
 * "imc-INFRA-*", and the key pairs tagged or named key. Call once the
 * instances are gone. */
int ec2_sweep_rest(struct ec2_sweep *sw, const char *key, struct diag *d);
/* Instances, then the rest. */
int ec2_sweep_region(struct ec2_sweep *sw, const char *key, struct diag *d);
/* When something is left, one error that names it and says that running
 * destroy again finishes the job. Returns -1 then, else 0. */
int ec2_sweep_finish(struct ec2_sweep *sw, struct diag *d);

#endif
