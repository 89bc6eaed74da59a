/* optim.c: SGD with momentum, PyTorch's update form (optim.h). Large
 * buffers are split over the thread pool. */
#include "config.h"

#include <stdlib.h>

#include "trainer/optim.h"
#include "trainer/tpool.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void sgd_range(float *p, float *v, const float *g, size_t lo, size_t hi,
		      float lr, float mu)
{
	if (mu == 0.0f || v == NULL) {
		for (size_t i = lo; i < hi; i++)
			p[i] -= lr * g[i];
		return;
	}
	for (size_t i = lo; i < hi; i++) {
		float vi = mu * v[i] + g[i];
		v[i] = vi;
		p[i] -= lr * vi;
	}
}

struct sgd_job {
	float *p, *v;
	const float *g;
	size_t n;
	float lr, mu;
};

static void sgd_task(void *ctx, int i, int ntasks)
{
	struct sgd_job *j = ctx;
	size_t lo, hi;
	tpool_range(j->n, i, ntasks, &lo, &hi);
	sgd_range(j->p, j->v, j->g, lo, hi, j->lr, j->mu);
}

void optim_sgd_step(float *p, float *v, const float *g, size_t n, float lr, float mu)
{
	if (n < 65536 || tpool_threads() == 1) {
		sgd_range(p, v, g, 0, n, lr, mu);
		return;
	}
	struct sgd_job j = { p, v, g, n, lr, mu };
	tpool_run(0, sgd_task, &j);
}

struct optim *optim_new(size_t n, float lr, float momentum)
{
	struct optim *o = xcalloc(1, sizeof(*o));
	o->n = n;
	o->lr = lr;
	o->momentum = momentum;
	o->velocity = xcalloc(n ? n : 1, sizeof(float));
	return o;
}

void optim_free(struct optim *o)
{
	if (!o)
		return;
	free(o->velocity);
	free(o);
}

void optim_step(struct optim *o, float *params, const float *grads)
{
	optim_sgd_step(params, o->velocity, grads, o->n, o->lr, o->momentum);
}
