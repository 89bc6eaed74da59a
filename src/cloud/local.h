/* local.h: internals shared by the files of the 'local' cloud backend
 * (local*.c). Not a public interface: the rest of imc sees only the
 * cloud_local table (registered in cloud.c).
 *
 * Two modes:
 *  - netns (root): each VM is a network namespace "imc-TAG-NUM" with one veth
 *    per NIC into a per-infrastructure, per-RADL-network bridge, its own UTS
 *    and mount namespace (hostname, /etc/hosts from /etc/netns/NAME/) and its
 *    own sshd on port 22;
 *  - rootless: each VM is an sshd of the invoking user on its own loopback
 *    address 127.x.y.z and port, sharing the host's network.
 *
 * Naming (crash safety, cloud.h): TAG is the first 8 hex digits of the
 * infrastructure id. Namespaces are "imc-TAG-NUM", bridges "imcTAG-HHH"
 * (HHH from a hash of the network name, the full infra id and network name in
 * the bridge's alias), host-side veths "imcTAG" + 3 base-36 digits of the VM
 * number + 1 of the NIC index. Every link of an infrastructure thus starts
 * with "imcTAG", every namespace with "imc-TAG-". Files live under
 * $IMC_HOME/infra/ID/vm/NUM/ and $IMC_HOME/infra/ID/local/. */
#ifndef IMC_CLOUD_LOCAL_H
#define IMC_CLOUD_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cloud/cloud.h"
#include "util/diag.h"
#include "util/strbuf.h"

#define LOCAL_TAG_LEN 8
#define LOCAL_IFNAMSIZ 16
#define LOCAL_MAX_NICS 36
#define LOCAL_MAX_VMNUM 46655 /* 3 base-36 digits */
#define LOCAL_LOG "local"

enum local_mode { LOCAL_NETNS, LOCAL_ROOTLESS };

/* Per-operation context, derived from the session (cheap to build). */
struct local_ctx {
	struct cloud_session *s;
	enum local_mode mode;
	char tag[LOCAL_TAG_LEN + 1];
	char *infra_dir;  /* $IMC_HOME/infra/ID */
	char *local_dir;  /* $IMC_HOME/infra/ID/local */
	char *run_dir;    /* machine-wide lock and claims */
};

/* A network as the backend sees it. */
struct local_net {
	char *name;
	bool public;
	char bridge[LOCAL_IFNAMSIZ]; /* "" in rootless mode */
	uint32_t base;               /* subnet address, host order */
	int prefix;
};

struct local_nic {
	int index;
	char *net;
	char *ip;
	int prefix;
	char *host;   /* dns host part, or NULL */
	char *domain; /* or NULL */
	char bridge[LOCAL_IFNAMSIZ];
	char veth[LOCAL_IFNAMSIZ];
	bool public;
};

/* What the backend knows of one VM (kept in vm/NUM/info). */
struct local_vm {
	int num;
	enum local_mode mode;
	char *netns;
	char *dir;
	char *hostname;
	char *domain;
	char *user;   /* login user (netns: root or an alias of root) */
	int port;
	int cpus;
	long long memory;
	struct local_nic *nics;
	size_t nnics;
};

/* local.c helpers */
int local_ctx_init(struct local_ctx *c, struct cloud_session *s, struct diag *d);
void local_ctx_release(struct local_ctx *c);

/* local-name.c */
int local_tag(const char *infra_id, char tag[LOCAL_TAG_LEN + 1], struct diag *d);
char *local_netns_name(const char *tag, int num);
void local_bridge_name(const char *tag, unsigned h, char out[LOCAL_IFNAMSIZ]);
void local_veth_name(const char *tag, int num, int nic, char out[LOCAL_IFNAMSIZ]);
/* Prefix shared by every host-side veth of VM num ("imcTAG" + 3 digits). */
void local_veth_prefix(const char *tag, int num, char out[LOCAL_IFNAMSIZ]);
char *local_vm_dir(const struct local_ctx *c, int num);
bool local_valid_word(const char *s, size_t max);
unsigned local_hash(const char *s);
int local_rmtree(const char *path);
int local_write_file(const char *path, const char *data, size_t len, mode_t mode,
		     struct diag *d);
/* Rewrites a file in place (same inode: bind mounts of it see the change). */
int local_rewrite_file(const char *path, const char *data, size_t len, struct diag *d);
/* Takes an exclusive flock on path (created 0600); returns the fd or -1. */
int local_lock(const char *path, struct diag *d);
void local_unlock(int fd);
char *local_ip_str(uint32_t ip);
int local_parse_cidr(const char *s, uint32_t *base, int *prefix);
/* Whether base/prefix lies in an RFC 1918 private range. */
bool local_is_private(uint32_t base, int prefix);

/* local-run.c: run a program with an argv array (never a shell), optional
 * stdin text; stdout and stderr captured into out (capped) when given. */
int local_run(const char *const *argv, const char *input, struct strbuf *out,
	      struct diag *d);

/* local-proc.c: processes */
/* Pids of the processes whose network namespace is the one bound at
 * /run/netns/NAME. */
size_t local_netns_pids(const char *netns, pid_t **pids);
/* Pids of sshd processes started with a config under dir_prefix (NULL:
 * none), of root (0: none), and of all their descendants. */
size_t local_sshd_pids(const char *dir_prefix, pid_t root, pid_t **pids);
/* true when pid is an sshd started with a config under dir_prefix. */
bool local_pid_is_sshd(pid_t pid, const char *dir_prefix);
/* Pids of the children of parent (zombies included: not reaped yet). */
size_t local_child_pids(pid_t parent, pid_t **pids);
/* Ends each pid (SIGTERM, 2 s of grace, SIGKILL), never hitting a process
 * that took a pid over, and waits until each is dead and reaped: 0, or -1
 * when one survives SIGKILL. */
int local_kill_pids(const pid_t *pids, size_t n);
/* Ends what collect(arg) lists, lists again and ends that, until collect
 * finds nothing (processes forked meanwhile): 0, or -1 when processes are
 * still there after 8 rounds. */
int local_end_all(size_t (*collect)(void *arg, pid_t **pids), void *arg);
bool local_pid_alive(pid_t pid);
/* Start time of a live pid (clock ticks since boot), 0 when there is none. */
unsigned long long local_pid_start(pid_t pid);
pid_t local_read_pidfile(const char *path);

/* local-net.c */
int local_net_ensure(struct local_ctx *c, const char *name, const bool *public,
		     const char *cidr, struct local_net *out, struct diag *d);
int local_net_lookup(struct local_ctx *c, const char *name, struct local_net *out);
void local_net_release(struct local_net *n);
/* Creates the namespaces and veths of vms (one ip -batch); sets failed[i]
 * for each VM that could not be plumbed. */
int local_net_plumb(struct local_ctx *c, struct local_vm *vms, size_t n, bool *failed,
		    struct diag *d);
/* Addresses and links inside one VM's namespace. */
int local_net_configure_vm(struct local_ctx *c, const struct local_vm *vm, struct diag *d);
/* Removes the veths and namespace of VM num (idempotent). */
int local_net_remove_vm(struct local_ctx *c, int num, struct diag *d);
/* Removes bridges of the infrastructure with no VM attached (all when
 * all is true). */
int local_net_gc(struct local_ctx *c, bool all, struct diag *d);
/* Removes every namespace and link whose name carries the infra's tag. */
int local_net_cleanup(struct local_ctx *c, struct diag *d);
int local_net_destroy(struct local_ctx *c, const char *name, struct diag *d);

/* local-vmfile.c: the vm/NUM/info file */
int local_vm_save(const struct local_vm *vm, struct diag *d);
int local_vm_load(const char *dir, struct local_vm *vm);
void local_vm_release(struct local_vm *vm);
/* Loads every VM of the infrastructure (vm/ * /info). */
size_t local_vm_load_all(const struct local_ctx *c, struct local_vm **vms);
/* Writes /etc/hosts of every VM of the infrastructure (or their own
 * hosts files in rootless mode), each as that VM sees the others. */
int local_hosts_update(struct local_ctx *c, struct diag *d);
char *local_hosts_path(const struct local_vm *vm);

/* local-sshd.c */
/* 0 when the sshd binary can be run, else -1 with d set. */
int local_sshd_check(struct diag *d);
int local_sshd_prepare(struct local_ctx *c, const struct local_vm *vm, struct diag *d);
int local_sshd_start(struct local_ctx *c, const struct local_vm *vm, struct diag *d);
/* Ends every process of the VM (sshd and what runs under it) and returns
 * once they are gone: 0, or -1 with d set when one survives SIGKILL. */
int local_vm_kill(struct local_ctx *c, const struct local_vm *vm, struct diag *d);
/* true when the VM's pid file names a live sshd of this VM. */
bool local_sshd_running(const struct local_vm *vm);
struct local_cgroups;
/* Moves every process of the VM into each of cgs (alter of a VM started
 * without limits). */
int local_vm_join_cgroups(const struct local_vm *vm, const struct local_cgroups *cgs,
			  struct diag *d);
/* Waits until the VM's sshd has no session process (the readiness probe's
 * connection gone), at most timeout seconds: 0, or -1 at the timeout. */
int local_sshd_settle(const struct local_vm *vm, double timeout);
char *local_host_pubkey(const struct local_vm *vm);

/* local-ready.c: waits until the VM's sshd accepts pubkey (OpenSSH line)
 * for root/the user, with the host key the backend generated. */
int local_wait_ready(const struct local_vm *vm, const char *user, const char *pubkey,
		     double timeout, struct diag *d);

/* local-cgroup.c: cpu/memory limits, cgroup v2 or v1 per controller. */
#define LOCAL_CG_MAX 3
/* The cgroup directories a VM's processes join (one per hierarchy). */
struct local_cgroups {
	char *dir[LOCAL_CG_MAX];
	size_t n;
};
/* Creates (or updates) the VM's cgroups with vm->cpus and vm->memory as
 * limits (0 = none) and fills cgs with the directories to join. Returns 0
 * when applied or nothing asked; 1 when a limit could not be applied (note
 * set, cgs holds what could be). */
int local_cgroup_setup(struct local_ctx *c, const struct local_vm *vm, struct local_cgroups *cgs,
		       char **note);
void local_cgroups_release(struct local_cgroups *cgs);
/* Remove the VM's (the infrastructure's) cgroups: 0 once they are gone. */
int local_cgroup_remove(const char *tag, int num, struct diag *d);
int local_cgroup_cleanup(const char *tag, struct diag *d);

#endif
