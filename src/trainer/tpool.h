/* tpool.h: the trainer's thread pool, for the work OpenBLAS does not
 * parallelise for us (im2col convolutions over the batch, elementwise
 * layers, the optimizer). OpenBLAS itself is kept single-threaded so that
 * the two pools never oversubscribe the cores; the workers sleep on a
 * condition variable between jobs instead of spinning, which keeps the
 * trainer well-behaved on a shared host.
 *
 * One global pool; tpool_set_threads() is called once by main (default 1).
 * tpool_run() must not be called from inside a task. */
#ifndef IMC_TRAINER_TPOOL_H
#define IMC_TRAINER_TPOOL_H

#include <stddef.h>

void tpool_set_threads(int n);
int tpool_threads(void);
/* Calls fn(ctx, i, ntasks) for i in [0, ntasks) across the pool and waits
 * for all of them. ntasks <= 0 means one task per thread. */
void tpool_run(int ntasks, void (*fn)(void *ctx, int i, int ntasks), void *ctx);
/* Splits [0, n) into ntasks near-equal ranges: range i is [*lo, *hi). */
void tpool_range(size_t n, int i, int ntasks, size_t *lo, size_t *hi);
/* Stops the workers (at exit; keeps valgrind quiet). */
void tpool_shutdown(void);

#endif
