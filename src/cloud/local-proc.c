/* local-proc.c: finding and ending the processes of a local VM by pid.
 * A netns VM's processes are exactly those whose network namespace is the
 * VM's (what `ip netns pids` reports, found here by comparing the namespace
 * inode of every /proc/PID/ns/net). A rootless VM's are its sshd (found by
 * the config path on its command line) and that sshd's descendants. Never a
 * kill by name: each process is signalled by its own pid. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void add_pid(pid_t **pids, size_t *n, size_t *alloc, pid_t p)
{
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 16;
		*pids = xreallocarray(*pids, *alloc, sizeof(**pids));
	}
	(*pids)[(*n)++] = p;
}

static pid_t dirent_pid(const struct dirent *de)
{
	if (!isdigit((unsigned char)de->d_name[0]))
		return 0;
	char *end;
	long v = strtol(de->d_name, &end, 10);
	return *end ? 0 : (pid_t)v;
}

size_t local_netns_pids(const char *netns, pid_t **pids)
{
	size_t n = 0, alloc = 0;
	*pids = NULL;
	char *path = xasprintf("/run/netns/%s", netns);
	struct stat ns;
	int r = stat(path, &ns);
	free(path);
	if (r < 0)
		return 0;
	struct stat self;
	if (stat("/proc/self/ns/net", &self) == 0 && self.st_ino == ns.st_ino &&
	    self.st_dev == ns.st_dev)
		return 0; /* not a namespace of its own: never kill ourselves */
	DIR *dir = opendir("/proc");
	if (!dir)
		return 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		pid_t p = dirent_pid(de);
		if (p <= 0 || p == getpid())
			continue;
		char nspath[64];
		snprintf(nspath, sizeof(nspath), "/proc/%d/ns/net", (int)p);
		struct stat st;
		if (stat(nspath, &st) == 0 && st.st_ino == ns.st_ino && st.st_dev == ns.st_dev)
			add_pid(pids, &n, &alloc, p);
	}
	closedir(dir);
	return n;
}

static pid_t parent_of(pid_t p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	pid_t pp = 0;
	if (strbuf_read_file(&sb, path) == 0 && sb.buf) {
		/* "pid (comm) state ppid ...": comm may hold spaces and parens */
		char *rp = strrchr(sb.buf, ')');
		if (rp) {
			char st;
			int v;
			if (sscanf(rp + 1, " %c %d", &st, &v) == 2)
				pp = v;
		}
	}
	strbuf_release(&sb);
	return pp;
}

/* true when /proc/PID/cmdline is an sshd started with "-f CONFIG" under
 * prefix. sshd rewrites its title to one string ("sshd: /usr/sbin/sshd -f
 * ... [listener]"), so the arguments are joined before matching. */
static bool is_our_sshd(pid_t p, const char *prefix)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 16384);
	bool ret = false;
	if (strbuf_read_file(&sb, path) == 0 && sb.len) {
		bool sshd = !strncmp(sb.buf, "sshd:", 5) ||
			    (strstr(sb.buf, "sshd") && sb.buf[0] == '/');
		for (size_t i = 0; i < sb.len; i++)
			if (sb.buf[i] == '\0')
				sb.buf[i] = ' ';
		char *needle = xasprintf("-f %s", prefix);
		ret = sshd && strstr(sb.buf, needle) != NULL;
		free(needle);
	}
	strbuf_release(&sb);
	return ret;
}

size_t local_sshd_pids(const char *dir_prefix, pid_t **pids)
{
	size_t n = 0, alloc = 0;
	*pids = NULL;
	DIR *dir = opendir("/proc");
	if (!dir)
		return 0;
	pid_t *all = NULL, *par = NULL;
	size_t nall = 0, aall = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		pid_t p = dirent_pid(de);
		if (p > 0 && p != getpid())
			add_pid(&all, &nall, &aall, p);
	}
	closedir(dir);
	par = xcalloc(nall ? nall : 1, sizeof(*par));
	for (size_t i = 0; i < nall; i++) {
		par[i] = parent_of(all[i]);
		if (is_our_sshd(all[i], dir_prefix))
			add_pid(pids, &n, &alloc, all[i]);
	}
	/* add descendants until nothing changes */
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < nall; i++) {
			bool in = false, parent_in = false;
			for (size_t j = 0; j < n; j++) {
				if ((*pids)[j] == all[i])
					in = true;
				if ((*pids)[j] == par[i])
					parent_in = true;
			}
			if (!in && parent_in) {
				add_pid(pids, &n, &alloc, all[i]);
				grew = true;
			}
		}
	}
	free(all);
	free(par);
	return n;
}

bool local_pid_alive(pid_t pid)
{
	if (pid <= 0)
		return false;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	bool alive = false;
	if (strbuf_read_file(&sb, path) == 0 && sb.buf) {
		char *rp = strrchr(sb.buf, ')');
		char st = 0;
		alive = rp && sscanf(rp + 1, " %c", &st) == 1 && st != 'Z' && st != 'X';
	}
	strbuf_release(&sb);
	return alive;
}

void local_kill_pids(const pid_t *pids, size_t n)
{
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		log_debug(LOCAL_LOG, "terminating pid %d", (int)pids[i]);
		kill(pids[i], SIGTERM);
	}
	/* up to 2 s of grace, checked every 10 ms */
	for (int t = 0; t < 200; t++) {
		bool any = false;
		for (size_t i = 0; i < n && !any; i++)
			any = local_pid_alive(pids[i]);
		if (!any)
			return;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	for (size_t i = 0; i < n; i++)
		if (local_pid_alive(pids[i]))
			kill(pids[i], SIGKILL);
}

pid_t local_read_pidfile(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 64);
	pid_t p = 0;
	if (strbuf_read_file(&sb, path) == 0 && sb.buf) {
		char *end;
		long v = strtol(sb.buf, &end, 10);
		if (end != sb.buf && v > 0)
			p = (pid_t)v;
	}
	strbuf_release(&sb);
	return p;
}
