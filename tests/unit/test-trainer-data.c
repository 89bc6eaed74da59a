/* test-trainer-data.c: the dataset readers on small generated files, good
 * and malformed (bad magic, wrong type or rank, truncated, trailing bytes,
 * corrupt gzip, absurd dimensions, bad labels, CIFAR records cut short),
 * sharding (disjoint and covering) and batching (a fresh, reproducible
 * permutation per epoch, remainder dropped). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "trainer/data.h"
#include "util/diag.h"

static char tmpdir[64];

static char *path_in(const char *name)
{
	size_t n = strlen(tmpdir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", tmpdir, name);
	return p;
}

static void write_file(const char *name, const void *data, size_t len, int gz)
{
	char *p = path_in(name);
	if (gz) {
		gzFile f = gzopen(p, "wb");
		assert_non_null(f);
		if (len)
			assert_int_equal(gzwrite(f, data, (unsigned)len), (int)len);
		gzclose(f);
	} else {
		FILE *f = fopen(p, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, len, f), len);
		fclose(f);
	}
	free(p);
}

/* IDX bytes: header + dims + payload (payload bytes i*7+label). */
static size_t make_idx(uint8_t *buf, uint8_t type, int rank, const uint32_t *dims,
		       size_t payload)
{
	size_t n = 0;
	buf[n++] = 0;
	buf[n++] = 0;
	buf[n++] = type;
	buf[n++] = (uint8_t)rank;
	for (int i = 0; i < rank; i++) {
		buf[n++] = (uint8_t)(dims[i] >> 24);
		buf[n++] = (uint8_t)(dims[i] >> 16);
		buf[n++] = (uint8_t)(dims[i] >> 8);
		buf[n++] = (uint8_t)dims[i];
	}
	for (size_t i = 0; i < payload; i++)
		buf[n++] = (uint8_t)(i * 7 % 251);
	return n;
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/imc-test-data.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	remove_dir();
	return 0;
}

/* Writes a consistent little MNIST-like split of n 4x3 images. */
static void write_split(const char *prefix, int n, int gz)
{
	uint8_t buf[4096];
	char name[64];
	uint32_t idims[3] = { (uint32_t)n, 4, 3 }, ldims[1] = { (uint32_t)n };
	size_t len = make_idx(buf, 8, 3, idims, (size_t)n * 12);
	snprintf(name, sizeof(name), "%s-images-idx3-ubyte%s", prefix, gz ? ".gz" : "");
	write_file(name, buf, len, gz);
	len = make_idx(buf, 8, 1, ldims, 0);
	for (int i = 0; i < n; i++)
		buf[len++] = (uint8_t)(i % 10);
	snprintf(name, sizeof(name), "%s-labels-idx1-ubyte%s", prefix, gz ? ".gz" : "");
	write_file(name, buf, len, gz);
}

static void test_idx_plain_and_gzip(void **state)
{
	(void)state;
	for (int gz = 0; gz <= 1; gz++) {
		struct diag d = DIAG_INIT;
		struct dataset ds;
		write_split("train", 25, gz);
		write_split("t10k", 7, !gz);
		assert_int_equal(dataset_load(&ds, tmpdir, "mnist", true, &d), 0);
		assert_int_equal(ds.n, 25);
		assert_int_equal(ds.c, 1);
		assert_int_equal(ds.h, 4);
		assert_int_equal(ds.w, 3);
		assert_int_equal(ds.y[13], 3);
		/* pixel i of the images file is (i*7 % 251), kept as that byte and
		 * scaled by 1/255 when copied out */
		assert_int_equal(ds.x[5], 35 % 251);
		assert_int_equal(ds.x[12 * 24 + 11], (12 * 24 + 11) * 7 % 251);
		float ex[2 * 12];
		dataset_get(&ds, 23, 2, ex);
		assert_true(ex[11 + 12] == (float)((12 * 24 + 11) * 7 % 251) / 255.0f);
		assert_true(ex[0] == (float)(23 * 12 * 7 % 251) / 255.0f);
		dataset_release(&ds);
		assert_int_equal(dataset_load(&ds, tmpdir, "fashion-mnist", false, &d), 0);
		assert_int_equal(ds.n, 7);
		dataset_release(&ds);
		assert_false(diag_has_errors(&d));
		diag_release(&d);
		/* remove this round's files so that the next one finds the others */
		remove_dir();
		assert_int_equal(setup(NULL), 0);
	}
}

static void expect_idx_error(const char *name, const void *data, size_t len, int gz,
			     int rank, const char *msg)
{
	struct diag d = DIAG_INIT;
	uint8_t *out = (uint8_t *)1;
	uint32_t dims[4];
	char *p = path_in(name);
	write_file(name, data, len, gz);
	assert_int_equal(data_read_idx(p, rank, &out, dims, &d), -1);
	assert_null(out);
	if (!strstr(diag_first_message(&d), msg) || !strstr(diag_first_message(&d), name))
		fail_msg("%s: got '%s', want '%s'", name, diag_first_message(&d), msg);
	free(p);
	diag_release(&d);
}

static void test_idx_malformed(void **state)
{
	(void)state;
	uint8_t buf[4096];
	uint32_t dims[3] = { 10, 4, 3 };
	size_t len = make_idx(buf, 8, 3, dims, 120);

	expect_idx_error("empty", buf, 0, 0, 3, "truncated");
	expect_idx_error("short-header", buf, 3, 0, 3, "truncated");
	expect_idx_error("short-dims", buf, 9, 0, 3, "truncated");
	expect_idx_error("truncated", buf, len - 1, 0, 3, "truncated");
	expect_idx_error("truncated.gz", buf, len - 50, 1, 3, "truncated");
	expect_idx_error("trailing", buf, len + 0, 0, 1, "rank 3, expected 1");
	buf[len] = 0;
	expect_idx_error("trailing2", buf, len + 1, 0, 3, "trailing bytes");
	uint8_t bad[4096];
	memcpy(bad, buf, len);
	bad[0] = 0x1f;
	bad[1] = 0x00;
	expect_idx_error("magic", bad, len, 0, 3, "not an IDX file");
	memcpy(bad, buf, len);
	bad[2] = 0x0d;
	expect_idx_error("type", bad, len, 0, 3, "element type 0x0d");
	uint32_t huge[3] = { 0xffffffffu, 0xffffffffu, 16 };
	size_t hl = make_idx(bad, 8, 3, huge, 16);
	expect_idx_error("huge", bad, hl, 0, 3, "more than");
	uint32_t zero[3] = { 0, 4, 3 };
	hl = make_idx(bad, 8, 3, zero, 0);
	expect_idx_error("zero", bad, hl, 0, 3, "dimension 1 is zero");

	/* a gzip stream whose data was damaged: zlib's CRC check catches it */
	char *p = path_in("corrupt.gz");
	write_file("corrupt.gz", buf, len, 1);
	FILE *f = fopen(p, "r+b");
	assert_non_null(f);
	fseek(f, -6, SEEK_END);
	fputc(0x55, f);
	fputc(0xaa, f);
	fclose(f);
	struct diag d = DIAG_INIT;
	uint8_t *out;
	uint32_t dd[4];
	assert_int_equal(data_read_idx(p, 3, &out, dd, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "corrupt.gz"));
	diag_release(&d);
	free(p);

	/* missing files and mismatched counts */
	struct dataset ds;
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, "/nonexistent-dir", "mnist", true, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "not found in '/nonexistent-dir'"));
	diag_release(&d);
	write_split("train", 12, 0);
	uint8_t lab[64];
	uint32_t l11[1] = { 11 };
	size_t ll = make_idx(lab, 8, 1, l11, 0);
	memset(lab + ll, 1, 11);
	write_file("train-labels-idx1-ubyte", lab, ll + 11, 0);
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, tmpdir, "mnist", true, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "12 images but"));
	diag_release(&d);
	uint32_t l12[1] = { 12 };
	ll = make_idx(lab, 8, 1, l12, 0);
	memset(lab + ll, 1, 12);
	lab[ll + 5] = 10;
	write_file("train-labels-idx1-ubyte", lab, ll + 12, 0);
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, tmpdir, "mnist", true, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "label 10 of example 5"));
	diag_release(&d);
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, tmpdir, "imagenet", true, &d), -1);
	assert_int_equal(d.code, IMC_EXIT_USAGE);
	diag_release(&d);
}

static void test_cifar(void **state)
{
	(void)state;
	enum { N = 3, REC = 3073 };
	static uint8_t buf[N * REC + 10];
	for (int i = 0; i < N; i++) {
		buf[i * REC] = (uint8_t)(i + 4);
		for (int k = 0; k < 3072; k++)
			buf[i * REC + 1 + k] = (uint8_t)(k % 256);
	}
	write_file("test_batch.bin", buf, N * REC, 0);
	struct diag d = DIAG_INIT;
	struct dataset ds;
	assert_int_equal(dataset_load(&ds, tmpdir, "cifar10", false, &d), 0);
	assert_int_equal(ds.n, N);
	assert_int_equal(ds.c, 3);
	assert_int_equal(ds.h, 32);
	assert_int_equal(ds.y[2], 6);
	assert_int_equal(ds.x[3072 + 1024 + 1], 1);
	float ex[3072];
	dataset_get(&ds, 1, 1, ex);
	assert_true(ex[1024 + 1] == 1.0f / 255.0f);
	assert_true(ex[255] == 1.0f);
	dataset_release(&ds);
	/* train split: data_batch_1 missing */
	assert_int_equal(dataset_load(&ds, tmpdir, "cifar10", true, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "data_batch_1.bin"));
	diag_release(&d);

	write_file("test_batch.bin", buf, N * REC - 1, 0);
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, tmpdir, "cifar10", false, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "not a whole number"));
	diag_release(&d);
	buf[REC] = 10;
	write_file("test_batch.bin", buf, N * REC, 0);
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, tmpdir, "cifar10", false, &d), -1);
	assert_non_null(strstr(diag_first_message(&d), "record 1 has label 10"));
	diag_release(&d);
	write_file("test_batch.bin", buf, 0, 0);
	diag_init(&d);
	assert_int_equal(dataset_load(&ds, tmpdir, "cifar10", false, &d), -1);
	diag_release(&d);
}

static void make_dataset(struct dataset *ds, int n)
{
	memset(ds, 0, sizeof(*ds));
	ds->n = n;
	ds->c = 1;
	ds->h = 1;
	ds->w = 2;
	ds->num_classes = 10;
	ds->x = malloc((size_t)n * 2);
	ds->y = malloc((size_t)n);
	for (int i = 0; i < n; i++) {
		ds->x[2 * i] = (uint8_t)i;
		ds->x[2 * i + 1] = (uint8_t)(255 - i);
		ds->y[i] = (uint8_t)(i % 10);
	}
}

static void test_shard(void **state)
{
	(void)state;
	struct dataset ds;
	make_dataset(&ds, 103);
	for (int count = 1; count <= 7; count++) {
		int seen[103] = { 0 }, total = 0;
		for (int k = 0; k < count; k++) {
			struct diag d = DIAG_INIT;
			struct dataset s;
			assert_int_equal(dataset_shard(&s, &ds, k, count, &d), 0);
			assert_true(s.n >= 103 / count && s.n <= 103 / count + 1);
			for (int i = 0; i < s.n; i++) {
				int id = s.x[2 * i];
				assert_int_equal(s.x[2 * i + 1], 255 - id);
				assert_int_equal(s.y[i], id % 10);
				seen[id]++;
			}
			total += s.n;
			dataset_release(&s);
			diag_release(&d);
		}
		assert_int_equal(total, 103);
		for (int i = 0; i < 103; i++)
			assert_int_equal(seen[i], 1);
	}
	struct diag d = DIAG_INIT;
	struct dataset s;
	assert_int_equal(dataset_shard(&s, &ds, 3, 3, &d), -1);
	assert_int_equal(dataset_shard(&s, &ds, 0, 0, &d), -1);
	assert_int_equal(dataset_shard(&s, &ds, 0, 104, &d), -1);
	diag_release(&d);
	dataset_release(&ds);
}

static void test_batcher(void **state)
{
	(void)state;
	struct dataset ds;
	struct batcher b, b2;
	make_dataset(&ds, 70);
	batcher_init(&b, &ds, 8, 42);
	batcher_init(&b2, &ds, 8, 42);
	assert_int_equal(batcher_steps_per_epoch(&b), 8); /* 6 examples dropped */
	float x[16], x2[16], first[16];
	uint8_t y[8];
	for (int e = 0; e < 3; e++) {
		int seen[70] = { 0 };
		for (int s = 0; s < 8; s++) {
			batcher_get(&b, e, s, x, y);
			for (int i = 0; i < 8; i++) {
				/* the bytes come out as x/255, exactly */
				int id = (int)(x[2 * i] * 255.0f + 0.5f);
				assert_true(x[2 * i] == (float)id / 255.0f);
				assert_true(x[2 * i + 1] == (float)(255 - id) / 255.0f);
				assert_int_equal(y[i], id % 10);
				seen[id]++;
			}
			if (e == 0 && s == 0)
				memcpy(first, x, sizeof(x));
			if (e == 1 && s == 0)
				assert_memory_not_equal(first, x, sizeof(x)); /* fresh permutation */
		}
		int used = 0;
		for (int i = 0; i < 70; i++) {
			assert_true(seen[i] <= 1);
			used += seen[i];
		}
		assert_int_equal(used, 64);
	}
	/* Random access in any order gives the same batches (resume). */
	batcher_get(&b2, 1, 5, x2, y);
	batcher_get(&b, 1, 5, x, y);
	assert_memory_equal(x, x2, sizeof(x));
	batcher_get(&b2, 0, 0, x2, y);
	assert_memory_equal(first, x2, sizeof(x));
	batcher_release(&b);
	batcher_release(&b2);
	dataset_release(&ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idx_plain_and_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idx_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cifar, setup, teardown),
		cmocka_unit_test(test_shard),
		cmocka_unit_test(test_batcher),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
