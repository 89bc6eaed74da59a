/* test-wire.c: unit tests of the PS wire protocol's encoding and validation
 * (src/trainer/wire.c): headers, per-type length bounds, HELLO layouts, and
 * that every truncation or corruption of a message is an error, never a
 * crash or a silent acceptance. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trainer/wire.h"
#include "util/diag.h"

static void mlp_layout(struct wire_layout *l)
{
	struct diag d = DIAG_INIT;
	uint32_t w1[2] = { 256, 784 }, b1[1] = { 256 }, w2[2] = { 10, 256 }, b2[1] = { 10 };
	memset(l, 0, sizeof(*l));
	assert_int_equal(wire_layout_add(l, "fc1.weight", 2, w1, &d), 0);
	assert_int_equal(wire_layout_add(l, "fc1.bias", 1, b1, &d), 0);
	assert_int_equal(wire_layout_add(l, "fc2.weight", 2, w2, &d), 0);
	assert_int_equal(wire_layout_add(l, "fc2.bias", 1, b2, &d), 0);
	assert_int_equal(l->total, 203530);
	assert_int_equal(l->t[2].offset, 256 * 784 + 256);
	diag_release(&d);
}

static void test_header(void **state)
{
	(void)state;
	unsigned char b[WIRE_HDR_SIZE];
	struct wire_hdr h;
	struct diag d = DIAG_INIT;
	wire_hdr_encode(b, WIRE_PUSH, 1234);
	assert_memory_equal(b, "IMCT", 4);
	assert_int_equal(wire_hdr_decode(b, &h, &d), 0);
	assert_int_equal(h.type, WIRE_PUSH);
	assert_int_equal(h.length, 1234);
	assert_int_equal(h.version, WIRE_VERSION);

	b[0] = 'X';
	assert_int_equal(wire_hdr_decode(b, &h, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "bad magic"));
	diag_release(&d);

	wire_hdr_encode(b, WIRE_PUSH, 0);
	wire_put16(b + 4, 2);
	assert_int_equal(wire_hdr_decode(b, &h, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "unsupported protocol version 2"));
	diag_release(&d);

	wire_hdr_encode(b, 0, 0);
	assert_int_equal(wire_hdr_decode(b, &h, &d), -1);
	diag_release(&d);
	wire_hdr_encode(b, WIRE_TYPE_MAX + 1, 0);
	assert_int_equal(wire_hdr_decode(b, &h, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "unknown message type"));
	diag_release(&d);

	wire_hdr_encode(b, WIRE_PULL, 0);
	b[15] = 1;
	assert_int_equal(wire_hdr_decode(b, &h, &d), -1);
	diag_release(&d);
}

static void test_lengths(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct wire_hdr h = { WIRE_VERSION, WIRE_PUSH, WIRE_PUSH_FIXED + 4 * 100 };
	assert_int_equal(wire_len_check(&h, 100, &d), 0);
	h.length += 4;
	assert_int_equal(wire_len_check(&h, 100, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "PUSH of 428 bytes, expected exactly 424"));
	diag_release(&d);
	h.length = UINT32_MAX;
	assert_int_equal(wire_len_check(&h, 100, &d), -1);
	diag_release(&d);

	h.type = WIRE_INIT;
	h.length = WIRE_INIT_FIXED + 400;
	assert_int_equal(wire_len_check(&h, 100, &d), 0);
	h.length = WIRE_INIT_FIXED + 800;
	assert_int_equal(wire_len_check(&h, 100, &d), 0);
	h.length = WIRE_INIT_FIXED + 600;
	assert_int_equal(wire_len_check(&h, 100, &d), -1);
	diag_release(&d);

	h.type = WIRE_HELLO;
	h.length = WIRE_MAX_HELLO + 1;
	assert_int_equal(wire_len_check(&h, 100, &d), -1);
	diag_release(&d);
	h.length = 3;
	assert_int_equal(wire_len_check(&h, 100, &d), -1);
	diag_release(&d);

	unsigned empty[] = { WIRE_PULL, WIRE_STATE_REQ, WIRE_STATS_REQ, WIRE_BYE, WIRE_SHUTDOWN,
			     WIRE_ACK };
	for (size_t i = 0; i < sizeof(empty) / sizeof(*empty); i++) {
		h.type = (uint16_t)empty[i];
		h.length = 0;
		assert_int_equal(wire_len_check(&h, 100, &d), 0);
		h.length = 1;
		assert_int_equal(wire_len_check(&h, 100, &d), -1);
		diag_release(&d);
	}
}

static void test_hello_roundtrip_and_truncation(void **state)
{
	(void)state;
	struct wire_layout l;
	struct diag d = DIAG_INIT;
	mlp_layout(&l);
	struct wire_hello h = { .role = WIRE_ROLE_WORKER, .mode = WIRE_MODE_ASYNC, .task_index = 3,
				.worker_id = 4, .ps_index = 1, .n_ps = 2, .n_workers = 5,
				.shard_offset = 101765, .shard_count = 101765, .layout = l };
	size_t len;
	unsigned char *p = wire_hello_encode(&h, &len);
	struct wire_hello g;
	assert_int_equal(wire_hello_decode(p, len, &g, &d), 0);
	assert_int_equal(g.role, WIRE_ROLE_WORKER);
	assert_int_equal(g.mode, WIRE_MODE_ASYNC);
	assert_int_equal(g.task_index, 3);
	assert_int_equal(g.worker_id, 4);
	assert_int_equal(g.shard_offset, 101765);
	assert_int_equal(wire_layout_compare(&l, &g.layout, &d), 0);
	wire_hello_release(&g);

	/* every strict prefix is rejected, and so is any trailing byte */
	for (size_t n = 0; n < len; n++) {
		assert_int_equal(wire_hello_decode(p, n, &g, &d), -1);
		diag_release(&d);
	}
	unsigned char *q = malloc(len + 1);
	memcpy(q, p, len);
	q[len] = 0;
	assert_int_equal(wire_hello_decode(q, len + 1, &g, &d), -1);
	diag_release(&d);

	/* corrupting any single byte never crashes; it is either rejected or
	 * decodes into a layout that still passes the decoder's own checks */
	for (size_t i = 0; i < len; i++) {
		for (int v = 0; v < 256; v += 51) {
			memcpy(q, p, len);
			q[i] = (unsigned char)v;
			if (wire_hello_decode(q, len, &g, &d) == 0) {
				assert_true(g.layout.n >= 1 && g.layout.n <= WIRE_MAX_TENSORS);
				wire_hello_release(&g);
			}
			diag_release(&d);
		}
	}
	free(q);
	free(p);
	wire_layout_release(&l);
}

static void test_layout_compare(void **state)
{
	(void)state;
	struct wire_layout a, b;
	struct diag d = DIAG_INIT;
	mlp_layout(&a);
	mlp_layout(&b);
	b.t[2].dims[1] = 255;
	assert_int_equal(wire_layout_compare(&a, &b, &d), -1);
	assert_string_equal(diag_first_message(&d),
			    "tensor 2 is 'fc2.weight' [10x256] here, peer sent 'fc2.weight' [10x255]");
	diag_release(&d);
	b.n = 3;
	assert_int_equal(wire_layout_compare(&a, &b, &d), -1);
	assert_string_equal(diag_first_message(&d), "model has 4 tensors, peer sent 3");
	diag_release(&d);
	uint32_t zero[1] = { 0 }, big[2] = { 1u << 20, 1u << 20 };
	assert_int_equal(wire_layout_add(&b, "z", 1, zero, &d), -1);
	diag_release(&d);
	assert_int_equal(wire_layout_add(&b, "big", 2, big, &d), -1);
	diag_release(&d);
	assert_int_equal(wire_layout_add(&b, "", 1, zero, &d), -1);
	diag_release(&d);
	assert_int_equal(wire_layout_add(&b, "r5", 5, big, &d), -1);
	diag_release(&d);
	wire_layout_release(&a);
	wire_layout_release(&b);
}

static void test_fixed_messages(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	unsigned char b[128];
	struct wire_push m = { .step = 7, .count = 2, .examples = 64, .loss = 1.5f }, m2;
	wire_push_encode(&m, b);
	assert_int_equal(wire_push_decode(b, WIRE_PUSH_FIXED + 8, &m2, &d), 0);
	assert_int_equal(m2.step, 7);
	assert_true(m2.loss == 1.5f);
	assert_int_equal(wire_push_decode(b, WIRE_PUSH_FIXED + 4, &m2, &d), -1);
	diag_release(&d);
	m.examples = 0;
	wire_push_encode(&m, b);
	assert_int_equal(wire_push_decode(b, WIRE_PUSH_FIXED + 8, &m2, &d), -1);
	diag_release(&d);

	struct wire_init in = { .step = 5, .count = 3, .flags = WIRE_INIT_MOMENTUM, .lr = 0.02f,
				.momentum = 0.9f }, in2;
	wire_init_encode(&in, b);
	assert_int_equal(wire_init_decode(b, WIRE_INIT_FIXED + 24, &in2, &d), 0);
	assert_int_equal(in2.flags, WIRE_INIT_MOMENTUM);
	assert_int_equal(wire_init_decode(b, WIRE_INIT_FIXED + 12, &in2, &d), -1);
	diag_release(&d);
	in.lr = NAN;
	wire_init_encode(&in, b);
	assert_int_equal(wire_init_decode(b, WIRE_INIT_FIXED + 24, &in2, &d), -1);
	diag_release(&d);
	in.lr = 0.1f;
	in.momentum = 1.0f;
	wire_init_encode(&in, b);
	assert_int_equal(wire_init_decode(b, WIRE_INIT_FIXED + 24, &in2, &d), -1);
	diag_release(&d);
	in.momentum = 0.5f;
	in.flags = 6;
	wire_init_encode(&in, b);
	assert_int_equal(wire_init_decode(b, WIRE_INIT_FIXED + 24, &in2, &d), -1);
	diag_release(&d);

	struct wire_stats st = { .step = 9, .pushes = 10, .staleness_max = 3, .seconds = 2.5 }, st2;
	wire_stats_encode(&st, b);
	assert_int_equal(wire_stats_decode(b, WIRE_STATS_SIZE, &st2, &d), 0);
	assert_int_equal(st2.staleness_max, 3);
	assert_true(st2.seconds == 2.5);

	size_t len;
	char *text;
	uint32_t code;
	unsigned char *e = wire_error_encode(WIRE_ERR_MODEL, "bad\nthing", &len);
	assert_int_equal(wire_error_decode(e, len, &code, &text, &d), 0);
	assert_int_equal(code, WIRE_ERR_MODEL);
	assert_string_equal(text, "bad?thing");
	free(text);
	assert_int_equal(wire_error_decode(e, len - 1, &code, &text, &d), -1);
	diag_release(&d);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_hello_roundtrip_and_truncation),
		cmocka_unit_test(test_layout_compare),
		cmocka_unit_test(test_fixed_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
