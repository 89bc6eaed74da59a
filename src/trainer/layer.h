/* layer.h: the layer vtable behind struct model. A layer maps n examples
 * of shape in_c x in_h x in_w to n examples of out_c x out_h x out_w (NCHW
 * float32).
 *
 * Each layer kind is one file, layer-NAME.c, ending with its const struct
 * layer_ops: its spec keyword, the grammar of its spec line (args[]), and
 * its operations. The model spec parser and the model are generic over
 * these; layer.c holds the one table of kinds. Adding a kind is its
 * layer-NAME.c plus its declaration and table entry in layer.c (and the
 * file in mk/trainer.mk).
 *
 * Ownership: the model owns every layer; w/b/dw/db point into the model's
 * flat parameter and gradient buffers; priv is the layer's own scratch,
 * freed by ops->release. */
#ifndef IMC_TRAINER_LAYER_H
#define IMC_TRAINER_LAYER_H

#include <stddef.h>

#include "util/diag.h"

/* Arguments from the spec line ("conv 32 5 pad 2"); 0 = not given (setup
 * picks the default). */
struct layer_args {
	int out;      /* output channels / features */
	int k;        /* kernel (conv) or window (pool) */
	int stride;
	int pad;
};

/* One argument of a layer's spec line: a number, either positional
 * (keyword NULL; positional arguments are required and come in table
 * order) or after its keyword ("stride 2"). The parser checks the range
 * and stores the value in the struct layer_args field at offset; checks
 * that involve the input shape are setup's. */
struct layer_arg {
	const char *keyword;
	size_t offset;             /* offsetof(struct layer_args, FIELD) */
	int min, max;
};

/* Ranges of the arguments the layer kinds take: sizes (channels,
 * features, kernels) and the small keyword options (stride, pad). */
#define LAYER_DIM_MAX 65536
#define LAYER_OPT_MAX 1024

struct layer;

struct layer_ops {
	const char *kind;          /* spec keyword */
	/* The grammar of the spec line after the keyword (NULL: none). */
	const struct layer_arg *args;
	int nargs;
	/* Parameter names are PREFIX + a count per prefix ("conv1", "fc2",
	 * torch_reference.py's module names); NULL: no parameters, named
	 * KIND + a count shared by all such layers. */
	const char *param_prefix;
	/* Forward is a plain copy (flatten): the model aliases the buffers
	 * instead of calling forward/backward. */
	int identity;
	/* Can apply a ReLU to its own output (l->relu), so that a following
	 * "relu" costs no extra pass over memory (the model fuses them). */
	int fuses_relu;
	/* Is a plain ReLU, which the model folds into a preceding layer that
	 * fuses_relu instead of running it as a layer of its own. */
	int is_relu;
	/* Checks args against the input shape (already in l->in_*), sets the
	 * output shape, nweight, nbias and fan_in. */
	int (*setup)(struct layer *l, const struct layer_args *a, struct diag *d);
	/* Allocates scratch for up to max_batch examples (may be NULL). */
	void (*prepare)(struct layer *l, int max_batch);
	void (*forward)(struct layer *l, const float *in, float *out, int n);
	/* dout: gradient w.r.t. out (after the fused ReLU, if any); writes
	 * dw/db (overwrite, not accumulate) and, when din is not NULL, the
	 * gradient w.r.t. in. */
	void (*backward)(struct layer *l, const float *in, const float *out,
			 const float *dout, float *din, int n);
	void (*release)(struct layer *l);
	/* Writes the weight tensor's shape in PyTorch's layout (at most 4
	 * dimensions, MODEL_MAX_DIMS) and returns the number of dimensions;
	 * NULL: [out_c, fan_in] (a linear layer's). */
	int (*weight_shape)(const struct layer *l, int *shape);
};

struct layer {
	const struct layer_ops *ops;
	char name[32];              /* "conv1", "fc2", "relu3", ... */
	int in_c, in_h, in_w;
	int out_c, out_h, out_w;
	int k, stride, pad;
	int relu;                   /* fused ReLU on the output (set by the model) */
	size_t nweight, nbias;
	int fan_in;
	float *w, *b, *dw, *db;
	int max_batch;
	void *priv;
};

static inline size_t layer_in_size(const struct layer *l)
{
	return (size_t)l->in_c * l->in_h * l->in_w;
}
static inline size_t layer_out_size(const struct layer *l)
{
	return (size_t)l->out_c * l->out_h * l->out_w;
}

/* Looks a layer kind up by its spec keyword (layer.c); NULL when
 * unknown. */
const struct layer_ops *layer_ops_find(const char *kind);

#endif
