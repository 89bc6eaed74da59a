/* metrics.c: the metrics sinks of imc-train: JSON lines for scripts and a
 * TensorBoard event file (framing in tensorboard.c), see metrics.h. Write
 * errors are remembered and reported once, by metrics_close(). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "trainer/metrics.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct metrics {
	FILE *json;
	char *json_path;
	FILE *tb;
	char *tb_path;
	int failed;
};

static double now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void tb_scalar(struct metrics *m, uint64_t step, const char *tag, double v)
{
	uint8_t buf[1200];
	if (!m->tb)
		return;
	size_t n = tb_encode_event(buf, sizeof(buf), now(), (int64_t)step, tag, (float)v);
	if (n == 0 || tb_write_record(m->tb, buf, n) < 0)
		m->failed = 1;
}

struct metrics *metrics_open(const char *jsonl_path, const char *tb_dir, struct diag *d)
{
	struct metrics *m = xcalloc(1, sizeof(*m));
	if (jsonl_path) {
		m->json_path = xstrdup(jsonl_path);
		m->json = fopen(jsonl_path, "a");
		if (!m->json) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open metrics file '%s': %s",
				   jsonl_path, strerror(errno));
			goto fail;
		}
	}
	if (tb_dir) {
		char host[256] = "localhost";
		uint8_t buf[64];
		if (mkdir(tb_dir, 0755) < 0 && errno != EEXIST) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s", tb_dir,
				   strerror(errno));
			goto fail;
		}
		gethostname(host, sizeof(host) - 1);
		host[sizeof(host) - 1] = '\0';
		m->tb_path = xasprintf("%s/events.out.tfevents.%lld.%s.%ld.imc-train", tb_dir,
				       (long long)now(), host, (long)getpid());
		m->tb = fopen(m->tb_path, "wb");
		if (!m->tb) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s", m->tb_path,
				   strerror(errno));
			goto fail;
		}
		size_t n = tb_encode_event(buf, sizeof(buf), now(), 0, NULL, 0.0f);
		if (tb_write_record(m->tb, buf, n) < 0)
			m->failed = 1;
	}
	return m;
fail:
	metrics_close(m, NULL);
	return NULL;
}

static void json_num(FILE *fp, const char *key, double v)
{
	if (isfinite(v))
		fprintf(fp, ",\"%s\":%.6g", key, v);
	else
		fprintf(fp, ",\"%s\":null", key);
}

void metrics_step(struct metrics *m, uint64_t step, double epoch, double loss,
		  double examples_per_sec)
{
	if (!m)
		return;
	if (m->json) {
		fprintf(m->json, "{\"event\":\"step\",\"step\":%llu", (unsigned long long)step);
		json_num(m->json, "epoch", epoch);
		json_num(m->json, "loss", loss);
		json_num(m->json, "examples_per_sec", examples_per_sec);
		fputs("}\n", m->json);
		/* imc reads the file while the job runs (its progress lines):
		 * a step line must be there when written, not at the epoch's end */
		fflush(m->json);
	}
	tb_scalar(m, step, "train/loss", loss);
	tb_scalar(m, step, "train/examples_per_sec", examples_per_sec);
}

void metrics_eval(struct metrics *m, uint64_t step, double epoch, double accuracy,
		  double loss)
{
	if (!m)
		return;
	if (m->json) {
		fprintf(m->json, "{\"event\":\"eval\",\"step\":%llu", (unsigned long long)step);
		json_num(m->json, "epoch", epoch);
		json_num(m->json, "test_accuracy", accuracy);
		json_num(m->json, "test_loss", loss);
		fputs("}\n", m->json);
		fflush(m->json);
	}
	tb_scalar(m, step, "test/accuracy", accuracy);
	tb_scalar(m, step, "test/loss", loss);
	if (m->tb)
		fflush(m->tb);
}

void metrics_scalar(struct metrics *m, uint64_t step, const char *tag, double value)
{
	if (m)
		tb_scalar(m, step, tag, value);
}

int metrics_close(struct metrics *m, struct diag *d)
{
	int rc = 0;
	if (!m)
		return 0;
	if (m->json && (ferror(m->json) | fclose(m->json)))
		m->failed = 1;
	if (m->tb && (ferror(m->tb) | fclose(m->tb)))
		m->failed = 1;
	if (m->failed && d) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "error writing metrics to '%s'",
			   m->json_path ? m->json_path : m->tb_path);
		rc = -1;
	}
	free(m->json_path);
	free(m->tb_path);
	free(m);
	return rc;
}
