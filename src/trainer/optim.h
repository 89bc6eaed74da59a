/* optim.h: SGD with momentum in PyTorch's form, on flat float buffers so
 * that a parameter server can apply it to its own shard:
 *     v <- mu*v + g ;  p <- p - lr*v      (v starts at 0; no dampening,
 *                                          no Nesterov, no weight decay)
 * With mu == 0 it is plain SGD (v is then unused and may be NULL). */
#ifndef IMC_TRAINER_OPTIM_H
#define IMC_TRAINER_OPTIM_H

#include <stddef.h>

/* Updates p[0..n) and v[0..n) in place from g[0..n). Can't fail. */
void optim_sgd_step(float *p, float *v, const float *g, size_t n, float lr, float mu);

/* Convenience owner of a velocity buffer for a whole model. */
struct optim {
	size_t n;
	float lr;
	float momentum;
	float *velocity;   /* n floats, zeroed by optim_new */
};

struct optim *optim_new(size_t n, float lr, float momentum);
void optim_free(struct optim *o);
void optim_step(struct optim *o, float *params, const float *grads);

#endif
