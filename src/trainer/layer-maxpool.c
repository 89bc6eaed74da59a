/* layer-maxpool.c: max pooling over k x k windows with a stride (default
 * k), no padding, floor output size (torch's max_pool2d defaults). The
 * forward pass remembers where each maximum came from; the backward pass
 * routes the gradient there (first maximum wins on ties). */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/layer.h"
#include "trainer/tpool.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int pool_setup(struct layer *l, const struct layer_args *a, struct diag *d)
{
	l->k = a->k ? a->k : 2;
	l->stride = a->stride ? a->stride : l->k;
	if (l->k < 1 || l->stride < 1 || l->k > l->in_h || l->k > l->in_w) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "maxpool window %d does not fit input %dx%d", l->k, l->in_h, l->in_w);
		return -1;
	}
	l->out_c = l->in_c;
	l->out_h = (l->in_h - l->k) / l->stride + 1;
	l->out_w = (l->in_w - l->k) / l->stride + 1;
	return 0;
}

static void pool_prepare(struct layer *l, int max_batch)
{
	free(l->priv);
	l->priv = xcalloc(layer_out_size(l) * (size_t)max_batch, sizeof(int32_t));
}

struct pool_job {
	struct layer *l;
	const float *in;
	float *out;
	const float *dout;
	float *din;
	size_t planes;
};

static void pool_fwd_task(void *ctx, int t, int nt)
{
	struct pool_job *j = ctx;
	struct layer *l = j->l;
	int32_t *arg = l->priv;
	size_t lo, hi, isz = (size_t)l->in_h * l->in_w, osz = (size_t)l->out_h * l->out_w;
	tpool_range(j->planes, t, nt, &lo, &hi);
	if (l->k == 2 && l->stride == 2) {
		/* the common case, without the generic window loops; the
		 * comparisons are selects, not branches: after a ReLU which of
		 * the four wins is a coin toss, and a branch on it was
		 * mispredicted about half the time */
		int W = l->in_w, OW = l->out_w;
		for (size_t p = lo; p < hi; p++) {
			const float *in = j->in + p * isz;
			float *out = j->out + p * osz;
			int32_t *a = arg + p * osz;
			for (int oh = 0; oh < l->out_h; oh++) {
				const float *restrict r0 = in + (size_t)(2 * oh) * W, *restrict r1 = r0 + W;
				float *restrict o = out + (size_t)oh * OW;
				int32_t *restrict ao = a + (size_t)oh * OW;
				int base = 2 * oh * W;
				for (int ow = 0; ow < OW; ow++) {
					float v = r0[2 * ow], u;
					int32_t best = base + 2 * ow;
					bool g;
					u = r0[2 * ow + 1];
					g = u > v;
					v = g ? u : v;
					best = g ? base + 2 * ow + 1 : best;
					u = r1[2 * ow];
					g = u > v;
					v = g ? u : v;
					best = g ? base + W + 2 * ow : best;
					u = r1[2 * ow + 1];
					g = u > v;
					v = g ? u : v;
					best = g ? base + W + 2 * ow + 1 : best;
					o[ow] = v;
					ao[ow] = best;
				}
			}
		}
		return;
	}
	for (size_t p = lo; p < hi; p++) {
		const float *in = j->in + p * isz;
		float *out = j->out + p * osz;
		int32_t *a = arg + p * osz;
		for (int oh = 0; oh < l->out_h; oh++)
			for (int ow = 0; ow < l->out_w; ow++) {
				int h0 = oh * l->stride, w0 = ow * l->stride;
				int best = h0 * l->in_w + w0;
				float bv = in[best];
				for (int kh = 0; kh < l->k; kh++)
					for (int kw = 0; kw < l->k; kw++) {
						int idx = (h0 + kh) * l->in_w + w0 + kw;
						if (in[idx] > bv) {
							bv = in[idx];
							best = idx;
						}
					}
				out[oh * l->out_w + ow] = bv;
				a[oh * l->out_w + ow] = best;
			}
	}
}

static void pool_bwd_task(void *ctx, int t, int nt)
{
	struct pool_job *j = ctx;
	struct layer *l = j->l;
	const int32_t *arg = l->priv;
	size_t lo, hi, isz = (size_t)l->in_h * l->in_w, osz = (size_t)l->out_h * l->out_w;
	tpool_range(j->planes, t, nt, &lo, &hi);
	for (size_t p = lo; p < hi; p++) {
		float *din = j->din + p * isz;
		const float *dout = j->dout + p * osz;
		const int32_t *a = arg + p * osz;
		memset(din, 0, isz * sizeof(float));
		for (size_t o = 0; o < osz; o++)
			din[a[o]] += dout[o];
	}
}

static void pool_forward(struct layer *l, const float *in, float *out, int n)
{
	struct pool_job j = { .l = l, .in = in, .out = out,
			      .planes = (size_t)n * l->in_c };
	tpool_run(j.planes < 64 ? 1 : 0, pool_fwd_task, &j);
}

static void pool_backward(struct layer *l, const float *in, const float *out,
			  const float *dout, float *din, int n)
{
	(void)in; (void)out;
	if (!din)
		return;
	struct pool_job j = { .l = l, .dout = dout, .din = din,
			      .planes = (size_t)n * l->in_c };
	tpool_run(j.planes < 64 ? 1 : 0, pool_bwd_task, &j);
}

static void pool_release(struct layer *l)
{
	free(l->priv);
	l->priv = NULL;
}

/* maxpool K [stride S] */
static const struct layer_arg pool_args[] = {
	{ NULL, offsetof(struct layer_args, k), 1, LAYER_DIM_MAX },
	{ "stride", offsetof(struct layer_args, stride), 1, LAYER_OPT_MAX },
};

const struct layer_ops layer_maxpool_ops = {
	.kind = "maxpool",
	.args = pool_args,
	.nargs = sizeof(pool_args) / sizeof(pool_args[0]),
	.setup = pool_setup,
	.prepare = pool_prepare,
	.forward = pool_forward,
	.backward = pool_backward,
	.release = pool_release,
};
