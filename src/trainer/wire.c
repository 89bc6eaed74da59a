/* wire.c: encoding, decoding and validation of imc-train's PS protocol
 * messages, plus the blocking send/receive helpers clients use (see wire.h
 * and docs/imc-train-protocol.md). Bulk floats are never copied here: the
 * senders pass iovecs pointing into the model's flat buffers. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "trainer/wire-auth.h"
#include "trainer/wire.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Float arrays go on the wire as they are in memory (no copy, no swap), so
 * protocol v1 needs a little-endian host; say so at build time rather than
 * train on byte-swapped numbers. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "imc-train's wire protocol v1 sends raw little-endian floats: big-endian hosts are not supported"
#endif

void wire_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

void wire_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void wire_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void wire_putf(unsigned char *p, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	wire_put32(p, u);
}

uint16_t wire_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

uint32_t wire_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t wire_get64(const unsigned char *p)
{
	return (uint64_t)wire_get32(p) | (uint64_t)wire_get32(p + 4) << 32;
}

float wire_getf(const unsigned char *p)
{
	uint32_t u = wire_get32(p);
	float v;
	memcpy(&v, &u, 4);
	return v;
}

static const char *const type_names[] = {
	[WIRE_HELLO] = "HELLO", [WIRE_WELCOME] = "WELCOME", [WIRE_INIT] = "INIT",
	[WIRE_PULL] = "PULL", [WIRE_PUSH] = "PUSH", [WIRE_PARAMS] = "PARAMS",
	[WIRE_STATE_REQ] = "STATE_REQ", [WIRE_STATE] = "STATE",
	[WIRE_STATS_REQ] = "STATS_REQ", [WIRE_STATS] = "STATS", [WIRE_BYE] = "BYE",
	[WIRE_SHUTDOWN] = "SHUTDOWN", [WIRE_ACK] = "ACK", [WIRE_END] = "END",
	[WIRE_ERROR] = "ERROR",
};

const char *wire_type_name(unsigned type)
{
	if (type >= 1 && type <= WIRE_TYPE_MAX)
		return type_names[type];
	return "unknown";
}

void wire_hdr_encode(unsigned char out[WIRE_HDR_SIZE], unsigned type, uint32_t length)
{
	wire_put32(out, WIRE_MAGIC);
	wire_put16(out + 4, WIRE_VERSION);
	wire_put16(out + 6, (uint16_t)type);
	wire_put32(out + 8, length);
	wire_put32(out + 12, 0);
}

int wire_hdr_decode(const unsigned char in[WIRE_HDR_SIZE], struct wire_hdr *h, struct diag *d)
{
	uint32_t magic = wire_get32(in);
	if (magic != WIRE_MAGIC) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "bad magic 0x%08x (not an imc-train protocol peer)", magic);
		return -1;
	}
	h->version = wire_get16(in + 4);
	h->type = wire_get16(in + 6);
	h->length = wire_get32(in + 8);
	if (h->version != WIRE_VERSION) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "unsupported protocol version %u (this is version %u)", h->version,
			   WIRE_VERSION);
		return -1;
	}
	if (wire_get32(in + 12) != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "reserved header bits set (0x%08x)",
			   wire_get32(in + 12));
		return -1;
	}
	if (h->type < 1 || h->type > WIRE_TYPE_MAX) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "unknown message type %u", h->type);
		return -1;
	}
	return 0;
}

int wire_len_check(const struct wire_hdr *h, uint64_t shard, struct diag *d)
{
	uint64_t len = h->length, lo, hi;
	switch (h->type) {
	case WIRE_HELLO: lo = WIRE_HELLO_FIXED + 4; hi = WIRE_MAX_HELLO; break;
	case WIRE_WELCOME: lo = hi = WIRE_WELCOME_SIZE; break;
	case WIRE_INIT:
		if (len == WIRE_INIT_FIXED + 4 * shard || len == WIRE_INIT_FIXED + 8 * shard)
			return 0;
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "INIT of %u bytes does not fit the shard (%llu floats: %llu or %llu bytes)",
			   h->length, (unsigned long long)shard,
			   (unsigned long long)(WIRE_INIT_FIXED + 4 * shard),
			   (unsigned long long)(WIRE_INIT_FIXED + 8 * shard));
		return -1;
	case WIRE_PUSH: lo = hi = WIRE_PUSH_FIXED + 4 * shard; break;
	case WIRE_PARAMS: lo = hi = WIRE_PARAMS_FIXED + 4 * shard; break;
	case WIRE_STATE: lo = hi = WIRE_STATE_FIXED + 8 * shard; break;
	case WIRE_STATS: lo = hi = WIRE_STATS_SIZE; break;
	case WIRE_END: lo = hi = WIRE_END_SIZE; break;
	case WIRE_ERROR: lo = 8; hi = 8 + WIRE_MAX_ERRTEXT; break;
	default: lo = hi = 0; break; /* PULL, STATE_REQ, STATS_REQ, BYE, SHUTDOWN, ACK */
	}
	if (len < lo || len > hi) {
		if (lo == hi)
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "%s of %u bytes, expected exactly %llu", wire_type_name(h->type),
				   h->length, (unsigned long long)lo);
		else
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "%s of %u bytes, expected %llu to %llu", wire_type_name(h->type),
				   h->length, (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	return 0;
}

void wire_layout_release(struct wire_layout *l)
{
	if (!l)
		return;
	free(l->t);
	memset(l, 0, sizeof(*l));
}

int wire_layout_add(struct wire_layout *l, const char *name, int rank, const uint32_t *dims,
		    struct diag *d)
{
	size_t nlen = strlen(name);
	if (nlen == 0 || nlen > WIRE_MAX_NAME) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "tensor name '%.*s' is empty or too long",
			   WIRE_MAX_NAME, name);
		return -1;
	}
	if (rank < 1 || rank > WIRE_MAX_RANK) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "tensor '%s' has rank %d (1 to %d allowed)",
			   name, rank, WIRE_MAX_RANK);
		return -1;
	}
	if (l->n >= WIRE_MAX_TENSORS) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "more than %d tensors", WIRE_MAX_TENSORS);
		return -1;
	}
	uint64_t count = 1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] == 0 || dims[i] > WIRE_MAX_SHARD) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "tensor '%s' has dimension %u", name,
				   dims[i]);
			return -1;
		}
		count *= dims[i];
		if (count > WIRE_MAX_SHARD) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "tensor '%s' is too large", name);
			return -1;
		}
	}
	if (l->total + count > (uint64_t)WIRE_MAX_SHARD * 16) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "model is too large");
		return -1;
	}
	l->t = xreallocarray(l->t, l->n + 1, sizeof(*l->t));
	struct wire_tensor *t = &l->t[l->n++];
	memset(t, 0, sizeof(*t));
	memcpy(t->name, name, nlen);
	t->rank = rank;
	memcpy(t->dims, dims, sizeof(*dims) * (size_t)rank);
	t->count = count;
	t->offset = l->total;
	l->total += count;
	return 0;
}

static void shape_str(const struct wire_tensor *t, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < t->rank && at < n; i++) {
		int w = snprintf(buf + at, n - at, "%s%u", i ? "x" : "", t->dims[i]);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

int wire_layout_compare(const struct wire_layout *mine, const struct wire_layout *theirs,
			struct diag *d)
{
	if (mine->n != theirs->n) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "model has %zu tensors, peer sent %zu",
			   mine->n, theirs->n);
		return -1;
	}
	for (size_t i = 0; i < mine->n; i++) {
		const struct wire_tensor *a = &mine->t[i], *b = &theirs->t[i];
		bool same = strcmp(a->name, b->name) == 0 && a->rank == b->rank;
		for (int k = 0; same && k < a->rank; k++)
			same = a->dims[k] == b->dims[k];
		if (!same) {
			char sa[64], sb[64];
			shape_str(a, sa, sizeof(sa));
			shape_str(b, sb, sizeof(sb));
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "tensor %zu is '%s' [%s] here, peer sent '%s' [%s]", i, a->name,
				   sa, b->name, sb);
			return -1;
		}
	}
	return 0;
}

unsigned char *wire_hello_encode(const struct wire_hello *h, size_t *len)
{
	size_t n = WIRE_HELLO_FIXED + 4;
	for (size_t i = 0; i < h->layout.n; i++)
		n += 4 + strlen(h->layout.t[i].name) + 4 * (size_t)h->layout.t[i].rank;
	unsigned char *p = xcalloc(1, n), *q = p;
	wire_put16(q, h->role);
	wire_put16(q + 2, h->mode);
	wire_put32(q + 4, h->task_index);
	wire_put32(q + 8, h->worker_id);
	wire_put32(q + 12, h->ps_index);
	wire_put32(q + 16, h->n_ps);
	wire_put32(q + 20, h->n_workers);
	wire_put64(q + 24, h->shard_offset);
	wire_put64(q + 32, h->shard_count);
	wire_put32(q + 40, (uint32_t)h->layout.n);
	q += WIRE_HELLO_FIXED + 4;
	for (size_t i = 0; i < h->layout.n; i++) {
		const struct wire_tensor *t = &h->layout.t[i];
		size_t nl = strlen(t->name);
		wire_put16(q, (uint16_t)nl);
		q[2] = (unsigned char)t->rank;
		q[3] = 0;
		memcpy(q + 4, t->name, nl);
		q += 4 + nl;
		for (int k = 0; k < t->rank; k++, q += 4)
			wire_put32(q, t->dims[k]);
	}
	*len = n;
	return p;
}

int wire_hello_decode(const unsigned char *p, size_t len, struct wire_hello *h, struct diag *d)
{
	memset(h, 0, sizeof(*h));
	if (len < WIRE_HELLO_FIXED + 4) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO too short (%zu bytes)", len);
		return -1;
	}
	h->role = wire_get16(p);
	h->mode = wire_get16(p + 2);
	h->task_index = wire_get32(p + 4);
	h->worker_id = wire_get32(p + 8);
	h->ps_index = wire_get32(p + 12);
	h->n_ps = wire_get32(p + 16);
	h->n_workers = wire_get32(p + 20);
	h->shard_offset = wire_get64(p + 24);
	h->shard_count = wire_get64(p + 32);
	uint32_t nt = wire_get32(p + 40);
	if (h->role < WIRE_ROLE_CHIEF || h->role > WIRE_ROLE_PROBE) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO with unknown role %u", h->role);
		return -1;
	}
	if (h->mode != WIRE_MODE_SYNC && h->mode != WIRE_MODE_ASYNC) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO with unknown mode %u", h->mode);
		return -1;
	}
	if (nt == 0 || nt > WIRE_MAX_TENSORS) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO with %u tensors (1 to %d allowed)", nt,
			   WIRE_MAX_TENSORS);
		return -1;
	}
	size_t at = WIRE_HELLO_FIXED + 4;
	for (uint32_t i = 0; i < nt; i++) {
		if (len - at < 4)
			goto short_msg;
		size_t nl = wire_get16(p + at);
		int rank = p[at + 2];
		if (p[at + 3] != 0 || nl == 0 || nl > WIRE_MAX_NAME || rank < 1 ||
		    rank > WIRE_MAX_RANK) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "HELLO tensor %u: bad name length %zu or rank %d", i, nl, rank);
			goto fail;
		}
		at += 4;
		if (len - at < nl + 4 * (size_t)rank)
			goto short_msg;
		char name[WIRE_MAX_NAME + 1];
		memcpy(name, p + at, nl);
		name[nl] = 0;
		if (strlen(name) != nl) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO tensor %u: NUL in name", i);
			goto fail;
		}
		for (size_t k = 0; k < nl; k++)
			if ((unsigned char)name[k] < 0x20 || (unsigned char)name[k] >= 0x7f) {
				diag_error(d, IMC_EXIT_DATAERR, NULL,
					   "HELLO tensor %u: non-printable byte in name", i);
				goto fail;
			}
		at += nl;
		uint32_t dims[WIRE_MAX_RANK];
		for (int k = 0; k < rank; k++, at += 4)
			dims[k] = wire_get32(p + at);
		if (wire_layout_add(&h->layout, name, rank, dims, d) < 0)
			goto fail;
	}
	if (at != len) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO has %zu trailing bytes", len - at);
		goto fail;
	}
	return 0;
short_msg:
	diag_error(d, IMC_EXIT_DATAERR, NULL, "HELLO truncated inside its tensor list");
fail:
	wire_layout_release(&h->layout);
	return -1;
}

void wire_hello_release(struct wire_hello *h)
{
	if (h)
		wire_layout_release(&h->layout);
}

static int exact(const char *what, size_t len, size_t want, struct diag *d)
{
	if (len == want)
		return 0;
	diag_error(d, IMC_EXIT_DATAERR, NULL, "%s of %zu bytes, expected %zu", what, len, want);
	return -1;
}

void wire_welcome_encode(const struct wire_welcome *w, unsigned char out[WIRE_WELCOME_SIZE])
{
	wire_put64(out, w->step);
	wire_put32(out + 8, w->initialized);
	wire_put32(out + 12, w->live_workers);
	wire_put64(out + 16, w->shard_offset);
	wire_put64(out + 24, w->shard_count);
}

int wire_welcome_decode(const unsigned char *p, size_t len, struct wire_welcome *w, struct diag *d)
{
	if (exact("WELCOME", len, WIRE_WELCOME_SIZE, d) < 0)
		return -1;
	w->step = wire_get64(p);
	w->initialized = wire_get32(p + 8);
	w->live_workers = wire_get32(p + 12);
	w->shard_offset = wire_get64(p + 16);
	w->shard_count = wire_get64(p + 24);
	return 0;
}

void wire_push_encode(const struct wire_push *m, unsigned char out[WIRE_PUSH_FIXED])
{
	wire_put64(out, m->step);
	wire_put32(out + 8, m->count);
	wire_put32(out + 12, m->examples);
	wire_putf(out + 16, m->loss);
	wire_put32(out + 20, 0);
}

int wire_push_decode(const unsigned char *p, size_t len, struct wire_push *m, struct diag *d)
{
	if (len < WIRE_PUSH_FIXED) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "PUSH too short (%zu bytes)", len);
		return -1;
	}
	m->step = wire_get64(p);
	m->count = wire_get32(p + 8);
	m->examples = wire_get32(p + 12);
	m->loss = wire_getf(p + 16);
	if (wire_get32(p + 20) != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "PUSH reserved field is not zero");
		return -1;
	}
	if ((uint64_t)m->count * 4 != len - WIRE_PUSH_FIXED) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "PUSH says %u floats but carries %zu bytes of them", m->count,
			   len - WIRE_PUSH_FIXED);
		return -1;
	}
	if (m->examples == 0 || m->examples > (1u << 24)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "PUSH with a batch of %u examples",
			   m->examples);
		return -1;
	}
	return 0;
}

void wire_params_encode(const struct wire_params *m, unsigned char out[WIRE_PARAMS_FIXED])
{
	wire_put64(out, m->step);
	wire_put32(out + 8, m->count);
	wire_put32(out + 12, m->staleness);
	wire_put32(out + 16, m->live_workers);
	wire_put32(out + 20, 0);
}

int wire_params_decode(const unsigned char *p, size_t len, struct wire_params *m, struct diag *d)
{
	if (len < WIRE_PARAMS_FIXED) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "PARAMS too short (%zu bytes)", len);
		return -1;
	}
	m->step = wire_get64(p);
	m->count = wire_get32(p + 8);
	m->staleness = wire_get32(p + 12);
	m->live_workers = wire_get32(p + 16);
	if ((uint64_t)m->count * 4 != len - WIRE_PARAMS_FIXED) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "PARAMS says %u floats but carries %zu bytes of them", m->count,
			   len - WIRE_PARAMS_FIXED);
		return -1;
	}
	return 0;
}

void wire_init_encode(const struct wire_init *m, unsigned char out[WIRE_INIT_FIXED])
{
	wire_put64(out, m->step);
	wire_put32(out + 8, m->count);
	wire_put32(out + 12, m->flags);
	wire_putf(out + 16, m->lr);
	wire_putf(out + 20, m->momentum);
}

int wire_init_decode(const unsigned char *p, size_t len, struct wire_init *m, struct diag *d)
{
	if (len < WIRE_INIT_FIXED) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "INIT too short (%zu bytes)", len);
		return -1;
	}
	m->step = wire_get64(p);
	m->count = wire_get32(p + 8);
	m->flags = wire_get32(p + 12);
	m->lr = wire_getf(p + 16);
	m->momentum = wire_getf(p + 20);
	if (m->flags & ~WIRE_INIT_MOMENTUM) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "INIT with unknown flags 0x%x", m->flags);
		return -1;
	}
	uint64_t want = (uint64_t)m->count * 4 * ((m->flags & WIRE_INIT_MOMENTUM) ? 2 : 1);
	if (want != len - WIRE_INIT_FIXED) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "INIT says %u floats but carries %zu bytes of data", m->count,
			   len - WIRE_INIT_FIXED);
		return -1;
	}
	if (!isfinite(m->lr) || m->lr <= 0 || m->lr > 100 || !isfinite(m->momentum) ||
	    m->momentum < 0 || m->momentum >= 1) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "INIT with lr %g and momentum %g out of range",
			   (double)m->lr, (double)m->momentum);
		return -1;
	}
	return 0;
}

void wire_stats_encode(const struct wire_stats *m, unsigned char out[WIRE_STATS_SIZE])
{
	wire_put64(out, m->step);
	wire_put64(out + 8, m->pushes);
	wire_put64(out + 16, m->examples);
	wire_put64(out + 24, m->bytes_in);
	wire_put64(out + 32, m->bytes_out);
	wire_put64(out + 40, m->staleness_sum);
	wire_put32(out + 48, m->staleness_max);
	wire_put32(out + 52, m->workers_lost);
	wire_put64(out + 56, m->rounds_short);
	uint64_t u;
	memcpy(&u, &m->seconds, 8);
	wire_put64(out + 64, u);
}

int wire_stats_decode(const unsigned char *p, size_t len, struct wire_stats *m, struct diag *d)
{
	if (exact("STATS", len, WIRE_STATS_SIZE, d) < 0)
		return -1;
	m->step = wire_get64(p);
	m->pushes = wire_get64(p + 8);
	m->examples = wire_get64(p + 16);
	m->bytes_in = wire_get64(p + 24);
	m->bytes_out = wire_get64(p + 32);
	m->staleness_sum = wire_get64(p + 40);
	m->staleness_max = wire_get32(p + 48);
	m->workers_lost = wire_get32(p + 52);
	m->rounds_short = wire_get64(p + 56);
	uint64_t u = wire_get64(p + 64);
	memcpy(&m->seconds, &u, 8);
	if (!isfinite(m->seconds))
		m->seconds = 0;
	return 0;
}

unsigned char *wire_error_encode(uint32_t code, const char *text, size_t *len)
{
	size_t n = strlen(text);
	if (n > WIRE_MAX_ERRTEXT)
		n = WIRE_MAX_ERRTEXT;
	unsigned char *p = xmalloc(8 + n);
	wire_put32(p, code);
	wire_put32(p + 4, (uint32_t)n);
	memcpy(p + 8, text, n);
	*len = 8 + n;
	return p;
}

int wire_error_decode(const unsigned char *p, size_t len, uint32_t *code, char **text,
		      struct diag *d)
{
	if (len < 8 || wire_get32(p + 4) != len - 8 || len - 8 > WIRE_MAX_ERRTEXT) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "malformed ERROR message");
		return -1;
	}
	*code = wire_get32(p);
	char *t = xstrndup((const char *)p + 8, len - 8);
	for (char *c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	*text = t;
	return 0;
}

static void io_error(struct diag *d, ssize_t r, const char *op)
{
	if (r == 0)
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "connection closed by peer");
	else if (errno == EAGAIN || errno == EWOULDBLOCK)
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s timed out", op);
	else
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s failed: %s", op, strerror(errno));
}

/* Advances an iovec array past n bytes. */
static void iov_advance(struct iovec **iov, int *cnt, size_t n)
{
	while (*cnt > 0 && n >= (*iov)->iov_len) {
		n -= (*iov)->iov_len;
		(*iov)++;
		(*cnt)--;
	}
	if (*cnt > 0 && n) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + n;
		(*iov)->iov_len -= n;
	}
}

#define MAX_IOV 64

int wire_sendv(int fd, unsigned type, const struct iovec *iov, int n, uint64_t *counter,
	       struct diag *d)
{
	return wire_sendv_auth(fd, type, iov, n, counter, NULL, d);
}

int wire_sendv_auth(int fd, unsigned type, const struct iovec *iov, int n, uint64_t *counter,
		    struct wire_auth *a, struct diag *d)
{
	unsigned char tag[WIRE_FRAME_TAG];
	if (n + 2 > MAX_IOV) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "too many iovecs (%d)", n);
		return -1;
	}
	struct iovec v[MAX_IOV], *cur = v;
	unsigned char hdr[WIRE_HDR_SIZE];
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		v[i + 1] = iov[i];
		total += iov[i].iov_len;
	}
	if (total > UINT32_MAX) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "message of %zu bytes is too large", total);
		return -1;
	}
	wire_hdr_encode(hdr, type, (uint32_t)total);
	v[0].iov_base = hdr;
	v[0].iov_len = WIRE_HDR_SIZE;
	int cnt = n + 1;
	total += WIRE_HDR_SIZE;
	if (a && a->on) {
		wire_auth_tag_out(a, v, cnt, tag);
		v[cnt++] = (struct iovec){ tag, WIRE_FRAME_TAG };
	}
	while (cnt > 0) {
		struct msghdr mh = { .msg_iov = cur, .msg_iovlen = (size_t)cnt };
		ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			io_error(d, w < 0 ? -1 : 1, "send");
			return -1;
		}
		if (counter)
			*counter += (uint64_t)w;
		iov_advance(&cur, &cnt, (size_t)w);
	}
	return 0;
}

int wire_recvv(int fd, struct iovec *iov, int n, uint64_t *counter, struct diag *d)
{
	struct iovec v[MAX_IOV], *cur = v;
	if (n > MAX_IOV) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "too many iovecs (%d)", n);
		return -1;
	}
	memcpy(v, iov, sizeof(*iov) * (size_t)n);
	int cnt = n;
	iov_advance(&cur, &cnt, 0);
	while (cnt > 0) {
		if (cur->iov_len == 0) {
			cur++;
			cnt--;
			continue;
		}
		ssize_t r = readv(fd, cur, cnt);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			io_error(d, r, "receive");
			return -1;
		}
		if (counter)
			*counter += (uint64_t)r;
		iov_advance(&cur, &cnt, (size_t)r);
	}
	return 0;
}

int wire_recv_full(int fd, void *buf, size_t len, uint64_t *counter, struct diag *d)
{
	struct iovec v = { .iov_base = buf, .iov_len = len };
	return wire_recvv(fd, &v, 1, counter, d);
}

int wire_recv_hdr(int fd, struct wire_hdr *h, uint64_t *counter, struct diag *d)
{
	unsigned char b[WIRE_HDR_SIZE];
	if (wire_recv_full(fd, b, sizeof(b), counter, d) < 0)
		return -1;
	return wire_hdr_decode(b, h, d);
}

void wire_tune_socket(int fd)
{
	int one = 1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}
