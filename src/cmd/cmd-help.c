/* cmd-help.c: 'imc help [COMMAND]' and 'imc version'. The help of a command
 * is generated from its entry (cli_print_help), the same text 'imc COMMAND
 * -h' prints; 'imc help --completion' prints the bash completion script,
 * generated from the same entries (docs/imc.bash is its output), and
 * 'imc help --man' the commands' synopses and options as imc(1) has them. */
#include "config.h"

#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "util/banned.h"

enum { OPT_COMPLETION, OPT_MAN };

static const struct cmd_option help_options[] = {
	[OPT_COMPLETION] = { "completion", 0, CMD_OPT_FLAG, NULL,
			     "print the bash completion script of imc" },
	[OPT_MAN] = { "man", 0, CMD_OPT_FLAG, NULL,
		      "print each command's synopsis and options in roff,\nas imc(1) has them" },
	{ 0 },
};

static int run_help(struct cmd_args *a)
{
	if (a->opt[OPT_COMPLETION].set) {
		cli_print_completion(a->ctx, stdout);
		return IMC_EXIT_OK;
	}
	const struct imc_cmd *cmd = a->noperands ? cli_find(a->ctx, a->operands[0]) : NULL;
	if (a->noperands && !cmd)
		return cmd_usage_error(a->cmd, "unknown command '%s'", a->operands[0]);
	if (a->opt[OPT_MAN].set) {
		cli_print_man(a->ctx, cmd ? cmd->name : NULL, stdout);
		return IMC_EXIT_OK;
	}
	if (!cmd) {
		cli_print_usage(a->ctx, stdout);
		return IMC_EXIT_OK;
	}
	cli_print_help(cmd, stdout);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_help_entry = {
	.name = "help", .synopsis = "[--completion|--man] [COMMAND]",
	.summary = "show help for a command",
	.options = help_options, .flags = CMD_ANY_OPERANDS, .run = run_help,
};

static int run_version(struct cmd_args *a)
{
	(void)a;
	printf("imc %s\n", PACKAGE_VERSION);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_version_entry = {
	.name = "version", .synopsis = "", .summary = "print the version",
	.flags = CMD_HIDDEN | CMD_ANY_OPERANDS, .run = run_version,
};
