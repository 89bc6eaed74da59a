/* train-opts.h: the training options that --local and the distributed
 * roles share (--model ... --log-every, -v, -q): one struct, one set of
 * defaults, one parser, so that a flag means the same in every mode. */
#ifndef IMC_TRAINER_TRAIN_OPTS_H
#define IMC_TRAINER_TRAIN_OPTS_H

#include <getopt.h>
#include <stdbool.h>

struct diag;

struct train_opts {
	const char *model;
	const char *data_dir;       /* NULL: dataset_default_dir(dataset) */
	const char *dataset;
	long epochs;
	bool epochs_given;
	long steps;
	long batch;
	double lr;
	double momentum;
	long threads;
	unsigned long long seed;
	const char *checkpoint_dir;
	long checkpoint_every;
	bool resume;
	const char *metrics;
	const char *tensorboard;
	bool json;
	long eval_batch;
	long warmup;
	long log_every;
	bool quiet;
	int verbose;
};

#define TRAIN_OPTS_DEFAULTS                                                              \
	{ .model = "cnn", .dataset = "fashion-mnist", .epochs = 1, .batch = 64, .lr = 0.02, \
	  .momentum = 0.9, .threads = 2, .seed = 1, .eval_batch = 64, .warmup = 10,          \
	  .log_every = 100 }

enum {
	TRAIN_OPT_MODEL = 512, TRAIN_OPT_DATA, TRAIN_OPT_DATASET, TRAIN_OPT_EPOCHS,
	TRAIN_OPT_STEPS, TRAIN_OPT_BATCH, TRAIN_OPT_LR, TRAIN_OPT_MOMENTUM, TRAIN_OPT_THREADS,
	TRAIN_OPT_SEED, TRAIN_OPT_CKDIR, TRAIN_OPT_CKEVERY, TRAIN_OPT_RESUME, TRAIN_OPT_METRICS,
	TRAIN_OPT_TB, TRAIN_OPT_JSON, TRAIN_OPT_EVALB, TRAIN_OPT_WARMUP, TRAIN_OPT_LOGEVERY,
};

/* The getopt_long entries of the shared options, for a mode's table. */
#define TRAIN_LONGOPTS                                                          \
	{ "model", required_argument, NULL, TRAIN_OPT_MODEL },                  \
	{ "data", required_argument, NULL, TRAIN_OPT_DATA },                    \
	{ "data-dir", required_argument, NULL, TRAIN_OPT_DATA },                \
	{ "dataset", required_argument, NULL, TRAIN_OPT_DATASET },              \
	{ "epochs", required_argument, NULL, TRAIN_OPT_EPOCHS },                \
	{ "steps", required_argument, NULL, TRAIN_OPT_STEPS },                  \
	{ "max-steps", required_argument, NULL, TRAIN_OPT_STEPS },              \
	{ "batch", required_argument, NULL, TRAIN_OPT_BATCH },                  \
	{ "lr", required_argument, NULL, TRAIN_OPT_LR },                        \
	{ "momentum", required_argument, NULL, TRAIN_OPT_MOMENTUM },            \
	{ "threads", required_argument, NULL, TRAIN_OPT_THREADS },              \
	{ "seed", required_argument, NULL, TRAIN_OPT_SEED },                    \
	{ "checkpoint-dir", required_argument, NULL, TRAIN_OPT_CKDIR },         \
	{ "checkpoint-every", required_argument, NULL, TRAIN_OPT_CKEVERY },     \
	{ "resume", no_argument, NULL, TRAIN_OPT_RESUME },                      \
	{ "metrics", required_argument, NULL, TRAIN_OPT_METRICS },              \
	{ "tensorboard", required_argument, NULL, TRAIN_OPT_TB },               \
	{ "json", no_argument, NULL, TRAIN_OPT_JSON },                          \
	{ "eval-batch", required_argument, NULL, TRAIN_OPT_EVALB },             \
	{ "warmup-steps", required_argument, NULL, TRAIN_OPT_WARMUP },          \
	{ "log-every", required_argument, NULL, TRAIN_OPT_LOGEVERY },           \
	{ "quiet", no_argument, NULL, 'q' }
/* and "qv" in the short options */

/* Option c (from getopt_long) with its argument: 1 when it is a training
 * option and was taken, 0 when it is not one, -1 on a bad value (usage
 * error in d). */
int train_opts_take(struct train_opts *o, int c, const char *arg, struct diag *d);
/* What must hold once all options are read (--resume needs
 * --checkpoint-dir). Returns 0 or -1. */
int train_opts_check(const struct train_opts *o, struct diag *d);

/* Option values: s must be a whole integer (or a number) within [lo, hi];
 * otherwise -1 with a usage error naming opt. */
int trainer_parse_long(const char *opt, const char *s, long lo, long hi, long *out,
		       struct diag *d);
int trainer_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
			 struct diag *d);

#endif
