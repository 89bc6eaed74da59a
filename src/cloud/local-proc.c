/* local-proc.c: finding and ending the processes of a local VM by pid.
 * A netns VM's processes are exactly those whose network namespace is the
 * VM's (what `ip netns pids` reports, found here by comparing the namespace
 * inode of every /proc/PID/ns/net). A rootless VM's are its sshd (found by
 * the config path on its command line) and that sshd's descendants. Never a
 * kill by name: each process is signalled by its own pid.
 *
 * Ending is confirmed, not hoped for: a process is identified by its pid
 * and its start time (/proc/PID/stat field 22), signalled through a pidfd
 * opened while that start time still matched (so a recycled pid is never
 * hit), given a grace after SIGTERM, then SIGKILLed, and the caller learns
 * whether everything is gone, reaped by its parent included, before a
 * deadline. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* State, parent and start time of pid from /proc/PID/stat: 0, or -1 when
 * there is no such process. */
static int read_stat(pid_t p, char *state, pid_t *ppid, unsigned long long *start)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	int ret = -1;
	if (strbuf_read_file(&sb, path) == 0 && sb.buf) {
		/* "pid (comm) state ppid ... starttime(22) ...": comm may hold
		 * spaces and parens, so fields are counted from the last ')' */
		char *rp = strrchr(sb.buf, ')');
		char st;
		int pp;
		unsigned long long t;
		if (rp && sscanf(rp + 1,
				 " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
				 &st, &pp, &t) == 3) {
			if (state)
				*state = st;
			if (ppid)
				*ppid = pp;
			if (start)
				*start = t;
			ret = 0;
		}
	}
	strbuf_release(&sb);
	return ret;
}

static pid_t parent_of(pid_t p)
{
	pid_t pp = 0;
	read_stat(p, NULL, &pp, NULL);
	return pp;
}

/* true when /proc/PID/cmdline is an sshd started with "-f CONFIG" under
 * prefix. sshd rewrites its title to one string ("sshd: /usr/sbin/sshd -f
 * ... [listener]"), so the arguments are joined before matching. */
bool local_pid_is_sshd(pid_t p, const char *prefix)
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

size_t local_sshd_pids(const char *dir_prefix, pid_t root, pid_t **pids)
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
		if ((dir_prefix && local_pid_is_sshd(all[i], dir_prefix)) || all[i] == root)
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

size_t local_child_pids(pid_t parent, pid_t **pids)
{
	size_t n = 0, alloc = 0;
	*pids = NULL;
	DIR *dir = opendir("/proc");
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		pid_t p = dirent_pid(de);
		if (p > 0 && parent_of(p) == parent)
			add_pid(pids, &n, &alloc, p);
	}
	if (dir)
		closedir(dir);
	return n;
}

bool local_pid_alive(pid_t pid)
{
	char st = 0;
	return pid > 0 && read_stat(pid, &st, NULL, NULL) == 0 && st != 'Z' && st != 'X';
}

unsigned long long local_pid_start(pid_t pid)
{
	unsigned long long t = 0;
	char st = 0;
	if (pid <= 0 || read_stat(pid, &st, NULL, &t) < 0 || st == 'Z' || st == 'X')
		return 0;
	return t;
}

/* One process being ended: pid and start time name it; fd is a pidfd on
 * it (-1 where the kernel has none: then kill() after re-checking the
 * start time). */
struct victim {
	pid_t pid;
	unsigned long long start;
	int fd;
	bool exited; /* dead (a zombie at most) */
	bool reaped; /* gone from /proc, or the pid names another process now */
};

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void victim_signal(struct victim *v, int sig)
{
#ifdef SYS_pidfd_send_signal
	if (v->fd >= 0) {
		syscall(SYS_pidfd_send_signal, v->fd, sig, NULL, 0);
		return;
	}
#endif
	unsigned long long t;
	char st;
	if (read_stat(v->pid, &st, NULL, &t) == 0 && t == v->start)
		kill(v->pid, sig);
}

/* Updates exited/reaped from /proc. */
static void victim_check(struct victim *v)
{
	unsigned long long t;
	char st;
	if (read_stat(v->pid, &st, NULL, &t) < 0 || t != v->start)
		v->exited = v->reaped = true;
	else if (st == 'Z' || st == 'X')
		v->exited = true;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits until every victim has exited (been reaped too, with want_reaped)
 * or the deadline passed; true when all did. A pidfd becomes readable when
 * its process exits, so that wait sleeps in poll(); reaping gives a
 * non-parent no event, so it is checked every 5 ms. */
static bool wait_victims(struct victim *v, size_t n, bool want_reaped, double deadline)
{
	struct pollfd *pf = xcalloc(n ? n : 1, sizeof(*pf));
	bool all;
	for (;;) {
		size_t np = 0;
		bool check_proc = false;
		all = true;
		for (size_t i = 0; i < n; i++) {
			victim_check(&v[i]);
			if (want_reaped ? v[i].reaped : v[i].exited)
				continue;
			all = false;
			if (v[i].fd >= 0 && !v[i].exited)
				pf[np++] = (struct pollfd){ .fd = v[i].fd, .events = POLLIN };
			else
				check_proc = true;
		}
		double left = deadline - now_s();
		if (all || left <= 0)
			break;
		int ms = (int)(left * 1000) + 1;
		if (check_proc && ms > 5)
			ms = 5;
		if (np) {
			poll(pf, (nfds_t)np, ms);
		} else {
			struct timespec ts = { 0, (long)ms * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	free(pf);
	return all;
}

/* With reap, also waits until each is reaped (see local_kill_pids). */
static int kill_pids(const pid_t *pids, size_t n, bool reap)
{
	if (n == 0)
		return 0;
	struct victim *v = xcalloc(n, sizeof(*v));
	size_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		struct victim x = { .pid = pids[i], .fd = -1 };
		char st;
		unsigned long long t;
		if (pids[i] <= 0 || pids[i] == getpid() || read_stat(pids[i], &st, NULL, &x.start) < 0)
			continue;
		x.fd = pidfd_open_(pids[i]);
		if (read_stat(pids[i], &st, NULL, &t) < 0 || t != x.start) {
			/* it ended (and the pid may be another's) between the reads */
			if (x.fd >= 0)
				close(x.fd);
			continue;
		}
		x.exited = st == 'Z' || st == 'X';
		v[nv++] = x;
	}
	for (size_t i = 0; i < nv; i++)
		if (!v[i].exited) {
			log_debug(LOCAL_LOG, "terminating pid %d", (int)v[i].pid);
			victim_signal(&v[i], SIGTERM);
		}
	/* 2 s of grace to exit cleanly, then SIGKILL and 5 s more */
	if (!wait_victims(v, nv, false, now_s() + 2.0)) {
		for (size_t i = 0; i < nv; i++)
			if (!v[i].exited) {
				log_debug(LOCAL_LOG, "pid %d ignored SIGTERM: killing it", (int)v[i].pid);
				victim_signal(&v[i], SIGKILL);
			}
		wait_victims(v, nv, false, now_s() + 5.0);
	}
	/* a dead process stays a zombie until its parent (init, for a
	 * daemonized sshd) reaps it: wait for that too, so that once this
	 * returns the process table no longer shows it */
	if (reap)
		wait_victims(v, nv, true, now_s() + 5.0);
	int ret = 0;
	for (size_t i = 0; i < nv; i++) {
		if (!v[i].exited) {
			log_warn(LOCAL_LOG, "pid %d survives SIGKILL", (int)v[i].pid);
			ret = -1;
		} else if (reap && !v[i].reaped) {
			log_warn(LOCAL_LOG, "pid %d is dead but its parent has not reaped it", (int)v[i].pid);
		}
		if (v[i].fd >= 0)
			close(v[i].fd);
	}
	free(v);
	return ret;
}

int local_kill_pids(const pid_t *pids, size_t n)
{
	return kill_pids(pids, n, true);
}

/* true when pid is a VM's init (local-sshd.c names it "imc-vm") */
static bool is_vm_init(pid_t p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 64);
	bool r = strbuf_read_file(&sb, path) == 0 && sb.buf && !strcmp(sb.buf, "imc-vm\n");
	strbuf_release(&sb);
	return r;
}

int local_end_all(size_t (*collect)(void *arg, pid_t **pids), void *arg)
{
	/* A process may fork between a listing and its signal (sshd accepting
	 * a connection, a task starting one): list again after each round,
	 * until nothing is left. A VM's init is ended last: it reaps the
	 * others (so they are gone from the process table when this returns)
	 * and exits by itself once they are; only its own zombie is left to
	 * the machine's init. */
	for (int round = 0; round < 8; round++) {
		pid_t *pids = NULL;
		size_t n = collect(arg, &pids);
		if (n == 0) {
			free(pids);
			return 0;
		}
		size_t ninit = 0;
		for (size_t i = 0; i < n; i++)
			if (is_vm_init(pids[i])) {
				pid_t t = pids[ninit];
				pids[ninit++] = pids[i];
				pids[i] = t;
			}
		log_debug(LOCAL_LOG, "ending %zu process(es) and %zu VM init(s), round %d", n - ninit,
			  ninit, round + 1);
		if (n > ninit)
			kill_pids(pids + ninit, n - ninit, true);
		else
			kill_pids(pids, ninit, false);
		free(pids);
	}
	pid_t *pids = NULL;
	size_t n = collect(arg, &pids);
	free(pids);
	return n ? -1 : 0;
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
