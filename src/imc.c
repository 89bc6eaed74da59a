/* imc.c: main for the imc command: global options, the command table and the
 * exit status. Everything a command does lives in src/cmd/cmd-NAME.c. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/log.h"
#include "util/banned.h"

static const struct imc_cmd commands[] = {
	{ "validate", cmd_validate, "FILE...", "check RADL files and summarise them" },
	{ "radl", cmd_radl, "[--json|--radl] [--from radl|json] FILE", "convert RADL to RADL-JSON and back" },
	{ "plan", cmd_plan, "[--cloud ID] [-e KEY=VALUE]... FILE", "show the VMs, networks and steps a RADL file would create" },
	{ "create", cmd_create, "[-d] [--cloud ID] [-e KEY=VALUE]... FILE", "deploy an infrastructure and follow it until configured" },
	{ "wait", cmd_wait, "ID [MAX_SECONDS]", "wait until an infrastructure is configured (exit 0) or fails" },
	{ "list", cmd_list, "[REGEX]", "list the infrastructures" },
	{ "getstate", cmd_getstate, "ID", "state of the infrastructure and each VM" },
	{ "getcontmsg", cmd_getcontmsg, "ID", "contextualization log of the infrastructure" },
	{ "getvmcontmsg", cmd_getvmcontmsg, "ID VM", "contextualization log of one VM" },
	{ "getinfo", cmd_getinfo, "ID [ATTRIBUTE]", "RADL of every VM of the infrastructure" },
	{ "getvminfo", cmd_getvminfo, "ID VM [ATTRIBUTE]", "RADL of one VM" },
	{ "getradl", cmd_getradl, "ID", "the RADL the infrastructure was created from" },
	{ "addresource", cmd_addresource, "[-d] [--no-context] [-e KEY=VALUE]... ID FILE", "add VMs to an infrastructure" },
	{ "removeresource", cmd_removeresource, "[--no-context] ID VM[,VM...]", "remove VMs from an infrastructure" },
	{ "alter", cmd_alter, "ID VM FILE", "change the features of a VM" },
	{ "reconfigure", cmd_reconfigure, "[-d] ID [FILE] [VM,...]", "run the contextualization again" },
	{ "start", cmd_start, "ID", "start every VM of the infrastructure" },
	{ "stop", cmd_stop, "ID", "stop every VM of the infrastructure" },
	{ "startvm", cmd_startvm, "ID VM", "start one VM" },
	{ "stopvm", cmd_stopvm, "ID VM", "stop one VM" },
	{ "rebootvm", cmd_rebootvm, "ID VM", "reboot one VM" },
	{ "ssh", cmd_ssh, "ID [VM] [-- COMMAND...]", "open a shell or run a command on a VM" },
	{ "play", cmd_play, "PLAYBOOK --target ID[:VM,...] | -H NAME=USER@ADDR[:PORT] --key FILE | --connection local", "run an Ansible-style play list on VMs" },
	{ "getoutputs", cmd_getoutputs, "ID", "what the deployment fetched back (model, metrics)" },
	{ "export", cmd_export, "ID [--delete]", "print the infrastructure's record as JSON" },
	{ "import", cmd_import, "FILE", "load an exported infrastructure" },
	{ "destroy", cmd_destroy, "[-f|--force] ID", "delete the infrastructure and everything it created" },
	{ "help", cmd_help, "[COMMAND]", "show help for a command" },
	{ "version", cmd_version, "", "print the version", CMD_HIDDEN },
};

const struct imc_cmd *imc_find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

void imc_print_cmd_usage(const struct imc_cmd *cmd, FILE *fp)
{
	fprintf(fp, "usage: imc [GLOBAL OPTIONS] %s %s\n\n%s\n", cmd->name, cmd->args, cmd->summary);
}

static void usage(FILE *fp)
{
	fputs("usage: imc [-a AUTHFILE] [--home DIR] [--json] [-v] COMMAND [ARGS]\n"
	      "\n"
	      "imc deploys and provisions the infrastructure a RADL file describes.\n"
	      "\n"
	      "Global options:\n"
	      "  -a, --auth FILE  cloud credentials (IM's auth file; default $IMC_HOME/auth.dat;\n"
	      "                   none at all means the embedded 'local' cloud)\n"
	      "      --home DIR   state directory (default $IMC_HOME, else ~/.imc)\n"
	      "      --json       print one JSON document on stdout\n"
	      "  -v, --verbose    more logging on stderr (repeat for more; see IMC_LOG)\n"
	      "  -h, --help       this help\n"
	      "      --version    print the version\n"
	      "\n"
	      "Commands:\n", fp);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!(commands[i].flags & CMD_HIDDEN))
			fprintf(fp, "  %-15s %s\n", commands[i].name, commands[i].summary);
	fputs("\nRun 'imc help COMMAND' for a command's options. See imc(1) and radl(5).\n"
	      "Exit status: 0 ok, 1 a node or task failed, 64 usage, 65 invalid input,\n"
	      "66 no such file or infrastructure, 69 cloud or SSH unreachable, 70 internal\n"
	      "error, 74 I/O error, 75 try again (locked), 77 credentials rejected.\n", fp);
}

int cmd_help(struct imc_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	if (argc < 2) {
		usage(stdout);
		return IMC_EXIT_OK;
	}
	const struct imc_cmd *cmd = imc_find_cmd(argv[1]);
	if (!cmd)
		return cmd_usage_error("help", "unknown command '%s'", argv[1]);
	static char help_opt[] = "--help";
	char *sub[] = { argv[1], help_opt, NULL };
	return cmd->run(ctx, 2, sub);
}

int cmd_version(struct imc_ctx *ctx, int argc, char **argv)
{
	(void)ctx; (void)argc; (void)argv;
	printf("imc %s\n", PACKAGE_VERSION);
	return IMC_EXIT_OK;
}

bool cmd_help_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			const struct imc_cmd *cmd = imc_find_cmd(argv[0]);
			if (cmd)
				imc_print_cmd_usage(cmd, stdout);
			return true;
		}
	}
	return false;
}

int cmd_usage_error(const char *name, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "imc %s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	const struct imc_cmd *cmd = imc_find_cmd(name);
	if (cmd)
		fprintf(stderr, "usage: imc %s %s\n", cmd->name, cmd->args);
	return IMC_EXIT_USAGE;
}

int cmd_report(struct imc_ctx *ctx, struct diag *d)
{
	(void)ctx;
	diag_print(d, stderr);
	if (!diag_has_errors(d))
		return IMC_EXIT_OK;
	return d->code ? (int)d->code : IMC_EXIT_SOFTWARE;
}

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
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct imc_ctx ctx = { .argv0 = argv[0] };
	int c;

	/* '+': stop at the command name, so its options are its own */
	while ((c = getopt_long(argc, argv, "+a:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': ctx.auth_file = optarg; break;
		case 'H': ctx.home = optarg; break;
		case 'j': ctx.json = true; break;
		case 'v': ctx.verbose++; break;
		case 'h': usage(stdout); return IMC_EXIT_OK;
		case 'V': return cmd_version(&ctx, 0, NULL);
		default:
			fputs("Try 'imc --help'.\n", stderr);
			return IMC_EXIT_USAGE;
		}
	}
	log_init(ctx.verbose);
	export_trainer_path();
	if (!ctx.home)
		ctx.home = getenv("IMC_HOME");
	if (optind >= argc) {
		usage(stderr);
		return IMC_EXIT_USAGE;
	}
	const struct imc_cmd *cmd = imc_find_cmd(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "imc: unknown command '%s'\nTry 'imc --help'.\n", argv[optind]);
		return IMC_EXIT_USAGE;
	}
	/* A command also accepts --json after its name: "imc getstate --json ID". */
	int rc = cmd->run(&ctx, argc - optind, argv + optind);

	/* A result that did not reach stdout is a failure (git's run_builtin). */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "imc: error: cannot write to standard output: %s\n", strerror(errno));
		return IMC_EXIT_IOERR;
	}
	return rc;
}
