/* conn.h: the connection every module goes through to reach a node: one
 * exec call (a /bin/sh -c command line with stdin, its status and output
 * captured up to CONN_OUTPUT_CAP), implemented by the local connection
 * (conn-local.c) and SSH (conn-ssh.c, through a persistent shell per host,
 * conn-pshell.c), and the shell quoting every command line is built with. A task_conn is owned by its task_host. */
#ifndef IMC_PROVISION_CONN_CONN_H
#define IMC_PROVISION_CONN_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include "util/diag.h"
#include "util/strbuf.h"

#define CONN_OUTPUT_CAP (64u << 20) /* bytes kept of a command's stdout/stderr */

struct conn_result {
	int rc;             /* exit status, or 128 + signal */
	struct strbuf out;
	struct strbuf err;
};

struct task_conn;

struct task_conn_ops {
	const char *name;
	/* Runs cmd with /bin/sh -c semantics on the node, feeding in[0..inlen)
	 * on stdin. Returns 0 when the command ran (whatever its status), -1
	 * when the node could not be reached (d set). */
	int (*exec)(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
		    struct conn_result *r, struct diag *d);
	/* The same with the node's login shell interpreting cmd on a channel
	 * of its own, whatever it prints first included (raw); NULL when exec
	 * already does that. */
	int (*exec_login)(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
			  struct conn_result *r, struct diag *d);
	void (*close)(struct task_conn *c);
};

struct task_conn {
	const struct task_conn_ops *ops;
	char *user;        /* login user (for become decisions) */
	bool is_root;      /* login user is root: become root needs no sudo */
	/* commands run so far (round trips to the node), counted by
	 * conn_count(); read with conn_round_trips() for the debug log and
	 * bench figures: a task's cost on a node is mostly its round trips */
	unsigned long round_trips;
	/* conn-memo.c's remembered file contents (NULL until one is kept) */
	struct conn_memo *memo;
	void *priv;
};

void conn_result_init(struct conn_result *r);
void conn_result_release(struct conn_result *r);

struct task_conn *conn_local_open(void);

struct conn_ssh_opts {
	const char *host;
	int port;
	const char *user;
	const char *key_path;
	const char *pinned_key;   /* "TYPE BASE64" or NULL */
	int timeout;              /* seconds to wait for SSH to come up (0 = one try) */
	/* called with the server key when nothing was pinned */
	void (*on_hostkey)(void *opaque, const char *key);
	void *opaque;
};
struct task_conn *conn_ssh_open(const struct conn_ssh_opts *o, struct diag *d);
/* Where an SSH connection goes (host, port, user, key and the host key
 * pinned on first contact, borrowed from c: valid while c is open), for
 * a program that must reach the same node the same way (Ansible, for a
 * task imc runs through it). -1 when c is not an SSH connection. */
int conn_ssh_target(struct task_conn *c, struct conn_ssh_opts *o);

void conn_close(struct task_conn *c);

/* Counts one command sent to the node (each implementation's exec calls
 * it), and reads the count; safe from several threads (a connection is
 * shared by the tasks delegated to its host). */
void conn_count(struct task_conn *c);
unsigned long conn_round_trips(struct task_conn *c);

/* The node's file contents a module last read or wrote whole (conn-memo.c):
 * kept by path (small files, a few paths), recalled as a guess to be
 * checked on the node against its sum (SHA-1 hex) before anything relies
 * on it; forgotten when a write of the path failed. Thread-safe. */
void conn_memo_keep(struct task_conn *c, const char *path, const void *data, size_t len);
bool conn_memo_recall(struct task_conn *c, const char *path, struct strbuf *data, char sum[41]);
void conn_memo_forget(struct task_conn *c, const char *path);
/* Frees c's memo (conn_close does). */
void conn_memo_free(struct task_conn *c);

#endif
