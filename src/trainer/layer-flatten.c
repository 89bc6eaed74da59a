/* layer-flatten.c: flatten C x H x W to C*H*W features, channel-major
 * (index c*H*W + h*W + w, as torch's flatten(1) on NCHW): a plain copy. */
#include "config.h"

#include <string.h>

#include "trainer/layer.h"
#include "util/banned.h"

static int flatten_setup(struct layer *l, const struct layer_args *a, struct diag *d)
{
	(void)a; (void)d;
	l->out_c = l->in_c * l->in_h * l->in_w;
	l->out_h = 1;
	l->out_w = 1;
	return 0;
}

static void flatten_forward(struct layer *l, const float *in, float *out, int n)
{
	memcpy(out, in, layer_in_size(l) * (size_t)n * sizeof(float));
}

static void flatten_backward(struct layer *l, const float *in, const float *out,
			     const float *dout, float *din, int n)
{
	(void)in; (void)out;
	if (din)
		memcpy(din, dout, layer_in_size(l) * (size_t)n * sizeof(float));
}

const struct layer_ops layer_flatten_ops = {
	.kind = "flatten",
	.identity = 1,
	.setup = flatten_setup,
	.forward = flatten_forward,
	.backward = flatten_backward,
};
