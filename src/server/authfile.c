/* authfile.c: the cloud credentials of a request of `imc serve`, written
 * for the deployment engine (which reads auth files) to
 * HOME/serve/auth-PID-START-RANDOM.dat, 0600, and their removal. A
 * request's file goes when the request ends, unless the request created
 * an infrastructure: the store then names the file as the one its workers
 * read (the auth file "stored at creation"), and it goes when the server
 * destroys that infrastructure. What a crash, or a destroy by the CLI,
 * leaves is removed when a server starts: every file no live
 * infrastructure names, unless the server that wrote it (PID and start
 * time in its name) still runs: its request may not have reached the
 * store yet, so another server on the same HOME never pulls a file from
 * under it. One file per request, never shared, so that removing one
 * cannot pull it from under another request. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "server/server.h"
#include "util/log.h"
#include "util/mkdir.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define PREFIX "auth-"

int srv_authfile_write(const char *home, const char *text, size_t len, char **path, struct diag *d)
{
	unsigned char raw[12]; /* 24 hex digits: per_request knows them */
	char hex[2 * sizeof(raw) + 1];
	int rc = -1;
	char *dir = xasprintf("%s/serve", home);
	*path = NULL;
	if (mkdir_p(dir, 0700, d) < 0)
		goto out;
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "getrandom: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	pid_t self = getpid();
	*path = xasprintf("%s/" PREFIX "%ld-%lld-%s.dat", dir, (long)self, state_proc_start_time(self), hex);
	/* O_EXCL: a name is one request's, never an existing file */
	int fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", *path, strerror(errno));
		if (fd >= 0)
			unlink(*path);
		free(*path);
		*path = NULL;
		goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/* Whether path is one of the server's files in HOME/serve. */
static bool is_ours(const char *home, const char *path)
{
	char *dir = xasprintf("%s/serve/", home), *real = realpath(home, NULL);
	char *realdir = real ? xasprintf("%s/serve/", real) : NULL;
	bool ours = false;
	for (int i = 0; i < 2 && !ours; i++) {
		const char *p = i ? realdir : dir;
		size_t n = p ? strlen(p) : 0;
		ours = p && strncmp(path, p, n) == 0 && strncmp(path + n, PREFIX, strlen(PREFIX)) == 0 &&
		       !strchr(path + n, '/');
	}
	free(dir);
	free(real);
	free(realdir);
	return ours;
}

/* Whether the base name is one request's file: "auth-PID-START-HEX24.dat"
 * (the server that wrote it into *pid and *start), or "auth-HEX24.dat" as
 * servers before the PID mark named it (*pid 0). Older servers still
 * named a user's file by the hash of its content (auth-HASH32.dat),
 * shared by the user's infrastructures: such a file is left to the sweep
 * at start, which keeps it while one names it. */
static bool per_request(const char *base, pid_t *pid, long long *start)
{
	const char *p = base + strlen(PREFIX);
	*pid = 0;
	*start = 0;
	if (strncmp(base, PREFIX, strlen(PREFIX)) != 0)
		return false;
	if (strspn(p, "0123456789") > 0 && p[strspn(p, "0123456789")] == '-') {
		char *end;
		long pv = strtol(p, &end, 10);
		long long sv = strtoll(end + 1, &end, 10);
		if (*end != '-' || pv <= 0)
			return false;
		*pid = (pid_t)pv;
		*start = sv;
		p = end + 1;
	}
	return strspn(p, "0123456789abcdef") == 24 && strcmp(p + 24, ".dat") == 0;
}

void srv_authfile_drop(const char *home, const char *path)
{
	pid_t pid;
	long long start;
	if (path && is_ours(home, path) && per_request(strrchr(path, '/') + 1, &pid, &start) && unlink(path) < 0 &&
	    errno != ENOENT)
		log_warn("serve", "cannot remove '%s': %s", path, strerror(errno));
}

int srv_authfile_sweep(const char *home, struct diag *d)
{
	struct state_store *st = state_open(home, d);
	char **ids = NULL, **keep = NULL;
	size_t n = 0, nkeep = 0;
	int rc = -1;
	if (!st || state_infra_list(st, &ids, &n, d) < 0)
		goto out;
	keep = xcalloc(n ? n : 1, sizeof(*keep));
	for (size_t i = 0; i < n; i++) {
		struct state_infra in;
		int g = state_infra_get(st, ids[i], &in, d);
		if (g < 0)
			goto out;
		if (g == 0 && !in.deleted && in.auth_path && is_ours(home, in.auth_path))
			keep[nkeep++] = xstrdup(strrchr(in.auth_path, '/') + 1);
		if (g == 0)
			state_infra_release(&in);
	}
	char *dir = xasprintf("%s/serve", home);
	DIR *dh = opendir(dir);
	struct dirent *e;
	while (dh && (e = readdir(dh))) {
		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) != 0)
			continue;
		bool named = false;
		for (size_t i = 0; i < nkeep && !named; i++)
			named = strcmp(keep[i], e->d_name) == 0;
		pid_t pid;
		long long start;
		/* a running server's request or job may not be in the store yet */
		if (named || (per_request(e->d_name, &pid, &start) && pid > 0 && state_worker_alive(pid, start)))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(p) == 0)
			log_info("serve", "removed a leftover auth file %s", p);
		free(p);
	}
	if (dh)
		closedir(dh);
	free(dir);
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
	free(ids);
	free(keep);
	state_close(st);
	return rc;
}
