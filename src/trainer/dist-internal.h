/* dist-internal.h: what the files of imc-train's distributed roles share:
 * the parsed command line (dist-main.c), the role runners (dist-ps.c,
 * dist-train.c) and the model-to-protocol layout adapter. */
#ifndef IMC_TRAINER_DIST_INTERNAL_H
#define IMC_TRAINER_DIST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "trainer/cluster.h"
#include "trainer/model.h"
#include "trainer/train-opts.h"
#include "trainer/wire-auth.h"
#include "trainer/wire.h"
#include "util/diag.h"

struct dist_opts {
	const char *role;        /* "ps", "chief", "worker" */
	bool allreduce;          /* --strategy allreduce (default: ps) */
	const char *secret_file; /* --secret FILE */
	bool insecure;           /* --insecure: no secret, unauthenticated wire */
	struct wire_secret secret; /* loaded from secret_file */
	long index;
	const char *cluster_file;
	enum wire_mode mode;
	bool global_batch;       /* --global-batch: --batch is the job's batch */
	bool fail_on_worker_loss;
	double sync_timeout, connect_timeout, rpc_timeout, io_timeout, init_timeout;
	double log_seconds;
	struct train_opts t;     /* as in --local */
};

/* Fills l with the model's tensors (names, shapes) in flat-buffer order. */
int dist_layout_from_model(const struct model *m, struct wire_layout *l, struct diag *d);

int dist_run_ps(const struct dist_opts *o, const struct cluster *cl, struct diag *d);
/* Chief or worker. */
int dist_run_worker(const struct dist_opts *o, const struct cluster *cl, struct diag *d);
/* Chief or worker of an all-reduce job (dist-allreduce.c). */
int dist_run_allreduce(const struct dist_opts *o, const struct cluster *cl, struct diag *d);

#endif
