/* data.h: datasets for imc-train. Loads a split of Fashion-MNIST, MNIST (IDX
 * files, plain or gzip) or CIFAR-10 (binary version) from a directory as
 * the bytes the files hold (NCHW uint8 pixels plus uint8 labels); shards it
 * across workers; and cuts it into batches with a seeded fresh permutation
 * per epoch. Pixels become floats scaled to [0,1] (x/255, no mean/std
 * normalisation, as torch_reference.py) only when a batch is copied out:
 * a float copy of the whole set would be four times the bytes (219 MB for
 * Fashion-MNIST's training set) for values computed in one multiply.
 *
 * Files looked for in DIR:
 *   fashion-mnist, mnist: {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]
 *   cifar10: data_batch_{1..5}.bin / test_batch.bin, in DIR or in
 *            DIR/cifar-10-batches-bin
 * Malformed or truncated files are errors naming the file, never a crash.
 *
 * Ownership: a struct dataset owns x and y; a struct batcher borrows its
 * dataset (which must outlive it) and owns its permutation. */
#ifndef IMC_TRAINER_DATA_H
#define IMC_TRAINER_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

struct dataset {
	int n;              /* examples */
	int c, h, w;        /* shape of one example */
	int num_classes;
	uint8_t *x;         /* n*c*h*w pixels, NCHW, as stored in the files */
	uint8_t *y;         /* n labels */
};

/* kind: "fashion-mnist", "mnist" or "cifar10"; dir NULL: dataset_default_dir(kind).
 * Returns 0 or -1. */
int dataset_load(struct dataset *ds, const char *dir, const char *kind, bool train,
		 struct diag *d);
void dataset_release(struct dataset *ds);
static inline size_t dataset_example_size(const struct dataset *ds)
{
	return (size_t)ds->c * ds->h * ds->w;
}
/* Writes examples [first, first+count) as floats x/255 into x
 * (count*example floats). */
void dataset_get(const struct dataset *ds, int first, int count, float *x);
/* True when kind names a supported dataset. */
bool dataset_kind_valid(const char *kind);
/* Where a dataset is looked for when --data is not given:
 * /usr/share/datasets/KIND (Debian's dataset-fashion-mnist installs
 * /usr/share/datasets/fashion-mnist). */
const char *dataset_default_dir(const char *kind);

/* Readers used by dataset_load, exposed for tests. An IDX file must be type
 * 0x08 (uint8) with the given rank; *dims receives up to 4 dimensions.
 * The returned buffer is malloc'd. */
int data_read_idx(const char *path, int want_rank, uint8_t **data, uint32_t dims[4],
		  struct diag *d);
int data_read_cifar_file(const char *path, struct dataset *append, struct diag *d);

/* Shard: out receives a copy of the examples [index*n/count, (index+1)*n/count)
 * of in, so that the shards of count workers are disjoint and cover in.
 * Returns -1 (with an error) when index/count make no sense. */
int dataset_shard(struct dataset *out, const struct dataset *in, int index, int count,
		  struct diag *d);

/* Batching: each epoch a fresh permutation drawn from (seed, epoch), so a run
 * resumed at any step sees the same batches; floor(n/batch) full batches,
 * the remainder dropped. */
struct batcher {
	const struct dataset *ds;
	int batch;
	uint64_t seed;
	int epoch;          /* epoch of the current permutation, -1 = none */
	int *perm;
};

void batcher_init(struct batcher *b, const struct dataset *ds, int batch, uint64_t seed);
void batcher_release(struct batcher *b);
int batcher_steps_per_epoch(const struct batcher *b);
/* Copies batch number 'index' (0 <= index < steps_per_epoch) of epoch
 * 'epoch' (0-based) into x (batch*example floats) and y (batch labels). */
void batcher_get(struct batcher *b, int epoch, int index, float *x, uint8_t *y);
/* Examples [first, first+count) of that batch only: the slice one rank of
 * an all-reduce job trains on (0 <= first, first+count <= batch). */
void batcher_get_part(struct batcher *b, int epoch, int index, int first, int count, float *x,
		      uint8_t *y);

#endif
