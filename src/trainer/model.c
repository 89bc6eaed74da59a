/* model.c: a stack of layers with flat parameter/gradient buffers, softmax
 * cross-entropy, PyTorch's default initialisation, and evaluation
 * (model.h). Layers are built from a spec (model-spec.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trainer/data.h"
#include "trainer/layer.h"
#include "trainer/model-spec.h"
#include "trainer/model.h"
#include "trainer/rng.h"
#include "trainer/wire.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_BATCH_LIMIT 65536
/* Every model must fit one PS shard (the wire's limit), which also keeps
 * a spec's typo ("dense 65536" twice) an error instead of a 16 GiB malloc. */
#define MAX_PARAMS ((size_t)WIRE_MAX_SHARD)

struct model {
	char *name;
	int in_c, in_h, in_w;
	int classes;
	int max_batch;
	struct layer *layers;
	int nlayers;
	struct model_tensor *tensors;
	char **tensor_names;
	int ntensors;
	size_t nparams;
	float *params, *grads;
	float **acts;      /* acts[i+1] = output of layer i (acts[0] unused,
			    * NULL for identity layers, which alias their input) */
	const float **inp; /* input and output each layer saw in the last forward */
	const float **outp;
	float *dbuf[2];    /* ping-pong gradient buffers */
};

static void add_tensor(struct model *m, const char *layer, const char *what, int ndim,
		       const int *shape, size_t count, size_t offset)
{
	int i = m->ntensors++;
	m->tensors = xreallocarray(m->tensors, (size_t)m->ntensors, sizeof(*m->tensors));
	m->tensor_names = xreallocarray(m->tensor_names, (size_t)m->ntensors, sizeof(char *));
	m->tensor_names[i] = xasprintf("%s.%s", layer, what);
	struct model_tensor *t = &m->tensors[i];
	memset(t, 0, sizeof(*t));
	t->name = m->tensor_names[i];
	t->ndim = ndim;
	for (int k = 0; k < ndim; k++)
		t->shape[k] = shape[k];
	t->count = count;
	t->offset = offset;
}

/* The number in the name of layers[nlayers - 1]: layers are numbered per
 * parameter-name prefix (conv1, conv2, fc1, ...: torch_reference.py's
 * module names), and the layers without parameters share one count. */
static int layer_number(const struct layer *layers, int nlayers)
{
	const char *prefix = layers[nlayers - 1].ops->param_prefix;
	int n = 0;
	for (int i = 0; i < nlayers; i++) {
		const char *p = layers[i].ops->param_prefix;
		if (p == prefix || (p && prefix && strcmp(p, prefix) == 0))
			n++;
	}
	return n;
}

static int build(struct model *m, const struct model_spec *s, const char *file,
		 struct diag *d)
{
	int c = s->in_c, h = s->in_h, w = s->in_w;
	m->in_c = c;
	m->in_h = h;
	m->in_w = w;
	m->layers = xcalloc((size_t)s->nlayers, sizeof(*m->layers));
	size_t offset = 0;
	m->nlayers = 0;
	for (int i = 0; i < s->nlayers; i++) {
		/* "relu" right after a layer that can apply it itself is fused
		 * into that layer: one pass over memory less each way. */
		if (s->layers[i].ops->is_relu && m->nlayers > 0) {
			struct layer *prev = &m->layers[m->nlayers - 1];
			if (prev->ops->fuses_relu && !prev->relu) {
				prev->relu = 1;
				continue;
			}
		}
		struct layer *l = &m->layers[m->nlayers++];
		l->ops = s->layers[i].ops;
		l->in_c = c;
		l->in_h = h;
		l->in_w = w;
		if (l->ops->setup(l, &s->layers[i].args, d) < 0) {
			diag_note(d, NULL, "in layer %d ('%s') of model '%s'", i + 1, l->ops->kind,
				  file);
			return -1;
		}
		if (layer_out_size(l) > ((size_t)1 << 26)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "layer %d of model '%s' is too large (%zu outputs per example)",
				   i + 1, file, layer_out_size(l));
			return -1;
		}
		const char *prefix = l->ops->param_prefix;
		snprintf(l->name, sizeof(l->name), "%s%d", prefix ? prefix : l->ops->kind,
			 layer_number(m->layers, m->nlayers));
		if (l->nweight) {
			int shape[MODEL_MAX_DIMS], nd;
			if (l->ops->weight_shape) {
				nd = l->ops->weight_shape(l, shape);
			} else {
				shape[0] = l->out_c;
				shape[1] = l->fan_in;
				nd = 2;
			}
			add_tensor(m, l->name, "weight", nd, shape, l->nweight, offset);
			offset += l->nweight;
			int bshape[1] = { (int)l->nbias };
			add_tensor(m, l->name, "bias", 1, bshape, l->nbias, offset);
			offset += l->nbias;
		}
		c = l->out_c;
		h = l->out_h;
		w = l->out_w;
	}
	m->nparams = offset;
	if (offset > MAX_PARAMS) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "model '%s' has %zu parameters; imc-train takes at most %zu", file, offset,
			   MAX_PARAMS);
		return -1;
	}
	m->classes = c * h * w;
	if (m->classes < 2 || m->classes > 256) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "model '%s' ends with %d outputs; classes must be 2..256 (labels are bytes)",
			   file, m->classes);
		return -1;
	}
	return 0;
}

/* The largest activation of one example, in floats: the size of the two
 * gradient buffers backward() passes between layers. */
static size_t max_activation(const struct model *m)
{
	size_t maxact = (size_t)m->classes;
	for (int i = 0; i < m->nlayers; i++) {
		const struct layer *l = &m->layers[i];
		if (layer_in_size(l) > maxact)
			maxact = layer_in_size(l);
		if (layer_out_size(l) > maxact)
			maxact = layer_out_size(l);
	}
	return maxact;
}

/* What allocate() will take, in bytes. */
static size_t memory_need(const struct model *m)
{
	size_t floats = 2 * m->nparams;
	for (int i = 0; i < m->nlayers; i++)
		if (!m->layers[i].ops->identity)
			floats += layer_out_size(&m->layers[i]) * (size_t)m->max_batch;
	return (floats + 2 * max_activation(m) * (size_t)m->max_batch) * sizeof(float);
}

/* A clear error instead of an allocation failure when the model cannot
 * fit in this machine's memory at this batch size. */
static int check_memory(const struct model *m, const char *file, struct diag *d)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return 0;
	double need = (double)memory_need(m), have = (double)pages * (double)page;
	if (need <= have)
		return 0;
	diag_error(d, IMC_EXIT_DATAERR, NULL,
		   "model '%s' at batch %d needs %.1f GiB for its parameters, gradients and "
		   "activations; this machine has %.1f GiB (a smaller --batch or --eval-batch "
		   "needs less)",
		   file, m->max_batch, need / (1u << 30), have / (1u << 30));
	return -1;
}

static void allocate(struct model *m)
{
	m->params = xcalloc(m->nparams ? m->nparams : 1, sizeof(float));
	m->grads = xcalloc(m->nparams ? m->nparams : 1, sizeof(float));
	m->acts = xcalloc((size_t)m->nlayers + 1, sizeof(float *));
	m->inp = xcalloc((size_t)m->nlayers, sizeof(float *));
	m->outp = xcalloc((size_t)m->nlayers, sizeof(float *));
	size_t offset = 0;
	for (int i = 0; i < m->nlayers; i++) {
		struct layer *l = &m->layers[i];
		if (l->nweight) {
			l->w = m->params + offset;
			l->dw = m->grads + offset;
			offset += l->nweight;
			l->b = m->params + offset;
			l->db = m->grads + offset;
			offset += l->nbias;
		}
		l->max_batch = m->max_batch;
		if (!l->ops->identity)
			m->acts[i + 1] = xmalloc(layer_out_size(l) * (size_t)m->max_batch *
						 sizeof(float));
		if (l->ops->prepare)
			l->ops->prepare(l, m->max_batch);
	}
	size_t dbuf_size = max_activation(m) * (size_t)m->max_batch * sizeof(float);
	for (int k = 0; k < 2; k++)
		m->dbuf[k] = xmalloc(dbuf_size);
}

struct model *model_new(const char *name_or_spec_path, int max_batch, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	struct model_spec spec;
	struct model *m = NULL;
	const char *text = model_spec_builtin(name_or_spec_path);
	char *name;

	if (max_batch < 1 || max_batch > MAX_BATCH_LIMIT) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "batch size %d out of range 1..%d", max_batch,
			   MAX_BATCH_LIMIT);
		return NULL;
	}
	if (text) {
		name = xstrdup(name_or_spec_path);
	} else {
		if (strbuf_read_file(&sb, name_or_spec_path) < 0) {
			diag_error(d, IMC_EXIT_NOINPUT, NULL,
				   "cannot read model spec '%s' (not 'mlp' or 'cnn' either): %m",
				   name_or_spec_path);
			strbuf_release(&sb);
			return NULL;
		}
		if (memchr(sb.buf, '\0', sb.len)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "model spec '%s' is not a text file",
				   name_or_spec_path);
			strbuf_release(&sb);
			return NULL;
		}
		diag_add_source(d, name_or_spec_path, sb.buf, sb.len);
		text = strbuf_str(&sb);
		const char *base = strrchr(name_or_spec_path, '/');
		name = xstrdup(base ? base + 1 : name_or_spec_path);
	}
	if (model_spec_parse(&spec, name_or_spec_path, text, d) < 0) {
		free(name);
		strbuf_release(&sb);
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	m->name = name;
	m->max_batch = max_batch;
	if (build(m, &spec, name_or_spec_path, d) < 0 ||
	    check_memory(m, name_or_spec_path, d) < 0) {
		model_free(m);
		m = NULL;
	} else {
		allocate(m);
	}
	model_spec_release(&spec);
	strbuf_release(&sb);
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nlayers; i++) {
		struct layer *l = &m->layers[i];
		if (l->ops && l->ops->release)
			l->ops->release(l);
		if (m->acts)
			free(m->acts[i + 1]);
	}
	for (int i = 0; i < m->ntensors; i++)
		free(m->tensor_names[i]);
	free(m->tensor_names);
	free(m->tensors);
	free(m->acts);
	free(m->inp);
	free(m->outp);
	free(m->layers);
	free(m->params);
	free(m->grads);
	free(m->dbuf[0]);
	free(m->dbuf[1]);
	free(m->name);
	free(m);
}

const char *model_name(const struct model *m) { return m->name; }
size_t model_num_params(const struct model *m) { return m->nparams; }
int model_num_tensors(const struct model *m) { return m->ntensors; }
const struct model_tensor *model_tensor(const struct model *m, int i)
{
	return i >= 0 && i < m->ntensors ? &m->tensors[i] : NULL;
}
float *model_params(struct model *m) { return m->params; }
float *model_grads(struct model *m) { return m->grads; }
int model_input_channels(const struct model *m) { return m->in_c; }
int model_input_height(const struct model *m) { return m->in_h; }
int model_input_width(const struct model *m) { return m->in_w; }
size_t model_input_size(const struct model *m)
{
	return (size_t)m->in_c * m->in_h * m->in_w;
}
int model_num_classes(const struct model *m) { return m->classes; }
int model_max_batch(const struct model *m) { return m->max_batch; }

int model_check_dataset(const struct model *m, const struct dataset *ds, const char *dataset_name,
			struct diag *d)
{
	if (m->in_c == ds->c && m->in_h == ds->h && m->in_w == ds->w && m->classes >= ds->num_classes)
		return 0;
	diag_error(d, IMC_EXIT_USAGE, NULL,
		   "model '%s' takes %dx%dx%d inputs and %d classes; dataset '%s' has "
		   "%dx%dx%d and %d classes",
		   m->name, m->in_c, m->in_h, m->in_w, m->classes, dataset_name, ds->c, ds->h,
		   ds->w, ds->num_classes);
	return -1;
}

void model_init_params(struct model *m, uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed);
	for (int i = 0; i < m->nlayers; i++) {
		struct layer *l = &m->layers[i];
		if (!l->nweight)
			continue;
		float bound = (float)(1.0 / sqrt((double)l->fan_in));
		for (size_t k = 0; k < l->nweight; k++)
			l->w[k] = (2.0f * rng_uniform(&r) - 1.0f) * bound;
		for (size_t k = 0; k < l->nbias; k++)
			l->b[k] = (2.0f * rng_uniform(&r) - 1.0f) * bound;
	}
}

static const float *forward(struct model *m, const float *x, int n)
{
	const float *cur = x;
	for (int i = 0; i < m->nlayers; i++) {
		struct layer *l = &m->layers[i];
		m->inp[i] = cur;
		if (!l->ops->identity) {
			l->ops->forward(l, cur, m->acts[i + 1], n);
			cur = m->acts[i + 1];
		}
		m->outp[i] = cur;
	}
	return cur;
}

/* Cross-entropy of one row of logits: logsumexp(z) - z[y]. */
static double row_loss(const float *z, int classes, int y, float *prob)
{
	float mx = z[0];
	for (int c = 1; c < classes; c++)
		if (z[c] > mx)
			mx = z[c];
	double sum = 0.0;
	for (int c = 0; c < classes; c++)
		sum += exp((double)(z[c] - mx));
	if (prob)
		for (int c = 0; c < classes; c++)
			prob[c] = (float)(exp((double)(z[c] - mx)) / sum);
	return log(sum) + (double)mx - (double)z[y];
}

float model_forward_backward(struct model *m, const float *x, const uint8_t *y, int n)
{
	if (n < 1 || n > m->max_batch)
		return NAN;
	const float *logits = forward(m, x, n);
	float *dz = m->dbuf[0];
	double loss = 0.0;
	int k = m->classes;
	for (int i = 0; i < n; i++) {
		int yi = y[i] < k ? y[i] : 0;
		float *g = dz + (size_t)i * k;
		loss += row_loss(logits + (size_t)i * k, k, yi, g);
		for (int c = 0; c < k; c++)
			g[c] /= (float)n;
		g[yi] -= 1.0f / (float)n;
	}
	float *dcur = dz;
	int which = 1;
	for (int i = m->nlayers - 1; i >= 0; i--) {
		struct layer *l = &m->layers[i];
		if (l->ops->identity)
			continue; /* the gradient passes through unchanged */
		/* Gradients w.r.t. the input are only needed below a layer that
		 * has parameters somewhere under it. */
		int need = 0;
		for (int j = 0; j < i; j++)
			if (m->layers[j].nweight)
				need = 1;
		float *din = need ? m->dbuf[which] : NULL;
		l->ops->backward(l, m->inp[i], m->outp[i], dcur, din, n);
		if (!din)
			break;
		dcur = din;
		which ^= 1;
	}
	return (float)(loss / n);
}

int model_evaluate(struct model *m, const struct dataset *ds, double *loss_sum)
{
	int correct = 0, k = m->classes, n = ds->n;
	const uint8_t *y = ds->y;
	float *x = xmalloc((size_t)m->max_batch * model_input_size(m) * sizeof(float));
	double ls = 0.0;
	for (int start = 0; start < n; start += m->max_batch) {
		int b = n - start < m->max_batch ? n - start : m->max_batch;
		dataset_get(ds, start, b, x);
		const float *z = forward(m, x, b);
		for (int i = 0; i < b; i++) {
			const float *zi = z + (size_t)i * k;
			int best = 0;
			for (int c = 1; c < k; c++)
				if (zi[c] > zi[best])
					best = c;
			int yi = y[start + i] < k ? y[start + i] : 0;
			if (best == yi)
				correct++;
			ls += row_loss(zi, k, yi, NULL);
		}
	}
	free(x);
	if (loss_sum)
		*loss_sum += ls;
	return correct;
}

void model_describe(const struct model *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %zu params, input %dx%dx%d, %d classes, %d layers", m->name,
		 m->nparams, m->in_c, m->in_h, m->in_w, m->classes, m->nlayers);
}
