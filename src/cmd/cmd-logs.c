/* cmd-logs.c: 'imc logs ID [VM] [-f]': the step output the worker records
 * (the contextualization log of every VM, or of one), and with -f the lines
 * recorded after it until the infrastructure stops working, so that a long
 * step such as training can be watched while it runs. The log is
 * append-only, so following prints what lies past the part already printed;
 * the worker is another process, so the command polls the store. Under
 * --json each line is an event, and a job's progress line also a
 * "progress" event (deploy/progress.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "provision/provision.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { OPT_FOLLOW, OPT_TIMEOUT };

static const struct cmd_option options[] = {
	{ "follow", 'f', CMD_OPT_FLAG, NULL, "keep printing new lines until the infrastructure stops working" },
	{ "timeout", 0, CMD_OPT_VALUE, "SECONDS", "with -f, stop following after this long (exit 1)" },
	{ 0 },
};

/* Whether the worker is still at it (a dead worker is recorded as such by
 * deploy_recover, which ends the phase). */
static int still_working(struct cmd_args *a, bool *working)
{
	struct state_infra in;
	int g = state_infra_get(a->st, a->in->id, &in, a->d);
	if (g != 0) {
		if (g > 0)
			diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' disappeared", a->in->id);
		return -1;
	}
	int rc = deploy_recover(a->st, &in, a->d);
	*working = rc == 0 && !in.deleted &&
		   (in.phase == PHASE_NEW || in.phase == PHASE_CREATING || in.phase == PHASE_CONFIGURING ||
		    in.phase == PHASE_DESTROYING);
	state_infra_release(&in);
	return rc < 0 ? -1 : 0;
}

/* After the log event of a line holding a job's progress, the same
 * progress as `imc create --json` shows it. The line is "TIME: TEXT", or
 * "TIME: VM N: TEXT" in the log of every VM. */
static void progress_event(const char *line, size_t len, int vm)
{
	char *l = xstrndup(line, len);
	const char *at = strstr(l, PROV_PROGRESS_PREFIX "[");
	json_t *ev = at ? deploy_progress_parse(at) : NULL;
	if (ev) {
		const char *v = strstr(l, ": VM ");
		if (vm < 0 && v && v < at)
			vm = (int)strtol(v + 5, NULL, 10);
		json_t *j = deploy_progress_event(vm, ev);
		char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		if (s)
			puts(s);
		free(s);
		json_decref(j);
		json_decref(ev);
	}
	free(l);
}

/* Prints the log past the first *printed bytes; a JSON line per entry
 * under --json, and a progress event after each progress line. */
static int print_new(struct cmd_args *a, int vm, size_t *printed)
{
	struct strbuf log = STRBUF_INIT;
	int rc = -1;
	if (state_log_get(a->st, a->in->id, vm, &log, a->d) < 0)
		goto out;
	if (log.len > *printed) {
		const char *p = log.buf + *printed;
		if (a->ctx->json) {
			/* one event per line, each a document of its own */
			while (*p) {
				const char *nl = strchr(p, '\n');
				size_t len = nl ? (size_t)(nl - p) : strlen(p);
				json_t *j = cli_json_doc();
				json_object_set_new(j, "event", json_string("log"));
				if (vm >= 0)
					json_object_set_new(j, "vm", json_integer(vm));
				json_object_set_new(j, "line", json_stringn(p, len));
				char *s = json_dumps(j, JSON_COMPACT);
				if (s)
					puts(s);
				free(s);
				json_decref(j);
				progress_event(p, len, vm);
				p += len + (nl ? 1 : 0);
			}
		} else
			fputs(p, stdout);
		fflush(stdout);
		*printed = log.len;
	}
	rc = 0;
out:
	strbuf_release(&log);
	return rc;
}

static int run(struct cmd_args *a)
{
	int vm = -2;
	if (a->noperands > 1 && cli_vm_arg(a->operands[1], &vm, a->d) < 0)
		return IMC_EXIT_USAGE;
	if (vm >= 0) {
		struct state_vm v = { 0 };
		int g = state_vm_get(a->st, a->in->id, vm, &v, a->d);
		state_vm_release(&v);
		if (g > 0)
			diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id, vm);
		if (g != 0)
			return IMC_EXIT_OK;
	}
	double timeout = 0;
	if (a->opt[OPT_TIMEOUT].set) {
		char *end;
		timeout = strtod(a->opt[OPT_TIMEOUT].val, &end);
		if (end == a->opt[OPT_TIMEOUT].val || *end || !(timeout > 0)) {
			diag_error(a->d, IMC_EXIT_USAGE, NULL, "--timeout: '%s' is not a number of seconds",
				   a->opt[OPT_TIMEOUT].val);
			return IMC_EXIT_USAGE;
		}
	}
	size_t printed = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		bool working = false;
		/* read the phase before the log: the lines of a step that ends
		 * in between are then still printed by this last pass */
		if (a->opt[OPT_FOLLOW].set && still_working(a, &working) < 0)
			return IMC_EXIT_OK;
		if (print_new(a, vm, &printed) < 0 || !working)
			return IMC_EXIT_OK;
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (timeout > 0 && (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= timeout)
			return 1;
		/* the worker is another process: poll the store */
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

const struct imc_cmd cmd_logs_entry = {
	.name = "logs", .synopsis = "[-f] [--timeout SECONDS] ID [VM]",
	.summary = "step output of the VMs (or of one), followed with -f",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
