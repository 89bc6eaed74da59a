/* ring_allreduce.c: bus bandwidth of imc-train's ring all-reduce against
 * raw TCP in the same ring (issue 21's bench; it reports, never fails on
 * speed).
 *
 *   bench/ring_allreduce [RANKS] [FLOATS] [BLOCKS] [auth]   (4, 857738 = cnn, 10)
 *
 * RANKS processes on loopback form two rings: one of ring.c (ring_open,
 * ring_allreduce on a FLOATS vector: framing, the reduction and the
 * pipeline included) and one of plain connections ("raw"), set up the
 * same way (ring_open, insecure), on which each rank sends the bytes an
 * all-reduce sends, 2(N-1)/N of the vector, to its next rank in messages
 * of one chunk (the ring's frame payload, RING_CHUNK_FLOATS floats) while
 * receiving as much from its previous one the same way: no header, no
 * tag, no reduction, and no step waiting on the one before, so the best
 * any ring all-reduce could do on these sockets. Both alternate in blocks
 * of 5, so that load that comes and goes hits both alike. Bus bandwidth
 * is NCCL's: bytes of the vector x 2(N-1)/N per second. Rank 0 prints the
 * medians, the bests, the median of the per-pair ratios ring / raw (goal
 * >= 0.9), its own CPU time per all-reduce and per raw exchange (user +
 * system: on a machine with fewer cores than ranks the wall-clock ratio
 * follows the CPU ratio), and the load average before and after. With
 * 'auth' the ring runs authenticated (wire-auth.h: a tag on every frame),
 * which measures the cost of the tags; the raw ring never is. The
 * environment variable RING_CHUNK (floats) sets the chunk of both;
 * RING_PHASES (a list of ring, raw, bulk) runs only those, so that a
 * system-wide counter (perf stat -e 'syscalls:sys_enter_*') sees one. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trainer/cluster.h"
#include "trainer/ring.h"
#include "util/xalloc.h"

#define PER_BLOCK 5

static size_t chunk_bytes; /* one raw message: a ring frame's payload */

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

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

static void shard(const struct ring *r, size_t n, int seg, uint64_t *off, uint64_t *bytes)
{
	uint64_t len;
	cluster_shard(n, (size_t)r->size, (size_t)((seg % r->size + r->size) % r->size), off, &len);
	*bytes = len * sizeof(float);
}

/* "raw": the ring all-reduce's traffic without its protocol. Step s of
 * 2(N-1) sends segment (rank - s) of vec and receives segment (rank - s -
 * 1), as ring.c does, in send and receive calls that each stop at a chunk
 * boundary, as ring.c's frames do; what the first N-1 steps receive goes
 * to a chunk-sized scratch buffer, the others into vec, as in ring.c. No
 * header, no tag, no reduction, and a step never waits on the one before
 * (the ring's sends wait on its receives). */
static int raw_allreduce(const struct ring *r, float *vec, char *scratch, size_t n)
{
	int steps = 2 * (r->size - 1), ss = 0, rs = 0;
	uint64_t sp = 0, rp = 0, off, bytes;
	for (;;) {
		while (ss < steps) {
			shard(r, n, r->rank - ss, &off, &bytes);
			if (sp == bytes) {
				ss++;
				sp = 0;
				continue;
			}
			size_t c = chunk_bytes - sp % chunk_bytes;
			c = bytes - sp < c ? bytes - sp : c;
			ssize_t w = send(r->next_fd, (char *)(vec + off) + sp, c, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EAGAIN)
				break;
			if (w <= 0)
				return -1;
			sp += (uint64_t)w;
		}
		while (rs < steps) {
			shard(r, n, r->rank - rs - 1, &off, &bytes);
			if (rp == bytes) {
				rs++;
				rp = 0;
				continue;
			}
			size_t c = chunk_bytes - rp % chunk_bytes;
			c = bytes - rp < c ? bytes - rp : c;
			char *dst = rs < r->size - 1 ? scratch + rp % chunk_bytes : (char *)(vec + off) + rp;
			ssize_t got = recv(r->prev_fd, dst, c, MSG_DONTWAIT);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0 && errno == EAGAIN)
				break;
			if (got <= 0)
				return -1;
			rp += (uint64_t)got;
		}
		if (ss == steps && rs == steps)
			return 0;
		struct pollfd pf[2] = { { .fd = ss < steps ? r->next_fd : -1, .events = POLLOUT },
					{ .fd = rs < steps ? r->prev_fd : -1, .events = POLLIN } };
		if (poll(pf, 2, 10000) <= 0)
			return -1;
	}
}

/* "bulk" (this bench's earlier baseline): len bytes of src sent to next
 * while len bytes are received from prev into dst, each call as large as
 * the socket takes. */
static int bulk_exchange(int next, int prev, const char *src, char *dst, size_t len)
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

/* The 1, 5 and 15 minute load averages, "?" when unknown. */
static const char *load_now(char *out, size_t len)
{
	double l[3];
	if (getloadavg(l, 3) == 3)
		snprintf(out, len, "%.2f %.2f %.2f", l[0], l[1], l[2]);
	else
		snprintf(out, len, "?");
	return out;
}

static char load0[64], load1[64];

enum { RING, RAW, BULK, PHASES };

static bool phase_on[PHASES] = { true, true, true };

static int run_phase(int phase, struct ring *ring, struct ring *raw, float *buf, float *rbuf,
		     char *scratch, const char *src, char *dst, size_t floats, size_t bytes,
		     struct diag *d)
{
	if (phase == RING)
		return ring_allreduce(ring, buf, floats, d);
	if (phase == RAW)
		return raw_allreduce(raw, rbuf, scratch, floats);
	return bulk_exchange(raw->next_fd, raw->prev_fd, src, dst, bytes);
}

static int rank_main(int rank, int n, size_t floats, int blocks, int *lfd, int *rawfd,
		     const char *const *addrs, const char *const *raw_addrs,
		     const char *const *names)
{
	struct diag d = DIAG_INIT;
	struct ring ring, raw;
	struct ring_opts o = { .connect_timeout = 30, .io_timeout = 60, .check = floats,
			       .secret = &secret, .chunk_floats = chunk_bytes / sizeof(float) };
	struct ring_opts ro = { .connect_timeout = 30, .io_timeout = 60, .check = floats };
	if (ring_open(&ring, rank, n, addrs, names, lfd[rank], &o, &d) < 0 ||
	    ring_open(&raw, rank, n, raw_addrs, names, rawfd[rank], &ro, &d) < 0) {
		diag_print(&d, stderr);
		return 1;
	}
	float *buf = xmalloc(floats * sizeof(float)), *rbuf = xmalloc(floats * sizeof(float));
	for (size_t i = 0; i < floats; i++)
		buf[i] = rbuf[i] = (float)((i + (size_t)rank) % 7) * 0.25f;
	size_t bytes = floats * sizeof(float) * 2 * (size_t)(n - 1) / (size_t)n;
	char *src = xmalloc(bytes), *dst = xmalloc(bytes), *scratch = xmalloc(chunk_bytes);
	memset(src, 1, bytes);
	double *t[PHASES], *c[PHASES];
	for (int p = 0; p < PHASES; p++) {
		t[p] = xcalloc((size_t)blocks, sizeof(double));
		c[p] = xcalloc((size_t)blocks, sizeof(double));
	}
	/* warm up all three (pages touched, socket buffers grown) */
	for (int p = 0; p < PHASES; p++)
		if (phase_on[p] &&
		    run_phase(p, &ring, &raw, buf, rbuf, scratch, src, dst, floats, bytes, &d) < 0)
			goto fail;
	for (int b = 0; b < blocks; b++)
		for (int p = 0; p < PHASES; p++) {
			if (!phase_on[p])
				continue;
			double t0 = now_s(), c0 = cpu_s();
			for (int k = 0; k < PER_BLOCK; k++)
				if (run_phase(p, &ring, &raw, buf, rbuf, scratch, src, dst, floats, bytes,
					      &d) < 0)
					goto fail;
			t[p][b] = (now_s() - t0) / PER_BLOCK;
			c[p][b] = (cpu_s() - c0) / PER_BLOCK;
		}
	if (rank == 0) {
		static const char *const label[PHASES] = { "ring all-reduce", "raw tcp ring", "bulk tcp ring" };
		double *pair = xcalloc((size_t)blocks, sizeof(double)), mb = (double)bytes / 1e6;
		printf("ring all-reduce%s, %d ranks on loopback, %zu floats (%.1f MB), chunk %zu KiB, %d blocks of %d\n",
		       secret.key ? " (authenticated)" : "", n, floats, (double)floats * 4 / 1e6,
		       chunk_bytes / 1024, blocks, PER_BLOCK);
		printf("  raw  = the ring's steps on a second ring of sockets: the same segments to the next rank and from\n"
		       "         the previous one, in calls that stop at %zu KiB chunk boundaries, received where ring.c\n"
		       "         receives them; no header, tag or reduction, and no step waits on the one before\n"
		       "  bulk = the same %.1f MB per rank each way in calls as large as the socket takes\n",
		       chunk_bytes / 1024, mb);
		double med[PHASES], best[PHASES], cpu[PHASES];
		for (int p = 0; p < PHASES; p++) {
			if (!phase_on[p])
				continue;
			med[p] = median(t[p], blocks);
			cpu[p] = median(c[p], blocks);
			best[p] = t[p][0];
			for (int b = 1; b < blocks; b++)
				best[p] = t[p][b] < best[p] ? t[p][b] : best[p];
			printf("  %-16s %8.1f MB/s bus bandwidth median, %8.1f best (%.2f ms each, rank 0 CPU %.2f ms)\n",
			       label[p], mb / med[p], mb / best[p], med[p] * 1e3, cpu[p] * 1e3);
		}
		for (int p = RAW; p <= PHASES && phase_on[RING] && phase_on[RAW] && phase_on[BULK]; p++) {
			/* p == PHASES: against the faster baseline of each block */
			for (int b = 0; b < blocks; b++)
				pair[b] = (p < PHASES ? t[p][b] : t[RAW][b] < t[BULK][b] ? t[RAW][b] : t[BULK][b]) /
					  t[RING][b];
			if (p < PHASES)
				printf("  ratio ring / %-5s %.2f  (median of %d paired blocks; of the medians %.2f, of the bests %.2f; CPU %s / ring %.2f)\n",
				       p == RAW ? "raw:" : "bulk:", median(pair, blocks), blocks,
				       med[p] / med[RING], best[p] / best[RING], p == RAW ? "raw" : "bulk",
				       cpu[p] / cpu[RING]);
			else
				printf("  ratio ring / the faster of raw and bulk in each block: %.2f  (goal >= 0.90)\n",
				       median(pair, blocks));
		}
		printf("  load average: %s before, %s after\n", load0, load_now(load1, sizeof(load1)));
		free(pair);
		fflush(stdout); /* the rank leaves by _exit */
	}
	ring_close(&ring);
	ring_close(&raw);
	free(buf);
	free(rbuf);
	free(src);
	free(dst);
	free(scratch);
	for (int p = 0; p < PHASES; p++) {
		free(t[p]);
		free(c[p]);
	}
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
	const char *ph = getenv("RING_PHASES");
	if (ph && *ph) {
		static const char *const word[PHASES] = { "ring", "raw", "bulk" };
		for (int p = 0; p < PHASES; p++)
			phase_on[p] = strstr(ph, word[p]) != NULL;
	}
	const char *ch = getenv("RING_CHUNK");
	chunk_bytes = (ch && atol(ch) > 0 ? (size_t)atol(ch) : RING_CHUNK_FLOATS) * sizeof(float);
	load_now(load0, sizeof(load0));
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
