/* cluster.h: the job's cluster description (which tasks exist, where they
 * listen, which task this process is), read from --cluster FILE or the
 * TF_CONFIG environment variable in TensorFlow's JSON shape:
 *   {"cluster": {"ps": ["h:p", ...], "chief": ["h:p"], "worker": ["h:p", ...]},
 *    "task": {"type": "worker", "index": 0}}
 * plus the arithmetic every task must agree on: worker ids and the sharding
 * of the flat parameter vector across parameter servers.
 *
 * A struct cluster owns all its strings. */
#ifndef IMC_TRAINER_CLUSTER_H
#define IMC_TRAINER_CLUSTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util/diag.h"

struct cluster {
	char **ps;
	size_t n_ps;
	char **chief; /* 0 or 1 entries; without one, worker 0 acts as chief */
	size_t n_chief;
	char **worker;
	size_t n_worker;
	char *task_type; /* "ps", "chief", "worker" or NULL when absent */
	long task_index; /* -1 when absent */
};

void cluster_release(struct cluster *c);
/* Parses a cluster JSON document; origin names it in errors ("TF_CONFIG" or
 * a path), with line:col. Returns 0 or -1 with d set (IMC_EXIT_DATAERR). */
int cluster_parse(const char *text, size_t len, const char *origin, struct cluster *c,
		  struct diag *d);
/* The cluster may list no ps (an all-reduce job); cluster_check_ps says
 * whether a parameter-server job can run on it. */
/* Reads path, or TF_CONFIG when path is NULL. */
/* 0 when the cluster lists a parameter server, else -1 with d set. */
int cluster_check_ps(const struct cluster *c, struct diag *d);
int cluster_load(const char *path, struct cluster *c, struct diag *d);
/* Checks that role/index names a task of the cluster. */
int cluster_check_task(const struct cluster *c, const char *role, long index, struct diag *d);

/* Workers are the chief plus the "worker" tasks. */
size_t cluster_n_workers(const struct cluster *c);
/* 0 for the chief, then the workers in order; -1 for a PS or a bad index. */
long cluster_worker_id(const struct cluster *c, const char *role, long index);
/* Whether role/index is the task that acts as chief. */
int cluster_is_chief(const struct cluster *c, const char *role, long index);
/* The address ("host:port") of a task, or NULL. Borrowed. */
const char *cluster_addr(const struct cluster *c, const char *role, long index);

/* PS i holds the contiguous range [*off, *off + *count) of the flat
 * parameter vector of 'total' floats; ranges differ by at most one float. */
void cluster_shard(uint64_t total, size_t n_ps, size_t i, uint64_t *off, uint64_t *count);

/* Splits "host:port" or "[v6]:port". Returns 0 or -1 with d set. */
int cluster_split_addr(const char *addr, char **host, char **port, struct diag *d);
/* Resolves addr through getaddrinfo (so /etc/hosts applies). */
int cluster_resolve(const char *addr, struct sockaddr_storage *sa, socklen_t *salen,
		    struct diag *d);

#endif
