/* tensorboard.c: the TensorBoard event-file primitives: CRC-32C (Castagnoli),
 * TFRecord framing with masked CRCs, and a minimal protobuf encoder for
 * the Event message (wall_time = 1, step = 2, file_version = 3,
 * summary = 5 -> Summary.value = 1 -> Value{tag = 1, simple_value = 2}). */
#include "config.h"

#include <string.h>

#include "trainer/metrics.h"
#include "util/banned.h"

uint32_t tb_crc32c(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	static int ready;
	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	const uint8_t *p = buf;
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t tb_masked_crc32c(const void *buf, size_t len)
{
	uint32_t crc = tb_crc32c(0, buf, len);
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static void le32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

int tb_write_record(FILE *fp, const void *data, size_t len)
{
	uint8_t head[12], foot[4];
	uint64_t l = len;
	for (int i = 0; i < 8; i++)
		head[i] = (uint8_t)(l >> (8 * i));
	le32(head + 8, tb_masked_crc32c(head, 8));
	le32(foot, tb_masked_crc32c(data, len));
	if (fwrite(head, 1, 12, fp) != 12 || fwrite(data, 1, len, fp) != len ||
	    fwrite(foot, 1, 4, fp) != 4)
		return -1;
	return 0;
}

struct pb {
	uint8_t *buf;
	size_t cap, len;
	int overflow;
};

static void pb_byte(struct pb *b, uint8_t v)
{
	if (b->len < b->cap)
		b->buf[b->len++] = v;
	else
		b->overflow = 1;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	while (v >= 0x80) {
		pb_byte(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	pb_byte(b, (uint8_t)v);
}

static void pb_bytes(struct pb *b, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pb_byte(b, ((const uint8_t *)p)[i]);
}

static void pb_fixed(struct pb *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		pb_byte(b, (uint8_t)(v >> (8 * i)));
}

size_t tb_encode_event(uint8_t *buf, size_t cap, double wall_time, int64_t step,
		       const char *tag, float value)
{
	struct pb b = { buf, cap, 0, 0 };
	uint64_t u;
	memcpy(&u, &wall_time, 8);
	pb_byte(&b, (1 << 3) | 1); /* wall_time: double */
	pb_fixed(&b, u, 8);
	if (step != 0) {
		pb_byte(&b, (2 << 3) | 0); /* step: int64 */
		pb_varint(&b, (uint64_t)step);
	}
	if (!tag) {
		static const char v[] = "brain.Event:2";
		pb_byte(&b, (3 << 3) | 2);
		pb_varint(&b, sizeof(v) - 1);
		pb_bytes(&b, v, sizeof(v) - 1);
	} else {
		size_t tl = strlen(tag);
		if (tl > 1000)
			return 0;
		/* Value = tag (1, bytes) + simple_value (2, float) */
		size_t vlen = 1 + (tl >= 128 ? 2 : 1) + tl + 1 + 4;
		size_t slen = 1 + (vlen >= 128 ? 2 : 1) + vlen;
		uint32_t f;
		memcpy(&f, &value, 4);
		pb_byte(&b, (5 << 3) | 2);
		pb_varint(&b, slen);
		pb_byte(&b, (1 << 3) | 2);
		pb_varint(&b, vlen);
		pb_byte(&b, (1 << 3) | 2);
		pb_varint(&b, tl);
		pb_bytes(&b, tag, tl);
		pb_byte(&b, (2 << 3) | 5);
		pb_fixed(&b, f, 4);
	}
	return b.overflow ? 0 : b.len;
}
