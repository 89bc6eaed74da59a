/* model-spec.c: parser of the model spec format (model-spec.h) and the
 * built-in specs that mirror torch_reference.py's MLP and CNN. The parser
 * knows the 'input' line only; a layer's line is read with the grammar its
 * kind declares (struct layer_arg), so it never names a layer kind. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/model-spec.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char spec_mlp[] =
	"# torch_reference.py MLP: 784 -> 256 ReLU -> 10\n"
	"input 1 28 28\n"
	"flatten\n"
	"dense 256\n"
	"relu\n"
	"dense 10\n";

static const char spec_cnn[] =
	"# torch_reference.py CNN\n"
	"input 1 28 28\n"
	"conv 32 5 pad 2\n"
	"relu\n"
	"maxpool 2\n"
	"conv 64 5 pad 2\n"
	"relu\n"
	"maxpool 2\n"
	"flatten\n"
	"dense 256\n"
	"relu\n"
	"dense 10\n";

const char *model_spec_builtin(const char *name)
{
	if (strcmp(name, "mlp") == 0)
		return spec_mlp;
	if (strcmp(name, "cnn") == 0)
		return spec_cnn;
	return NULL;
}

#define MAX_TOKENS 16

struct token {
	char text[64];
	int col;
};

/* Splits one line into tokens; returns the count or -1 when too many or
 * too long. */
static int tokenize(const char *line, size_t len, struct token *tok, int *bad_col)
{
	int n = 0;
	size_t i = 0;
	while (i < len) {
		if (line[i] == '#')
			break;
		if (isspace((unsigned char)line[i])) {
			i++;
			continue;
		}
		size_t start = i;
		while (i < len && !isspace((unsigned char)line[i]) && line[i] != '#')
			i++;
		if (n == MAX_TOKENS || i - start >= sizeof(tok[0].text)) {
			*bad_col = (int)start + 1;
			return -1;
		}
		memcpy(tok[n].text, line + start, i - start);
		tok[n].text[i - start] = '\0';
		tok[n].col = (int)start + 1;
		n++;
	}
	return n;
}

static int parse_int(const struct token *t, int lo, int hi, int *out, const char *file,
		     int line, struct diag *d)
{
	char *end;
	errno = 0;
	long v = strtol(t->text, &end, 10);
	if (errno || *end || end == t->text || v < lo || v > hi) {
		struct src_loc loc = { file, line, t->col };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "expected an integer in [%d, %d], got '%s'",
			   lo, hi, t->text);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* The grammar of a layer's line is its kind's args[] (layer.h): count
 * the positional ones, find the i-th of them, find a keyword. */
static int count_positional(const struct layer_ops *ops)
{
	int n = 0;
	for (int i = 0; i < ops->nargs; i++)
		if (!ops->args[i].keyword)
			n++;
	return n;
}

static const struct layer_arg *find_positional(const struct layer_ops *ops, int which)
{
	for (int i = 0; i < ops->nargs; i++)
		if (!ops->args[i].keyword && which-- == 0)
			return &ops->args[i];
	return NULL;
}

static const struct layer_arg *find_keyword(const struct layer_ops *ops, const char *word)
{
	for (int i = 0; i < ops->nargs; i++)
		if (ops->args[i].keyword && strcmp(ops->args[i].keyword, word) == 0)
			return &ops->args[i];
	return NULL;
}

static int *arg_field(struct layer_args *a, const struct layer_arg *arg)
{
	return (int *)(void *)((char *)a + arg->offset);
}

/* A token that starts like a number is a positional argument ('-' too, so
 * that "-1" is reported as out of range, not as an unknown option); any
 * other token is a keyword, followed by its value. */
static int parse_layer(struct model_spec_layer *sl, const struct token *tok, int n,
		       const char *file, int line, struct diag *d)
{
	const struct layer_ops *ops = sl->ops;
	const char *kind = ops->kind;
	int npos = 0, want = count_positional(ops);
	struct src_loc loc = { file, line, tok[0].col };
	for (int i = 1; i < n; i++) {
		const struct layer_arg *arg;
		if (isdigit((unsigned char)tok[i].text[0]) || tok[i].text[0] == '-') {
			if (npos >= want) {
				loc.col = tok[i].col;
				diag_error(d, IMC_EXIT_DATAERR, &loc, "too many numbers for '%s'", kind);
				return -1;
			}
			arg = find_positional(ops, npos);
			if (parse_int(&tok[i], arg->min, arg->max, arg_field(&sl->args, arg), file,
				      line, d) < 0)
				return -1;
			npos++;
			continue;
		}
		arg = find_keyword(ops, tok[i].text);
		if (!arg) {
			loc.col = tok[i].col;
			diag_error(d, IMC_EXIT_DATAERR, &loc, "unknown option '%s' for '%s'",
				   tok[i].text, kind);
			return -1;
		}
		if (i + 1 >= n) {
			loc.col = tok[i].col;
			diag_error(d, IMC_EXIT_DATAERR, &loc, "'%s' needs a value", tok[i].text);
			return -1;
		}
		if (parse_int(&tok[i + 1], arg->min, arg->max, arg_field(&sl->args, arg), file,
			      line, d) < 0)
			return -1;
		i++;
	}
	if (npos != want) {
		diag_error(d, IMC_EXIT_DATAERR, &loc, "'%s' takes %d number%s, got %d", kind, want,
			   want == 1 ? "" : "s", npos);
		return -1;
	}
	return 0;
}

int model_spec_parse(struct model_spec *s, const char *file, const char *text,
		     struct diag *d)
{
	memset(s, 0, sizeof(*s));
	int line = 0, have_input = 0, alloc = 0;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		struct token tok[MAX_TOKENS];
		int bad = 0;
		line++;
		int n = tokenize(p, len, tok, &bad);
		p += len + (eol ? 1 : 0);
		struct src_loc loc = { file, line, bad ? bad : 1 };
		if (n < 0) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "line too long or too many tokens");
			goto fail;
		}
		if (n == 0)
			continue;
		loc.col = tok[0].col;
		if (strcmp(tok[0].text, "input") == 0) {
			if (have_input) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "'input' given twice");
				goto fail;
			}
			if (n != 4) {
				diag_error(d, IMC_EXIT_DATAERR, &loc, "'input' takes 3 numbers: C H W");
				goto fail;
			}
			if (parse_int(&tok[1], 1, 4096, &s->in_c, file, line, d) < 0 ||
			    parse_int(&tok[2], 1, LAYER_DIM_MAX, &s->in_h, file, line, d) < 0 ||
			    parse_int(&tok[3], 1, LAYER_DIM_MAX, &s->in_w, file, line, d) < 0)
				goto fail;
			have_input = 1;
			continue;
		}
		const struct layer_ops *ops = layer_ops_find(tok[0].text);
		if (!ops) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "unknown layer type '%s'", tok[0].text);
			goto fail;
		}
		if (!have_input) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "'input C H W' must come first");
			goto fail;
		}
		if (s->nlayers == 256) {
			diag_error(d, IMC_EXIT_DATAERR, &loc, "too many layers (at most 256)");
			goto fail;
		}
		if (s->nlayers == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			s->layers = xreallocarray(s->layers, (size_t)alloc, sizeof(*s->layers));
		}
		struct model_spec_layer *sl = &s->layers[s->nlayers];
		memset(sl, 0, sizeof(*sl));
		sl->ops = ops;
		if (parse_layer(sl, tok, n, file, line, d) < 0)
			goto fail;
		s->nlayers++;
	}
	if (!have_input || s->nlayers == 0) {
		struct src_loc loc = { file, line ? line : 1, 1 };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "model spec has no %s",
			   have_input ? "layers" : "'input' line");
		goto fail;
	}
	return 0;
fail:
	model_spec_release(s);
	return -1;
}

void model_spec_release(struct model_spec *s)
{
	free(s->name);
	free(s->layers);
	memset(s, 0, sizeof(*s));
}
