/* layer.c: the registry of layer kinds, one table, so that the model spec
 * parser and the model find a kind by its spec keyword and never name one.
 * Each kind's ops, grammar included, are in its layer-NAME.c; adding a
 * kind is that file plus its two lines here. */
#include "config.h"

#include <string.h>

#include "trainer/layer.h"
#include "util/banned.h"

extern const struct layer_ops layer_conv_ops;
extern const struct layer_ops layer_dense_ops;
extern const struct layer_ops layer_relu_ops;
extern const struct layer_ops layer_maxpool_ops;
extern const struct layer_ops layer_flatten_ops;

static const struct layer_ops *const layer_kinds[] = {
	&layer_conv_ops,
	&layer_dense_ops,
	&layer_relu_ops,
	&layer_maxpool_ops,
	&layer_flatten_ops,
};

const struct layer_ops *layer_ops_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(layer_kinds) / sizeof(layer_kinds[0]); i++)
		if (strcmp(layer_kinds[i]->kind, kind) == 0)
			return layer_kinds[i];
	return NULL;
}
