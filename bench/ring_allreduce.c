/* ring_allreduce.c: bus bandwidth of imc-train's ring all-reduce against
 * raw TCP in the same ring (issue 21's bench; it reports, never fails on
 * speed).
 *
 *   bench/ring_allreduce [RANKS] [FLOATS] [BLOCKS] [auth]   (4, 857738 = cnn, 10)
 *
 * RANKS processes on loopback form two rings: one of ring.c (ring_open,
 * ring_allreduce on a FLOATS vector: framing, the reduction and the
 * pipeline included) and one of plain connections on which each rank
 * sends the same number of bytes an all-reduce sends, 2(N-1)/N of the
 * vector, to its next rank while receiving as much from its previous one
 * (raw bytes, no framing, no arithmetic): the best any ring all-reduce
 * could do on these sockets. Both alternate in blocks of 5, so that load
 * that comes and goes hits both alike. Bus bandwidth is NCCL's: bytes of
 * the vector x 2(N-1)/N per second. Rank 0 prints the medians, the bests
 * and the median of the per-pair ratios ring / raw (goal >= 0.9). With
 * 'auth' the ring runs authenticated (wire-auth.h: a tag on every frame),
 * which measures the cost of the tags. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trainer/ring.h"
#include "util/xalloc.h"

#define PER_BLOCK 5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double *c = xmalloc((size_t)n * sizeof(double));
	memcpy(c, v, (size_t)n * sizeof(double));
	qsort(c, (size_t)n, sizeof(double), cmp_d);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

static int listen_any(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sl) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		perror("ring_allreduce: listen");
		exit(1);
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Sends len bytes of src to next while receiving len bytes from prev. */
static int raw_exchange(int next, int prev, const char *src, char *dst, size_t len)
{
	size_t sent = 0, got = 0;
	while (sent < len || got < len) {
		struct pollfd pf[2] = { { .fd = sent < len ? next : -1, .events = POLLOUT },
					{ .fd = got < len ? prev : -1, .events = POLLIN } };
		if (poll(pf, 2, 10000) <= 0)
			return -1;
		if (pf[0].revents) {
			ssize_t w = send(next, src + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			sent += w > 0 ? (size_t)w : 0;
		}
		if (pf[1].revents) {
			ssize_t r = recv(prev, dst + got, len - got, MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				return -1;
			got += r > 0 ? (size_t)r : 0;
		}
	}
	return 0;
}

static struct wire_secret secret; /* 'auth': a fixed bench key */

static int rank_main(int rank, int n, size_t floats, int blocks, int *lfd, int *rawfd,
		     const char *const *addrs, const char *const *raw_addrs,
		     const char *const *names)
{
	struct diag d = DIAG_INIT;
	struct ring ring, raw;
	struct ring_opts o = { .connect_timeout = 30, .io_timeout = 60, .check = floats,
			       .secret = &secret };
	struct ring_opts ro = { .connect_timeout = 30, .io_timeout = 60, .check = floats };
	if (ring_open(&ring, rank, n, addrs, names, lfd[rank], &o, &d) < 0 ||
	    ring_open(&raw, rank, n, raw_addrs, names, rawfd[rank], &ro, &d) < 0) {
		diag_print(&d, stderr);
		return 1;
	}
	float *buf = xmalloc(floats * sizeof(float));
	for (size_t i = 0; i < floats; i++)
		buf[i] = (float)((i + (size_t)rank) % 7) * 0.25f;
	size_t bytes = floats * sizeof(float) * 2 * (size_t)(n - 1) / (size_t)n;
	char *src = xmalloc(bytes), *dst = xmalloc(bytes);
	memset(src, 1, bytes);
	double *tr = xcalloc((size_t)blocks, sizeof(double)), *tw = xcalloc((size_t)blocks, sizeof(double));
	/* warm up both */
	if (ring_allreduce(&ring, buf, floats, &d) < 0 ||
	    raw_exchange(raw.next_fd, raw.prev_fd, src, dst, bytes) < 0)
		goto fail;
	for (int b = 0; b < blocks; b++) {
		double t0 = now_s();
		for (int k = 0; k < PER_BLOCK; k++)
			if (ring_allreduce(&ring, buf, floats, &d) < 0)
				goto fail;
		double t1 = now_s();
		for (int k = 0; k < PER_BLOCK; k++)
			if (raw_exchange(raw.next_fd, raw.prev_fd, src, dst, bytes) < 0)
				goto fail;
		double t2 = now_s();
		tr[b] = (t1 - t0) / PER_BLOCK;
		tw[b] = (t2 - t1) / PER_BLOCK;
	}
	if (rank == 0) {
		double *pair = xcalloc((size_t)blocks, sizeof(double));
		double best_r = tr[0], best_w = tw[0];
		for (int b = 0; b < blocks; b++) {
			pair[b] = tw[b] / tr[b];
			best_r = tr[b] < best_r ? tr[b] : best_r;
			best_w = tw[b] < best_w ? tw[b] : best_w;
		}
		double mb = (double)bytes / 1e6, mr = median(tr, blocks), mw = median(tw, blocks);
		printf("ring all-reduce%s, %d ranks on loopback, %zu floats (%.1f MB), %d blocks of %d\n",
		       secret.key ? " (authenticated)" : "", n, floats, (double)floats * 4 / 1e6, blocks, PER_BLOCK);
		printf("  ring all-reduce: %8.1f MB/s bus bandwidth median, %8.1f best (%.2f ms per all-reduce)\n",
		       mb / mr, mb / best_r, mr * 1e3);
		printf("  raw tcp ring:    %8.1f MB/s median, %8.1f best (%.2f ms per exchange)\n",
		       mb / mw, mb / best_w, mw * 1e3);
		printf("  ratio ring / raw: %.2f  (goal >= 0.90; median of %d paired blocks; ratio of the medians %.2f, of the bests %.2f)\n",
		       median(pair, blocks), blocks, mw / mr, best_w / best_r);
		free(pair);
		fflush(stdout); /* the rank leaves by _exit */
	}
	ring_close(&ring);
	ring_close(&raw);
	free(buf);
	free(src);
	free(dst);
	free(tr);
	free(tw);
	return 0;
fail:
	diag_print(&d, stderr);
	return 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	size_t floats = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 857738;
	int blocks = argc > 3 ? atoi(argv[3]) : 10;
	if (n < 2 || n > 64 || floats < (size_t)n || blocks < 1 ||
	    (argc > 4 && strcmp(argv[4], "auth") != 0)) {
		fputs("usage: ring_allreduce [RANKS 2..64] [FLOATS] [BLOCKS] [auth]\n", stderr);
		return 64;
	}
	static unsigned char bench_key[] = "ring_allreduce bench secret, 32.";
	if (argc > 4) {
		secret.key = bench_key;
		secret.len = sizeof(bench_key) - 1;
	}
	signal(SIGPIPE, SIG_IGN);
	int *lfd = xcalloc((size_t)n, sizeof(int)), *rawfd = xcalloc((size_t)n, sizeof(int));
	char **addrs = xcalloc((size_t)n, sizeof(char *)), **raw_addrs = xcalloc((size_t)n, sizeof(char *));
	char **names = xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		int p;
		lfd[i] = listen_any(&p);
		addrs[i] = xasprintf("127.0.0.1:%d", p);
		rawfd[i] = listen_any(&p);
		raw_addrs[i] = xasprintf("127.0.0.1:%d", p);
		names[i] = xasprintf("rank:%d", i);
	}
	pid_t *pids = xcalloc((size_t)n, sizeof(pid_t));
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			for (int k = 0; k < n; k++)
				if (k != i) {
					close(lfd[k]);
					close(rawfd[k]);
				}
			_exit(rank_main(i, n, floats, blocks, lfd, rawfd, (const char *const *)addrs,
					(const char *const *)raw_addrs, (const char *const *)names));
		}
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		int st;
		close(lfd[i]);
		close(rawfd[i]);
		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	for (int i = 0; i < n; i++) {
		free(addrs[i]);
		free(raw_addrs[i]);
		free(names[i]);
	}
	free(addrs);
	free(raw_addrs);
	free(names);
	free(lfd);
	free(rawfd);
	free(pids);
	return rc;
}
