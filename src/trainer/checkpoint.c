/* checkpoint.c: saving and loading imc-train checkpoints in the format
 * documented in checkpoint.h (magic, version, model, tensor shapes, step,
 * optimizer state, CRC-32). Writes are atomic (temp file + rename), reads
 * validate everything before touching the caller's buffers. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "trainer/checkpoint.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define NAME_FIELD 64
#define FIXED_HEADER 120

static void put_u32(struct strbuf *sb, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	strbuf_add(sb, b, 4);
}

static void put_u64(struct strbuf *sb, uint64_t v)
{
	put_u32(sb, (uint32_t)v);
	put_u32(sb, (uint32_t)(v >> 32));
}

static void put_f64(struct strbuf *sb, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	put_u64(sb, u);
}

static void put_floats(struct strbuf *sb, const float *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &f[i], 4);
		put_u32(sb, u);
	}
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static double get_f64(const uint8_t *p)
{
	uint64_t u = get_u64(p);
	double v;
	memcpy(&v, &u, 8);
	return v;
}

static void get_floats(float *dst, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = get_u32(p + 4 * i);
		memcpy(&dst[i], &u, 4);
	}
}

char *checkpoint_path(const char *dir)
{
	return xasprintf("%s/checkpoint.imcckpt", dir);
}

int checkpoint_save(const char *path, const struct model *m, const float *params,
		    const float *velocity, const struct checkpoint_meta *meta,
		    struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	char name[NAME_FIELD] = { 0 };
	size_t np = model_num_params(m);
	int nt = model_num_tensors(m), rc = -1, fd = -1;
	char *tmp = xasprintf("%s.tmp", path);

	strbuf_add(&sb, CHECKPOINT_MAGIC, 8); /* includes the NUL */
	put_u32(&sb, CHECKPOINT_VERSION);
	put_u32(&sb, FIXED_HEADER - 16);
	snprintf(name, sizeof(name), "%s", model_name(m));
	strbuf_add(&sb, name, NAME_FIELD);
	put_u64(&sb, meta->step);
	put_u64(&sb, meta->seed);
	put_f64(&sb, meta->lr);
	put_f64(&sb, meta->momentum);
	put_u32(&sb, (uint32_t)nt);
	put_u32(&sb, velocity ? 1 : 0);
	for (int i = 0; i < nt; i++) {
		const struct model_tensor *t = model_tensor(m, i);
		put_u32(&sb, (uint32_t)strlen(t->name));
		strbuf_addstr(&sb, t->name);
		put_u32(&sb, (uint32_t)t->ndim);
		for (int k = 0; k < t->ndim; k++)
			put_u32(&sb, (uint32_t)t->shape[k]);
	}
	put_floats(&sb, params, np);
	if (velocity)
		put_floats(&sb, velocity, np);
	put_u32(&sb, (uint32_t)crc32(0L, (const Bytef *)sb.buf, (uInt)sb.len));

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	for (size_t off = 0; off < sb.len;) {
		ssize_t w = write(fd, sb.buf + off, sb.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", tmp,
				   strerror(errno));
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot rename '%s' to '%s': %s", tmp, path,
			   strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	strbuf_release(&sb);
	return rc;
}

int checkpoint_load(const char *path, const struct model *m, float *params,
		    float *velocity, struct checkpoint_meta *meta, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	size_t np = model_num_params(m);
	int rc = -1;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read checkpoint '%s': %s", path,
			   strerror(errno));
		goto out;
	}
	const uint8_t *p = (const uint8_t *)sb.buf;
	size_t len = sb.len, pos;
	if (len < FIXED_HEADER + 4 || memcmp(p, CHECKPOINT_MAGIC, 8) != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s' is not an imc-train checkpoint", path);
		goto out;
	}
	if (get_u32(p + 8) != CHECKPOINT_VERSION) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s': checkpoint version %u, expected %u",
			   path, get_u32(p + 8), CHECKPOINT_VERSION);
		goto out;
	}
	uint32_t want = get_u32(p + len - 4);
	uint32_t have = (uint32_t)crc32(0L, p, (uInt)(len - 4));
	if (want != have) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "'%s': checksum mismatch (file is corrupt or truncated)", path);
		goto out;
	}
	if (get_u32(p + 12) != FIXED_HEADER - 16) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s': unexpected header length", path);
		goto out;
	}
	char name[NAME_FIELD + 1];
	memcpy(name, p + 16, NAME_FIELD);
	name[NAME_FIELD] = '\0';
	if (strcmp(name, model_name(m)) != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "'%s' is a checkpoint of model '%s', not '%s'", path, name, model_name(m));
		goto out;
	}
	uint32_t nt = get_u32(p + 112), flags = get_u32(p + 116);
	if (nt != (uint32_t)model_num_tensors(m)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s': %u tensors, the model has %d", path, nt,
			   model_num_tensors(m));
		goto out;
	}
	pos = FIXED_HEADER;
	for (uint32_t i = 0; i < nt; i++) {
		const struct model_tensor *t = model_tensor(m, (int)i);
		if (pos + 4 > len - 4)
			goto trunc;
		uint32_t nl = get_u32(p + pos);
		pos += 4;
		if (nl > len - 4 - pos || nl != strlen(t->name) ||
		    memcmp(p + pos, t->name, nl) != 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "'%s': tensor %u is not '%s' as the model expects", path, i + 1,
				   t->name);
			goto out;
		}
		pos += nl;
		if (pos + 4 > len - 4)
			goto trunc;
		uint32_t nd = get_u32(p + pos);
		pos += 4;
		if (nd != (uint32_t)t->ndim || pos + 4 * (size_t)nd > len - 4)
			goto shape;
		for (uint32_t k = 0; k < nd; k++)
			if (get_u32(p + pos + 4 * k) != (uint32_t)t->shape[k])
				goto shape;
		pos += 4 * (size_t)nd;
		continue;
shape:
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s': tensor '%s' has a different shape",
			   path, t->name);
		goto out;
	}
	size_t need = np * 4 * ((flags & 1) ? 2 : 1);
	if (len - 4 - pos != need)
		goto trunc;
	get_floats(params, p + pos, np);
	if (velocity) {
		if (flags & 1)
			get_floats(velocity, p + pos + np * 4, np);
		else
			memset(velocity, 0, np * sizeof(float));
	}
	meta->step = get_u64(p + 80);
	meta->seed = get_u64(p + 88);
	meta->lr = get_f64(p + 96);
	meta->momentum = get_f64(p + 104);
	rc = 0;
	goto out;
trunc:
	diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s': size does not match its tensor table", path);
out:
	strbuf_release(&sb);
	return rc;
}
