/* data.c: dataset readers (IDX for MNIST/Fashion-MNIST, plain or gzip
 * through zlib; CIFAR-10's binary batches), sharding and batching
 * (data.h). Every size in a header is checked against the bytes actually
 * present before anything is trusted, so a truncated or malformed file is
 * an error naming the file, never a crash or a huge allocation. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "trainer/data.h"
#include "trainer/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Largest payload accepted from one file (the MNIST train images are 47 MB,
 * the CIFAR-10 batches 30 MB each). */
#define DATA_MAX_BYTES ((uint64_t)1 << 30)

bool dataset_kind_valid(const char *kind)
{
	return strcmp(kind, "fashion-mnist") == 0 || strcmp(kind, "mnist") == 0 ||
	       strcmp(kind, "cifar10") == 0;
}

/* Reads exactly len bytes; returns 0, or -1 with an error (short = truncated). */
static int gz_read_exact(gzFile gz, const char *path, void *buf, size_t len, const char *what,
			 struct diag *d)
{
	size_t got = 0;
	while (got < len) {
		unsigned chunk = len - got > (1u << 30) ? (1u << 30) : (unsigned)(len - got);
		int r = gzread(gz, (char *)buf + got, chunk);
		if (r < 0) {
			int err;
			const char *msg = gzerror(gz, &err);
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: corrupt data while reading %s: %s",
				   path, what, err == Z_ERRNO ? strerror(errno) : msg);
			return -1;
		}
		if (r == 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "%s: truncated: %s needs %zu bytes, only %zu present", path, what,
				   len, got);
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

/* After the payload there must be nothing left (and the gzip trailer must
 * check out, which zlib verifies at end of stream). */
static int gz_expect_eof(gzFile gz, const char *path, struct diag *d)
{
	char extra;
	int r = gzread(gz, &extra, 1);
	if (r < 0) {
		int err;
		const char *msg = gzerror(gz, &err);
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: corrupt data at end of file: %s", path,
			   err == Z_ERRNO ? strerror(errno) : msg);
		return -1;
	}
	if (r > 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "%s: trailing bytes after the data its header announces", path);
		return -1;
	}
	return 0;
}

static gzFile open_input(const char *path, struct diag *d)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "'%s' is not a regular file", path);
		return NULL;
	}
	gzFile gz = gzopen(path, "rb");
	if (!gz)
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot open '%s': %s", path,
			   errno ? strerror(errno) : "out of memory");
	return gz;
}

int data_read_idx(const char *path, int want_rank, uint8_t **data, uint32_t dims[4],
		  struct diag *d)
{
	uint8_t hdr[4], raw[16];
	uint8_t *buf = NULL;
	uint64_t count = 1;
	*data = NULL;
	gzFile gz = open_input(path, d);
	if (!gz)
		return -1;
	if (gz_read_exact(gz, path, hdr, 4, "the IDX header", d) < 0)
		goto fail;
	if (hdr[0] != 0 || hdr[1] != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "%s: not an IDX file (header %02x%02x%02x%02x)", path, hdr[0], hdr[1],
			   hdr[2], hdr[3]);
		goto fail;
	}
	if (hdr[2] != 0x08) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "%s: IDX element type 0x%02x, expected 0x08 (unsigned byte)", path,
			   hdr[2]);
		goto fail;
	}
	if (hdr[3] != want_rank) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: IDX rank %d, expected %d", path, hdr[3],
			   want_rank);
		goto fail;
	}
	if (gz_read_exact(gz, path, raw, (size_t)want_rank * 4, "the IDX dimensions", d) < 0)
		goto fail;
	for (int i = 0; i < want_rank; i++) {
		dims[i] = (uint32_t)raw[4 * i] << 24 | (uint32_t)raw[4 * i + 1] << 16 |
			  (uint32_t)raw[4 * i + 2] << 8 | raw[4 * i + 3];
		if (dims[i] == 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: IDX dimension %d is zero", path,
				   i + 1);
			goto fail;
		}
		count *= dims[i];
		if (count > DATA_MAX_BYTES) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "%s: IDX dimensions announce more than %llu bytes", path,
				   (unsigned long long)DATA_MAX_BYTES);
			goto fail;
		}
	}
	buf = xmalloc((size_t)count);
	if (gz_read_exact(gz, path, buf, (size_t)count, "the IDX data", d) < 0 ||
	    gz_expect_eof(gz, path, d) < 0)
		goto fail;
	gzclose(gz);
	*data = buf;
	return 0;
fail:
	free(buf);
	gzclose(gz);
	return -1;
}

const char *dataset_default_dir(const char *kind)
{
	if (kind && strcmp(kind, "mnist") == 0)
		return "/usr/share/datasets/mnist";
	if (kind && strcmp(kind, "cifar10") == 0)
		return "/usr/share/datasets/cifar10";
	return "/usr/share/datasets/fashion-mnist";
}

/* DIR/NAME or DIR/NAME.gz, whichever exists (malloc'd), or NULL. */
static char *find_file(const char *dir, const char *stem, const char *kind, struct diag *d)
{
	char *p = xasprintf("%s/%s", dir, stem);
	struct stat st;
	if (stat(p, &st) == 0)
		return p;
	free(p);
	p = xasprintf("%s/%s.gz", dir, stem);
	if (stat(p, &st) == 0)
		return p;
	free(p);
	if (strcmp(kind, "fashion-mnist") == 0)
		diag_error(d, IMC_EXIT_NOINPUT, NULL,
			   "%s[.gz] not found in '%s' (apt-get install dataset-fashion-mnist, or pass --data)",
			   stem, dir);
	else
		diag_error(d, IMC_EXIT_NOINPUT, NULL,
			   "%s[.gz] not found in '%s' (the %s IDX files; pass --data DIR)", stem,
			   dir, kind);
	return NULL;
}

static int load_idx_split(struct dataset *ds, const char *dir, const char *kind, bool train,
			  struct diag *d)
{
	const char *prefix = train ? "train" : "t10k";
	char stem[64];
	uint32_t idims[4], ldims[4];
	uint8_t *img = NULL, *lab = NULL;
	char *ipath = NULL, *lpath = NULL;
	int rc = -1;

	snprintf(stem, sizeof(stem), "%s-images-idx3-ubyte", prefix);
	if (!(ipath = find_file(dir, stem, kind, d)))
		goto out;
	snprintf(stem, sizeof(stem), "%s-labels-idx1-ubyte", prefix);
	if (!(lpath = find_file(dir, stem, kind, d)))
		goto out;
	if (data_read_idx(ipath, 3, &img, idims, d) < 0 ||
	    data_read_idx(lpath, 1, &lab, ldims, d) < 0)
		goto out;
	if (idims[0] != ldims[0]) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: %u images but %s has %u labels", ipath,
			   idims[0], lpath, ldims[0]);
		goto out;
	}
	if (idims[0] > INT32_MAX || idims[1] > 4096 || idims[2] > 4096) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: implausible image shape %ux%ux%u", ipath,
			   idims[0], idims[1], idims[2]);
		goto out;
	}
	for (uint32_t i = 0; i < ldims[0]; i++)
		if (lab[i] > 9) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "%s: label %u of example %u is out of range 0..9", lpath, lab[i], i);
			goto out;
		}
	ds->n = (int)idims[0];
	ds->c = 1;
	ds->h = (int)idims[1];
	ds->w = (int)idims[2];
	ds->num_classes = 10;
	ds->x = img;
	img = NULL;
	ds->y = lab;
	lab = NULL;
	rc = 0;
out:
	free(img);
	free(lab);
	free(ipath);
	free(lpath);
	return rc;
}

#define CIFAR_RECORD 3073
#define CIFAR_PIXELS 3072

int data_read_cifar_file(const char *path, struct dataset *ds, struct diag *d)
{
	struct stat st;
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	int rc = -1;
	if (!fp) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode)) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "'%s' is not a regular file", path);
		goto out;
	}
	if (st.st_size == 0 || st.st_size % CIFAR_RECORD != 0 ||
	    (uint64_t)st.st_size > DATA_MAX_BYTES) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "%s: %lld bytes is not a whole number of %d-byte CIFAR-10 records "
			   "(truncated or not a CIFAR-10 binary batch)",
			   path, (long long)st.st_size, CIFAR_RECORD);
		goto out;
	}
	size_t nrec = (size_t)st.st_size / CIFAR_RECORD;
	if ((uint64_t)ds->n + nrec > INT32_MAX / 2) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: too many examples", path);
		goto out;
	}
	buf = xmalloc((size_t)st.st_size);
	if (fread(buf, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "%s: read error or file shrank while reading",
			   path);
		goto out;
	}
	for (size_t i = 0; i < nrec; i++)
		if (buf[i * CIFAR_RECORD] > 9) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "%s: record %zu has label %u, expected 0..9", path, i,
				   buf[i * CIFAR_RECORD]);
			goto out;
		}
	ds->c = 3;
	ds->h = 32;
	ds->w = 32;
	ds->num_classes = 10;
	ds->x = xreallocarray(ds->x, ((size_t)ds->n + nrec) * CIFAR_PIXELS, 1);
	ds->y = xrealloc(ds->y, (size_t)ds->n + nrec);
	for (size_t i = 0; i < nrec; i++) {
		const uint8_t *r = buf + i * CIFAR_RECORD;
		ds->y[ds->n + i] = r[0];
		memcpy(ds->x + ((size_t)ds->n + i) * CIFAR_PIXELS, r + 1, CIFAR_PIXELS);
	}
	ds->n += (int)nrec;
	rc = 0;
out:
	free(buf);
	fclose(fp);
	return rc;
}

static int load_cifar_split(struct dataset *ds, const char *dir, bool train, struct diag *d)
{
	struct stat st;
	char *sub = xasprintf("%s/cifar-10-batches-bin", dir);
	const char *base = (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) ? sub : dir;
	int rc = 0;
	for (int i = 1; i <= (train ? 5 : 1) && rc == 0; i++) {
		char *p = train ? xasprintf("%s/data_batch_%d.bin", base, i)
				: xasprintf("%s/test_batch.bin", base);
		if (stat(p, &st) < 0 && errno == ENOENT) {
			/* say what is missing and where it comes from, not just ENOENT */
			diag_error(d, IMC_EXIT_NOINPUT, NULL,
				   "CIFAR-10: %s not found in '%s' (the binary version, "
				   "cifar-10-binary.tar.gz from https://www.cs.toronto.edu/~kriz/cifar.html, "
				   "extracted; pass --data DIR)",
				   strrchr(p, '/') + 1, base);
			rc = -1;
		} else {
			rc = data_read_cifar_file(p, ds, d);
		}
		free(p);
	}
	free(sub);
	return rc;
}

int dataset_load(struct dataset *ds, const char *dir, const char *kind, bool train,
		 struct diag *d)
{
	int rc;
	memset(ds, 0, sizeof(*ds));
	if (!dataset_kind_valid(kind)) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "unknown dataset '%s' (fashion-mnist, mnist or cifar10)", kind);
		return -1;
	}
	if (!dir)
		dir = dataset_default_dir(kind);
	if (strcmp(kind, "cifar10") == 0)
		rc = load_cifar_split(ds, dir, train, d);
	else
		rc = load_idx_split(ds, dir, kind, train, d);
	if (rc < 0)
		dataset_release(ds);
	return rc;
}

/* The one place pixels become floats: the same x/255 in float the whole
 * set used to be converted with, so batches are bit-identical to it. */
static void to_float(float *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (float)src[i] / 255.0f;
}

void dataset_get(const struct dataset *ds, int first, int count, float *x)
{
	size_t esz = dataset_example_size(ds);
	to_float(x, ds->x + (size_t)first * esz, (size_t)count * esz);
}

void dataset_release(struct dataset *ds)
{
	if (!ds)
		return;
	free(ds->x);
	free(ds->y);
	memset(ds, 0, sizeof(*ds));
}

int dataset_shard(struct dataset *out, const struct dataset *in, int index, int count,
		  struct diag *d)
{
	memset(out, 0, sizeof(*out));
	if (count < 1 || index < 0 || index >= count || count > in->n) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "cannot take shard %d of %d from %d examples", index, count, in->n);
		return -1;
	}
	size_t lo = (size_t)in->n * (size_t)index / (size_t)count;
	size_t hi = (size_t)in->n * (size_t)(index + 1) / (size_t)count;
	size_t esz = dataset_example_size(in);
	*out = *in;
	out->n = (int)(hi - lo);
	out->x = xmalloc((hi - lo) * esz);
	out->y = xmalloc(hi - lo);
	memcpy(out->x, in->x + lo * esz, (hi - lo) * esz);
	memcpy(out->y, in->y + lo, hi - lo);
	return 0;
}

void batcher_init(struct batcher *b, const struct dataset *ds, int batch, uint64_t seed)
{
	b->ds = ds;
	b->batch = batch;
	b->seed = seed;
	b->epoch = -1;
	b->perm = xmalloc((size_t)(ds->n ? ds->n : 1) * sizeof(int));
}

void batcher_release(struct batcher *b)
{
	free(b->perm);
	b->perm = NULL;
}

int batcher_steps_per_epoch(const struct batcher *b)
{
	return b->batch > 0 ? b->ds->n / b->batch : 0;
}

static void shuffle(struct batcher *b, int epoch)
{
	struct rng r;
	/* A stream per (seed, epoch), independent of the init stream. */
	rng_seed(&r, b->seed * 0x9e3779b97f4a7c15ULL ^ (0x5851f42d4c957f2dULL + (uint64_t)epoch));
	for (int i = 0; i < b->ds->n; i++)
		b->perm[i] = i;
	for (int i = b->ds->n - 1; i > 0; i--) {
		int j = (int)rng_below(&r, (uint64_t)i + 1);
		int t = b->perm[i];
		b->perm[i] = b->perm[j];
		b->perm[j] = t;
	}
	b->epoch = epoch;
}

void batcher_get(struct batcher *b, int epoch, int index, float *x, uint8_t *y)
{
	batcher_get_part(b, epoch, index, 0, b->batch, x, y);
}

void batcher_get_part(struct batcher *b, int epoch, int index, int first, int count, float *x,
		      uint8_t *y)
{
	if (b->epoch != epoch)
		shuffle(b, epoch);
	size_t esz = dataset_example_size(b->ds);
	for (int i = 0; i < count; i++) {
		int src = b->perm[(size_t)index * b->batch + (size_t)first + i];
		to_float(x + (size_t)i * esz, b->ds->x + (size_t)src * esz, esz);
		y[i] = b->ds->y[src];
	}
}
