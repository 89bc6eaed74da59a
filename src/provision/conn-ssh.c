/* conn-ssh.c: the SSH connection (placeholder while the libssh one lands). */
#include "config.h"

#include "provision/task.h"
#include "util/banned.h"

struct task_conn *conn_ssh_open(const struct conn_ssh_opts *o, struct diag *d)
{
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: ssh connection not built yet", o->host);
	return NULL;
}
