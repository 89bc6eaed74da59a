/* cmd.h: the interface between main (src/imc.c) and the subcommands, one per
 * file in src/cmd/ (tmux cmd.c / git.c). Each cmd-NAME.c defines one const
 * struct imc_cmd, cmd_NAME_entry: its name, synopsis, summary, options and
 * the setup it needs (flags). main parses the command line with that table
 * (src/cmd/cli.c), does the setup the flags ask for (open the store, find
 * the infrastructure, parse the VM number), calls run with the result in a
 * struct cmd_args, then reports the diagnostics and releases what the setup
 * acquired. `imc help`, `imc CMD -h`, the bash completion and the manual's
 * synopses all come from these entries. */
#ifndef IMC_CMD_H
#define IMC_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "state/store.h"
#include "util/diag.h"
#include "util/exitcode.h"

struct imc_ctx {
	const char *home;      /* $IMC_HOME, --home, or ~/.imc (not created yet) */
	const char *auth_file; /* -a FILE, or NULL for the default lookup */
	const char *server;    /* --server URL or IMC_SERVER: commands go there (src/client) */
	bool json;             /* --json: one JSON document on stdout */
	int verbose;           /* count of -v */
	const char *argv0;
	const struct imc_cmd *const *commands; /* every command (src/imc.c) */
	size_t ncommands;
};

/* Table flags: the shared setup a command needs, done before run. */
enum {
	CMD_HIDDEN = 1 << 0,      /* not listed in `imc --help` nor completed */
	CMD_NEEDS_STORE = 1 << 1, /* a->st: the state store of the home */
	CMD_NEEDS_INFRA = 1 << 2, /* a->in: the infrastructure of operand 0 (implies the store) */
	CMD_NEEDS_VM = 1 << 3,    /* a->vm: the VM number of operand 1, parsed before the lookup */
	CMD_RECOVER = 1 << 4,     /* a dead worker's infrastructure is recorded so (infra_recover) */
	CMD_REFRESH = 1 << 5,     /* then the clouds are asked how the VMs are (infra_refresh) */
	CMD_REST = 1 << 6,        /* what follows "--" is a->rest, not operands */
	CMD_ERRORS_ONLY = 1 << 7, /* warnings left in a->d are not printed */
	CMD_ANY_OPERANDS = 1 << 8,/* run checks the operands, else the synopsis says how many */
};

/* How an option takes its value. */
enum cmd_opt_kind {
	CMD_OPT_FLAG,  /* no value: a->opt[i].set */
	CMD_OPT_VALUE, /* one value, the last one given: a->opt[i].val */
	CMD_OPT_LIST,  /* repeatable: a->opt[i].list[0 .. n-1], in order */
};

/* One option of a command. Its value goes to a->opt[i], i being its index
 * in the command's table (the command names the indexes with an enum). */
struct cmd_option {
	const char *lng;  /* --lng */
	char shrt;        /* -s, or 0 */
	enum cmd_opt_kind kind;
	const char *arg;  /* the value's name in the help (not for a flag) */
	const char *help; /* one sentence; "\n" continues it on the next line */
};

/* Options several commands share, spelled once. */
#define CMD_OPTION_EXTRA_VAR \
	{ "extra-var", 'e', CMD_OPT_LIST, "KEY=VALUE", "a value for @input.KEY@ in the RADL (repeatable)" }
#define CMD_OPTION_DETACH { "detach", 'd', CMD_OPT_FLAG, NULL, "return once the deployment worker started" }
#define CMD_OPTION_CLOUD \
	{ "cloud", 0, CMD_OPT_VALUE, "ID", "every VM goes to this cloud (an auth line id or a backend)" }

#define CMD_MAX_OPTIONS 32

struct cmd_value {
	bool set;
	int where;          /* argv index of its last occurrence */
	const char *val;    /* borrowed from argv */
	const char **list;  /* malloc'd array of borrowed argv strings */
	size_t n;           /* a list's length; how many times a flag was given */
};

/* What run gets: the parsed command line and what the setup acquired. The
 * caller owns all of it and releases it after run (cli_release). */
struct cmd_args {
	struct imc_ctx *ctx;
	const struct imc_cmd *cmd;
	struct cmd_value opt[CMD_MAX_OPTIONS];
	char **operands;       /* borrowed from argv */
	int noperands;
	char **rest;           /* CMD_REST: the words after "--" */
	int nrest;
	struct state_store *st;/* CMD_NEEDS_STORE, else NULL (run may open one here) */
	struct state_infra *in;/* CMD_NEEDS_INFRA: the infrastructure (else zeroed) */
	int vm;                /* CMD_NEEDS_VM */
	struct diag *d;        /* reported by the caller after run */
};

struct imc_cmd {
	const char *name;
	const char *synopsis; /* after the name, e.g. "[-d] [--cloud ID] FILE"; its
			       * operands are what the command accepts */
	const char *summary;  /* one line for `imc --help` */
	const char *help;     /* more text for `imc help NAME`, or NULL */
	const struct cmd_option *options; /* ends with { 0 }; NULL: none */
	unsigned flags;
	/* Optional: checks of the operands, before any setup: returns 0 (with
	 * errors in a->d, which are reported) or a usage status already
	 * printed (cmd_usage_error). */
	int (*check)(struct cmd_args *a);
	/* The command: prints its result, records problems in a->d and returns
	 * an exit status; the caller reports a->d (its status wins when it
	 * holds errors). */
	int (*run)(struct cmd_args *a);
};

#define IMC_JSON_FORMAT 1 /* the "format" version of every --json document */

#define X(name) extern const struct imc_cmd cmd_##name##_entry;
#include "cmd/cmd-list.h"
#undef X

#endif
