/* test-cluster.c: unit tests of the cluster description (TF_CONFIG shape)
 * and of the arithmetic all tasks must agree on: worker ids and shards. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trainer/cluster.h"
#include "util/diag.h"

static int parse(const char *json, struct cluster *c, struct diag *d)
{
	return cluster_parse(json, strlen(json), "TF_CONFIG", c, d);
}

static void test_tf_config(void **state)
{
	(void)state;
	struct cluster c;
	struct diag d = DIAG_INIT;
	assert_int_equal(parse("{\"cluster\": {\"ps\": [\"ps-0:2222\", \"ps-1:2222\"], "
			       "\"chief\": [\"worker-0:2222\"], \"worker\": [\"worker-1:2222\", "
			       "\"worker-2:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}",
			       &c, &d), 0);
	assert_int_equal(c.n_ps, 2);
	assert_int_equal(cluster_n_workers(&c), 3);
	assert_string_equal(c.task_type, "worker");
	assert_int_equal(c.task_index, 1);
	assert_int_equal(cluster_worker_id(&c, "chief", 0), 0);
	assert_int_equal(cluster_worker_id(&c, "worker", 0), 1);
	assert_int_equal(cluster_worker_id(&c, "worker", 1), 2);
	assert_int_equal(cluster_worker_id(&c, "worker", 2), -1);
	assert_int_equal(cluster_worker_id(&c, "ps", 0), -1);
	assert_true(cluster_is_chief(&c, "chief", 0));
	assert_string_equal(cluster_addr(&c, "ps", 1), "ps-1:2222");
	assert_int_equal(cluster_check_task(&c, "ps", 2, &d), -1);
	assert_string_equal(diag_first_message(&d),
			    "task ps:2 is not in the cluster (it has 2 ps tasks)");
	diag_release(&d);
	cluster_release(&c);

	/* without a chief, worker 0 is the chief */
	assert_int_equal(parse("{\"cluster\": {\"ps\": [\"a:1\"], \"worker\": [\"b:2\", \"c:3\"]}}",
			       &c, &d), 0);
	assert_int_equal(cluster_worker_id(&c, "worker", 0), 0);
	assert_true(cluster_is_chief(&c, "worker", 0));
	assert_null(c.task_type);
	cluster_release(&c);
}

static void test_errors(void **state)
{
	(void)state;
	struct cluster c;
	struct diag d = DIAG_INIT;
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "{\"cluster\": {\"ps\": [\"a:1\"],}", "invalid JSON" },
		{ "[]", "expected an object" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"]}}", "no chief and no worker" },
		{ "{\"cluster\": {\"ps\": [\"a\"], \"chief\": [\"b:1\"]}}", "is not 'host:port'" },
		{ "{\"cluster\": {\"ps\": [\"a:0\"], \"chief\": [\"b:1\"]}}", "port '0'" },
		{ "{\"cluster\": {\"ps\": [\"a:99999\"], \"chief\": [\"b:1\"]}}", "port '99999'" },
		{ "{\"cluster\": {\"ps\": [\":1\"], \"chief\": [\"b:1\"]}}", "empty host" },
		{ "{\"cluster\": {\"ps\": [7], \"chief\": [\"b:1\"]}}", "cluster.ps[0] is not a string" },
		{ "{\"cluster\": {\"ps\": \"a:1\", \"chief\": [\"b:1\"]}}", "must be an array" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"], \"chief\": [\"b:1\", \"c:1\"]}}", "at most one" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"], \"evaluator\": [\"b:1\"]}}", "unknown role" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"], \"chief\": [\"b:1\"]}, \"bogus\": 1}",
		  "unknown top-level key bogus" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"], \"chief\": [\"b:1\"]}, \"task\": {\"type\": "
		  "\"worker\", \"index\": 0}}", "task worker:0 is not in the cluster" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"], \"chief\": [\"b:1\"]}, \"task\": {\"type\": 3}}",
		  "task must be" },
		{ "{\"cluster\": {\"ps\": [\"a:1\", \"a:1\"], \"ps\": [], \"chief\": [\"b:1\"]}}",
		  "duplicate" },
		{ "{\"cluster\": {\"ps\": [\"a:1\", \"a:1\"], \"chief\": [\"b:1\"]}}",
		  "ps:0 and ps:1 have the same address 'a:1'" },
		{ "{\"cluster\": {\"ps\": [\"a:1\"], \"chief\": [\"b:1\"], \"worker\": [\"c:1\", \"b:1\"]}}",
		  "chief:0 and worker:1 have the same address 'b:1'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(parse(bad[i].json, &c, &d), -1);
		if (!strstr(diag_first_message(&d), bad[i].msg))
			fail_msg("case %zu: '%s' does not contain '%s'", i, diag_first_message(&d),
				 bad[i].msg);
		assert_int_equal(d.code, IMC_EXIT_DATAERR);
		if (i == 0) { /* JSON syntax errors carry the position */
			assert_string_equal(d.items[0].file, "TF_CONFIG");
			assert_int_equal(d.items[0].line, 1);
			assert_true(d.items[0].col > 1);
		}
		diag_release(&d);
	}
}

/* An all-reduce job's cluster lists no ps: it parses, and only a
 * parameter-server job refuses it. */
static void test_no_ps(void **state)
{
	(void)state;
	struct cluster c;
	struct diag d = DIAG_INIT;
	assert_int_equal(parse("{\"cluster\": {\"chief\": [\"a:1\"], \"worker\": [\"b:1\"]}}", &c, &d), 0);
	assert_int_equal(cluster_n_workers(&c), 2);
	assert_int_equal(cluster_check_ps(&c, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "at least one parameter server"));
	assert_int_equal(d.code, IMC_EXIT_DATAERR);
	cluster_release(&c);
	diag_release(&d);
}

static void test_addresses(void **state)
{
	(void)state;
	char *h, *p;
	struct diag d = DIAG_INIT;
	assert_int_equal(cluster_split_addr("[::1]:2222", &h, &p, &d), 0);
	assert_string_equal(h, "::1");
	assert_string_equal(p, "2222");
	free(h);
	free(p);
	assert_int_equal(cluster_split_addr("::1:2222", &h, &p, &d), -1);
	diag_release(&d);
	struct sockaddr_storage sa;
	socklen_t sl;
	assert_int_equal(cluster_resolve("localhost:2222", &sa, &sl, &d), 0);
	assert_int_equal(cluster_resolve("no-such-host.invalid:1", &sa, &sl, &d), -1);
	assert_int_equal(d.code, IMC_EXIT_UNAVAILABLE);
	diag_release(&d);
}

static void test_shards(void **state)
{
	(void)state;
	for (uint64_t total = 1; total < 50; total++)
		for (size_t n = 1; n <= 7; n++) {
			uint64_t next = 0, lo = UINT64_MAX, hi = 0;
			for (size_t i = 0; i < n; i++) {
				uint64_t off, cnt;
				cluster_shard(total, n, i, &off, &cnt);
				assert_int_equal(off, next);
				next = off + cnt;
				lo = cnt < lo ? cnt : lo;
				hi = cnt > hi ? cnt : hi;
			}
			assert_int_equal(next, total);
			assert_true(hi - lo <= 1);
		}
	uint64_t off, cnt;
	cluster_shard(857738, 2, 1, &off, &cnt);
	assert_int_equal(off, 428869);
	assert_int_equal(cnt, 428869);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tf_config),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_ps),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_shards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
