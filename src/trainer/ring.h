/* ring.h: the ring all-reduce of imc-train --strategy allreduce. N ranks
 * form a ring (rank r sends to r+1 and receives from r-1, modulo N) over
 * two TCP connections each, and sum a float vector in place with the
 * bandwidth-optimal algorithm: N-1 reduce-scatter steps then N-1
 * all-gather steps, each rank sending 2(N-1)/N of the vector.
 *
 * The vector is cut into N segments and each segment into chunks; chunks
 * travel as frames and the two connections are driven together by one
 * poll loop, so a chunk is sent on as soon as it has been reduced while
 * the next ones are still arriving (the pipeline). Frames are sent
 * straight from the caller's buffer, and in the all-gather straight into
 * it; the reduce-scatter receives into one chunk-sized buffer and adds it
 * in. Every rank ends with bit-identical sums (each segment is summed once,
 * by one rank, in ring order, then copied).
 *
 * Frame: a 16-byte header, then 'length' payload bytes:
 *   u32 magic "IMCR" | u16 version (3) | u16 type | u32 length | u32 seq
 * seq counts the frames sent on that connection (from 0); a frame out of
 * sequence is a protocol error. Types: HELLO (u32 rank, u32 size, u64
 * check), WELCOME, DATA (floats of the reduce-scatter), GATHER (floats of
 * the all-gather), ABORT (u32 the lost rank), ERROR (text), SESSION (32
 * bytes, with a secret only: rank 0 sends it round the ring once formed).
 * With a secret every frame is followed by a 16-byte tag: GATHER frames
 * by their owner's, made once and forwarded, the others by the
 * connection's (ring.c says why that keeps a peer without the secret out).
 *
 * A lost rank (its connection closed or reset, or silent for the I/O
 * timeout) fails the all-reduce on both neighbours, which send ABORT
 * naming it both ways round the ring; every rank that gets it forwards it
 * and fails too, so the whole job stops with the same message.
 *
 * Ownership: a struct ring owns its sockets and chunk buffer; it borrows
 * the address and name arrays, which must outlive it. */
#ifndef IMC_TRAINER_RING_H
#define IMC_TRAINER_RING_H

#include <stddef.h>
#include <stdint.h>

#include "trainer/wire-auth.h"
#include "util/diag.h"

/* 512 KiB frames. A frame is a system call each way, and a wake-up of the
 * receiver: at 128 KiB frames the ring made ~25 times the calls of bulk
 * TCP over the same bytes (bench/ring_allreduce, RING_PHASES, perf stat on
 * syscalls), and rank 0's CPU per 16 MiB all-reduce of 4 ranks fell from
 * 18.0 to 13.5 ms (insecure) and 26.7 to 19.0 ms (authenticated) at 512
 * KiB; 1 MiB gained nothing more (12.6, 21.0) and pipelines less: a chunk
 * is forwarded only once whole. The receive buffer (one chunk) stays
 * within a core's L2, where the tag check and the reduction read it. */
#define RING_CHUNK_FLOATS 131072

struct ring_opts {
	double connect_timeout; /* seconds to keep retrying the next rank */
	double io_timeout;      /* seconds an all-reduce may go without progress */
	uint64_t check;         /* a value every rank must share (the model size) */
	size_t chunk_floats;    /* 0: RING_CHUNK_FLOATS */
	const struct wire_secret *secret; /* NULL or no key: unauthenticated */
};

struct ring {
	int rank, size;
	int next_fd, prev_fd;
	const char *const *addrs; /* borrowed: size "host:port" */
	const char *const *names; /* borrowed: size labels ("chief:0", "worker:1") */
	double io_timeout;
	size_t chunk;
	float *tmp;               /* one chunk: the reduce-scatter's receive buffer */
	/* frames counted per direction: data out on next_fd and in on
	 * prev_fd; the reverse directions carry WELCOME and ABORT */
	uint64_t send_seq, recv_seq, prev_out_seq, next_in_seq;
	/* with a secret: the keys of each connection (wire-auth.h); the
	 * counters above number the frames the tags cover */
	const struct wire_secret *secret; /* borrowed, NULL when insecure */
	struct wire_auth next_auth, prev_auth;
	/* the gather key every rank holds, its tag contexts (own chunks out,
	 * gathered chunks in), the all-reduces done (the gather IV's round),
	 * and the tags of the gathered chunks, kept to be forwarded: slot
	 * segment * gather_per_seg + chunk */
	unsigned char gather_key[WIRE_AUTH_TAG];
	struct wire_mac gather_tx, gather_rx;
	uint64_t round;
	unsigned char *gather_tags;
	size_t gather_cap, gather_per_seg;
	uint64_t bytes_in, bytes_out;
	int lost;                 /* the rank that was lost, -1 */
};

/* Listens (on listen_fd when >= 0: it is taken over and closed; else on
 * addrs[rank]), connects to the next rank with retries, accepts the
 * previous one and checks each other's rank, size and check. A connection
 * that is not the previous rank is refused with a warning naming its
 * address. Returns 0 or -1 with d set (IMC_EXIT_UNAVAILABLE when a rank
 * stayed unreachable, IMC_EXIT_DATAERR when a rank disagreed). */
int ring_open(struct ring *r, int rank, int size, const char *const *addrs,
	      const char *const *names, int listen_fd, const struct ring_opts *o,
	      struct diag *d);
void ring_close(struct ring *r);

/* Sums buf[0..n) over the ranks, in place; n must be the same on every
 * rank. Returns 0, or -1 with d set: IMC_EXIT_TEMPFAIL when a rank was lost
 * (r->lost says which), IMC_EXIT_DATAERR on a protocol error. */
int ring_allreduce(struct ring *r, float *buf, size_t n, struct diag *d);

#endif
