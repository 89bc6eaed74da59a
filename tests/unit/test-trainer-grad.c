/* test-trainer-grad.c: gradient checks of every trainer layer type and of
 * a whole model (softmax cross-entropy included) against central finite
 * differences, and agreement of the threaded and single-threaded paths.
 * Inputs are built away from the kinks of ReLU and max pooling so that
 * finite differences are meaningful there. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trainer/data.h"
#include "trainer/gemm.h"
#include "trainer/layer.h"
#include "trainer/model.h"
#include "trainer/rng.h"
#include "trainer/tpool.h"
#include "util/diag.h"

struct gl {
	struct layer l;
	float *params, *grads;
	int n;
	float *x, *y, *r, *dx;
};

static float uni(struct rng *r, float lo, float hi)
{
	return lo + (hi - lo) * rng_uniform(r);
}

static void gl_make(struct gl *g, const struct layer_ops *ops, int c, int h, int w,
		    const struct layer_args *a, int n)
{
	struct diag d = DIAG_INIT;
	assert_non_null(ops);
	memset(g, 0, sizeof(*g));
	g->l.ops = ops;
	g->l.in_c = c;
	g->l.in_h = h;
	g->l.in_w = w;
	assert_int_equal(ops->setup(&g->l, a, &d), 0);
	size_t np = g->l.nweight + g->l.nbias;
	g->params = calloc(np + 1, sizeof(float));
	g->grads = calloc(np + 1, sizeof(float));
	g->l.w = g->params;
	g->l.b = g->params + g->l.nweight;
	g->l.dw = g->grads;
	g->l.db = g->grads + g->l.nweight;
	g->n = n;
	g->l.max_batch = n;
	if (ops->prepare)
		ops->prepare(&g->l, n);
	g->x = calloc(layer_in_size(&g->l) * n, sizeof(float));
	g->dx = calloc(layer_in_size(&g->l) * n, sizeof(float));
	g->y = calloc(layer_out_size(&g->l) * n, sizeof(float));
	g->r = calloc(layer_out_size(&g->l) * n, sizeof(float));
	diag_release(&d);
}

static void gl_free(struct gl *g)
{
	if (g->l.ops->release)
		g->l.ops->release(&g->l);
	free(g->params);
	free(g->grads);
	free(g->x);
	free(g->dx);
	free(g->y);
	free(g->r);
}

/* L = sum(out * r), in double. */
static double gl_loss(struct gl *g)
{
	g->l.ops->forward(&g->l, g->x, g->y, g->n);
	double s = 0;
	for (size_t i = 0; i < layer_out_size(&g->l) * g->n; i++)
		s += (double)g->y[i] * g->r[i];
	return s;
}

static int close_enough(double ana, double num, double tol)
{
	return fabs(ana - num) <= tol * (1.0 + fabs(num));
}

/* One finite-difference probe of element v: returns 1 if it agrees with
 * the analytic value, 0 if not, -1 when a kink (ReLU, max) lies within eps
 * (one-sided slopes disagree) and the probe says nothing. */
static int probe(struct gl *g, float *v, double ana, double l0, float eps, double tol,
		 const char *what, size_t i)
{
	float keep = *v;
	*v = keep + eps;
	double lp = gl_loss(g);
	*v = keep - eps;
	double lm = gl_loss(g);
	*v = keep;
	double fwd = (lp - l0) / eps, bwd = (l0 - lm) / eps, num = (lp - lm) / (2.0 * eps);
	if (fabs(fwd - bwd) > 1e-2 * (1.0 + fabs(num)))
		return -1;
	if (close_enough(ana, num, tol))
		return 1;
	print_error("%s: %s[%zu] analytic %g numeric %g\n", g->l.ops->kind, what, i, ana, num);
	return 0;
}

/* Checks d L / d x and d L / d params. */
static void gl_check(struct gl *g, float eps, double tol)
{
	double l0 = gl_loss(g);
	g->l.ops->backward(&g->l, g->x, g->y, g->r, g->dx, g->n);
	size_t nx = layer_in_size(&g->l) * g->n, np = g->l.nweight + g->l.nbias;
	int bad = 0, kinks = 0;
	for (size_t i = 0; i < nx; i++) {
		int r = probe(g, &g->x[i], g->dx[i], l0, eps, tol, "dx", i);
		bad += r == 0;
		kinks += r < 0;
	}
	for (size_t i = 0; i < np; i++) {
		int r = probe(g, &g->params[i], g->grads[i], l0, eps, tol, "dparam", i);
		bad += r == 0;
		kinks += r < 0;
	}
	assert_int_equal(bad, 0);
	assert_true(kinks <= (int)((nx + np) / 10));
}

static void fill(struct gl *g, struct rng *r)
{
	for (size_t i = 0; i < layer_in_size(&g->l) * g->n; i++)
		g->x[i] = uni(r, -1, 1);
	for (size_t i = 0; i < g->l.nweight + g->l.nbias; i++)
		g->params[i] = uni(r, -0.5f, 0.5f);
	for (size_t i = 0; i < layer_out_size(&g->l) * g->n; i++)
		g->r[i] = uni(r, -1, 1);
}

static void test_conv_grad(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 1);
	const struct layer_args shapes[] = {
		{ .out = 4, .k = 3, .pad = 1 },
		{ .out = 3, .k = 5, .pad = 2 },
		{ .out = 2, .k = 3, .stride = 2 },
		{ .out = 5, .k = 2, .stride = 2, .pad = 1 },
	};
	/* every code path: the direct kernels for stride 1 (AVX-512 or AVX2,
	 * whichever the CPU has; the odd channel counts take their 4- and
	 * 2-row pieces), own packed AVX-512 im2col otherwise when the CPU has
	 * it, and cblas_sgemm; with and without a fused ReLU */
	for (int own = 0; own <= 1; own++) {
		gemm_set_own_kernel(own);
		for (int threads = 1; threads <= 2; threads++) {
			tpool_set_threads(threads);
			for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
				struct gl g;
				gl_make(&g, layer_ops_find("conv"), 3, 7, 6, &shapes[s], 3);
				g.l.relu = (int)(s % 2);
				fill(&g, &r);
				gl_check(&g, 1e-3f, 2e-3);
				gl_free(&g);
			}
		}
	}
	gemm_set_own_kernel(true);
	tpool_set_threads(1);
}

static void test_dense_grad(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 2);
	for (int threads = 1; threads <= 2; threads++) {
		tpool_set_threads(threads);
		struct layer_args a = { .out = 7 };
		struct gl g;
		gl_make(&g, layer_ops_find("dense"), 2, 3, 4, &a, 5);
		fill(&g, &r);
		gl_check(&g, 1e-2f, 2e-3);
		gl_free(&g);
		/* Large enough for the threaded split to kick in. */
		a.out = 300;
		gl_make(&g, layer_ops_find("dense"), 1, 1, 700, &a, 2);
		fill(&g, &r);
		g.l.ops->forward(&g.l, g.x, g.y, g.n);
		for (int j = 0; j < 300; j += 37) {
			double s = g.params[g.l.nweight + j];
			for (int k = 0; k < 700; k++)
				s += (double)g.params[(size_t)j * 700 + k] * g.x[700 + k];
			assert_true(fabs(s - g.y[300 + j]) < 1e-3);
		}
		gl_free(&g);
	}
	tpool_set_threads(1);
}

static void test_relu_grad(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 3);
	struct layer_args a = { 0 };
	struct gl g;
	gl_make(&g, layer_ops_find("relu"), 2, 4, 5, &a, 3);
	fill(&g, &r);
	for (size_t i = 0; i < layer_in_size(&g.l) * g.n; i++)
		g.x[i] = (g.x[i] < 0 ? -0.1f : 0.1f) + g.x[i]; /* away from 0 */
	gl_check(&g, 1e-2f, 1e-3);
	gl_free(&g);
}

static void test_maxpool_grad(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 4);
	struct layer_args a = { .k = 2 };
	for (int s = 0; s < 2; s++) {
		struct gl g;
		if (s == 1)
			a.stride = 1;
		gl_make(&g, layer_ops_find("maxpool"), 3, 6, 5, &a, 2);
		fill(&g, &r);
		/* Distinct values 0.05 apart: a 1e-2 nudge never changes an argmax. */
		size_t nx = layer_in_size(&g.l) * g.n;
		for (size_t i = 0; i < nx; i++)
			g.x[i] = (float)i * 0.05f;
		for (size_t i = nx - 1; i > 0; i--) {
			size_t j = (size_t)rng_below(&r, i + 1);
			float t = g.x[i];
			g.x[i] = g.x[j];
			g.x[j] = t;
		}
		assert_int_equal(g.l.out_h, s ? 5 : 3);
		gl_check(&g, 1e-2f, 1e-3);
		gl_free(&g);
	}
}

static void test_flatten_grad(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 5);
	struct layer_args a = { 0 };
	struct gl g;
	gl_make(&g, layer_ops_find("flatten"), 2, 3, 3, &a, 2);
	assert_int_equal(g.l.out_c, 18);
	fill(&g, &r);
	gl_check(&g, 1e-2f, 1e-4);
	gl_free(&g);
}

/* model_new on a spec file holding text (removed again before the
 * caller's assertions can end the test). */
static struct model *model_from_text(const char *text, int max_batch, struct diag *d)
{
	char path[] = "/tmp/imc-test-spec.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	struct model *m = model_new(path, max_batch, d);
	unlink(path);
	assert_int_equal(n, (ssize_t)strlen(text));
	return m;
}

/* The whole model: model_forward_backward's gradient of the mean
 * cross-entropy against finite differences of model_evaluate's loss. */
static void test_model_grad(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct model *m = model_from_text("input 2 6 6\nconv 3 3 pad 1\nrelu\nmaxpool 2\n"
					  "flatten\ndense 8\nrelu\ndense 4\n", 4, &d);
	assert_non_null(m);
	assert_int_equal(model_num_classes(m), 4);
	assert_int_equal(model_num_tensors(m), 6);
	assert_string_equal(model_tensor(m, 0)->name, "conv1.weight");
	assert_string_equal(model_tensor(m, 5)->name, "fc2.bias");
	model_init_params(m, 7);
	struct rng r;
	rng_seed(&r, 9);
	int n = 4;
	float x[4 * 72];
	uint8_t y[4] = { 0, 3, 1, 2 }, pix[4 * 72];
	/* a dataset of bytes, as loaded; the model sees them as x/255 */
	struct dataset ds = { .n = n, .c = 2, .h = 6, .w = 6, .num_classes = 4,
			      .x = pix, .y = y };
	for (int i = 0; i < n * 72; i++)
		pix[i] = (uint8_t)uni(&r, 0, 255.5f);
	dataset_get(&ds, 0, n, x);
	float loss = model_forward_backward(m, x, y, n);
	double ls = 0;
	model_evaluate(m, &ds, &ls);
	assert_true(fabs(ls / n - loss) < 1e-5);
	size_t np = model_num_params(m);
	float *g = malloc(np * sizeof(float));
	memcpy(g, model_grads(m), np * sizeof(float));
	float *p = model_params(m);
	int bad = 0, kinks = 0;
	double l0 = 0;
	model_evaluate(m, &ds, &l0);
	for (size_t i = 0; i < np; i++) {
		float keep = p[i], eps = 1e-3f;
		double lp = 0, lm = 0;
		p[i] = keep + eps;
		model_evaluate(m, &ds, &lp);
		p[i] = keep - eps;
		model_evaluate(m, &ds, &lm);
		p[i] = keep;
		double fwd = (lp - l0) / eps / n, bwd = (l0 - lm) / eps / n;
		double num = (lp - lm) / (2.0 * eps) / n;
		if (getenv("GRAD_DEBUG"))
			print_error("p[%zu] %g %g\n", i, (double)g[i], num);
		/* One-sided slopes that disagree: a ReLU kink lies within eps, where
		 * finite differences say nothing. */
		if (fabs(fwd - bwd) > 1e-3 + 1e-2 * fabs(num)) {
			kinks++;
			continue;
		}
		if (fabs(num - g[i]) > 1e-3 * (1 + fabs(num)) + 1e-4) {
			if (bad++ < 5)
				print_error("model: dparam[%zu] analytic %g numeric %g\n", i,
					    (double)g[i], num);
		}
	}
	assert_int_equal(bad, 0);
	assert_true(kinks <= (int)(np / 20));
	/* Two threads give the same gradient up to summation order. */
	tpool_set_threads(2);
	float loss2 = model_forward_backward(m, x, y, n);
	assert_true(fabs(loss2 - loss) < 1e-6);
	for (size_t i = 0; i < np; i++)
		assert_true(fabs(model_grads(m)[i] - g[i]) < 1e-5);
	tpool_set_threads(1);
	free(g);
	model_free(m);
	diag_release(&d);
}

static void test_builtin_models(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct model *m = model_new("cnn", 2, &d);
	assert_non_null(m);
	assert_int_equal(model_num_params(m), 857738);
	assert_int_equal(model_num_tensors(m), 8);
	const struct model_tensor *t = model_tensor(m, 2);
	assert_string_equal(t->name, "conv2.weight");
	assert_int_equal(t->ndim, 4);
	assert_int_equal(t->shape[0], 64);
	assert_int_equal(t->shape[1], 32);
	assert_int_equal(t->offset, 832);
	assert_int_equal(model_input_size(m), 784);
	model_init_params(m, 1);
	/* U(-1/sqrt(fan_in), 1/sqrt(fan_in)) per layer */
	const struct model_tensor *fc1 = model_tensor(m, 4);
	float mx = 0;
	for (size_t i = 0; i < fc1->count; i++)
		if (fabsf(model_params(m)[fc1->offset + i]) > mx)
			mx = fabsf(model_params(m)[fc1->offset + i]);
	assert_true(mx <= 1.0f / sqrtf(3136.0f) && mx > 0.99f / sqrtf(3136.0f));
	model_free(m);
	m = model_new("mlp", 2, &d);
	assert_non_null(m);
	assert_int_equal(model_num_params(m), 203530);
	model_free(m);
	assert_false(diag_has_errors(&d));
	diag_release(&d);
}

/* Each kind's spec grammar (positional numbers, keywords) as the model
 * sees it: shapes, PyTorch's parameter names numbered per prefix, and a
 * "relu" folded into the conv or dense before it but kept after maxpool. */
static void test_spec_grammar(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct model *m = model_from_text("input 1 9 9\nconv 2 3 stride 2 pad 1\nrelu\n"
					  "maxpool 2 stride 1\nrelu\nconv 3 2\nflatten\n"
					  "dense 5\nrelu\ndense 4\n", 2, &d);
	assert_non_null(m);
	static const struct {
		const char *name;
		int ndim, shape[4];
	} want[] = {
		{ "conv1.weight", 4, { 2, 1, 3, 3 } }, { "conv1.bias", 1, { 2 } },
		{ "conv2.weight", 4, { 3, 2, 2, 2 } }, { "conv2.bias", 1, { 3 } },
		{ "fc1.weight", 2, { 5, 27 } },        { "fc1.bias", 1, { 5 } },
		{ "fc2.weight", 2, { 4, 5 } },         { "fc2.bias", 1, { 4 } },
	};
	assert_int_equal(model_num_tensors(m), 8);
	for (int i = 0; i < 8; i++) {
		const struct model_tensor *t = model_tensor(m, i);
		assert_string_equal(t->name, want[i].name);
		assert_int_equal(t->ndim, want[i].ndim);
		for (int k = 0; k < t->ndim; k++)
			assert_int_equal(t->shape[k], want[i].shape[k]);
	}
	char desc[200];
	model_describe(m, desc, sizeof(desc));
	if (!strstr(desc, ": 211 params, input 1x9x9, 4 classes, 7 layers"))
		fail_msg("got '%s'", desc);
	model_free(m);
	assert_false(diag_has_errors(&d));
	diag_release(&d);
}

static void test_spec_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "conv 3 3\n", "'input C H W' must come first" },
		{ "input 1 8 8\nconvolution 3 3\n", "unknown layer type 'convolution'" },
		{ "input 1 8 8\nconv 3\n", "takes 2 numbers" },
		{ "input 1 8 8\nconv 3 3 pad x\n", "expected an integer" },
		{ "input 1 8 8\nconv 3 3 dilation 2\n", "unknown option 'dilation'" },
		{ "input 1 8 8\nmaxpool 2 pad 1\n", "unknown option 'pad' for 'maxpool'" },
		{ "input 1 8 8\nrelu 3\n", "too many numbers for 'relu'" },
		{ "input 1 8 8\nflatten 1\n", "too many numbers for 'flatten'" },
		{ "input 1 8 8\nconv 3 3 3\n", "too many numbers for 'conv'" },
		{ "input 1 8 8\ndense\n", "'dense' takes 1 number, got 0" },
		{ "input 1 8 8\nconv 3 3 stride\n", "'stride' needs a value" },
		{ "input 1 8 8\ndense 0\n", "expected an integer in [1, 65536], got '0'" },
		{ "input 1 8 8\nconv 3 65537\n", "expected an integer in [1, 65536], got '65537'" },
		{ "input 1 8 8\nconv 3 3 pad -1\n", "expected an integer in [0, 1024], got '-1'" },
		{ "input 1 8 8\nmaxpool 2 stride 0\n", "expected an integer in [1, 1024], got '0'" },
		{ "input 1 8 8\n", "no layers" },
		{ "input 1 8 8\nconv 3 9\n", "does not fit" },
		{ "input 1 8 8\ndense 1\n", "classes must be 2..256" },
		{ "input 1 8 8\nmaxpool 2\nmaxpool 2\nmaxpool 2\nmaxpool 2\n", "does not fit" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diag d = DIAG_INIT;
		struct model *m = model_from_text(cases[i].text, 2, &d);
		assert_null(m);
		if (!strstr(diag_first_message(&d), cases[i].msg))
			fail_msg("spec %zu: got '%s', want '%s'", i, diag_first_message(&d),
				 cases[i].msg);
		diag_release(&d);
	}
	struct diag d = DIAG_INIT;
	assert_null(model_new("/nonexistent/spec", 2, &d));
	assert_int_equal(d.code, IMC_EXIT_NOINPUT);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv_grad),
		cmocka_unit_test(test_dense_grad),
		cmocka_unit_test(test_relu_grad),
		cmocka_unit_test(test_maxpool_grad),
		cmocka_unit_test(test_flatten_grad),
		cmocka_unit_test(test_model_grad),
		cmocka_unit_test(test_builtin_models),
		cmocka_unit_test(test_spec_grammar),
		cmocka_unit_test(test_spec_errors),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tpool_shutdown();
	return rc;
}
