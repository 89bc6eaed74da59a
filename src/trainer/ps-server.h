/* ps-server.h: the parameter server task of imc-train. One PS holds one contiguous
 * shard of the flat parameter vector (and its momentum buffer), serves the
 * chief and the workers over the wire protocol (wire.h), and applies SGD with
 * momentum to its shard: in sync mode once per step on the average of one
 * gradient per live worker, in async mode on every gradient as it arrives.
 *
 * It is a single-threaded poll() loop over non-blocking sockets, so a slow,
 * stalled or hostile peer costs the others nothing: every message is bounded
 * and validated before its payload is read, and any violation closes only
 * that connection with a log line. */
#ifndef IMC_TRAINER_PS_SERVER_H
#define IMC_TRAINER_PS_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "trainer/cluster.h"
#include "trainer/wire-auth.h"
#include "trainer/wire.h"
#include "util/diag.h"

struct ps_config {
	const struct cluster *cluster; /* borrowed */
	size_t index;                   /* this PS's index in cluster->ps */
	const struct wire_layout *layout; /* the model's tensors (borrowed) */
	enum wire_mode mode;
	bool fail_on_worker_loss;  /* sync: a lost worker fails the job */
	double sync_timeout;       /* sync: a round waits this long for laggards */
	double init_timeout;       /* how long to wait for the chief's INIT */
	double io_timeout;         /* a started message must complete within this */
	double log_every;          /* seconds between progress lines (0: never) */
	int listen_fd;             /* an already listening socket, or -1 to bind */
	/* the job's secret: every connection must pass wire-auth.h's
	 * handshake and tag every frame; NULL (or no key): unauthenticated */
	const struct wire_secret *secret;
};

/* Serves until the chief's SHUTDOWN (returns 0) or until the job fails
 * (returns -1 with d set: IMC_EXIT_TEMPFAIL when the chief was lost,
 * IMC_EXIT_FAILED when a worker was lost under fail_on_worker_loss,
 * IMC_EXIT_UNAVAILABLE when the chief never initialised the parameters or
 * the port could not be bound). */
int ps_run(const struct ps_config *cfg, struct diag *d);

/* Binds and listens on the port of addr ("host:port"): on that host's
 * address when it is a loopback address, else on every address. Returns the
 * socket or -1 with d set. */
int ps_listen(const char *addr, struct diag *d);

#endif
