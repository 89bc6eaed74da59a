/* train-local.c: imc-train --local: single-process training with the same data
 * order policy, hyper-parameters, measurements and summary keys as
 * torch_reference.py, plus checkpoints (save every N steps and at the end,
 * --resume continues the same trajectory) and metrics sinks. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "trainer/checkpoint.h"
#include "trainer/data.h"
#include "trainer/train-local.h"
#include "trainer/metrics.h"
#include "trainer/model.h"
#include "trainer/optim.h"
#include "trainer/summary.h"
#include "trainer/tpool.h"
#include "trainer/train-opts.h"
#include "util/diag.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"


void trainer_usage(FILE *fp)
{
	fputs("usage: imc-train [--local] [options]\n"
	      "       imc-train --role ps|chief|worker [options]   (distributed, see imc-train(1))\n"
	      "\n"
	      "Single-process training (the default mode):\n"
	      "  --model M            mlp, cnn or a model spec file (default cnn)\n"
	      "  --data DIR           dataset directory (default /usr/share/datasets/DATASET)\n"
	      "  --dataset D          fashion-mnist, mnist or cifar10 (default fashion-mnist)\n"
	      "  --epochs N           epochs to train (default 1)\n"
	      "  --steps N            stop after N optimizer steps in total (0 = no limit)\n"
	      "  --batch N            batch size (default 64)\n"
	      "  --lr X               learning rate (default 0.02)\n"
	      "  --momentum X         SGD momentum (default 0.9)\n"
	      "  --threads N          compute threads (default 2)\n"
	      "  --seed N             seed for initialisation and shuffling (default 1)\n"
	      "  --checkpoint-dir D   save a checkpoint in D at the end (and every N steps)\n"
	      "  --checkpoint-every N save every N steps (default 0: only at the end)\n"
	      "  --resume             continue from the checkpoint in --checkpoint-dir\n"
	      "  --metrics FILE       append JSON-lines metrics to FILE\n"
	      "  --tensorboard DIR    write a TensorBoard event file into DIR\n"
	      "  --log-every N        metrics/progress every N steps (default 100)\n"
	      "  --eval-batch N       evaluation batch (default 64)\n"
	      "  --warmup-steps N     steps excluded from the speed figures (default 10)\n"
	      "  --json               print a JSON summary line on stdout\n"
	      "  -q, --quiet          no progress on stderr\n"
	      "  -v                   more logging\n"
	      "  -h, --help           this help;  --version  the version\n",
	      fp);
}

enum { OPT_LOCAL = 256, OPT_VERSION };

/* Returns 0, 1 (help or version printed) or -1. */
static int parse_args(struct train_opts *o, int argc, char **argv, struct diag *d)
{
	static const struct option longopts[] = {
		{ "local", no_argument, NULL, OPT_LOCAL },
		TRAIN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hqv", longopts, NULL)) != -1) {
		const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "option";
		int r = train_opts_take(o, c, optarg, d);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_LOCAL: break;
		case OPT_VERSION:
			printf("imc-train %s\n", PACKAGE_VERSION);
			return 1;
		case 'h':
			trainer_usage(stdout);
			return 1;
		case ':':
			diag_error(d, IMC_EXIT_USAGE, NULL, "option '%s' needs a value", name);
			return -1;
		default:
			diag_error(d, IMC_EXIT_USAGE, NULL, "unknown option '%s' (see imc-train --help)",
				   name);
			return -1;
		}
	}
	if (optind < argc) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return train_opts_check(o, d);
}

static int ensure_dir(const char *dir, struct diag *d)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

struct run {
	struct train_opts o;
	struct dataset train, test;
	struct model *model;
	struct optim *opt;
	struct metrics *metrics;
	struct batcher batcher;
	char *ckpt;
};

static int save(struct run *r, uint64_t step, struct diag *d)
{
	struct checkpoint_meta meta = { step, r->o.seed, r->o.lr, r->o.momentum };
	return checkpoint_save(r->ckpt, r->model, model_params(r->model), r->opt->velocity,
			       &meta, d);
}

static int train(struct run *r, struct diag *d, double t_main)
{
	struct train_opts *o = &r->o;
	int rc = -1;
	int max_batch = (int)(o->batch > o->eval_batch ? o->batch : o->eval_batch);
	r->model = model_new(o->model, max_batch, d);
	if (!r->model)
		return -1;
	double t0 = trainer_wall_now();
	if (dataset_load(&r->train, o->data_dir, o->dataset, true, d) < 0 ||
	    dataset_load(&r->test, o->data_dir, o->dataset, false, d) < 0)
		return -1;
	double data_load_seconds = trainer_wall_now() - t0;
	struct model *m = r->model;
	if (model_check_dataset(m, &r->train, o->dataset, d) < 0)
		return -1;
	if (r->train.n < o->batch) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "batch %ld is larger than the %d training examples",
			   o->batch, r->train.n);
		return -1;
	}
	size_t np = model_num_params(m);
	model_init_params(m, o->seed);
	r->opt = optim_new(np, (float)o->lr, (float)o->momentum);
	batcher_init(&r->batcher, &r->train, (int)o->batch, o->seed);
	long spe = batcher_steps_per_epoch(&r->batcher);
	long total = o->epochs * spe;
	if (o->steps > 0) {
		if (!o->epochs_given)
			total = o->steps;
		else if (o->steps < total)
			total = o->steps;
	}
	uint64_t step = 0;
	if (o->checkpoint_dir) {
		if (ensure_dir(o->checkpoint_dir, d) < 0)
			return -1;
		r->ckpt = checkpoint_path(o->checkpoint_dir);
	}
	if (o->resume) {
		struct stat st;
		if (stat(r->ckpt, &st) == 0) {
			struct checkpoint_meta meta;
			if (checkpoint_load(r->ckpt, m, model_params(m), r->opt->velocity, &meta, d) < 0)
				return -1;
			if (meta.seed != o->seed) {
				diag_error(d, IMC_EXIT_USAGE, NULL,
					   "checkpoint '%s' was made with --seed %llu, not %llu",
					   r->ckpt, (unsigned long long)meta.seed, o->seed);
				return -1;
			}
			step = meta.step;
			fprintf(stderr, "resuming from '%s' at step %llu\n", r->ckpt,
					(unsigned long long)step);
		} else if (!o->quiet) {
			fprintf(stderr, "no checkpoint in '%s': starting from scratch\n",
				o->checkpoint_dir);
		}
	}
	if (o->metrics || o->tensorboard) {
		r->metrics = metrics_open(o->metrics, o->tensorboard, d);
		if (!r->metrics)
			return -1;
	}
	if (!o->quiet) {
		char desc[256];
		model_describe(m, desc, sizeof(desc));
		fprintf(stderr,
			"%s; %d train / %d test, batch %ld, %ld steps/epoch, lr %g, momentum %g, "
			"threads %d, data load %.2fs\n",
			desc, r->train.n, r->test.n, o->batch, spe, o->lr, o->momentum,
			tpool_threads(), data_load_seconds);
	}

	size_t esz = dataset_example_size(&r->train);
	float *xb = xmalloc((size_t)o->batch * esz * sizeof(float));
	uint8_t *yb = xmalloc((size_t)o->batch);
	double *step_times = xcalloc((size_t)(total > 0 ? total : 1), sizeof(double));
	size_t nst = 0;
	double timed_seconds = 0, train_cpu = 0, train_wall = 0, last_loss = NAN;
	long timed_examples = 0, steps_run = 0;
	bool diverged = false;
	struct strbuf accs = STRBUF_INIT;
	double log_loss = 0, log_t = 0;
	long log_n = 0;
	strbuf_addch(&accs, '[');
	int nacc = 0;

	while ((long)step < total && !diverged) {
		int epoch = (int)(step / (uint64_t)spe);
		double loss_sum = 0;
		long loss_n = 0;
		double e_cpu = trainer_cpu_now(), e_wall = trainer_wall_now();
		while ((long)step < total) {
			int index = (int)(step % (uint64_t)spe);
			batcher_get(&r->batcher, epoch, index, xb, yb);
			double s0 = trainer_wall_now();
			float loss = model_forward_backward(m, xb, yb, (int)o->batch);
			optim_step(r->opt, model_params(m), model_grads(m));
			double dt = trainer_wall_now() - s0;
			step++;
			steps_run++;
			if (steps_run > o->warmup) {
				timed_seconds += dt;
				timed_examples += o->batch;
				step_times[nst++] = dt;
			}
			loss_sum += loss;
			loss_n++;
			log_loss += loss;
			log_t += dt;
			log_n++;
			if (!isfinite(loss_sum))
				diverged = true;
			if (log_n == o->log_every || diverged) {
				metrics_step(r->metrics, step, (double)step / spe, log_loss / log_n,
					     log_t > 0 ? log_n * o->batch / log_t : NAN);
				if (o->verbose)
					fprintf(stderr, "step %llu: loss %.4f\n",
						(unsigned long long)step, log_loss / log_n);
				log_loss = log_t = 0;
				log_n = 0;
			}
			if (r->ckpt && o->checkpoint_every > 0 &&
			    step % (uint64_t)o->checkpoint_every == 0 && (long)step < total &&
			    save(r, step, d) < 0)
				goto out;
			if (diverged || step % (uint64_t)spe == 0)
				break;
		}
		train_cpu += trainer_cpu_now() - e_cpu;
		train_wall += trainer_wall_now() - e_wall;
		last_loss = loss_sum / (loss_n ? loss_n : 1);
		if (step % (uint64_t)spe == 0 && !diverged) {
			double tl = 0;
			int correct = model_evaluate(m, &r->test, &tl);
			double acc = (double)correct / r->test.n;
			strbuf_addf(&accs, "%s%.4f", nacc++ ? ", " : "", acc);
			metrics_eval(r->metrics, step, (double)step / spe, acc, tl / r->test.n);
			if (!o->quiet)
				fprintf(stderr,
					"epoch %d: train loss %.4f, test acc %.4f, %.0f train ex/s so "
					"far, %.1fs\n",
					epoch + 1, last_loss, acc,
					timed_seconds > 0 ? timed_examples / timed_seconds : NAN,
					trainer_wall_now() - t_main);
		}
	}
	strbuf_addch(&accs, ']');
	if (r->ckpt && save(r, step, d) < 0)
		goto out;

	/* Final evaluation, timed forward-only as the reference does. */
	double f_cpu = trainer_cpu_now(), f_wall = trainer_wall_now(), test_loss = 0;
	int correct = model_evaluate(m, &r->test, &test_loss);
	double fwd_seconds = trainer_wall_now() - f_wall, fwd_cpu = trainer_cpu_now() - f_cpu;
	double acc = (double)correct / r->test.n;
	test_loss /= r->test.n;
	metrics_eval(r->metrics, step, (double)step / spe, acc, test_loss);
	if (metrics_close(r->metrics, d) < 0) {
		r->metrics = NULL;
		goto out;
	}
	r->metrics = NULL;

	double median = trainer_median(step_times, nst);
	double eps = timed_seconds > 0 ? timed_examples / timed_seconds : NAN;
	if (!o->quiet)
		fprintf(stderr, "final: test acc %.4f, %.1f train ex/s, %.1f infer ex/s, peak RSS %.1f MiB\n",
			acc, eps, r->test.n / fwd_seconds, trainer_peak_rss_mib());
	if (o->json) {
		struct train_summary sum = {
			.model = model_name(m), .params = np, .batch = o->batch,
			.threads = tpool_threads(), .lr = o->lr, .momentum = o->momentum,
			.seed = o->seed, .steps = (unsigned long long)step,
			.epochs = (double)step / spe,
			.train_examples_per_sec = eps,
			.train_examples_per_sec_median_step = o->batch / median,
			.infer_examples_per_sec = r->test.n / fwd_seconds,
			.infer_examples_per_cpu_sec = r->test.n / fwd_cpu,
			.eval_batch = o->eval_batch, .test_accuracy = acc, .test_loss = test_loss,
			.epoch_test_accuracy = strbuf_str(&accs), .train_loss_last_epoch = last_loss,
			.diverged = diverged, .wall_seconds = trainer_wall_now() - t_main,
			.data_load_seconds = data_load_seconds,
			.train_cpu_util = train_wall > 0 ? train_cpu / train_wall : NAN,
			.train_examples_per_cpu_sec =
				train_cpu > 0 ? steps_run * o->batch / train_cpu : NAN,
		};
		struct strbuf sb = STRBUF_INIT;
		summary_open(&sb, &sum);
		strbuf_addstr(&sb, "}\n");
		fputs(strbuf_str(&sb), stdout);
		strbuf_release(&sb);
	}
	rc = diverged ? 1 : 0;
out:
	strbuf_release(&accs);
	free(step_times);
	free(xb);
	free(yb);
	return rc;
}

int trainer_local_main(int argc, char **argv)
{
	double t_main = trainer_wall_now();
	struct diag d = DIAG_INIT;
	struct run r;
	int rc;
	memset(&r, 0, sizeof(r));
	r.o = (struct train_opts)TRAIN_OPTS_DEFAULTS;
	diag_init(&d);
	rc = parse_args(&r.o, argc, argv, &d);
	if (rc != 0) {
		int code = rc > 0 ? IMC_EXIT_OK : d.code;
		diag_print(&d, stderr);
		diag_release(&d);
		return code;
	}
	log_init(r.o.verbose);
	tpool_set_threads((int)r.o.threads);
	rc = train(&r, &d, t_main);
	metrics_close(r.metrics, NULL);
	batcher_release(&r.batcher);
	optim_free(r.opt);
	model_free(r.model);
	dataset_release(&r.train);
	dataset_release(&r.test);
	free(r.ckpt);
	tpool_shutdown();
	if (rc < 0) {
		diag_print(&d, stderr);
		rc = d.code ? (int)d.code : IMC_EXIT_SOFTWARE;
	} else if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("imc-train: error: cannot write to stdout\n", stderr);
		rc = IMC_EXIT_IOERR;
	}
	diag_release(&d);
	return rc;
}
