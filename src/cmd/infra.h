/* infra.h: what the commands acting on infrastructures share: the auth
 * file, recovering from
 * a deployment worker that died, cloud sessions, and printing --json
 * documents. The deployment worker itself is in worker.h. */
#ifndef IMC_CMD_INFRA_H
#define IMC_CMD_INFRA_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cloud/auth.h"
#include "cloud/cloud.h"
#include "cmd/cmd.h"
#include "parser/radl.h"
#include "state/store.h"
#include "util/diag.h"

/* The auth file: path (-a), else stored (the one used at creation), else
 * $IMC_HOME/auth.dat when it exists, else none (*af = NULL: the embedded
 * local cloud). *used gets the path actually read (malloc'd) or NULL. */
int infra_auth(struct imc_ctx *ctx, const char *home, const char *stored, struct auth_file **af,
	       char **used, struct diag *d);

/* When the infrastructure's deployment worker died (its lock is free while
 * the phase says it is working), records the truth: VMs whose creation was
 * never confirmed become 'failed', VMs whose contextualization never ended
 * 'unconfigured', the phase 'interrupted'. in is refreshed. */
int infra_recover(struct state_store *st, struct state_infra *in, struct diag *d);
/* Asks the clouds how the VMs are (vm_update), when no worker or command
 * holds the infrastructure: a VM found stopped, off or unknown is recorded
 * so; a running one keeps its contextualization outcome. Clouds that
 * cannot be reached leave the stored states alone (a warning in d). */
int infra_refresh(struct imc_ctx *ctx, struct state_store *st, const struct state_infra *in,
		  struct diag *d);
/* The infrastructure's state (vm_state_aggregate; deleting while
 * destroying; pending while the worker starts; failed when it has no VMs). */
enum vm_state infra_state(const struct state_infra *in, const struct state_vm *vms, size_t n);

/* A cloud session for (cloud, cred id) of an infrastructure. */
int infra_cloud_open(struct state_store *st, const struct state_infra *in, const char *cloud,
		     const char *cred_id, const struct auth_file *af, struct cloud_session *s,
		     struct diag *d);
void infra_cloud_close(struct cloud_session *s);
/* Cloud sessions opened on demand, one per (cloud, cred id) pair met. */
struct infra_sessions {
	struct cloud_session *s;
	char **keys;
	char **err;             /* NULL when s[i] is open, else why not */
	enum imc_exit *code;
	size_t n;
};
/* The session for (cloud, cred_id), opened at the first call; NULL when it
 * could not be opened, at every call, with the reason in *err (owned by c)
 * and, when code is not NULL, the exit status it suggests in *code. */
struct cloud_session *infra_session(struct infra_sessions *c, struct state_store *st,
				    const struct state_infra *in, const char *cloud,
				    const char *cred_id, const struct auth_file *af, const char **err,
				    enum imc_exit *code);
void infra_sessions_free(struct infra_sessions *c);
/* A cloud_vm for a stored VM: strings borrowed from vm and from *spec
 * (parsed from vm->spec; the caller json_decref()s it and calls
 * infra_cloud_vm_release). */
void infra_cloud_vm(const struct state_vm *vm, json_t **spec, struct cloud_vm *cv);
void infra_cloud_vm_release(struct cloud_vm *cv);
/* Copies what the backend set in cv into vm (state, ids, addresses, data). */
void infra_vm_take(struct state_vm *vm, const struct cloud_vm *cv);

/* Reads a RADL (or RADL-JSON) file, substitutes @input.KEY@ from vars
 * (asking on a terminal when interactive), parses and checks it. *text
 * gets the substituted text (malloc'd). NULL with d set on error. */
struct radl_doc *infra_load_radl(const char *path, json_t *vars, bool interactive, char **text,
				 struct diag *d);
/* The same without the semantic checks: for a file that refers to an
 * infrastructure's sentences, checked once merged with them. */
struct radl_doc *infra_load_radl_unchecked(const char *path, json_t *vars, bool interactive, char **text,
					   struct diag *d);
/* The stored RADL of an infrastructure, parsed (NULL with d set). */
struct radl_doc *infra_radl(const struct state_infra *in, struct diag *d);
/* A JSON array of the VMs' specs completed with their addresses (the input
 * of plan-vars.c). */
json_t *infra_vm_specs(const struct state_vm *vms, size_t n);

/* Prints the state of infrastructure id in IM's words ("The infrastructure
 * is in state: S", "VM ID: N is in state: S.") with the contextualization
 * steps and their durations; with --json {"state": {"state": S,
 * "vm_states": {"N": S}}, "steps": [...]}. */
int infra_print_state(struct imc_ctx *ctx, struct state_store *st, const char *id, bool with_id,
		      struct diag *d);
/* Step rows as text lines ("  step N: VM n configure C: ok (1.2 s)"). */
void infra_print_steps(struct strbuf *sb, double created, const struct state_step *steps, size_t n);
json_t *infra_steps_json(double created, const struct state_step *steps, size_t n);

/* One VM as IM's getvminfo shows it: the networks it connects to and its
 * system with the runtime features set (state, provider.type,
 * instance_id, the expanded dns names, net_interface.N.ip,
 * disk.0.os.credentials.username). Never a private key or password.
 * Appends RADL text to sb (may be NULL); *json (may be NULL) gets
 * {"id", "state", "radl": RADL-JSON array}; with attr, *value gets that
 * feature's value (malloc'd, NULL when unset). */
int infra_vm_info(const struct radl_doc *doc, const struct state_vm *vm, const char *attr,
		  struct strbuf *sb, json_t **json, char **value, struct diag *d);

/* cli_json_doc and cli_json_print (cmd/cli.h), for infra_print_state. */
json_t *infra_json_doc(void);
void infra_json_print(json_t *doc);

/* A new infrastructure id (random UUID, version 4). Malloc'd. */
char *infra_new_id(void);
/* The per-infrastructure private key path ($IMC_HOME/infra/ID/id_ed25519). */
char *infra_key_path(const char *home, const char *id);

/* Cloud-side teardown of every VM and network of the infrastructure, then
 * cleanup_infra per cloud; rows of what was removed are deleted. With
 * force, failures are reported as warnings and the rows deleted anyway. */
int infra_teardown(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		   bool force, struct diag *d);
/* Removes $IMC_HOME/infra/ID (keys, logs, outputs). */
void infra_remove_dir(const char *home, const char *id);

#endif
