/* conn-pshell.h: one persistent /bin/sh per SSH session (conn-pshell.c),
 * so that the node's login shell is paid once per host instead of once per
 * command. Internal to the SSH connection (conn-ssh.c). */
#ifndef IMC_PROVISION_CONN_PSHELL_H
#define IMC_PROVISION_CONN_PSHELL_H

#include <libssh/libssh.h>

#include "provision/conn/conn.h"

/* Largest stdin a command may be given through the persistent shell (it
 * travels base64-encoded inside the shell's input, unless the shell is
 * framed); larger ones go over a channel of their own. */
#define PSHELL_MAX_STDIN ((size_t)4 << 20)
/* The same when the shell is framed (no encoding: the bytes as they are,
 * held in the node's memory until written to a file). */
#define PSHELL_MAX_STDIN_FRAMED ((size_t)64 << 20)

struct pshell;

/* Starts the shell on a new channel of s. NULL when the node cannot carry
 * it (no base64(1), no temporary directory...): the caller then runs every
 * command over a channel of its own, as before. */
struct pshell *pshell_open(ssh_session s, const char *host);

/* The largest stdin pshell_exec carries on this shell. */
size_t pshell_max_stdin(const struct pshell *ps);

/* Runs cmd as `/bin/sh -c cmd` in a child of the persistent shell, stdin
 * from in[0..inlen) (or /dev/null), stdout/stderr captured exactly, rc its
 * status (128 + signal when killed). Returns 0 when the command ran, 1
 * when it was certainly not started (the caller may run it another way),
 * -1 when the shell broke while it ran (d set). After anything but 0 the
 * shell is unusable: close it. */
int pshell_exec(struct pshell *ps, const char *cmd, const void *in, size_t inlen,
		struct conn_result *r, struct diag *d);

void pshell_close(struct pshell *ps);

#endif
