/* wire.h: imc-train's parameter-server wire protocol (version 1), the
 * framing, encoding and validation shared by the PS and its clients.
 * docs/imc-train-protocol.md is the normative description; this header and
 * wire.c are its only implementation.
 *
 * Every message is a 16-byte header followed by 'length' payload bytes:
 *   u32 magic "IMCT" | u16 version | u16 type | u32 length | u32 reserved (0)
 * All integers are little-endian; floats are IEEE-754 binary32 little-endian
 * and travel as raw arrays so that both ends can send them with writev()
 * straight from (and receive them straight into) the model's flat buffer.
 *
 * Nothing here trusts a peer: wire_hdr_check() bounds every length by the
 * message type and the shard size before a byte of payload is read. */
#ifndef IMC_TRAINER_WIRE_H
#define IMC_TRAINER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "util/diag.h"

#define WIRE_MAGIC 0x54434d49u /* bytes 'I' 'M' 'C' 'T' on the wire */
#define WIRE_VERSION 1
#define WIRE_HDR_SIZE 16
#define WIRE_MAX_HELLO 65536     /* HELLO payload cap (layout description) */
#define WIRE_MAX_TENSORS 256
#define WIRE_MAX_NAME 64
#define WIRE_MAX_RANK 4
#define WIRE_MAX_ERRTEXT 512
#define WIRE_MAX_SHARD (1u << 28) /* floats per shard: 1 GiB, far above any model */

enum wire_type {
	WIRE_HELLO = 1,     /* client -> ps: who I am, my model layout */
	WIRE_WELCOME = 2,   /* ps -> client: accepted, ps state */
	WIRE_INIT = 3,      /* chief -> ps: parameters (+ momentum), step, lr */
	WIRE_PULL = 4,      /* client -> ps: send me the parameters */
	WIRE_PUSH = 5,      /* worker -> ps: a gradient of my shard */
	WIRE_PARAMS = 6,    /* ps -> client: parameters of the shard */
	WIRE_STATE_REQ = 7, /* chief -> ps: parameters + momentum for a checkpoint */
	WIRE_STATE = 8,     /* ps -> chief */
	WIRE_STATS_REQ = 9, /* chief -> ps: counters */
	WIRE_STATS = 10,    /* ps -> chief */
	WIRE_BYE = 11,      /* worker -> ps: I finished cleanly */
	WIRE_SHUTDOWN = 12, /* chief -> ps: training is over */
	WIRE_ACK = 13,      /* ps -> chief: reply to INIT and SHUTDOWN */
	WIRE_END = 14,      /* ps -> worker: training is over, stop */
	WIRE_ERROR = 15,    /* either way, then the sender closes */
	WIRE_TYPE_MAX = 15,
};

enum wire_role { WIRE_ROLE_CHIEF = 1, WIRE_ROLE_WORKER = 2, WIRE_ROLE_PROBE = 3 };
enum wire_mode { WIRE_MODE_SYNC = 1, WIRE_MODE_ASYNC = 2 };

/* Error codes carried by WIRE_ERROR. */
enum wire_err {
	WIRE_ERR_PROTOCOL = 1, /* malformed or out-of-order message */
	WIRE_ERR_VERSION = 2,  /* unsupported protocol version */
	WIRE_ERR_MODEL = 3,    /* model layout or shard mismatch */
	WIRE_ERR_CONFIG = 4,   /* mode, cluster size or task mismatch */
	WIRE_ERR_PEER_LOST = 5,/* the chief died: the job must be restarted */
	WIRE_ERR_DUPLICATE = 6,/* a task with this identity is already connected */
	WIRE_ERR_WORKER_LOST = 7, /* sync, --on-worker-loss fail: a worker died */
};

/* Fixed payload prefixes (the floats follow them). */
#define WIRE_HELLO_FIXED 40
#define WIRE_WELCOME_SIZE 32
#define WIRE_INIT_FIXED 24
#define WIRE_PUSH_FIXED 24
#define WIRE_PARAMS_FIXED 24
#define WIRE_STATE_FIXED 16
#define WIRE_STATS_SIZE 72
#define WIRE_END_SIZE 8
#define WIRE_INIT_MOMENTUM 1u /* INIT flags bit: momentum follows the parameters */

struct wire_hdr {
	uint16_t version;
	uint16_t type;
	uint32_t length;
};

/* A tensor of the model as the protocol describes it. */
struct wire_tensor {
	char name[WIRE_MAX_NAME + 1];
	int rank;
	uint32_t dims[WIRE_MAX_RANK];
	uint64_t count;  /* product of dims */
	uint64_t offset; /* into the flat parameter vector */
};

/* The model layout: tensors in order, back to back. Owns t. */
struct wire_layout {
	struct wire_tensor *t;
	size_t n;
	uint64_t total;
};

struct wire_hello {
	uint16_t role;        /* enum wire_role */
	uint16_t mode;        /* enum wire_mode */
	uint32_t task_index;  /* index within its role */
	uint32_t worker_id;   /* 0 = chief, 1.. = worker index + 1 */
	uint32_t ps_index;    /* which PS the sender believes it talks to */
	uint32_t n_ps;
	uint32_t n_workers;   /* chief + workers */
	uint64_t shard_offset;
	uint64_t shard_count;
	struct wire_layout layout; /* owned */
};

struct wire_welcome {
	uint64_t step;
	uint32_t initialized;
	uint32_t live_workers;
	uint64_t shard_offset;
	uint64_t shard_count;
};

struct wire_push {
	uint64_t step;     /* parameter version the gradient was computed on */
	uint32_t count;
	uint32_t examples; /* batch size behind the gradient */
	float loss;        /* the worker's mean batch loss (for logs) */
};

struct wire_params {
	uint64_t step;
	uint32_t count;
	uint32_t staleness;    /* async: of the push this answers */
	uint32_t live_workers;
};

struct wire_init {
	uint64_t step;
	uint32_t count;
	uint32_t flags;
	float lr, momentum;
};

struct wire_stats {
	uint64_t step;
	uint64_t pushes;
	uint64_t examples;
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t staleness_sum;
	uint32_t staleness_max;
	uint32_t workers_lost;
	uint64_t rounds_short; /* sync rounds completed without every worker */
	double seconds;        /* since the PS started serving */
};

/* Little-endian scalar access on byte buffers. */
void wire_put16(unsigned char *p, uint16_t v);
void wire_put32(unsigned char *p, uint32_t v);
void wire_put64(unsigned char *p, uint64_t v);
void wire_putf(unsigned char *p, float v);
uint16_t wire_get16(const unsigned char *p);
uint32_t wire_get32(const unsigned char *p);
uint64_t wire_get64(const unsigned char *p);
float wire_getf(const unsigned char *p);

/* A frame's float payload read in place, without a copy: the payload
 * starts at a multiple of 4 in a malloc'd buffer, and its little-endian
 * IEEE-754 floats are the host's own (imc-train builds only for
 * little-endian hosts: the assertion below). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the wire's floats are read in place");
static inline const float *wire_floats(const unsigned char *p)
{
	/* cppcheck-suppress invalidPointerCast */
	return (const float *)(const void *)p;
}

const char *wire_type_name(unsigned type);

void wire_hdr_encode(unsigned char out[WIRE_HDR_SIZE], unsigned type, uint32_t length);
/* Decodes and checks magic, version, reserved bits and type. Returns 0 or -1
 * with d set (the message says what was wrong, for the log line). */
int wire_hdr_decode(const unsigned char in[WIRE_HDR_SIZE], struct wire_hdr *h, struct diag *d);
/* Checks h->length against what a message of that type may carry given the
 * shard size (floats). Returns 0 or -1 with d set. */
int wire_len_check(const struct wire_hdr *h, uint64_t shard_count, struct diag *d);

/* Layouts. */
void wire_layout_release(struct wire_layout *l);
/* Adds a tensor at the end (offset = running total). Returns 0 or -1 with d set. */
int wire_layout_add(struct wire_layout *l, const char *name, int rank, const uint32_t *dims,
		    struct diag *d);
/* 0 when equal, else -1 with d naming the first difference. */
int wire_layout_compare(const struct wire_layout *mine, const struct wire_layout *theirs,
			struct diag *d);

/* HELLO: encode into a malloc'd payload; decode validates everything. */
unsigned char *wire_hello_encode(const struct wire_hello *h, size_t *len);
int wire_hello_decode(const unsigned char *p, size_t len, struct wire_hello *h, struct diag *d);
void wire_hello_release(struct wire_hello *h);

void wire_welcome_encode(const struct wire_welcome *w, unsigned char out[WIRE_WELCOME_SIZE]);
int wire_welcome_decode(const unsigned char *p, size_t len, struct wire_welcome *w, struct diag *d);
void wire_push_encode(const struct wire_push *m, unsigned char out[WIRE_PUSH_FIXED]);
int wire_push_decode(const unsigned char *p, size_t len, struct wire_push *m, struct diag *d);
void wire_params_encode(const struct wire_params *m, unsigned char out[WIRE_PARAMS_FIXED]);
int wire_params_decode(const unsigned char *p, size_t len, struct wire_params *m, struct diag *d);
void wire_init_encode(const struct wire_init *m, unsigned char out[WIRE_INIT_FIXED]);
int wire_init_decode(const unsigned char *p, size_t len, struct wire_init *m, struct diag *d);
void wire_stats_encode(const struct wire_stats *m, unsigned char out[WIRE_STATS_SIZE]);
int wire_stats_decode(const unsigned char *p, size_t len, struct wire_stats *m, struct diag *d);
/* ERROR: u32 code, u32 text length, text (not NUL-terminated). */
unsigned char *wire_error_encode(uint32_t code, const char *text, size_t *len);
int wire_error_decode(const unsigned char *p, size_t len, uint32_t *code, char **text,
		      struct diag *d);

/* Blocking I/O on a connected socket (clients; the PS is non-blocking).
 * wire_sendv sends a header plus iov[0..n) (which must add up to length),
 * with one writev/sendmsg per kernel round, restarting after partial writes.
 * wire_recv_full reads exactly len bytes. Both return 0, or -1 with d set
 * ("connection closed", a timeout, or errno's text). Bytes are added to
 * *counter when it is not NULL. */
int wire_sendv(int fd, unsigned type, const struct iovec *iov, int n, uint64_t *counter,
	       struct diag *d);
/* The same, followed by the frame's tag when a is on (wire-auth.h). */
struct wire_auth;
int wire_sendv_auth(int fd, unsigned type, const struct iovec *iov, int n, uint64_t *counter,
		    struct wire_auth *a, struct diag *d);
int wire_recv_full(int fd, void *buf, size_t len, uint64_t *counter, struct diag *d);
/* Receives len bytes scattered over iov (a readv loop). */
int wire_recvv(int fd, struct iovec *iov, int n, uint64_t *counter, struct diag *d);
/* Reads and decodes one header (wire_hdr_decode). */
int wire_recv_hdr(int fd, struct wire_hdr *h, uint64_t *counter, struct diag *d);

/* Socket options every imc-train connection uses: TCP_NODELAY, and big
 * buffers for bulk floats. */
void wire_tune_socket(int fd);

#endif
