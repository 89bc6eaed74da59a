/* test-wire-ps.c: the parameter server in-process (a thread running
 * ps_run) against the real client code: sync averaging and async momentum
 * are exactly PyTorch's SGD, the state comes back for checkpoints, a
 * non-finite gradient is refused (the sender is disconnected and counted as
 * a lost worker) while the others carry on, an async PUSH overtaken halfway
 * by another is applied after it exactly as if they had come one by one,
 * a peer that pipelines a request while a large reply is still going out
 * is cut off without a foreign frame in the middle of that reply (and
 * without leaking the parameter buffer the reply pointed into: the
 * sanitizer build checks that), and SHUTDOWN ends ps_run. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "trainer/cluster.h"
#include "trainer/ps-server.h"
#include "trainer/wire.h"
#include "trainer/ps-client.h"
#include "util/log.h"

#define N 6

struct fixture {
	char addr[64];
	char *ps_list[1], *chief_list[1], *worker_list[1];
	struct cluster cl;
	struct wire_layout l;
	struct ps_config cfg;
	pthread_t th;
	int rc;
	struct diag d;
};

static void *ps_thread(void *arg)
{
	struct fixture *f = arg;
	f->rc = ps_run(&f->cfg, &f->d);
	return NULL;
}

/* A PS whose model is w [rows x 2] and b [2]: N floats when rows is 2. */
static void start_ps_rows(struct fixture *f, enum wire_mode mode, int nworkers, uint32_t rows)
{
	memset(f, 0, sizeof(*f));
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sl), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	snprintf(f->addr, sizeof(f->addr), "127.0.0.1:%d", ntohs(sa.sin_port));
	f->ps_list[0] = f->addr;
	f->chief_list[0] = (char *)(uintptr_t)"127.0.0.1:1";
	f->worker_list[0] = (char *)(uintptr_t)"127.0.0.1:2";
	f->cl = (struct cluster){ .ps = f->ps_list, .n_ps = 1, .chief = f->chief_list,
				  .n_chief = 1, .worker = f->worker_list,
				  .n_worker = (size_t)nworkers - 1, .task_index = -1 };
	uint32_t w[2] = { rows, 2 }, b[1] = { 2 };
	assert_int_equal(wire_layout_add(&f->l, "w", 2, w, &f->d), 0);
	assert_int_equal(wire_layout_add(&f->l, "b", 1, b, &f->d), 0);
	f->cfg = (struct ps_config){ .cluster = &f->cl, .index = 0, .layout = &f->l, .mode = mode,
				     .sync_timeout = 30, .init_timeout = 30, .io_timeout = 30,
				     .listen_fd = fd };
	assert_int_equal(pthread_create(&f->th, NULL, ps_thread, f), 0);
}

static void start_ps(struct fixture *f, enum wire_mode mode, int nworkers)
{
	start_ps_rows(f, mode, nworkers, 2);
}

static int stop_ps(struct fixture *f)
{
	pthread_join(f->th, NULL);
	close(f->cfg.listen_fd);
	wire_layout_release(&f->l);
	diag_release(&f->d);
	return f->rc;
}

static void open_client(struct fixture *f, struct ps_client *wc, int role, long id,
			enum wire_mode mode)
{
	struct diag d = DIAG_INIT;
	struct worker_opts o = { .role = role, .task_index = role == WIRE_ROLE_CHIEF ? 0 : id - 1,
				 .worker_id = id, .mode = mode, .connect_timeout = 10,
				 .rpc_timeout = 30 };
	if (ps_client_open(wc, &f->cl, &f->l, &o, &d) < 0)
		fail_msg("open: %s", diag_first_message(&d));
	diag_release(&d);
}

struct wctx {
	struct fixture *f;
	float p[N], g[N];
	int rc;
};

/* worker 1: pull, push one gradient, then push a NaN (and be dropped) */
static void *worker_thread(void *arg)
{
	struct wctx *w = arg;
	struct ps_client wc;
	struct diag d = DIAG_INIT;
	open_client(w->f, &wc, WIRE_ROLE_WORKER, 1, WIRE_MODE_SYNC);
	w->rc = ps_client_pull(&wc, w->p, &d);
	if (w->rc == 0)
		w->rc = ps_client_push(&wc, w->g, w->p, 0, 4, 1.0f, &d);
	/* now a poisoned gradient: the PS must refuse it and hang up */
	float bad[N];
	memcpy(bad, w->g, sizeof(bad));
	bad[3] = NAN;
	if (w->rc == 0 && ps_client_push(&wc, bad, w->p, 1, 4, 1.0f, &d) != -1)
		w->rc = 99;
	else if (w->rc == 0 && !strstr(diag_first_message(&d), "non-finite"))
		w->rc = 98;
	ps_client_close(&wc);
	diag_release(&d);
	return NULL;
}

static void test_sync_average_and_nan(void **state)
{
	(void)state;
	struct fixture f;
	start_ps(&f, WIRE_MODE_SYNC, 2);
	struct ps_client chief;
	struct diag d = DIAG_INIT;
	open_client(&f, &chief, WIRE_ROLE_CHIEF, 0, WIRE_MODE_SYNC);
	float p0[N] = { 1, 2, 3, 4, 5, 6 }, p[N], g1[N] = { 1, 1, 1, 1, 1, 1 };
	assert_int_equal(ps_client_init(&chief, p0, NULL, 0, 0.5f, 0.0f, &d), 0);
	assert_int_equal(ps_client_pull(&chief, p, &d), 0);
	assert_memory_equal(p, p0, sizeof(p));

	struct wctx w = { .f = &f, .g = { 3, -1, 0, 2, 0.5f, 1 } };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, worker_thread, &w), 0);
	assert_int_equal(ps_client_push(&chief, g1, p, 0, 4, 1.0f, &d), 0);
	assert_int_equal(chief.step, 1);
	for (int i = 0; i < N; i++) { /* v = 0*v + (1/2)*(g1 + g2); p -= lr*v, exactly */
		float v = 0.0f * 0.0f + 0.5f * (g1[i] + w.g[i]);
		assert_true(p[i] == p0[i] - 0.5f * v);
	}
	pthread_join(th, NULL);
	assert_int_equal(w.rc, 0);
	assert_memory_equal(w.p, p, sizeof(p));

	/* the NaN sender is gone: the next round is the chief's alone */
	float p1[N];
	memcpy(p1, p, sizeof(p));
	assert_int_equal(ps_client_push(&chief, g1, p, 1, 4, 1.0f, &d), 0);
	assert_int_equal(chief.step, 2);
	for (int i = 0; i < N; i++)
		assert_true(p[i] == p1[i] - 0.5f * (0.0f + 1.0f * g1[i]));
	struct wire_stats st;
	assert_int_equal(ps_client_stats(&chief, &st, &d), 0);
	assert_int_equal(st.workers_lost, 1);
	assert_int_equal(st.rounds_short, 1);
	assert_int_equal(st.step, 2);
	assert_int_equal(st.examples, 12);
	assert_int_equal(ps_client_shutdown(&chief, &d), 0);
	ps_client_close(&chief);
	assert_int_equal(stop_ps(&f), 0);
	diag_release(&d);
}

static void test_async_momentum_and_state(void **state)
{
	(void)state;
	struct fixture f;
	start_ps(&f, WIRE_MODE_ASYNC, 1);
	struct ps_client chief;
	struct diag d = DIAG_INIT;
	open_client(&f, &chief, WIRE_ROLE_CHIEF, 0, WIRE_MODE_ASYNC);
	float p0[N] = { 1, 2, 3, 4, 5, 6 }, p[N], g[N] = { 1, -2, 0.5f, 0, 4, -1 };
	const float lr = 0.1f, mu = 0.9f;
	assert_int_equal(ps_client_init(&chief, p0, NULL, 7, lr, mu, &d), 0);
	assert_int_equal(ps_client_pull(&chief, p, &d), 0);
	assert_int_equal(chief.step, 7);
	float ref_p[N], ref_v[N] = { 0 };
	memcpy(ref_p, p0, sizeof(ref_p));
	for (int k = 0; k < 3; k++) {
		assert_int_equal(ps_client_push(&chief, g, p, chief.step, 4, 1.0f, &d), 0);
		for (int i = 0; i < N; i++) {
			ref_v[i] = mu * ref_v[i] + g[i];
			ref_p[i] -= lr * ref_v[i];
			assert_true(p[i] == ref_p[i]); /* the same roundings as the formula */
		}
		assert_int_equal(chief.staleness, 0);
	}
	/* a push computed on old parameters is stale by 2 */
	assert_int_equal(ps_client_push(&chief, g, p, chief.step - 2, 4, 1.0f, &d), 0);
	assert_int_equal(chief.staleness, 2);
	for (int i = 0; i < N; i++) {
		ref_v[i] = mu * ref_v[i] + g[i];
		ref_p[i] -= lr * ref_v[i];
	}
	float sp[N], sv[N];
	uint64_t step;
	assert_int_equal(ps_client_state(&chief, sp, sv, &step, &d), 0);
	assert_int_equal(step, 11);
	for (int i = 0; i < N; i++) {
		assert_true(sp[i] == ref_p[i]);
		assert_true(sv[i] == ref_v[i]);
	}
	struct wire_stats st;
	assert_int_equal(ps_client_stats(&chief, &st, &d), 0);
	assert_int_equal(st.staleness_max, 2);
	assert_int_equal(st.staleness_sum, 2);
	assert_int_equal(ps_client_shutdown(&chief, &d), 0);
	ps_client_close(&chief);
	assert_int_equal(stop_ps(&f), 0);
	diag_release(&d);
}

/* Writes the first 'floats' gradient values of a PUSH frame (header and
 * fixed part first) on fd; the rest follows with push_rest. */
static void push_part(int fd, uint64_t step, const float *g, size_t floats)
{
	unsigned char b[WIRE_HDR_SIZE + WIRE_PUSH_FIXED];
	struct wire_push m = { .step = step, .count = N, .examples = 4, .loss = 1.0f };
	wire_hdr_encode(b, WIRE_PUSH, (uint32_t)(WIRE_PUSH_FIXED + N * sizeof(float)));
	wire_push_encode(&m, b + WIRE_HDR_SIZE);
	assert_int_equal(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	assert_int_equal(write(fd, g, floats * sizeof(float)), (ssize_t)(floats * sizeof(float)));
}

static void push_rest(int fd, const float *g, size_t from)
{
	size_t n = (N - from) * sizeof(float);
	assert_int_equal(write(fd, g + from, n), (ssize_t)n);
}

static void recv_params(int fd, float *p)
{
	struct diag d = DIAG_INIT;
	struct wire_hdr h;
	unsigned char b[WIRE_PARAMS_FIXED + N * sizeof(float)];
	assert_int_equal(wire_recv_hdr(fd, &h, NULL, &d), 0);
	assert_int_equal(h.type, WIRE_PARAMS);
	assert_int_equal(h.length, sizeof(b));
	assert_int_equal(wire_recv_full(fd, b, sizeof(b), NULL, &d), 0);
	memcpy(p, b + WIRE_PARAMS_FIXED, N * sizeof(float));
	diag_release(&d);
}

static void sgd_ref(float *p, float *v, const float *g, float lr, float mu)
{
	for (int i = 0; i < N; i++) {
		v[i] = mu * v[i] + g[i];
		p[i] -= lr * v[i];
	}
}

static void test_async_interleaved_pushes(void **state)
{
	(void)state;
	struct fixture f;
	start_ps(&f, WIRE_MODE_ASYNC, 2);
	struct ps_client chief, w1;
	struct diag d = DIAG_INIT;
	open_client(&f, &chief, WIRE_ROLE_CHIEF, 0, WIRE_MODE_ASYNC);
	open_client(&f, &w1, WIRE_ROLE_WORKER, 1, WIRE_MODE_ASYNC);
	float p0[N] = { 1, -2, 3, 0.25f, 5, 6 }, p[N], q[N];
	float ga[N] = { 0.5f, 1, -1, 2, 0.125f, 3 }, gb[N] = { -3, 0.5f, 2, 1, -1, 0.75f };
	const float lr = 0.05f, mu = 0.9f;
	assert_int_equal(ps_client_init(&chief, p0, NULL, 0, lr, mu, &d), 0);
	assert_int_equal(ps_client_pull(&w1, q, &d), 0);
	float ref_p[N], ref_v[N] = { 0 };
	memcpy(ref_p, p0, sizeof(ref_p));

	/* the chief's PUSH stops halfway; worker 1's whole PUSH overtakes it */
	int fd = chief.ps[0].fd;
	push_part(fd, 0, ga, N / 2);
	assert_int_equal(ps_client_push(&w1, gb, q, 0, 4, 1.0f, &d), 0);
	sgd_ref(ref_p, ref_v, gb, lr, mu);
	assert_memory_equal(q, ref_p, sizeof(q));
	push_rest(fd, ga, N / 2);
	recv_params(fd, p);
	sgd_ref(ref_p, ref_v, ga, lr, mu);
	assert_memory_equal(p, ref_p, sizeof(p));

	/* a PUSH poisoned in its second half leaves no trace of its first */
	float bad[N];
	memcpy(bad, gb, sizeof(bad));
	bad[N - 1] = INFINITY;
	int wfd = w1.ps[0].fd;
	push_part(wfd, 2, bad, N / 2);
	push_rest(wfd, bad, N / 2);
	struct wire_hdr h;
	assert_int_equal(wire_recv_hdr(wfd, &h, NULL, &d), 0);
	assert_int_equal(h.type, WIRE_ERROR);
	ps_client_close(&w1);
	assert_int_equal(ps_client_push(&chief, ga, p, 2, 4, 1.0f, &d), 0);
	sgd_ref(ref_p, ref_v, ga, lr, mu);
	assert_memory_equal(p, ref_p, sizeof(p));
	float sp[N], sv[N];
	uint64_t step;
	assert_int_equal(ps_client_state(&chief, sp, sv, &step, &d), 0);
	assert_int_equal(step, 3);
	assert_memory_equal(sp, ref_p, sizeof(sp));
	assert_memory_equal(sv, ref_v, sizeof(sv));
	assert_int_equal(ps_client_shutdown(&chief, &d), 0);
	ps_client_close(&chief);
	assert_int_equal(stop_ps(&f), 0);
	diag_release(&d);
}

static void test_chief_loss_fails_the_job(void **state)
{
	(void)state;
	struct fixture f;
	start_ps(&f, WIRE_MODE_SYNC, 1);
	struct ps_client chief;
	struct diag d = DIAG_INIT;
	open_client(&f, &chief, WIRE_ROLE_CHIEF, 0, WIRE_MODE_SYNC);
	float p0[N] = { 0 };
	assert_int_equal(ps_client_init(&chief, p0, NULL, 0, 0.1f, 0.5f, &d), 0);
	ps_client_close(&chief); /* dies without SHUTDOWN */
	pthread_join(f.th, NULL);
	assert_int_equal(f.rc, -1);
	assert_int_equal(f.d.code, IMC_EXIT_TEMPFAIL);
	assert_non_null(strstr(diag_first_message(&f.d), "chief lost"));
	close(f.cfg.listen_fd);
	wire_layout_release(&f.l);
	diag_release(&f.d);
	diag_release(&d);
}

/* A probe sends PULL twice without reading: the first reply (16 MB of
 * parameters, more than loopback buffers hold) is still going out when
 * the second request arrives. The PS can only close the connection: an
 * ERROR frame queued then would land inside the PARAMS frame, and the
 * reply's reference to the parameter buffer would be lost. The PS then
 * goes on serving the chief. */
static void test_pipelined_request_during_big_reply(void **state)
{
	(void)state;
	const uint32_t rows = 2u << 20;
	const size_t count = (size_t)rows * 2 + 2;
	struct fixture f;
	start_ps_rows(&f, WIRE_MODE_ASYNC, 1, rows);
	struct ps_client chief, probe;
	struct diag d = DIAG_INIT;
	open_client(&f, &chief, WIRE_ROLE_CHIEF, 0, WIRE_MODE_ASYNC);
	float *p0 = malloc(count * sizeof(float)), *p = malloc(count * sizeof(float));
	assert_non_null(p0);
	assert_non_null(p);
	for (size_t i = 0; i < count; i++)
		p0[i] = (float)(i % 1000003) + 0.5f;
	assert_int_equal(ps_client_init(&chief, p0, NULL, 0, 0.1f, 0.9f, &d), 0);
	open_client(&f, &probe, WIRE_ROLE_PROBE, -1, WIRE_MODE_ASYNC);

	unsigned char two[2 * WIRE_HDR_SIZE];
	wire_hdr_encode(two, WIRE_PULL, 0);
	wire_hdr_encode(two + WIRE_HDR_SIZE, WIRE_PULL, 0);
	int fd = probe.ps[0].fd;
	assert_int_equal(write(fd, two, sizeof(two)), (ssize_t)sizeof(two));
	/* Nothing is read until the PS has closed: the reply cannot be
	 * written whole while no one reads (16 MB is more than the loopback
	 * buffers hold), so the PS meets the second PULL with it pending.
	 * Reading meanwhile made that a race: a reader draining the socket
	 * while the PS wrote let the whole reply go out in one send, and the
	 * second PULL was then answered as a new request (seen on a loaded
	 * machine). The close is a reset, which poll reports as POLLHUP or
	 * POLLERR (events 0: not the POLLIN of the data waiting); the
	 * deadline only bounds a broken PS. */
	struct pollfd pf = { .fd = fd, .events = 0 };
	assert_int_equal(poll(&pf, 1, 60000), 1);
	assert_true(pf.revents & (POLLHUP | POLLERR));
	/* everything up to the PS's close: a prefix of one PARAMS frame
	 * (an ERROR queued over the reply would be lost in the reset; the
	 * sanitizer build catches the leak that came with it) */
	size_t frame = WIRE_HDR_SIZE + WIRE_PARAMS_FIXED + count * sizeof(float), got = 0;
	unsigned char *in = malloc(frame + 4096);
	assert_non_null(in);
	for (;;) {
		ssize_t r = read(fd, in + got, frame + 4096 - got);
		/* the PS closes with the second PULL unread: a reset, which
		 * also drops what it had not sent yet */
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			break;
		assert_true(r > 0);
		got += (size_t)r;
		assert_true(got < frame + 4096);
	}
	assert_true(got > WIRE_HDR_SIZE + WIRE_PARAMS_FIXED);
	assert_true(got < frame); /* cut off, not completed */
	struct wire_hdr h;
	assert_int_equal(wire_hdr_decode(in, &h, &d), 0);
	assert_int_equal(h.type, WIRE_PARAMS);
	size_t off = WIRE_HDR_SIZE + WIRE_PARAMS_FIXED;
	assert_memory_equal(in + off, p0, got - off);
	free(in);
	ps_client_close(&probe);

	assert_int_equal(ps_client_pull(&chief, p, &d), 0);
	assert_memory_equal(p, p0, count * sizeof(float));
	assert_int_equal(ps_client_shutdown(&chief, &d), 0);
	ps_client_close(&chief);
	assert_int_equal(stop_ps(&f), 0);
	free(p0);
	free(p);
	diag_release(&d);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_average_and_nan),
		cmocka_unit_test(test_async_momentum_and_state),
		cmocka_unit_test(test_async_interleaved_pushes),
		cmocka_unit_test(test_chief_loss_fails_the_job),
		cmocka_unit_test(test_pipelined_request_during_big_reply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
