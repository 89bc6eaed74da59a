/* radl.c: the RADL inputs of a deployment (see deploy.h): a file read,
 * its @input.KEY@ substituted, parsed (RADL or RADL-JSON) and checked;
 * and the stored RADL of an infrastructure parsed again. Either way the
 * credentials it holds are registered as secrets before anything prints. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "plan/plan.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Credentials written in a RADL (disk.0.os.credentials.password,
 * private_key, vault.password, ...) are secrets like those of the auth
 * file: registered so that no output or log shows them. */
static void register_radl_secrets(const struct radl_doc *doc)
{
	static const char *const words[] = { "password", "private_key", "token", "secret" };
	for (size_t i = 0; doc && i < doc->nsystems; i++) {
		const struct radl_body *b = &doc->systems[i].body;
		for (size_t k = 0; k < b->nfeat; k++)
			for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
				if (b->feat[k].kind == RADL_V_STRING && b->feat[k].str && strstr(b->feat[k].name, words[w]))
					secret_register(b->feat[k].str);
	}
	for (size_t i = 0; doc && i < doc->nansibles; i++) {
		const struct radl_body *b = &doc->ansibles[i].body;
		for (size_t k = 0; k < b->nfeat; k++)
			if (b->feat[k].kind == RADL_V_STRING && b->feat[k].str &&
			    (strstr(b->feat[k].name, "password") || strstr(b->feat[k].name, "private_key")))
				secret_register(b->feat[k].str);
	}
}

/* Substitutes, parses and (with check) checks the RADL raw, named file. */
static struct radl_doc *parse_radl(const char *file, const char *raw, size_t len, json_t *vars, bool interactive,
				   char **text, bool check, struct diag *d)
{
	*text = NULL;
	if (memchr(raw, '\0', len)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s' is not a text file (it holds NUL bytes)", file);
		return NULL;
	}
	char *t = plan_substitute_inputs(file, raw, vars, interactive, d);
	if (!t)
		return NULL;
	size_t k = strspn(t, " \t\r\n");
	struct radl_doc *doc = (t[k] == '[' || t[k] == '{') ? radl_parse_json(file, t, strlen(t), d)
							    : radl_parse(file, t, strlen(t), d);
	register_radl_secrets(doc);
	if (!doc || (check && radl_check(doc, d) < 0)) {
		radl_doc_free(doc);
		free(t);
		return NULL;
	}
	*text = t;
	return doc;
}

static struct radl_doc *load_radl(const char *path, json_t *vars, bool interactive, char **text,
				  bool check, struct diag *d)
{
	*text = NULL;
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, errno == ENOENT ? IMC_EXIT_NOINPUT : IMC_EXIT_IOERR, NULL, "cannot read '%s': %s",
			   path, strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	struct radl_doc *doc = parse_radl(path, strbuf_str(&sb), sb.len, vars, interactive, text, check, d);
	strbuf_release(&sb);
	return doc;
}

struct radl_doc *deploy_load_radl(const char *path, json_t *vars, bool interactive, char **text,
				  struct diag *d)
{
	return load_radl(path, vars, interactive, text, true, d);
}

struct radl_doc *deploy_load_radl_unchecked(const char *path, json_t *vars, bool interactive, char **text,
					    struct diag *d)
{
	return load_radl(path, vars, interactive, text, false, d);
}

struct radl_doc *deploy_parse_radl(const char *name, const char *raw, size_t len, json_t *vars, bool check,
				   char **text, struct diag *d)
{
	return parse_radl(name, raw, len, vars, false, text, check, d);
}

struct radl_doc *deploy_radl(const struct state_infra *in, struct diag *d)
{
	const char *name = in->radl_path ? in->radl_path : "infrastructure.radl";
	const char *t = in->radl ? in->radl : "";
	size_t k = strspn(t, " \t\r\n");
	struct radl_doc *doc = (t[k] == '[' || t[k] == '{') ? radl_parse_json(name, t, strlen(t), d)
							    : radl_parse(name, t, strlen(t), d);
	register_radl_secrets(doc);
	return doc;
}
