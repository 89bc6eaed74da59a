/* fuzz-wire.c: libFuzzer harness for imc-train's wire protocol decoders
 * (docs/imc-train-protocol.md), what a PS and its clients run on every byte
 * a peer sends. The first input byte picks the message (header, HELLO,
 * WELCOME, PUSH, PARAMS, INIT, STATS, ERROR); the rest is its payload. Any
 * payload must be decoded or refused with an error, never crash or read out
 * of bounds; a decoded HELLO must encode back to the very same bytes (every
 * byte of it means something) and its layout is compared with the mlp's as
 * the PS does; the fixed-size messages must survive decode, encode, decode
 * unchanged. Built as a libFuzzer program with --enable-fuzzing (CC=clang),
 * and as a plain replay program (replay.c) without it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/wire.h"
#include "util/diag.h"

#include "fuzz-diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The mlp's layout (torch_reference.py's), which a HELLO is checked against. */
static const struct wire_layout *mlp_layout(void)
{
	static struct wire_layout l;
	static int done;
	if (!done) {
		struct diag d = DIAG_INIT;
		static const struct { const char *name; int rank; uint32_t dims[2]; } t[] = {
			{ "fc1.weight", 2, { 256, 784 } }, { "fc1.bias", 1, { 256 } },
			{ "fc2.weight", 2, { 10, 256 } }, { "fc2.bias", 1, { 10 } },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			if (wire_layout_add(&l, t[i].name, t[i].rank, t[i].dims, &d) < 0)
				abort();
		diag_release(&d);
		done = 1;
	}
	return &l;
}

static void hello(const uint8_t *p, size_t n, struct diag *d)
{
	struct wire_hello h;
	if (wire_hello_decode(p, n, &h, d) < 0)
		return;
	size_t len;
	unsigned char *again = wire_hello_encode(&h, &len);
	if (len != n || memcmp(again, p, n) != 0) {
		fprintf(stderr, "HELLO does not encode back to its %zu bytes (got %zu)\n", n, len);
		abort();
	}
	free(again);
	wire_layout_compare(mlp_layout(), &h.layout, d);
	wire_hello_release(&h);
}

/* decode(encode(m)) of a fixed-size part (plus the floats that follow it,
 * as received) must give m again: checked on the encoded bytes. */
#define ROUND_TRIP(type, fixed, enc, dec, p, n, d)                                    \
	do {                                                                           \
		struct type m1, m2;                                                    \
		if (dec(p, n, &m1, d) < 0)                                             \
			break;                                                         \
		unsigned char *b1 = malloc(n ? n : 1), b2[fixed];                      \
		enc(&m1, b1);                                                          \
		memcpy(b1 + (fixed), (p) + (fixed), (n) - (fixed));                    \
		if (dec(b1, n, &m2, d) < 0)                                            \
			abort();                                                       \
		enc(&m2, b2);                                                          \
		if (memcmp(b1, b2, fixed) != 0)                                        \
			abort();                                                       \
		free(b1);                                                              \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	struct diag d = DIAG_INIT;
	switch (data[0] % 8) {
	case 0:
		if (n >= WIRE_HDR_SIZE + 8) {
			struct wire_hdr h;
			if (wire_hdr_decode(p, &h, &d) == 0) {
				uint64_t shard;
				memcpy(&shard, p + WIRE_HDR_SIZE, 8);
				wire_len_check(&h, shard % ((uint64_t)WIRE_MAX_SHARD + 2), &d);
			}
		}
		break;
	case 1: hello(p, n, &d); break;
	case 2:
		ROUND_TRIP(wire_welcome, WIRE_WELCOME_SIZE, wire_welcome_encode, wire_welcome_decode,
			   p, n, &d);
		break;
	case 3: ROUND_TRIP(wire_push, WIRE_PUSH_FIXED, wire_push_encode, wire_push_decode, p, n, &d); break;
	case 4:
		ROUND_TRIP(wire_params, WIRE_PARAMS_FIXED, wire_params_encode, wire_params_decode, p,
			   n, &d);
		break;
	case 5: ROUND_TRIP(wire_init, WIRE_INIT_FIXED, wire_init_encode, wire_init_decode, p, n, &d); break;
	case 6:
		ROUND_TRIP(wire_stats, WIRE_STATS_SIZE, wire_stats_encode, wire_stats_decode, p, n,
			   &d);
		break;
	default: {
		uint32_t code;
		char *text = NULL;
		if (wire_error_decode(p, n, &code, &text, &d) == 0) {
			for (const char *c = text; *c; c++)
				if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
					abort(); /* logged as is: must be printable */
			free(text);
		}
		break;
	}
	}
	/* the messages a PS would log for this input */
	fuzz_print_diag(&d);
	diag_release(&d);
	return 0;
}
