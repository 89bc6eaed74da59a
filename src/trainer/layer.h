/* layer.h: the layer vtable behind struct model (one layer type per file:
 * layer-conv.c, layer-dense.c, layer-relu.c, layer-maxpool.c,
 * layer-flatten.c). A layer maps n examples of shape in_c x in_h x in_w to
 * n examples of out_c x out_h x out_w (NCHW float32).
 *
 * Ownership: the model owns every layer; w/b/dw/db point into the model's
 * flat parameter and gradient buffers; priv is the layer's own scratch,
 * freed by ops->release. */
#ifndef IMC_TRAINER_LAYER_H
#define IMC_TRAINER_LAYER_H

#include <stddef.h>

#include "util/diag.h"

/* Arguments from the spec line ("conv 32 5 pad 2"); 0 = not given. */
struct layer_args {
	int out;      /* output channels / features */
	int k;        /* kernel (conv) or window (pool) */
	int stride;
	int pad;
};

struct layer;

struct layer_ops {
	const char *kind;          /* spec keyword */
	const char *param_prefix;  /* "conv", "fc" or NULL (no parameters) */
	/* Forward is a plain copy (flatten): the model aliases the buffers
	 * instead of calling forward/backward. */
	int identity;
	/* Can apply a ReLU to its own output (l->relu), so that a following
	 * "relu" costs no extra pass over memory (the model fuses them). */
	int fuses_relu;
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

extern const struct layer_ops layer_conv_ops;
extern const struct layer_ops layer_dense_ops;
extern const struct layer_ops layer_relu_ops;
extern const struct layer_ops layer_maxpool_ops;
extern const struct layer_ops layer_flatten_ops;

/* Looks a layer type up by its spec keyword; NULL when unknown. */
const struct layer_ops *layer_ops_find(const char *kind);

#endif
