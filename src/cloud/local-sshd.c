/* local-sshd.c: the OpenSSH server of each local VM. Prepares the VM's
 * files (host key, authorized_keys holding the infrastructure's public key,
 * sshd_config, and in netns mode /etc/netns/NAME/{hosts,resolv.conf,
 * hostname}) and starts /usr/sbin/sshd as the VM: in netns mode the child
 * enters the VM's network namespace, takes a UTS namespace of its own (its
 * hostname) and a mount namespace where each file of /etc/netns/NAME is
 * bound over its /etc namesake (as `ip netns exec` does), so every SSH
 * session sees the VM's own hostname, /etc/hosts and interfaces. Done with setns/unshare/mount in the
 * forked child, without a shell or an intermediate program. The child then
 * joins the VM's cgroups and forks the VM's init (vm_init below), which
 * runs sshd in the foreground and reaps every process of the VM; ending a
 * VM (local_vm_kill) returns once they are all gone. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/mkdir.h"
#include "util/sshkey.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SSHD_DEFAULT "/usr/sbin/sshd"

static const char *sshd_path(void)
{
	const char *p = getenv("IMC_LOCAL_SSHD");
	return p && *p == '/' ? p : SSHD_DEFAULT;
}

int local_sshd_check(struct diag *d)
{
	if (access(sshd_path(), X_OK) == 0)
		return 0;
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
		   "the local cloud needs OpenSSH's sshd (Debian package 'openssh-server'): "
		   "cannot run '%s': %s", sshd_path(), strerror(errno));
	return -1;
}

/* StrictModes can be on only when no directory from / down to dir is
 * writable by group or others (sshd checks them all up to the root). */
static bool strict_ok(const char *dir)
{
	char *p = xstrdup(dir);
	bool ok = true;
	for (;;) {
		struct stat st;
		if (stat(p, &st) < 0 || (st.st_mode & 022) ||
		    (st.st_uid != 0 && st.st_uid != geteuid())) {
			ok = false;
			break;
		}
		char *slash = strrchr(p, '/');
		if (!slash || slash == p) {
			ok = stat("/", &st) == 0 && !(st.st_mode & 022);
			break;
		}
		*slash = '\0';
	}
	free(p);
	return ok;
}

static int write_config(struct local_ctx *c, const struct local_vm *vm, struct diag *d)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "# sshd_config of local VM %d of infrastructure %s (written by imc)\n",
		    vm->num, c->s->infra_id);
	if (vm->mode == LOCAL_NETNS) {
		strbuf_addstr(&b, "ListenAddress 0.0.0.0:22\n");
	} else {
		for (size_t k = 0; k < vm->nnics; k++)
			strbuf_addf(&b, "ListenAddress %s:%d\n", vm->nics[k].ip, vm->port);
	}
	strbuf_addf(&b, "HostKey %s/ssh_host_ed25519_key\n", vm->dir);
	strbuf_addf(&b, "PidFile %s/sshd.pid\n", vm->dir);
	strbuf_addf(&b, "AuthorizedKeysFile %s/authorized_keys\n", vm->dir);
	strbuf_addstr(&b, "PermitRootLogin prohibit-password\n"
			  "PubkeyAuthentication yes\n"
			  "PasswordAuthentication no\n"
			  "KbdInteractiveAuthentication no\n"
			  "UsePAM no\n");
	strbuf_addf(&b, "StrictModes %s\n", strict_ok(vm->dir) ? "yes" : "no");
	strbuf_addstr(&b, "Subsystem sftp internal-sftp\n"
			  "UseDNS no\n"
			  "PrintMotd no\n"
			  "PrintLastLog no\n"
			  "X11Forwarding no\n"
			  "AcceptEnv LANG LC_*\n"
			  "MaxStartups 200:30:400\n"
			  "MaxSessions 200\n"
			  "LoginGraceTime 60\n"
			  "LogLevel INFO\n");
	char *path = xasprintf("%s/sshd_config", vm->dir);
	int r = local_write_file(path, b.buf, b.len, 0600, d);
	free(path);
	strbuf_release(&b);
	return r;
}

static int write_etc(struct local_ctx *c, const struct local_vm *vm, struct diag *d)
{
	char *dir = xasprintf("/etc/netns/%s", vm->netns);
	int ret = -1;
	if (mkdir_p(dir, 0755, d) < 0)
		goto out;
	char *p = xasprintf("%s/hostname", dir);
	char *t = xasprintf("%s\n", vm->hostname ? vm->hostname : vm->netns);
	int r = local_write_file(p, t, strlen(t), 0644, d);
	free(p);
	free(t);
	if (r < 0)
		goto out;
	/* nothing is routed off the machine: no name server; names come from
	 * /etc/hosts */
	p = xasprintf("%s/resolv.conf", dir);
	struct strbuf b = STRBUF_INIT;
	strbuf_addstr(&b, "# local VM: no name server (nothing leaves this machine); "
			  "names are in /etc/hosts\n");
	if (vm->domain)
		strbuf_addf(&b, "search %s\n", vm->domain);
	strbuf_addstr(&b, "options timeout:1 attempts:1\n");
	r = local_write_file(p, b.buf, b.len, 0644, d);
	strbuf_release(&b);
	free(p);
	if (r < 0)
		goto out;
	/* a login user other than root is an alias of root inside the VM: its
	 * own /etc/passwd (bound over the host's) gives it uid 0 */
	p = xasprintf("%s/passwd", dir);
	if (vm->user && strcmp(vm->user, "root")) {
		struct strbuf pw = STRBUF_INIT;
		struct strbuf host = STRBUF_INIT;
		strbuf_init(&host, 4 << 20);
		strbuf_read_file(&host, "/etc/passwd");
		size_t ul = strlen(vm->user);
		for (char *line = host.buf; line && *line;) {
			char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			if (!(len > ul && !strncmp(line, vm->user, ul) && line[ul] == ':')) {
				strbuf_add(&pw, line, len);
				strbuf_addch(&pw, '\n');
			}
			line = nl ? nl + 1 : NULL;
		}
		strbuf_addf(&pw, "%s:x:0:0:imc local VM login (root):/root:/bin/bash\n", vm->user);
		r = local_write_file(p, pw.buf, pw.len, 0644, d);
		strbuf_release(&pw);
		strbuf_release(&host);
	} else {
		unlink(p);
	}
	free(p);
	if (r < 0)
		goto out;
	p = xasprintf("%s/hosts", dir);
	struct stat st;
	if (stat(p, &st) < 0) {
		const char *h = "127.0.0.1\tlocalhost\n";
		r = local_rewrite_file(p, h, strlen(h), d);
	}
	free(p);
	if (r < 0)
		goto out;
	ret = 0;
out:
	free(dir);
	return ret;
}

int local_sshd_prepare(struct local_ctx *c, const struct local_vm *vm, struct diag *d)
{
	if (mkdir_p(vm->dir, 0700, d) < 0)
		return -1;
	char *key = xasprintf("%s/ssh_host_ed25519_key", vm->dir);
	struct stat st;
	int r = 0;
	if (stat(key, &st) < 0) {
		char *comment = xasprintf("imc-local-vm-%d", vm->num);
		r = sshkey_generate(key, comment, d);
		free(comment);
	}
	free(key);
	if (r < 0)
		return -1;
	const char *pub = c->s->pubkey;
	if (!pub || strncmp(pub, "ssh-", 4)) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL,
			   "the local cloud needs the infrastructure's public key");
		return -1;
	}
	size_t plen = strcspn(pub, "\r\n");
	if (pub[plen] && pub[plen + strspn(pub + plen, "\r\n")]) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL,
			   "the infrastructure's public key must be one line");
		return -1;
	}
	char *ak = xasprintf("%s/authorized_keys", vm->dir);
	char *line = xasprintf("%.*s\n", (int)plen, pub);
	r = local_write_file(ak, line, strlen(line), 0600, d);
	free(line);
	free(ak);
	if (r < 0 || write_config(c, vm, d) < 0)
		return -1;
	if (vm->mode == LOCAL_NETNS && write_etc(c, vm, d) < 0)
		return -1;
	/* sshd run by root, in any mode, refuses to start without its
	 * privilege separation directory, which Debian's service unit makes
	 * when it starts the machine's own sshd: on a machine where that never
	 * ran (openssh-server just installed, no systemd) there is none, and
	 * every VM failed ("Missing privilege separation directory") */
	if (geteuid() == 0 && mkdir("/run/sshd", 0755) < 0 && errno != EEXIST) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create /run/sshd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* What the child must do, prepared before fork (the child of a threaded
 * process may only make system calls). */
struct spawn_plan {
	int netns_fd;
	int log_fd;
	int null_fd;
	int cgroup_fd[LOCAL_CG_MAX]; /* cgroup.procs of each cgroup to join */
	int ncgroup;
	int report_fd;               /* where the child writes the VM init's pid */
	const char *hostname;
	const char *bind_src[6];
	const char *bind_dst[6];
	int nbind;
	char *const *argv;
	pid_t parent;
};

/* Child exit codes above 100 tell the parent which step failed. */
static const char *const child_step[] = {
	"enter the network namespace", "create UTS and mount namespaces",
	"make mounts private", "set the hostname", "join the cgroup", "execute sshd",
	"start the VM's init process",
};

/* The cgroup file systems as the host mounts them, seen again under the
 * VM's fresh /sys (a copy of the tree taken before /sys is replaced): a
 * session can read its own limits, as on a cloud VM. Best effort. */
static int cgroup_tree_copy(void)
{
#if defined(SYS_open_tree) && defined(OPEN_TREE_CLONE) && defined(AT_RECURSIVE)
	return (int)syscall(SYS_open_tree, AT_FDCWD, "/sys/fs/cgroup",
			    OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE);
#else
	return -1;
#endif
}

static void cgroup_tree_attach(int fd)
{
#if defined(SYS_move_mount) && defined(MOVE_MOUNT_F_EMPTY_PATH)
	if (fd >= 0)
		syscall(SYS_move_mount, fd, "", AT_FDCWD, "/sys/fs/cgroup", MOVE_MOUNT_F_EMPTY_PATH);
#else
	(void)fd;
#endif
}

/* The VM's init (the process that stays, child of the forked child): the
 * parent of sshd (run in the foreground) and the subreaper of everything
 * under it, reaping each process the moment it ends, as init does on a
 * real host. Without it a daemonized sshd and its sessions are children
 * of the machine's init once imc exits, and stay zombies, counted by
 * pgrep, for as long as that init takes to reap. It ignores SIGTERM and
 * exits when its last child is gone (local_end_all ends its children
 * first). Only system calls here: this runs in a fork of a threaded
 * process. */
static void vm_init(const struct spawn_plan *p)
{
	prctl(PR_SET_NAME, "imc-vm", 0, 0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* pin no directory of the caller (sshd -D does not chdir either) */
	if (chdir("/") < 0)
		_exit(107);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
#endif
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
	sigset_t none;
	sigemptyset(&none);
	pid_t g = fork();
	if (g < 0)
		_exit(107);
	if (g == 0) {
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(p->argv[0], p->argv);
		_exit(106);
	}
	struct sigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGTERM, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGINT, &ign, NULL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (;;)
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
			_exit(0);
}

static void spawn_child(const struct spawn_plan *p)
{
	/* die with the creating process until the VM's init is started */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != p->parent)
		_exit(100);
	if (p->netns_fd >= 0) {
		if (setns(p->netns_fd, CLONE_NEWNET) < 0)
			_exit(101);
		if (unshare(CLONE_NEWNS | CLONE_NEWUTS) < 0)
			_exit(102);
		if (mount("", "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
			_exit(103);
		/* /sys showing this namespace's interfaces, as ip netns exec does */
		int cgt = cgroup_tree_copy();
		if (umount2("/sys", MNT_DETACH) == 0) {
			mount("sysfs", "/sys", "sysfs", 0, NULL);
			cgroup_tree_attach(cgt);
		}
		if (cgt >= 0)
			close(cgt);
		for (int i = 0; i < p->nbind; i++)
			mount(p->bind_src[i], p->bind_dst[i], NULL, MS_BIND, NULL);
		if (p->hostname && sethostname(p->hostname, strlen(p->hostname)) < 0)
			_exit(104);
	}
	for (int i = 0; i < p->ncgroup; i++)
		if (write(p->cgroup_fd[i], "0\n", 2) < 0)
			_exit(105);
	setsid();
	dup2(p->null_fd, 0);
	dup2(p->log_fd, 1);
	dup2(p->log_fd, 2);
	pid_t init = fork();
	if (init < 0)
		_exit(107);
	if (init == 0)
		vm_init(p); /* does not return; no parent-death signal after fork */
	if (write(p->report_fd, &init, sizeof(init)) != (ssize_t)sizeof(init))
		_exit(107);
	_exit(0);
}

/* True when path lies under /var/tmp (which a VM's private /var/tmp would hide). */
static bool under_var_tmp(const char *path)
{
	char real[PATH_MAX];
	if (!path || !realpath(path, real))
		return false;
	return strncmp(real, "/var/tmp/", 9) == 0 || strcmp(real, "/var/tmp") == 0;
}

/* The last line of sshd's log (it says why sshd stopped). Malloc'd. */
static char *last_log_line(const char *log)
{
	struct strbuf lb = STRBUF_INIT;
	strbuf_init(&lb, 1 << 20);
	strbuf_read_file(&lb, log);
	char *txt = lb.buf ? strbuf_detach(&lb) : xstrdup("");
	strbuf_release(&lb);
	size_t len = strlen(txt);
	while (len && txt[len - 1] == '\n')
		txt[--len] = '\0';
	char *last = strrchr(txt, '\n');
	char *r = xstrdup(last ? last + 1 : txt);
	free(txt);
	return r;
}

/* sshd writes its pid file only once it listens: the forked child
 * returning says nothing yet. Waits (up to 10 s) until the pid file names
 * a live sshd of this VM, so that whoever asks next (local_sshd_running, a
 * retried create) sees the one sshd that runs instead of starting a
 * second; fails when the VM's init is gone (sshd exited: it could not
 * listen). */
static int wait_pidfile(const struct local_vm *vm, pid_t init, const char *pidf,
			const char *log, struct diag *d)
{
	char *prefix = xasprintf("%s/", vm->dir);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = -1;
	for (;;) {
		pid_t p = local_read_pidfile(pidf);
		if (local_pid_alive(p) && local_pid_is_sshd(p, prefix)) {
			ret = 0;
			break;
		}
		/* the VM's init exits when sshd has (it could not listen) */
		size_t n = local_pid_alive(init) ? 1 : 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (n == 0 || el > 10.0) {
			char *why = last_log_line(log);
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: sshd %s: %s", vm->num,
				   n == 0 ? "exited" : "wrote no pid file in 10 s", why);
			free(why);
			break;
		}
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	free(prefix);
	return ret;
}

int local_sshd_start(struct local_ctx *c, const struct local_vm *vm, struct diag *d)
{
	struct spawn_plan p = { .netns_fd = -1, .log_fd = -1, .null_fd = -1, .report_fd = -1 };
	int report[2] = { -1, -1 };
	struct local_cgroups cgs = { 0 };
	pid_t init = 0;
	/* The VM's own /var/tmp, kept in its directory: what a recipe leaves
	 * there goes away with the VM, as on a cloud. (Not /tmp: $IMC_HOME or
	 * the build tree often live there, and the VM must still see them.) */
	static const char *const scratch[][2] = { { "var-tmp", "/var/tmp" } };
	char *scratch_src[1] = { 0 };
	char *cfg = xasprintf("%s/sshd_config", vm->dir);
	char *log = xasprintf("%s/sshd.log", vm->dir);
	char *pidf = xasprintf("%s/sshd.pid", vm->dir);
	char *srcs[4] = { 0 }, *bind_dst_own[6] = { 0 }, *note = NULL;
	static const char *const etc[] = { "hosts", "resolv.conf", "hostname", "passwd" };
	/* -D: sshd stays the child of the VM's init (vm_init) */
	const char *argv[] = { sshd_path(), "-D", "-f", cfg, "-E", log, NULL };
	int ret = -1;

	unlink(pidf);
	union { const char *const *c; char *const *m; } av = { .c = argv };
	p.argv = av.m;
	p.parent = getpid();
	p.log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	p.null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (p.log_fd < 0 || p.null_fd < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open '%s': %s", log, strerror(errno));
		goto out;
	}
	if (vm->mode == LOCAL_NETNS) {
		char *nsp = xasprintf("/run/netns/%s", vm->netns);
		p.netns_fd = open(nsp, O_RDONLY | O_CLOEXEC);
		free(nsp);
		if (p.netns_fd < 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "namespace '%s' is gone: %s",
				   vm->netns, strerror(errno));
			goto out;
		}
		p.hostname = vm->hostname ? vm->hostname : vm->netns;
		for (int i = 0; i < 4; i++) {
			struct stat st;
			char *dst = xasprintf("/etc/%s", etc[i]);
			srcs[i] = xasprintf("/etc/netns/%s/%s", vm->netns, etc[i]);
			if (stat(srcs[i], &st) == 0 && stat(dst, &st) == 0) {
				p.bind_src[p.nbind] = srcs[i];
				bind_dst_own[p.nbind] = xstrdup(dst);
				p.bind_dst[p.nbind] = bind_dst_own[p.nbind];
				p.nbind++;
			}
			free(dst);
		}
		for (int i = 0; i < 1 && !under_var_tmp(vm->dir) &&
				!under_var_tmp(getenv("IMC_TRAIN")); i++) {
			scratch_src[i] = xasprintf("%s/%s", vm->dir, scratch[i][0]);
			if (mkdir(scratch_src[i], 01777) < 0 && errno != EEXIST) {
				diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s",
					   scratch_src[i], strerror(errno));
				goto out;
			}
			chmod(scratch_src[i], 01777); /* not narrowed by the umask */
			p.bind_src[p.nbind] = scratch_src[i];
			bind_dst_own[p.nbind] = xstrdup(scratch[i][1]);
			p.bind_dst[p.nbind] = bind_dst_own[p.nbind];
			p.nbind++;
		}
	}
	if (local_cgroup_setup(c, vm, &cgs, &note) == 0) {
		for (size_t i = 0; i < cgs.n; i++) {
			char *procs = xasprintf("%s/cgroup.procs", cgs.dir[i]);
			int fd = open(procs, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				log_warn(LOCAL_LOG, "VM %d: cannot join cgroup '%s': %s: no limits", vm->num,
					 cgs.dir[i], strerror(errno));
			else
				p.cgroup_fd[p.ncgroup++] = fd;
			free(procs);
		}
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	p.report_fd = report[1];
	pid_t pid = fork();
	if (pid < 0) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		spawn_child(&p);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (code > 100 && code <= 107) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: cannot %s", vm->num,
				   child_step[code - 101]);
		} else {
			char *why = last_log_line(log);
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: sshd failed to start: %s",
				   vm->num, why);
			free(why);
		}
		goto out;
	}
	close(report[1]);
	report[1] = -1;
	if (read(report[0], &init, sizeof(init)) != (ssize_t)sizeof(init) || init <= 0) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "VM %d: the VM's init did not start", vm->num);
		goto out;
	}
	{
		/* the init, named by pid and start time (a pid may be reused) */
		char *initf = xasprintf("%s/init.pid", vm->dir);
		char *txt = xasprintf("%d %llu\n", (int)init, local_pid_start(init));
		int w = local_write_file(initf, txt, strlen(txt), 0600, d);
		free(txt);
		free(initf);
		if (w < 0)
			goto out;
	}
	if (wait_pidfile(vm, init, pidf, log, d) < 0)
		goto out;
	ret = 0;
out:
	if (p.log_fd >= 0)
		close(p.log_fd);
	if (p.null_fd >= 0)
		close(p.null_fd);
	if (p.netns_fd >= 0)
		close(p.netns_fd);
	for (int i = 0; i < p.ncgroup; i++)
		close(p.cgroup_fd[i]);
	for (int i = 0; i < 2; i++)
		if (report[i] >= 0)
			close(report[i]);
	local_cgroups_release(&cgs);
	for (int i = 0; i < 4; i++)
		free(srcs[i]);
	free(scratch_src[0]);
	for (int i = 0; i < p.nbind; i++)
		free(bind_dst_own[i]);
	free(note);
	free(cfg);
	free(log);
	free(pidf);
	return ret;
}

/* The processes of a VM: those in its network namespace (netns mode) and
 * every sshd started from its files with their descendants (both modes; a
 * process of a netns VM always is in the namespace, but a namespace
 * already deleted is no longer found by name). */
static size_t vm_procs(void *arg, pid_t **out)
{
	const struct local_vm *vm = arg;
	pid_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	if (vm->netns && vm->mode == LOCAL_NETNS)
		na = local_netns_pids(vm->netns, &a);
	char *prefix = xasprintf("%s/", vm->dir);
	/* the VM's init and what it adopted (a session's child whose session
	 * ended), which rootless mode finds by no namespace */
	char *initf = xasprintf("%s/init.pid", vm->dir);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 128);
	pid_t init = 0;
	unsigned long long start = 0;
	int ip = 0;
	if (strbuf_read_file(&sb, initf) == 0 && sb.buf &&
	    sscanf(sb.buf, "%d %llu", &ip, &start) == 2 && local_pid_start(ip) == start)
		init = ip;
	strbuf_release(&sb);
	free(initf);
	nb = local_sshd_pids(prefix, init, &b);
	free(prefix);
	pid_t *all = xcalloc(na + nb + 1, sizeof(*all));
	size_t n = 0;
	for (size_t i = 0; i < na; i++)
		all[n++] = a[i];
	for (size_t i = 0; i < nb; i++) {
		bool dup = false;
		for (size_t j = 0; j < na; j++)
			dup = dup || a[j] == b[i];
		if (!dup)
			all[n++] = b[i];
	}
	free(a);
	free(b);
	*out = all;
	return n;
}

int local_vm_kill(struct local_ctx *c, const struct local_vm *vm, struct diag *d)
{
	(void)c;
	union { const struct local_vm *c; void *m; } arg = { .c = vm };
	if (local_end_all(vm_procs, arg.m) == 0)
		return 0;
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d: its processes survive SIGKILL", vm->num);
	return -1;
}

bool local_sshd_running(const struct local_vm *vm)
{
	char *pidf = xasprintf("%s/sshd.pid", vm->dir);
	char *prefix = xasprintf("%s/", vm->dir);
	pid_t p = local_read_pidfile(pidf);
	/* the pid file may outlive its sshd, and the pid go to another process */
	bool r = local_pid_alive(p) && local_pid_is_sshd(p, prefix);
	free(prefix);
	free(pidf);
	return r;
}

int local_sshd_settle(const struct local_vm *vm, double timeout)
{
	char *pidf = xasprintf("%s/sshd.pid", vm->dir);
	pid_t p = local_read_pidfile(pidf);
	free(pidf);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t *kids = NULL;
		size_t n = p > 0 ? local_child_pids(p, &kids) : 0;
		free(kids);
		if (n == 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 > timeout)
			return -1;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

char *local_host_pubkey(const struct local_vm *vm)
{
	char *key = xasprintf("%s/ssh_host_ed25519_key", vm->dir);
	struct diag d = DIAG_INIT;
	char *pub = sshkey_read_public(key, &d);
	diag_release(&d);
	free(key);
	return pub;
}

int local_vm_join_cgroups(const struct local_vm *vm, const struct local_cgroups *cgs,
			  struct diag *d)
{
	union { const struct local_vm *c; void *m; } arg = { .c = vm };
	/* twice: a process forked while the first pass ran joins its parent's
	 * old cgroup, and is moved by the second */
	for (int pass = 0; pass < 2; pass++) {
		pid_t *pids = NULL;
		size_t n = vm_procs(arg.m, &pids);
		for (size_t k = 0; k < cgs->n; k++) {
			char *procs = xasprintf("%s/cgroup.procs", cgs->dir[k]);
			for (size_t i = 0; i < n; i++) {
				char num[32];
				int len = snprintf(num, sizeof(num), "%d\n", (int)pids[i]);
				struct diag tmp = DIAG_INIT;
				/* a process that ended meanwhile cannot be moved: that is fine */
				if (local_rewrite_file(procs, num, (size_t)len, &tmp) < 0 &&
				    local_pid_alive(pids[i])) {
					diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
						   "VM %d: cannot move process %d into cgroup '%s'", vm->num,
						   (int)pids[i], cgs->dir[k]);
					diag_release(&tmp);
					free(procs);
					free(pids);
					return -1;
				}
				diag_release(&tmp);
			}
			free(procs);
		}
		free(pids);
	}
	return 0;
}
