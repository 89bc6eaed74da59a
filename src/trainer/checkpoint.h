/* checkpoint.h: imc-train's checkpoint files, so a run can stop and resume
 * on exactly the same trajectory.
 *
 * Format (all integers little-endian; floats IEEE-754 binary32 LE):
 *   offset size
 *   0      8    magic "IMCCKPT\0"
 *   8      4    u32 version (1)
 *   12     4    u32 header length H (bytes of the fields below, up to the
 *               tensor table)
 *   16     64   model name, NUL-padded
 *   80     8    u64 step (optimizer steps done)
 *   88     8    u64 seed
 *   96     8    f64 lr
 *   104    8    f64 momentum
 *   112    4    u32 number of tensors T
 *   116    4    u32 flags (bit 0: velocity present)
 *   120    ...  T tensor entries: u32 name length L, L name bytes, u32 ndim,
 *               ndim u32 dims
 *   ...    ...  all parameters (model_num_params floats, flat layout)
 *   ...    ...  velocity (same count), when flag bit 0 is set
 *   end-4  4    u32 CRC-32 (zlib's crc32) of every byte before it
 * Loading checks magic, version, model name, every tensor name and shape,
 * the total size and the checksum; any mismatch is an error naming the file.
 * Saving writes PATH.tmp, fsyncs and renames it over PATH (atomic). */
#ifndef IMC_TRAINER_CHECKPOINT_H
#define IMC_TRAINER_CHECKPOINT_H

#include <stdint.h>

#include "trainer/model.h"
#include "util/diag.h"

#define CHECKPOINT_MAGIC "IMCCKPT"
#define CHECKPOINT_VERSION 1

struct checkpoint_meta {
	uint64_t step;
	uint64_t seed;
	double lr;
	double momentum;
};

/* params: model_num_params(m) floats (need not be model_params(m), so a
 * parameter server can save what it holds); velocity may be NULL. */
int checkpoint_save(const char *path, const struct model *m, const float *params,
		    const float *velocity, const struct checkpoint_meta *meta,
		    struct diag *d);
/* Fills params and (when not NULL) velocity; a checkpoint without velocity
 * loads zeros into it. */
int checkpoint_load(const char *path, const struct model *m, float *params,
		    float *velocity, struct checkpoint_meta *meta, struct diag *d);
/* "DIR/checkpoint.imcckpt" (malloc'd): the file --checkpoint-dir uses. */
char *checkpoint_path(const char *dir);

#endif
