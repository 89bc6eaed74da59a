/* infra.c: helpers shared by the infrastructure commands (see infra.h).
 * They exist so that every command parses its options, finds
 * infrastructures and prints its result in exactly one way; the
 * deployment engine they drive is src/deploy. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

int infra_args(struct imc_ctx *ctx, int argc, char **argv, const struct infra_opt *opts,
	       char **pos, int minpos, int maxpos, int *npos)
{
	const char *name = argv[0];
	*npos = 0;
	bool only_pos = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!only_pos && strcmp(a, "--") == 0) {
			only_pos = true;
			continue;
		}
		if (!only_pos && a[0] == '-' && a[1]) {
			if (strcmp(a, "--json") == 0) {
				ctx->json = true;
				continue;
			}
			const struct infra_opt *o = NULL;
			const char *inline_val = NULL;
			for (size_t k = 0; opts && opts[k].lng; k++) {
				size_t ln = strlen(opts[k].lng);
				if (a[1] == '-' && strncmp(a + 2, opts[k].lng, ln) == 0 &&
				    (a[2 + ln] == '\0' || a[2 + ln] == '=')) {
					o = &opts[k];
					if (a[2 + ln] == '=')
						inline_val = a + 3 + ln;
					break;
				}
				if (a[1] != '-' && opts[k].shrt && a[1] == opts[k].shrt) {
					o = &opts[k];
					if (a[2])
						inline_val = a + 2;
					break;
				}
			}
			if (!o)
				return cmd_usage_error(name, "unknown option '%s'", a);
			if (o->flag) {
				if (inline_val)
					return cmd_usage_error(name, "option '%s' takes no value", a);
				*o->flag = true;
				continue;
			}
			const char *v = inline_val;
			if (!v) {
				if (i + 1 >= argc)
					return cmd_usage_error(name, "option '%s' needs a value", a);
				v = argv[++i];
			}
			if (o->list) {
				*o->list = xreallocarray(*o->list, *o->nlist + 1, sizeof(**o->list));
				(*o->list)[(*o->nlist)++] = v;
			} else
				*o->val = v;
			continue;
		}
		if (*npos >= maxpos)
			return cmd_usage_error(name, "too many arguments");
		pos[(*npos)++] = argv[i];
	}
	if (*npos < minpos)
		return cmd_usage_error(name, "missing argument");
	return 0;
}

struct state_store *infra_store(struct imc_ctx *ctx, struct diag *d)
{
	char *home = state_default_home(ctx->home);
	struct state_store *st = state_open(home, d);
	free(home);
	return st;
}

int infra_lookup(struct state_store *st, const char *arg, struct state_infra *out, struct diag *d)
{
	char *id = NULL;
	memset(out, 0, sizeof(*out));
	int rc = state_infra_resolve(st, arg, &id, d);
	if (rc < 0)
		return -1;
	if (rc == 0)
		rc = state_infra_get(st, id, out, d);
	free(id);
	if (rc < 0)
		return -1;
	if (rc > 0 || out->deleted) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' does not exist%s", arg,
			   out->deleted ? " (it was destroyed)" : "");
		state_infra_release(out);
		return -1;
	}
	/* whatever the command prints, credentials of its RADL stay masked */
	struct diag ignore = DIAG_INIT;
	radl_doc_free(deploy_radl(out, &ignore));
	diag_release(&ignore);
	return 0;
}

int infra_vm_arg(const char *arg, int *num, struct diag *d)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 1000000) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "'%s' is not a VM number", arg);
		return -1;
	}
	*num = (int)v;
	return 0;
}

json_t *infra_json_doc(void)
{
	return json_pack("{s:i}", "format", IMC_JSON_FORMAT);
}

void infra_json_print(json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	if (s) {
		char *safe = redact(s);
		fputs(safe, stdout);
		fputc('\n', stdout);
		free(safe);
		free(s);
	}
	json_decref(doc);
}

int infra_fail(struct imc_ctx *ctx, struct diag *d)
{
	return cmd_report(ctx, d);
}

int infra_print_state(struct imc_ctx *ctx, struct state_store *st, const char *id, bool with_id,
		      struct diag *d)
{
	json_t *doc = ctx->json ? infra_json_doc() : NULL;
	struct strbuf sb = STRBUF_INIT;
	int rc = deploy_state_report(st, id, with_id, doc, &sb, d);
	if (rc == 0 && doc) {
		infra_json_print(doc);
		doc = NULL;
	} else if (rc == 0)
		fputs(strbuf_str(&sb), stdout);
	json_decref(doc);
	strbuf_release(&sb);
	return rc;
}

