/* test-ring.c: ring.c's all-reduce in real processes on loopback, checked
 * for the exact sums: 2 to 5 ranks, vectors shorter than the ring (empty
 * segments), chunks of a few floats (so frames, their tags and the next
 * frame's header end up split across reads in every way) and of the
 * default size, several all-reduces in a row on the same ring (the bytes
 * after one all-reduce's last frame belong to the next), unauthenticated
 * and with a secret; a rank of the previous protocol version refused; and
 * a man in the middle between two ranks that alters a chunk of the
 * all-gather (which carries its owner's tag, not the hop's) or replays one
 * from the previous all-reduce or from an earlier ring, seen refused by
 * the rank it reaches.
 * The values are small integers, so every order of
 * summation gives the same float and any lost, doubled or misplaced chunk
 * shows. Each rank is a forked child that exits 0 when its sums are right. */
#include "config.h"

#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "trainer/ring.h"
#include "util/xalloc.h"

#define MAX_RANKS 5
#define ROUNDS 3

static int value_shift; /* added to round in value(): another ring's data */

static float value(int rank, int round, size_t i)
{
	return (float)((i * 7 + (size_t)rank * 3 + (size_t)(round + value_shift)) % 11) - 5.0f;
}

/* How a rank ended: every round's sums exact, a sum wrong, an all-reduce
 * failed, an all-reduce failed on an authentication tag. */
enum { RANK_OK, RANK_WRONG, RANK_FAILED, RANK_REFUSED };

/* The body of one rank (its exit code, above). */
static int rank_run(int rank, int size, size_t n, size_t chunk, const struct wire_secret *s,
		    int lfd, const char *const *addrs, const char *const *names)
{
	struct diag d = DIAG_INIT;
	struct ring r;
	struct ring_opts o = { .connect_timeout = 30, .io_timeout = 30, .check = n,
			       .chunk_floats = chunk, .secret = s };
	if (ring_open(&r, rank, size, addrs, names, lfd, &o, &d) < 0) {
		diag_print(&d, stderr);
		return 1;
	}
	float *buf = xmalloc(n * sizeof(float));
	int bad = 0;
	for (int round = 0; round < ROUNDS && !bad; round++) {
		for (size_t i = 0; i < n; i++)
			buf[i] = value(rank, round, i);
		if (ring_allreduce(&r, buf, n, &d) < 0) {
			diag_print(&d, stderr);
			bad = strstr(diag_first_message(&d), "authentication tag") ? RANK_REFUSED
										     : RANK_FAILED;
			break;
		}
		for (size_t i = 0; i < n && !bad; i++) {
			float want = 0;
			for (int k = 0; k < size; k++)
				want += value(k, round, i);
			if (buf[i] != want) {
				fprintf(stderr, "rank %d round %d: [%zu] = %g, want %g\n", rank, round, i,
					(double)buf[i], (double)want);
				bad = RANK_WRONG;
			}
		}
	}
	free(buf);
	ring_close(&r);
	diag_release(&d);
	return bad;
}

static int listen_any(char *addr, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sl), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	snprintf(addr, len, "127.0.0.1:%d", ntohs(sa.sin_port));
	return fd;
}

/* Runs a ring of size ranks on an n-float vector; asserts every rank
 * ended with the exact sums. */
static void ring_case(int size, size_t n, size_t chunk, bool auth)
{
	static unsigned char key[] = "test-ring secret of 32 bytes ok.";
	struct wire_secret s = { auth ? key : NULL, auth ? sizeof(key) - 1 : 0 };
	char addr[MAX_RANKS][32], name[MAX_RANKS][16];
	const char *addrs[MAX_RANKS], *names[MAX_RANKS];
	int lfd[MAX_RANKS];
	pid_t pid[MAX_RANKS];
	for (int i = 0; i < size; i++) {
		lfd[i] = listen_any(addr[i], sizeof(addr[i]));
		snprintf(name[i], sizeof(name[i]), "rank:%d", i);
		addrs[i] = addr[i];
		names[i] = name[i];
	}
	fflush(NULL);
	for (int i = 0; i < size; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0) {
			for (int k = 0; k < size; k++)
				if (k != i)
					close(lfd[k]);
			_exit(rank_run(i, size, n, chunk, &s, lfd[i], addrs, names));
		}
	}
	for (int i = 0; i < size; i++)
		close(lfd[i]);
	int failed = 0;
	for (int i = 0; i < size; i++) {
		int st = 0;
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed++;
	}
	if (failed)
		fail_msg("%d of %d ranks wrong (%zu floats, chunk %zu, %s)", failed, size, n, chunk,
			 auth ? "authenticated" : "insecure");
}

static void test_small_chunks(void **state)
{
	(void)state;
	for (int auth = 0; auth < 2; auth++) {
		ring_case(2, 37, 3, auth);
		ring_case(3, 1000, 7, auth);
		ring_case(4, 4099, 64, auth);
		ring_case(5, 53, 1, auth);
	}
}

static void test_fewer_floats_than_ranks(void **state)
{
	(void)state;
	ring_case(5, 2, 4, false);
	ring_case(4, 3, 1, true);
	ring_case(3, 1, 0, false);
}

static void test_default_chunk(void **state)
{
	(void)state;
	/* segments of several 512 KiB frames, each read in many pieces */
	ring_case(3, 3 * RING_CHUNK_FLOATS + 12345, 0, false);
	ring_case(4, 4 * RING_CHUNK_FLOATS + 777, 0, true);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A rank of the previous protocol version (2: a tag per hop on every
 * frame, no GATHER frames) is refused at its HELLO, with an ERROR naming
 * the versions, rather than failing at its first all-gather frame: the
 * test plays rank 1 of a 2-rank ring by hand, rank 0 is ring_open in a
 * child. */
static void test_old_version(void **state)
{
	(void)state;
	char addr[2][32];
	const char *addrs[2] = { addr[0], addr[1] }, *names[2] = { "rank:0", "rank:1" };
	int lfd[2] = { listen_any(addr[0], sizeof(addr[0])), listen_any(addr[1], sizeof(addr[1])) };
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(lfd[1]);
		struct diag d = DIAG_INIT;
		struct ring r;
		struct ring_opts o = { .connect_timeout = 3, .io_timeout = 3, .check = 100 };
		_exit(ring_open(&r, 0, 2, addrs, names, lfd[0], &o, &d) < 0 ? 0 : 1);
	}
	close(lfd[0]);
	/* rank 0 connects to us (its next rank) and sends its HELLO there; we
	 * connect to it (its previous rank) and send a version-2 HELLO */
	int in = accept(lfd[1], NULL, NULL);
	assert_true(in >= 0);
	int out = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)atoi(strchr(addr[0], ':') + 1)) };
	assert_int_equal(connect(out, (struct sockaddr *)&sa, sizeof(sa)), 0);
	unsigned char hello[32] = { 'I', 'M', 'C', 'R', 2, 0, 1, 0 };
	put32(hello + 8, 16);  /* length */
	put32(hello + 16, 1);  /* rank */
	put32(hello + 20, 2);  /* size */
	put32(hello + 24, 100); /* check, low half */
	assert_int_equal(send(out, hello, sizeof(hello), MSG_NOSIGNAL), (ssize_t)sizeof(hello));
	char reply[600] = "";
	size_t got = 0;
	ssize_t r;
	while (got < sizeof(reply) - 1 && (r = recv(out, reply + got, sizeof(reply) - 1 - got, 0)) > 0)
		got += (size_t)r;
	assert_true(got > 16);
	assert_int_equal((unsigned char)reply[6], 5); /* ERROR */
	reply[got] = 0;
	if (!strstr(reply + 16, "ring protocol version 2, this imc-train speaks version 3"))
		fail_msg("rank 0 answered '%s'", reply + 16);
	close(out);
	close(in);
	close(lfd[1]);
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* its ring did not form */
}

/* Reads exactly len bytes; 0, or -1 at the end of the stream. */
static int read_full(int fd, unsigned char *p, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t r = recv(fd, p + got, len - got, 0);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const unsigned char *p, size_t len)
{
	return send(fd, p, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* What the man in the middle does to the forwarded chunk of an
 * all-reduce (below); MITM_CROSS lets the first ring through, keeping
 * its first forwarded chunk, and replays it in a second ring. */
enum mitm { MITM_TAMPER, MITM_REPLAY, MITM_CROSS };

#define GATHER 6 /* ring.c's frame type of an all-gather chunk */
#define FRAME_TAG 16

/* Relays one connection of rank 1 to rank 2, taken on lfd, to rank 2 at
 * 'to', both ways, the bytes from rank 1 frame by frame (past the
 * handshake's nonce and proof, 32 bytes each). In a ring of 3 ranks whose
 * segments are one chunk each, rank 1 sends two GATHER frames per
 * all-reduce, its own segment then the one it forwards. 'alter' is the
 * GATHER frame altered (-1: none): one bit of its payload flipped (tamper),
 * or its payload and tag replaced by *saved's under the header it came
 * with (its frame number on this connection is not what the tag covers);
 * 'keep' is the one copied to *saved (-1: none). Returns 0 when a frame
 * was altered. */
static int mitm_relay(int lfd, int to, int alter, bool tamper, int keep, unsigned char **saved,
		      size_t *saved_len)
{
	int in = accept(lfd, NULL, NULL), out = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)to) };
	if (in < 0 || out < 0 || connect(out, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		_exit(2);
	pid_t back = fork();
	if (back == 0) { /* rank 2 -> rank 1, as it comes */
		unsigned char b[4096];
		ssize_t r;
		while ((r = recv(out, b, sizeof(b), 0)) > 0)
			if (write_full(in, b, (size_t)r) < 0)
				break;
		shutdown(in, SHUT_WR);
		_exit(0);
	}
	unsigned char hs[32], hdr[16], *body = NULL;
	int gathers = 0, rc = 1;
	if (read_full(in, hs, 32) < 0 || write_full(out, hs, 32) < 0 || read_full(in, hs, 32) < 0 ||
	    write_full(out, hs, 32) < 0)
		goto out;
	while (read_full(in, hdr, sizeof(hdr)) == 0) {
		size_t len = (size_t)hdr[8] | (size_t)hdr[9] << 8 | (size_t)hdr[10] << 16 |
			     (size_t)hdr[11] << 24;
		unsigned type = hdr[6] | hdr[7] << 8;
		body = xrealloc(body, len + FRAME_TAG);
		if (read_full(in, body, len + FRAME_TAG) < 0)
			break;
		if (type == GATHER) {
			if (gathers == keep) {
				*saved = xrealloc(*saved, len + FRAME_TAG);
				memcpy(*saved, body, len + FRAME_TAG);
				*saved_len = len;
			} else if (gathers == alter && tamper) {
				body[len / 2] ^= 0x10;
				rc = 0;
			} else if (gathers == alter && *saved && *saved_len == len) {
				memcpy(body, *saved, len + FRAME_TAG);
				rc = 0;
			}
			gathers++;
		}
		if (write_full(out, hdr, sizeof(hdr)) < 0 || write_full(out, body, len + FRAME_TAG) < 0)
			break;
	}
out:
	shutdown(out, SHUT_WR);
	waitpid(back, NULL, 0);
	close(in);
	close(out);
	free(body);
	return rc;
}

/* The man in the middle's process: the second all-reduce's forwarded
 * chunk (GATHER frame 3) altered or replaced by the first's (frame 1), or
 * with MITM_CROSS, a first ring let through (frame 1 kept) and the
 * second ring's frame 1 replaced by it. Exits 0 when it altered a frame. */
static void mitm_run(int lfd, int to, enum mitm how)
{
	unsigned char *saved = NULL;
	size_t saved_len = 0;
	int rc = 1;
	if (how != MITM_CROSS)
		rc = mitm_relay(lfd, to, 3, how == MITM_TAMPER, 1, &saved, &saved_len);
	else if (mitm_relay(lfd, to, -1, false, 1, &saved, &saved_len) == 1 && saved)
		rc = mitm_relay(lfd, to, 1, false, -1, &saved, &saved_len);
	free(saved);
	_exit(rc);
}

/* Runs 3 ranks on lfd[0..3) (rank 1 reaching rank 2 through via[2]) and
 * fills code[] with how each ended. */
static void mitm_ring(const int *lfd, const char *const *addrs, const char *const *via,
		      const char *const *names, const struct wire_secret *s, int code[3])
{
	pid_t pid[3];
	fflush(NULL);
	for (int i = 0; i < 3; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0) {
			for (int k = 0; k < 4; k++)
				if (k != i)
					close(lfd[k]);
			/* segments of 1000 floats: one chunk each */
			_exit(rank_run(i, 3, 3000, 0, s, lfd[i], i == 1 ? via : addrs, names));
		}
	}
	for (int i = 0; i < 3; i++) {
		int st = 0;
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		code[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 100;
	}
}

/* Three authenticated ranks, rank 1's connection to rank 2 through
 * mitm_run: rank 2 must refuse the altered chunk (its owner's tag fails),
 * no rank may end an all-reduce with a wrong sum, and none may finish
 * the three all-reduces (the job stops). With MITM_CROSS a first ring
 * (the same ranks, secret and addresses, other data) must finish, and
 * the second one is the one that must stop so. */
static void mitm_case(enum mitm how)
{
	static unsigned char key[] = "test-ring secret of 32 bytes ok.";
	struct wire_secret s = { key, sizeof(key) - 1 };
	char addr[4][32], name[3][16];
	const char *addrs[3], *via[3], *names[3];
	int lfd[4], code[3];
	for (int i = 0; i < 4; i++)
		lfd[i] = listen_any(addr[i], sizeof(addr[i]));
	for (int i = 0; i < 3; i++) {
		snprintf(name[i], sizeof(name[i]), "rank:%d", i);
		addrs[i] = via[i] = addr[i];
		names[i] = name[i];
	}
	via[2] = addr[3]; /* rank 1 reaches rank 2 through the proxy */
	fflush(NULL);
	pid_t proxy = fork();
	assert_true(proxy >= 0);
	if (proxy == 0) {
		for (int k = 0; k < 3; k++)
			close(lfd[k]);
		mitm_run(lfd[3], atoi(strchr(addr[2], ':') + 1), how);
	}
	close(lfd[3]);
	/* the parent keeps the ranks' listening sockets, so that a second
	 * ring forms on the same addresses */
	if (how == MITM_CROSS) {
		value_shift = 1;
		mitm_ring(lfd, addrs, via, names, &s, code);
		for (int i = 0; i < 3; i++)
			if (code[i] != RANK_OK)
				fail_msg("the first ring's rank %d failed (exit %d)", i, code[i]);
		value_shift = 0;
	}
	mitm_ring(lfd, addrs, via, names, &s, code);
	for (int i = 0; i < 3; i++)
		close(lfd[i]);
	int st = 0;
	assert_int_equal(waitpid(proxy, &st, 0), proxy);
	const char *what = how == MITM_TAMPER ? "altered" : "replayed";
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the proxy did not get to alter the frame");
	if (code[2] != RANK_REFUSED)
		fail_msg("rank 2 did not refuse the %s chunk (exit %d)", what, code[2]);
	for (int i = 0; i < 3; i++) {
		if (code[i] == RANK_WRONG)
			fail_msg("rank %d ended an all-reduce with a wrong sum (%s chunk)", i, what);
		if (code[i] == RANK_OK)
			fail_msg("rank %d finished every all-reduce (%s chunk)", i, what);
	}
}

static void test_tampered_forwarded_chunk(void **state)
{
	(void)state;
	mitm_case(MITM_TAMPER);
}

static void test_replayed_chunk(void **state)
{
	(void)state;
	mitm_case(MITM_REPLAY);
}

/* A chunk of an earlier ring (the same secret, ranks and places) replayed
 * into a new one: the new ring's gather key differs (rank 0's SESSION). */
static void test_chunk_from_another_ring(void **state)
{
	(void)state;
	mitm_case(MITM_CROSS);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_chunks),
		cmocka_unit_test(test_fewer_floats_than_ranks),
		cmocka_unit_test(test_default_chunk),
		cmocka_unit_test(test_old_version),
		cmocka_unit_test(test_tampered_forwarded_chunk),
		cmocka_unit_test(test_replayed_chunk),
		cmocka_unit_test(test_chunk_from_another_ring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
