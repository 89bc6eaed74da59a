/* model-spec.h: the small text format that describes a model, so that a
 * new network needs a spec file, not new code. One statement per line,
 * '#' starts a comment, tokens are separated by blanks:
 *
 *     input C H W               shape of one example (required, first)
 *     conv OUT K [stride S] [pad P]
 *     maxpool K [stride S]
 *     relu
 *     flatten
 *     dense OUT
 *
 * Each layer kind declares the numbers and keywords of its line in its
 * layer-NAME.c (struct layer_arg, layer.h); the parser reads 'input' and
 * looks every other keyword up in the registry of kinds (layer.c).
 * The last layer's output size is the number of classes; the loss is
 * softmax cross-entropy. "mlp" and "cnn" are built-in specs (those of
 * torch_reference.py). Errors carry file:line:col. */
#ifndef IMC_TRAINER_MODEL_SPEC_H
#define IMC_TRAINER_MODEL_SPEC_H

#include "trainer/layer.h"
#include "util/diag.h"

struct model_spec_layer {
	const struct layer_ops *ops;
	struct layer_args args;
};

struct model_spec {
	char *name;
	int in_c, in_h, in_w;
	struct model_spec_layer *layers;
	int nlayers;
};

/* Text of a built-in spec, or NULL. */
const char *model_spec_builtin(const char *name);
/* Parses text (file names it in errors). Returns 0 or -1. */
int model_spec_parse(struct model_spec *s, const char *file, const char *text,
		     struct diag *d);
void model_spec_release(struct model_spec *s);

#endif
