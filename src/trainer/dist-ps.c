/* dist-ps.c: imc-train --role ps: builds the model only to know its tensor
 * layout (the PS validates every peer's layout and every payload size
 * against it), then serves its shard until the chief shuts the job down. */
#include "config.h"

#include <string.h>

#include "trainer/dist-internal.h"
#include "trainer/ps-server.h"
#include "util/log.h"
#include "util/banned.h"

int dist_layout_from_model(const struct model *m, struct wire_layout *l, struct diag *d)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < model_num_tensors(m); i++) {
		const struct model_tensor *t = model_tensor(m, i);
		uint32_t dims[WIRE_MAX_RANK];
		if (t->ndim < 1 || t->ndim > WIRE_MAX_RANK) {
			diag_error(d, IMC_EXIT_SOFTWARE, NULL, "tensor '%s' has %d dimensions",
				   t->name, t->ndim);
			goto fail;
		}
		for (int k = 0; k < t->ndim; k++)
			dims[k] = (uint32_t)t->shape[k];
		if (wire_layout_add(l, t->name, t->ndim, dims, d) < 0)
			goto fail;
		if (l->t[l->n - 1].offset != t->offset) {
			diag_error(d, IMC_EXIT_SOFTWARE, NULL,
				   "tensor '%s' is not where the flat layout puts it", t->name);
			goto fail;
		}
	}
	if (l->total != model_num_params(m)) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "tensor sizes do not add up to the model's");
		goto fail;
	}
	return 0;
fail:
	wire_layout_release(l);
	return -1;
}

int dist_run_ps(const struct dist_opts *o, const struct cluster *cl, struct diag *d)
{
	struct model *m = model_new(o->t.model, 1, d);
	if (!m)
		return -1;
	struct wire_layout l;
	int rc = dist_layout_from_model(m, &l, d);
	model_free(m);
	if (rc < 0)
		return -1;
	struct ps_config cfg = {
		.cluster = cl, .index = (size_t)o->index, .layout = &l, .mode = o->mode,
		.fail_on_worker_loss = o->fail_on_worker_loss, .sync_timeout = o->sync_timeout,
		.init_timeout = o->init_timeout, .io_timeout = o->io_timeout,
		.log_every = o->log_seconds, .listen_fd = -1,
		.secret = o->secret.key ? &o->secret : NULL,
	};
	rc = ps_run(&cfg, d);
	wire_layout_release(&l);
	return rc;
}
