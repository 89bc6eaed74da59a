/* layer-conv.c: 2-D convolution (torch's nn.Conv2d, groups 1, dilation 1)
 * as im2col + cblas_sgemm. Weights are [out, in, kh, kw], i.e. a row-major
 * out x (in*k*k) matrix whose columns follow im2col's row order, so one
 * sgemm per example computes the output plane directly in NCHW.
 *
 * Stride-1 convolutions skip im2col on CPUs with AVX2+FMA or AVX-512: the
 * direct kernels (conv-direct.h) read the zero-padded input planes in
 * place. Of those, 5x5 ones with enough channels on both sides take
 * Winograd's F(2x2, 5x5) (conv-winograd.h) for the forward product, the
 * input gradient and the weight gradient, 36 multiplications per 2x2
 * outputs instead of 100. The other products go through gemm()
 * (gemm.h): an own AVX-512 kernel where the CPU has one, cblas_sgemm
 * otherwise.
 *
 * Threads: the batch is split across the pool; every thread has its own
 * im2col scratch and its own weight-gradient accumulator, summed at the end
 * (OpenBLAS itself runs single-threaded, see tpool.c). The input gradient
 * is skipped for the first layer (din == NULL). */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/conv-direct.h"
#include "trainer/conv-winograd.h"
#include "trainer/gemm.h"
#include "trainer/layer.h"
#include "trainer/tpool.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Per-thread scratch. The packed buffers are used with the own gemm
 * kernel, col/dcol/ws with cblas_sgemm. */
struct conv_thread {
	float *col;    /* im2col, K x N row-major (cblas path) */
	float *dcol;   /* K x N */
	float *dy;     /* dout masked by the fused ReLU */
	float *dw;     /* weight + bias gradient accumulator */
	float *ws;     /* gemm() scratch (cblas path) */
	float *colp;   /* im2col in gemm's packed-B layout, for the forward product */
	float *colt;   /* im2col transposed, packed-B layout, for the weight gradient */
	float *apack;  /* packed dy (A of the weight-gradient product) */
	float *bpack;  /* packed dy (B of the input-gradient product) */
	float *P;      /* direct path: zero-padded input planes */
	float *Q;      /* direct path: zero-padded output-gradient planes */
	float *dwT;    /* direct path: weight gradient, transposed [fan_in][out_c] */
	float *wv;     /* Winograd: transformed inputs */
	float *wx;     /* Winograd: point products */
	float *gv;     /* Winograd weight gradient: one example's transformed input */
	float *gt;     /* its output gradient, transposed */
	float *gy;     /* its output gradient, transformed */
	float *gz;     /* the point sums */
};

struct conv_scratch {
	int nthreads;
	size_t colsize;
	struct conv_thread *th;
	float *wpack;  /* packed W (forward), shared by the threads */
	float *wtpack; /* packed W^T (input gradient) */
	/* The direct (im2col-free) path, for stride 1 (conv-direct.h). */
	int direct;
	int HP, WP, HQ, WQ;          /* padded input / padded output-gradient planes */
	int *off_fwd, *off_bwd;      /* B-row offsets into P and Q */
	struct conv_tile *tiles_fwd, *tiles_bwd;
	int ntiles_fwd, ntiles_bwd;
	float *wflip;                /* [in_c][out_c*k*k]: flipped, transposed W */
	float *wfpack;               /* its packed form */
	/* Winograd (conv-winograd.h) for the forward product (wf) and for the
	 * input gradient (wb), within the direct path. */
	int wf, wb;
	struct wino wfwd, wbwd, wgrad; /* wgrad: the weight gradient, with wf */
	float *ufwd, *ubwd;          /* their transformed weights */
};

/* Zeroed, 64-byte aligned (the packed layouts need it); aborts on failure
 * like xmalloc. */
static float *falloc(size_t n)
{
	void *p = NULL;
	size_t bytes = ((n ? n : 1) * sizeof(float) + 63) & ~(size_t)63;
	if (posix_memalign(&p, 64, bytes) != 0) {
		fputs("imc-train: out of memory\n", stderr);
		abort();
	}
	memset(p, 0, bytes);
	return p;
}

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
	for (int t = 0; t < s->nthreads; t++) {
		struct conv_thread *c = &s->th[t];
		free(c->col);
		free(c->dcol);
		free(c->dy);
		free(c->dw);
		free(c->ws);
		free(c->colp);
		free(c->colt);
		free(c->apack);
		free(c->bpack);
		free(c->P);
		free(c->Q);
		free(c->dwT);
		free(c->wv);
		free(c->wx);
		free(c->gv);
		free(c->gt);
		free(c->gy);
		free(c->gz);
	}
	free(s->ufwd);
	free(s->ubwd);
	free(s->off_fwd);
	free(s->off_bwd);
	free(s->tiles_fwd);
	free(s->tiles_bwd);
	free(s->wflip);
	free(s->wfpack);
	free(s->th);
	free(s->wpack);
	free(s->wtpack);
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
	s->th = xcalloc((size_t)t, sizeof(*s->th));
	int M = l->out_c, N = l->out_h * l->out_w, K = l->fan_in;
	s->colsize = (size_t)K * N;
	bool own = gemm_own_kernel();
	s->direct = conv_direct_isa() != CONV_DIRECT_NONE && l->stride == 1 &&
		    !getenv("IMC_TRAIN_NO_DIRECT");
	if (own || s->direct)
		s->wpack = falloc(gemm_pa_floats(M, K));
	if (own)
		s->wtpack = falloc(gemm_pa_floats(K, M));
	if (s->direct) {
		int k = l->k, p = l->pad, pq = k - 1 - p;
		s->HP = l->in_h + 2 * p;
		s->WP = l->in_w + 2 * p;
		s->HQ = l->out_h + 2 * pq;
		s->WQ = l->out_w + 2 * pq;
		/* Winograd's tiles may read past the padding (odd sizes): the
		 * planes grow to cover them, with zeros. */
		s->wf = wino_applies(k, l->stride, l->in_c, M, l->out_w);
		s->wb = wino_applies(k, l->stride, M, l->in_c, l->in_w);
		if (s->wf) {
			int hp, wp;
			wino_plane_dims(l->out_h, l->out_w, &hp, &wp);
			s->HP = hp > s->HP ? hp : s->HP;
			s->WP = wp > s->WP ? wp : s->WP;
			wino_init(&s->wfwd, l->in_c, M, l->out_h, l->out_w, s->HP, s->WP);
			wino_grad_init(&s->wgrad, l->in_c, M, l->out_h, l->out_w, s->HP, s->WP);
			s->ufwd = falloc(wino_u_floats(&s->wfwd));
		}
		if (s->wb) {
			int hq, wq;
			wino_plane_dims(l->in_h, l->in_w, &hq, &wq);
			s->HQ = hq > s->HQ ? hq : s->HQ;
			s->WQ = wq > s->WQ ? wq : s->WQ;
			wino_init(&s->wbwd, M, l->in_c, l->in_h, l->in_w, s->HQ, s->WQ);
			s->ubwd = falloc(wino_u_floats(&s->wbwd));
		}
		s->off_fwd = xcalloc((size_t)K, sizeof(int));
		for (int f = 0; f < K; f++)
			s->off_fwd[f] = (f / (k * k)) * s->HP * s->WP + (f / k % k) * s->WP + f % k;
		s->off_bwd = xcalloc((size_t)M * k * k, sizeof(int));
		for (int g = 0; g < M * k * k; g++)
			s->off_bwd[g] = (g / (k * k)) * s->HQ * s->WQ + (g / k % k) * s->WQ + g % k;
		s->tiles_fwd = xcalloc((size_t)l->out_h * ((l->out_w + 15) / 16) + 1,
				       sizeof(struct conv_tile));
		s->ntiles_fwd = conv_tiles(l->out_h, l->out_w, s->WP, s->tiles_fwd);
		s->tiles_bwd = xcalloc((size_t)l->in_h * ((l->in_w + 15) / 16) + 1,
				       sizeof(struct conv_tile));
		s->ntiles_bwd = conv_tiles(l->in_h, l->in_w, s->WQ, s->tiles_bwd);
		s->wflip = falloc(l->nweight);
		s->wfpack = falloc(gemm_pa_floats(l->in_c, M * k * k));
	}
	for (int i = 0; i < t; i++) {
		struct conv_thread *c = &s->th[i];
		if (s->direct) {
			c->P = falloc((size_t)l->in_c * s->HP * s->WP + CONV_DIRECT_SLACK);
			c->Q = falloc((size_t)M * s->HQ * s->WQ + CONV_DIRECT_SLACK);
			if (s->wf) {
				c->gv = falloc(wino_v_floats(&s->wgrad));
				c->gt = falloc(wino_gt_floats(&s->wgrad));
				c->gy = falloc(wino_gy_floats(&s->wgrad));
				c->gz = falloc(wino_gz_floats(&s->wgrad));
			} else {
				c->dwT = falloc(l->nweight);
				c->apack = falloc(gemm_pb_floats(M, N)); /* dy^T, packed */
			}
			c->dy = falloc(layer_out_size(l));
			c->dw = falloc(l->nweight + l->nbias);
			size_t v = 0, x = 0;
			if (s->wf) {
				v = wino_v_floats(&s->wfwd);
				x = wino_x_floats(&s->wfwd);
			}
			if (s->wb) {
				size_t vb = wino_v_floats(&s->wbwd), xb = wino_x_floats(&s->wbwd);
				v = vb > v ? vb : v;
				x = xb > x ? xb : x;
			}
			if (v) {
				c->wv = falloc(v);
				c->wx = falloc(x);
			}
			continue;
		}
		c->dcol = falloc(s->colsize);
		c->dy = falloc(layer_out_size(l));
		c->dw = falloc(l->nweight + l->nbias);
		if (own) {
			c->colp = falloc(gemm_pb_floats(N, K));
			c->colt = falloc(gemm_pb_floats(K, N));
			c->apack = falloc(gemm_pa_floats(M, N));
			c->bpack = falloc(gemm_pb_floats(N, M));
		} else {
			size_t a = gemm_ws_floats(M, N, K), b = gemm_ws_floats(M, K, N),
			       cc = gemm_ws_floats(K, N, M);
			c->col = falloc(s->colsize);
			c->ws = falloc(a > b ? (a > cc ? a : cc) : (b > cc ? b : cc));
		}
	}
	l->priv = s;
	return s;
}

static void conv_prepare(struct layer *l, int max_batch)
{
	(void)max_batch;
	scratch(l);
}

/* Output columns ow whose input column ow*s - p + kw lies inside [0, W):
 * [*lo, *hi). */
static void col_range(int W, int OW, int s, int p, int kw, int *lo, int *hi)
{
	int a = p - kw > 0 ? (p - kw + s - 1) / s : 0;
	int b = (W - 1 + p - kw) >= 0 ? (W - 1 + p - kw) / s + 1 : 0;
	if (b > OW)
		b = OW;
	if (a > b)
		a = b;
	*lo = a;
	*hi = b;
}

/* Row f = (c*k + kh)*k + kw of im2col: row[oh*OW + ow] =
 * in[c][oh*s - p + kh][ow*s - p + kw], zero where that falls in the
 * padding. Inner loops are branch-free. */
static void im2col_row(const struct layer *l, const float *in, int f, float *row)
{
	int H = l->in_h, W = l->in_w, k = l->k, s = l->stride, p = l->pad;
	int OH = l->out_h, OW = l->out_w;
	int c = f / (k * k), kh = f / k % k, kw = f % k;
	int lo, hi;
	col_range(W, OW, s, p, kw, &lo, &hi);
	for (int oh = 0; oh < OH; oh++) {
		float *r = row + (size_t)oh * OW;
		int ih = oh * s - p + kh;
		if (ih < 0 || ih >= H) {
			for (int ow = 0; ow < OW; ow++)
				r[ow] = 0.0f;
			continue;
		}
		const float *src = in + ((size_t)c * H + ih) * W - p + kw;
		for (int ow = 0; ow < lo; ow++)
			r[ow] = 0.0f;
		if (s == 1)
			for (int ow = lo; ow < hi; ow++)
				r[ow] = src[ow];
		else
			for (int ow = lo; ow < hi; ow++)
				r[ow] = src[ow * s];
		for (int ow = hi; ow < OW; ow++)
			r[ow] = 0.0f;
	}
}

/* The whole im2col matrix, fan_in x (OH*OW) row-major (cblas path). */
static void im2col(const struct layer *l, const float *in, float *col)
{
	size_t N = (size_t)l->out_h * l->out_w;
	for (int f = 0; f < l->fan_in; f++)
		im2col_row(l, in, f, col + (size_t)f * N);
}

/* im2col written into gemm's packed-B layouts (tmp: 32*N floats):
 *   trans == 0: B = col (K x N):    Bp[n/32][k][n%32]  (forward product)
 *   trans == 1: B = col^T (N x K):  Bp[k/32][n][k%32]  (weight gradient)
 * Entries past N (resp. K) are never written and stay zero. */
static void im2col_packed(const struct layer *l, const float *in, float *bp, int trans,
			  float *tmp)
{
	int K = l->fan_in, N = l->out_h * l->out_w;
	if (!trans) {
		for (int f = 0; f < K; f++) {
			im2col_row(l, in, f, tmp);
			for (int n0 = 0; n0 < N; n0 += GEMM_NR) {
				int nr = N - n0 < GEMM_NR ? N - n0 : GEMM_NR;
				memcpy(bp + (size_t)(n0 / GEMM_NR) * K * GEMM_NR + (size_t)f * GEMM_NR,
				       tmp + n0, (size_t)nr * sizeof(float));
			}
		}
		return;
	}
	for (int f0 = 0; f0 < K; f0 += GEMM_NR) {
		int fr = K - f0 < GEMM_NR ? K - f0 : GEMM_NR;
		for (int j = 0; j < fr; j++)
			im2col_row(l, in, f0 + j, tmp + (size_t)j * N);
		float *dst = bp + (size_t)(f0 / GEMM_NR) * N * GEMM_NR;
		for (int n = 0; n < N; n++) {
			float *d = dst + (size_t)n * GEMM_NR;
			for (int j = 0; j < fr; j++)
				d[j] = tmp[(size_t)j * N + n];
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
				int lo, hi;
				col_range(W, OW, s, p, kw, &lo, &hi);
				for (int oh = 0; oh < OH; oh++) {
					int ih = oh * s - p + kh;
					if (ih < 0 || ih >= H)
						continue;
					const float *r = row + (size_t)oh * OW;
					float *dst = din + ((size_t)c * H + ih) * W - p + kw;
					if (s == 1)
						for (int ow = lo; ow < hi; ow++)
							dst[ow] += r[ow];
					else
						for (int ow = lo; ow < hi; ow++)
							dst[ow * s] += r[ow];
				}
			}
}

/* Sum of n floats with 8 independent partial sums (vectorisable). */
static float row_sum(const float *x, size_t n)
{
	float acc[8] = { 0 };
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		for (int j = 0; j < 8; j++)
			acc[j] += x[i + j];
	float s = 0.0f;
	for (; i < n; i++)
		s += x[i];
	for (int j = 0; j < 8; j++)
		s += acc[j];
	return s;
}

/* Copies C planes of H x W into the interior of zero-bordered planes of
 * HP x WP (offset pad); the borders were zeroed at allocation and are
 * never written. */
static void pad_planes(const float *x, int C, int H, int W, int pad, int HP, int WP, float *P)
{
	for (int c = 0; c < C; c++)
		for (int h = 0; h < H; h++)
			memcpy(P + ((size_t)c * HP + h + pad) * WP + pad, x + ((size_t)c * H + h) * W,
			       (size_t)W * sizeof(float));
}

struct conv_job {
	struct layer *l;
	struct conv_scratch *s;
	const float *in;
	float *out;
	const float *y;      /* backward: the forward output (for the fused ReLU) */
	const float *dout;
	float *din;
	int n;
};

/* The bias and the fused ReLU on one example's output planes. */
static void bias_relu(const struct layer *l, float *y)
{
	size_t N = (size_t)l->out_h * l->out_w;
	for (int m = 0; m < l->out_c; m++) {
		float b = l->b[m], *ym = y + (size_t)m * N;
		if (l->relu)
			for (size_t q = 0; q < N; q++) {
				float v = ym[q] + b;
				ym[q] = v > 0.0f ? v : 0.0f;
			}
		else
			for (size_t q = 0; q < N; q++)
				ym[q] += b;
	}
}

/* Forward by Winograd: examples [lo, hi) in groups of WINO_GROUP. */
static void conv_fwd_wino(struct conv_job *j, struct conv_thread *th, size_t lo, size_t hi)
{
	struct layer *l = j->l;
	struct conv_scratch *s = j->s;
	size_t isz = layer_in_size(l), osz = layer_out_size(l);
	for (size_t i0 = lo; i0 < hi; i0 += WINO_GROUP) {
		int n = hi - i0 < WINO_GROUP ? (int)(hi - i0) : WINO_GROUP;
		for (int e = 0; e < n; e++) {
			pad_planes(j->in + (i0 + e) * isz, l->in_c, l->in_h, l->in_w, l->pad, s->HP,
				   s->WP, th->P);
			wino_input(&s->wfwd, th->P, e, th->wv);
		}
		wino_output(&s->wfwd, s->ufwd, th->wv, n, th->wx, j->out + i0 * osz, osz);
		for (int e = 0; e < n; e++)
			bias_relu(l, j->out + (i0 + e) * osz);
	}
}

static void conv_fwd_task(void *ctx, int t, int nt)
{
	struct conv_job *j = ctx;
	struct layer *l = j->l;
	struct conv_thread *th = &j->s->th[t];
	size_t lo, hi, N = (size_t)l->out_h * l->out_w;
	bool own = j->s->wpack != NULL;
	tpool_range((size_t)j->n, t, nt, &lo, &hi);
	if (j->s->wf) {
		conv_fwd_wino(j, th, lo, hi);
		return;
	}
	for (size_t i = lo; i < hi; i++) {
		const float *x = j->in + i * layer_in_size(l);
		float *y = j->out + i * layer_out_size(l);
		if (j->s->direct) {
			pad_planes(x, l->in_c, l->in_h, l->in_w, l->pad, j->s->HP, j->s->WP, th->P);
			conv_direct_fwd(l->out_c, l->fan_in, j->s->wpack, j->s->off_fwd, th->P,
					j->s->tiles_fwd, j->s->ntiles_fwd, y, (int)N);
		} else if (own) {
			im2col_packed(l, x, th->colp, 0, th->dcol);
			gemm_packed(l->out_c, (int)N, l->fan_in, j->s->wpack, th->colp, 0.0f, y,
				    (int)N);
		} else {
			im2col(l, x, th->col);
			gemm(false, false, l->out_c, (int)N, l->fan_in, l->w, l->fan_in, th->col,
			     (int)N, 0.0f, y, (int)N, th->ws);
		}
		bias_relu(l, y);
	}
}

/* One example's share of the backward pass: dw, db, and din, or with
 * Winograd (slot >= 0) its transformed output gradient in that slot. */
static void conv_bwd_example(struct conv_job *j, struct conv_thread *th, size_t i, int slot)
{
	struct layer *l = j->l;
	struct conv_scratch *s = j->s;
	size_t N = (size_t)l->out_h * l->out_w;
	float *dw = th->dw;
	float *db = dw + l->nweight;
	bool own = s->wpack != NULL;
	const float *x = j->in + i * layer_in_size(l);
	const float *dy = j->dout + i * layer_out_size(l);
	if (l->relu) {
		/* the fused ReLU's backward: pass where the output is positive.
		 * Both loads are unconditional so that the select compiles to
		 * a vector compare-and-mask: a branch on the sign of y was
		 * mispredicted half the time (4% of a training step). */
		const float *y = j->y + i * layer_out_size(l);
		float *restrict g = th->dy;
		size_t osz = layer_out_size(l);
		for (size_t q = 0; q < osz; q++) {
			float v = y[q], u = dy[q];
			g[q] = v > 0.0f ? u : 0.0f;
		}
		dy = th->dy;
	}
	for (int m = 0; m < l->out_c; m++)
		db[m] += row_sum(dy + (size_t)m * N, N);
	if (s->direct) {
		pad_planes(x, l->in_c, l->in_h, l->in_w, l->pad, s->HP, s->WP, th->P);
		if (s->wf) {
			wino_input(&s->wgrad, th->P, 0, th->gv);
			wino_grad_dy(&s->wgrad, dy, th->gt, th->gy);
			wino_grad_acc(&s->wgrad, th->gv, th->gy, th->gz);
		} else {
			gemm_pack_b(true, l->out_c, (int)N, dy, (int)N, th->apack);
			conv_direct_dw(l->fan_in, l->out_c, s->off_fwd, th->P, l->out_h, l->out_w,
				       s->WP, th->apack, th->dwT);
		}
		if (j->din) {
			pad_planes(dy, l->out_c, l->out_h, l->out_w, l->k - 1 - l->pad, s->HQ,
				   s->WQ, th->Q);
			if (slot >= 0) {
				wino_input(&s->wbwd, th->Q, slot, th->wv);
				return;
			}
			conv_direct_fwd(l->in_c, l->out_c * l->k * l->k, s->wfpack, s->off_bwd,
					th->Q, s->tiles_bwd, s->ntiles_bwd,
					j->din + i * layer_in_size(l), l->in_h * l->in_w);
		}
		return;
	}
	if (own) {
		im2col_packed(l, x, th->colt, 1, th->dcol);
		gemm_pack_a(false, l->out_c, (int)N, dy, (int)N, th->apack);
		gemm_packed(l->out_c, l->fan_in, (int)N, th->apack, th->colt, 1.0f, dw,
			    l->fan_in);
		if (j->din) {
			gemm_pack_b(false, (int)N, l->out_c, dy, (int)N, th->bpack);
			gemm_packed(l->fan_in, (int)N, l->out_c, s->wtpack, th->bpack, 0.0f,
				    th->dcol, (int)N);
			col2im(l, th->dcol, j->din + i * layer_in_size(l));
		}
		return;
	}
	im2col(l, x, th->col);
	gemm(false, true, l->out_c, l->fan_in, (int)N, dy, (int)N, th->col, (int)N, 1.0f,
	     dw, l->fan_in, th->ws);
	if (j->din) {
		gemm(true, false, l->fan_in, (int)N, l->out_c, l->w, l->fan_in, dy, (int)N,
		     0.0f, th->dcol, (int)N, th->ws);
		col2im(l, th->dcol, j->din + i * layer_in_size(l));
	}
}

static void conv_bwd_task(void *ctx, int t, int nt)
{
	struct conv_job *j = ctx;
	struct layer *l = j->l;
	struct conv_scratch *s = j->s;
	struct conv_thread *th = &s->th[t];
	size_t lo, hi;
	memset(th->dw, 0, (l->nweight + l->nbias) * sizeof(float));
	if (s->wf)
		memset(th->gz, 0, wino_gz_floats(&s->wgrad) * sizeof(float));
	else if (s->direct)
		memset(th->dwT, 0, l->nweight * sizeof(float));
	tpool_range((size_t)j->n, t, nt, &lo, &hi);
	/* Winograd's input gradient runs once per group of examples, each
	 * example's output gradient transformed as soon as it is masked. */
	bool wino = s->wb && j->din;
	size_t group = wino ? WINO_GROUP : 1;
	for (size_t i0 = lo; i0 < hi; i0 += group) {
		size_t iend = hi - i0 < group ? hi : i0 + group;
		for (size_t i = i0; i < iend; i++)
			conv_bwd_example(j, th, i, wino ? (int)(i - i0) : -1);
		if (wino)
			wino_output(&s->wbwd, s->ubwd, th->wv, (int)(iend - i0), th->wx,
				    j->din + i0 * layer_in_size(l), layer_in_size(l));
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
	if (j.s->wf)
		wino_weights(&j.s->wfwd, l->w, j.s->ufwd);
	else if (j.s->wpack)
		gemm_pack_a(false, l->out_c, l->fan_in, l->w, l->fan_in, j.s->wpack);
	tpool_run(conv_tasks(n), conv_fwd_task, &j);
}

static void conv_backward(struct layer *l, const float *in, const float *out,
			  const float *dout, float *din, int n)
{
	struct conv_job j = { .l = l, .s = scratch(l), .in = in, .y = out,
			      .dout = dout, .din = din, .n = n };
	int nt = conv_tasks(n);
	if (j.s->direct && din) {
		/* wflip[c][(m*k + q)*k + r] = W[m][c][k-1-q][k-1-r]: the weights
		 * of the input gradient's convolution (in_c outputs from out_c
		 * planes) */
		int k = l->k, kk = k * k, M = l->out_c;
		for (int m = 0; m < M; m++)
			for (int c = 0; c < l->in_c; c++)
				for (int q = 0; q < kk; q++)
					j.s->wflip[(size_t)c * M * kk + (size_t)m * kk + q] =
						l->w[((size_t)m * l->in_c + c) * kk + (kk - 1 - q)];
		if (j.s->wb)
			wino_weights(&j.s->wbwd, j.s->wflip, j.s->ubwd);
		else
			gemm_pack_a(false, l->in_c, M * kk, j.s->wflip, M * kk, j.s->wfpack);
	} else if (j.s->wtpack && din) {
		gemm_pack_a(true, l->fan_in, l->out_c, l->w, l->fan_in, j.s->wtpack);
	}
	tpool_run(nt, conv_bwd_task, &j);
	if (j.s->wf) {
		/* the point sums of all threads, in thread order, into the
		 * first's, then the kernels' gradient out of them */
		float *z = j.s->th[0].gz;
		size_t nz = wino_gz_floats(&j.s->wgrad);
		for (int t = 1; t < nt; t++)
			for (size_t q = 0; q < nz; q++)
				z[q] += j.s->th[t].gz[q];
		wino_grad_weights(&j.s->wgrad, z, l->dw);
	} else if (j.s->direct) {
		/* dw[m][f] = sum over threads of dwT[f][m] */
		int M = l->out_c, K = l->fan_in;
		for (int m = 0; m < M; m++)
			for (int f = 0; f < K; f++) {
				float acc = 0.0f;
				for (int t = 0; t < nt; t++)
					acc += j.s->th[t].dwT[(size_t)f * M + m];
				l->dw[(size_t)m * K + f] = acc;
			}
	}
	if (j.s->direct) {
		/* the biases as below */
		for (size_t q = 0; q < l->nbias; q++) {
			float acc = 0.0f;
			for (int t = 0; t < nt; t++)
				acc += j.s->th[t].dw[l->nweight + q];
			l->db[q] = acc;
		}
		return;
	}
	/* Sum the per-thread accumulators, in thread order (deterministic for
	 * a given thread count). */
	memcpy(l->dw, j.s->th[0].dw, l->nweight * sizeof(float));
	memcpy(l->db, j.s->th[0].dw + l->nweight, l->nbias * sizeof(float));
	for (int t = 1; t < nt; t++) {
		const float *src = j.s->th[t].dw;
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

/* [out, in, kh, kw], as torch's Conv2d.weight */
static int conv_weight_shape(const struct layer *l, int *shape)
{
	shape[0] = l->out_c;
	shape[1] = l->in_c;
	shape[2] = l->k;
	shape[3] = l->k;
	return 4;
}

/* conv OUT K [stride S] [pad P] */
static const struct layer_arg conv_args[] = {
	{ NULL, offsetof(struct layer_args, out), 1, LAYER_DIM_MAX },
	{ NULL, offsetof(struct layer_args, k), 1, LAYER_DIM_MAX },
	{ "stride", offsetof(struct layer_args, stride), 1, LAYER_OPT_MAX },
	{ "pad", offsetof(struct layer_args, pad), 0, LAYER_OPT_MAX },
};

const struct layer_ops layer_conv_ops = {
	.kind = "conv",
	.args = conv_args,
	.nargs = sizeof(conv_args) / sizeof(conv_args[0]),
	.param_prefix = "conv",
	.fuses_relu = 1,
	.setup = conv_setup,
	.prepare = conv_prepare,
	.forward = conv_forward,
	.backward = conv_backward,
	.release = conv_release,
	.weight_shape = conv_weight_shape,
};
