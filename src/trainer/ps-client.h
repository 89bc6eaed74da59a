/* ps-client.h: the client side of the PS protocol, used by the chief and the
 * workers (and by bench/ps_exchange): one blocking TCP connection per
 * parameter server, established with retries until a deadline (a PS may
 * start after its workers), and the request/reply exchanges of wire.h.
 *
 * Gradients are sent and parameters received straight from and into the
 * caller's flat buffers (writev/readv on the shard's slice): no copies.
 * Ownership: a struct ps_client owns its sockets; it borrows the
 * cluster and the layout, which must outlive it. */
#ifndef IMC_TRAINER_PS_CLIENT_H
#define IMC_TRAINER_PS_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "trainer/cluster.h"
#include "trainer/wire-auth.h"
#include "trainer/wire.h"
#include "util/diag.h"

struct worker_link {
	int fd;
	const char *addr; /* borrowed from the cluster */
	uint64_t off, count;
	uint64_t step;    /* this PS's step in its last reply: in async mode the
			   * PSes apply the same pushes, but not at the same time */
	struct wire_auth auth; /* with a secret: this connection's keys */
	struct wire_mac rx;    /* the tag of the frame being received */
	uint64_t rx_left;      /* its payload bytes not received yet */
};

struct ps_client {
	struct worker_link *ps;
	size_t n_ps;
	uint64_t bytes_in, bytes_out;
	uint64_t step;          /* PS 0's step after the last reply */
	uint32_t staleness;     /* largest over the PSes, last PUSH */
	uint32_t live_workers;  /* as PS 0 last reported */
	bool initialized;       /* every PS said so in WELCOME */
};

struct worker_opts {
	int role;               /* WIRE_ROLE_CHIEF, _WORKER or _PROBE */
	long task_index;
	long worker_id;
	enum wire_mode mode;
	double connect_timeout; /* seconds to keep retrying a PS */
	double rpc_timeout;     /* seconds a reply may take (sync rounds wait) */
	const struct wire_secret *secret; /* NULL or no key: unauthenticated */
};

/* Connects to every PS and exchanges HELLO/WELCOME. Returns 0 or -1 with d
 * set (IMC_EXIT_UNAVAILABLE when a PS stayed unreachable, IMC_EXIT_DATAERR
 * when a PS rejected us). */
int ps_client_open(struct ps_client *wc, const struct cluster *cl,
		   const struct wire_layout *layout, const struct worker_opts *o,
		   struct diag *d);
void ps_client_close(struct ps_client *wc);
/* One connect attempt to addr bounded by 'wait' seconds: a blocking,
 * tuned socket, or -1 with d set (IMC_EXIT_UNAVAILABLE). */
int ps_client_connect(const char *addr, double wait, struct diag *d);

/* Every call below returns 0, 1 when a PS answered END (training is over),
 * or -1 with d set: IMC_EXIT_TEMPFAIL when a PS or the chief was lost
 * (restart the job with --resume), IMC_EXIT_FAILED when the PS failed the
 * job because a worker was lost, IMC_EXIT_DATAERR on a protocol error. */
int ps_client_init(struct ps_client *wc, const float *params, const float *velocity,
		   uint64_t step, float lr, float momentum, struct diag *d);
int ps_client_pull(struct ps_client *wc, float *params, struct diag *d);
/* Pushes grads (the full flat vector; each PS gets its slice) computed on
 * parameter version 'step' (PS 0's numbering; each PS is told the version
 * of its own shard as many steps before its last reply), then receives the
 * new parameters into params. */
int ps_client_push(struct ps_client *wc, const float *grads, float *params,
		   uint64_t step, uint32_t examples, float loss, struct diag *d);
/* Parameters and momentum of every shard; *step is PS 0's. */
int ps_client_state(struct ps_client *wc, float *params, float *velocity,
		    uint64_t *step, struct diag *d);
/* Counters summed over the PSes (step and seconds: PS 0's; max: the max). */
int ps_client_stats(struct ps_client *wc, struct wire_stats *st, struct diag *d);
int ps_client_bye(struct ps_client *wc, struct diag *d);
int ps_client_shutdown(struct ps_client *wc, struct diag *d);

#endif
