/* dist-main.c: imc-train --role ps|chief|worker: the command line of the
 * distributed roles (the --local flags plus the cluster, mode and lifecycle
 * ones), the cluster lookup, and the exit status that says how the task
 * ended (docs/imc-train-protocol.md, "Exit status"). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/data.h"
#include "trainer/dist-internal.h"
#include "trainer/dist.h"
#include "trainer/train-opts.h"
#include "trainer/tpool.h"
#include "util/exitcode.h"
#include "util/log.h"
#include "util/banned.h"


static void usage(FILE *fp)
{
	fputs("usage: imc-train --role ps|chief|worker [--index I] [--cluster FILE] [options]\n"
	      "\n"
	      "The cluster comes from --cluster FILE or TF_CONFIG (TensorFlow's JSON shape);\n"
	      "the task from --role/--index or TF_CONFIG's \"task\".\n"
	      "  --secret FILE        the job's secret (mode 0600): every connection proves it\n"
	      "                       holds it and every frame carries an AES-GCM (GMAC) tag\n"
	      "  --insecure           no secret: an unauthenticated wire that anyone who can\n"
	      "                       reach the ports can feed (one of the two is required)\n"
	      "  --strategy ps|allreduce  parameter servers (default) or a ring all-reduce\n"
	      "                       between the chief and the workers (no ps tasks; rank =\n"
	      "                       chief then workers in order; always sync)\n"
	      "  --sync | --async     gradient averaging per step (default) or applied on arrival\n"
	      "  --global-batch       --batch is the job's batch, split across the workers\n"
	      "                       (default: each worker uses --batch, so a sync step sees\n"
	      "                       batch x workers examples)\n"
	      "  --on-worker-loss continue|fail   sync: carry on with the survivors (default)\n"
	      "                       or fail the job when a worker dies\n"
	      "  --sync-timeout S     sync: a step waits S seconds for laggards (default 300)\n"
	      "  --connect-timeout S  keep retrying unreachable peers for S seconds (default 120)\n"
	      "  --rpc-timeout S      a reply may take S seconds (default 900)\n"
	      "  --io-timeout S       ps: a started message must complete within S s (default 30)\n"
	      "  --init-timeout S     ps: wait S seconds for the chief's parameters (default 900)\n"
	      "  --log-seconds S      progress line every S seconds (default 5)\n"
	      "Training options as with --local: --model --data --dataset --epochs --steps\n"
	      "--batch --lr --momentum --threads --seed --checkpoint-dir --checkpoint-every\n"
	      "--resume --metrics --tensorboard --log-every --eval-batch --warmup-steps --json\n"
	      "-q (warnings and errors only), -v (debug), -h/--help, --version\n"
	      "Exit status: 0 done, 1 failed (a worker lost under --on-worker-loss fail, or\n"
	      "diverged), 64 usage, 65 bad cluster or data, 66 missing input, 69 a peer\n"
	      "unreachable, 70 internal, 74 I/O, 75 the chief or a PS was lost: restart the\n"
	      "whole job with --resume.\n",
	      fp);
}

enum {
	O_ROLE = 256, O_INDEX, O_CLUSTER, O_SYNC, O_ASYNC, O_GLOBAL, O_LOSS, O_SYNCTO, O_CONNTO,
	O_RPCTO, O_IOTO, O_INITTO, O_LOGSEC, O_LOCAL, O_VERSION, O_STRATEGY,
	O_SECRET, O_INSECURE,
};

/* Returns 0, 1 (help printed) or -1. */
static int parse_args(struct dist_opts *o, int argc, char **argv, struct diag *d)
{
	static const struct option lo[] = {
		{ "role", required_argument, NULL, O_ROLE },
		{ "index", required_argument, NULL, O_INDEX },
		{ "task-index", required_argument, NULL, O_INDEX },
		{ "cluster", required_argument, NULL, O_CLUSTER },
		{ "sync", no_argument, NULL, O_SYNC },
		{ "async", no_argument, NULL, O_ASYNC },
		{ "global-batch", no_argument, NULL, O_GLOBAL },
		{ "on-worker-loss", required_argument, NULL, O_LOSS },
		{ "sync-timeout", required_argument, NULL, O_SYNCTO },
		{ "connect-timeout", required_argument, NULL, O_CONNTO },
		{ "rpc-timeout", required_argument, NULL, O_RPCTO },
		{ "io-timeout", required_argument, NULL, O_IOTO },
		{ "init-timeout", required_argument, NULL, O_INITTO },
		{ "log-seconds", required_argument, NULL, O_LOGSEC },
		{ "local", no_argument, NULL, O_LOCAL },
		{ "strategy", required_argument, NULL, O_STRATEGY },
		{ "secret", required_argument, NULL, O_SECRET },
		{ "insecure", no_argument, NULL, O_INSECURE },
		TRAIN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hqv", lo, NULL)) != -1) {
		const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "option";
		int r = train_opts_take(&o->t, c, optarg, d);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case O_ROLE:
			if (strcmp(optarg, "ps") && strcmp(optarg, "chief") && strcmp(optarg, "worker")) {
				diag_error(d, IMC_EXIT_USAGE, NULL,
					   "--role: unknown role '%s' (ps, chief or worker)", optarg);
				return -1;
			}
			o->role = optarg;
			break;
		case O_INDEX: r = trainer_parse_long("--index", optarg, 0, 4095, &o->index, d); break;
		case O_CLUSTER: o->cluster_file = optarg; break;
		case O_SECRET: o->secret_file = optarg; break;
		case O_INSECURE: o->insecure = true; break;
		case O_STRATEGY:
			if (strcmp(optarg, "ps") && strcmp(optarg, "allreduce")) {
				diag_error(d, IMC_EXIT_USAGE, NULL,
					   "--strategy: unknown strategy '%s' (ps or allreduce)", optarg);
				return -1;
			}
			o->allreduce = strcmp(optarg, "allreduce") == 0;
			break;
		case O_SYNC: o->mode = WIRE_MODE_SYNC; break;
		case O_ASYNC: o->mode = WIRE_MODE_ASYNC; break;
		case O_GLOBAL: o->global_batch = true; break;
		case O_LOSS:
			if (strcmp(optarg, "continue") == 0)
				o->fail_on_worker_loss = false;
			else if (strcmp(optarg, "fail") == 0)
				o->fail_on_worker_loss = true;
			else {
				diag_error(d, IMC_EXIT_USAGE, NULL,
					   "--on-worker-loss: expected 'continue' or 'fail', got '%s'",
					   optarg);
				return -1;
			}
			break;
		case O_SYNCTO: r = trainer_parse_double("--sync-timeout", optarg, 0.1, 1e6, &o->sync_timeout, d); break;
		case O_CONNTO: r = trainer_parse_double("--connect-timeout", optarg, 0.1, 1e6, &o->connect_timeout, d); break;
		case O_RPCTO: r = trainer_parse_double("--rpc-timeout", optarg, 1, 1e6, &o->rpc_timeout, d); break;
		case O_IOTO: r = trainer_parse_double("--io-timeout", optarg, 0.1, 1e6, &o->io_timeout, d); break;
		case O_INITTO: r = trainer_parse_double("--init-timeout", optarg, 0.1, 1e6, &o->init_timeout, d); break;
		case O_LOGSEC: r = trainer_parse_double("--log-seconds", optarg, 0, 1e6, &o->log_seconds, d); break;
		case O_LOCAL:
			diag_error(d, IMC_EXIT_USAGE, NULL, "--local and --role exclude each other");
			return -1;
		case 'h':
			usage(stdout);
			return 1;
		case O_VERSION:
			printf("imc-train %s\n", PACKAGE_VERSION);
			return 1;
		case ':':
			diag_error(d, IMC_EXIT_USAGE, NULL, "option '%s' needs a value", name);
			return -1;
		default:
			diag_error(d, IMC_EXIT_USAGE, NULL,
				   "unknown option '%s' (see imc-train --role ps --help)", name);
			return -1;
		}
		if (r < 0)
			return -1;
	}
	if (optind < argc) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->secret_file && o->insecure) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "--secret and --insecure exclude each other");
		return -1;
	}
	return train_opts_check(&o->t, d);
}

int trainer_dist_main(int argc, char **argv)
{
	struct dist_opts o = {
		.index = -1, .mode = WIRE_MODE_SYNC, .sync_timeout = 300, .connect_timeout = 120,
		.rpc_timeout = 900, .io_timeout = 30, .init_timeout = 900, .log_seconds = 5,
		.t = TRAIN_OPTS_DEFAULTS,
	};
	struct diag d = DIAG_INIT;
	struct cluster cl;
	int rc = parse_args(&o, argc, argv, &d);
	if (rc != 0) {
		int code = rc > 0 ? IMC_EXIT_OK : d.code;
		diag_print(&d, stderr);
		diag_release(&d);
		return code;
	}
	/* the roles report progress (steps/s, bytes/s) at info level; -q
	 * keeps warnings and errors only */
	if (getenv("IMC_LOG"))
		log_init(o.t.verbose);
	else
		log_set_level(o.t.verbose > 0 ? LOG_DEBUG : o.t.quiet ? LOG_WARN : LOG_INFO);
	signal(SIGPIPE, SIG_IGN);
	memset(&cl, 0, sizeof(cl));
	if (cluster_load(o.cluster_file, &cl, &d) < 0)
		goto fail;
	if (!o.role && cl.task_type)
		o.role = cl.task_type;
	if (o.index < 0)
		o.index = cl.task_type && o.role && strcmp(o.role, cl.task_type) == 0 &&
				  cl.task_index >= 0 ? cl.task_index : 0;
	if (!o.role) {
		diag_error(&d, IMC_EXIT_USAGE, NULL, "no role: pass --role or set TF_CONFIG's task");
		goto fail;
	}
	if (cluster_check_task(&cl, o.role, o.index, &d) < 0)
		goto fail;
	if (o.allreduce && strcmp(o.role, "ps") == 0) {
		diag_error(&d, IMC_EXIT_USAGE, NULL,
			   "--strategy allreduce has no parameter servers: run the chief and the workers only");
		goto fail;
	}
	if (o.allreduce && cl.n_ps) {
		diag_error(&d, IMC_EXIT_DATAERR, NULL,
			   "--strategy allreduce: the cluster lists %zu ps tasks; an all-reduce job has a chief and workers only",
			   cl.n_ps);
		goto fail;
	}
	if (!o.allreduce && cluster_check_ps(&cl, &d) < 0)
		goto fail;
	if (o.allreduce && o.mode == WIRE_MODE_ASYNC) {
		diag_error(&d, IMC_EXIT_USAGE, NULL, "--strategy allreduce is synchronous: drop --async");
		goto fail;
	}
	/* an unauthenticated wire lets anyone who reaches a port push
	 * gradients or stall the job: it must be asked for (checked after
	 * the configuration, whose errors say more) */
	if (!o.secret_file && !o.insecure) {
		diag_error(&d, IMC_EXIT_USAGE, NULL,
			   "no secret: pass --secret FILE (the job's shared secret, mode 0600) or --insecure");
		goto fail;
	}
	if (o.secret_file && wire_secret_load(o.secret_file, &o.secret, &d) < 0)
		goto fail;
	tpool_set_threads((int)o.t.threads);
	if (o.allreduce)
		rc = dist_run_allreduce(&o, &cl, &d);
	else if (strcmp(o.role, "ps") == 0)
		rc = dist_run_ps(&o, &cl, &d);
	else
		rc = dist_run_worker(&o, &cl, &d);
	if (rc < 0)
		goto fail;
	tpool_shutdown();
	cluster_release(&cl);
	wire_secret_release(&o.secret);
	diag_release(&d);
	return rc; /* 0, or 1 when training diverged */
fail:
	diag_print(&d, stderr);
	rc = diag_has_errors(&d) ? (int)d.code : IMC_EXIT_SOFTWARE;
	tpool_shutdown();
	cluster_release(&cl);
	wire_secret_release(&o.secret);
	diag_release(&d);
	return rc;
}
