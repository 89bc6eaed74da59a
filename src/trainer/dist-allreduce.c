/* dist-allreduce.c: imc-train --strategy allreduce: synchronous data-parallel
 * SGD without parameter servers. Every task (the chief, then the workers:
 * rank = worker id, size = their number) holds the whole model; each step
 * every rank takes its slice of the same global batch, computes the mean
 * gradient of its slice, the ranks sum the gradients with the ring
 * all-reduce (ring.h) straight in the model's gradient buffer, divide by
 * the number of ranks and apply the same SGD step. The result is the
 * single-process training of the global batch (train-local.c): the same
 * batches in the same order, the same update, up to the order in which
 * floats are summed.
 *
 * Rank 0 (the chief) evaluates, writes checkpoints, metrics and the
 * summary. On --resume it reads the checkpoint and hands it to the others
 * through the ring (they contribute zeros to a sum), so only rank 0 needs
 * the checkpoint directory. A lost rank ends every rank with exit 75. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trainer/checkpoint.h"
#include "trainer/data.h"
#include "trainer/dist-internal.h"
#include "trainer/metrics.h"
#include "trainer/optim.h"
#include "trainer/ring.h"
#include "trainer/summary.h"
#include "trainer/tpool.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "train"

struct arjob {
	const struct dist_opts *o;
	const struct cluster *cl;
	char who[32];
	int rank, size;
	long gbatch, batch;      /* the job's batch and this rank's slice of it */
	struct dataset train, test;
	struct model *m;
	struct optim *opt;
	struct batcher bt;
	bool bt_init;
	struct ring ring;
	bool ring_open;
	char **names;
	const char **addrs;
	char *ckpt;
	struct metrics *metrics;
};

/* names[i], addrs[i] of rank i: the chief first (when there is one), then
 * the workers, as cluster_worker_id numbers them. */
static void rank_table(struct arjob *j)
{
	const struct cluster *cl = j->cl;
	j->names = xcalloc((size_t)j->size, sizeof(*j->names));
	j->addrs = xcalloc((size_t)j->size, sizeof(*j->addrs));
	for (int i = 0; i < j->size; i++) {
		const char *role = cl->n_chief ? (i == 0 ? "chief" : "worker") : "worker";
		long index = cl->n_chief ? (i == 0 ? 0 : i - 1) : i;
		j->names[i] = xasprintf("%s:%ld", role, index);
		j->addrs[i] = cluster_addr(cl, role, index);
	}
}

static int save(struct arjob *j, uint64_t step, struct diag *d)
{
	struct checkpoint_meta meta = { step, j->o->t.seed, j->o->t.lr, j->o->t.momentum };
	if (checkpoint_save(j->ckpt, j->m, model_params(j->m), j->opt->velocity, &meta, d) < 0)
		return -1;
	log_info(MOD, "%s: checkpoint at step %llu written to %s", j->who,
		 (unsigned long long)step, j->ckpt);
	return 0;
}

/* Rank 0 loads the checkpoint (if --resume finds one); then the ring sums
 * rank 0's parameters, velocity and step with the others' zeros, which
 * hands them over exactly. The step travels as 16-bit pieces, each exact in
 * a float. Returns 0 with *step set, or -1. */
static int start_state(struct arjob *j, uint64_t *step, struct diag *d)
{
	const struct dist_opts *o = j->o;
	struct model *m = j->m;
	size_t np = model_num_params(m);
	float head[5] = { 0, 0, 0, 0, 0 }; /* status (1 ok, 2 failed), step pieces */
	uint64_t s = 0;
	model_init_params(m, o->t.seed);
	int lrc = 0;
	if (j->rank == 0 && o->t.resume) {
		struct stat st;
		if (stat(j->ckpt, &st) == 0) {
			struct checkpoint_meta meta;
			lrc = checkpoint_load(j->ckpt, m, model_params(m), j->opt->velocity, &meta, d);
			if (lrc == 0 && meta.seed != o->t.seed) {
				diag_error(d, IMC_EXIT_USAGE, NULL,
					   "checkpoint '%s' was made with --seed %llu, not %llu",
					   j->ckpt, (unsigned long long)meta.seed, o->t.seed);
				lrc = -1;
			}
			if (lrc == 0) {
				s = meta.step;
				log_info(MOD, "%s: resuming from '%s' at step %llu", j->who, j->ckpt,
					 (unsigned long long)s);
			}
		} else {
			log_info(MOD, "%s: no checkpoint in '%s': starting from scratch", j->who,
				 o->t.checkpoint_dir);
		}
	}
	if (j->size == 1) {
		*step = s;
		return lrc;
	}
	if (j->rank == 0) {
		head[0] = lrc < 0 ? 2.0f : 1.0f;
		for (int k = 0; k < 4; k++)
			head[1 + k] = (float)((s >> (16 * k)) & 0xffff);
	}
	struct diag sub = DIAG_INIT;
	if (ring_allreduce(&j->ring, head, 5, lrc < 0 ? &sub : d) < 0) {
		diag_release(&sub);
		return -1;
	}
	diag_release(&sub);
	if (lrc < 0)
		return -1;
	if (head[0] != 1.0f) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "rank 0 (%s) could not load its checkpoint",
			   j->names[0]);
		return -1;
	}
	s = 0;
	for (int k = 0; k < 4; k++)
		s |= (uint64_t)head[1 + k] << (16 * k);
	if (s > 0 || o->t.resume) {
		if (j->rank != 0) {
			memset(model_params(m), 0, np * sizeof(float));
			memset(j->opt->velocity, 0, np * sizeof(float));
		}
		if (ring_allreduce(&j->ring, model_params(m), np, d) < 0 ||
		    ring_allreduce(&j->ring, j->opt->velocity, np, d) < 0)
			return -1;
		if (j->rank != 0 && s > 0)
			log_info(MOD, "%s: resuming at step %llu with rank 0's checkpoint", j->who,
				 (unsigned long long)s);
	}
	*step = s;
	return 0;
}

static int setup(struct arjob *j, struct diag *d)
{
	const struct dist_opts *o = j->o;
	if (o->global_batch) {
		if (o->t.batch % j->size) {
			diag_error(d, IMC_EXIT_USAGE, NULL,
				   "--global-batch: --batch %ld does not split evenly across %d ranks",
				   o->t.batch, j->size);
			return -1;
		}
		j->gbatch = o->t.batch;
	} else {
		j->gbatch = o->t.batch * j->size;
	}
	j->batch = j->gbatch / j->size;
	/* every rank walks the whole training set's batches and takes its
	 * slice of each, so the batches are the single process's */
	if (dataset_load(&j->train, o->t.data_dir, o->t.dataset, true, d) < 0)
		return -1;
	if (j->rank == 0 && dataset_load(&j->test, o->t.data_dir, o->t.dataset, false, d) < 0)
		return -1;
	if (j->train.n < j->gbatch) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "batch %ld is larger than the %d training examples",
			   j->gbatch, j->train.n);
		return -1;
	}
	long maxb = j->batch > o->t.eval_batch ? j->batch : o->t.eval_batch;
	j->m = model_new(o->t.model, (int)maxb, d);
	if (!j->m || model_check_dataset(j->m, &j->train, o->t.dataset, d) < 0)
		return -1;
	j->opt = optim_new(model_num_params(j->m), (float)o->t.lr, (float)o->t.momentum);
	batcher_init(&j->bt, &j->train, (int)j->gbatch, o->t.seed);
	j->bt_init = true;
	if (j->rank == 0 && o->t.checkpoint_dir) {
		if (mkdir(o->t.checkpoint_dir, 0755) < 0 && errno != EEXIST) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s",
				   o->t.checkpoint_dir, strerror(errno));
			return -1;
		}
		j->ckpt = checkpoint_path(o->t.checkpoint_dir);
	}
	if (j->rank == 0 && (o->t.metrics || o->t.tensorboard)) {
		j->metrics = metrics_open(o->t.metrics, o->t.tensorboard, d);
		if (!j->metrics)
			return -1;
	}
	rank_table(j);
	struct ring_opts ro = {
		.connect_timeout = o->connect_timeout, .io_timeout = o->rpc_timeout,
		.check = model_num_params(j->m), .secret = &o->secret,
	};
	if (ring_open(&j->ring, j->rank, j->size, j->addrs, (const char *const *)j->names, -1,
		      &ro, d) < 0)
		return -1;
	j->ring_open = true;
	return 0;
}

static void summary(struct arjob *j, uint64_t step, long spe, double acc, double test_loss,
		    const char *accs, double last_loss, bool diverged, double eps,
		    double median, double fwd_s, double fwd_cpu, double t_main, double load_s,
		    double train_wall, double train_cpu, long steps_run)
{
	const struct dist_opts *o = j->o;
	struct train_summary sum = {
		.model = model_name(j->m), .params = model_num_params(j->m), .batch = o->t.batch,
		.threads = tpool_threads(), .lr = o->t.lr, .momentum = o->t.momentum,
		.seed = o->t.seed, .steps = (unsigned long long)step,
		.epochs = (double)step / (double)spe,
		.train_examples_per_sec = eps,
		.train_examples_per_sec_median_step = (double)j->gbatch / median,
		.infer_examples_per_sec = j->test.n / fwd_s,
		.infer_examples_per_cpu_sec = j->test.n / fwd_cpu,
		.eval_batch = o->t.eval_batch, .test_accuracy = acc, .test_loss = test_loss,
		.epoch_test_accuracy = accs, .train_loss_last_epoch = last_loss,
		.diverged = diverged, .wall_seconds = trainer_wall_now() - t_main,
		.data_load_seconds = load_s,
		.train_cpu_util = train_wall > 0 ? train_cpu / train_wall : NAN,
		.train_examples_per_cpu_sec =
			train_cpu > 0 ? (double)(steps_run * j->batch) / train_cpu : NAN,
	};
	struct strbuf sb = STRBUF_INIT;
	summary_open(&sb, &sum);
	strbuf_addf(&sb, ", \"mode\": \"sync\", \"strategy\": \"allreduce\", \"workers\": %d, "
		    "\"worker_batch\": %ld, \"global_batch\": %ld, \"global_step\": %llu, "
		    "\"bytes_sent\": %llu, \"bytes_received\": %llu}\n",
		    j->size, j->batch, j->gbatch, (unsigned long long)step,
		    (unsigned long long)j->ring.bytes_out, (unsigned long long)j->ring.bytes_in);
	fputs(strbuf_str(&sb), stdout);
	fflush(stdout);
	strbuf_release(&sb);
}

static int run(struct arjob *j, struct diag *d, double t_main)
{
	const struct dist_opts *o = j->o;
	double t0 = trainer_wall_now();
	if (setup(j, d) < 0)
		return -1;
	double load_s = trainer_wall_now() - t0;
	struct model *m = j->m;
	size_t np = model_num_params(m);
	long spe = batcher_steps_per_epoch(&j->bt);
	uint64_t total = (uint64_t)o->t.epochs * (uint64_t)spe;
	if (o->t.steps > 0 && (!o->t.epochs_given || (uint64_t)o->t.steps < total))
		total = (uint64_t)o->t.steps;
	uint64_t step;
	if (start_state(j, &step, d) < 0)
		return -1;
	char desc[256];
	model_describe(m, desc, sizeof(desc));
	log_info(MOD, "%s: %s; rank %d of %d, batch %ld of %ld, %ld steps/epoch, allreduce, starting at step %llu of %llu",
		 j->who, desc, j->rank, j->size, j->batch, j->gbatch, spe,
		 (unsigned long long)step, (unsigned long long)total);

	size_t esz = dataset_example_size(&j->train);
	float *xb = xmalloc((size_t)j->batch * esz * sizeof(float));
	uint8_t *yb = xmalloc((size_t)j->batch);
	size_t cap = 1024, nst = 0;
	double *step_times = xmalloc(cap * sizeof(double));
	double last_loss = NAN, epoch_loss = 0, log_loss = 0, timed_s = 0;
	long epoch_n = 0, log_n = 0, steps_run = 0, timed_ex = 0;
	bool diverged = false;
	struct strbuf accs = STRBUF_INIT;
	int nacc = 0, ret = -1;
	strbuf_addch(&accs, '[');
	double log_t = trainer_wall_now();
	uint64_t log_step = step, log_in = 0, log_out = 0;
	float scale = 1.0f / (float)j->size;
	double tr_wall0 = trainer_wall_now(), tr_cpu0 = trainer_cpu_now();
	while (step < total && !diverged) {
		int epoch = (int)(step / (uint64_t)spe), index = (int)(step % (uint64_t)spe);
		batcher_get_part(&j->bt, epoch, index, j->rank * (int)j->batch, (int)j->batch, xb, yb);
		double s0 = trainer_wall_now();
		float loss = model_forward_backward(m, xb, yb, (int)j->batch);
		float *g = model_grads(m);
		if (ring_allreduce(&j->ring, g, np, d) < 0 ||
		    ring_allreduce(&j->ring, &loss, 1, d) < 0)
			goto out;
		if (j->size > 1) {
			for (size_t i = 0; i < np; i++)
				g[i] *= scale;
			loss *= scale;
		}
		optim_step(j->opt, model_params(m), g);
		double dt = trainer_wall_now() - s0;
		step++;
		steps_run++;
		if (steps_run > o->t.warmup) {
			if (nst == cap) {
				cap *= 2;
				step_times = xreallocarray(step_times, cap, sizeof(double));
			}
			step_times[nst++] = dt;
			timed_s += dt;
			timed_ex += j->gbatch;
		}
		if (!isfinite(loss))
			diverged = true;
		epoch_loss += loss;
		epoch_n++;
		log_loss += loss;
		log_n++;
		double now = trainer_wall_now();
		if (o->log_seconds > 0 && now - log_t >= o->log_seconds) {
			double dts = now - log_t;
			log_info(MOD, "%s: step %llu, %.1f steps/s, %.0f ex/s, out %.1f MB/s, in %.1f MB/s, %d ranks",
				 j->who, (unsigned long long)step, (double)(step - log_step) / dts,
				 (double)(step - log_step) * (double)j->gbatch / dts,
				 (double)(j->ring.bytes_out - log_out) / dts / 1e6,
				 (double)(j->ring.bytes_in - log_in) / dts / 1e6, j->size);
			log_t = now;
			log_step = step;
			log_out = j->ring.bytes_out;
			log_in = j->ring.bytes_in;
		}
		if (j->rank != 0)
			continue;
		if (log_n >= o->t.log_every || diverged) {
			metrics_step(j->metrics, step, (double)step / (double)spe,
				     log_loss / (double)log_n,
				     timed_s > 0 ? (double)timed_ex / timed_s : NAN);
			log_loss = 0;
			log_n = 0;
		}
		bool epoch_end = step % (uint64_t)spe == 0;
		if (epoch_end && !diverged) {
			last_loss = epoch_loss / (double)(epoch_n ? epoch_n : 1);
			epoch_loss = 0;
			epoch_n = 0;
			double tl = 0;
			int correct = model_evaluate(m, &j->test, &tl);
			double acc = (double)correct / j->test.n;
			strbuf_addf(&accs, "%s%.4f", nacc++ ? ", " : "", acc);
			metrics_eval(j->metrics, step, (double)step / (double)spe, acc, tl / j->test.n);
			log_info(MOD, "%s: epoch %llu: train loss %.4f, test acc %.4f, step %llu, %.1fs",
				 j->who, (unsigned long long)(step / (uint64_t)spe), last_loss, acc,
				 (unsigned long long)step, trainer_wall_now() - t_main);
		}
		if (j->ckpt && step < total &&
		    (epoch_end || (o->t.checkpoint_every > 0 &&
				   step % (uint64_t)o->t.checkpoint_every == 0)) &&
		    save(j, step, d) < 0)
			goto out;
	}
	double train_wall = trainer_wall_now() - tr_wall0, train_cpu = trainer_cpu_now() - tr_cpu0;
	if (epoch_n)
		last_loss = epoch_loss / (double)epoch_n;
	strbuf_addch(&accs, ']');
	if (j->rank != 0) {
		log_info(MOD, "%s: done at step %llu", j->who, (unsigned long long)step);
		ret = diverged ? 1 : 0;
		goto out;
	}
	if (j->ckpt && save(j, step, d) < 0)
		goto out;
	double f_cpu = trainer_cpu_now(), f_wall = trainer_wall_now(), test_loss = 0;
	int correct = model_evaluate(m, &j->test, &test_loss);
	double fwd_s = trainer_wall_now() - f_wall, fwd_cpu = trainer_cpu_now() - f_cpu;
	double acc = (double)correct / j->test.n;
	test_loss /= j->test.n;
	metrics_eval(j->metrics, step, (double)step / (double)spe, acc, test_loss);
	log_info(MOD, "%s: final: step %llu, test acc %.4f, test loss %.4f", j->who,
		 (unsigned long long)step, acc, test_loss);
	if (o->t.json)
		summary(j, step, spe, acc, test_loss, strbuf_str(&accs), last_loss, diverged,
			timed_s > 0 ? (double)timed_ex / timed_s : NAN,
			trainer_median(step_times, nst), fwd_s, fwd_cpu, t_main, load_s, train_wall,
			train_cpu, steps_run);
	ret = diverged ? 1 : 0;
out:
	strbuf_release(&accs);
	free(step_times);
	free(xb);
	free(yb);
	return ret;
}

int dist_run_allreduce(const struct dist_opts *o, const struct cluster *cl, struct diag *d)
{
	double t_main = trainer_wall_now();
	struct arjob j;
	memset(&j, 0, sizeof(j));
	j.o = o;
	j.cl = cl;
	j.rank = (int)cluster_worker_id(cl, o->role, o->index);
	j.size = (int)cluster_n_workers(cl);
	snprintf(j.who, sizeof(j.who), "%s:%ld", o->role, o->index);
	int rc = run(&j, d, t_main);
	if (j.ring_open)
		ring_close(&j.ring);
	if (j.metrics && metrics_close(j.metrics, rc < 0 ? NULL : d) < 0 && rc >= 0)
		rc = -1;
	if (j.bt_init)
		batcher_release(&j.bt);
	for (int i = 0; j.names && i < j.size; i++)
		free(j.names[i]);
	free(j.names);
	free(j.addrs);
	optim_free(j.opt);
	model_free(j.m);
	dataset_release(&j.train);
	dataset_release(&j.test);
	free(j.ckpt);
	return rc;
}
