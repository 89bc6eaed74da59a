/* ps_exchange.c: throughput of imc-train's parameter exchange against raw
 * loopback TCP, in the same run (issue 8's bench; it reports, never fails
 * on speed).
 *
 *   bench/ps_exchange [ITERATIONS] [MODEL] [async|sync]   (500, cnn, async)
 *
 * 1. PS: a real parameter server (ps_run; in either mode every push is
 *    answered at once, the chief being the only worker) in a child
 *    process; this process is the chief: it
 *    initialises the parameters, then ITERATIONS times pushes a gradient of
 *    the whole model and receives the new parameters (one PUSH + PARAMS
 *    exchange, what a worker does every step). The PS validates the message,
 *    checks the gradient is finite and applies SGD with momentum each time.
 * 2. Raw: the same bytes over a plain TCP connection on loopback with the
 *    same socket options: send the gradient-sized buffer, the peer reads it
 *    all and sends a parameter-sized buffer back (ping-pong of equal sizes).
 * The two alternate in blocks of 10 exchanges, so that other load on the
 * machine hits both alike. Prints MB/s of float payload (gradient out +
 * parameters back), median and best over the blocks, and the ratio: the
 * median over the pairs of neighbouring blocks (PS block, then raw block)
 * of raw time / PS time, which load that comes and goes disturbs least;
 * the ratios of the medians and of the bests follow for comparison. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trainer/cluster.h"
#include "trainer/model.h"
#include "trainer/ps-server.h"
#include "trainer/train-opts.h"
#include "trainer/wire.h"
#include "trainer/ps-client.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int listen_any(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sl) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		perror("ps_exchange: listen");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

static void die(struct diag *d)
{
	diag_print(d, stderr);
	exit(1);
}

static int io_all(int fd, void *buf, size_t n, bool wr)
{
	char *p = buf;
	while (n) {
		ssize_t r = wr ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Raw TCP peer: a child that answers every n-byte message with an n-byte
 * message until the connection closes. Returns the connected socket. */
static int raw_start(size_t n, pid_t *child)
{
	int port;
	int lfd = listen_any(&port);
	pid_t pid = fork();
	if (pid == 0) {
		int c = accept(lfd, NULL, NULL);
		wire_tune_socket(c);
		char *buf = xmalloc(n);
		for (;;)
			if (io_all(c, buf, n, false) < 0 || io_all(c, buf, n, true) < 0)
				_exit(0);
	}
	close(lfd);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("ps_exchange: connect");
		exit(1);
	}
	wire_tune_socket(fd);
	*child = pid;
	return fd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define USAGE "usage: ps_exchange [ITERATIONS [MODEL [async|sync [auth]]]]   (default 500 cnn async)\n" \
	"  MODEL: mlp, cnn or a model spec file; auth: the PS and the chief share a\n" \
	"  secret (wire-auth.h: handshake, then an HMAC-SHA256 tag on every frame)\n"

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(USAGE, stdout);
		return 0;
	}
	if (argc > 5) {
		fputs("ps_exchange: too many arguments\n" USAGE, stderr);
		return 64;
	}
	diag_set_program("ps_exchange");
	struct diag d = DIAG_INIT;
	long iters = 500;
	if (argc > 1 && trainer_parse_long("ITERATIONS", argv[1], 1, 1000000, &iters, &d) < 0) {
		diag_print(&d, stderr);
		fputs(USAGE, stderr);
		return 64;
	}
	const char *model = argc > 2 ? argv[2] : "cnn";
	const char *mode_name = argc > 3 ? argv[3] : "async";
	if (strcmp(mode_name, "async") != 0 && strcmp(mode_name, "sync") != 0) {
		fprintf(stderr, "ps_exchange: mode must be async or sync, not '%s'\n" USAGE, mode_name);
		return 64;
	}
	enum wire_mode mode = mode_name[0] == 'a' ? WIRE_MODE_ASYNC : WIRE_MODE_SYNC;
	if (argc > 4 && strcmp(argv[4], "auth") != 0) {
		fprintf(stderr, "ps_exchange: the fourth argument can only be 'auth'\n" USAGE);
		return 64;
	}
	/* a fixed key: this measures the cost of the tags, not secrecy */
	static unsigned char bench_key[] = "ps_exchange bench secret, 32 b.";
	struct wire_secret secret = { argc > 4 ? bench_key : NULL, sizeof(bench_key) - 1 };
	log_set_level(LOG_WARN);
	signal(SIGPIPE, SIG_IGN);

	struct model *m = model_new(model, 1, &d);
	if (!m)
		die(&d);
	struct wire_layout l = { 0 };
	for (int i = 0; i < model_num_tensors(m); i++) {
		const struct model_tensor *t = model_tensor(m, i);
		uint32_t dims[WIRE_MAX_RANK];
		for (int k = 0; k < t->ndim; k++)
			dims[k] = (uint32_t)t->shape[k];
		if (wire_layout_add(&l, t->name, t->ndim, dims, &d) < 0)
			die(&d);
	}
	size_t np = model_num_params(m);

	int port;
	int lfd = listen_any(&port);
	char addr[64], chief_addr[] = "127.0.0.1:1";
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	char *ps_list[1] = { addr }, *chief_list[1] = { chief_addr };
	struct cluster cl = { .ps = ps_list, .n_ps = 1, .chief = chief_list, .n_chief = 1,
			      .task_index = -1 };
	pid_t pid = fork();
	if (pid == 0) {
		struct ps_config cfg = { .cluster = &cl, .index = 0, .layout = &l,
					 .mode = mode, .sync_timeout = 60,
					 .init_timeout = 60, .io_timeout = 60, .listen_fd = lfd,
					 .secret = &secret };
		_exit(ps_run(&cfg, &d) == 0 ? 0 : 1);
	}
	close(lfd);
	struct ps_client wc;
	struct worker_opts wo = { .role = WIRE_ROLE_CHIEF, .task_index = 0, .worker_id = 0,
				  .mode = mode, .connect_timeout = 10, .rpc_timeout = 60,
				  .secret = &secret };
	if (ps_client_open(&wc, &cl, &l, &wo, &d) < 0)
		die(&d);
	float *params = xmalloc(np * sizeof(float)), *grads = xmalloc(np * sizeof(float));
	model_init_params(m, 1);
	memcpy(params, model_params(m), np * sizeof(float));
	for (size_t i = 0; i < np; i++)
		grads[i] = 1e-7f * (float)(i % 13);
	if (ps_client_init(&wc, params, NULL, 0, 1e-6f, 0.9f, &d) < 0)
		die(&d);
	size_t n = np * sizeof(float);
	pid_t raw_pid;
	int rfd = raw_start(n, &raw_pid);
	char *rbuf = xcalloc(1, n);
	/* alternate blocks of PS and raw exchanges so that whatever else runs on
	 * the machine slows both alike; compare the medians of the blocks */
	enum { BLOCK = 10 };
	int nblocks = (int)((iters + BLOCK - 1) / BLOCK);
	double *tps = xcalloc((size_t)nblocks, sizeof(double));
	double *traw = xcalloc((size_t)nblocks, sizeof(double));
	for (int i = 0; i < 5; i++) /* warm-up */
		if (ps_client_push(&wc, grads, params, wc.step, 64, 0, &d) != 0 ||
		    io_all(rfd, rbuf, n, true) < 0 || io_all(rfd, rbuf, n, false) < 0)
			die(&d);
	uint64_t bytes0 = wc.bytes_in + wc.bytes_out;
	for (int b = 0; b < nblocks; b++) {
		double t0 = now_s();
		for (int i = 0; i < BLOCK; i++)
			if (ps_client_push(&wc, grads, params, wc.step, 64, 0, &d) != 0)
				die(&d);
		double t1 = now_s();
		for (int i = 0; i < BLOCK; i++)
			if (io_all(rfd, rbuf, n, true) < 0 || io_all(rfd, rbuf, n, false) < 0) {
				fputs("ps_exchange: raw peer failed\n", stderr);
				exit(1);
			}
		double t2 = now_s();
		tps[b] = (t1 - t0) / BLOCK;
		traw[b] = (t2 - t1) / BLOCK;
	}
	uint64_t wire_bytes = wc.bytes_in + wc.bytes_out - bytes0;
	close(rfd);
	waitpid(raw_pid, NULL, 0);
	if (ps_client_shutdown(&wc, &d) < 0)
		die(&d);
	ps_client_close(&wc);
	int st;
	waitpid(pid, &st, 0);

	double best_ps = tps[0], best_raw = traw[0];
	double *pair = xcalloc((size_t)nblocks, sizeof(double));
	for (int b = 0; b < nblocks; b++) {
		best_ps = tps[b] < best_ps ? tps[b] : best_ps;
		best_raw = traw[b] < best_raw ? traw[b] : best_raw;
		pair[b] = traw[b] / tps[b];
	}
	double mpair = median(pair, nblocks);
	double mps = median(tps, nblocks), mraw = median(traw, nblocks);
	double mb = 2.0 * (double)n / 1e6; /* gradient out + parameters back */
	printf("ps_exchange: model %s, %s PS%s, %zu params (%.2f MB each way), %d exchanges of each kind in blocks of %d\n",
	       model, mode_name, secret.key ? " (authenticated)" : "", np, (double)n / 1e6, nblocks * BLOCK, BLOCK);
	printf("  ps push+pull     : %8.1f MB/s median, %8.1f MB/s best (%.3f ms per exchange)\n",
	       mb / mps, mb / best_ps, mps * 1e3);
	printf("  raw tcp ping-pong: %8.1f MB/s median, %8.1f MB/s best (%.3f ms per exchange)\n",
	       mb / mraw, mb / best_raw, mraw * 1e3);
	printf("  ratio ps / raw: %.2f  (target >= 0.80; median of %d paired blocks; ratio of the medians %.2f, of the bests %.2f)\n",
	       mpair, nblocks, mraw / mps, best_raw / best_ps);
	printf("  protocol overhead: %.4f%% of the bytes on the wire\n",
	       100.0 * ((double)wire_bytes / (2.0 * (double)n * nblocks * BLOCK) - 1.0));
	free(pair);
	free(tps);
	free(traw);
	free(rbuf);
	free(params);
	free(grads);
	wire_layout_release(&l);
	model_free(m);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
