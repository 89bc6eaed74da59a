/* test-trainer-winograd.c: the conv layer's Winograd path (conv-winograd.c)
 * against a direct convolution computed here in double precision: the
 * forward output, the input gradient and the weight and bias gradients
 * (a sum over examples and output pixels), for the cnn model's second layer
 * and for odd shapes (tiles that overhang the output, a partial group of
 * examples), at 1 and 2 threads.
 *
 * The bound. Each output is a sum of K products, and the reference scale
 * of its rounding error is S = |bias| + sum |w| |x| (the sum of the
 * products' magnitudes), whatever the algorithm. A direct float sum is
 * within K * 2^-24 * S. Winograd adds the transforms' rounding, amplified
 * by their coefficients: an input value enters a transformed tile with
 * weights summing to at most 10 x 10 (B^T's largest row sum, once per
 * dimension), a kernel value with weights at most 1.3 x 1.3 (G's), and an
 * output collects 36 products with weights at most 7 x 7 (A^T's). Those
 * make the error a small multiple of that of the direct sum rather than a
 * relative one of the output (which may be near 0); measured it stays
 * below 2e-6 S for these shapes (the direct kernels: about 2e-7 S),
 * and the check allows 2e-5 S: ten times the measured error, still 50
 * times below what a wrong transform entry gives (one entry of G off by
 * 0.03% already gives 2e-4 S). The weight gradient's transform of the
 * output gradient weighs a value by at most 3 x 3 (A's rows) and its
 * kernels come out through G^T and G; measured below 3e-6 S, and one of
 * A's coefficients off by 0.03% fails the same bound. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trainer/conv-direct.h"
#include "trainer/conv-winograd.h"
#include "trainer/layer.h"
#include "trainer/rng.h"
#include "trainer/tpool.h"
#include "util/diag.h"

#define TOL 2e-5

struct shape {
	int C, M, H, W, pad, n;
};

static float uni(struct rng *r)
{
	return 2.0f * rng_uniform(r) - 1.0f;
}

/* The worst error over all outputs, in units of their S. */
static double worst;

static void check(double got, double ref, double scale)
{
	double e = fabs(got - ref) / scale;
	if (e > worst)
		worst = e;
}

static void run_shape(const struct shape *sh, int threads)
{
	struct diag d = DIAG_INIT;
	struct layer l;
	struct layer_args a = { .out = sh->M, .k = 5, .pad = sh->pad };
	memset(&l, 0, sizeof(l));
	l.ops = layer_ops_find("conv");
	assert_non_null(l.ops);
	l.in_c = sh->C;
	l.in_h = sh->H;
	l.in_w = sh->W;
	assert_int_equal(l.ops->setup(&l, &a, &d), 0);
	diag_release(&d);
	/* both products of this layer take the Winograd path */
	assert_true(wino_applies(5, 1, sh->C, sh->M, l.out_w));
	assert_true(wino_applies(5, 1, sh->M, sh->C, l.in_w));
	tpool_set_threads(threads);

	int n = sh->n, C = sh->C, M = sh->M, H = sh->H, W = sh->W, p = sh->pad;
	int OH = l.out_h, OW = l.out_w;
	size_t isz = layer_in_size(&l), osz = layer_out_size(&l);
	float *params = calloc(l.nweight + l.nbias, sizeof(float));
	float *grads = calloc(l.nweight + l.nbias, sizeof(float));
	float *x = calloc(isz * n, sizeof(float)), *dx = calloc(isz * n, sizeof(float));
	float *y = calloc(osz * n, sizeof(float)), *dy = calloc(osz * n, sizeof(float));
	assert_true(params && grads && x && dx && y && dy);
	l.w = params;
	l.b = params + l.nweight;
	l.dw = grads;
	l.db = grads + l.nweight;
	l.max_batch = n;
	l.ops->prepare(&l, n);

	struct rng r;
	rng_seed(&r, 7);
	for (size_t i = 0; i < l.nweight + l.nbias; i++)
		params[i] = uni(&r);
	for (size_t i = 0; i < isz * n; i++)
		x[i] = uni(&r);
	for (size_t i = 0; i < osz * n; i++)
		dy[i] = uni(&r);
	l.ops->forward(&l, x, y, n);
	l.ops->backward(&l, x, y, dy, dx, n);

	worst = 0.0;
	for (int e = 0; e < n; e++)
		for (int m = 0; m < M; m++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					double s = l.b[m], S = fabs(l.b[m]);
					for (int c = 0; c < C; c++)
						for (int kh = 0; kh < 5; kh++)
							for (int kw = 0; kw < 5; kw++) {
								int ih = oh - p + kh, iw = ow - p + kw;
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								double v = (double)l.w[((m * C + c) * 5 + kh) * 5 + kw] *
									   x[e * isz + (c * H + ih) * W + iw];
								s += v;
								S += fabs(v);
							}
					check(y[e * osz + (m * OH + oh) * OW + ow], s, S);
				}
	double wf = worst;
	worst = 0.0;
	for (int e = 0; e < n; e++)
		for (int c = 0; c < C; c++)
			for (int ih = 0; ih < H; ih++)
				for (int iw = 0; iw < W; iw++) {
					double s = 0.0, S = 1e-30;
					for (int m = 0; m < M; m++)
						for (int kh = 0; kh < 5; kh++)
							for (int kw = 0; kw < 5; kw++) {
								int oh = ih + p - kh, ow = iw + p - kw;
								if (oh < 0 || oh >= OH || ow < 0 || ow >= OW)
									continue;
								double v = (double)l.w[((m * C + c) * 5 + kh) * 5 + kw] *
									   dy[e * osz + (m * OH + oh) * OW + ow];
								s += v;
								S += fabs(v);
							}
					check(dx[e * isz + (c * H + ih) * W + iw], s, S);
				}
	double wb = worst;
	worst = 0.0;
	for (int m = 0; m < M; m++)
		for (int c = 0; c < C; c++)
			for (int kh = 0; kh < 5; kh++)
				for (int kw = 0; kw < 5; kw++) {
					double s = 0.0, S = 1e-30;
					for (int e = 0; e < n; e++)
						for (int oh = 0; oh < OH; oh++)
							for (int ow = 0; ow < OW; ow++) {
								int ih = oh - p + kh, iw = ow - p + kw;
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								double v = (double)x[e * isz + (c * H + ih) * W + iw] *
									   dy[e * osz + (m * OH + oh) * OW + ow];
								s += v;
								S += fabs(v);
							}
					check(l.dw[((m * C + c) * 5 + kh) * 5 + kw], s, S);
				}
	for (int m = 0; m < M; m++) {
		double s = 0.0, S = 1e-30;
		for (int e = 0; e < n; e++)
			for (int q = 0; q < OH * OW; q++) {
				s += dy[e * osz + m * OH * OW + q];
				S += fabs(dy[e * osz + m * OH * OW + q]);
			}
		check(l.db[m], s, S);
	}
	double wg = worst;
	printf("# C %d M %d %dx%d pad %d n %d threads %d: forward %.2e S, input gradient %.2e S, "
	       "weight gradient %.2e S\n", C, M, H, W, p, n, threads, wf, wb, wg);
	assert_true(wf <= TOL);
	assert_true(wb <= TOL);
	assert_true(wg <= TOL);
	l.ops->release(&l);
	free(params);
	free(grads);
	free(x);
	free(dx);
	free(y);
	free(dy);
}

static void test_winograd(void **state)
{
	(void)state;
	if (conv_direct_isa() == CONV_DIRECT_NONE)
		skip();
	static const struct shape shapes[] = {
		{ 32, 64, 14, 14, 2, 6 }, /* the cnn's second conv; a partial group */
		{ 9, 11, 13, 11, 2, 5 },  /* odd planes: tiles overhang the output */
		{ 8, 10, 9, 10, 1, 3 },   /* pad 1: smaller output than input */
		{ 12, 8, 7, 6, 3, 4 },    /* pad 3: larger output than input */
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int t = 1; t <= 2; t++)
			run_shape(&shapes[i], t);
	tpool_set_threads(1);
}

int main(void)
{
	setenv("IMC_TRAIN_WINOGRAD", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_winograd),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tpool_shutdown();
	return rc;
}
