/* cmd-serve.c: 'imc serve [--bind ADDR] [--port N]': IM's REST API over
 * HTTP on this IMC_HOME (src/server), so IM's clients, its dashboard and
 * EC3 can drive imc. The server runs the same deployment engine as the
 * commands, and the commands can work on the same IMC_HOME meanwhile. It
 * serves until SIGINT or SIGTERM. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/spawn.h"
#include "server/server.h"
#include "util/banned.h"

enum { OPT_BIND, OPT_PORT, OPT_PID_FILE, OPT_MAX_BODY, OPT_MAX_CONNECTIONS, OPT_TIMEOUT, OPT_TLS_CERT, OPT_TLS_KEY };

static const struct cmd_option options[] = {
	[OPT_BIND] = { "bind", 0, CMD_OPT_VALUE, "ADDR", "IPv4 address to listen on (default 127.0.0.1)" },
	[OPT_PORT] = { "port", 'p', CMD_OPT_VALUE, "N", "TCP port to listen on (default 8800, IM's; 0: any free one)" },
	[OPT_PID_FILE] = { "pid-file", 0, CMD_OPT_VALUE, "FILE", "write the server's PID there once it listens" },
	[OPT_MAX_BODY] = { "max-body", 0, CMD_OPT_VALUE, "BYTES",
			   "longest request body (default 1048576); longer: 413" },
	[OPT_MAX_CONNECTIONS] = { "max-connections", 0, CMD_OPT_VALUE, "N",
				  "connections served at once (default 64)" },
	[OPT_TIMEOUT] = { "timeout", 0, CMD_OPT_VALUE, "SECONDS",
			  "a connection idle that long is closed (default 60)" },
	[OPT_TLS_CERT] = { "tls-cert", 0, CMD_OPT_VALUE, "FILE", "serve HTTPS with this PEM certificate (chain)" },
	[OPT_TLS_KEY] = { "tls-key", 0, CMD_OPT_VALUE, "FILE", "the certificate's PEM private key" },
	{ 0 },
};

/* The value of option k as a number in [lo, hi], or def when not given. */
static int number(struct cmd_args *a, int k, unsigned long lo, unsigned long hi, unsigned long def,
		  unsigned long *v)
{
	const char *s = a->opt[k].val;
	*v = def;
	if (!s)
		return 0;
	char *end;
	errno = 0;
	unsigned long n = strtoul(s, &end, 10);
	if (!*s || *end || errno || n < lo || n > hi || *s == '-')
		return cmd_usage_error(a->cmd, "--%s wants a number from %lu to %lu, not '%s'", options[k].lng, lo,
				       hi, s);
	*v = n;
	return 0;
}

static int run(struct cmd_args *a)
{
	unsigned long port, body, conns, timeout;
	int rc;
	if ((rc = number(a, OPT_PORT, 0, 65535, 8800, &port)) || (rc = number(a, OPT_MAX_BODY, 1, 1UL << 30, 1 << 20, &body)) ||
	    (rc = number(a, OPT_MAX_CONNECTIONS, 1, 4096, 64, &conns)) ||
	    (rc = number(a, OPT_TIMEOUT, 1, 86400, 60, &timeout)))
		return rc;
	if (!a->opt[OPT_TLS_CERT].val != !a->opt[OPT_TLS_KEY].val)
		return cmd_usage_error(a->cmd, "--tls-cert and --tls-key go together");
	char *home = state_default_home(a->ctx->home);
	/* the store is made (or migrated) now, so a home that cannot hold
	 * one fails here rather than in every request */
	struct state_store *st = state_open(home, a->d);
	if (!st) {
		free(home);
		return IMC_EXIT_OK;
	}
	state_close(st);
	/* the auth files a crash left behind (authfile.c) */
	if (srv_authfile_sweep(home, a->d) < 0) {
		free(home);
		return IMC_EXIT_OK;
	}
	/* the server has threads: its workers are exec'd (deploy_spawn_exec),
	 * from this very program, even if its file is replaced meanwhile */
	deploy_spawn_exec("/proc/self/exe");
	struct srv_config cfg = {
		.home = home, .bind = a->opt[OPT_BIND].val ? a->opt[OPT_BIND].val : "127.0.0.1",
		.port = (unsigned)port, .max_body = body, .max_header = 64 * 1024, .max_conns = (unsigned)conns,
		.timeout = (unsigned)timeout, .create_wait = 3600, .pid_file = a->opt[OPT_PID_FILE].val,
		.tls_cert = a->opt[OPT_TLS_CERT].val, .tls_key = a->opt[OPT_TLS_KEY].val,
	};
	server_run(&cfg, a->d);
	free(home);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_serve_entry = {
	.name = "serve", .synopsis = "[--bind ADDR] [-p N] [--pid-file FILE] [--max-body BYTES]"
				     " [--max-connections N] [--timeout SECONDS] [--tls-cert FILE --tls-key FILE]",
	.summary = "serve IM's REST API on this IMC_HOME",
	.help = "Every request carries IM's Authorization header (the auth file's lines joined\n"
		"by \\n); its InfrastructureManager line names the user, who sees only the\n"
		"infrastructures created with it. Stops on SIGINT or SIGTERM.",
	.options = options, .run = run,
};
