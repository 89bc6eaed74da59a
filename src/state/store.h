/* store.h: the state store, an SQLite database (WAL mode) at
 * $IMC_HOME/imc.db holding every infrastructure imc manages: its RADL, its
 * VMs and networks with their cloud ids and addresses, the contextualization
 * steps with their timings, the logs (contmsg), pinned host keys, the
 * backend's private data and the outputs fetched back.
 *
 * Crash safety: callers write the intent of an action (a VM row in
 * 'pending', a network row without a cloud id) in its own transaction before
 * calling the cloud, and the result after; each write here is one
 * transaction unless the caller wraps several in state_begin/state_commit.
 * Concurrency: several imc processes share the database; busy_timeout makes
 * writers queue instead of failing, and changes to one infrastructure are
 * serialised by state_lock_infra() (an flock on $IMC_HOME/infra/ID/lock,
 * released when its holder exits, however it exits).
 *
 * Ownership: every struct filled by a getter owns its strings; release it
 * with the matching _release function (which accepts zeroed structs). */
#ifndef IMC_STATE_STORE_H
#define IMC_STATE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "state/vmstate.h"
#include "util/diag.h"
#include "util/strbuf.h"

#define STATE_SCHEMA_VERSION 2

struct state_store;

/* Where the deployment worker of an infrastructure stands. */
enum infra_phase {
	PHASE_NEW,         /* stored, worker not started yet */
	PHASE_CREATING,    /* worker creating networks and VMs */
	PHASE_CONFIGURING, /* worker running the contextualization */
	PHASE_DONE,        /* worker finished (VM states say how it went) */
	PHASE_INTERRUPTED, /* worker died before finishing (found dead) */
	PHASE_DESTROYING,  /* destroy in progress */
};
const char *infra_phase_name(enum infra_phase p);

struct state_infra {
	char *id;
	double created;       /* unix time */
	char *radl;           /* the RADL text it was created from (after @input substitution) */
	char *radl_path;      /* absolute path of that file, for roles next to it; may be NULL */
	char *cloud;          /* --cloud override, or NULL */
	char *extra_vars;     /* JSON object of -e KEY=VALUE, or NULL */
	char *auth_path;      /* auth file used at creation, or NULL (embedded local cloud) */
	enum infra_phase phase;
	pid_t worker_pid;     /* 0 = none */
	long long worker_start; /* start time of worker_pid (/proc/PID/stat field 22) */
	int next_vm;          /* next VM number (numbers are never reused) */
	int ctxt_max;         /* contextualize MAX seconds, 0 = none */
	bool deleted;         /* destroyed (tombstone kept so destroy is idempotent) */
	char *owner;          /* `imc serve`: "SALT$SHA256" of its creator's credentials
			       * (server/auth.c), or NULL (created by the CLI) */
	char *summary;        /* deleted: JSON of what it had (deploy/stats.c), or NULL */
};

struct state_vm {
	char *infra_id;
	int num;
	char *system;
	char *cloud;          /* backend name (auth type): "dummy", "local", "ec2" */
	char *cloud_cred;     /* auth line id used, or NULL */
	enum vm_state state;
	char *cloud_id;       /* backend's id, NULL until created */
	char *public_ip, *private_ip;
	int ssh_port;
	char *user;
	char *hostkey;        /* pinned "TYPE BASE64", or NULL */
	char *spec;           /* JSON of the planned VM (plan_vm_to_json) */
	char *nic_ips;        /* JSON array of NIC addresses by index, or NULL */
	char *data;           /* backend-private JSON, or NULL */
	char *note;
	double created;
	int ctxt;             /* contextualization outcome: -1 not yet, 0 failed, 1 ok */
};

struct state_net {
	char *infra_id;
	char *name;
	char *cloud;
	char *cloud_id;       /* NULL until created */
	char *cidr;
	bool public;
	char *outports;
	char *data;
};

enum step_status { STEP_PENDING, STEP_RUNNING, STEP_OK, STEP_FAILED, STEP_SKIPPED };
const char *step_status_name(enum step_status s);

struct state_step {
	int step;
	int vm;
	char *configure;
	enum step_status status;
	double started, ended; /* 0 = not yet */
	char *error;
};

struct state_output {
	char *name;
	char *path;
	char *value;
};

/* Opens (creating home 0700 and the database 0600, migrating the schema). */
struct state_store *state_open(const char *home, struct diag *d);
void state_close(struct state_store *st);
const char *state_home(const struct state_store *st);
/* $IMC_HOME from ctx value (may be NULL): $IMC_HOME, else ~/.imc; malloc'd. */
char *state_default_home(const char *home);
/* Makes $IMC_HOME/infra/ID (0700); returns the malloc'd path or NULL. */
char *state_infra_dir(const struct state_store *st, const char *id, struct diag *d);

int state_begin(struct state_store *st, struct diag *d);
int state_commit(struct state_store *st, struct diag *d);
void state_rollback(struct state_store *st);

/* Infrastructures. get returns 0, 1 when absent, -1 on error. A deleted
 * infrastructure is returned with deleted set. */
int state_infra_insert(struct state_store *st, const struct state_infra *in, struct diag *d);
int state_infra_get(struct state_store *st, const char *id, struct state_infra *out, struct diag *d);
/* Resolves a unique prefix of an id (like git); 1 when none, -1 when ambiguous (d set). */
int state_infra_resolve(struct state_store *st, const char *prefix, char **id, struct diag *d);
int state_infra_list(struct state_store *st, char ***ids, size_t *n, struct diag *d);
/* The same, with the deleted ones (tombstones) too when deleted_too. */
int state_infra_list_all(struct state_store *st, bool deleted_too, char ***ids, size_t *n, struct diag *d);
int state_infra_set_phase(struct state_store *st, const char *id, enum infra_phase p, struct diag *d);
int state_infra_set_worker(struct state_store *st, const char *id, pid_t pid, long long start, struct diag *d);
int state_infra_set_radl(struct state_store *st, const char *id, const char *radl, struct diag *d);
int state_infra_set_owner(struct state_store *st, const char *id, const char *owner, struct diag *d);
/* Reserves n VM numbers; *first is the first one. */
int state_infra_take_nums(struct state_store *st, const char *id, int n, int *first, struct diag *d);
/* Deletes everything of id but a tombstone row, which keeps summary (JSON
 * of what it had, or NULL). */
int state_infra_tombstone(struct state_store *st, const char *id, const char *summary, struct diag *d);
/* Forgets id entirely (export --delete, import rollback). */
int state_infra_forget(struct state_store *st, const char *id, struct diag *d);
/* The latest time anything of id was recorded (creation, a VM, a step's
 * end, a log line), unix time; 0 when id is absent. */
int state_infra_last_change(struct state_store *st, const char *id, double *at, struct diag *d);
void state_infra_release(struct state_infra *in);

/* VMs (ordered by number). */
int state_vm_insert(struct state_store *st, const struct state_vm *vm, struct diag *d);
/* Writes every column of vm (by infra_id, num). */
int state_vm_update(struct state_store *st, const struct state_vm *vm, struct diag *d);
int state_vm_set_state(struct state_store *st, const char *id, int num, enum vm_state s, struct diag *d);
int state_vm_set_hostkey(struct state_store *st, const char *id, int num, const char *key, struct diag *d);
int state_vm_get(struct state_store *st, const char *id, int num, struct state_vm *out, struct diag *d);
int state_vm_list(struct state_store *st, const char *id, struct state_vm **vms, size_t *n, struct diag *d);
int state_vm_delete(struct state_store *st, const char *id, int num, struct diag *d);
void state_vm_release(struct state_vm *vm);
void state_vm_list_free(struct state_vm *vms, size_t n);

/* Networks. */
int state_net_upsert(struct state_store *st, const struct state_net *net, struct diag *d);
int state_net_list(struct state_store *st, const char *id, struct state_net **nets, size_t *n, struct diag *d);
int state_net_delete(struct state_store *st, const char *id, const char *name, struct diag *d);
void state_net_list_free(struct state_net *nets, size_t n);

/* Contextualization steps: one row per (step, VM, configure). */
int state_step_clear(struct state_store *st, const char *id, struct diag *d);
int state_step_set(struct state_store *st, const char *id, const struct state_step *s, struct diag *d);
/* Sets status (and started/ended when running/finished) of every row of (step, vm). */
int state_step_mark(struct state_store *st, const char *id, int step, int vm, enum step_status status,
		    const char *error, struct diag *d);
int state_step_list(struct state_store *st, const char *id, struct state_step **steps, size_t *n, struct diag *d);
void state_step_list_free(struct state_step *steps, size_t n);

/* Task results reported by the provisioner. */
int state_task_add(struct state_store *st, const char *id, int vm, int step, const char *task,
		   const char *status, const char *msg, struct diag *d);

/* Logs (contmsg). vm = -1: the infrastructure's own log. Text is stored
 * already redacted. */
int state_log_add(struct state_store *st, const char *id, int vm, const char *text, struct diag *d);
/* Appends the log (vm = -1: infrastructure; vm = -2: everything) to out,
 * each entry prefixed with its time. */
int state_log_get(struct state_store *st, const char *id, int vm, struct strbuf *out, struct diag *d);
/* Calls fn with every log entry of id (of every VM and the infrastructure's
 * own, vm -1) recorded after entry *seq, in order, and leaves *seq at the
 * last one: a follower starting at 0 sees each entry once. */
int state_log_each_since(struct state_store *st, const char *id, long long *seq,
			 void (*fn)(void *opaque, int vm, const char *text), void *opaque, struct diag *d);

/* Outputs. */
int state_output_set(struct state_store *st, const char *id, const char *name, const char *path,
		     const char *value, struct diag *d);
int state_output_list(struct state_store *st, const char *id, struct state_output **outs, size_t *n,
		      struct diag *d);
void state_output_list_free(struct state_output *outs, size_t n);

/* Per-infrastructure lock (flock). wait=false: returns 1 when held by
 * another process. Returns the fd (>= 0) through *fd. */
int state_lock_infra(struct state_store *st, const char *id, bool wait, int *fd, struct diag *d);
void state_unlock_infra(int fd);

/* Infrastructure state from its VMs' states, independent of their order:
 * see vm_state_aggregate() in vmstate.h. */

/* Start time of a process (field 22 of /proc/PID/stat), or -1 when absent. */
long long state_proc_start_time(pid_t pid);
/* True when pid is alive and started at start (the worker we recorded). */
bool state_worker_alive(pid_t pid, long long start);

#endif
