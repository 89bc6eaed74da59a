/* layer-relu.c: ReLU, elementwise max(0, x); the backward pass lets the
 * gradient through where the output is positive (PyTorch's choice at 0). */
#include "config.h"

#include "trainer/layer.h"
#include "trainer/tpool.h"
#include "util/banned.h"

static int relu_setup(struct layer *l, const struct layer_args *a, struct diag *d)
{
	(void)a; (void)d;
	l->out_c = l->in_c;
	l->out_h = l->in_h;
	l->out_w = l->in_w;
	return 0;
}

struct relu_job {
	const float *in, *out, *dout;
	float *res;
	size_t n;
};

static void relu_fwd_task(void *ctx, int i, int nt)
{
	struct relu_job *j = ctx;
	size_t lo, hi;
	tpool_range(j->n, i, nt, &lo, &hi);
	for (size_t k = lo; k < hi; k++)
		j->res[k] = j->in[k] > 0.0f ? j->in[k] : 0.0f;
}

static void relu_bwd_task(void *ctx, int i, int nt)
{
	struct relu_job *j = ctx;
	size_t lo, hi;
	tpool_range(j->n, i, nt, &lo, &hi);
	for (size_t k = lo; k < hi; k++)
		j->res[k] = j->out[k] > 0.0f ? j->dout[k] : 0.0f;
}

static int split(size_t n)
{
	return n < 32768 ? 1 : 0;
}

static void relu_forward(struct layer *l, const float *in, float *out, int n)
{
	struct relu_job j = { .in = in, .res = out, .n = layer_in_size(l) * (size_t)n };
	tpool_run(split(j.n), relu_fwd_task, &j);
}

static void relu_backward(struct layer *l, const float *in, const float *out,
			  const float *dout, float *din, int n)
{
	(void)in;
	if (!din)
		return;
	struct relu_job j = { .out = out, .dout = dout, .res = din,
			      .n = layer_in_size(l) * (size_t)n };
	tpool_run(split(j.n), relu_bwd_task, &j);
}

const struct layer_ops layer_relu_ops = {
	.kind = "relu",
	.is_relu = 1,
	.setup = relu_setup,
	.forward = relu_forward,
	.backward = relu_backward,
};
