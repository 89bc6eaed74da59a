/* dist-train.c: imc-train --role chief|worker: the training loop of a
 * data-parallel worker against the parameter servers. Each worker trains on
 * its shard of the training set (dataset_shard by worker id), computes the
 * gradient of a batch locally, pushes it and receives the new parameters in
 * one exchange per step. The chief is worker 0 and also initialises the
 * parameters (or restores them from a checkpoint), evaluates on the test set
 * at every epoch end, checkpoints, writes the metrics and the summary, and
 * finally shuts the PSes down.
 *
 * Sync: a step is one PS round; every worker does the same number of steps
 * (epochs are counted on the smallest shard), so the PSes advance together.
 * Async: each worker walks its own epochs; the job stops when the PS step
 * (the number of updates applied) reaches the target. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "trainer/checkpoint.h"
#include "trainer/data.h"
#include "trainer/dist-internal.h"
#include "trainer/metrics.h"
#include "trainer/summary.h"
#include "trainer/tpool.h"
#include "trainer/ps-client.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "train"

struct job {
	const struct dist_opts *o;
	const struct cluster *cl;
	char who[32];
	long worker_id;
	size_t n_workers;
	bool chief;
	long batch;              /* per worker */
	struct dataset train, shard, test;
	struct model *m;
	struct wire_layout layout;
	struct ps_client wc;
	bool wc_open;
	struct batcher bt;
	bool bt_init;
	char *ckpt;
	float *snap_p, *snap_v;  /* chief: PS state for checkpoints */
	struct metrics *tb;
	FILE *jsonl;
	/* progress */
	double log_t, log_cpu;
	uint64_t log_step, log_in, log_out, log_own;
	uint64_t own_steps;
	/* this run's PUSHes: sent, answered with new parameters (applied by
	 * the PS), answered END (the job was over: not applied). Logged at the
	 * end so that the PS's count of applied pushes can be checked against
	 * the workers' (no gradient lost or applied twice). */
	uint64_t pushes_sent, pushes_applied, pushes_ended;
	uint64_t stale_sum, stale_n;
	uint32_t stale_max;
	double stats_t;
	uint64_t stats_examples;
};

/* Chief: fetches the PS state and writes the checkpoint. */
static int checkpoint(struct job *j, struct diag *d)
{
	uint64_t step;
	int rc = ps_client_state(&j->wc, j->snap_p, j->snap_v, &step, d);
	if (rc)
		return rc < 0 ? -1 : 0;
	struct checkpoint_meta meta = { step, j->o->t.seed, j->o->t.lr, j->o->t.momentum };
	if (checkpoint_save(j->ckpt, j->m, j->snap_p, j->snap_v, &meta, d) < 0)
		return -1;
	log_info(MOD, "%s: checkpoint at step %llu written to %s", j->who,
		 (unsigned long long)step, j->ckpt);
	return 0;
}

static void jsonl_line(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jsonl_line(struct job *j, const char *fmt, ...)
{
	if (!j->jsonl)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(j->jsonl, fmt, ap);
	va_end(ap);
	fputc('\n', j->jsonl);
	fflush(j->jsonl);
}

/* Chief: one metrics record (global step, job examples/s from the PS
 * counters, staleness in async mode). */
static int metrics_point(struct job *j, double epoch, double loss, struct diag *d)
{
	struct wire_stats st;
	int rc = ps_client_stats(&j->wc, &st, d);
	if (rc)
		return rc < 0 ? -1 : 0;
	double t = trainer_wall_now();
	double eps = t > j->stats_t ? (double)(st.examples - j->stats_examples) / (t - j->stats_t)
				    : NAN;
	j->stats_t = t;
	j->stats_examples = st.examples;
	double stale_mean = st.pushes ? (double)st.staleness_sum / (double)st.pushes : 0.0;
	metrics_step(j->tb, st.step, epoch, loss, eps);
	metrics_scalar(j->tb, st.step, "job/workers_live", j->wc.live_workers);
	if (j->o->mode == WIRE_MODE_ASYNC) {
		metrics_scalar(j->tb, st.step, "async/staleness_mean", stale_mean);
		metrics_scalar(j->tb, st.step, "async/staleness_max", st.staleness_max);
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"event\":\"step\",\"step\":%llu,\"epoch\":%.4f",
		    (unsigned long long)st.step, epoch);
	if (isfinite(loss))
		strbuf_addf(&sb, ",\"loss\":%.6f", loss);
	if (isfinite(eps))
		strbuf_addf(&sb, ",\"examples_per_sec\":%.1f", eps);
	strbuf_addf(&sb, ",\"global_step\":%llu,\"job_examples\":%llu,\"workers_live\":%u",
		    (unsigned long long)st.step, (unsigned long long)st.examples,
		    j->wc.live_workers);
	if (j->o->mode == WIRE_MODE_ASYNC)
		strbuf_addf(&sb, ",\"staleness_mean\":%.3f,\"staleness_max\":%u", stale_mean,
			    st.staleness_max);
	strbuf_addch(&sb, '}');
	jsonl_line(j, "%s", sb.buf);
	strbuf_release(&sb);
	return 0;
}

static void progress(struct job *j, bool final)
{
	double t = trainer_wall_now(), dt = t - j->log_t;
	if (dt <= 0)
		return;
	double steps = (double)(j->own_steps - j->log_own);
	double bout = (double)(j->wc.bytes_out - j->log_out), bin = (double)(j->wc.bytes_in - j->log_in);
	if (j->o->mode == WIRE_MODE_ASYNC)
		log_info(MOD, "%s: %sglobal step %llu, %.1f steps/s, %.0f ex/s, out %.1f MB/s, in %.1f MB/s, staleness mean %.2f max %u",
			 j->who, final ? "final: " : "", (unsigned long long)j->wc.step, steps / dt,
			 steps * (double)j->batch / dt, bout / dt / 1e6, bin / dt / 1e6,
			 j->stale_n ? (double)j->stale_sum / (double)j->stale_n : 0.0, j->stale_max);
	else
		log_info(MOD, "%s: %sstep %llu, %.1f steps/s, %.0f ex/s, out %.1f MB/s, in %.1f MB/s, %u workers",
			 j->who, final ? "final: " : "", (unsigned long long)j->wc.step, steps / dt,
			 steps * (double)j->batch / dt, bout / dt / 1e6, bin / dt / 1e6,
			 j->wc.live_workers);
	j->log_t = t;
	j->log_own = j->own_steps;
	j->log_out = j->wc.bytes_out;
	j->log_in = j->wc.bytes_in;
}

static int setup(struct job *j, struct diag *d)
{
	const struct dist_opts *o = j->o;
	if (o->global_batch) {
		if (o->t.batch % (long)j->n_workers) {
			diag_error(d, IMC_EXIT_USAGE, NULL,
				   "--global-batch: --batch %ld does not split evenly across %zu workers",
				   o->t.batch, j->n_workers);
			return -1;
		}
		j->batch = o->t.batch / (long)j->n_workers;
	} else {
		j->batch = o->t.batch;
	}
	if (dataset_load(&j->train, o->t.data_dir, o->t.dataset, true, d) < 0)
		return -1;
	if (dataset_shard(&j->shard, &j->train, (int)j->worker_id, (int)j->n_workers, d) < 0)
		return -1;
	if (j->chief && dataset_load(&j->test, o->t.data_dir, o->t.dataset, false, d) < 0)
		return -1;
	long maxb = j->batch > o->t.eval_batch ? j->batch : o->t.eval_batch;
	j->m = model_new(o->t.model, (int)maxb, d);
	if (!j->m)
		return -1;
	struct model *m = j->m;
	if (model_check_dataset(m, &j->train, o->t.dataset, d) < 0)
		return -1;
	if (dist_layout_from_model(m, &j->layout, d) < 0)
		return -1;
	batcher_init(&j->bt, &j->shard, (int)j->batch, o->t.seed);
	j->bt_init = true;
	if (j->chief && o->t.checkpoint_dir) {
		if (mkdir(o->t.checkpoint_dir, 0755) < 0 && errno != EEXIST) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s",
				   o->t.checkpoint_dir, strerror(errno));
			return -1;
		}
		j->ckpt = checkpoint_path(o->t.checkpoint_dir);
	}
	if (j->chief) {
		size_t np = model_num_params(m);
		j->snap_p = xmalloc(np * sizeof(float));
		j->snap_v = xcalloc(np, sizeof(float));
		if (o->t.tensorboard) {
			j->tb = metrics_open(NULL, o->t.tensorboard, d);
			if (!j->tb)
				return -1;
		}
		if (o->t.metrics) {
			j->jsonl = fopen(o->t.metrics, "a");
			if (!j->jsonl) {
				diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open '%s': %s", o->t.metrics,
					   strerror(errno));
				return -1;
			}
		}
	}
	struct worker_opts wo = {
		.role = (j->chief && j->cl->n_chief) ? WIRE_ROLE_CHIEF : WIRE_ROLE_WORKER,
		.task_index = o->index, .worker_id = j->worker_id, .mode = o->mode,
		.connect_timeout = o->connect_timeout, .rpc_timeout = o->rpc_timeout,
		.secret = &o->secret,
	};
	if (ps_client_open(&j->wc, j->cl, &j->layout, &wo, d) < 0)
		return -1;
	j->wc_open = true;
	return 0;
}

/* Chief: puts the initial (or restored) parameters on the PSes. */
static int chief_init(struct job *j, struct diag *d)
{
	const struct dist_opts *o = j->o;
	struct model *m = j->m;
	model_init_params(m, o->t.seed);
	uint64_t step = 0;
	const float *vel = NULL;
	if (o->t.resume) {
		struct stat st;
		if (stat(j->ckpt, &st) == 0) {
			struct checkpoint_meta meta;
			if (checkpoint_load(j->ckpt, m, model_params(m), j->snap_v, &meta, d) < 0)
				return -1;
			if (meta.seed != o->t.seed) {
				diag_error(d, IMC_EXIT_USAGE, NULL,
					   "checkpoint '%s' was made with --seed %llu, not %llu",
					   j->ckpt, (unsigned long long)meta.seed, o->t.seed);
				return -1;
			}
			step = meta.step;
			vel = j->snap_v;
			log_info(MOD, "%s: resuming from '%s' at step %llu", j->who, j->ckpt,
				 (unsigned long long)step);
		} else {
			log_info(MOD, "%s: no checkpoint in '%s': starting from scratch", j->who,
				 o->t.checkpoint_dir);
		}
	}
	if (j->wc.initialized) {
		log_warn(MOD, "%s: the parameter servers are already initialised (step %llu); joining",
			 j->who, (unsigned long long)j->wc.step);
		return 0;
	}
	int rc = ps_client_init(&j->wc, model_params(m), vel, step, (float)o->t.lr,
				(float)o->t.momentum, d);
	return rc < 0 ? -1 : 0;
}

static int run(struct job *j, struct diag *d, double t_main)
{
	const struct dist_opts *o = j->o;
	double t0 = trainer_wall_now();
	if (setup(j, d) < 0)
		return -1;
	double data_load_seconds = trainer_wall_now() - t0;
	struct model *m = j->m;
	size_t np = model_num_params(m);
	long W = (long)j->n_workers;
	long spe = (j->train.n / W) / j->batch;
	if (spe < 1) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "batch %ld is larger than a worker's shard (%d examples)", j->batch,
			   j->train.n / (int)W);
		return -1;
	}
	bool sync = o->mode == WIRE_MODE_SYNC;
	/* sync: steps are rounds; async: PS updates (one per push, all workers) */
	uint64_t total = (uint64_t)o->t.epochs * (uint64_t)spe * (sync ? 1 : (uint64_t)W);
	if (o->t.steps > 0 && (!o->t.epochs_given || (uint64_t)o->t.steps < total))
		total = (uint64_t)o->t.steps;
	uint64_t own_max = (!sync && (o->t.epochs_given || o->t.steps == 0))
				   ? (uint64_t)o->t.epochs * (uint64_t)spe : UINT64_MAX;
	if (j->chief && chief_init(j, d) < 0)
		return -1;
	int rc = ps_client_pull(&j->wc, model_params(m), d);
	if (rc < 0)
		return -1;
	bool ended_before_start = rc == 1; /* async: a short job, over before we came */
	uint64_t step = j->wc.step;
	j->own_steps = sync ? step : step / (uint64_t)W;
	char desc[256];
	model_describe(m, desc, sizeof(desc));
	log_info(MOD, "%s: %s; shard %d of %d examples, batch %ld (x%ld workers), %ld steps/epoch, %s, starting at step %llu of %llu",
		 j->who, desc, j->shard.n, j->train.n, j->batch, W, spe, sync ? "sync" : "async",
		 (unsigned long long)step, (unsigned long long)total);
	dataset_release(&j->train);

	size_t esz = dataset_example_size(&j->shard);
	float *xb = xmalloc((size_t)j->batch * esz * sizeof(float));
	uint8_t *yb = xmalloc((size_t)j->batch);
	size_t cap = 1024, nst = 0;
	double *step_times = xmalloc(cap * sizeof(double));
	double train_wall = 0, train_cpu = 0, last_loss = NAN, epoch_loss = 0;
	long epoch_n = 0, steps_run = 0;
	double log_loss = 0;
	long log_n = 0;
	bool diverged = false, ended = ended_before_start;
	struct strbuf accs = STRBUF_INIT;
	int nacc = 0;
	strbuf_addch(&accs, '[');
	j->log_t = j->stats_t = trainer_wall_now();
	int ret = -1;

	double tr_wall0 = trainer_wall_now(), tr_cpu0 = trainer_cpu_now();
	while (!diverged && !ended) {
		if (sync ? step >= total : (step >= total || j->own_steps >= own_max))
			break;
		uint64_t pos = sync ? step : j->own_steps;
		int epoch = (int)(pos / (uint64_t)spe), index = (int)(pos % (uint64_t)spe);
		batcher_get(&j->bt, epoch, index, xb, yb);
		double s0 = trainer_wall_now();
		float loss = model_forward_backward(m, xb, yb, (int)j->batch);
		j->pushes_sent++;
		rc = ps_client_push(&j->wc, model_grads(m), model_params(m), step,
				    (uint32_t)j->batch, loss, d);
		double dt = trainer_wall_now() - s0;
		if (rc < 0)
			goto out;
		if (rc > 0) {
			j->pushes_ended++;
			ended = true;
			break;
		}
		j->pushes_applied++;
		step = j->wc.step;
		j->own_steps++;
		steps_run++;
		if (!sync) {
			j->stale_sum += j->wc.staleness;
			j->stale_n++;
			if (j->wc.staleness > j->stale_max)
				j->stale_max = j->wc.staleness;
		}
		if (steps_run > o->t.warmup) {
			if (nst == cap) {
				cap *= 2;
				step_times = xreallocarray(step_times, cap, sizeof(double));
			}
			step_times[nst++] = dt;
		}
		if (!isfinite(loss))
			diverged = true;
		epoch_loss += loss;
		epoch_n++;
		log_loss += loss;
		log_n++;
		if (o->log_seconds > 0 && trainer_wall_now() - j->log_t >= o->log_seconds)
			progress(j, false);
		if (!j->chief)
			continue;
		uint64_t own = sync ? step : j->own_steps;
		if (log_n >= o->t.log_every) {
			if (metrics_point(j, (double)own / (double)spe, log_loss / (double)log_n, d) < 0)
				goto out;
			log_loss = 0;
			log_n = 0;
		}
		bool epoch_end = own % (uint64_t)spe == 0;
		if (epoch_end) {
			last_loss = epoch_loss / (double)(epoch_n ? epoch_n : 1);
			epoch_loss = 0;
			epoch_n = 0;
			double tl = 0;
			int correct = model_evaluate(m, &j->test, &tl);
			double acc = (double)correct / j->test.n;
			strbuf_addf(&accs, "%s%.4f", nacc++ ? ", " : "", acc);
			metrics_eval(j->tb, step, (double)own / (double)spe, acc, tl / j->test.n);
			jsonl_line(j, "{\"event\":\"eval\",\"step\":%llu,\"epoch\":%.4f,\"test_accuracy\":%.4f,\"test_loss\":%.4f}",
				   (unsigned long long)step, (double)own / (double)spe, acc,
				   tl / j->test.n);
			log_info(MOD, "%s: epoch %llu: train loss %.4f, test acc %.4f, global step %llu, %.1fs",
				 j->who, (unsigned long long)(own / (uint64_t)spe), last_loss, acc,
				 (unsigned long long)step, trainer_wall_now() - t_main);
		}
		if (j->ckpt && (epoch_end || (o->t.checkpoint_every > 0 &&
					      own % (uint64_t)o->t.checkpoint_every == 0))) {
			if (checkpoint(j, d) < 0)
				goto out;
		}
	}
	train_wall = trainer_wall_now() - tr_wall0;
	train_cpu = trainer_cpu_now() - tr_cpu0;
	if (epoch_n)
		last_loss = epoch_loss / (double)epoch_n;
	progress(j, true);
	log_info(MOD, "%s: pushes: %llu sent, %llu applied, %llu answered by the end of the job",
		 j->who, (unsigned long long)j->pushes_sent, (unsigned long long)j->pushes_applied,
		 (unsigned long long)j->pushes_ended);

	if (!j->chief) {
		if (!ended && ps_client_bye(&j->wc, d) < 0)
			goto out;
		log_info(MOD, "%s: done at global step %llu (%s)", j->who,
			 (unsigned long long)step, ended ? "ended by the chief" : "finished");
		ret = diverged ? 1 : 0;
		goto out;
	}

	/* chief: the final parameters, evaluation, checkpoint, metrics, shutdown */
	if (!sync && ps_client_pull(&j->wc, model_params(m), d) < 0)
		goto out;
	step = j->wc.step;
	strbuf_addch(&accs, ']');
	if (j->ckpt && checkpoint(j, d) < 0)
		goto out;
	double f_cpu = trainer_cpu_now(), f_wall = trainer_wall_now(), test_loss = 0;
	int correct = model_evaluate(m, &j->test, &test_loss);
	double fwd_seconds = trainer_wall_now() - f_wall, fwd_cpu = trainer_cpu_now() - f_cpu;
	double acc = (double)correct / j->test.n;
	test_loss /= j->test.n;
	metrics_eval(j->tb, step, (double)step / (double)spe, acc, test_loss);
	jsonl_line(j, "{\"event\":\"eval\",\"step\":%llu,\"epoch\":%.4f,\"test_accuracy\":%.4f,\"test_loss\":%.4f}",
		   (unsigned long long)step, (double)step / (double)spe, acc, test_loss);
	struct wire_stats st;
	if (ps_client_stats(&j->wc, &st, d) < 0)
		goto out;
	if (ps_client_shutdown(&j->wc, d) < 0)
		goto out;
	log_info(MOD, "%s: final: global step %llu, test acc %.4f, test loss %.4f; parameter servers shut down",
		 j->who, (unsigned long long)step, acc, test_loss);
	if (o->t.json) {
		double median = trainer_median(step_times, nst);
		long gbatch = j->batch * (sync ? W : 1);
		double job_eps = st.seconds > 0 && train_wall > 0 ? (double)st.examples / train_wall : NAN;
		struct train_summary sum = {
			.model = model_name(m), .params = np, .batch = o->t.batch,
			.threads = tpool_threads(), .lr = o->t.lr, .momentum = o->t.momentum,
			.seed = o->t.seed, .steps = (unsigned long long)step,
			.epochs = sync ? (double)step / (double)spe
				       : (double)st.examples / (double)(spe * j->batch * W),
			.train_examples_per_sec = job_eps,
			.train_examples_per_sec_median_step = (double)gbatch / median,
			.infer_examples_per_sec = j->test.n / fwd_seconds,
			.infer_examples_per_cpu_sec = j->test.n / fwd_cpu,
			.eval_batch = o->t.eval_batch, .test_accuracy = acc, .test_loss = test_loss,
			.epoch_test_accuracy = strbuf_str(&accs), .train_loss_last_epoch = last_loss,
			.diverged = diverged, .wall_seconds = trainer_wall_now() - t_main,
			.data_load_seconds = data_load_seconds,
			.train_cpu_util = train_wall > 0 ? train_cpu / train_wall : NAN,
			.train_examples_per_cpu_sec =
				train_cpu > 0 ? (double)(steps_run * j->batch) / train_cpu : NAN,
		};
		struct strbuf sb = STRBUF_INIT;
		summary_open(&sb, &sum);
		strbuf_addf(&sb, ", \"mode\": \"%s\", \"workers\": %ld, \"ps\": %zu, "
			    "\"worker_batch\": %ld, \"global_batch\": %ld, \"global_step\": %llu, "
			    "\"job_examples\": %llu",
			    sync ? "sync" : "async", W, j->cl->n_ps, j->batch, gbatch,
			    (unsigned long long)st.step, (unsigned long long)st.examples);
		summary_num(&sb, "job_examples_per_sec", job_eps, 1);
		if (!sync) {
			summary_num(&sb, "staleness_mean",
				    st.pushes ? (double)st.staleness_sum / (double)st.pushes : 0, 3);
			strbuf_addf(&sb, ", \"staleness_max\": %u", st.staleness_max);
		}
		strbuf_addf(&sb, ", \"workers_lost\": %u, \"rounds_short\": %llu, "
			    "\"bytes_sent\": %llu, \"bytes_received\": %llu, \"ps_bytes_in\": %llu, "
			    "\"ps_bytes_out\": %llu}\n",
			    st.workers_lost, (unsigned long long)st.rounds_short,
			    (unsigned long long)j->wc.bytes_out, (unsigned long long)j->wc.bytes_in,
			    (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out);
		fputs(strbuf_str(&sb), stdout);
		fflush(stdout);
		strbuf_release(&sb);
	}
	ret = diverged ? 1 : 0;
out:
	strbuf_release(&accs);
	free(step_times);
	free(xb);
	free(yb);
	return ret;
}

int dist_run_worker(const struct dist_opts *o, const struct cluster *cl, struct diag *d)
{
	double t_main = trainer_wall_now();
	struct job j;
	memset(&j, 0, sizeof(j));
	j.o = o;
	j.cl = cl;
	j.worker_id = cluster_worker_id(cl, o->role, o->index);
	j.n_workers = cluster_n_workers(cl);
	j.chief = j.worker_id == 0;
	snprintf(j.who, sizeof(j.who), "%s:%ld", o->role, o->index);
	int rc = run(&j, d, t_main);
	if (j.wc_open)
		ps_client_close(&j.wc);
	if (j.tb && metrics_close(j.tb, rc < 0 ? NULL : d) < 0 && rc >= 0)
		rc = -1;
	if (j.jsonl && fclose(j.jsonl) != 0 && rc >= 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", o->t.metrics,
			   strerror(errno));
		rc = -1;
	}
	if (j.bt_init)
		batcher_release(&j.bt);
	wire_layout_release(&j.layout);
	model_free(j.m);
	dataset_release(&j.train);
	dataset_release(&j.shard);
	dataset_release(&j.test);
	free(j.ckpt);
	free(j.snap_p);
	free(j.snap_v);
	return rc;
}
