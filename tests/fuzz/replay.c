/* replay.c: a main() for the fuzz harnesses without libFuzzer. Linked with
 * one tests/fuzz/fuzz-*.c it runs LLVMFuzzerTestOneInput once on every file
 * named (or every file in a directory named, recursively), the way a
 * libFuzzer binary runs the files it is given. It exists so that a build
 * without clang (every `make check` pass) still runs each harness on its
 * seed corpus and on every committed crash input (tests/fuzz/regress): a
 * bug a fuzzer once found stays fixed in every build, under ASan or
 * valgrind when the build has them. A harness that finds a problem aborts,
 * so the exit status says it; each input's name is printed to stderr before
 * it runs, so the last name printed is the culprit.
 *
 * usage: replay-NAME FILE-OR-DIR... */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long n_inputs;

/* Reads the whole file into a buffer of exactly its size (no slack, so
 * that ASan sees a harness read one byte past the input). */
static int read_file(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;
	for (;;) {
		uint8_t chunk[8192];
		size_t got = fread(chunk, 1, sizeof(chunk), f);
		if (got == 0)
			break;
		if (n + got > cap) {
			cap = (n + got) * 2;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "replay: out of memory reading '%s'\n", path);
				goto out;
			}
			buf = nb;
		}
		memcpy(buf + n, chunk, got);
		n += got;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		goto out;
	}
	/* exact size; malloc(0) may return NULL, so keep one byte then */
	*out = malloc(n ? n : 1);
	if (!*out) {
		fprintf(stderr, "replay: out of memory reading '%s'\n", path);
		goto out;
	}
	if (n)
		memcpy(*out, buf, n);
	*len = n;
	rc = 0;
out:
	free(buf);
	fclose(f);
	return rc;
}

static int replay_path(const char *path);

static int replay_dir(const char *path)
{
	struct dirent **ents;
	/* sorted, so that two runs replay in the same order */
	int n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: cannot list '%s': %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		if (rc == 0 && name[0] != '.') {
			size_t len = strlen(path) + strlen(name) + 2;
			char *child = malloc(len);
			if (!child) {
				rc = -1;
			} else {
				snprintf(child, len, "%s/%s", path, name);
				rc = replay_path(child);
				free(child);
			}
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int replay_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return replay_dir(path);
	uint8_t *data;
	size_t len;
	if (read_file(path, &data, &len) < 0)
		return -1;
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	n_inputs++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE-OR-DIR...\n", argv[0]);
		return 64;
	}
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i]) < 0)
			return 74;
	fprintf(stderr, "replay: %lu inputs without a problem\n", n_inputs);
	return 0;
}
