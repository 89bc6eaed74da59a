/* test-deploy.c: unit tests of the deployment engine (src/deploy) without
 * the command line: a state store in a temporary IMC_HOME and the dummy
 * cloud. Recovery of the infrastructure of a worker that died, the session
 * cache opening one session per (cloud, credential), teardown removing the
 * rows of what the cloud removed (and keeping them when it refused), a VM
 * stopped and started again coming back to its contextualization outcome,
 * the contextualization's choice of VMs on a cloud without SSH, the
 * infrastructure's aggregate state, and a job's progress lines read back
 * and shown as text, bar and event. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "deploy/deploy.h"
#include "deploy/worker.h"
#include "state/store.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define ID "dddd0000-0000-4000-8000-000000000001"
/* the RADL of every test: system s, contextualized by its configure */
#define RADL "system s ()\nconfigure s (\n@begin\n- hosts: all\n  tasks:\n    - debug: msg=x\n@end\n)\n"

static char home[64];
static char calls[96];     /* the dummy cloud's call log (IMC_DUMMY_LOG) */

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/imc-test-deploy-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	snprintf(home, sizeof(home), "%s/home", tmpl);
	snprintf(calls, sizeof(calls), "%s/calls", tmpl);
	setenv("IMC_DUMMY_LOG", calls, 1);
	unsetenv("IMC_DUMMY_FAIL");
	unsetenv("IMC_DUMMY_FAIL_VM");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("IMC_DUMMY_FAIL");
	char *cmd = xasprintf("rm -rf '%.*s'", (int)(strrchr(home, '/') - home), home);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

/* A store holding infrastructure ID in phase, its worker pid. */
static struct state_store *open_with_infra(enum infra_phase phase, pid_t worker)
{
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	assert_non_null(st);
	struct state_infra in = { .id = (char *)(uintptr_t)ID, .radl = (char *)(uintptr_t)RADL,
				  .phase = phase, .worker_pid = worker,
				  .worker_start = worker ? 1 : 0 };
	assert_int_equal(state_infra_insert(st, &in, &d), 0);
	diag_release(&d);
	return st;
}

static void add_vm(struct state_store *st, int num, enum vm_state s, int ctxt, const char *cloud_id)
{
	struct diag d = DIAG_INIT;
	struct state_vm vm = { .infra_id = (char *)(uintptr_t)ID, .num = num, .system = (char *)(uintptr_t)"s",
			       .cloud = (char *)(uintptr_t)"dummy", .state = s, .ctxt = ctxt,
			       .cloud_id = (char *)(uintptr_t)cloud_id };
	assert_int_equal(state_vm_insert(st, &vm, &d), 0);
	diag_release(&d);
}

static void add_step(struct state_store *st, int step, int vm, const char *conf, enum step_status s)
{
	struct diag d = DIAG_INIT;
	struct state_step row = { .step = step, .vm = vm, .configure = (char *)(uintptr_t)conf, .status = s };
	assert_int_equal(state_step_set(st, ID, &row, &d), 0);
	diag_release(&d);
}

static enum vm_state vm_state_of(struct state_store *st, int num)
{
	struct diag d = DIAG_INIT;
	struct state_vm vm;
	assert_int_equal(state_vm_get(st, ID, num, &vm, &d), 0);
	enum vm_state s = vm.state;
	state_vm_release(&vm);
	diag_release(&d);
	return s;
}

/* The stored row of infrastructure ID, as the commands pass it. */
static void get_infra(struct state_store *st, struct state_infra *in)
{
	struct diag d = DIAG_INIT;
	assert_int_equal(state_infra_get(st, ID, in, &d), 0);
	diag_release(&d);
}

static size_t count_vms(struct state_store *st)
{
	struct diag d = DIAG_INIT;
	struct state_vm *vms = NULL;
	size_t n = 0;
	assert_int_equal(state_vm_list(st, ID, &vms, &n, &d), 0);
	state_vm_list_free(vms, n);
	diag_release(&d);
	return n;
}

static size_t count_nets(struct state_store *st)
{
	struct diag d = DIAG_INIT;
	struct state_net *nets = NULL;
	size_t n = 0;
	assert_int_equal(state_net_list(st, ID, &nets, &n, &d), 0);
	state_net_list_free(nets, n);
	diag_release(&d);
	return n;
}

static char *read_calls(void)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, calls) < 0)
		return xstrdup("");
	return strbuf_detach(&sb);
}

/* The worker died (its pid is not alive) in the middle of a deployment:
 * the VM the cloud never confirmed is failed, the one being configured
 * unconfigured, a configured one stays; per VM the first unfinished step
 * failed and the later ones were skipped; the phase is interrupted. */
static void test_recover_dead_worker(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	/* a pid that exists in no process: above the kernel's pid_max */
	struct state_store *st = open_with_infra(PHASE_CONFIGURING, 4194304 + 7);
	add_vm(st, 0, VM_PENDING, -1, NULL);
	add_vm(st, 1, VM_RUNNING, -1, "dummy-1");
	add_vm(st, 2, VM_CONFIGURED, 1, "dummy-2");
	add_step(st, 1, 1, "a", STEP_OK);
	add_step(st, 2, 1, "b", STEP_RUNNING);
	add_step(st, 3, 1, "c", STEP_PENDING);
	struct state_infra in;
	get_infra(st, &in);
	assert_int_equal(deploy_recover(st, &in, &d), 0);
	assert_false(diag_has_errors(&d));
	assert_int_equal(in.phase, PHASE_INTERRUPTED);
	assert_int_equal(in.worker_pid, 0);
	assert_int_equal(vm_state_of(st, 0), VM_FAILED);
	assert_int_equal(vm_state_of(st, 1), VM_UNCONFIGURED);
	assert_int_equal(vm_state_of(st, 2), VM_CONFIGURED);
	struct state_step *steps = NULL;
	size_t ns = 0;
	assert_int_equal(state_step_list(st, ID, &steps, &ns, &d), 0);
	assert_int_equal(ns, 3);
	for (size_t i = 0; i < ns; i++) {
		enum step_status want = steps[i].step == 1 ? STEP_OK : steps[i].step == 2 ? STEP_FAILED : STEP_SKIPPED;
		assert_int_equal(steps[i].status, want);
		if (steps[i].step == 2)
			assert_non_null(strstr(steps[i].error, "deployment worker died"));
	}
	state_step_list_free(steps, ns);
	struct strbuf log = STRBUF_INIT;
	assert_int_equal(state_log_get(st, ID, -2, &log, &d), 0);
	assert_non_null(strstr(strbuf_str(&log), "ended before finishing the configuring phase"));
	strbuf_release(&log);
	/* the outcome is the aggregate getstate shows */
	struct state_vm *vms = NULL;
	size_t n = 0;
	assert_int_equal(state_vm_list(st, ID, &vms, &n, &d), 0);
	assert_int_equal(deploy_state(&in, vms, n), VM_FAILED);
	state_vm_list_free(vms, n);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* A worker that is alive (this process, with its real start time) is left
 * alone: nothing is recorded over its work. */
static void test_recover_live_worker(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = open_with_infra(PHASE_CREATING, 0);
	assert_int_equal(state_infra_set_worker(st, ID, getpid(), state_proc_start_time(getpid()), &d), 0);
	add_vm(st, 0, VM_PENDING, -1, NULL);
	struct state_infra in;
	get_infra(st, &in);
	assert_int_equal(deploy_recover(st, &in, &d), 0);
	assert_int_equal(in.phase, PHASE_CREATING);
	assert_int_equal(vm_state_of(st, 0), VM_PENDING);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* One session per (cloud, credential) pair, whatever the number of calls;
 * a cloud that cannot be opened is asked once and gives the same reason at
 * every call. */
static void test_session_cache(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = open_with_infra(PHASE_DONE, 0);
	struct state_infra in;
	get_infra(st, &in);
	struct deploy_sessions c = { 0 };
	const char *err = NULL;
	enum imc_exit code = IMC_EXIT_OK;
	struct cloud_session *a = deploy_session(&c, st, &in, "dummy", NULL, NULL, &err, &code);
	assert_non_null(a);
	assert_null(err);
	assert_int_equal(code, IMC_EXIT_OK);
	assert_string_equal(a->drv->name, "dummy");
	assert_ptr_equal(deploy_session(&c, st, &in, "dummy", NULL, NULL, &err, NULL), a);
	assert_int_equal(c.n, 1);
	struct cloud_session *b = deploy_session(&c, st, &in, "dummy", "cred-b", NULL, &err, NULL);
	assert_non_null(b);
	assert_int_equal(c.n, 2);
	/* the cache may have moved: compare through the cache itself */
	assert_ptr_equal(deploy_session(&c, st, &in, "dummy", NULL, NULL, &err, NULL), &c.s[0]);
	assert_ptr_equal(deploy_session(&c, st, &in, "dummy", "cred-b", NULL, &err, NULL), &c.s[1]);
	assert_int_equal(c.n, 2);
	assert_null(deploy_session(&c, st, &in, "no-such-cloud", NULL, NULL, &err, &code));
	assert_non_null(strstr(err, "not supported"));
	assert_int_equal(code, IMC_EXIT_UNAVAILABLE);
	const char *first = err;
	assert_null(deploy_session(&c, st, &in, "no-such-cloud", NULL, NULL, &err, NULL));
	assert_ptr_equal(err, first);
	assert_int_equal(c.n, 3);
	deploy_sessions_free(&c);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* Teardown asks the cloud to destroy each VM and network, cleans up per
 * cloud, and deletes the rows; when the cloud refuses, the VM's row and
 * state stay (destroy can be run again) unless forced. */
static void test_teardown(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = open_with_infra(PHASE_DONE, 0);
	add_vm(st, 0, VM_CONFIGURED, 1, "dummy-0");
	add_vm(st, 1, VM_STOPPED, 1, "dummy-1");
	struct state_net net = { .infra_id = (char *)(uintptr_t)ID, .name = (char *)(uintptr_t)"pub",
				 .cloud = (char *)(uintptr_t)"dummy", .cloud_id = (char *)(uintptr_t)"dummy-net" };
	assert_int_equal(state_net_upsert(st, &net, &d), 0);
	struct state_infra in;
	get_infra(st, &in);

	/* the cloud refuses to destroy VM 1 */
	setenv("IMC_DUMMY_FAIL", "fail-destroy", 1);
	setenv("IMC_DUMMY_FAIL_VM", "1", 1);
	assert_int_equal(deploy_teardown(st, &in, NULL, false, &d), -1);
	assert_true(diag_has_errors(&d));
	diag_release(&d);
	struct state_vm *vms = NULL;
	size_t n = 0;
	assert_int_equal(state_vm_list(st, ID, &vms, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_int_equal(vms[0].num, 1);
	assert_int_equal(vms[0].state, VM_STOPPED);
	state_vm_list_free(vms, n);
	assert_int_equal(count_nets(st), 1);

	/* it accepts now: everything goes, in order */
	unsetenv("IMC_DUMMY_FAIL");
	unsetenv("IMC_DUMMY_FAIL_VM");
	assert_int_equal(deploy_teardown(st, &in, NULL, false, &d), 0);
	assert_false(diag_has_errors(&d));
	assert_int_equal(count_vms(st), 0);
	assert_int_equal(count_nets(st), 0);
	char *log = read_calls();
	assert_string_equal(log, "vm_destroy 0\nvm_destroy 1\nvm_destroy 1\nnet_destroy pub\ncleanup_infra " ID "\n");
	free(log);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* With force, a VM the cloud did not confirm deleting is forgotten with a
 * warning. */
static void test_teardown_force(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = open_with_infra(PHASE_DONE, 0);
	add_vm(st, 0, VM_CONFIGURED, 1, "dummy-0");
	struct state_infra in;
	get_infra(st, &in);
	setenv("IMC_DUMMY_FAIL", "fail-destroy", 1);
	assert_int_equal(deploy_teardown(st, &in, NULL, true, &d), 0);
	assert_false(diag_has_errors(&d));
	assert_true(d.n > 0);
	assert_int_equal(count_vms(st), 0);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* A configured VM stopped and started again is configured, not merely
 * running; a reboot the cloud refuses leaves the state alone. */
static void test_vm_op(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = open_with_infra(PHASE_DONE, 0);
	add_vm(st, 0, VM_CONFIGURED, 1, "dummy-0");
	struct state_infra in;
	get_infra(st, &in);
	struct state_vm vm;
	assert_int_equal(state_vm_get(st, ID, 0, &vm, &d), 0);
	assert_int_equal(deploy_vm_op(st, &in, NULL, &vm, VMOP_STOP, &d), 0);
	assert_int_equal(vm_state_of(st, 0), VM_STOPPED);
	assert_int_equal(deploy_vm_op(st, &in, NULL, &vm, VMOP_START, &d), 0);
	assert_int_equal(vm_state_of(st, 0), VM_CONFIGURED);
	assert_false(diag_has_errors(&d));
	setenv("IMC_DUMMY_FAIL", "fail-reboot", 1);
	assert_int_equal(deploy_vm_op(st, &in, NULL, &vm, VMOP_REBOOT, &d), -1);
	assert_true(diag_has_errors(&d));
	assert_int_equal(vm_state_of(st, 0), VM_CONFIGURED);
	state_vm_release(&vm);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* Contextualization of VMs on a cloud without SSH access (the dummy):
 * the VMs that take part (alive and in the list) are recorded configured
 * without running anything, and why is logged; a VM outside the list or
 * not alive is left as it was. */
static void test_contextualize_no_ssh(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct state_store *st = open_with_infra(PHASE_CONFIGURING, 0);
	add_vm(st, 0, VM_RUNNING, -1, "dummy-0");
	add_vm(st, 1, VM_RUNNING, -1, "dummy-1");
	add_vm(st, 2, VM_FAILED, -1, NULL);
	struct state_infra in;
	get_infra(st, &in);
	assert_int_equal(deploy_contextualize(st, &in, "0,2", &d), 0);
	assert_false(diag_has_errors(&d));
	assert_int_equal(vm_state_of(st, 0), VM_CONFIGURED);
	assert_int_equal(vm_state_of(st, 1), VM_RUNNING);
	assert_int_equal(vm_state_of(st, 2), VM_FAILED);
	struct strbuf log = STRBUF_INIT;
	assert_int_equal(state_log_get(st, ID, 0, &log, &d), 0);
	assert_non_null(strstr(strbuf_str(&log), "has no SSH access"));
	strbuf_release(&log);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
}

/* The aggregate: deleting while destroying, pending with no VMs while the
 * worker has not started them, failed with no VMs afterwards. */
static void test_state(void **state)
{
	(void)state;
	struct state_infra in = { .phase = PHASE_CREATING };
	assert_int_equal(deploy_state(&in, NULL, 0), VM_PENDING);
	in.phase = PHASE_DONE;
	assert_int_equal(deploy_state(&in, NULL, 0), VM_FAILED);
	struct state_vm vms[2] = { { .state = VM_CONFIGURED }, { .state = VM_CONFIGURED } };
	assert_int_equal(deploy_state(&in, vms, 2), VM_CONFIGURED);
	in.phase = PHASE_DESTROYING;
	assert_int_equal(deploy_state(&in, vms, 2), VM_DELETING);
}

/* The provisioner's progress line, parsed, shown as a line, a bar and an
 * event; lines that only look like one are not progress. */
static void test_progress(void **state)
{
	(void)state;
	assert_null(deploy_progress_parse("FAILED - RETRYING: [h]: wait (3 retries left)."));
	assert_null(deploy_progress_parse("PROGRESS: [h] not json"));
	assert_null(deploy_progress_parse("PROGRESS: [h] {\"loss\": 1}"));
	assert_null(deploy_progress_parse("x PROGRESS: [h] {\"step\": 1}"));
	json_t *ev = deploy_progress_parse("PROGRESS: [worker-1.localdomain] {\"step\": 120, \"epoch\": 1.2, "
					   "\"loss\": 0.42101, \"examples_per_sec\": 812.4, "
					   "\"accuracy\": 0.81123, \"fraction\": 0.4, \"eta_s\": 3725}");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "host")), "worker-1.localdomain");
	struct strbuf sb = STRBUF_INIT;
	deploy_progress_text(&sb, 1, ev);
	assert_string_equal(sb.buf, "VM 1: step 120 (40%)  epoch 1.20  loss 0.4210  accuracy 0.8112  "
				    "812 examples/s  ETA 1h02m");
	strbuf_release(&sb);
	deploy_progress_bar(&sb, ev, 10);
	assert_string_equal(sb.buf, "[####------]  40% step 120  epoch 1.20  loss 0.4210  accuracy 0.8112  "
				    "812 examples/s  ETA 1h02m");
	strbuf_release(&sb);
	json_t *j = deploy_progress_event(1, ev);
	assert_string_equal(json_string_value(json_object_get(j, "event")), "progress");
	assert_int_equal(json_integer_value(json_object_get(j, "vm")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "format")), DEPLOY_EVENT_FORMAT);
	assert_int_equal(json_integer_value(json_object_get(j, "step")), 120);
	json_decref(j);
	json_decref(ev);
	/* what is unknown is left out, not shown as zero */
	ev = deploy_progress_parse("PROGRESS: [h] {\"step\": 7, \"eta_s\": 65}");
	deploy_progress_text(&sb, -1, ev);
	assert_string_equal(sb.buf, "step 7  ETA 1m05s");
	strbuf_release(&sb);
	json_decref(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recover_dead_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_live_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown_force, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contextualize_no_ssh, setup, teardown),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
