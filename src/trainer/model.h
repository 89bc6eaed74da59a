/* model.h: a feed-forward network (a stack of layers built from a small text
 * spec, or one of the built-in specs "mlp" and "cnn" of torch_reference.py)
 * with its parameters and gradients each in ONE contiguous float buffer, so
 * that a parameter server can shard, push and pull them as flat arrays.
 *
 * Ownership: a struct model owns its layers, parameter, gradient and
 * activation buffers; model_params()/model_grads() return borrowed pointers
 * valid until model_free(). Not thread-safe: one model per thread of control
 * (internally it runs its math on the trainer thread pool, see tpool.h). */
#ifndef IMC_TRAINER_MODEL_H
#define IMC_TRAINER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

#define MODEL_MAX_DIMS 4

/* One parameter tensor: a slice of the flat buffers. Shapes are PyTorch's
 * (conv weight [out, in, kh, kw], linear weight [out, in], bias [out]), and
 * the tensors come in PyTorch's model.parameters() order, so the flat buffer
 * is the concatenation of torch's parameters. */
struct model_tensor {
	const char *name;   /* "conv1.weight", "fc2.bias", ... */
	int ndim;
	int shape[MODEL_MAX_DIMS];
	size_t count;       /* elements */
	size_t offset;      /* elements from the start of the flat buffer */
};

struct model;

/* name_or_spec_path: "mlp", "cnn" or the path of a spec file (model-spec.h
 * describes the format). max_batch bounds n in forward_backward (evaluate
 * takes any n). Returns NULL with an error in d. */
struct model *model_new(const char *name_or_spec_path, int max_batch, struct diag *d);
void model_free(struct model *m);

const char *model_name(const struct model *m);
size_t model_num_params(const struct model *m);
int model_num_tensors(const struct model *m);
const struct model_tensor *model_tensor(const struct model *m, int i);
float *model_params(struct model *m);
float *model_grads(struct model *m);

/* Input shape of one example (NCHW without N) and number of classes. */
int model_input_channels(const struct model *m);
int model_input_height(const struct model *m);
int model_input_width(const struct model *m);
size_t model_input_size(const struct model *m);   /* c*h*w */
int model_num_classes(const struct model *m);
int model_max_batch(const struct model *m);

/* 0 when the dataset's examples have the model's input shape and their
 * labels fit its classes; else -1 with an error (usage) naming both. */
struct dataset;
int model_check_dataset(const struct model *m, const struct dataset *ds, const char *dataset_name,
			struct diag *d);

/* PyTorch's default rule, written out as torch_reference.py does: every
 * weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in =
 * in_channels*kh*kw (conv) or in_features (linear). Deterministic in seed. */
void model_init_params(struct model *m, uint64_t seed);

/* x: n examples, NCHW float; y: n labels in [0, classes). 1 <= n <= max_batch.
 * Computes softmax cross-entropy, returns the mean loss and overwrites the
 * gradient buffer with d(mean loss)/d(params). Does not touch parameters. */
float model_forward_backward(struct model *m, const float *x, const uint8_t *y, int n);

/* Forward only over the whole dataset, in chunks of max_batch examples
 * (each converted to floats as it is needed: the set stays bytes). Returns
 * the number of correct top-1 predictions; adds the summed cross-entropy to
 * *loss_sum when loss_sum is not NULL. */
int model_evaluate(struct model *m, const struct dataset *ds, double *loss_sum);

/* A one-line human description ("cnn: 857738 params, input 1x28x28, ..."). */
void model_describe(const struct model *m, char *buf, size_t len);

#endif
