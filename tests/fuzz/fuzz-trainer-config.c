/* fuzz-trainer-config.c: libFuzzer harness for what imc-train reads before
 * it trains: the cluster description (--cluster FILE or TF_CONFIG, JSON) and
 * model spec files (model-spec.h). The first input byte picks the reader;
 * the rest is the text. Any text must be read or refused with a located
 * error, never crash; an accepted cluster must answer every query the roles
 * make of it (tasks, addresses, shards) consistently. Built as a libFuzzer
 * program with --enable-fuzzing (CC=clang), and as a plain replay program
 * (replay.c) without it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/cluster.h"
#include "trainer/model-spec.h"
#include "util/diag.h"

#include "fuzz-diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cluster(const char *text, size_t len, struct diag *d)
{
	struct cluster c;
	memset(&c, 0, sizeof(c));
	if (cluster_parse(text, len, "TF_CONFIG", &c, d) < 0)
		return;
	static const char *const roles[] = { "ps", "chief", "worker", "evaluator" };
	for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
		for (long i = -1; i < 4; i++) {
			struct diag q = DIAG_INIT;
			int ok = cluster_check_task(&c, roles[r], i, &q) == 0;
			const char *addr = cluster_addr(&c, roles[r], i);
			if (ok && !addr)
				abort(); /* a task that exists has an address */
			if (addr) {
				char *host = NULL, *port = NULL;
				if (cluster_split_addr(addr, &host, &port, &q) == 0 && (!host || !port))
					abort();
				free(host);
				free(port);
			}
			cluster_worker_id(&c, roles[r], i);
			cluster_is_chief(&c, roles[r], i);
			diag_release(&q);
		}
	/* the PS shards tile the parameter vector */
	if (c.n_ps > 0) {
		uint64_t total = 857738, next = 0;
		for (size_t i = 0; i < c.n_ps; i++) {
			uint64_t off, count;
			cluster_shard(total, c.n_ps, i, &off, &count);
			if (off != next)
				abort();
			next = off + count;
		}
		if (next != total)
			abort();
	}
	cluster_n_workers(&c);
	cluster_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* NUL-terminated: a spec is read as text (model_new refuses NUL bytes) */
	char *text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	struct diag d = DIAG_INIT;
	if (data[0] % 2 == 0) {
		cluster(text, size - 1, &d);
	} else if (!memchr(data + 1, 0, size - 1)) {
		struct model_spec s;
		diag_add_source(&d, "fuzz.spec", text, size - 1);
		if (model_spec_parse(&s, "fuzz.spec", text, &d) == 0)
			model_spec_release(&s);
	}
	fuzz_print_diag(&d);
	diag_release(&d);
	free(text);
	return 0;
}
