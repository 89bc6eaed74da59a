/* summary.h: imc-train's --json summary line and the measurements behind
 * it, shared by the single-process (train-local.c) and the distributed
 * (dist-train.c) training loops so that both print torch_reference.py's
 * keys in its order with the same formatting.
 *
 * summary_open() appends '{' and the reference's keys, then "torch": null,
 * "imc_train" and "libs" (the BLAS libraries mapped into the process); the
 * caller may append its own keys (summary_num, strbuf_addf) and closes the
 * object with '}'. */
#ifndef IMC_TRAINER_SUMMARY_H
#define IMC_TRAINER_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

struct train_summary {
	const char *model;
	size_t params;
	long batch;
	int threads;
	double lr, momentum;
	unsigned long long seed;
	unsigned long long steps;
	double epochs;
	double train_examples_per_sec;
	double train_examples_per_sec_median_step;
	double infer_examples_per_sec;
	double infer_examples_per_cpu_sec;
	long eval_batch;
	double test_accuracy, test_loss;
	const char *epoch_test_accuracy; /* a JSON array */
	double train_loss_last_epoch;
	bool diverged;
	double wall_seconds, data_load_seconds;
	double train_cpu_util, train_examples_per_cpu_sec;
};

void summary_open(struct strbuf *sb, const struct train_summary *s);
/* , "key": v with the given digits, or null when v is not finite. */
void summary_num(struct strbuf *sb, const char *key, double v, int digits);

/* Monotonic wall clock and process CPU time, in seconds. */
double trainer_wall_now(void);
double trainer_cpu_now(void);
double trainer_peak_rss_mib(void);
/* Median of v[0..n) (sorts v); NAN when n is 0. */
double trainer_median(double *v, size_t n);

#endif
