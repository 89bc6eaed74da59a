/* test-state.c: unit tests of the state store (src/state): schema creation
 * and permissions, rows of every kind, VM numbers, tombstones, the
 * order-independent infrastructure state, locking, and two connections
 * writing at once. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "state/store.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char home[64];

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/imc-test-state-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	snprintf(home, sizeof(home), "%s/home", tmpl);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%.*s'", (int)(strrchr(home, '/') - home), home);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static void add_infra(struct state_store *st, const char *id)
{
	struct diag d = DIAG_INIT;
	struct state_infra in = { .id = (char *)(uintptr_t)id, .radl = (char *)(uintptr_t)"system s ()\n" };
	assert_int_equal(state_infra_insert(st, &in, &d), 0);
	diag_release(&d);
}

static void test_open_and_rows(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	assert_non_null(st);
	struct stat sb;
	assert_int_equal(stat(home, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0700);
	char *db = xasprintf("%s/imc.db", home);
	assert_int_equal(stat(db, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	free(db);

	add_infra(st, "aaaa1111-0000-4000-8000-000000000001");
	int first;
	assert_int_equal(state_infra_take_nums(st, "aaaa1111-0000-4000-8000-000000000001", 3, &first, &d), 0);
	assert_int_equal(first, 0);
	assert_int_equal(state_infra_take_nums(st, "aaaa1111-0000-4000-8000-000000000001", 2, &first, &d), 0);
	assert_int_equal(first, 3);
	for (int i = 0; i < 3; i++) {
		struct state_vm vm = { .infra_id = (char *)(uintptr_t)"aaaa1111-0000-4000-8000-000000000001",
				       .num = i, .system = (char *)(uintptr_t)"s", .cloud = (char *)(uintptr_t)"dummy",
				       .state = VM_PENDING, .ctxt = -1 };
		assert_int_equal(state_vm_insert(st, &vm, &d), 0);
	}
	struct state_vm vm;
	assert_int_equal(state_vm_get(st, "aaaa1111-0000-4000-8000-000000000001", 1, &vm, &d), 0);
	vm.state = VM_RUNNING;
	vm.cloud_id = xstrdup("dummy-1");
	vm.public_ip = xstrdup("10.0.0.1");
	assert_int_equal(state_vm_update(st, &vm, &d), 0);
	state_vm_release(&vm);
	assert_int_equal(state_vm_set_hostkey(st, "aaaa1111-0000-4000-8000-000000000001", 1, "ssh-ed25519 AAAA", &d), 0);
	assert_int_equal(state_vm_get(st, "aaaa1111-0000-4000-8000-000000000001", 1, &vm, &d), 0);
	assert_int_equal(vm.state, VM_RUNNING);
	assert_string_equal(vm.cloud_id, "dummy-1");
	assert_string_equal(vm.hostkey, "ssh-ed25519 AAAA");
	assert_int_equal(vm.ctxt, -1);
	state_vm_release(&vm);
	assert_int_equal(state_vm_get(st, "aaaa1111-0000-4000-8000-000000000001", 9, &vm, &d), 1);
	assert_int_equal(state_vm_delete(st, "aaaa1111-0000-4000-8000-000000000001", 0, &d), 0);
	struct state_vm *vms;
	size_t n;
	assert_int_equal(state_vm_list(st, "aaaa1111-0000-4000-8000-000000000001", &vms, &n, &d), 0);
	assert_int_equal(n, 2);
	assert_int_equal(vms[0].num, 1);
	state_vm_list_free(vms, n);

	struct state_net net = { .infra_id = (char *)(uintptr_t)"aaaa1111-0000-4000-8000-000000000001",
				 .name = (char *)(uintptr_t)"pub", .cloud = (char *)(uintptr_t)"dummy", .public = true };
	assert_int_equal(state_net_upsert(st, &net, &d), 0);
	net.cloud_id = (char *)(uintptr_t)"br-1";
	assert_int_equal(state_net_upsert(st, &net, &d), 0);
	struct state_net *nets;
	assert_int_equal(state_net_list(st, "aaaa1111-0000-4000-8000-000000000001", &nets, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_string_equal(nets[0].cloud_id, "br-1");
	assert_true(nets[0].public);
	state_net_list_free(nets, n);

	struct state_step s = { .step = 1, .vm = 1, .configure = (char *)(uintptr_t)"front", .status = STEP_PENDING };
	assert_int_equal(state_step_set(st, "aaaa1111-0000-4000-8000-000000000001", &s, &d), 0);
	assert_int_equal(state_step_mark(st, "aaaa1111-0000-4000-8000-000000000001", 1, 1, STEP_RUNNING, NULL, &d), 0);
	assert_int_equal(state_step_mark(st, "aaaa1111-0000-4000-8000-000000000001", 1, 1, STEP_FAILED, "boom", &d), 0);
	struct state_step *steps;
	assert_int_equal(state_step_list(st, "aaaa1111-0000-4000-8000-000000000001", &steps, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_int_equal(steps[0].status, STEP_FAILED);
	assert_string_equal(steps[0].error, "boom");
	assert_true(steps[0].ended >= steps[0].started && steps[0].started > 0);
	state_step_list_free(steps, n);

	assert_int_equal(state_log_add(st, "aaaa1111-0000-4000-8000-000000000001", -1, "infra line", &d), 0);
	assert_int_equal(state_log_add(st, "aaaa1111-0000-4000-8000-000000000001", 1, "vm line", &d), 0);
	struct strbuf lb = STRBUF_INIT;
	assert_int_equal(state_log_get(st, "aaaa1111-0000-4000-8000-000000000001", 1, &lb, &d), 0);
	assert_non_null(strstr(lb.buf, "vm line"));
	assert_null(strstr(lb.buf, "infra line"));
	strbuf_release(&lb);
	assert_int_equal(state_output_set(st, "aaaa1111-0000-4000-8000-000000000001", "accuracy", NULL, "0.91", &d), 0);
	struct state_output *outs;
	assert_int_equal(state_output_list(st, "aaaa1111-0000-4000-8000-000000000001", &outs, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_string_equal(outs[0].value, "0.91");
	state_output_list_free(outs, n);

	/* ids by prefix; tombstones */
	char *id;
	assert_int_equal(state_infra_resolve(st, "aaaa", &id, &d), 0);
	assert_string_equal(id, "aaaa1111-0000-4000-8000-000000000001");
	free(id);
	assert_int_equal(state_infra_resolve(st, "bbbb", &id, &d), 1);
	assert_int_equal(state_infra_resolve(st, "x;", &id, &d), -1);
	diag_release(&d);
	assert_int_equal(state_infra_tombstone(st, "aaaa1111-0000-4000-8000-000000000001", NULL, &d), 0);
	struct state_infra in;
	assert_int_equal(state_infra_get(st, "aaaa1111-0000-4000-8000-000000000001", &in, &d), 0);
	assert_true(in.deleted);
	state_infra_release(&in);
	assert_int_equal(state_vm_list(st, "aaaa1111-0000-4000-8000-000000000001", &vms, &n, &d), 0);
	assert_int_equal(n, 0);
	free(vms);
	char **ids;
	assert_int_equal(state_infra_list(st, &ids, &n, &d), 0);
	assert_int_equal(n, 0);
	free(ids);
	state_close(st);
	/* reopening an existing store keeps its schema */
	st = state_open(home, &d);
	assert_non_null(st);
	state_close(st);
	diag_release(&d);
}

static void test_aggregate_is_order_independent(void **state)
{
	(void)state;
	static const enum vm_state order[] = { VM_DELETING, VM_FAILED, VM_OFF, VM_UNKNOWN, VM_PENDING,
					       VM_RUNNING, VM_UNCONFIGURED, VM_STOPPED, VM_CONFIGURED };
	size_t n = sizeof(order) / sizeof(order[0]);
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++) {
			enum vm_state ab[2] = { order[a], order[b] }, ba[2] = { order[b], order[a] };
			enum vm_state want = order[a < b ? a : b];
			assert_int_equal(vm_state_aggregate(ab, 2, VM_FAILED), want);
			assert_int_equal(vm_state_aggregate(ba, 2, VM_FAILED), want);
		}
	/* IM's quirk fixed: [configured, stopped] and [stopped, configured] agree */
	enum vm_state x[2] = { VM_CONFIGURED, VM_STOPPED }, y[2] = { VM_STOPPED, VM_CONFIGURED };
	assert_int_equal(vm_state_aggregate(x, 2, VM_FAILED), vm_state_aggregate(y, 2, VM_FAILED));
	assert_int_equal(vm_state_aggregate(NULL, 0, VM_PENDING), VM_PENDING);
	for (size_t i = 0; i < n; i++) {
		enum vm_state s;
		assert_int_equal(vm_state_parse(vm_state_name(order[i]), &s), 0);
		assert_int_equal(s, order[i]);
	}
}

static void test_lock(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	assert_non_null(st);
	int fd1, fd2;
	assert_int_equal(state_lock_infra(st, "cccc", false, &fd1, &d), 0);
	/* flock is per open file: a second open in the same process conflicts too */
	assert_int_equal(state_lock_infra(st, "cccc", false, &fd2, &d), 1);
	state_unlock_infra(fd1);
	assert_int_equal(state_lock_infra(st, "cccc", false, &fd2, &d), 0);
	state_unlock_infra(fd2);
	assert_true(state_worker_alive(getpid(), state_proc_start_time(getpid())));
	assert_false(state_worker_alive(getpid(), state_proc_start_time(getpid()) + 1));
	assert_false(state_worker_alive(0, 0));
	state_close(st);
	diag_release(&d);
}

struct writer { int base; int failures; };

static void *write_many(void *arg)
{
	struct writer *w = arg;
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	if (!st) {
		w->failures++;
		return NULL;
	}
	for (int i = 0; i < 50; i++) {
		int first;
		if (state_infra_take_nums(st, "dddd", 1, &first, &d) < 0) {
			w->failures++;
			continue;
		}
		struct state_vm vm = { .infra_id = (char *)(uintptr_t)"dddd", .num = first,
				       .system = (char *)(uintptr_t)"s", .cloud = (char *)(uintptr_t)"dummy" };
		if (state_vm_insert(st, &vm, &d) < 0 || state_log_add(st, "dddd", first, "x", &d) < 0)
			w->failures++;
	}
	state_close(st);
	diag_release(&d);
	return NULL;
}

static void test_concurrent_writers(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	add_infra(st, "dddd");
	pthread_t t[4];
	struct writer w[4] = { { 0, 0 } };
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, write_many, &w[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
	struct state_vm *vms;
	size_t n;
	assert_int_equal(state_vm_list(st, "dddd", &vms, &n, &d), 0);
	assert_int_equal(n, 200);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(vms[i].num, (int)i); /* every number given once */
	state_vm_list_free(vms, n);
	state_close(st);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_and_rows),
		cmocka_unit_test(test_aggregate_is_order_independent),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_concurrent_writers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
