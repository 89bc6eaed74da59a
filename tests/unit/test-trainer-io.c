/* test-trainer-io.c: checkpoint files (round trip, every kind of damage
 * detected) and the TensorBoard event format: CRC-32C against the
 * standard check values (RFC 3720 B.4), masked CRCs, TFRecord framing and
 * the Event protobuf bytes, and the JSON-lines metrics. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trainer/checkpoint.h"
#include "trainer/metrics.h"
#include "trainer/model.h"
#include "util/diag.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/imc-test-io.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static long file_size(const char *p)
{
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	return n;
}

static void test_checkpoint_roundtrip_and_damage(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct model *m = model_new("mlp", 4, &d);
	assert_non_null(m);
	size_t np = model_num_params(m);
	model_init_params(m, 3);
	float *v = malloc(np * sizeof(float)), *p2 = malloc(np * sizeof(float));
	float *v2 = malloc(np * sizeof(float));
	for (size_t i = 0; i < np; i++)
		v[i] = (float)i * 1e-6f;
	char *path = checkpoint_path(tmpdir);
	struct checkpoint_meta meta = { 1234, 7, 0.02, 0.9 }, got;
	assert_int_equal(checkpoint_save(path, m, model_params(m), v, &meta, &d), 0);
	long expect = 120 + (4 + 10 + 4 + 8) + (4 + 8 + 4 + 4) + (4 + 10 + 4 + 8) + (4 + 8 + 4 + 4) +
		      (long)np * 8 + 4;
	assert_int_equal(file_size(path), expect);
	assert_int_equal(checkpoint_load(path, m, p2, v2, &got, &d), 0);
	assert_memory_equal(p2, model_params(m), np * sizeof(float));
	assert_memory_equal(v2, v, np * sizeof(float));
	assert_int_equal(got.step, 1234);
	assert_int_equal(got.seed, 7);
	assert_true(got.lr == 0.02 && got.momentum == 0.9);
	assert_false(diag_has_errors(&d));

	/* flip one byte anywhere: checksum */
	FILE *f = fopen(path, "r+b");
	fseek(f, 5000, SEEK_SET);
	int c = fgetc(f);
	fseek(f, 5000, SEEK_SET);
	fputc(c ^ 0x10, f);
	fclose(f);
	assert_int_equal(checkpoint_load(path, m, p2, v2, &got, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "checksum mismatch"));
	diag_release(&d);

	/* truncated */
	assert_int_equal(checkpoint_save(path, m, model_params(m), NULL, &meta, &d), 0);
	assert_int_equal(truncate(path, file_size(path) - 9), 0);
	assert_int_equal(checkpoint_load(path, m, p2, v2, &got, &d), -1);
	diag_release(&d);

	/* not a checkpoint; tiny file */
	f = fopen(path, "wb");
	fputs("hello", f);
	fclose(f);
	assert_int_equal(checkpoint_load(path, m, p2, v2, &got, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "not an imc-train checkpoint"));
	diag_release(&d);

	/* another model's checkpoint */
	struct model *cnn = model_new("cnn", 2, &d);
	assert_int_equal(checkpoint_save(path, m, model_params(m), v, &meta, &d), 0);
	float *big = malloc(model_num_params(cnn) * sizeof(float));
	assert_int_equal(checkpoint_load(path, cnn, big, NULL, &got, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "model 'mlp', not 'cnn'"));
	diag_release(&d);

	/* without velocity: loads zeros into it */
	assert_int_equal(checkpoint_save(path, m, model_params(m), NULL, &meta, &d), 0);
	assert_int_equal(checkpoint_load(path, m, p2, v2, &got, &d), 0);
	for (size_t i = 0; i < np; i++)
		assert_true(v2[i] == 0.0f);
	/* unwritable target */
	assert_int_equal(checkpoint_save("/nonexistent/dir/ck", m, p2, v2, &meta, &d), -1);
	assert_int_equal(d.code, IMC_EXIT_IOERR);
	diag_release(&d);
	free(big);
	model_free(cnn);
	free(path);
	free(v);
	free(v2);
	free(p2);
	model_free(m);
}

static void test_crc32c_vectors(void **state)
{
	(void)state;
	uint8_t buf[32];
	assert_int_equal(tb_crc32c(0, "123456789", 9), 0xe3069283u);
	memset(buf, 0, 32);
	assert_int_equal(tb_crc32c(0, buf, 32), 0x8a9136aau);
	memset(buf, 0xff, 32);
	assert_int_equal(tb_crc32c(0, buf, 32), 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(tb_crc32c(0, buf, 32), 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(tb_crc32c(0, buf, 32), 0x113fdb5cu);
	/* incremental == one shot */
	assert_int_equal(tb_crc32c(tb_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	/* masking: rotate right by 15 and add 0xa282ead8 */
	uint32_t c = 0xe3069283u;
	assert_int_equal(tb_masked_crc32c("123456789", 9),
			 (uint32_t)(((c >> 15) | (c << 17)) + 0xa282ead8u));
}

static void test_tfrecord_framing(void **state)
{
	(void)state;
	uint8_t ev[256];
	size_t n = tb_encode_event(ev, sizeof(ev), 1.5, 0, NULL, 0);
	/* wall_time 1.5 (field 1, fixed64), file_version "brain.Event:2" (field 3) */
	static const uint8_t want_fv[] = {
		0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
		0x1a, 13, 'b', 'r', 'a', 'i', 'n', '.', 'E', 'v', 'e', 'n', 't', ':', '2',
	};
	assert_int_equal(n, sizeof(want_fv));
	assert_memory_equal(ev, want_fv, n);

	n = tb_encode_event(ev, sizeof(ev), 2.0, 300, "loss", 0.5f);
	static const uint8_t want_sc[] = {
		0x09, 0, 0, 0, 0, 0, 0, 0, 0x40,
		0x10, 0xac, 0x02,                 /* step 300 as varint */
		0x2a, 13,                         /* summary, 13 bytes */
		0x0a, 11,                         /* value, 11 bytes */
		0x0a, 4, 'l', 'o', 's', 's',      /* tag */
		0x15, 0, 0, 0, 0x3f,              /* simple_value 0.5f */
	};
	assert_int_equal(n, sizeof(want_sc));
	assert_memory_equal(ev, want_sc, n);
	assert_int_equal(tb_encode_event(ev, 10, 2.0, 300, "loss", 0.5f), 0);

	/* framing: u64 length, masked crc(length), data, masked crc(data) */
	char path[128];
	snprintf(path, sizeof(path), "%s/rec", tmpdir);
	FILE *f = fopen(path, "wb");
	assert_int_equal(tb_write_record(f, ev, n), 0);
	fclose(f);
	uint8_t rec[256];
	f = fopen(path, "rb");
	size_t got = fread(rec, 1, sizeof(rec), f);
	fclose(f);
	assert_int_equal(got, 8 + 4 + n + 4);
	assert_int_equal(rec[0], n);
	for (int i = 1; i < 8; i++)
		assert_int_equal(rec[i], 0);
	uint32_t lc = rec[8] | rec[9] << 8 | rec[10] << 16 | (uint32_t)rec[11] << 24;
	assert_int_equal(lc, tb_masked_crc32c(rec, 8));
	uint32_t dc = rec[12 + n] | rec[13 + n] << 8 | rec[14 + n] << 16 |
		      (uint32_t)rec[15 + n] << 24;
	assert_int_equal(dc, tb_masked_crc32c(ev, n));
	assert_memory_equal(rec + 12, ev, n);
	/* Every TensorFlow event file starts with the 24-byte file_version
	 * record, framed as 18 00 00 00 00 00 00 00 a3 7f 4b 22. */
	uint8_t len24[8] = { 24, 0, 0, 0, 0, 0, 0, 0 };
	assert_int_equal(tb_masked_crc32c(len24, 8), 0x224b7fa3u);
}

static void test_metrics_files(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	char jpath[128], tdir[128];
	snprintf(jpath, sizeof(jpath), "%s/m.jsonl", tmpdir);
	snprintf(tdir, sizeof(tdir), "%s/tb", tmpdir);
	struct metrics *m = metrics_open(jpath, tdir, &d);
	assert_non_null(m);
	metrics_step(m, 10, 0.5, 1.25, 1000);
	metrics_eval(m, 20, 1.0, 0.875, 0.3);
	assert_int_equal(metrics_close(m, &d), 0);
	FILE *f = fopen(jpath, "r");
	char line[256];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "{\"event\":\"step\",\"step\":10,\"epoch\":0.5,\"loss\":1.25,"
				  "\"examples_per_sec\":1000}\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "{\"event\":\"eval\",\"step\":20,\"epoch\":1,"
				  "\"test_accuracy\":0.875,\"test_loss\":0.3}\n");
	fclose(f);
	/* the event file: 5 records (version + 2 step scalars + 2 eval scalars),
	 * each with valid framing */
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "ls %s/events.out.tfevents.* > %s/list", tdir, tmpdir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/list", tmpdir);
	f = fopen(cmd, "r");
	char ev[256];
	assert_non_null(fgets(ev, sizeof(ev), f));
	fclose(f);
	ev[strcspn(ev, "\n")] = '\0';
	f = fopen(ev, "rb");
	assert_non_null(f);
	int records = 0;
	uint8_t hdr[12], data[2048], foot[4];
	while (fread(hdr, 1, 12, f) == 12) {
		uint64_t len = 0;
		for (int i = 7; i >= 0; i--)
			len = len << 8 | hdr[i];
		assert_true(len < sizeof(data));
		uint32_t lc = hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (uint32_t)hdr[11] << 24;
		assert_int_equal(lc, tb_masked_crc32c(hdr, 8));
		assert_int_equal(fread(data, 1, len, f), len);
		assert_int_equal(fread(foot, 1, 4, f), 4);
		uint32_t dc = foot[0] | foot[1] << 8 | foot[2] << 16 | (uint32_t)foot[3] << 24;
		assert_int_equal(dc, tb_masked_crc32c(data, len));
		records++;
	}
	fclose(f);
	assert_int_equal(records, 5);
	assert_null(metrics_open("/nonexistent/dir/m.jsonl", NULL, &d));
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checkpoint_roundtrip_and_damage),
		cmocka_unit_test(test_crc32c_vectors),
		cmocka_unit_test(test_tfrecord_framing),
		cmocka_unit_test(test_metrics_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
