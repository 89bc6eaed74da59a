/* layer-dense.c: fully connected layer (torch's nn.Linear): y = x W^T + b,
 * W stored [out, in] row-major. All three products go through
 * cblas_sgemm; with several threads the work is split by output features
 * (forward, weight gradient) and by examples (input gradient). */
#include "config.h"

#include <cblas.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/layer.h"
#include "trainer/tpool.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int dense_setup(struct layer *l, const struct layer_args *a, struct diag *d)
{
	if (a->out < 1) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "dense layer needs a positive output size");
		return -1;
	}
	l->fan_in = (int)layer_in_size(l);
	l->out_c = a->out;
	l->out_h = 1;
	l->out_w = 1;
	l->nweight = (size_t)a->out * (size_t)l->fan_in;
	l->nbias = (size_t)a->out;
	return 0;
}

struct dense_job {
	struct layer *l;
	const float *in;
	float *out;
	const float *dout;
	float *din;
	int n;
};

static void dense_fwd_task(void *ctx, int t, int nt)
{
	struct dense_job *j = ctx;
	struct layer *l = j->l;
	int in = l->fan_in, out = l->out_c;
	size_t lo, hi;
	tpool_range((size_t)out, t, nt, &lo, &hi);
	if (hi == lo)
		return;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, j->n, (int)(hi - lo), in,
		    1.0f, j->in, in, l->w + lo * in, in, 0.0f, j->out + lo, out);
	for (int i = 0; i < j->n; i++) {
		float *y = j->out + (size_t)i * out;
		if (l->relu)
			for (size_t o = lo; o < hi; o++) {
				float v = y[o] + l->b[o];
				y[o] = v > 0.0f ? v : 0.0f;
			}
		else
			for (size_t o = lo; o < hi; o++)
				y[o] += l->b[o];
	}
}

static void dense_bwd_task(void *ctx, int t, int nt)
{
	struct dense_job *j = ctx;
	struct layer *l = j->l;
	int in = l->fan_in, out = l->out_c;
	size_t lo, hi;
	tpool_range((size_t)out, t, nt, &lo, &hi);
	if (hi > lo) {
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)(hi - lo), in, j->n,
			    1.0f, j->dout + lo, out, j->in, in, 0.0f, l->dw + lo * in, in);
		for (size_t o = lo; o < hi; o++) {
			float s = 0.0f;
			for (int i = 0; i < j->n; i++)
				s += j->dout[(size_t)i * out + o];
			l->db[o] = s;
		}
	}
	if (j->din) {
		tpool_range((size_t)j->n, t, nt, &lo, &hi);
		if (hi > lo)
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(hi - lo), in,
				    out, 1.0f, j->dout + lo * out, out, l->w, in, 0.0f,
				    j->din + lo * in, in);
	}
}

static int dense_tasks(const struct layer *l, int n)
{
	/* Tiny products are not worth a wake-up of the pool. */
	return (size_t)n * l->nweight < 200000 ? 1 : 0;
}

static void dense_forward(struct layer *l, const float *in, float *out, int n)
{
	struct dense_job j = { .l = l, .in = in, .out = out, .n = n };
	tpool_run(dense_tasks(l, n), dense_fwd_task, &j);
}

static void dense_prepare(struct layer *l, int max_batch)
{
	free(l->priv);
	l->priv = xmalloc((size_t)max_batch * l->out_c * sizeof(float));
}

static void dense_release(struct layer *l)
{
	free(l->priv);
	l->priv = NULL;
}

static void dense_backward(struct layer *l, const float *in, const float *out,
			   const float *dout, float *din, int n)
{
	if (l->relu) {
		/* the fused ReLU's backward, into scratch (dout is not ours) */
		float *m = l->priv;
		for (size_t q = 0; q < (size_t)n * l->out_c; q++)
			m[q] = out[q] > 0.0f ? dout[q] : 0.0f;
		dout = m;
	}
	struct dense_job j = { .l = l, .in = in, .dout = dout, .din = din, .n = n };
	tpool_run(dense_tasks(l, n), dense_bwd_task, &j);
}

/* dense OUT */
static const struct layer_arg dense_args[] = {
	{ NULL, offsetof(struct layer_args, out), 1, LAYER_DIM_MAX },
};

const struct layer_ops layer_dense_ops = {
	.kind = "dense",
	.args = dense_args,
	.nargs = sizeof(dense_args) / sizeof(dense_args[0]),
	.param_prefix = "fc",
	.fuses_relu = 1,
	.setup = dense_setup,
	.prepare = dense_prepare,
	.release = dense_release,
	.forward = dense_forward,
	.backward = dense_backward,
};
