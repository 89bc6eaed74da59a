/* train-opts.c: the training options shared by every imc-train mode
 * (train-opts.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "trainer/data.h"
#include "trainer/train-opts.h"
#include "util/diag.h"
#include "util/exitcode.h"
#include "util/banned.h"

int trainer_parse_long(const char *opt, const char *s, long lo, long hi, long *out,
		       struct diag *d)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "%s: expected an integer in [%ld, %ld], got '%s'",
			   opt, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

int trainer_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
			 struct diag *d)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "%s: expected a number in [%g, %g], got '%s'", opt,
			   lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

int train_opts_take(struct train_opts *o, int c, const char *arg, struct diag *d)
{
	long v;
	int r = 0;
	switch (c) {
	case TRAIN_OPT_MODEL: o->model = arg; break;
	case TRAIN_OPT_DATA: o->data_dir = arg; break;
	case TRAIN_OPT_DATASET:
		if (!dataset_kind_valid(arg)) {
			diag_error(d, IMC_EXIT_USAGE, NULL,
				   "--dataset: unknown dataset '%s' (fashion-mnist, mnist or cifar10)",
				   arg);
			return -1;
		}
		o->dataset = arg;
		break;
	case TRAIN_OPT_EPOCHS:
		r = trainer_parse_long("--epochs", arg, 1, 100000, &o->epochs, d);
		o->epochs_given = true;
		break;
	case TRAIN_OPT_STEPS: r = trainer_parse_long("--steps", arg, 0, 1000000000L, &o->steps, d); break;
	case TRAIN_OPT_BATCH: r = trainer_parse_long("--batch", arg, 1, 65536, &o->batch, d); break;
	/* the PS refuses an INIT outside (0, 100] */
	case TRAIN_OPT_LR: r = trainer_parse_double("--lr", arg, 1e-9, 100, &o->lr, d); break;
	case TRAIN_OPT_MOMENTUM:
		r = trainer_parse_double("--momentum", arg, 0.0, 0.999999, &o->momentum, d);
		break;
	case TRAIN_OPT_THREADS: r = trainer_parse_long("--threads", arg, 1, 256, &o->threads, d); break;
	case TRAIN_OPT_SEED:
		r = trainer_parse_long("--seed", arg, 0, 0x7fffffffffffffffL, &v, d);
		o->seed = (unsigned long long)v;
		break;
	case TRAIN_OPT_CKDIR: o->checkpoint_dir = arg; break;
	case TRAIN_OPT_CKEVERY:
		r = trainer_parse_long("--checkpoint-every", arg, 0, 1000000000L, &o->checkpoint_every, d);
		break;
	case TRAIN_OPT_RESUME: o->resume = true; break;
	case TRAIN_OPT_METRICS: o->metrics = arg; break;
	case TRAIN_OPT_TB: o->tensorboard = arg; break;
	case TRAIN_OPT_JSON: o->json = true; break;
	case TRAIN_OPT_EVALB: r = trainer_parse_long("--eval-batch", arg, 1, 65536, &o->eval_batch, d); break;
	case TRAIN_OPT_WARMUP:
		r = trainer_parse_long("--warmup-steps", arg, 0, 1000000000L, &o->warmup, d);
		break;
	case TRAIN_OPT_LOGEVERY:
		r = trainer_parse_long("--log-every", arg, 1, 1000000000L, &o->log_every, d);
		break;
	case 'q': o->quiet = true; break;
	case 'v': o->verbose++; break;
	default: return 0;
	}
	return r < 0 ? -1 : 1;
}

int train_opts_check(const struct train_opts *o, struct diag *d)
{
	if (o->resume && !o->checkpoint_dir) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "--resume needs --checkpoint-dir");
		return -1;
	}
	return 0;
}
