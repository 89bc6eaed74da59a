/* ps-client.c: the PS protocol's client side (see ps-client.h): connecting with
 * retries, HELLO, and the blocking request/reply exchanges, with the float
 * payloads going straight between the sockets and the model's buffers. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#include "trainer/ps-client.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "worker"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ps_client_connect(const char *addr, double wait, struct diag *d)
{
	struct sockaddr_storage sa;
	socklen_t sl;
	if (cluster_resolve(addr, &sa, &sl, d) < 0)
		return -1;
	int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "socket: %s", strerror(errno));
		return -1;
	}
	int r = connect(fd, (struct sockaddr *)&sa, sl);
	if (r < 0 && errno == EINPROGRESS) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int pr = poll(&p, 1, (int)(wait * 1000) + 1);
		int err = 0;
		socklen_t el = sizeof(err);
		if (pr == 0) {
			err = ETIMEDOUT;
		} else if (pr < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0) {
			err = errno;
		}
		errno = err;
		r = err ? -1 : 0;
	}
	if (r < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot connect to %s: %s", addr,
			   strerror(errno));
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	wire_tune_socket(fd);
	return fd;
}

/* Receives payload bytes of the current frame into iov; with a secret,
 * they go into the frame's tag, checked once the payload is complete. */
static int recv_payload(struct ps_client *wc, size_t i, struct iovec *iov, int n,
			struct diag *d)
{
	struct worker_link *l = &wc->ps[i];
	if (n > 0 && wire_recvv(l->fd, iov, n, &wc->bytes_in, d) < 0)
		return -1;
	if (!l->auth.on)
		return 0;
	for (int k = 0; k < n; k++) {
		wire_mac_add(&l->rx, iov[k].iov_base, iov[k].iov_len);
		l->rx_left -= iov[k].iov_len < l->rx_left ? iov[k].iov_len : l->rx_left;
	}
	if (l->rx_left)
		return 0;
	unsigned char tag[WIRE_FRAME_TAG], want[WIRE_FRAME_TAG];
	if (wire_recv_full(l->fd, tag, sizeof(tag), &wc->bytes_in, d) < 0)
		return -1;
	wire_mac_end(&l->rx, want);
	if (!wire_tag_equal(tag, want)) {
		diag_error(d, IMC_EXIT_NOPERM, NULL, "a frame fails its authentication tag");
		return -1;
	}
	return 0;
}

/* Starts the tag of a frame whose header h was just received. */
static int rx_begin(struct ps_client *wc, size_t i, const struct wire_hdr *h, struct diag *d)
{
	struct worker_link *l = &wc->ps[i];
	if (!l->auth.on)
		return 0;
	unsigned char b[WIRE_HDR_SIZE];
	wire_hdr_encode(b, h->type, h->length); /* the bytes it was decoded from */
	wire_mac_begin(&l->rx, l->auth.k_in, l->auth.seq_in++);
	wire_mac_add(&l->rx, b, sizeof(b));
	l->rx_left = h->length;
	return h->length ? 0 : recv_payload(wc, i, NULL, 0, d);
}

/* Reads the ERROR payload that follows h and records it in d. */
static int read_error(struct ps_client *wc, size_t i, const struct wire_hdr *h,
		      struct diag *d)
{
	struct diag sub = DIAG_INIT;
	unsigned char *p = NULL;
	uint32_t code;
	char *text = NULL;
	/* the length is checked (at most 520 bytes) before anything is allocated */
	if (wire_len_check(h, wc->ps[i].count, &sub) < 0 ||
	    !(p = xmalloc(h->length ? h->length : 1)) ||
	    recv_payload(wc, i, &(struct iovec){ .iov_base = p, .iov_len = h->length }, 1, &sub) < 0 ||
	    wire_error_decode(p, h->length, &code, &text, &sub) < 0) {
		diag_error(d, IMC_EXIT_TEMPFAIL, NULL, "ps:%zu (%s) failed: %s", i, wc->ps[i].addr,
			   diag_first_message(&sub));
	} else {
		enum imc_exit ec = code == WIRE_ERR_PEER_LOST ? IMC_EXIT_TEMPFAIL
				   : code == WIRE_ERR_WORKER_LOST ? IMC_EXIT_FAILED
				   : IMC_EXIT_DATAERR;
		diag_error(d, ec, NULL, "ps:%zu (%s): %s", i, wc->ps[i].addr, text);
	}
	free(text);
	free(p);
	diag_release(&sub);
	return -1;
}

/* Receives one header from PS i and checks it is 'want' (or END/ERROR).
 * Returns 0, 1 for END (payload consumed), -1 with d set. */
static int expect(struct ps_client *wc, size_t i, unsigned want, struct wire_hdr *h,
		  struct diag *d)
{
	struct diag sub = DIAG_INIT;
	if (wire_recv_hdr(wc->ps[i].fd, h, &wc->bytes_in, &sub) < 0) {
		diag_error(d, sub.code == IMC_EXIT_DATAERR ? IMC_EXIT_DATAERR : IMC_EXIT_TEMPFAIL,
			   NULL, "lost parameter server ps:%zu (%s): %s", i, wc->ps[i].addr,
			   diag_first_message(&sub));
		diag_release(&sub);
		return -1;
	}
	if (h->type <= WIRE_TYPE_MAX && wire_len_check(h, wc->ps[i].count, &sub) == 0 &&
	    rx_begin(wc, i, h, &sub) < 0) {
		diag_error(d, sub.code == IMC_EXIT_NOPERM ? IMC_EXIT_NOPERM : IMC_EXIT_TEMPFAIL, NULL,
			   "ps:%zu (%s): %s", i, wc->ps[i].addr, diag_first_message(&sub));
		diag_release(&sub);
		return -1;
	}
	diag_release(&sub);
		if (h->type == WIRE_ERROR)
		return read_error(wc, i, h, d);
	if (h->type == WIRE_END) {
		unsigned char b[WIRE_END_SIZE];
		struct iovec v = { b, sizeof(b) };
		if (wire_len_check(h, wc->ps[i].count, &sub) < 0 ||
		    recv_payload(wc, i, &v, 1, &sub) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "ps:%zu: bad END: %s", i,
				   diag_first_message(&sub));
			diag_release(&sub);
			return -1;
		}
		return 1;
	}
	if (h->type != want) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "ps:%zu (%s) answered %s where %s was expected",
			   i, wc->ps[i].addr, wire_type_name(h->type), wire_type_name(want));
		return -1;
	}
	if (wire_len_check(h, wc->ps[i].count, &sub) < 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "ps:%zu (%s): %s", i, wc->ps[i].addr,
			   diag_first_message(&sub));
		diag_release(&sub);
		return -1;
	}
	return 0;
}

static int recv_or_lost(struct ps_client *wc, size_t i, struct iovec *iov, int n,
			struct diag *d)
{
	struct diag sub = DIAG_INIT;
	if (recv_payload(wc, i, iov, n, &sub) < 0) {
		diag_error(d, sub.code == IMC_EXIT_NOPERM ? IMC_EXIT_NOPERM : IMC_EXIT_TEMPFAIL, NULL, "lost parameter server ps:%zu (%s): %s", i,
			   wc->ps[i].addr, diag_first_message(&sub));
		diag_release(&sub);
		return -1;
	}
	return 0;
}

static int send_or_lost(struct ps_client *wc, size_t i, unsigned type,
			const struct iovec *iov, int n, struct diag *d)
{
	struct diag sub = DIAG_INIT;
	if (wire_sendv_auth(wc->ps[i].fd, type, iov, n, &wc->bytes_out, &wc->ps[i].auth, &sub) < 0) {
		diag_error(d, IMC_EXIT_TEMPFAIL, NULL, "lost parameter server ps:%zu (%s): %s", i,
			   wc->ps[i].addr, diag_first_message(&sub));
		diag_release(&sub);
		return -1;
	}
	return 0;
}

static int hello(struct ps_client *wc, size_t i, const struct cluster *cl,
		 const struct wire_layout *layout, const struct worker_opts *o, struct diag *d)
{
	struct wire_hello h = {
		.role = (uint16_t)o->role, .mode = (uint16_t)o->mode,
		.task_index = (uint32_t)o->task_index, .worker_id = (uint32_t)o->worker_id,
		.ps_index = (uint32_t)i, .n_ps = (uint32_t)cl->n_ps,
		.n_workers = (uint32_t)cluster_n_workers(cl),
		.shard_offset = wc->ps[i].off, .shard_count = wc->ps[i].count,
		.layout = *layout,
	};
	size_t len;
	unsigned char *p = wire_hello_encode(&h, &len);
	struct iovec v = { p, len };
	int rc = send_or_lost(wc, i, WIRE_HELLO, &v, 1, d);
	free(p);
	if (rc < 0)
		return -1;
	struct wire_hdr hd;
	rc = expect(wc, i, WIRE_WELCOME, &hd, d);
	if (rc != 0) {
		if (rc > 0)
			diag_error(d, IMC_EXIT_FAILED, NULL, "ps:%zu: training already over", i);
		return -1;
	}
	unsigned char b[WIRE_WELCOME_SIZE];
	struct wire_welcome w;
	v = (struct iovec){ b, sizeof(b) };
	if (recv_or_lost(wc, i, &v, 1, d) < 0 || wire_welcome_decode(b, sizeof(b), &w, d) < 0)
		return -1;
	if (i == 0)
		wc->step = w.step;
	wc->ps[i].step = w.step;
	wc->initialized &= w.initialized != 0;
	wc->live_workers = w.live_workers;
	log_info(MOD, "connected to ps:%zu at %s (step %llu, %s)", i, wc->ps[i].addr,
		 (unsigned long long)w.step, w.initialized ? "initialised" : "not initialised yet");
	return 0;
}

int ps_client_open(struct ps_client *wc, const struct cluster *cl,
		   const struct wire_layout *layout, const struct worker_opts *o,
		   struct diag *d)
{
	memset(wc, 0, sizeof(*wc));
	wc->n_ps = cl->n_ps;
	wc->ps = xcalloc(wc->n_ps, sizeof(*wc->ps));
	wc->initialized = true;
	for (size_t i = 0; i < wc->n_ps; i++) {
		wc->ps[i].fd = -1;
		wc->ps[i].addr = cl->ps[i];
		cluster_shard(layout->total, cl->n_ps, i, &wc->ps[i].off, &wc->ps[i].count);
	}
	double deadline = now_s() + o->connect_timeout, backoff = 0.05;
	for (size_t i = 0; i < wc->n_ps; i++) {
		bool said = false;
		for (;;) {
			struct diag sub = DIAG_INIT;
			double left = deadline - now_s();
			int fd = ps_client_connect(wc->ps[i].addr, left > 1 ? 1 : (left > 0.05 ? left : 0.05),
					     &sub);
			if (fd >= 0) {
				diag_release(&sub);
				wc->ps[i].fd = fd;
				break;
			}
			if (now_s() >= deadline) {
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
					   "parameter server ps:%zu unreachable for %.0f s: %s", i,
					   o->connect_timeout, diag_first_message(&sub));
				diag_release(&sub);
				ps_client_close(wc);
				return -1;
			}
			if (!said)
				log_info(MOD, "waiting for ps:%zu (%s); retrying for up to %.0f s", i,
					 diag_first_message(&sub), deadline - now_s());
			said = true;
			diag_release(&sub);
			struct timespec ts = { 0, (long)(backoff * 1e9) };
			nanosleep(&ts, NULL);
			backoff = backoff * 2 > 1 ? 1 : backoff * 2;
		}
		struct timeval tv = { (time_t)o->rpc_timeout, 0 };
		(void)setsockopt(wc->ps[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		(void)setsockopt(wc->ps[i].fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (o->secret && o->secret->key) {
			struct diag sub = DIAG_INIT;
			if (wire_auth_client(wc->ps[i].fd, o->secret, &wc->ps[i].auth, &sub) < 0) {
				diag_error(d, sub.code, NULL, "ps:%zu (%s): %s", i, wc->ps[i].addr,
					   diag_first_message(&sub));
				diag_release(&sub);
				ps_client_close(wc);
				return -1;
			}
			diag_release(&sub);
		}
		if (hello(wc, i, cl, layout, o, d) < 0) {
			ps_client_close(wc);
			return -1;
		}
	}
	return 0;
}

void ps_client_close(struct ps_client *wc)
{
	if (!wc || !wc->ps)
		return;
	for (size_t i = 0; i < wc->n_ps; i++) {
		if (wc->ps[i].fd >= 0)
			close(wc->ps[i].fd);
		wire_mac_release(&wc->ps[i].rx);
		wire_auth_release(&wc->ps[i].auth);
	}
	free(wc->ps);
	wc->ps = NULL;
}

static int recv_ack(struct ps_client *wc, size_t i, struct diag *d)
{
	struct wire_hdr h;
	return expect(wc, i, WIRE_ACK, &h, d);
}

int ps_client_init(struct ps_client *wc, const float *params, const float *velocity,
		   uint64_t step, float lr, float momentum, struct diag *d)
{
	for (size_t i = 0; i < wc->n_ps; i++) {
		struct worker_link *l = &wc->ps[i];
		struct wire_init m = { .step = step, .count = (uint32_t)l->count,
				       .flags = velocity ? WIRE_INIT_MOMENTUM : 0, .lr = lr,
				       .momentum = momentum };
		unsigned char fixed[WIRE_INIT_FIXED];
		wire_init_encode(&m, fixed);
		struct iovec v[3] = { { fixed, sizeof(fixed) },
				      { (void *)(uintptr_t)(params + l->off), l->count * sizeof(float) },
				      { velocity ? (void *)(uintptr_t)(velocity + l->off) : NULL,
					velocity ? l->count * sizeof(float) : 0 } };
		if (send_or_lost(wc, i, WIRE_INIT, v, velocity ? 3 : 2, d) < 0)
			return -1;
		int rc = recv_ack(wc, i, d);
		if (rc)
			return rc;
		l->step = step;
	}
	wc->step = step;
	return 0;
}

/* Receives PARAMS from PS i into params. */
static int recv_params(struct ps_client *wc, size_t i, float *params, struct diag *d)
{
	struct wire_hdr h;
	int rc = expect(wc, i, WIRE_PARAMS, &h, d);
	if (rc)
		return rc;
	struct worker_link *l = &wc->ps[i];
	unsigned char fixed[WIRE_PARAMS_FIXED];
	struct iovec v[2] = { { fixed, sizeof(fixed) },
			      { params + l->off, l->count * sizeof(float) } };
	if (recv_or_lost(wc, i, v, 2, d) < 0)
		return -1;
	struct wire_params m;
	if (wire_params_decode(fixed, h.length, &m, d) < 0)
		return -1;
	if (m.count != l->count) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "ps:%zu sent %u floats, its shard has %llu", i,
			   m.count, (unsigned long long)l->count);
		return -1;
	}
	l->step = m.step;
	if (i == 0) {
		wc->step = m.step;
		wc->live_workers = m.live_workers;
		wc->staleness = 0;
	}
	if (m.staleness > wc->staleness)
		wc->staleness = m.staleness;
	return 0;
}

/* Receives every PS's PARAMS reply: 0, 1 when one said END, or -1. */
static int recv_all_params(struct ps_client *wc, float *params, struct diag *d)
{
	int ended = 0;
	for (size_t i = 0; i < wc->n_ps; i++) {
		int rc = recv_params(wc, i, params, d);
		if (rc < 0)
			return -1;
		ended |= rc;
	}
	return ended;
}

int ps_client_pull(struct ps_client *wc, float *params, struct diag *d)
{
	for (size_t i = 0; i < wc->n_ps; i++)
		if (send_or_lost(wc, i, WIRE_PULL, NULL, 0, d) < 0)
			return -1;
	return recv_all_params(wc, params, d);
}

int ps_client_push(struct ps_client *wc, const float *grads, float *params,
		   uint64_t step, uint32_t examples, float loss, struct diag *d)
{
	uint64_t behind = wc->step > step ? wc->step - step : 0;
	for (size_t i = 0; i < wc->n_ps; i++) {
		struct worker_link *l = &wc->ps[i];
		struct wire_push m = { .step = l->step > behind ? l->step - behind : 0,
				       .count = (uint32_t)l->count, .examples = examples,
				       .loss = loss };
		unsigned char fixed[WIRE_PUSH_FIXED];
		wire_push_encode(&m, fixed);
		struct iovec v[2] = { { fixed, sizeof(fixed) },
				      { (void *)(uintptr_t)(grads + l->off), l->count * sizeof(float) } };
		if (send_or_lost(wc, i, WIRE_PUSH, v, 2, d) < 0)
			return -1;
	}
	return recv_all_params(wc, params, d);
}

int ps_client_state(struct ps_client *wc, float *params, float *velocity,
		    uint64_t *step, struct diag *d)
{
	for (size_t i = 0; i < wc->n_ps; i++)
		if (send_or_lost(wc, i, WIRE_STATE_REQ, NULL, 0, d) < 0)
			return -1;
	for (size_t i = 0; i < wc->n_ps; i++) {
		struct wire_hdr h;
		int rc = expect(wc, i, WIRE_STATE, &h, d);
		if (rc)
			return rc;
		struct worker_link *l = &wc->ps[i];
		unsigned char fixed[WIRE_STATE_FIXED];
		struct iovec v[3] = { { fixed, sizeof(fixed) },
				      { params + l->off, l->count * sizeof(float) },
				      { velocity + l->off, l->count * sizeof(float) } };
		if (recv_or_lost(wc, i, v, 3, d) < 0)
			return -1;
		if (wire_get32(fixed + 8) != l->count) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "ps:%zu: STATE of the wrong size", i);
			return -1;
		}
		if (i == 0)
			*step = wire_get64(fixed);
	}
	return 0;
}

int ps_client_stats(struct ps_client *wc, struct wire_stats *st, struct diag *d)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < wc->n_ps; i++)
		if (send_or_lost(wc, i, WIRE_STATS_REQ, NULL, 0, d) < 0)
			return -1;
	for (size_t i = 0; i < wc->n_ps; i++) {
		struct wire_hdr h;
		int rc = expect(wc, i, WIRE_STATS, &h, d);
		if (rc)
			return rc;
		unsigned char b[WIRE_STATS_SIZE];
		struct iovec v = { b, sizeof(b) };
		struct wire_stats s;
		if (recv_or_lost(wc, i, &v, 1, d) < 0 || wire_stats_decode(b, sizeof(b), &s, d) < 0)
			return -1;
		if (i == 0) {
			st->step = s.step;
			st->seconds = s.seconds;
			st->pushes = s.pushes;
			st->examples = s.examples;
			st->staleness_sum = s.staleness_sum;
			st->workers_lost = s.workers_lost;
			st->rounds_short = s.rounds_short;
		}
		st->bytes_in += s.bytes_in;
		st->bytes_out += s.bytes_out;
		if (s.staleness_max > st->staleness_max)
			st->staleness_max = s.staleness_max;
	}
	return 0;
}

int ps_client_bye(struct ps_client *wc, struct diag *d)
{
	for (size_t i = 0; i < wc->n_ps; i++)
		if (send_or_lost(wc, i, WIRE_BYE, NULL, 0, d) < 0)
			return -1;
	return 0;
}

int ps_client_shutdown(struct ps_client *wc, struct diag *d)
{
	for (size_t i = 0; i < wc->n_ps; i++)
		if (send_or_lost(wc, i, WIRE_SHUTDOWN, NULL, 0, d) < 0)
			return -1;
	for (size_t i = 0; i < wc->n_ps; i++) {
		int rc = recv_ack(wc, i, d);
		if (rc < 0)
			return -1;
	}
	return 0;
}
