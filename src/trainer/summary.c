/* summary.c: see summary.h. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "trainer/summary.h"
#include "util/banned.h"

double trainer_wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double trainer_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double trainer_peak_rss_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double trainer_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void summary_num(struct strbuf *sb, const char *key, double v, int digits)
{
	if (isfinite(v))
		strbuf_addf(sb, ", \"%s\": %.*f", key, digits, v);
	else
		strbuf_addf(sb, ", \"%s\": null", key);
}

/* JSON array of the BLAS libraries mapped into the process (as the
 * reference's "libs"), so a figure says which kernels produced it. */
static void blas_libs_json(struct strbuf *sb)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[1024];
	char seen[8][512];
	int n = 0;
	strbuf_addch(sb, '[');
	while (fp && fgets(line, sizeof(line), fp)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!strstr(path, "blas") && !strstr(path, "lapack"))
			continue;
		char real[512];
		if (!realpath(path, real))
			snprintf(real, sizeof(real), "%s", path);
		int dup = 0;
		for (int i = 0; i < n; i++)
			if (strcmp(seen[i], real) == 0)
				dup = 1;
		if (dup || n == 8)
			continue;
		snprintf(seen[n], sizeof(seen[n]), "%s", real);
		strbuf_addf(sb, "%s\"%s\"", n ? ", " : "", real);
		n++;
	}
	if (fp)
		fclose(fp);
	strbuf_addch(sb, ']');
}

void summary_open(struct strbuf *sb, const struct train_summary *s)
{
	strbuf_addf(sb, "{\"format\": 1, \"model\": \"%s\", \"params\": %zu, \"batch\": %ld, "
		    "\"threads\": %d, \"lr\": %g, \"momentum\": %g, \"seed\": %llu, "
		    "\"steps\": %llu",
		    s->model, s->params, s->batch, s->threads, s->lr, s->momentum, s->seed, s->steps);
	summary_num(sb, "epochs", s->epochs, 3);
	summary_num(sb, "train_examples_per_sec", s->train_examples_per_sec, 1);
	summary_num(sb, "train_examples_per_sec_median_step", s->train_examples_per_sec_median_step, 1);
	summary_num(sb, "infer_examples_per_sec", s->infer_examples_per_sec, 1);
	summary_num(sb, "infer_examples_per_cpu_sec", s->infer_examples_per_cpu_sec, 1);
	strbuf_addf(sb, ", \"eval_batch\": %ld", s->eval_batch);
	summary_num(sb, "test_accuracy", s->test_accuracy, 4);
	summary_num(sb, "test_loss", s->test_loss, 4);
	strbuf_addf(sb, ", \"epoch_test_accuracy\": %s", s->epoch_test_accuracy);
	summary_num(sb, "train_loss_last_epoch", s->train_loss_last_epoch, 4);
	strbuf_addf(sb, ", \"diverged\": %s", s->diverged ? "true" : "false");
	summary_num(sb, "wall_seconds", s->wall_seconds, 2);
	summary_num(sb, "data_load_seconds", s->data_load_seconds, 2);
	summary_num(sb, "train_cpu_util", s->train_cpu_util, 2);
	summary_num(sb, "train_examples_per_cpu_sec", s->train_examples_per_cpu_sec, 1);
	summary_num(sb, "peak_rss_mib", trainer_peak_rss_mib(), 1);
	strbuf_addf(sb, ", \"torch\": null, \"imc_train\": \"%s\", \"libs\": ", PACKAGE_VERSION);
	blas_libs_json(sb);
}
