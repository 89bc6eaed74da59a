/* ps-server.c: the parameter server (see ps-server.h): a poll() loop over non-blocking
 * connections, each with its own input state machine (header, then payload
 * straight into a per-connection buffer) and one output slot.
 *
 * Replies carry the parameters without copying them: they point into a
 * reference-counted parameter buffer. An update that finds the current
 * buffer still being sent to someone writes into a fresh copy instead (copy
 * on write), so a slow reader never sees a torn mix of two versions and
 * never delays an update. The protocol is strictly request/reply: a peer
 * that sends while its previous reply is pending is disconnected, which
 * keeps one output slot per connection enough and bounds memory.
 *
 * The SGD update is memory-bound (parameters and momentum do not fit in
 * cache), so it is kept off the critical path: between polls the next
 * update is half-computed ahead (prepare_next), and a PUSH's gradient is
 * folded in as its bytes arrive (scan_floats), committed by a buffer swap
 * once the whole message is known to be valid (spec_commit). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#include "trainer/ps-server.h"
#include "trainer/vecf.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "ps"
#define MAX_EXTRA_CONNS 32 /* beyond the workers: probes, stray clients */
/* After SHUTDOWN, how long a worker that never connected (async: it started
 * after a short job was over) may still come and be told the job ended,
 * rather than retrying a closed port until its own deadline. */
#define LATE_WORKER_WAIT 30.0
#define SMALL_MAX (WIRE_HDR_SIZE + 8 + WIRE_MAX_ERRTEXT + 8)
#define PREPARE_SLICE 32768 /* floats prepared between two polls (128 KiB) */

struct pbuf {
	float *p;
	int refs;
	struct pbuf *next; /* free list */
};

enum wait_kind { WAIT_NONE, WAIT_PULL, WAIT_PUSH };
enum slot_state { SLOT_EXPECTED, SLOT_CONNECTED, SLOT_DONE, SLOT_LOST };

struct conn {
	int fd;
	char peer[80];
	char who[48];           /* "worker:1", "chief:0" or the peer address */
	long worker_id;         /* -1 until HELLO */
	int role;
	double opened;
	/* input */
	unsigned char hdr[WIRE_HDR_SIZE];
	size_t hdr_got;
	struct wire_hdr h;
	unsigned char *buf;
	size_t buf_cap, got;
	double frame_start;     /* 0 when between messages */
	size_t scanned;         /* payload bytes checked for non-finite floats */
	bool nonfinite;         /* the current payload has a NaN or an infinity */
	enum wait_kind waiting;
	/* output: small part (header + fixed fields) then float segments */
	unsigned char small[SMALL_MAX];
	struct iovec iov[4];
	int iov_at, iov_n;
	struct pbuf *ref;       /* parameter buffer the output points into */
	float *owned;           /* snapshot owned by the output (STATE) */
	bool close_after;       /* close once the output is flushed */
	/* authentication (with a secret): the client's nonce, then its proof,
	 * arrive as raw bytes before any frame; then every frame in and out
	 * carries a tag */
	int auth_state;         /* 0 nonce expected, 1 proof expected, 2 done */
	unsigned char nc[WIRE_AUTH_NONCE], ns[WIRE_AUTH_NONCE], araw[WIRE_AUTH_NONCE];
	size_t araw_got;
	struct wire_auth auth;
	unsigned char tag_in[WIRE_FRAME_TAG], tag_out[WIRE_FRAME_TAG];
	size_t tag_got;
	struct wire_mac rx;     /* the incoming frame's tag, fed as bytes arrive */
	size_t tagged;          /* payload bytes fed to rx */
	bool shutdown_sent;     /* chief: SHUTDOWN received, closing is fine */
	bool dead;
};

struct slot {
	enum slot_state state;
	struct conn *c;
	bool pushed;
};

struct ps {
	const struct ps_config *cfg;
	uint64_t off, count;    /* shard */
	size_t n_workers;
	struct pbuf *cur, *free_bufs;
	float *velocity;
	float *sum;             /* sync: the round's gradients so far (while pushed > 0) */
	/* the next update, built in buffers of its own. Between polls
	 * (while waiting for a PUSH, and during one ahead of its arriving
	 * floats) prepare_next() copies the parameters into next_p and puts
	 * momentum * velocity into next_v: the half of the SGD step that needs
	 * no gradient. As the floats of a PUSH arrive (async: any PUSH; sync:
	 * the one that completes the round), scan_floats() finishes
	 * each element there (or computes it whole where nothing was prepared
	 * yet), so the update overlaps the transfer; the PUSH commits by
	 * swapping buffers. The current parameters and velocity are untouched
	 * until the whole gradient is known to be finite. */
	struct pbuf *next_p;    /* becomes the parameters when the update commits */
	float *next_v;          /* becomes the velocity */
	size_t next_ready;      /* elements [0, next_ready) are prepared */
	uint64_t next_step;     /* ps->step they were prepared from */
	struct conn *spec_conn; /* the PUSH being applied on the fly */
	size_t spec_pushed;     /* sync: pushes of the round before it */
	float spec_scale;       /* 1, or 1 / pushes of the round */
	uint64_t step;
	bool initialized;
	float lr, momentum;
	/* sync round */
	size_t pushed;
	uint32_t round_examples;
	double round_start;
	/* lifecycle */
	bool shutting_down;
	double shutdown_at, started;
	struct slot *slots;
	struct conn **conns;
	size_t nconns, max_conns;
	int lfd;
	/* failure to report */
	bool failed;
	enum imc_exit fail_code;
	char fail_msg[256];
	/* stats */
	struct wire_stats st;
	double last_log;
	uint64_t log_step, log_in, log_out;
	/* the final line's rates: from the initialisation to the last update */
	double init_at, update_at;
	uint64_t init_step;
};

static void spec_abandon(struct ps *ps);
static bool spec_commit(struct ps *ps, struct conn *c);

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct pbuf *pbuf_get(struct ps *ps)
{
	struct pbuf *b = ps->free_bufs;
	if (b) {
		ps->free_bufs = b->next;
	} else {
		b = xcalloc(1, sizeof(*b));
		b->p = xmalloc(sizeof(float) * (ps->count ? ps->count : 1));
	}
	b->refs = 0;
	b->next = NULL;
	return b;
}

static void pbuf_unref(struct ps *ps, struct pbuf *b)
{
	if (!b)
		return;
	if (--b->refs == 0 && b != ps->cur) {
		b->next = ps->free_bufs;
		ps->free_bufs = b;
	}
}

/* The parameter buffer, ready to be modified (copy on write). */
static float *params_for_write(struct ps *ps)
{
	if (ps->cur->refs == 0)
		return ps->cur->p;
	struct pbuf *b = pbuf_get(ps), *old = ps->cur;
	memcpy(b->p, old->p, sizeof(float) * ps->count);
	ps->cur = b;
	/* old is still referenced by pending replies; pbuf_unref frees it */
	return b->p;
}

/* The PS's arithmetic is written with vecf.h's 4-float vectors: it is the
 * PS's whole CPU cost per message, so it is worth the few lines. */

/* The gradient term of an update: g, or sum + g for the push that ends a
 * sync round after others (their sum so far), rounded as vecf_add does. */
static inline vf4 grad4(const float *sum, const float *g, size_t i)
{
	return sum ? ld4(sum + i) + ld4(g + i) : ld4(g + i);
}

static inline float grad1(const float *sum, const float *g, size_t i)
{
	return sum ? sum[i] + g[i] : g[i];
}

/* PyTorch's SGD with momentum: nv = mu*v + scale*x; np = p - lr*nv, with x
 * as in grad4. The outputs may be the inputs (in place); g and sum never
 * overlap them. */
static void sgd_to(float *np, float *nv, const float *p, const float *v, const float *sum,
		   const float *g, size_t n, float lr, float mu, float scale)
{
	vf4 vmu = { mu, mu, mu, mu }, vlr = { lr, lr, lr, lr }, vsc = { scale, scale, scale, scale };
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		vf4 nvv = vmu * ld4(v + i) + vsc * grad4(sum, g, i);
		vf4 npv = ld4(p + i) - vlr * nvv;
		st4(nv + i, nvv);
		st4(np + i, npv);
	}
	for (; i < n; i++) {
		float t = mu * v[i] + scale * grad1(sum, g, i);
		nv[i] = t;
		np[i] = p[i] - lr * t;
	}
}

static void sgd(float *p, float *v, const float *g, size_t n, float lr, float mu, float scale)
{
	sgd_to(p, v, p, v, NULL, g, n, lr, mu, scale);
}

/* np = p and nv = mu*v: the first half of sgd_to, done ahead. */
static void sgd_prepare(float *np, float *nv, const float *p, const float *v, size_t n, float mu)
{
	vf4 vmu = { mu, mu, mu, mu };
	size_t i = 0;
	memcpy(np, p, n * sizeof(float));
	for (; i + 4 <= n; i += 4)
		st4(nv + i, vmu * ld4(v + i));
	for (; i < n; i++)
		nv[i] = mu * v[i];
}

/* The second half, in place on prepared values: nv += scale*x; np -= lr*nv,
 * with exactly sgd_to's roundings. */
static void sgd_finish(float *np, float *nv, const float *sum, const float *g, size_t n,
		       float lr, float scale)
{
	vf4 vlr = { lr, lr, lr, lr }, vsc = { scale, scale, scale, scale };
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		vf4 nvv = ld4(nv + i) + vsc * grad4(sum, g, i);
		st4(nv + i, nvv);
		st4(np + i, ld4(np + i) - vlr * nvv);
	}
	for (; i < n; i++) {
		float t = nv[i] + scale * grad1(sum, g, i);
		nv[i] = t;
		np[i] -= lr * t;
	}
}

/* True when no element is NaN or infinite: x - x is 0 exactly for finite x
 * and NaN otherwise, and NaN survives the sum. Branch-free, with four
 * independent sums so that the adds do not wait on each other (one chain
 * made this loop latency-bound: a quarter of the PS's arithmetic). */
static bool all_finite(const float *g, size_t n)
{
	vf4 a0 = { 0, 0, 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		vf4 x0 = ld4(g + i), x1 = ld4(g + i + 4), x2 = ld4(g + i + 8), x3 = ld4(g + i + 12);
		a0 += x0 - x0;
		a1 += x1 - x1;
		a2 += x2 - x2;
		a3 += x3 - x3;
	}
	vf4 acc = (a0 + a1) + (a2 + a3);
	float s = acc[0] + acc[1] + acc[2] + acc[3];
	for (; i < n; i++)
		s += g[i] - g[i];
	return s == 0;
}

/* ---- output ---- */

static int flush_out(struct ps *ps, struct conn *c);
static bool out_pending(const struct conn *c);
static void conn_drop(struct ps *ps, struct conn *c, const char *why);

/* Queues a reply: small bytes (copied), then up to two float segments.
 * The output slot holds one reply: it takes a reference to ref and owns
 * 'owned' until the reply is flushed or the connection freed. A reply
 * queued over one still pending would interleave two frames on the wire
 * and drop the first one's reference (the parameter buffer it points into
 * would never return to the free list), so that connection is closed
 * instead; callers check out_pending() first. */
static void conn_reply(struct ps *ps, struct conn *c, unsigned type, const void *fixed,
		       size_t fixed_len, const float *a, const float *b, size_t nfloats,
		       struct pbuf *ref, float *owned)
{
	if (out_pending(c)) {
		free(owned);
		conn_drop(ps, c, "internal error: a reply was queued over a pending one");
		return;
	}
	size_t flen = nfloats * sizeof(float) * (a ? 1 : 0) + nfloats * sizeof(float) * (b ? 1 : 0);
	wire_hdr_encode(c->small, type, (uint32_t)(fixed_len + flen));
	if (fixed_len)
		memcpy(c->small + WIRE_HDR_SIZE, fixed, fixed_len);
	c->iov_n = 0;
	c->iov_at = 0;
	c->iov[c->iov_n++] = (struct iovec){ c->small, WIRE_HDR_SIZE + fixed_len };
	if (a)
		c->iov[c->iov_n++] = (struct iovec){ (void *)(uintptr_t)a, nfloats * sizeof(float) };
	if (b)
		c->iov[c->iov_n++] = (struct iovec){ (void *)(uintptr_t)b, nfloats * sizeof(float) };
	if (c->auth.on) {
		wire_auth_tag_out(&c->auth, c->iov, c->iov_n, c->tag_out);
		c->iov[c->iov_n++] = (struct iovec){ c->tag_out, WIRE_FRAME_TAG };
	}
	c->ref = ref;
	if (ref)
		ref->refs++;
	c->owned = owned;
	flush_out(ps, c);
}

static void send_error(struct ps *ps, struct conn *c, uint32_t code, const char *text)
{
	/* an ERROR cannot follow a partly sent reply on the same stream (a
	 * peer that pipelines requests while a large PARAMS is going out):
	 * close at once */
	if (out_pending(c)) {
		conn_drop(ps, c, text);
		return;
	}
	c->waiting = WAIT_NONE; /* nothing else is sent after the ERROR */
	size_t len;
	unsigned char *p = wire_error_encode(code, text, &len);
	c->close_after = true; /* before the reply: it may be flushed at once */
	c->hdr_got = c->got = 0;
	c->frame_start = 0;
	conn_reply(ps, c, WIRE_ERROR, p, len, NULL, NULL, 0, NULL, NULL);
	free(p);
}

static void send_params(struct ps *ps, struct conn *c, uint32_t staleness)
{
	struct wire_params m = { .step = ps->step, .count = (uint32_t)ps->count,
				 .staleness = staleness };
	for (size_t i = 0; i < ps->n_workers; i++)
		if (ps->slots[i].state == SLOT_CONNECTED || ps->slots[i].state == SLOT_EXPECTED)
			m.live_workers++;
	unsigned char fixed[WIRE_PARAMS_FIXED];
	wire_params_encode(&m, fixed);
	conn_reply(ps, c, WIRE_PARAMS, fixed, sizeof(fixed), ps->cur->p, NULL, ps->count,
		   ps->cur, NULL);
}

static void send_end(struct ps *ps, struct conn *c)
{
	unsigned char fixed[WIRE_END_SIZE];
	wire_put64(fixed, ps->step);
	c->close_after = true;
	conn_reply(ps, c, WIRE_END, fixed, sizeof(fixed), NULL, NULL, 0, NULL, NULL);
}

static bool out_pending(const struct conn *c)
{
	return c->iov_at < c->iov_n;
}

/* ---- connection lifecycle ---- */

static void fail_job(struct ps *ps, enum imc_exit code, const char *msg)
{
	uint32_t wcode = code == IMC_EXIT_FAILED ? WIRE_ERR_WORKER_LOST : WIRE_ERR_PEER_LOST;
	if (ps->failed)
		return;
	ps->failed = true;
	ps->fail_code = code;
	snprintf(ps->fail_msg, sizeof(ps->fail_msg), "%s", msg);
	log_error(MOD, "ps:%zu: job failed: %s", ps->cfg->index, msg);
	for (size_t i = 0; i < ps->nconns; i++) {
		struct conn *c = ps->conns[i];
		if (c->dead || c->worker_id < 0)
			continue;
		if (out_pending(c)) { /* cannot interleave; just close it */
			c->dead = true;
			continue;
		}
		send_error(ps, c, wcode, msg);
	}
}

static void check_round(struct ps *ps);

/* Closes c; why == NULL for an orderly close. */
static void conn_drop(struct ps *ps, struct conn *c, const char *why)
{
	if (c->dead)
		return;
	c->dead = true;
	if (why)
		log_warn(MOD, "ps:%zu: closing connection from %s (%s): %s", ps->cfg->index,
			 c->peer, c->who, why);
	if (c->worker_id < 0)
		return;
	struct slot *s = &ps->slots[c->worker_id];
	if (s->c != c)
		return;
	s->c = NULL;
	if (s->state != SLOT_CONNECTED)
		return;
	if (c->worker_id == 0 && !c->shutdown_sent && !ps->shutting_down) {
		s->state = SLOT_LOST;
		char msg[200];
		snprintf(msg, sizeof(msg), "chief lost (%s) at step %llu; restart the job with --resume",
			 why ? why : "connection closed", (unsigned long long)ps->step);
		fail_job(ps, IMC_EXIT_TEMPFAIL, msg);
		return;
	}
	if (c->worker_id == 0) {
		s->state = SLOT_DONE;
		return;
	}
	if (ps->shutting_down) {
		s->state = SLOT_DONE;
		return;
	}
	s->state = SLOT_LOST;
	ps->st.workers_lost++;
	size_t live = 0;
	for (size_t i = 0; i < ps->n_workers; i++)
		if (ps->slots[i].state == SLOT_CONNECTED || ps->slots[i].state == SLOT_EXPECTED)
			live++;
	if (ps->cfg->mode == WIRE_MODE_SYNC && ps->cfg->fail_on_worker_loss) {
		char msg[200];
		snprintf(msg, sizeof(msg), "%s lost at step %llu (--on-worker-loss fail)", c->who,
			 (unsigned long long)ps->step);
		fail_job(ps, IMC_EXIT_FAILED, msg);
		return;
	}
	log_warn(MOD, "ps:%zu: %s lost at step %llu; continuing with %zu of %zu workers",
		 ps->cfg->index, c->who, (unsigned long long)ps->step, live, ps->n_workers);
	if (ps->cfg->mode == WIRE_MODE_SYNC)
		check_round(ps);
}

/* The peer closed its end: expected after BYE, SHUTDOWN or END, else a loss. */
static void conn_eof(struct ps *ps, struct conn *c)
{
	if (c->hdr_got || c->got)
		conn_drop(ps, c, "connection closed in the middle of a message (truncated frame)");
	else if (c->worker_id >= 0 && !c->shutdown_sent && !ps->shutting_down)
		conn_drop(ps, c, c->waiting == WAIT_PUSH ? "connection closed while waiting for the round"
			  : "connection closed");
	else
		conn_drop(ps, c, NULL);
}

static void conn_free(struct ps *ps, struct conn *c)
{
	if (ps->spec_conn == c)
		spec_abandon(ps);
	close(c->fd);
	pbuf_unref(ps, c->ref);
	free(c->owned);
	free(c->buf);
	wire_mac_release(&c->rx);
	wire_auth_release(&c->auth);
	free(c);
}

static int flush_out(struct ps *ps, struct conn *c)
{
	while (out_pending(c) && !c->dead) {
		struct msghdr mh = { .msg_iov = c->iov + c->iov_at,
				     .msg_iovlen = (size_t)(c->iov_n - c->iov_at) };
		ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			char why[120];
			snprintf(why, sizeof(why), "send failed: %s", strerror(errno));
			conn_drop(ps, c, why);
			return -1;
		}
		ps->st.bytes_out += (uint64_t)w;
		size_t n = (size_t)w;
		while (c->iov_at < c->iov_n && n >= c->iov[c->iov_at].iov_len)
			n -= c->iov[c->iov_at++].iov_len;
		if (c->iov_at < c->iov_n) {
			c->iov[c->iov_at].iov_base = (char *)c->iov[c->iov_at].iov_base + n;
			c->iov[c->iov_at].iov_len -= n;
		}
	}
	if (!out_pending(c)) {
		pbuf_unref(ps, c->ref);
		c->ref = NULL;
		free(c->owned);
		c->owned = NULL;
		if (c->close_after && !c->dead)
			conn_drop(ps, c, NULL);
	}
	return 0;
}

/* ---- the sync round ---- */

/* Whether every live worker other than 'except' (-1: none) has pushed in
 * this round. */
static bool others_pushed(const struct ps *ps, long except)
{
	for (size_t i = 0; i < ps->n_workers; i++) {
		const struct slot *s = &ps->slots[i];
		if ((long)i != except && (s->state == SLOT_CONNECTED || s->state == SLOT_EXPECTED) &&
		    !s->pushed)
			return false;
	}
	return true;
}

/* The round's update is applied: next step, answer everyone waiting. */
static void end_round(struct ps *ps)
{
	for (size_t i = 0; i < ps->n_workers; i++)
		ps->slots[i].pushed = false;
	if (ps->pushed < ps->n_workers)
		ps->st.rounds_short++;
	ps->step++;
	ps->update_at = now_s();
	ps->st.examples += ps->round_examples;
	ps->pushed = 0;
	ps->round_examples = 0;
	ps->round_start = 0;
	for (size_t i = 0; i < ps->nconns; i++) {
		struct conn *c = ps->conns[i];
		if (!c->dead && c->waiting == WAIT_PUSH) {
			c->waiting = WAIT_NONE;
			if (ps->shutting_down)
				send_end(ps, c);
			else
				send_params(ps, c, 0);
		}
	}
}

/* Applies the round's update once every live worker has pushed. */
static void check_round(struct ps *ps)
{
	if (ps->pushed == 0 || ps->failed || !others_pushed(ps, -1))
		return;
	float *p = params_for_write(ps);
	sgd(p, ps->velocity, ps->sum, ps->count, ps->lr, ps->momentum, 1.0f / (float)ps->pushed);
	end_round(ps);
}

static void round_timeout(struct ps *ps)
{
	log_warn(MOD, "ps:%zu: step %llu: sync round incomplete after %.0f s; dropping the laggards",
		 ps->cfg->index, (unsigned long long)ps->step, ps->cfg->sync_timeout);
	for (size_t i = 0; i < ps->n_workers && !ps->failed; i++) {
		struct slot *s = &ps->slots[i];
		if (s->pushed || (s->state != SLOT_CONNECTED && s->state != SLOT_EXPECTED))
			continue;
		if (s->c) {
			conn_drop(ps, s->c, "no gradient within --sync-timeout");
		} else {
			s->state = SLOT_LOST;
			ps->st.workers_lost++;
			log_warn(MOD, "ps:%zu: worker id %zu never connected; continuing without it",
				 ps->cfg->index, i);
			if (ps->cfg->fail_on_worker_loss || i == 0)
				fail_job(ps, i == 0 ? IMC_EXIT_TEMPFAIL : IMC_EXIT_FAILED,
					 "a worker never connected (--on-worker-loss fail)");
		}
	}
	check_round(ps);
}

/* ---- message handlers ---- */

static int handle_hello(struct ps *ps, struct conn *c, const unsigned char *p, size_t len)
{
	struct wire_hello h;
	struct diag d = DIAG_INIT;
	char why[300];
	const struct cluster *cl = ps->cfg->cluster;
	if (wire_hello_decode(p, len, &h, &d) < 0) {
		snprintf(why, sizeof(why), "bad HELLO: %s", diag_first_message(&d));
		diag_release(&d);
		send_error(ps, c, WIRE_ERR_PROTOCOL, why);
		log_warn(MOD, "ps:%zu: rejecting %s: %s", ps->cfg->index, c->peer, why);
		return 0;
	}
	uint32_t code = 0;
	if (wire_layout_compare(ps->cfg->layout, &h.layout, &d) < 0) {
		code = WIRE_ERR_MODEL;
		snprintf(why, sizeof(why), "model mismatch: %s", diag_first_message(&d));
	} else if (h.shard_offset != ps->off || h.shard_count != ps->count ||
		   h.ps_index != ps->cfg->index || h.n_ps != cl->n_ps) {
		code = WIRE_ERR_MODEL;
		snprintf(why, sizeof(why),
			 "shard mismatch: peer expects ps %u of %u with [%llu, +%llu), this is ps %zu of %zu with [%llu, +%llu)",
			 h.ps_index, h.n_ps, (unsigned long long)h.shard_offset,
			 (unsigned long long)h.shard_count, ps->cfg->index, cl->n_ps,
			 (unsigned long long)ps->off, (unsigned long long)ps->count);
	} else if (h.mode != ps->cfg->mode) {
		code = WIRE_ERR_CONFIG;
		snprintf(why, sizeof(why), "mode mismatch: peer is %s, this PS is %s",
			 h.mode == WIRE_MODE_SYNC ? "sync" : "async",
			 ps->cfg->mode == WIRE_MODE_SYNC ? "sync" : "async");
	} else if (h.n_workers != ps->n_workers) {
		code = WIRE_ERR_CONFIG;
		snprintf(why, sizeof(why), "peer counts %u workers, this PS %zu", h.n_workers,
			 ps->n_workers);
	} else if (h.role != WIRE_ROLE_PROBE) {
		long id = cluster_worker_id(cl, h.role == WIRE_ROLE_CHIEF ? "chief" : "worker",
					    (long)h.task_index);
		if (h.role == WIRE_ROLE_WORKER && cl->n_chief == 0 && h.task_index == 0)
			id = 0; /* without a chief task, worker 0 is the chief */
		if (id < 0 || (uint64_t)id != h.worker_id ||
		    (h.role == WIRE_ROLE_CHIEF && id != 0)) {
			code = WIRE_ERR_CONFIG;
			snprintf(why, sizeof(why), "task %s:%u (worker id %u) is not in the cluster",
				 h.role == WIRE_ROLE_CHIEF ? "chief" : "worker", h.task_index,
				 h.worker_id);
		} else if (ps->slots[id].state == SLOT_CONNECTED) {
			code = WIRE_ERR_DUPLICATE;
			snprintf(why, sizeof(why), "worker id %ld is already connected", id);
		} else if (ps->slots[id].state == SLOT_LOST || ps->slots[id].state == SLOT_DONE) {
			code = WIRE_ERR_CONFIG;
			snprintf(why, sizeof(why),
				 "worker id %ld already %s in this job; restart the job with --resume",
				 id, ps->slots[id].state == SLOT_LOST ? "left (lost)" : "finished");
		} else {
			c->worker_id = id;
			c->role = h.role;
			snprintf(c->who, sizeof(c->who), "%s:%u",
				 h.role == WIRE_ROLE_CHIEF ? "chief" : "worker", h.task_index);
			ps->slots[id].state = SLOT_CONNECTED;
			ps->slots[id].c = c;
		}
	} else {
		c->role = WIRE_ROLE_PROBE;
		snprintf(c->who, sizeof(c->who), "probe");
	}
	diag_release(&d);
	wire_hello_release(&h);
	if (code) {
		log_warn(MOD, "ps:%zu: rejecting %s: %s", ps->cfg->index, c->peer, why);
		send_error(ps, c, code, why);
		return 0;
	}
	if (c->role == WIRE_ROLE_PROBE)
		c->worker_id = -2; /* registered, but not a worker */
	/* A worker arriving during the shutdown wait (it started after a short
	 * job was over) is no longer counted as late, so the wait would end
	 * 10 s after SHUTDOWN, maybe before its first request: give it those
	 * 10 s from now, to ask and be told that the job ended. Each worker
	 * id connects once, so this cannot go on. */
	if (ps->shutting_down && c->worker_id >= 0)
		ps->shutdown_at = now_s();
	log_info(MOD, "ps:%zu: %s connected from %s", ps->cfg->index, c->who, c->peer);
	struct wire_welcome w = { .step = ps->step, .initialized = ps->initialized,
				  .shard_offset = ps->off, .shard_count = ps->count };
	for (size_t i = 0; i < ps->n_workers; i++)
		if (ps->slots[i].state == SLOT_CONNECTED || ps->slots[i].state == SLOT_EXPECTED)
			w.live_workers++;
	unsigned char fixed[WIRE_WELCOME_SIZE];
	wire_welcome_encode(&w, fixed);
	conn_reply(ps, c, WIRE_WELCOME, fixed, sizeof(fixed), NULL, NULL, 0, NULL, NULL);
	return 0;
}

static void protocol_violation(struct ps *ps, struct conn *c, const char *why)
{
	log_warn(MOD, "ps:%zu: protocol error from %s (%s): %s", ps->cfg->index, c->peer, c->who,
		 why);
	send_error(ps, c, WIRE_ERR_PROTOCOL, why);
}

static void handle_init(struct ps *ps, struct conn *c, const unsigned char *p, size_t len)
{
	struct wire_init m;
	struct diag d = DIAG_INIT;
	char why[200];
	if (wire_init_decode(p, len, &m, &d) < 0 || m.count != ps->count) {
		snprintf(why, sizeof(why), "bad INIT: %s",
			 diag_has_errors(&d) ? diag_first_message(&d) : "wrong count");
		diag_release(&d);
		protocol_violation(ps, c, why);
		return;
	}
	const float *vals = wire_floats(p + WIRE_INIT_FIXED);
	bool has_v = m.flags & WIRE_INIT_MOMENTUM;
	if (c->nonfinite) {
		protocol_violation(ps, c, "INIT carries non-finite values");
		return;
	}
	if (ps->initialized) {
		protocol_violation(ps, c, "INIT after the parameters were initialised");
		return;
	}
	float *dst = params_for_write(ps);
	memcpy(dst, vals, sizeof(float) * ps->count);
	if (has_v)
		memcpy(ps->velocity, vals + ps->count, sizeof(float) * ps->count);
	else
		memset(ps->velocity, 0, sizeof(float) * ps->count);
	ps->step = m.step;
	ps->lr = m.lr;
	ps->momentum = m.momentum;
	ps->initialized = true;
	ps->next_ready = 0;
	ps->log_step = ps->init_step = ps->step;
	ps->init_at = now_s();
	ps->st.step = ps->step;
	log_info(MOD, "ps:%zu: initialised by %s at step %llu (lr %g, momentum %g%s)",
		 ps->cfg->index, c->who, (unsigned long long)m.step, (double)m.lr,
		 (double)m.momentum, has_v ? ", momentum buffer restored" : "");
	conn_reply(ps, c, WIRE_ACK, NULL, 0, NULL, NULL, 0, NULL, NULL);
	for (size_t i = 0; i < ps->nconns; i++) {
		struct conn *o = ps->conns[i];
		if (!o->dead && o->waiting == WAIT_PULL && !out_pending(o)) {
			o->waiting = WAIT_NONE;
			send_params(ps, o, 0);
		}
	}
}

static void handle_push(struct ps *ps, struct conn *c, const unsigned char *p, size_t len)
{
	struct wire_push m;
	struct diag d = DIAG_INIT;
	char why[200];
	if (wire_push_decode(p, len, &m, &d) < 0 || m.count != ps->count) {
		snprintf(why, sizeof(why), "bad PUSH: %s",
			 diag_has_errors(&d) ? diag_first_message(&d) : "wrong count");
		diag_release(&d);
		protocol_violation(ps, c, why);
		return;
	}
	if (!ps->initialized) {
		protocol_violation(ps, c, "PUSH before the parameters were initialised");
		return;
	}
	if (m.step > ps->step) {
		snprintf(why, sizeof(why), "PUSH for step %llu, the PS is at step %llu",
			 (unsigned long long)m.step, (unsigned long long)ps->step);
		protocol_violation(ps, c, why);
		return;
	}
	const float *g = wire_floats(p + WIRE_PUSH_FIXED);
	if (c->nonfinite) {
		protocol_violation(ps, c, "PUSH carries non-finite gradients");
		return;
	}
	if (ps->shutting_down) {
		send_end(ps, c);
		return;
	}
	ps->st.pushes++;
	if (ps->cfg->mode == WIRE_MODE_ASYNC) {
		uint64_t stale = ps->step - m.step;
		if (!spec_commit(ps, c)) {
			float *w = params_for_write(ps);
			sgd(w, ps->velocity, g, ps->count, ps->lr, ps->momentum, 1.0f);
		}
		ps->step++;
		ps->update_at = now_s();
		ps->st.examples += m.examples;
		ps->st.staleness_sum += stale;
		if (stale > ps->st.staleness_max)
			ps->st.staleness_max = (uint32_t)(stale > UINT32_MAX ? UINT32_MAX : stale);
		send_params(ps, c, (uint32_t)(stale > UINT32_MAX ? UINT32_MAX : stale));
		return;
	}
	struct slot *s = &ps->slots[c->worker_id];
	if (m.step != ps->step) {
		snprintf(why, sizeof(why), "sync PUSH for step %llu, the round is step %llu",
			 (unsigned long long)m.step, (unsigned long long)ps->step);
		protocol_violation(ps, c, why);
		return;
	}
	if (s->pushed) {
		protocol_violation(ps, c, "second PUSH in the same sync round");
		return;
	}
	/* the PUSH that completes the round may have been applied on the fly */
	bool applied = spec_commit(ps, c);
	if (!applied && ps->pushed == 0) /* the round's first: sum holds an old round's */
		memcpy(ps->sum, g, sizeof(float) * ps->count);
	else if (!applied)
		vecf_add(ps->sum, g, ps->count);
	s->pushed = true;
	ps->pushed++;
	ps->round_examples += m.examples;
	if (!ps->round_start)
		ps->round_start = now_s();
	c->waiting = WAIT_PUSH;
	if (applied)
		end_round(ps);
	else
		check_round(ps);
}

static void handle_state_req(struct ps *ps, struct conn *c)
{
	if (!ps->initialized) {
		protocol_violation(ps, c, "STATE_REQ before the parameters were initialised");
		return;
	}
	/* a snapshot: checkpoints are rare, and in async mode the parameters and
	 * the momentum keep moving while the reply is being sent */
	float *snap = xmalloc(sizeof(float) * 2 * (ps->count ? ps->count : 1));
	memcpy(snap, ps->cur->p, sizeof(float) * ps->count);
	memcpy(snap + ps->count, ps->velocity, sizeof(float) * ps->count);
	unsigned char fixed[WIRE_STATE_FIXED];
	wire_put64(fixed, ps->step);
	wire_put32(fixed + 8, (uint32_t)ps->count);
	wire_put32(fixed + 12, 0);
	conn_reply(ps, c, WIRE_STATE, fixed, sizeof(fixed), snap, snap + ps->count, ps->count,
		   NULL, snap);
}

static void handle_stats_req(struct ps *ps, struct conn *c)
{
	unsigned char fixed[WIRE_STATS_SIZE];
	ps->st.step = ps->step;
	ps->st.seconds = now_s() - ps->started;
	wire_stats_encode(&ps->st, fixed);
	conn_reply(ps, c, WIRE_STATS, fixed, sizeof(fixed), NULL, NULL, 0, NULL, NULL);
}

static void dispatch(struct ps *ps, struct conn *c)
{
	const unsigned char *p = c->buf;
	size_t len = c->h.length;
	unsigned t = c->h.type;
	bool chief = c->worker_id == 0;
	bool worker = c->worker_id >= 0;
	char why[160];

	if (c->worker_id == -1 && t != WIRE_HELLO) {
		snprintf(why, sizeof(why), "%s before HELLO", wire_type_name(t));
		protocol_violation(ps, c, why);
		return;
	}
	switch (t) {
	case WIRE_HELLO:
		if (c->worker_id != -1) {
			protocol_violation(ps, c, "second HELLO");
			return;
		}
		handle_hello(ps, c, p, len);
		return;
	case WIRE_INIT:
		if (!chief)
			break;
		handle_init(ps, c, p, len);
		return;
	case WIRE_PULL:
		if (!worker && c->role != WIRE_ROLE_PROBE)
			break;
		if (ps->shutting_down)
			send_end(ps, c);
		else if (ps->initialized)
			send_params(ps, c, 0);
		else
			c->waiting = WAIT_PULL;
		return;
	case WIRE_PUSH:
		if (!worker)
			break;
		handle_push(ps, c, p, len);
		if (ps->spec_conn == c) /* rejected or not committed */
			spec_abandon(ps);
		return;
	case WIRE_STATE_REQ:
		if (!chief)
			break;
		handle_state_req(ps, c);
		return;
	case WIRE_STATS_REQ:
		handle_stats_req(ps, c);
		return;
	case WIRE_BYE:
		if (worker && !chief) {
			ps->slots[c->worker_id].state = SLOT_DONE;
			ps->slots[c->worker_id].c = NULL;
			log_info(MOD, "ps:%zu: %s finished", ps->cfg->index, c->who);
			c->worker_id = -2;
			conn_drop(ps, c, NULL);
			if (ps->cfg->mode == WIRE_MODE_SYNC)
				check_round(ps);
			return;
		}
		if (c->role == WIRE_ROLE_PROBE) {
			conn_drop(ps, c, NULL);
			return;
		}
		break;
	case WIRE_SHUTDOWN:
		if (!chief)
			break;
		log_info(MOD, "ps:%zu: shutdown requested by the chief at step %llu",
			 ps->cfg->index, (unsigned long long)ps->step);
		ps->shutting_down = true;
		ps->shutdown_at = now_s();
		c->shutdown_sent = true;
		conn_reply(ps, c, WIRE_ACK, NULL, 0, NULL, NULL, 0, NULL, NULL);
		for (size_t i = 0; i < ps->nconns; i++) {
			struct conn *o = ps->conns[i];
			if (!o->dead && o->waiting != WAIT_NONE && !out_pending(o)) {
				o->waiting = WAIT_NONE;
				send_end(ps, o);
			}
		}
		return;
	default:
		break;
	}
	snprintf(why, sizeof(why), "unexpected %s from %s", wire_type_name(t),
		 c->role == WIRE_ROLE_PROBE ? "a probe" : chief ? "the chief" : "a worker");
	protocol_violation(ps, c, why);
}

/* Whether c may send a message of this type at all (checked on the header,
 * before any payload is read); NULL when it may, else why not. */
static const char *refused(const struct conn *c, unsigned t)
{
	static char why[96];
	bool ok;
	if (c->worker_id == -1)
		ok = t == WIRE_HELLO;
	else if (c->role == WIRE_ROLE_PROBE)
		ok = t == WIRE_PULL || t == WIRE_STATS_REQ || t == WIRE_BYE;
	else if (c->worker_id == 0)
		ok = t == WIRE_INIT || t == WIRE_PULL || t == WIRE_PUSH || t == WIRE_STATE_REQ ||
		     t == WIRE_STATS_REQ || t == WIRE_SHUTDOWN;
	else
		ok = t == WIRE_PULL || t == WIRE_PUSH || t == WIRE_STATS_REQ || t == WIRE_BYE;
	if (ok)
		return NULL;
	if (c->worker_id == -1)
		snprintf(why, sizeof(why), "%s before HELLO", wire_type_name(t));
	else if (t == WIRE_HELLO)
		snprintf(why, sizeof(why), "second HELLO");
	else
		snprintf(why, sizeof(why), "unexpected %s from %s", wire_type_name(t),
			 c->role == WIRE_ROLE_PROBE ? "a probe" : c->worker_id == 0 ? "the chief" : "a worker");
	return why;
}

/* Drops the on-the-fly update: the PUSH is applied the ordinary way or
 * refused. What next_p/next_v hold is no longer a clean preparation. */
static void spec_abandon(struct ps *ps)
{
	if (ps->spec_conn)
		ps->next_ready = 0;
	ps->spec_conn = NULL;
}

/* After an update, what next_p/next_v hold was prepared from older
 * parameters: start again (a PUSH being applied on the fly that the update
 * overtook is dropped, and applied the ordinary way). */
static void next_follow_step(struct ps *ps)
{
	if (ps->next_step == ps->step)
		return;
	spec_abandon(ps);
	ps->next_step = ps->step;
	ps->next_ready = 0;
}

/* Prepares up to max more elements of the next update (see struct ps);
 * true while some remain. */
static bool prepare_next(struct ps *ps, size_t max)
{
	if (!ps->initialized || ps->shutting_down || ps->failed)
		return false;
	next_follow_step(ps);
	if (ps->next_ready >= ps->count)
		return false;
	if (!ps->next_p)
		ps->next_p = pbuf_get(ps);
	size_t i = ps->next_ready, n = ps->count - i < max ? ps->count - i : max;
	sgd_prepare(ps->next_p->p + i, ps->next_v + i, ps->cur->p + i, ps->velocity + i, n,
		    ps->momentum);
	ps->next_ready += n;
	return ps->next_ready < ps->count;
}

/* Checks the floats of a PUSH or INIT payload for NaN and infinities as
 * they arrive, while they are still in cache, so that the check costs no
 * extra pass over the gradient when the message is complete.
 *
 * It also applies one PUSH at a time on the fly into next_p and next_v
 * (see struct ps): in async mode any PUSH, in sync mode the one that
 * completes the round (with the others' sum and the round's 1/n), so the
 * update overlaps the transfer instead of following it. The update commits
 * only if the whole gradient was finite and no other update was applied in
 * between; otherwise it is dropped and the PUSH is applied the ordinary way
 * (or refused). */
static void scan_floats(struct ps *ps, struct conn *c)
{
	if (c->h.type != WIRE_PUSH && c->h.type != WIRE_INIT)
		return;
	size_t from = c->scanned > WIRE_PUSH_FIXED ? c->scanned : WIRE_PUSH_FIXED;
	size_t to = c->got < WIRE_PUSH_FIXED ? WIRE_PUSH_FIXED
		    : WIRE_PUSH_FIXED + (c->got - WIRE_PUSH_FIXED) / 4 * 4;
	if (to <= from)
		return;
	const float *g = wire_floats(c->buf + from);
	size_t n = (to - from) / 4, i0 = (from - WIRE_PUSH_FIXED) / 4;
	if (!c->nonfinite)
		c->nonfinite = !all_finite(g, n);
	c->scanned = to;
	bool sync = ps->cfg->mode == WIRE_MODE_SYNC;
	if (c->h.type != WIRE_PUSH || !ps->initialized || ps->shutting_down || c->worker_id < 0)
		return;
	if (!ps->spec_conn && i0 == 0 &&
	    (!sync || (!ps->slots[c->worker_id].pushed && others_pushed(ps, c->worker_id)))) {
		next_follow_step(ps);
		ps->spec_conn = c;
		ps->spec_pushed = ps->pushed;
		ps->spec_scale = sync ? 1.0f / (float)(ps->pushed + 1) : 1.0f;
		if (!ps->next_p)
			ps->next_p = pbuf_get(ps);
	}
	if (ps->spec_conn != c)
		return;
	if (c->nonfinite || ps->next_step != ps->step) {
		spec_abandon(ps);
		return;
	}
	/* what was prepared is finished in place, the rest computed whole */
	size_t k = i0 < ps->next_ready ? ps->next_ready - i0 : 0;
	k = k < n ? k : n;
	const float *sum = sync && ps->spec_pushed > 0 ? ps->sum + i0 : NULL;
	sgd_finish(ps->next_p->p + i0, ps->next_v + i0, sum, g, k, ps->lr, ps->spec_scale);
	sgd_to(ps->next_p->p + i0 + k, ps->next_v + i0 + k, ps->cur->p + i0 + k,
	       ps->velocity + i0 + k, sum ? sum + k : NULL, g + k, n - k, ps->lr, ps->momentum,
	       ps->spec_scale);
	/* [0, i0 + n) is done: preparing goes on ahead of the arriving floats */
	if (ps->next_ready < i0 + n)
		ps->next_ready = i0 + n;
}

/* Commits the on-the-fly update of c's PUSH when it is complete and valid. */
static bool spec_commit(struct ps *ps, struct conn *c)
{
	if (ps->spec_conn != c)
		return false;
	if (c->nonfinite || ps->next_step != ps->step || ps->pushed != ps->spec_pushed) {
		spec_abandon(ps);
		return false;
	}
	struct pbuf *old = ps->cur;
	ps->cur = ps->next_p;
	ps->next_p = NULL;
	if (old->refs == 0) {
		old->next = ps->free_bufs;
		ps->free_bufs = old;
	}
	float *t = ps->velocity;
	ps->velocity = ps->next_v;
	ps->next_v = t;
	ps->next_ready = 0;
	ps->spec_conn = NULL;
	return true;
}

/* Reads what is available; dispatches complete messages. */
/* The tag of the frame just received (header and payload in c). */
static bool tag_ok(struct conn *c)
{
	unsigned char want[WIRE_FRAME_TAG];
	wire_mac_end(&c->rx, want);
	return wire_tag_equal(want, c->tag_in);
}

/* Reads the handshake's raw bytes: the client's nonce (answered with ours
 * and our proof), then its proof. Returns 1 to read on, 0 to wait, -1
 * when the connection was dropped. */
static int auth_read(struct ps *ps, struct conn *c)
{
	ssize_t r = recv(c->fd, c->araw + c->araw_got, sizeof(c->araw) - c->araw_got, MSG_DONTWAIT);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0
		       : (conn_drop(ps, c, strerror(errno)), -1);
	if (r == 0) {
		log_warn(MOD, "ps:%zu: refusing connection from %s: it closed during authentication",
			 ps->cfg->index, c->peer);
		conn_drop(ps, c, NULL);
		return -1;
	}
	ps->st.bytes_in += (uint64_t)r;
	if (!c->frame_start)
		c->frame_start = now_s();
	c->araw_got += (size_t)r;
	if (c->araw_got < sizeof(c->araw))
		return 1;
	c->araw_got = 0;
	c->frame_start = 0;
	if (c->auth_state == 0) {
		struct diag d = DIAG_INIT;
		memcpy(c->nc, c->araw, sizeof(c->nc));
		if (wire_auth_nonce(c->ns, &d) < 0) {
			conn_drop(ps, c, diag_first_message(&d));
			diag_release(&d);
			return -1;
		}
		memcpy(c->small, c->ns, WIRE_AUTH_NONCE);
		wire_auth_proof(ps->cfg->secret, "imc-train server", c->nc, c->ns,
				c->small + WIRE_AUTH_NONCE);
		c->iov[0] = (struct iovec){ c->small, WIRE_AUTH_NONCE + WIRE_AUTH_TAG };
		c->iov_at = 0;
		c->iov_n = 1;
		c->auth_state = 1;
		return flush_out(ps, c) < 0 ? -1 : 1;
	}
	unsigned char want[WIRE_AUTH_TAG];
	wire_auth_proof(ps->cfg->secret, "imc-train client", c->ns, c->nc, want);
	if (!wire_auth_equal(want, c->araw)) {
		log_warn(MOD, "ps:%zu: refusing connection from %s: it does not hold the job's secret",
			 ps->cfg->index, c->peer);
		conn_drop(ps, c, NULL);
		return -1;
	}
	wire_auth_keys(ps->cfg->secret, c->nc, c->ns, false, &c->auth);
	c->auth_state = 2;
	return 1;
}

static void conn_read(struct ps *ps, struct conn *c)
{
	for (int rounds = 0; rounds < 64 && !c->dead; rounds++) {
		if (c->waiting != WAIT_NONE || out_pending(c)) {
			unsigned char b;
			ssize_t r = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
			if (r == 0)
				conn_eof(ps, c);
			else if (r > 0)
				protocol_violation(ps, c, "request sent before the previous reply");
			else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				conn_drop(ps, c, strerror(errno));
			return;
		}
		if (ps->cfg->secret && ps->cfg->secret->key && c->auth_state < 2) {
			if (auth_read(ps, c) <= 0)
				return;
			continue;
		}
		void *dst;
		size_t want;
		if (c->hdr_got == WIRE_HDR_SIZE && c->got == c->h.length && c->auth.on) {
			dst = c->tag_in + c->tag_got;
			want = WIRE_FRAME_TAG - c->tag_got;
		} else if (c->hdr_got < WIRE_HDR_SIZE) {
			dst = c->hdr + c->hdr_got;
			want = WIRE_HDR_SIZE - c->hdr_got;
		} else {
			dst = c->buf + c->got;
			want = c->h.length - c->got;
		}
		ssize_t r = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				char why[120];
				snprintf(why, sizeof(why), "receive failed: %s", strerror(errno));
				conn_drop(ps, c, why);
			}
			return;
		}
		if (r == 0) {
			conn_eof(ps, c);
			return;
		}
		ps->st.bytes_in += (uint64_t)r;
		if (!c->frame_start)
			c->frame_start = now_s();
		if (c->hdr_got < WIRE_HDR_SIZE) {
			c->hdr_got += (size_t)r;
			if (c->hdr_got < WIRE_HDR_SIZE)
				continue;
			struct diag d = DIAG_INIT;
			if (wire_hdr_decode(c->hdr, &c->h, &d) < 0 ||
			    wire_len_check(&c->h, ps->count, &d) < 0) {
				char why[300];
				snprintf(why, sizeof(why), "%s", diag_first_message(&d));
				diag_release(&d);
				protocol_violation(ps, c, why);
				return;
			}
			const char *bad = refused(c, c->h.type);
			if (bad) {
				protocol_violation(ps, c, bad);
				return;
			}
			if (c->h.length > c->buf_cap) {
				free(c->buf);
				c->buf = xmalloc(c->h.length);
				c->buf_cap = c->h.length;
			}
			c->got = 0;
			c->scanned = 0;
			c->nonfinite = false;
			c->tag_got = 0;
			if (c->auth.on) {
				/* the tag covers the header as received, then the payload */
				wire_mac_begin(&c->rx, c->auth.k_in, c->auth.seq_in++);
				wire_mac_add(&c->rx, c->hdr, WIRE_HDR_SIZE);
				c->tagged = 0;
			}
		} else if (c->got == c->h.length && c->auth.on) {
			c->tag_got += (size_t)r;
		} else {
			c->got += (size_t)r;
			scan_floats(ps, c);
			if (c->auth.on) {
				wire_mac_add(&c->rx, c->buf + c->tagged, c->got - c->tagged);
				c->tagged = c->got;
			}
		}
		if (c->hdr_got == WIRE_HDR_SIZE && c->got == c->h.length && c->auth.on) {
			if (c->tag_got < WIRE_FRAME_TAG)
				continue;
			if (!tag_ok(c)) {
				if (ps->spec_conn == c)
					spec_abandon(ps);
				conn_drop(ps, c, "a frame fails its authentication tag");
				return;
			}
		}
		if (c->hdr_got == WIRE_HDR_SIZE && c->got == c->h.length) {
			c->hdr_got = 0;
			c->got = 0;
			c->scanned = 0;
			c->frame_start = 0;
			dispatch(ps, c);
			c->nonfinite = false;
		}
	}
}

static void conn_accept(struct ps *ps)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		int fd = accept4(ps->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn(MOD, "ps:%zu: accept: %s", ps->cfg->index, strerror(errno));
			return;
		}
		char host[64] = "?", port[16] = "?";
		(void)getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), port, sizeof(port),
				  NI_NUMERICHOST | NI_NUMERICSERV);
		size_t live = 0;
		for (size_t i = 0; i < ps->nconns; i++)
			live += !ps->conns[i]->dead;
		if (live >= ps->max_conns) {
			log_warn(MOD, "ps:%zu: refusing connection from %s:%s: too many connections (%zu)",
				 ps->cfg->index, host, port, live);
			close(fd);
			continue;
		}
		wire_tune_socket(fd);
		struct conn *c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		c->worker_id = -1;
		c->opened = now_s();
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, port);
		snprintf(c->who, sizeof(c->who), "unidentified");
		ps->conns = xreallocarray(ps->conns, ps->nconns + 1, sizeof(*ps->conns));
		ps->conns[ps->nconns++] = c;
		log_debug(MOD, "ps:%zu: connection from %s", ps->cfg->index, c->peer);
	}
}

static void reap(struct ps *ps)
{
	size_t j = 0;
	for (size_t i = 0; i < ps->nconns; i++) {
		struct conn *c = ps->conns[i];
		if (c->dead)
			conn_free(ps, c);
		else
			ps->conns[j++] = c;
	}
	ps->nconns = j;
}

/* The rates since the last progress line, or for the final line over the
 * whole run (the initialisation to the last update: not the evaluation
 * and shutdown that follow it). */
static void log_progress(struct ps *ps, double t, bool final)
{
	double dt = t - ps->last_log;
	double steps = (double)(ps->step - ps->log_step);
	double bin = (double)(ps->st.bytes_in - ps->log_in), bout = (double)(ps->st.bytes_out - ps->log_out);
	if (final) {
		dt = ps->update_at - ps->init_at;
		steps = (double)(ps->step - ps->init_step);
		bin = (double)ps->st.bytes_in;
		bout = (double)ps->st.bytes_out;
	}
	if (dt <= 0 || (final && !ps->update_at))
		return;
	if (ps->cfg->mode == WIRE_MODE_ASYNC)
		log_info(MOD, "ps:%zu: %sstep %llu, %.1f steps/s, in %.1f MB/s, out %.1f MB/s, staleness mean %.2f max %u",
			 ps->cfg->index, final ? "final: " : "", (unsigned long long)ps->step,
			 steps / dt, bin / dt / 1e6, bout / dt / 1e6,
			 ps->st.pushes ? (double)ps->st.staleness_sum / (double)ps->st.pushes : 0.0,
			 ps->st.staleness_max);
	else
		log_info(MOD, "ps:%zu: %sstep %llu, %.1f steps/s, in %.1f MB/s, out %.1f MB/s",
			 ps->cfg->index, final ? "final: " : "", (unsigned long long)ps->step,
			 steps / dt, bin / dt / 1e6, bout / dt / 1e6);
	ps->last_log = t;
	ps->log_step = ps->step;
	ps->log_in = ps->st.bytes_in;
	ps->log_out = ps->st.bytes_out;
}

int ps_listen(const char *addr, struct diag *d)
{
	char *host = NULL, *port = NULL;
	if (cluster_split_addr(addr, &host, &port, d) < 0)
		return -1;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	struct sockaddr_storage sa;
	socklen_t sl;
	int fd = -1;
	memset(&sa, 0, sizeof(sa));
	if (getaddrinfo(host, port, &hints, &res) == 0 && res) {
		bool loop = false;
		if (res->ai_family == AF_INET)
			loop = (ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr) >> 24) == 127;
		else if (res->ai_family == AF_INET6)
			loop = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr);
		memcpy(&sa, res->ai_addr, res->ai_addrlen);
		sl = res->ai_addrlen;
		if (!loop) { /* every address of the host's family */
			if (sa.ss_family == AF_INET6)
				((struct sockaddr_in6 *)&sa)->sin6_addr = in6addr_any;
			else
				((struct sockaddr_in *)&sa)->sin_addr.s_addr = htonl(INADDR_ANY);
		}
		freeaddrinfo(res);
	} else {
		/* our own name may not resolve locally: listen everywhere */
		struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons((uint16_t)strtol(port, NULL, 10));
		sl = sizeof(*s4);
	}
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sl) < 0 || listen(fd, 64) < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot listen on '%s': %s", addr,
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(host);
	free(port);
	return fd;
}

int ps_run(const struct ps_config *cfg, struct diag *d)
{
	struct ps ps_, *ps = &ps_;
	memset(ps, 0, sizeof(*ps));
	ps->cfg = cfg;
	ps->n_workers = cluster_n_workers(cfg->cluster);
	cluster_shard(cfg->layout->total, cfg->cluster->n_ps, cfg->index, &ps->off, &ps->count);
	ps->cur = pbuf_get(ps);
	memset(ps->cur->p, 0, sizeof(float) * ps->count);
	ps->velocity = xcalloc(ps->count ? ps->count : 1, sizeof(float));
	ps->next_v = xcalloc(ps->count ? ps->count : 1, sizeof(float));
	ps->sum = xcalloc(ps->count ? ps->count : 1, sizeof(float));
	ps->slots = xcalloc(ps->n_workers, sizeof(*ps->slots));
	ps->max_conns = ps->n_workers + MAX_EXTRA_CONNS;
	ps->lfd = cfg->listen_fd;
	if (ps->lfd < 0)
		ps->lfd = ps_listen(cfg->cluster->ps[cfg->index], d);
	int rc = -1;
	if (ps->lfd < 0)
		goto out;
	/* accept until EAGAIN needs a non-blocking listener, whoever made it */
	(void)fcntl(ps->lfd, F_SETFL, fcntl(ps->lfd, F_GETFL) | O_NONBLOCK);
	ps->started = ps->last_log = now_s();
	log_info(MOD, "ps:%zu: serving %s, shard [%llu, +%llu) of %llu parameters, %s, %zu worker%s",
		 cfg->index, cfg->cluster->ps[cfg->index], (unsigned long long)ps->off,
		 (unsigned long long)ps->count, (unsigned long long)cfg->layout->total,
		 cfg->mode == WIRE_MODE_SYNC ? "sync" : "async", ps->n_workers,
		 ps->n_workers == 1 ? "" : "s");

	struct pollfd *pfd = NULL;
	size_t pfd_cap = 0;
	for (;;) {
		double t = now_s();
		if (ps->failed)
			break;
		if (!ps->initialized && cfg->init_timeout > 0 && t - ps->started > cfg->init_timeout) {
			char msg[160];
			snprintf(msg, sizeof(msg),
				 "the chief did not initialise the parameters within %.0f s",
				 cfg->init_timeout);
			fail_job(ps, IMC_EXIT_UNAVAILABLE, msg);
			break;
		}
		if (cfg->mode == WIRE_MODE_SYNC && ps->round_start &&
		    t - ps->round_start > cfg->sync_timeout)
			round_timeout(ps);
		for (size_t i = 0; i < ps->nconns; i++) {
			struct conn *c = ps->conns[i];
			if (c->dead)
				continue;
			if (c->frame_start && t - c->frame_start > cfg->io_timeout)
				conn_drop(ps, c, "message incomplete after --io-timeout (stalled or truncated frame)");
			else if (c->worker_id == -1 && t - c->opened > cfg->io_timeout)
				conn_drop(ps, c, "no HELLO within --io-timeout");
		}
		reap(ps);
		if (ps->shutting_down) {
			bool busy = false, late = false;
			for (size_t i = 0; i < ps->nconns; i++)
				busy |= ps->conns[i]->worker_id >= 0 || out_pending(ps->conns[i]);
			for (size_t i = 0; i < ps->n_workers; i++)
				late |= ps->slots[i].state == SLOT_EXPECTED;
			if ((!busy && !late) || t - ps->shutdown_at > (late ? LATE_WORKER_WAIT : 10))
				break;
		}
		if (cfg->log_every > 0 && t - ps->last_log >= cfg->log_every && ps->initialized)
			log_progress(ps, t, false);
		if (pfd_cap < ps->nconns + 1) {
			pfd_cap = ps->nconns + 1;
			pfd = xreallocarray(pfd, pfd_cap, sizeof(*pfd));
		}
		pfd[0] = (struct pollfd){ .fd = ps->lfd, .events = POLLIN };
		for (size_t i = 0; i < ps->nconns; i++) {
			struct conn *c = ps->conns[i];
			pfd[i + 1] = (struct pollfd){ .fd = c->fd,
						      .events = (short)(POLLIN | (out_pending(c) ? POLLOUT : 0)) };
		}
		size_t npfd = ps->nconns + 1;
		/* idle: prepare the next update a slice at a time, not
		 * waiting in poll meanwhile, so that arriving data comes first */
		bool preparing = prepare_next(ps, PREPARE_SLICE);
		int r = poll(pfd, npfd, preparing ? 0 : 200);
		if (r < 0 && errno != EINTR) {
			diag_error(d, IMC_EXIT_SOFTWARE, NULL, "poll: %s", strerror(errno));
			free(pfd);
			goto out;
		}
		if (r <= 0)
			continue;
		/* conns may grow during the loop (accept comes last) */
		for (size_t i = 0; i + 1 < npfd; i++) {
			struct conn *c = ps->conns[i];
			short re = pfd[i + 1].revents;
			if (c->dead || !re)
				continue;
			if (re & POLLOUT)
				flush_out(ps, c);
			if (!c->dead && (re & (POLLIN | POLLHUP | POLLERR)))
				conn_read(ps, c);
		}
		if (pfd[0].revents & POLLIN)
			conn_accept(ps);
	}
	free(pfd);
	if (ps->failed) {
		/* let the ERROR replies go out, then fail */
		for (size_t i = 0; i < ps->nconns; i++)
			if (!ps->conns[i]->dead)
				flush_out(ps, ps->conns[i]);
		diag_error(d, ps->fail_code, NULL, "%s", ps->fail_msg);
		goto out;
	}
	log_progress(ps, now_s(), true);
	/* the pushes applied are what every worker's own count must add up to
	 * (tests check that no gradient was lost or applied twice) */
	log_info(MOD, "ps:%zu: shut down cleanly at step %llu (%llu pushes applied, %llu bytes in, %llu bytes out)",
		 cfg->index, (unsigned long long)ps->step, (unsigned long long)ps->st.pushes,
		 (unsigned long long)ps->st.bytes_in, (unsigned long long)ps->st.bytes_out);
	rc = 0;
out:
	for (size_t i = 0; i < ps->nconns; i++)
		conn_free(ps, ps->conns[i]);
	free(ps->conns);
	if (ps->lfd >= 0 && cfg->listen_fd < 0)
		close(ps->lfd);
	while (ps->free_bufs) {
		struct pbuf *b = ps->free_bufs;
		ps->free_bufs = b->next;
		free(b->p);
		free(b);
	}
	if (ps->cur) {
		free(ps->cur->p);
		free(ps->cur);
	}
	free(ps->velocity);
	free(ps->next_v);
	if (ps->next_p) {
		free(ps->next_p->p);
		free(ps->next_p);
	}
	free(ps->sum);
	free(ps->slots);
	return rc;
}
