/* cli.h: the CLI kit every command shares (src/cmd/cli.c): the one option
 * parser, the setup a command's flags ask for, the help generated from a
 * command's entry, usage errors, reporting and --json documents. Commands
 * see only what run gets (struct cmd_args in cmd.h) and these helpers. */
#ifndef IMC_CMD_CLI_H
#define IMC_CMD_CLI_H

#include <stdio.h>

#include <jansson.h>

#include "cmd/cmd.h"

/* Runs cmd on argv (argv[0] is the command name): parses the options
 * (anywhere among the operands; "--" ends them; -h/--help prints the help),
 * runs cmd->check, does the setup of cmd->flags, runs cmd->run, reports
 * a->d and releases everything. Returns the exit status. */
int cli_run(struct imc_ctx *ctx, const struct imc_cmd *cmd, int argc, char **argv);

/* The command of ctx named name, hidden ones included, or NULL. */
const struct imc_cmd *cli_find(const struct imc_ctx *ctx, const char *name);

/* Prints `imc --help` (the global options and the visible commands). */
void cli_print_usage(const struct imc_ctx *ctx, FILE *fp);
/* Prints the help of cmd: usage line, summary, options, cmd->help. */
void cli_print_help(const struct imc_cmd *cmd, FILE *fp);
/* Prints the bash completion script (`imc help --completion`). */
void cli_print_completion(const struct imc_ctx *ctx, FILE *fp);
/* Prints, for each visible command (or only the one named only, when not
 * NULL), a roff comment naming it, the header line of its entry in imc(1)
 * and the list of its options, as imc.1 has them (`imc help --man
 * [COMMAND]`; t0002 checks imc.1 against it). */
void cli_print_man(const struct imc_ctx *ctx, const char *only, FILE *fp);

/* Prints "imc NAME: MESSAGE" and the usage line of cmd to stderr; returns 64. */
int cmd_usage_error(const struct imc_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints d on stderr and returns the exit status it implies (0 when it
 * holds no error). With --json stdout stays empty on errors. */
int cmd_report(struct imc_ctx *ctx, struct diag *d);

/* Opens the store in the context's home. */
struct state_store *cli_store(struct imc_ctx *ctx, struct diag *d);
/* Finds a live infrastructure by (a unique prefix of) its id: 0, or -1 with
 * d set (66 when unknown or destroyed). */
int cli_lookup(struct state_store *st, const char *arg, struct state_infra *out, struct diag *d);
/* Parses a VM number argument (64 when it is not one). */
int cli_vm_arg(const char *arg, int *num, struct diag *d);

/* Adds the KEY=VALUE of every -e in v to *vars (plan_parse_extra_var). */
int cli_extra_vars(json_t **vars, const struct cmd_value *v, struct diag *d);

/* A new --json document {"format": IMC_JSON_FORMAT}. */
json_t *cli_json_doc(void);
/* Prints a JSON document (indented, secrets masked) on stdout and drops
 * the reference. */
void cli_json_print(json_t *doc);

/* Prints the state of infrastructure id in IM's words ("The infrastructure
 * is in state: S", "VM ID: N is in state: S.") with the contextualization
 * steps and their durations; with --json {"state": {"state": S,
 * "vm_states": {"N": S}}, "steps": [...]} (deploy_state_report). */
int cli_print_state(struct imc_ctx *ctx, struct state_store *st, const char *id, bool with_id,
		    struct diag *d);

#endif
