/* spawn.c: starting the deployment worker and following it (see
 * spawn.h). The worker is detached (setsid, double fork) so that it
 * outlives the command and the terminal, logs to HOME/infra/ID/worker.log,
 * and tells the command it started through a pipe once its PID is
 * recorded. Following it is polling the store: the worker is another
 * process, and the store is where it says what it did (the VMs' states,
 * and in the log the jobs' progress, shown as lines, a bar or events). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "deploy/worker.h"
#include "util/xalloc.h"
#include "util/banned.h"

static double now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The worker keeps nothing of its parent but stdio and the lock: no pipe
 * of a build's job server, no terminal, nothing a VM daemon could inherit. */
static void close_inherited(int keep1, int keep2)
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return;
	int *fds = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd <= 2 || fd == keep1 || fd == keep2 || fd == dirfd(dir))
			continue;
		fds = xreallocarray(fds, n + 1, sizeof(*fds));
		fds[n++] = (int)fd;
	}
	closedir(dir);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

/* The program to exec for the worker, or NULL: run it in the fork. */
static const char *worker_program;

void deploy_spawn_exec(const char *program)
{
	worker_program = program;
}

/* In the worker's process, exec worker_program's worker command; returns
 * only when the exec failed. The lock and the pipe stay open across it. */
static void exec_worker(const char *home, const char *id, int lock_fd, int ready_fd, enum worker_task task,
			const char *vms)
{
	char taskbuf[16], fdbuf[16];
	snprintf(taskbuf, sizeof(taskbuf), "%d", (int)task);
	snprintf(fdbuf, sizeof(fdbuf), "%d", ready_fd);
	fcntl(lock_fd, F_SETFD, 0);
	fcntl(ready_fd, F_SETFD, 0);
	char *argv[] = { (char *)(uintptr_t)"imc", (char *)(uintptr_t)DEPLOY_WORKER_COMMAND, (char *)(uintptr_t)home, (char *)(uintptr_t)id,
			 taskbuf, (char *)(uintptr_t)(vms ? vms : ""), fdbuf, NULL };
	execv(worker_program, argv);
	fprintf(stderr, "cannot run the worker '%s': %s\n", worker_program, strerror(errno));
}

int deploy_worker_exec_main(int argc, char **argv)
{
	/* HOME ID TASK VMS READY_FD, as exec_worker gives them */
	if (argc != 5)
		return 64;
	char *end1, *end2;
	long task = strtol(argv[2], &end1, 10), fd = strtol(argv[4], &end2, 10);
	if (*end1 || *end2 || task < WORKER_DEPLOY || task > WORKER_CREATE || fd < 0)
		return 64;
	return deploy_worker_main(argv[0], argv[1], (int)fd, (enum worker_task)task, *argv[3] ? argv[3] : NULL);
}

int deploy_spawn(struct state_store **st, const char *id, int lock_fd, enum worker_task task, const char *vms,
		 struct diag *d)
{
	char *home = xstrdup(state_home(*st));
	char *dir = state_infra_dir(*st, id, d);
	if (!dir) {
		free(home);
		return -1;
	}
	char *logpath = xasprintf("%s/worker.log", dir);
	free(dir);
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "pipe: %s", strerror(errno));
		free(home);
		free(logpath);
		return -1;
	}
	state_close(*st);
	*st = NULL;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		*st = state_open(home, d);
		free(home);
		free(logpath);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		setsid();
		/* nor its signal mask, which fork and exec keep: imc serve
		 * blocks SIGTERM in every thread (sigwait), and a worker
		 * started from it would never see destroy's SIGTERM */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		pid_t pid2 = fork();
		if (pid2 != 0) {
			free(home);
			free(logpath);
			_exit(pid2 < 0 ? 1 : 0);
		}
		/* the worker: keeps lock_fd (the infrastructure's lock) open */
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		close_inherited(lock_fd, p[1]);
		if (worker_program) {
			exec_worker(home, id, lock_fd, p[1], task, vms);
			_exit(127);
		}
		int wrc = deploy_worker_main(home, id, p[1], task, vms);
		/* the child's copies: fork duplicated them, the parent frees its own */
		/* cppcheck-suppress doubleFree */
		free(home);
		/* cppcheck-suppress doubleFree */
		free(logpath);
		_exit(wrc);
	}
	close(p[1]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char c;
	ssize_t r;
	while ((r = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	*st = state_open(home, d);
	free(home);
	free(logpath);
	if (r != 1) {
		if (diag_has_errors(d) || !*st)
			return -1;
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "the deployment worker did not start (see %s/infra/%s/worker.log)",
			   state_home(*st), id);
		return -1;
	}
	return *st ? 0 : -1;
}

static volatile sig_atomic_t follow_stop;

static void on_interrupt(int sig)
{
	(void)sig;
	follow_stop = 1;
}

void deploy_follow_catch_interrupt(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* The live status line on a terminal: counts of VMs per state. */
static void status_line(const struct state_vm *vms, size_t n, double elapsed)
{
	int count[VM_DELETING + 1] = { 0 };
	for (size_t i = 0; i < n; i++)
		if ((unsigned)vms[i].state <= VM_DELETING)
			count[vms[i].state]++;
	printf("\r\033[K%zu VM%s:", n, n == 1 ? "" : "s");
	const char *sep = " ";
	for (int s = 0; s <= VM_DELETING; s++)
		if (count[s]) {
			printf("%s%d %s", sep, count[s], vm_state_name((enum vm_state)s));
			sep = ", ";
		}
	printf(" (%.0f s)", elapsed);
	fflush(stdout);
}

/* What the follower knows of the jobs' progress: the log read so far, the
 * newest event (the bar) and the last one printed as a line. */
struct follow_progress {
	enum follow_output out;
	bool live;
	long long seq;
	json_t *newest;
	int newest_vm;
	json_t *printed;
};

/* A line every epoch, every 5% of the job, or when a new accuracy comes:
 * the bar shows every poll on a terminal, the lines are the record. */
static bool worth_a_line(const json_t *last, const json_t *ev)
{
	if (!last)
		return true;
	double e0 = json_number_value(json_object_get(last, "epoch"));
	double e1 = json_number_value(json_object_get(ev, "epoch"));
	double f0 = json_number_value(json_object_get(last, "fraction"));
	double f1 = json_number_value(json_object_get(ev, "fraction"));
	return floor(e1) != floor(e0) || f1 - f0 >= 0.05 || f1 >= 1 ||
	       !json_equal(json_object_get(last, "accuracy"), json_object_get(ev, "accuracy"));
}

static void on_log_entry(void *opaque, int vm, const char *text)
{
	struct follow_progress *fp = opaque;
	json_t *ev = deploy_progress_parse(text);
	if (!ev)
		return;
	if (fp->out == FOLLOW_JSON) {
		json_t *j = deploy_progress_event(vm, ev);
		char *js = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		if (js)
			puts(js);
		free(js);
		json_decref(j);
	} else if (fp->out == FOLLOW_TEXT && worth_a_line(fp->printed, ev)) {
		struct strbuf sb = STRBUF_INIT;
		deploy_progress_text(&sb, vm, ev);
		if (fp->live)
			fputs("\r\033[K", stdout);
		puts(sb.buf);
		strbuf_release(&sb);
		json_decref(fp->printed);
		fp->printed = json_incref(ev);
	}
	fflush(stdout);
	json_decref(fp->newest);
	fp->newest = ev;
	fp->newest_vm = vm;
}

/* The progress bar in place of the status line, cut to the terminal. */
static void progress_line(const struct follow_progress *fp)
{
	struct winsize ws;
	int cols = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
	struct strbuf sb = STRBUF_INIT;
	if (fp->newest_vm >= 0)
		strbuf_addf(&sb, "VM %d ", fp->newest_vm);
	deploy_progress_bar(&sb, fp->newest, 20);
	if (sb.len >= (size_t)cols)
		sb.buf[cols - 1] = 0;
	printf("\r\033[K%s", sb.buf);
	fflush(stdout);
	strbuf_release(&sb);
}

int deploy_follow(struct state_store *st, const char *id, double max_seconds, enum follow_output out,
		  enum vm_state *final, struct diag *d)
{
	bool verbose = out == FOLLOW_TEXT;
	bool live = verbose && isatty(STDOUT_FILENO);
	struct follow_progress fp = { .out = out, .live = live, .newest_vm = -1 };
	double t0 = now();
	int *seen_num = NULL;
	enum vm_state *seen = NULL;
	size_t nseen = 0;
	int rc = -1;
	for (;;) {
		struct state_infra in;
		int g = state_infra_get(st, id, &in, d);
		if (g != 0) {
			if (g > 0)
				diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' disappeared", id);
			break;
		}
		if (in.deleted) {
			*final = VM_OFF;
			state_infra_release(&in);
			rc = 0;
			break;
		}
		if (deploy_recover(st, &in, d) < 0) {
			state_infra_release(&in);
			break;
		}
		struct state_vm *vms = NULL;
		size_t n = 0;
		if (state_vm_list(st, id, &vms, &n, d) < 0) {
			state_infra_release(&in);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			while (k < nseen && seen_num[k] != vms[i].num)
				k++;
			if (k == nseen) {
				seen_num = xreallocarray(seen_num, nseen + 1, sizeof(*seen_num));
				seen = xreallocarray(seen, nseen + 1, sizeof(*seen));
				seen_num[nseen] = vms[i].num;
				seen[nseen] = (enum vm_state)-1;
				nseen++;
			}
			if (seen[k] != vms[i].state) {
				if (verbose) {
					if (live)
						fputs("\r\033[K", stdout);
					printf("VM %d (%s): %s\n", vms[i].num, vms[i].system, vm_state_name(vms[i].state));
					fflush(stdout);
				}
				seen[k] = vms[i].state;
			}
		}
		/* the progress the provisioner logged since the last pass (read
		 * after the phase: the lines of a job that ends in between are
		 * still shown by this last pass) */
		if (out != FOLLOW_QUIET && state_log_each_since(st, id, &fp.seq, on_log_entry, &fp, d) < 0) {
			state_vm_list_free(vms, n);
			state_infra_release(&in);
			break;
		}
		bool working = in.phase == PHASE_NEW || in.phase == PHASE_CREATING ||
			       in.phase == PHASE_CONFIGURING || in.phase == PHASE_DESTROYING;
		enum vm_state s = deploy_state(&in, vms, n);
		if (live && working && fp.newest && in.phase == PHASE_CONFIGURING)
			progress_line(&fp);
		else if (live && working)
			status_line(vms, n, now() - t0);
		state_vm_list_free(vms, n);
		state_infra_release(&in);
		if (follow_stop) {
			*final = s;
			rc = 2;
			break;
		}
		if (!working) {
			*final = s;
			rc = 0;
			break;
		}
		if (max_seconds > 0 && now() - t0 >= max_seconds) {
			*final = s;
			rc = 1;
			break;
		}
		/* following a separate process: poll the store */
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (live) {
		fputs("\r\033[K", stdout);
		fflush(stdout);
	}
	json_decref(fp.newest);
	json_decref(fp.printed);
	free(seen_num);
	free(seen);
	return rc;
}

/* The worker is another process: the store is where it says how far it
 * got. */
void deploy_wait_created(struct state_store *st, const char *id, double max)
{
	double t0 = now();
	for (;;) {
		struct diag d = DIAG_INIT;
		struct state_infra in;
		int g = state_infra_get(st, id, &in, &d);
		bool creating = g == 0 && (in.phase == PHASE_NEW || in.phase == PHASE_CREATING) &&
				state_worker_alive(in.worker_pid, in.worker_start);
		if (g == 0)
			state_infra_release(&in);
		diag_release(&d);
		if (!creating || now() - t0 > max)
			return;
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}
