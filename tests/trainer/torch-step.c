/* torch-step.c: test helper for the PyTorch cross-check. Loads the initial
 * parameters and the batch that torch_reference_dump.py wrote, runs one
 * imc-train step (forward, backward, SGD momentum update) and compares the
 * loss, every tensor's gradient norm and every tensor's updated norm with
 * PyTorch's figures in expected.txt, within a relative tolerance.
 *
 * usage: torch-step MODEL DIR [TOLERANCE] [THREADS]; exit 0 when all agree. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/model.h"
#include "trainer/optim.h"
#include "trainer/tpool.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/banned.h"

static int read_exact(const char *dir, const char *name, void *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (strbuf_read_file(&sb, path) < 0 || sb.len != len) {
		fprintf(stderr, "torch-step: %s: expected %zu bytes, got %zu\n", path, len, sb.len);
		strbuf_release(&sb);
		return -1;
	}
	memcpy(buf, sb.buf, len);
	strbuf_release(&sb);
	return 0;
}

static double norm(const float *p, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)p[i] * p[i];
	return sqrt(s);
}

static int check(const char *what, double got, double want, double tol)
{
	double rel = fabs(got - want) / (fabs(want) > 1e-30 ? fabs(want) : 1e-30);
	int ok = rel <= tol;
	printf("%s %-22s imc %.9g torch %.9g rel %.2e\n", ok ? "ok  " : "FAIL", what, got, want,
	       rel);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: torch-step MODEL DIR [TOLERANCE] [THREADS]\n", stderr);
		return 64;
	}
	double tol = argc > 3 ? strtod(argv[3], NULL) : 1e-4;
	tpool_set_threads(argc > 4 ? (int)strtol(argv[4], NULL, 10) : 1);
	struct diag d = DIAG_INIT;
	int batch = 64, failures = 0;
	struct model *m = model_new(argv[1], batch, &d);
	if (!m) {
		diag_print(&d, stderr);
		return 1;
	}
	size_t np = model_num_params(m), isz = model_input_size(m);
	float *x = malloc((size_t)batch * isz * sizeof(float));
	uint8_t y[64];
	if (read_exact(argv[2], "params.bin", model_params(m), np * sizeof(float)) < 0 ||
	    read_exact(argv[2], "x.bin", x, (size_t)batch * isz * sizeof(float)) < 0 ||
	    read_exact(argv[2], "y.bin", y, (size_t)batch) < 0)
		return 1;
	float loss = model_forward_backward(m, x, y, batch);
	struct optim *o = optim_new(np, 0.02f, 0.9f);
	double gn[16] = { 0 };
	for (int i = 0; i < model_num_tensors(m) && i < 16; i++) {
		const struct model_tensor *t = model_tensor(m, i);
		gn[i] = norm(model_grads(m) + t->offset, t->count);
	}
	optim_step(o, model_params(m), model_grads(m));

	char path[4096], line[512];
	snprintf(path, sizeof(path), "%s/expected.txt", argv[2]);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	int seen = 0;
	while (fgets(line, sizeof(line), f)) {
		char kind[32], name[128];
		double v;
		if (sscanf(line, "loss %lf", &v) == 1) {
			failures += check("loss", loss, v, tol);
			seen++;
			continue;
		}
		if (sscanf(line, "%31s %127s %lf", kind, name, &v) != 3)
			continue;
		int idx = -1;
		for (int i = 0; i < model_num_tensors(m); i++)
			if (strcmp(model_tensor(m, i)->name, name) == 0)
				idx = i;
		if (idx < 0 || idx >= 16) {
			printf("FAIL unknown tensor '%s'\n", name);
			failures++;
			continue;
		}
		const struct model_tensor *t = model_tensor(m, idx);
		char what[200];
		snprintf(what, sizeof(what), "%s|%s|", kind, name);
		if (strcmp(kind, "grad") == 0)
			failures += check(what, gn[idx], v, tol);
		else
			failures += check(what, norm(model_params(m) + t->offset, t->count), v, tol);
		seen++;
	}
	fclose(f);
	if (seen != 1 + 2 * model_num_tensors(m)) {
		printf("FAIL expected.txt has %d figures, want %d\n", seen,
		       1 + 2 * model_num_tensors(m));
		failures++;
	}
	optim_free(o);
	free(x);
	model_free(m);
	tpool_shutdown();
	diag_release(&d);
	return failures ? 1 : 0;
}
