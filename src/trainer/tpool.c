/* tpool.c: a small pthread pool that runs one parallel job at a time
 * (tpool_run), the calling thread taking part. Idle workers block on a
 * condition variable rather than spin: on a shared 2-core host a spinning
 * team member steals the core its preempted partner needs, and a step
 * then waits a whole scheduler slice for it. OpenBLAS is pinned to one thread here so the
 * two pools never compete. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef HAVE_OPENBLAS
#include <cblas.h>
#endif

#include "trainer/tpool.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define TPOOL_MAX 256

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work;
	pthread_cond_t done;
	pthread_t *threads;
	int nworkers;            /* threads besides the caller */
	uint64_t gen;
	void (*fn)(void *ctx, int i, int ntasks);
	void *ctx;
	int ntasks, next, pending;
	bool stop;
	bool blas_pinned;
} pool = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/* Takes and runs tasks of the current job until none is left; mu held on
 * entry and exit. */
static void drain(void)
{
	while (pool.next < pool.ntasks) {
		int i = pool.next++;
		void (*fn)(void *, int, int) = pool.fn;
		void *ctx = pool.ctx;
		int nt = pool.ntasks;
		pthread_mutex_unlock(&pool.mu);
		fn(ctx, i, nt);
		pthread_mutex_lock(&pool.mu);
		if (--pool.pending == 0)
			pthread_cond_broadcast(&pool.done);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	uint64_t seen = 0;
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		while (pool.gen == seen && !pool.stop)
			pthread_cond_wait(&pool.work, &pool.mu);
		if (pool.stop)
			break;
		seen = pool.gen;
		drain();
	}
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

static void pin_blas(void)
{
	if (pool.blas_pinned)
		return;
	pool.blas_pinned = true;
#ifdef HAVE_OPENBLAS
	openblas_set_num_threads(1);
#endif
}

void tpool_shutdown(void)
{
	pthread_mutex_lock(&pool.mu);
	pool.stop = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.mu);
	for (int i = 0; i < pool.nworkers; i++)
		pthread_join(pool.threads[i], NULL);
	free(pool.threads);
	pool.threads = NULL;
	pool.nworkers = 0;
	pool.stop = false;
}

void tpool_set_threads(int n)
{
	pin_blas();
	if (n < 1)
		n = 1;
	if (n > TPOOL_MAX)
		n = TPOOL_MAX;
	if (n - 1 == pool.nworkers)
		return;
	tpool_shutdown();
	pool.threads = xcalloc((size_t)n, sizeof(*pool.threads));
	for (int i = 0; i < n - 1; i++) {
		if (pthread_create(&pool.threads[i], NULL, worker, NULL) != 0)
			break; /* fewer threads: slower, still correct */
		pool.nworkers++;
	}
}

int tpool_threads(void)
{
	return pool.nworkers + 1;
}

void tpool_run(int ntasks, void (*fn)(void *ctx, int i, int ntasks), void *ctx)
{
	pin_blas();
	if (ntasks <= 0)
		ntasks = tpool_threads();
	if (pool.nworkers == 0 || ntasks == 1) {
		for (int i = 0; i < ntasks; i++)
			fn(ctx, i, ntasks);
		return;
	}
	pthread_mutex_lock(&pool.mu);
	pool.fn = fn;
	pool.ctx = ctx;
	pool.ntasks = ntasks;
	pool.next = 0;
	pool.pending = ntasks;
	pool.gen++;
	pthread_cond_broadcast(&pool.work);
	drain();
	while (pool.pending > 0)
		pthread_cond_wait(&pool.done, &pool.mu);
	pthread_mutex_unlock(&pool.mu);
}

void tpool_range(size_t n, int i, int ntasks, size_t *lo, size_t *hi)
{
	*lo = n * (size_t)i / (size_t)ntasks;
	*hi = n * (size_t)(i + 1) / (size_t)ntasks;
}
