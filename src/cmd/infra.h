/* infra.h: what the commands acting on infrastructures share: option
 * parsing (every command takes --json after its name), opening the state
 * store, finding an infrastructure by id, and printing --json documents.
 * The deployment engine they drive is in deploy/deploy.h, the deployment
 * worker in deploy/spawn.h. */
#ifndef IMC_CMD_INFRA_H
#define IMC_CMD_INFRA_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cmd/cmd.h"
#include "state/store.h"
#include "util/diag.h"

/* One option of a command: --long / -s, with an argument or a flag. A
 * repeatable option with an argument appends to *list (malloc'd array of
 * borrowed argv strings). */
struct infra_opt {
	const char *lng;
	char shrt;
	const char **val;     /* has an argument: the last one given */
	bool *flag;           /* a flag */
	const char ***list;   /* repeatable argument */
	size_t *nlist;
};

/* Parses argv (argv[0] is the command name): --json, the options, then up
 * to maxpos positional arguments into pos[] (count in *npos). Returns 0, or
 * a usage exit status (already printed). */
int infra_args(struct imc_ctx *ctx, int argc, char **argv, const struct infra_opt *opts,
	       char **pos, int minpos, int maxpos, int *npos);

/* Opens the store in the context's home. */
struct state_store *infra_store(struct imc_ctx *ctx, struct diag *d);
/* Finds a live infrastructure by (a unique prefix of) its id: 0, or -1 with
 * d set (66 when unknown or destroyed). */
int infra_lookup(struct state_store *st, const char *arg, struct state_infra *out, struct diag *d);
/* Parses a VM number argument. */
int infra_vm_arg(const char *arg, int *num, struct diag *d);

/* Prints the state of infrastructure id in IM's words ("The infrastructure
 * is in state: S", "VM ID: N is in state: S.") with the contextualization
 * steps and their durations; with --json {"state": {"state": S,
 * "vm_states": {"N": S}}, "steps": [...]} (deploy_state_report). */
int infra_print_state(struct imc_ctx *ctx, struct state_store *st, const char *id, bool with_id,
		      struct diag *d);

/* A new --json document {"format": IMC_JSON_FORMAT}. */
json_t *infra_json_doc(void);
/* Prints a JSON document (indented) on stdout and drops the reference. */
void infra_json_print(json_t *doc);

/* Reports d (stderr) and returns its exit status (cmd_report). */
int infra_fail(struct imc_ctx *ctx, struct diag *d);

#endif
