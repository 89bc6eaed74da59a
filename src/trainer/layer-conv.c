/* layer-conv.c: 2-D convolution (torch's nn.Conv2d, groups 1, dilation 1)
 * as im2col + cblas_sgemm. Weights are [out, in, kh, kw], i.e. a row-major
 * out x (in*k*k) matrix whose columns follow im2col's row order, so one
 * sgemm per example computes the output plane directly in NCHW.
 *
 * Threads: the batch is split across the pool; every thread has its own
 * im2col scratch and its own weight-gradient accumulator, summed at the end
 * (OpenBLAS itself runs single-threaded, see tpool.c). The input gradient
 * is skipped for the first layer (din == NULL). */
#include "config.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/layer.h"
#include "trainer/tpool.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct conv_scratch {
	int nthreads;
	size_t colsize;
	float *col;   /* nthreads * colsize */
	float *dcol;  /* nthreads * colsize */
	float *dw;    /* nthreads * (nweight + nbias) */
};

static int conv_setup(struct layer *l, const struct layer_args *a, struct diag *d)
{
	l->k = a->k;
	l->stride = a->stride ? a->stride : 1;
	l->pad = a->pad;
	if (a->out < 1 || l->k < 1 || l->pad < 0 || l->pad >= l->k) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "conv layer needs positive channels and kernel, and 0 <= pad < kernel");
		return -1;
	}
	int oh = (l->in_h + 2 * l->pad - l->k) / l->stride + 1;
	int ow = (l->in_w + 2 * l->pad - l->k) / l->stride + 1;
	if (l->in_h + 2 * l->pad < l->k || l->in_w + 2 * l->pad < l->k || oh < 1 || ow < 1) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "conv kernel %d does not fit input %dx%d",
			   l->k, l->in_h, l->in_w);
		return -1;
	}
	l->out_c = a->out;
	l->out_h = oh;
	l->out_w = ow;
	l->fan_in = l->in_c * l->k * l->k;
	l->nweight = (size_t)l->out_c * (size_t)l->fan_in;
	l->nbias = (size_t)l->out_c;
	return 0;
}

static void scratch_free(struct conv_scratch *s)
{
	if (!s)
		return;
	free(s->col);
	free(s->dcol);
	free(s->dw);
	free(s);
}

/* Makes sure there is scratch for the pool's current size (called outside
 * of parallel sections only). */
static struct conv_scratch *scratch(struct layer *l)
{
	struct conv_scratch *s = l->priv;
	int t = tpool_threads();
	if (s && s->nthreads >= t)
		return s;
	scratch_free(s);
	s = xcalloc(1, sizeof(*s));
	s->nthreads = t;
	s->colsize = (size_t)l->fan_in * l->out_h * l->out_w;
	s->col = xmalloc((size_t)t * s->colsize * sizeof(float));
	s->dcol = xmalloc((size_t)t * s->colsize * sizeof(float));
	s->dw = xmalloc((size_t)t * (l->nweight + l->nbias) * sizeof(float));
	l->priv = s;
	return s;
}

static void conv_prepare(struct layer *l, int max_batch)
{
	(void)max_batch;
	scratch(l);
}

/* col[(c*k + kh)*k + kw][oh*OW + ow] = in[c][oh*s - p + kh][ow*s - p + kw] */
static void im2col(const struct layer *l, const float *in, float *col)
{
	int C = l->in_c, H = l->in_h, W = l->in_w, k = l->k, s = l->stride, p = l->pad;
	int OH = l->out_h, OW = l->out_w;
	for (int c = 0; c < C; c++)
		for (int kh = 0; kh < k; kh++)
			for (int kw = 0; kw < k; kw++) {
				float *row = col + (size_t)((c * k + kh) * k + kw) * OH * OW;
				for (int oh = 0; oh < OH; oh++) {
					float *r = row + (size_t)oh * OW;
					int ih = oh * s - p + kh;
					if (ih < 0 || ih >= H) {
						memset(r, 0, (size_t)OW * sizeof(float));
						continue;
					}
					const float *src = in + ((size_t)c * H + ih) * W;
					if (s == 1) {
						int lo = p - kw > 0 ? p - kw : 0;
						int hi = W + p - kw < OW ? W + p - kw : OW;
						if (hi < lo)
							hi = lo;
						for (int ow = 0; ow < lo; ow++)
							r[ow] = 0.0f;
						memcpy(r + lo, src + lo - p + kw, (size_t)(hi - lo) * sizeof(float));
						for (int ow = hi; ow < OW; ow++)
							r[ow] = 0.0f;
					} else {
						for (int ow = 0; ow < OW; ow++) {
							int iw = ow * s - p + kw;
							r[ow] = (iw >= 0 && iw < W) ? src[iw] : 0.0f;
						}
					}
				}
			}
}

/* The adjoint of im2col: din (zeroed here) accumulates dcol. */
static void col2im(const struct layer *l, const float *col, float *din)
{
	int C = l->in_c, H = l->in_h, W = l->in_w, k = l->k, s = l->stride, p = l->pad;
	int OH = l->out_h, OW = l->out_w;
	memset(din, 0, (size_t)C * H * W * sizeof(float));
	for (int c = 0; c < C; c++)
		for (int kh = 0; kh < k; kh++)
			for (int kw = 0; kw < k; kw++) {
				const float *row = col + (size_t)((c * k + kh) * k + kw) * OH * OW;
				for (int oh = 0; oh < OH; oh++) {
					int ih = oh * s - p + kh;
					if (ih < 0 || ih >= H)
						continue;
					const float *r = row + (size_t)oh * OW;
					float *dst = din + ((size_t)c * H + ih) * W;
					for (int ow = 0; ow < OW; ow++) {
						int iw = ow * s - p + kw;
						if (iw >= 0 && iw < W)
							dst[iw] += r[ow];
					}
				}
			}
}

struct conv_job {
	struct layer *l;
	struct conv_scratch *s;
	const float *in;
	float *out;
	const float *dout;
	float *din;
	int n;
};

static void conv_fwd_task(void *ctx, int t, int nt)
{
	struct conv_job *j = ctx;
	struct layer *l = j->l;
	size_t lo, hi, N = (size_t)l->out_h * l->out_w;
	float *col = j->s->col + (size_t)t * j->s->colsize;
	tpool_range((size_t)j->n, t, nt, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const float *x = j->in + i * layer_in_size(l);
		float *y = j->out + i * layer_out_size(l);
		im2col(l, x, col);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, l->out_c, (int)N,
			    l->fan_in, 1.0f, l->w, l->fan_in, col, (int)N, 0.0f, y, (int)N);
		for (int m = 0; m < l->out_c; m++) {
			float b = l->b[m], *ym = y + (size_t)m * N;
			for (size_t q = 0; q < N; q++)
				ym[q] += b;
		}
	}
}

static void conv_bwd_task(void *ctx, int t, int nt)
{
	struct conv_job *j = ctx;
	struct layer *l = j->l;
	struct conv_scratch *s = j->s;
	size_t lo, hi, N = (size_t)l->out_h * l->out_w;
	float *col = s->col + (size_t)t * s->colsize;
	float *dcol = s->dcol + (size_t)t * s->colsize;
	float *dw = s->dw + (size_t)t * (l->nweight + l->nbias);
	float *db = dw + l->nweight;
	memset(dw, 0, (l->nweight + l->nbias) * sizeof(float));
	tpool_range((size_t)j->n, t, nt, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const float *x = j->in + i * layer_in_size(l);
		const float *dy = j->dout + i * layer_out_size(l);
		im2col(l, x, col);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, l->out_c, l->fan_in, (int)N,
			    1.0f, dy, (int)N, col, (int)N, 1.0f, dw, l->fan_in);
		for (int m = 0; m < l->out_c; m++) {
			const float *dym = dy + (size_t)m * N;
			float acc = 0.0f;
			for (size_t q = 0; q < N; q++)
				acc += dym[q];
			db[m] += acc;
		}
		if (j->din) {
			cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l->fan_in, (int)N,
				    l->out_c, 1.0f, l->w, l->fan_in, dy, (int)N, 0.0f, dcol, (int)N);
			col2im(l, dcol, j->din + i * layer_in_size(l));
		}
	}
}

static int conv_tasks(int n)
{
	int t = tpool_threads();
	return n < t ? n : t;
}

static void conv_forward(struct layer *l, const float *in, float *out, int n)
{
	struct conv_job j = { .l = l, .s = scratch(l), .in = in, .out = out, .n = n };
	tpool_run(conv_tasks(n), conv_fwd_task, &j);
}

static void conv_backward(struct layer *l, const float *in, const float *out,
			  const float *dout, float *din, int n)
{
	(void)out;
	struct conv_job j = { .l = l, .s = scratch(l), .in = in, .dout = dout, .din = din,
			      .n = n };
	int nt = conv_tasks(n);
	tpool_run(nt, conv_bwd_task, &j);
	/* Sum the per-thread accumulators, in thread order (deterministic for
	 * a given thread count). */
	size_t per = l->nweight + l->nbias;
	memcpy(l->dw, j.s->dw, l->nweight * sizeof(float));
	memcpy(l->db, j.s->dw + l->nweight, l->nbias * sizeof(float));
	for (int t = 1; t < nt; t++) {
		const float *src = j.s->dw + (size_t)t * per;
		for (size_t q = 0; q < l->nweight; q++)
			l->dw[q] += src[q];
		for (size_t q = 0; q < l->nbias; q++)
			l->db[q] += src[l->nweight + q];
	}
}

static void conv_release(struct layer *l)
{
	scratch_free(l->priv);
	l->priv = NULL;
}

const struct layer_ops layer_conv_ops = {
	.kind = "conv",
	.param_prefix = "conv",
	.setup = conv_setup,
	.prepare = conv_prepare,
	.forward = conv_forward,
	.backward = conv_backward,
	.release = conv_release,
};
