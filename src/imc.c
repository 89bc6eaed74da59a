/* imc.c: main for the imc command: global options, the command table and the
 * exit status. Everything a command does lives in src/cmd/cmd-NAME.c, with
 * its entry (options, synopsis, setup flags); src/cmd/cli.c runs it. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "util/log.h"
#include "util/banned.h"

/* Every command's entry, from its own file (cmd-list.h). */
static const struct imc_cmd *const commands[] = {
#define X(name) &cmd_##name##_entry,
#include "cmd/cmd-list.h"
#undef X
};

/* Recipes run on the local cloud use the imc-train built or installed next
 * to this imc; the deployment and the recipes find it through IMC_TRAIN. */
static void export_trainer_path(void)
{
	char exe[4096];
	if (getenv("IMC_TRAIN"))
		return;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 16);
	if (n <= 0)
		return;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return;
	memcpy(slash + 1, "imc-train", sizeof("imc-train"));
	if (access(exe, X_OK) == 0)
		setenv("IMC_TRAIN", exe, 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "auth", required_argument, NULL, 'a' },
		{ "home", required_argument, NULL, 'H' },
		{ "server", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct imc_ctx ctx = { .argv0 = argv[0], .commands = commands,
			       .ncommands = sizeof(commands) / sizeof(commands[0]) };
	int c;

	/* '+': stop at the command name, so its options are its own */
	while ((c = getopt_long(argc, argv, "+a:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': ctx.auth_file = optarg; break;
		case 'H': ctx.home = optarg; break;
		case 'S': ctx.server = optarg; break;
		case 'j': ctx.json = true; break;
		case 'v': ctx.verbose++; break;
		case 'h': cli_print_usage(&ctx, stdout); return IMC_EXIT_OK;
		case 'V': printf("imc %s\n", PACKAGE_VERSION); return IMC_EXIT_OK;
		default:
			fputs("Try 'imc --help'.\n", stderr);
			return IMC_EXIT_USAGE;
		}
	}
	log_init(ctx.verbose);
	export_trainer_path();
	if (!ctx.home)
		ctx.home = getenv("IMC_HOME");
	if (!ctx.server && getenv("IMC_SERVER") && *getenv("IMC_SERVER"))
		ctx.server = getenv("IMC_SERVER");
	if (optind >= argc) {
		cli_print_usage(&ctx, stderr);
		return IMC_EXIT_USAGE;
	}
	const struct imc_cmd *cmd = cli_find(&ctx, argv[optind]);
	if (!cmd) {
		fprintf(stderr, "imc: unknown command '%s'\nTry 'imc --help'.\n", argv[optind]);
		return IMC_EXIT_USAGE;
	}
	int rc = cli_run(&ctx, cmd, argc - optind, argv + optind);

	/* A result that did not reach stdout is a failure (git's run_builtin). */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "imc: error: cannot write to standard output: %s\n", strerror(errno));
		return IMC_EXIT_IOERR;
	}
	return rc;
}
