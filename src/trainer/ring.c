/* ring.c: the ring all-reduce (see ring.h): setting up the ring's two
 * connections per rank, the pipelined reduce-scatter + all-gather over
 * non-blocking sockets, and stopping every rank when one is lost.
 *
 * Authentication (with a secret), protocol version 3. The guarantee: a
 * party without the job's secret cannot inject or alter anything a rank
 * uses (adds into its sums or hands back to its caller), nor replay a
 * frame of an earlier all-reduce or an earlier ring; at worst it stops
 * the job, which cutting a connection does anyway.
 *
 * Version 2 tagged every frame per hop: each rank made a tag on all it
 * sent and checked one on all it received, 4(N-1)/N of the vector in
 * GMAC per rank and all-reduce, and a tag check plus a tag on the path
 * of every chunk at every hop. Version 3 tags by phase:
 *
 * - Reduce-scatter (DATA frames): the partial sums change at every hop,
 *   so each hop still tags what it sends with its connection's key and
 *   the receiver checks the tag before it adds the chunk in (the
 *   connection tags of wire-auth.h: header and payload, IV the frame's
 *   number on that connection). Checking lazily instead (add and send on
 *   first, check before the rank's own gather frames leave) would keep
 *   the guarantee, since no rank can finish before it has every other
 *   rank's own segment, but it saves no CPU (the same bytes are checked,
 *   later) and needs every received partial sum kept until checked,
 *   where now one chunk buffer serves: not done.
 * - All-gather (GATHER frames): each segment, once summed, travels
 *   unchanged N-1 hops. Its owner (the rank that summed it) tags each of
 *   its chunks once, with the gather key G every rank holds, and the tag
 *   travels with the chunk: a rank stores a received chunk's tag and
 *   forwards it unchanged with the chunk, forwarding first and checking
 *   afterwards, since the next rank checks the owner's tag itself (no
 *   hop's word is trusted); nothing received is handed to the caller
 *   before its tag has been checked, as ring_allreduce returns only
 *   once every gathered chunk has been. So the gather costs the owner's
 *   tags (1/N of the vector) and the checks ((N-1)/N), not a tag and a
 *   check per hop, and no crypto lies on the forwarding path. The tag
 *   covers the payload; the IV binds it to its place and time:
 *     IV = u48le(round) | u16le(segment) | u32le(chunk of the segment)
 *   round counting the ring's all-reduces from 0 on every rank. A chunk
 *   altered anywhere, or moved to another all-reduce, segment or place,
 *   fails its tag. The gather frame's header is not covered (its seq
 *   changes at every hop), but every field of it is checked against what
 *   the receiver expects (magic, version, the connection's frame count,
 *   type and length by position), so altering it only fails the frame.
 *   Moved to another connection at the same position, a chunk is the one
 *   that position expects anyway.
 * - G = P("imc-train ring gather", S, S) (wire-auth.h's P, keyed by the
 *   job secret), S being 32 random bytes rank 0 draws when the ring forms
 *   and sends round the ring in a SESSION frame, right after the ring is
 *   formed, under the connections' tags (fresh keys: S cannot be replayed
 *   from another ring). GCM's one rule, an IV never repeated under a key:
 *   a (round, segment, chunk) is tagged once, by the segment's owner, and
 *   round only grows; a new ring (a restart, --resume) has a new S, so a
 *   new G, and its round starting again from 0 reuses no IV. The IV's
 *   fields are bounded where they are filled: ring_open refuses more than
 *   65536 ranks, ring_allreduce more than 2^32 chunks in a segment and
 *   the 2^48th all-reduce of one ring.
 * Per rank and all-reduce, GMAC covers 2(N-1)/N + (N-1)/N + 1/N of the
 * vector instead of 4(N-1)/N (2.5 against 3 vectors for 4 ranks, 2.75
 * against 3.5 for 8). bench/ring_allreduce, rank 0's CPU per
 * authenticated all-reduce, the two versions' runs interleaved on 2
 * shared cores at load 30-50: 4 ranks, 64 MiB, 89.3 89.5 93.0 ms (v2),
 * 85.7 84.9 83.9 ms (v3); 8 ranks, 16 MiB, 26.3 25.6 ms (v2), 23.6 23.2
 * ms (v3), the raw ring 16-19 ms. That is as far as choosing whose tag
 * goes: each byte a rank uses is checked by that rank and each partial
 * sum tagged by its maker, at ~0.17 ms of CPU per MiB (bench/wire_mac),
 * so where the ranks share the cores the authenticated ring stays near
 * 0.8 of the raw one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#include <openssl/crypto.h>

#include "trainer/cluster.h"
#include "trainer/ps-client.h"
#include "trainer/ps-server.h"
#include "trainer/ring.h"
#include "trainer/vecf.h"
#include "trainer/wire-auth.h"
#include "trainer/wire.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "ring"
#define RING_MAGIC 0x52434d49u /* bytes 'I' 'M' 'C' 'R' on the wire */
/* 2: DATA frames of up to RING_CHUNK_FLOATS = 131072 floats (1 had 32768);
 * frame lengths follow from the chunk, so ranks of the two versions would
 * fail on a DATA frame: the version makes them fail at HELLO, saying so.
 * 3: GATHER frames carrying their owner's tag, and SESSION (above) */
#define RING_VERSION 3
#define RING_HDR 16
#define RING_HELLO_SIZE 16
#define RING_MAX_ERR 512

enum ring_type {
	RING_HELLO = 1, RING_WELCOME, RING_DATA, RING_ABORT, RING_ERROR,
	RING_GATHER, /* an all-gather chunk, tagged by its owner with the gather key */
	RING_SESSION, /* rank 0's 32 random bytes the gather key is made from */
};

/* the bounds of the gather IV's fields (above) */
#define RING_MAX_RANKS 65536
#define RING_MAX_ROUND (UINT64_C(1) << 48)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int prev_of(const struct ring *r)
{
	return (r->rank + r->size - 1) % r->size;
}

static int next_of(const struct ring *r)
{
	return (r->rank + 1) % r->size;
}

static void hdr_encode(unsigned char *h, unsigned type, uint32_t len, uint64_t seq)
{
	wire_put32(h, RING_MAGIC);
	wire_put16(h + 4, RING_VERSION);
	wire_put16(h + 6, (uint16_t)type);
	wire_put32(h + 8, len);
	wire_put32(h + 12, (uint32_t)seq);
}

/* Checks magic, version and sequence number; fills *type and *len. */
static int hdr_decode(const unsigned char *h, uint64_t seq, unsigned *type, uint32_t *len,
		      struct diag *d)
{
	if (wire_get32(h) != RING_MAGIC) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "not an imc-train ring peer (bad magic)");
		return -1;
	}
	if (wire_get16(h + 4) != RING_VERSION) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "ring protocol version %u, this imc-train speaks version %u",
			   wire_get16(h + 4), RING_VERSION);
		return -1;
	}
	if (wire_get32(h + 12) != (uint32_t)seq) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "frame %u out of sequence (expected %u)",
			   wire_get32(h + 12), (uint32_t)seq);
		return -1;
	}
	*type = wire_get16(h + 6);
	*len = wire_get32(h + 8);
	return 0;
}

/* Blocking send of one small frame on a socket that may be non-blocking,
 * waiting at most 'wait' seconds; tagged when a is on. Returns 0 or -1. */
static int send_small(int fd, unsigned type, const void *p, uint32_t len, uint64_t *seq,
		      struct wire_auth *a, double wait)
{
	unsigned char b[RING_HDR + RING_MAX_ERR + WIRE_FRAME_TAG];
	if (len > RING_MAX_ERR)
		return -1;
	hdr_encode(b, type, len, *seq);
	if (len)
		memcpy(b + RING_HDR, p, len);
	size_t off = 0, total = RING_HDR + len;
	if (a && a->on) {
		struct iovec v = { b, total };
		a->seq_out = *seq;
		wire_auth_tag_out(a, &v, 1, b + total);
		total += WIRE_FRAME_TAG;
	}
	(*seq)++;
	double end = now_s() + wait;
	while (off < total) {
		ssize_t w = send(fd, b + off, total - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			double left = end - now_s();
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

/* Checks the tag that follows a frame (header h, payload p of len bytes)
 * received as frame number seq on a connection keyed by a. */
static bool tag_ok(struct wire_auth *a, uint64_t seq, const unsigned char *h,
		   const void *p, size_t len, const unsigned char *tag)
{
	unsigned char want[WIRE_FRAME_TAG];
	wire_mac_begin(&a->rx, a->k_in, seq);
	wire_mac_add(&a->rx, h, RING_HDR);
	wire_mac_add(&a->rx, p, len);
	wire_mac_end(&a->rx, want);
	return wire_tag_equal(want, tag);
}

/* Blocking receive of exactly len bytes within 'wait' seconds. */
static int recv_exact(int fd, void *buf, size_t len, double wait, struct diag *d)
{
	size_t off = 0;
	double end = now_s() + wait;
	while (off < len) {
		ssize_t n = recv(fd, (char *)buf + off, len - off, MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "connection closed by peer");
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "receive failed: %s", strerror(errno));
			return -1;
		}
		double left = end - now_s();
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) == 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "receive timed out");
			return -1;
		}
	}
	return 0;
}

/* Receives one small frame (HELLO, WELCOME, ERROR) into buf (cap bytes),
 * and its tag when a is on. */
static int recv_small(int fd, uint64_t *seq, struct wire_auth *a, unsigned *type,
		      unsigned char *buf, size_t cap, uint32_t *len, double wait, struct diag *d)
{
	unsigned char h[RING_HDR], tag[WIRE_FRAME_TAG];
	if (recv_exact(fd, h, sizeof(h), wait, d) < 0 || hdr_decode(h, *seq, type, len, d) < 0)
		return -1;
	if (*len > cap) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "frame of %u bytes where at most %zu fit",
			   *len, cap);
		return -1;
	}
	if (recv_exact(fd, buf, *len, wait, d) < 0)
		return -1;
	if (a && a->on) {
		if (recv_exact(fd, tag, sizeof(tag), wait, d) < 0)
			return -1;
		if (!tag_ok(a, *seq, h, buf, *len, tag)) {
			diag_error(d, IMC_EXIT_NOPERM, NULL, "frame %llu fails its authentication tag",
				   (unsigned long long)*seq);
			return -1;
		}
	}
	(*seq)++;
	return 0;
}

static void peer_name(int fd, char *out, size_t len)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	char host[64] = "?", port[16] = "?";
	if (getpeername(fd, (struct sockaddr *)&sa, &sl) == 0)
		(void)getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), port, sizeof(port),
				  NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(out, len, "%s:%s", host, port);
}

/* Setting the ring up is five steps per rank, each waiting only on the
 * step before it at a neighbour, so no rank waits on one that is itself
 * waiting (every rank listens before it connects, so connects complete in
 * the listener's backlog):
 *   1. connect to the next rank; with a secret, send it our nonce
 *   2. accept the previous rank; with a secret, read its nonce, answer
 *      with ours and our proof
 *   3. next rank: check its proof, send ours, then HELLO (rank, size, check)
 *   4. previous rank: check its proof and HELLO, answer WELCOME (or ERROR)
 *   5. next rank: read WELCOME
 * A connection that fails step 2 or 4 is refused with a warning naming its
 * address, and the rank goes back to accepting (steps 2 and 4 in a row). */
struct pending {
	int fd;
	char peer[96];
	unsigned char nc[WIRE_AUTH_NONCE], ns[WIRE_AUTH_NONCE];
};

static void refuse(struct ring *r, struct pending *p, const char *why)
{
	log_warn(MOD, "rank %d: refusing connection from %s: %s", r->rank, p->peer, why);
	if (!r->secret) { /* an authenticated peer gets no text from an unknown one */
		uint64_t s = 0;
		(void)send_small(p->fd, RING_ERROR, why, (uint32_t)strnlen(why, RING_MAX_ERR), &s,
				 NULL, 1);
	}
	close(p->fd);
	p->fd = -1;
}

/* Step 2. Returns 0 with p->fd open, -1 with d set at the deadline. */
static int accept_start(struct ring *r, int lfd, struct pending *p, double deadline,
			struct diag *d)
{
	int want = prev_of(r);
	for (;;) {
		double left = deadline - now_s();
		struct pollfd pf = { .fd = lfd, .events = POLLIN };
		if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) == 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "rank %d (%s at %s) did not connect within the connect timeout",
				   want, r->names[want], r->addrs[want]);
			return -1;
		}
		p->fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (p->fd < 0)
			continue;
		peer_name(p->fd, p->peer, sizeof(p->peer));
		if (!r->secret)
			return 0;
		struct diag sub = DIAG_INIT;
		/* a peer that says nothing is dropped after a few seconds, so a
		 * stray connection cannot keep the ring from forming */
		double wait = deadline - now_s() < 5 ? deadline - now_s() : 5;
		unsigned char out[WIRE_AUTH_NONCE + WIRE_AUTH_TAG];
		if (recv_exact(p->fd, p->nc, sizeof(p->nc), wait, &sub) == 0 &&
		    wire_auth_nonce(p->ns, &sub) == 0) {
			memcpy(out, p->ns, WIRE_AUTH_NONCE);
			wire_auth_proof(r->secret, "imc-train server", p->nc, p->ns, out + WIRE_AUTH_NONCE);
			if (send(p->fd, out, sizeof(out), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(out)) {
				diag_release(&sub);
				return 0;
			}
			diag_error(&sub, IMC_EXIT_UNAVAILABLE, NULL, "cannot answer its challenge");
		}
		refuse(r, p, diag_first_message(&sub));
		diag_release(&sub);
	}
}

/* Step 4. Returns 0 (the previous rank is in), 1 (refused: accept again). */
static int accept_finish(struct ring *r, struct pending *p, uint64_t check, double deadline)
{
	int want = prev_of(r);
	struct diag sub = DIAG_INIT;
	double wait = deadline - now_s() < 5 ? deadline - now_s() : 5;
	if (r->secret) {
		unsigned char proof[WIRE_AUTH_TAG], exp[WIRE_AUTH_TAG];
		if (recv_exact(p->fd, proof, sizeof(proof), wait, &sub) == 0) {
			wire_auth_proof(r->secret, "imc-train client", p->ns, p->nc, exp);
			if (!wire_auth_equal(exp, proof))
				diag_error(&sub, IMC_EXIT_NOPERM, NULL, "it does not hold the job's secret");
			else
				wire_auth_keys(r->secret, p->nc, p->ns, false, &r->prev_auth);
		}
	}
	unsigned char b[RING_HELLO_SIZE];
	unsigned type;
	uint32_t len;
	uint64_t seq = 0;
	if (!diag_has_errors(&sub) &&
	    recv_small(p->fd, &seq, &r->prev_auth, &type, b, sizeof(b), &len, wait, &sub) == 0) {
		if (type != RING_HELLO || len != RING_HELLO_SIZE)
			diag_error(&sub, IMC_EXIT_DATAERR, NULL, "expected HELLO");
		else if ((int)wire_get32(b + 4) != r->size)
			diag_error(&sub, IMC_EXIT_DATAERR, NULL, "a ring of %u ranks, this is %d",
				   wire_get32(b + 4), r->size);
		else if ((int)wire_get32(b) != want)
			diag_error(&sub, IMC_EXIT_DATAERR, NULL, "says it is rank %u, expected rank %d",
				   wire_get32(b), want);
		else if (wire_get64(b + 8) != check)
			diag_error(&sub, IMC_EXIT_DATAERR, NULL,
				   "model of %llu parameters, this one has %llu",
				   (unsigned long long)wire_get64(b + 8), (unsigned long long)check);
	}
	if (!diag_has_errors(&sub) &&
	    send_small(p->fd, RING_WELCOME, NULL, 0, &r->prev_out_seq, &r->prev_auth, 5) == 0) {
		diag_release(&sub);
		r->prev_fd = p->fd;
		r->recv_seq = seq;
		return 0;
	}
	if (!diag_has_errors(&sub))
		diag_error(&sub, IMC_EXIT_UNAVAILABLE, NULL, "cannot answer its HELLO");
	wire_auth_release(&r->prev_auth);
	r->prev_out_seq = 0;
	refuse(r, p, diag_first_message(&sub));
	diag_release(&sub);
	return 1;
}

/* Step 1. */
static int connect_next(struct ring *r, unsigned char nc[WIRE_AUTH_NONCE], double deadline,
			struct diag *d)
{
	int want = next_of(r);
	double backoff = 0.05;
	bool said = false;
	for (;;) {
		struct diag sub = DIAG_INIT;
		double left = deadline - now_s();
		int fd = ps_client_connect(r->addrs[want], left > 1 ? 1 : (left > 0.05 ? left : 0.05),
					   &sub);
		if (fd >= 0) {
			diag_release(&sub);
			r->next_fd = fd;
			break;
		}
		if (now_s() >= deadline) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "rank %d (%s at %s) unreachable: %s",
				   want, r->names[want], r->addrs[want], diag_first_message(&sub));
			diag_release(&sub);
			return -1;
		}
		if (!said)
			log_info(MOD, "waiting for rank %d (%s): %s", want, r->names[want],
				 diag_first_message(&sub));
		said = true;
		diag_release(&sub);
		struct timespec ts = { 0, (long)(backoff * 1e9) };
		nanosleep(&ts, NULL);
		backoff = backoff * 2 > 1 ? 1 : backoff * 2;
	}
	int fl = fcntl(r->next_fd, F_GETFL);
	(void)fcntl(r->next_fd, F_SETFL, fl | O_NONBLOCK);
	if (r->secret && (wire_auth_nonce(nc, d) < 0 ||
			  send(r->next_fd, nc, WIRE_AUTH_NONCE, MSG_NOSIGNAL | MSG_DONTWAIT) !=
				  WIRE_AUTH_NONCE)) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "rank %d (%s at %s): cannot send a challenge",
			   want, r->names[want], r->addrs[want]);
		return -1;
	}
	return 0;
}

/* Step 3. */
static int prove_to_next(struct ring *r, const unsigned char nc[WIRE_AUTH_NONCE],
			 uint64_t check, double deadline, struct diag *d)
{
	int want = next_of(r);
	double left = deadline - now_s();
	if (r->secret) {
		unsigned char in[WIRE_AUTH_NONCE + WIRE_AUTH_TAG], exp[WIRE_AUTH_TAG];
		struct diag sub = DIAG_INIT;
		if (recv_exact(r->next_fd, in, sizeof(in), left > 1 ? left : 1, &sub) < 0) {
			diag_error(d, IMC_EXIT_NOPERM, NULL,
				   "rank %d (%s at %s) did not answer our challenge (%s): does it hold the job's secret?",
				   want, r->names[want], r->addrs[want], diag_first_message(&sub));
			diag_release(&sub);
			return -1;
		}
		wire_auth_proof(r->secret, "imc-train server", nc, in, exp);
		if (!wire_auth_equal(exp, in + WIRE_AUTH_NONCE)) {
			diag_error(d, IMC_EXIT_NOPERM, NULL,
				   "rank %d (%s at %s) failed to prove it holds the job's secret", want,
				   r->names[want], r->addrs[want]);
			return -1;
		}
		wire_auth_proof(r->secret, "imc-train client", in, nc, exp);
		if (send(r->next_fd, exp, sizeof(exp), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(exp)) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "rank %d (%s at %s): cannot send a proof",
				   want, r->names[want], r->addrs[want]);
			return -1;
		}
		wire_auth_keys(r->secret, nc, in, true, &r->next_auth);
	}
	unsigned char b[RING_HELLO_SIZE];
	wire_put32(b, (uint32_t)r->rank);
	wire_put32(b + 4, (uint32_t)r->size);
	wire_put64(b + 8, check);
	if (send_small(r->next_fd, RING_HELLO, b, sizeof(b), &r->send_seq, &r->next_auth, 5) < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "rank %d (%s at %s): cannot send HELLO",
			   want, r->names[want], r->addrs[want]);
		return -1;
	}
	return 0;
}

/* Step 5. */
static int await_welcome(struct ring *r, double deadline, struct diag *d)
{
	int want = next_of(r);
	unsigned char b[RING_MAX_ERR];
	unsigned type;
	uint32_t len;
	struct diag sub = DIAG_INIT;
	double left = deadline - now_s();
	int rc = recv_small(r->next_fd, &r->next_in_seq, &r->next_auth, &type, b, sizeof(b), &len,
			    left > 1 ? left : 1, &sub);
	if (rc == 0 && type == RING_WELCOME && len == 0) {
		diag_release(&sub);
		return 0;
	}
	if (rc == 0 && type == RING_ERROR)
		diag_error(d, IMC_EXIT_DATAERR, NULL, "rank %d (%s at %s) refused this rank: %.*s",
			   want, r->names[want], r->addrs[want], (int)len, (const char *)b);
	else
		diag_error(d, sub.code == IMC_EXIT_NOPERM ? IMC_EXIT_NOPERM : IMC_EXIT_UNAVAILABLE,
			   NULL, "rank %d (%s at %s): no WELCOME: %s", want, r->names[want],
			   r->addrs[want], rc < 0 ? diag_first_message(&sub) : "unexpected frame");
	diag_release(&sub);
	return -1;
}

/* Step 6, with a secret: rank 0 draws the session's 32 bytes, every other
 * rank reads them from its previous rank, and each passes them on to its
 * next rank but rank 0; then each derives the gather key from them. Rank
 * k waits only on rank k-1, which waits on k-2 ... on rank 0, which waits
 * on nobody. */
static int gather_session(struct ring *r, double deadline, struct diag *d)
{
	if (!r->secret)
		return 0;
	int prev = prev_of(r), next = next_of(r);
	unsigned char sn[WIRE_AUTH_NONCE];
	int rc = -1;
	if (r->rank == 0) {
		if (wire_auth_nonce(sn, d) < 0)
			goto out;
	} else {
		unsigned type;
		uint32_t len;
		struct diag sub = DIAG_INIT;
		double left = deadline - now_s();
		if (recv_small(r->prev_fd, &r->recv_seq, &r->prev_auth, &type, sn, sizeof(sn), &len,
			       left > 1 ? left : 1, &sub) < 0 ||
		    type != RING_SESSION || len != sizeof(sn)) {
			diag_error(d, sub.code == IMC_EXIT_NOPERM ? IMC_EXIT_NOPERM : IMC_EXIT_UNAVAILABLE,
				   NULL, "rank %d (%s at %s): no SESSION: %s", prev, r->names[prev],
				   r->addrs[prev],
				   diag_has_errors(&sub) ? diag_first_message(&sub) : "unexpected frame");
			diag_release(&sub);
			goto out;
		}
		diag_release(&sub);
	}
	if (next != 0 &&
	    send_small(r->next_fd, RING_SESSION, sn, sizeof(sn), &r->send_seq, &r->next_auth, 5) < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "rank %d (%s at %s): cannot send SESSION",
			   next, r->names[next], r->addrs[next]);
		goto out;
	}
	wire_auth_proof(r->secret, "imc-train ring gather", sn, sn, r->gather_key);
	rc = 0;
out:
	OPENSSL_cleanse(sn, sizeof(sn));
	return rc;
}

int ring_open(struct ring *r, int rank, int size, const char *const *addrs,
	      const char *const *names, int listen_fd, const struct ring_opts *o,
	      struct diag *d)
{
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->size = size;
	r->addrs = addrs;
	r->names = names;
	r->next_fd = r->prev_fd = -1;
	r->lost = -1;
	r->io_timeout = o->io_timeout;
	r->secret = o->secret && o->secret->key ? o->secret : NULL;
	r->chunk = o->chunk_floats ? o->chunk_floats : RING_CHUNK_FLOATS;
	int lfd = listen_fd;
	if (size <= 1 || size > RING_MAX_RANKS) {
		if (lfd >= 0)
			close(lfd);
		if (size <= 1)
			return 0;
		diag_error(d, IMC_EXIT_USAGE, NULL, "a ring of %d ranks: at most %d", size,
			   RING_MAX_RANKS);
		return -1;
	}
	if (lfd < 0 && (lfd = ps_listen(addrs[rank], d)) < 0)
		return -1;
	double deadline = now_s() + o->connect_timeout;
	int rc = -1;
	unsigned char nc[WIRE_AUTH_NONCE];
	struct pending p = { .fd = -1 };
	if (connect_next(r, nc, deadline, d) < 0 || accept_start(r, lfd, &p, deadline, d) < 0 ||
	    prove_to_next(r, nc, o->check, deadline, d) < 0)
		goto out;
	while (accept_finish(r, &p, o->check, deadline) != 0)
		if (accept_start(r, lfd, &p, deadline, d) < 0)
			goto out;
	if (await_welcome(r, deadline, d) < 0 || gather_session(r, deadline, d) < 0)
		goto out;
	r->tmp = xmalloc(r->chunk * sizeof(float));
	log_info(MOD, "rank %d of %d: ring formed (%s -> this -> %s)%s", rank, size,
		 names[prev_of(r)], names[next_of(r)], r->secret ? ", authenticated" : "");
	rc = 0;
out:
	if (p.fd >= 0 && p.fd != r->prev_fd)
		close(p.fd);
	close(lfd);
	if (rc < 0)
		ring_close(r);
	return rc;
}

void ring_close(struct ring *r)
{
	if (r->next_fd >= 0)
		close(r->next_fd);
	if (r->prev_fd >= 0)
		close(r->prev_fd);
	r->next_fd = r->prev_fd = -1;
	wire_auth_release(&r->next_auth);
	wire_auth_release(&r->prev_auth);
	wire_mac_release(&r->gather_tx);
	wire_mac_release(&r->gather_rx);
	OPENSSL_cleanse(r->gather_key, sizeof(r->gather_key));
	free(r->gather_tags);
	r->gather_tags = NULL;
	r->gather_cap = 0;
	free(r->tmp);
	r->tmp = NULL;
}

/* The state of one all-reduce. Stream step s (0 <= s < 2(N-1)) sends
 * segment (rank - s) and receives segment (rank - s - 1), mod N; the first
 * N-1 receives are added in (reduce-scatter), the others stored (all-
 * gather). The segment sent at step s is the one received at step s-1, so
 * a chunk may go once the chunk at the same place of the previous receive
 * is done: counted in floats of each stream, the sender may be at most
 * len(segment rank) ahead of what the receiver has finished. */
struct xfer {
	float *buf;
	int steps;
	/* send side: the frame in flight is s_iov[s_at..s_n) */
	int s_step;
	uint64_t s_pos, s_base;
	bool s_busy;
	unsigned char s_hdr[RING_HDR], s_tag[WIRE_FRAME_TAG];
	struct iovec s_iov[3];
	int s_at, s_n;
	/* receive side: header, then payload, then (authenticated) the tag */
	int r_step;
	uint64_t r_pos, r_done;
	unsigned char r_hdr[RING_HDR], r_tag[WIRE_FRAME_TAG];
	unsigned char r_cur[RING_HDR]; /* the frame's header, for its tag: r_hdr
					* may already hold the next one */
	size_t r_hdr_got;
	int r_part;             /* 0 header, 1 payload, 2 tag */
	unsigned char *r_dst;
	size_t r_want, r_got;
	uint64_t r_seq;         /* the frame's number, for its tag */
	uint32_t r_type;
	unsigned char r_abort[4];
	/* the reverse direction of the next connection: only ABORT comes back */
	unsigned char rev[RING_HDR + 4 + WIRE_FRAME_TAG];
	size_t rev_got;
	bool rev_closed;
	/* with a secret, the gathered chunks whose owner's tag is checked:
	 * a cursor over the gather steps that trails the receive side */
	int v_step;
	uint64_t v_pos;
	uint64_t round; /* this all-reduce's number on the ring */
};

static int seg_of(const struct ring *r, int step, bool send)
{
	return ((r->rank - step - (send ? 0 : 1)) % r->size + 2 * r->size) % r->size;
}

static void segment(const struct ring *r, size_t n, int step, bool send, uint64_t *off,
		    uint64_t *len)
{
	cluster_shard(n, (size_t)r->size, (size_t)seg_of(r, step, send), off, len);
}

/* Where a gathered chunk's tag is kept: chunk 'pos / chunk' of segment
 * seg. */
static unsigned char *gather_slot(const struct ring *r, int seg, uint64_t pos)
{
	return r->gather_tags + ((size_t)seg * r->gather_per_seg + pos / r->chunk) * WIRE_FRAME_TAG;
}

/* The owner's tag of chunk 'pos / chunk' (c floats at p) of segment seg
 * in all-reduce 'round', made with m (the top comment: the IV). */
static void gather_tag(const struct ring *r, struct wire_mac *m, uint64_t round, int seg,
		       uint64_t pos, const float *p, size_t c, unsigned char out[WIRE_FRAME_TAG])
{
	unsigned char iv[WIRE_MAC_IV];
	uint64_t chunk = pos / r->chunk;
	for (int i = 0; i < 6; i++)
		iv[i] = (unsigned char)(round >> (8 * i));
	iv[6] = (unsigned char)seg;
	iv[7] = (unsigned char)(seg >> 8);
	for (int i = 0; i < 4; i++)
		iv[8 + i] = (unsigned char)(chunk >> (8 * i));
	wire_mac_begin_iv(m, r->gather_key, iv);
	wire_mac_add(m, p, c * sizeof(float));
	wire_mac_end(m, out);
}

/* One sendmsg of what is left of the frame in flight. Returns what send
 * returned (errno set on -1). */
static ssize_t send_some(int fd, struct xfer *x)
{
	struct msghdr mh = { .msg_iov = x->s_iov + x->s_at, .msg_iovlen = (size_t)(x->s_n - x->s_at) };
	ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	size_t left = w > 0 ? (size_t)w : 0;
	while (x->s_at < x->s_n && left >= x->s_iov[x->s_at].iov_len)
		left -= x->s_iov[x->s_at++].iov_len;
	if (x->s_at < x->s_n) {
		x->s_iov[x->s_at].iov_base = (char *)x->s_iov[x->s_at].iov_base + left;
		x->s_iov[x->s_at].iov_len -= left;
	} else {
		x->s_busy = false;
	}
	return w;
}

/* Sends ABORT(lost) on fd, finishing first a DATA frame half sent (its
 * payload is still in the caller's buffer) so the peer can parse it. */
static void abort_on(struct ring *r, int fd, struct xfer *x, int lost)
{
	if (fd < 0)
		return;
	if (x && fd == r->next_fd && x->s_busy) {
		double end = now_s() + 2;
		while (x->s_busy && now_s() < end) {
			ssize_t w = send_some(fd, x);
			if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
				struct pollfd pf = { .fd = fd, .events = POLLOUT };
				(void)poll(&pf, 1, 100);
				continue;
			}
			if (w <= 0)
				return;
		}
		if (x->s_busy)
			return;
	}
	unsigned char b[4];
	wire_put32(b, (uint32_t)lost);
	if (fd == r->next_fd)
		(void)send_small(fd, RING_ABORT, b, sizeof(b), &r->send_seq, &r->next_auth, 1);
	else
		(void)send_small(fd, RING_ABORT, b, sizeof(b), &r->prev_out_seq, &r->prev_auth, 1);
}

/* After an ABORT: closing a socket with unread data in it would send a
 * reset, which can destroy the ABORT before the peer reads it. So stop
 * writing and read (discarding) until the peers close, for a second at
 * most; they close as soon as they have read the ABORT. */
static void drain(struct ring *r)
{
	double end = now_s() + 1;
	int fds[2] = { r->next_fd, r->prev_fd };
	bool open_[2];
	for (int i = 0; i < 2; i++) {
		open_[i] = fds[i] >= 0;
		if (open_[i])
			(void)shutdown(fds[i], SHUT_WR);
	}
	while ((open_[0] || open_[1]) && now_s() < end) {
		struct pollfd pf[2] = { { .fd = open_[0] ? fds[0] : -1, .events = POLLIN },
					{ .fd = open_[1] ? fds[1] : -1, .events = POLLIN } };
		if (poll(pf, 2, 100) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < 2; i++) {
			if (!open_[i] || !pf[i].revents)
				continue;
			char sink[65536];
			ssize_t got = recv(fds[i], sink, sizeof(sink), MSG_DONTWAIT);
			if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
				open_[i] = false;
		}
	}
}

/* A rank is gone: tell both sides (the one it came from excepted) and fail. */
static int lost(struct ring *r, struct xfer *x, int rank, int from_fd, const char *why,
		struct diag *d)
{
	r->lost = rank;
	if (from_fd != r->next_fd)
		abort_on(r, r->next_fd, x, rank);
	if (from_fd != r->prev_fd)
		abort_on(r, r->prev_fd, NULL, rank);
	drain(r);
	diag_error(d, IMC_EXIT_TEMPFAIL, NULL,
		   "lost rank %d (%s at %s): %s; restart the job with --resume", rank,
		   r->names[rank], r->addrs[rank], why);
	return -1;
}

static int protocol_error(struct ring *r, struct xfer *x, int rank, const char *what,
			  struct diag *d)
{
	r->lost = rank;
	abort_on(r, r->next_fd, x, r->rank);
	abort_on(r, r->prev_fd, NULL, r->rank);
	drain(r);
	diag_error(d, IMC_EXIT_DATAERR, NULL, "rank %d (%s at %s): protocol error: %s", rank,
		   r->names[rank], r->addrs[rank], what);
	return -1;
}

/* Prepares the next DATA frame when the pipeline allows it. */
static void next_frame(struct ring *r, struct xfer *x, size_t n)
{
	uint64_t off, len, mine, mine_off;
	cluster_shard(n, (size_t)r->size, (size_t)r->rank, &mine_off, &mine);
	while (!x->s_busy && x->s_step < x->steps) {
		segment(r, n, x->s_step, true, &off, &len);
		if (x->s_pos == len) {
			x->s_base += len;
			x->s_step++;
			x->s_pos = 0;
			continue;
		}
		uint64_t c = len - x->s_pos < r->chunk ? len - x->s_pos : r->chunk;
		if (x->s_base + x->s_pos + c > mine + x->r_done)
			return; /* that chunk is not reduced yet */
		bool gather = x->s_step >= r->size - 1;
		hdr_encode(x->s_hdr, gather ? RING_GATHER : RING_DATA, (uint32_t)(c * sizeof(float)),
			   r->send_seq);
		x->s_iov[0] = (struct iovec){ x->s_hdr, RING_HDR };
		x->s_iov[1] = (struct iovec){ x->buf + off + x->s_pos, c * sizeof(float) };
		x->s_n = 2;
		if (r->next_auth.on && gather) {
			/* this rank's own segment gets its tag here, once; a
			 * gathered one goes on with the tag it came with */
			int seg = seg_of(r, x->s_step, true);
			if (x->s_step == r->size - 1)
				gather_tag(r, &r->gather_tx, x->round, seg, x->s_pos, x->buf + off + x->s_pos, c,
					   x->s_tag);
			else
				memcpy(x->s_tag, gather_slot(r, seg, x->s_pos), WIRE_FRAME_TAG);
			x->s_iov[2] = (struct iovec){ x->s_tag, WIRE_FRAME_TAG };
			x->s_n = 3;
		} else if (r->next_auth.on) {
			r->next_auth.seq_out = r->send_seq;
			wire_auth_tag_out(&r->next_auth, x->s_iov, 2, x->s_tag);
			x->s_iov[2] = (struct iovec){ x->s_tag, WIRE_FRAME_TAG };
			x->s_n = 3;
		}
		r->send_seq++;
		x->s_at = 0;
		x->s_busy = true;
		x->s_pos += c;
	}
}

/* Writes as much of the pending frames as the socket takes. Returns 0, or
 * -1 (errno) when the connection failed. */
static int pump_send(struct ring *r, struct xfer *x, size_t n)
{
	for (;;) {
		next_frame(r, x, n);
		if (!x->s_busy)
			return 0;
		ssize_t w = send_some(r->next_fd, x);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		r->bytes_out += (uint64_t)w;
	}
}

/* Moves the receive side past the segments it has finished (and empty
 * ones). */
static void recv_advance(const struct ring *r, struct xfer *x, size_t n)
{
	uint64_t off, len;
	while (x->r_step < x->steps) {
		segment(r, n, x->r_step, false, &off, &len);
		if (x->r_pos < len)
			return;
		x->r_step++;
		x->r_pos = 0;
	}
}

/* A frame has arrived whole (and its tag checked): use it. The next
 * header may have begun to arrive in r_hdr (r_hdr_got is left alone).
 * Returns 0, or 1 for an ABORT (*who: the lost rank). */
static int frame_done(struct ring *r, struct xfer *x, size_t n, int *who)
{
	x->r_part = 0;
	if (x->r_type == RING_ABORT) {
		*who = (int)wire_get32(x->r_abort);
		return 1;
	}
	uint64_t off, len;
	segment(r, n, x->r_step, false, &off, &len);
	size_t c = x->r_want / sizeof(float);
	if (x->r_step < r->size - 1)
		vecf_add(x->buf + off + x->r_pos, r->tmp, c);
	x->r_pos += c;
	x->r_done += c;
	recv_advance(r, x, n);
	return 0;
}

/* A whole header is in r_hdr: checks it and points the payload at its
 * place. Returns 0, or -1 with d set (the ring told). */
static int header_done(struct ring *r, struct xfer *x, size_t n, struct diag *d)
{
	int prev = prev_of(r);
	uint64_t off, len;
	unsigned type;
	uint32_t flen;
	struct diag sub = DIAG_INIT;
	if (hdr_decode(x->r_hdr, r->recv_seq, &type, &flen, &sub) < 0) {
		protocol_error(r, x, prev, diag_first_message(&sub), d);
		diag_release(&sub);
		return -1;
	}
	memcpy(x->r_cur, x->r_hdr, RING_HDR);
	x->r_hdr_got = 0;
	x->r_seq = r->recv_seq++;
	segment(r, n, x->r_step, false, &off, &len);
	uint64_t c = len - x->r_pos < r->chunk ? len - x->r_pos : r->chunk;
	if (type == RING_ABORT && flen == 4) {
		x->r_type = RING_ABORT;
		x->r_dst = x->r_abort;
	} else if (type == (x->r_step < r->size - 1 ? RING_DATA : RING_GATHER) &&
		   flen == c * sizeof(float)) {
		x->r_type = type;
		x->r_dst = (unsigned char *)(x->r_step < r->size - 1 ? r->tmp : x->buf + off + x->r_pos);
	} else {
		return protocol_error(r, x, prev, "unexpected frame", d);
	}
	x->r_want = flen;
	x->r_got = 0;
	x->r_part = 1;
	return 0;
}

/* Whether another DATA frame follows the one being received (of c floats
 * at r_pos of step r_step) in this all-reduce. */
static bool more_frames(const struct ring *r, const struct xfer *x, size_t n)
{
	uint64_t off, len;
	segment(r, n, x->r_step, false, &off, &len);
	if (x->r_pos + x->r_want / sizeof(float) < len)
		return true;
	for (int s = x->r_step + 1; s < x->steps; s++) {
		segment(r, n, s, false, &off, &len);
		if (len)
			return true;
	}
	return false;
}

/* Reads what has arrived from the previous rank: one recvmsg takes the
 * rest of a frame and, when another frame follows in this all-reduce, its
 * header, so a frame costs one system call rather than two or three (the
 * bytes after the last frame are the next all-reduce's, left in the
 * socket). Returns 0, 1 when an ABORT arrived (*who: the lost rank), -1
 * with d set. */
static int pump_recv(struct ring *r, struct xfer *x, size_t n, int *who, struct diag *d)
{
	int prev = prev_of(r);
	bool tagged = r->prev_auth.on;
	recv_advance(r, x, n);
	while (x->r_step < x->steps) {
		struct iovec v[3];
		size_t nv = 0;
		if (x->r_part == 0) {
			v[nv++] = (struct iovec){ x->r_hdr + x->r_hdr_got, RING_HDR - x->r_hdr_got };
		} else {
			if (x->r_part == 1 && x->r_want > x->r_got)
				v[nv++] = (struct iovec){ x->r_dst + x->r_got, x->r_want - x->r_got };
			if (tagged) {
				size_t have = x->r_part == 2 ? x->r_got : 0;
				v[nv++] = (struct iovec){ x->r_tag + have, WIRE_FRAME_TAG - have };
			}
			if (x->r_type != RING_ABORT && more_frames(r, x, n))
				v[nv++] = (struct iovec){ x->r_hdr, RING_HDR };
		}
		struct msghdr mh = { .msg_iov = v, .msg_iovlen = nv };
		ssize_t got = nv ? recvmsg(r->prev_fd, &mh, MSG_DONTWAIT) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (nv && got <= 0)
			return lost(r, x, prev, r->prev_fd,
				    got == 0 ? "connection closed" : strerror(errno), d);
		r->bytes_in += (uint64_t)got;
		size_t left = (size_t)got;
		/* hand the bytes to the parts they were read into, in order */
		for (;;) {
			if (x->r_part == 0) {
				size_t take = left < RING_HDR - x->r_hdr_got ? left : RING_HDR - x->r_hdr_got;
				x->r_hdr_got += take;
				left -= take;
				if (x->r_hdr_got < RING_HDR)
					break;
				if (header_done(r, x, n, d) < 0)
					return -1;
				if (!left)
					break;
				continue; /* only a frame's header is read alone */
			}
			if (x->r_part == 1) {
				size_t take = left < x->r_want - x->r_got ? left : x->r_want - x->r_got;
				x->r_got += take;
				left -= take;
				if (x->r_got < x->r_want)
					break;
				if (tagged) {
					x->r_part = 2;
					x->r_got = 0;
				}
			}
			if (x->r_part == 2) {
				size_t take = left < WIRE_FRAME_TAG - x->r_got ? left : WIRE_FRAME_TAG - x->r_got;
				x->r_got += take;
				left -= take;
				if (x->r_got < WIRE_FRAME_TAG)
					break;
			}
			/* a gathered chunk's tag is kept, to go on with the chunk
			 * and be checked once it has (check_gathered) */
			if (tagged && x->r_type == RING_GATHER)
				memcpy(gather_slot(r, seg_of(r, x->r_step, false), x->r_pos), x->r_tag,
				       WIRE_FRAME_TAG);
			else if (tagged && !tag_ok(&r->prev_auth, x->r_seq, x->r_cur, x->r_dst,
						   x->r_want, x->r_tag))
				return protocol_error(r, x, prev, "a frame fails its authentication tag", d);
			if (frame_done(r, x, n, who))
				return 1;
			/* what is left went to r_hdr[0..left), the next header */
			if (!left)
				break;
		}
	}
	return 0;
}

/* The reverse direction of the next connection carries only ABORT (or the
 * close of a dead next rank). Returns 0, 1 with *who on ABORT or a loss. */
static int pump_rev(struct ring *r, struct xfer *x, int *who)
{
	size_t need = RING_HDR + 4 + (r->next_auth.on ? WIRE_FRAME_TAG : 0);
	for (;;) {
		ssize_t got = recv(r->next_fd, x->rev + x->rev_got, need - x->rev_got, MSG_DONTWAIT);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (got <= 0) {
			x->rev_closed = true;
			*who = -1;
			return 1;
		}
		x->rev_got += (size_t)got;
		if (x->rev_got < need)
			continue;
		x->rev_got = 0;
		unsigned type;
		uint32_t len;
		struct diag sub = DIAG_INIT;
		uint64_t seq = r->next_in_seq++;
		int bad = hdr_decode(x->rev, seq, &type, &len, &sub) < 0 || type != RING_ABORT ||
			  len != 4 ||
			  (r->next_auth.on && !tag_ok(&r->next_auth, seq, x->rev, x->rev + RING_HDR, 4,
						      x->rev + RING_HDR + 4));
		diag_release(&sub);
		*who = bad ? -1 : (int)wire_get32(x->rev + RING_HDR);
		return 1;
	}
}

/* Checks the owner's tags of the chunks gathered since the last call
 * (their tags were kept in gather_slot when they arrived; the chunks are
 * in place in the caller's buffer). Returns 0, or -1 with d set (the ring
 * told) at the first that fails. */
static int check_gathered(struct ring *r, struct xfer *x, size_t n, struct diag *d)
{
	if (!r->prev_auth.on)
		return 0;
	while (x->v_step < x->r_step || (x->v_step == x->r_step && x->v_pos < x->r_pos)) {
		uint64_t off, len;
		segment(r, n, x->v_step, false, &off, &len);
		if (x->v_pos == len) {
			x->v_step++;
			x->v_pos = 0;
			continue;
		}
		int seg = seg_of(r, x->v_step, false);
		uint64_t c = len - x->v_pos < r->chunk ? len - x->v_pos : r->chunk;
		unsigned char want[WIRE_FRAME_TAG];
		gather_tag(r, &r->gather_rx, x->round, seg, x->v_pos, x->buf + off + x->v_pos, c, want);
		if (!wire_tag_equal(want, gather_slot(r, seg, x->v_pos)))
			return protocol_error(r, x, prev_of(r),
					      "a gathered chunk fails its owner's authentication tag", d);
		x->v_pos += c;
	}
	return 0;
}

/* Sending to the next rank failed: it is gone, or it stopped because it
 * heard of another loss, in which case its ABORT is waiting on the
 * reverse direction and names the rank really lost. */
static int next_failed(struct ring *r, struct xfer *x, const char *err, struct diag *d)
{
	int who = -1, next = next_of(r);
	char why[160];
	snprintf(why, sizeof(why), "%s", err);
	if (!x->rev_closed && pump_rev(r, x, &who) > 0 && who >= 0 && who < r->size) {
		snprintf(why, sizeof(why), "reported by rank %d", next);
		return lost(r, x, who, r->next_fd, why, d);
	}
	return lost(r, x, next, r->next_fd, why, d);
}

int ring_allreduce(struct ring *r, float *buf, size_t n, struct diag *d)
{
	if (r->size <= 1 || n == 0)
		return 0;
	struct xfer x;
	memset(&x, 0, sizeof(x));
	x.buf = buf;
	x.steps = 2 * (r->size - 1);
	x.v_step = r->size - 1;
	x.round = r->round++;
	if (r->next_auth.on) {
		/* the gather IV's fields (the top comment) */
		uint64_t seg_max = n / (size_t)r->size + 1;
		r->gather_per_seg = (size_t)((seg_max + r->chunk - 1) / r->chunk);
		if (x.round >= RING_MAX_ROUND || r->gather_per_seg > UINT32_MAX) {
			diag_error(d, IMC_EXIT_SOFTWARE, NULL,
				   "all-reduce %llu of %zu floats: beyond what one ring's tags can number",
				   (unsigned long long)x.round, n);
			return -1;
		}
		size_t need = (size_t)r->size * r->gather_per_seg * WIRE_FRAME_TAG;
		if (need > r->gather_cap) {
			r->gather_tags = xrealloc(r->gather_tags, need);
			r->gather_cap = need;
		}
	}
	int next = next_of(r), prev = prev_of(r);
	double last = now_s();
	for (;;) {
		int who = -1;
		if (pump_send(r, &x, n) < 0)
			return next_failed(r, &x, strerror(errno), d);
		int rc = pump_recv(r, &x, n, &who, d);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			char why[64];
			snprintf(why, sizeof(why), "reported by rank %d", prev);
			return lost(r, &x, who >= 0 && who < r->size ? who : prev, r->prev_fd, why, d);
		}
		/* more data may be sendable now that more has been reduced
		 * or gathered; the gathered chunks' tags are checked once
		 * they are on their way to the next rank */
		if (pump_send(r, &x, n) < 0)
			return next_failed(r, &x, strerror(errno), d);
		if (check_gathered(r, &x, n, d) < 0)
			return -1;
		bool send_done = !x.s_busy && x.s_step >= x.steps;
		bool recv_done = x.r_step >= x.steps;
		if (send_done && recv_done)
			return 0;
		/* a closed reverse direction would make poll report POLLHUP
		 * forever: leave the next connection out unless sending */
		struct pollfd pf[2] = {
			{ .fd = x.rev_closed && !x.s_busy ? -1 : r->next_fd,
			  .events = (short)((x.s_busy ? POLLOUT : 0) | (x.rev_closed ? 0 : POLLIN)) },
			{ .fd = r->prev_fd, .events = recv_done ? 0 : POLLIN },
		};
		int pr = poll(pf, 2, 1000);
		if (pr < 0 && errno != EINTR)
			return lost(r, &x, prev, -1, strerror(errno), d);
		if (pr > 0) {
			last = now_s();
		} else if (now_s() - last > r->io_timeout) {
			int silent = !recv_done ? prev : next;
			char why[96];
			snprintf(why, sizeof(why), "no progress for %.0f s", r->io_timeout);
			return lost(r, &x, silent, -1, why, d);
		}
		if (pr > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) && !x.rev_closed) {
			rc = pump_rev(r, &x, &who);
			/* the next rank closing after it has everything from us is
			 * its normal end, not a loss */
			if (rc > 0 && (who >= 0 || !send_done)) {
				char why[64];
				snprintf(why, sizeof(why), "reported by rank %d", next);
				return lost(r, &x, who >= 0 && who < r->size ? who : next,
					    r->next_fd, who >= 0 ? why : "connection closed", d);
			}
		}
	}
}
