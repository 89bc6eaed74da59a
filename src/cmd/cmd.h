/* cmd.h: the interface between main (src/imc.c) and the subcommands, one per
 * file in src/cmd/ (tmux cmd.c / git.c). A command gets the global context
 * and its own argv (argv[0] is the command name), parses its own options,
 * prints its result on stdout and returns an exit status (util/exitcode.h). */
#ifndef IMC_CMD_H
#define IMC_CMD_H

#include <stdbool.h>

#include "util/diag.h"
#include "util/exitcode.h"

struct imc_ctx {
	const char *home;      /* $IMC_HOME, --home, or ~/.imc (not created yet) */
	const char *auth_file; /* -a FILE, or NULL for the default lookup */
	bool json;             /* --json: one JSON document on stdout */
	int verbose;           /* count of -v */
	const char *argv0;
};

/* Table flags (the shared setup a command needs). */
enum {
	CMD_HIDDEN = 1 << 0, /* not listed in `imc --help` */
};

struct imc_cmd {
	const char *name;
	int (*run)(struct imc_ctx *ctx, int argc, char **argv);
	const char *args;    /* synopsis after the name, e.g. "[--json] FILE..." */
	const char *summary; /* one line for `imc --help` */
	unsigned flags;
};

const struct imc_cmd *imc_find_cmd(const char *name);
/* Prints "usage: imc NAME ARGS" and the summary of cmd to fp. */
void imc_print_cmd_usage(const struct imc_cmd *cmd, FILE *fp);
/* For commands: true when argv asks for help (-h / --help anywhere before
 * "--"); prints the usage on stdout in that case. */
bool cmd_help_requested(int argc, char **argv);
/* Prints "imc NAME: MESSAGE" and the usage line to stderr; returns 64. */
int cmd_usage_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints diagnostics (text on stderr; with --json also a JSON error document
 * on stdout is NOT printed: stdout stays empty on errors) and returns the
 * exit status they imply. */
int cmd_report(struct imc_ctx *ctx, struct diag *d);

#define IMC_JSON_FORMAT 1 /* the "format" version of every --json document */

#define X(name) int cmd_##name(struct imc_ctx *ctx, int argc, char **argv);
#include "cmd/cmd-list.h"
#undef X

#endif
