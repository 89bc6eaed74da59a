/* deploy.h: the deployment engine, what turns a stored infrastructure into
 * networks and VMs on clouds and back: cloud sessions, recovery from a
 * worker that died, asking the clouds how the VMs are, start/stop/reboot
 * of a VM, teardown, loading RADL inputs, and the reports a command or a
 * server shows. The detached deployment worker is in deploy/spawn.h, the
 * recipes it runs in deploy/recipes.h.
 *
 * Nothing here knows the command line: what a command got from its options
 * (the auth file given with -a, --json) comes in as arguments, errors go to
 * a struct diag, and reports are built into a strbuf or a JSON document the
 * caller prints. */
#ifndef IMC_DEPLOY_DEPLOY_H
#define IMC_DEPLOY_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cloud/auth.h"
#include "cloud/cloud.h"
#include "parser/radl.h"
#include "state/store.h"
#include "util/diag.h"
#include "util/exitcode.h"
#include "util/strbuf.h"

/* ---- inputs (deploy/auth.c, deploy/radl.c, deploy/ids.c) ---- */

/* The auth file: given (-a), else stored (the one used at creation), else
 * HOME/auth.dat when it exists, else none (*af = NULL: the embedded local
 * cloud). *used gets the path actually read (malloc'd) or NULL. */
int deploy_auth(const char *given, const char *home, const char *stored, struct auth_file **af,
		char **used, struct diag *d);

/* Reads a RADL (or RADL-JSON) file, substitutes @input.KEY@ from vars
 * (asking on a terminal when interactive), parses and checks it. *text
 * gets the substituted text (malloc'd). NULL with d set on error. */
struct radl_doc *deploy_load_radl(const char *path, json_t *vars, bool interactive, char **text,
				  struct diag *d);
/* The same without the semantic checks: for a file that refers to an
 * infrastructure's sentences, checked once merged with them. */
struct radl_doc *deploy_load_radl_unchecked(const char *path, json_t *vars, bool interactive, char **text,
					    struct diag *d);
/* The same for a RADL received as text (len bytes, a request's body, named
 * name in messages): never interactive; check: the semantic checks too. */
struct radl_doc *deploy_parse_radl(const char *name, const char *raw, size_t len, json_t *vars, bool check,
				   char **text, struct diag *d);
/* The stored RADL of an infrastructure, parsed (NULL with d set). */
struct radl_doc *deploy_radl(const struct state_infra *in, struct diag *d);

/* A new infrastructure id (random UUID, version 4). Malloc'd. */
char *deploy_new_id(void);
/* The per-infrastructure private key path (HOME/infra/ID/id_ed25519). */
char *deploy_key_path(const char *home, const char *id);
/* The per-infrastructure job secret (HOME/infra/ID/job.secret): 64 random
 * hex digits, 0600, that imc-train's tasks authenticate each other with.
 * Recipes get its path (never its content) as IMC_JOB_SECRET and copy it
 * to their VMs as they would a key. */
char *deploy_secret_path(const char *home, const char *id);
/* Creates it (refusing to overwrite) and registers its content as a
 * secret, so no log shows it. Returns 0 or -1 with d set. */
int deploy_secret_create(const char *path, struct diag *d);
/* Registers the content of an existing secret file as a secret (a
 * process that did not create it: the worker); a missing file is fine. */
void deploy_secret_register(const char *path);

/* Takes the lock of infrastructure id (waiting for it) and reads its row
 * again into *in: 0, or -1 with d set (66 when it no longer exists or was
 * destroyed; nothing held then). The caller releases *in and the lock. */
int deploy_lock_live(struct state_store *st, const char *id, int *lock, struct state_infra *in, struct diag *d);

/* ---- a new infrastructure (deploy/submit.c) ---- */

/* What deploy_submit needs: 'imc create' reads a file, `imc serve` passes
 * a request's body as text. */
struct deploy_submission {
	const char *file;      /* the RADL's name in messages; the file read when text is NULL */
	const char *text;      /* the RADL itself (len bytes, NUL-terminated), or NULL */
	size_t len;
	const char *cloud;     /* every VM to this cloud (--cloud), or NULL */
	json_t *vars;          /* @input.KEY@ values (may be NULL); missing ones asked when interactive */
	bool interactive;
	const char *auth_given;/* the auth file given (-a), or NULL: deploy_auth's lookup */
	const char *owner;     /* state_infra.owner, or NULL */
	bool catch_interrupt;  /* the caller follows: Ctrl-C stops following (deploy_follow_catch_interrupt) */
};
/* Validates and plans the RADL, checks its recipes, records the
 * infrastructure with its pending VMs and networks, generates its SSH key
 * and starts its deployment worker (deploy_spawn). *st is opened in home
 * when NULL, and reopened by the spawn. *id gets the new id (malloc'd)
 * once the worker runs. 0, or -1 with d set (nothing recorded when the
 * RADL, the plan or a recipe is wrong). */
int deploy_submit(const struct deploy_submission *req, const char *home, struct state_store **st, char **id,
		  struct diag *d);

/* Adds the VMs the RADL of req deploys to infrastructure id (req->owner
 * and req->cloud unused: the infrastructure's own are kept); req->vars
 * add to the stored @input values. Under the infrastructure's lock: the
 * VMs recorded pending with the next numbers, the stored RADL grown by
 * what was added, a worker started to create them and, unless
 * no_context, contextualize everything again. *st is reopened by the
 * spawn. *nums (malloc'd) gets the new VMs' numbers. 0, or -1 with d set
 * (nothing recorded). */
int deploy_add(struct state_store **st, const char *id, const struct deploy_submission *req, bool no_context,
	       int **nums, size_t *n, struct diag *d);

/* Removes VMs nums[0..nnums-1] of in (all must exist, else 66 and nothing
 * is touched): each deleted on its cloud, then its row; a VM its cloud
 * failed to delete stays (the error in d). The VMs left are
 * contextualized again by a worker when any is reachable over SSH, unless
 * no_context (*st is then reopened). *removed (malloc'd) gets the numbers
 * removed. 0 (check d for the VMs that failed), or -1 with d set. */
int deploy_remove(struct state_store **st, struct state_infra *in, const char *auth_given, const int *nums,
		  size_t nnums, bool no_context, int **removed, size_t *nremoved, struct diag *d);

/* Alters VM num of in as the first system of req's RADL says (cpu.count,
 * memory.size, gpu.count, instance_type), through its cloud's vm_alter,
 * under the infrastructure's lock; the store takes the new values once
 * the cloud applied them. *new_spec gets the VM's new spec (a reference).
 * 0 when done without error, else -1 with d set (66: no such VM; a change
 * that took effect with an error is stored and still -1). */
int deploy_alter(struct state_store *st, const struct state_infra *in, int num, const struct deploy_submission *req,
		 json_t **new_spec, struct diag *d);

/* Contextualizes infrastructure id again, on the VMs of the comma list vms
 * (NULL: all), after replacing its configures and contextualize by those
 * of req's RADL when it has one (req NULL, or without file and text:
 * none); the result is checked before it is stored. Under the
 * infrastructure's lock, until the worker is started (*st is reopened by
 * the spawn). 0, or -1 with d set (nothing changed). */
int deploy_reconfigure(struct state_store **st, const char *id, const struct deploy_submission *req,
		       const char *vms, struct diag *d);

/* ---- cloud sessions and VM rows (deploy/sessions.c, deploy/vms.c) ---- */

/* A cloud session for (cloud, cred id) of an infrastructure. */
int deploy_cloud_open(struct state_store *st, const struct state_infra *in, const char *cloud,
		      const char *cred_id, const struct auth_file *af, struct cloud_session *s,
		      struct diag *d);
void deploy_cloud_close(struct cloud_session *s);
/* Cloud sessions opened on demand, one per (cloud, cred id) pair met. */
struct deploy_sessions {
	struct cloud_session *s;
	char **keys;
	char **err;             /* NULL when s[i] is open, else why not */
	enum imc_exit *code;
	size_t n;
};
/* The session for (cloud, cred_id), opened at the first call; NULL when it
 * could not be opened, at every call, with the reason in *err (owned by c)
 * and, when code is not NULL, the exit status it suggests in *code. */
struct cloud_session *deploy_session(struct deploy_sessions *c, struct state_store *st,
				     const struct state_infra *in, const char *cloud,
				     const char *cred_id, const struct auth_file *af, const char **err,
				     enum imc_exit *code);
void deploy_sessions_free(struct deploy_sessions *c);

/* A cloud_vm for a stored VM: strings borrowed from vm and from *spec
 * (parsed from vm->spec; the caller json_decref()s it and calls
 * deploy_cloud_vm_release). */
void deploy_cloud_vm(const struct state_vm *vm, json_t **spec, struct cloud_vm *cv);
void deploy_cloud_vm_release(struct cloud_vm *cv);
/* Copies what the backend set in cv into vm (state, ids, addresses, data). */
void deploy_vm_take(struct state_vm *vm, const struct cloud_vm *cv);
/* A JSON array of the VMs' specs completed with their addresses (the input
 * of plan-vars.c). */
json_t *deploy_vm_specs(const struct state_vm *vms, size_t n);

/* ---- statistics (deploy/stats.c) ---- */

/* What in has, as IM's GET /stats counts it: a new object {vm_count,
 * cpu_count, memory_size (RADL's M, 10^6 bytes), cloud_type, cloud_host, hybrid, deleted,
 * last_date (unix time)}; the cloud named by the auth lines of af (NULL:
 * in's own auth file, when it is still there). A destroyed infrastructure
 * gives the figures its tombstone kept. NULL with d set on a store error. */
json_t *deploy_infra_stats(struct state_store *st, const struct state_infra *in, const struct auth_file *af,
			   struct diag *d);

/* ---- what happened to a deployment (deploy/recover.c, deploy/refresh.c) ---- */

/* When the infrastructure's deployment worker died (its lock is free while
 * the phase says it is working), records the truth: VMs whose creation was
 * never confirmed become 'failed', VMs whose contextualization never ended
 * 'unconfigured', the phase 'interrupted'. in is refreshed. */
int deploy_recover(struct state_store *st, struct state_infra *in, struct diag *d);
/* Asks the clouds how the VMs are (vm_update), when no worker or command
 * holds the infrastructure: a VM found stopped, off or unknown is recorded
 * so; a running one keeps its contextualization outcome. Clouds that
 * cannot be reached leave the stored states alone. auth_given is the auth
 * file the command was given (-a), or NULL (deploy_auth). */
int deploy_refresh(struct state_store *st, const struct state_infra *in, const char *auth_given,
		   struct diag *d);

/* ---- operations on VMs (deploy/vmops.c, deploy/teardown.c) ---- */

enum vmop { VMOP_START, VMOP_STOP, VMOP_REBOOT };
/* Starts, stops or reboots one VM through its cloud, recording the new
 * state and a log line. The caller holds the infrastructure's lock. A VM
 * that starts again comes back to the outcome its contextualization had. */
int deploy_vm_op(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		 struct state_vm *vm, enum vmop op, struct diag *d);
/* The same for VM num (num >= 0) or for every VM of in that is neither
 * failed nor off (num < 0), under the infrastructure's lock, with the
 * credentials deploy_auth finds from auth_given. -1 when d holds an error
 * afterwards (66 when in has no VM num). */
int deploy_vms_op(struct state_store *st, struct state_infra *in, const char *auth_given, int num, enum vmop op,
		  struct diag *d);
/* "started", "stopped" or "rebooted": the operation in messages. */
const char *deploy_vmop_verb(enum vmop op);

/* Cloud-side teardown of every VM and network of the infrastructure, then
 * cleanup_infra per cloud; rows of what was removed are deleted. With
 * force, failures are reported as warnings and the rows deleted anyway. */
int deploy_teardown(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		    bool force, struct diag *d);
/* Destroys infrastructure id (the whole id, resolved by the caller): its
 * worker cancelled, deploy_teardown, a tombstone row, its directory
 * removed. auth_given as for deploy_auth. Idempotent: *already is set when
 * it was destroyed before (0 returned). With force, what a cloud could not
 * delete is reported as warnings and forgotten. 0, or -1 with d set. */
int deploy_destroy(struct state_store *st, const char *id, const char *auth_given, bool force, bool *already,
		   struct diag *d);
/* Removes HOME/infra/ID (keys, logs, outputs). */
void deploy_remove_dir(const char *home, const char *id);

/* ---- reports (deploy/report.c) ---- */

/* The infrastructure's state (vm_state_aggregate; deleting while
 * destroying; pending while the worker starts; failed when it has no VMs). */
enum vm_state deploy_state(const struct state_infra *in, const struct state_vm *vms, size_t n);
/* The state of infrastructure id in IM's words ("The infrastructure is in
 * state: S", "VM ID: N is in state: S.") with the contextualization steps
 * and their durations, appended to text; or, when doc is not NULL, added
 * to it instead: {"id" (with_id), "state": {"state": S, "vm_states":
 * {"N": S}}, "phase", "steps": [...]}. */
int deploy_state_report(struct state_store *st, const char *id, bool with_id, json_t *doc,
			struct strbuf *text, struct diag *d);
/* Step rows as text lines ("  step N: VM n configure C: ok (1.2 s)"). */
void deploy_steps_text(struct strbuf *sb, double created, const struct state_step *steps, size_t n);
json_t *deploy_steps_json(double created, const struct state_step *steps, size_t n);
/* One VM as IM's getvminfo shows it: the networks it connects to and its
 * system with the runtime features set (state, provider.type,
 * instance_id, the expanded dns names, net_interface.N.ip,
 * disk.0.os.credentials.username). Never a private key or password.
 * Appends RADL text to sb (may be NULL); *json (may be NULL) gets
 * {"id", "state", "radl": RADL-JSON array}; with attr, *value gets that
 * feature's value (malloc'd, NULL when unset). */
int deploy_vm_info(const struct radl_doc *doc, const struct state_vm *vm, const char *attr,
		   struct strbuf *sb, json_t **json, char **value, struct diag *d);

/* ---- a job's progress (deploy/progress.c) ---- */

/* The "format" of a progress event: the --json version of the commands
 * (IMC_JSON_FORMAT, which cmd-create.c asserts equal), as the events are
 * documents of `imc create --json` and `imc logs --json`. */
#define DEPLOY_EVENT_FORMAT 1

/* The progress event of a log line the provisioner wrote
 * (PROV_PROGRESS_PREFIX): its object with "host" added (new reference),
 * or NULL when the line is no progress line. */
json_t *deploy_progress_parse(const char *text);
/* "VM 1: step 120 (40%)  epoch 1.20  loss 0.4210  accuracy 0.8112
 * 812 examples/s  ETA 1m05s" (vm < 0: without "VM N: "). */
void deploy_progress_text(struct strbuf *sb, int vm, const json_t *ev);
/* "[########------------]  40% step 120  ..." with a bar of width cells. */
void deploy_progress_bar(struct strbuf *sb, const json_t *ev, int width);
/* {"format", "event": "progress", "vm", the event's members} (new
 * reference). */
json_t *deploy_progress_event(int vm, json_t *ev);

/* ---- export and import (deploy/export.c, deploy/import.c) ---- */

/* The "format" of an exported record: the --json version of the commands
 * (IMC_JSON_FORMAT, which cmd-export.c asserts equal), as the record is
 * also 'imc export's output. */
#define DEPLOY_RECORD_FORMAT 1

/* Adds infrastructure in's record to doc (a JSON object: "format", "kind",
 * "infrastructure", "vms", "networks", "steps", "outputs"); with del, then
 * forgets it in the store under its lock (its cloud resources stay). 0, or
 * -1 with d set (doc may then be complete already: the forget failed). */
int deploy_export(struct state_store *st, const struct state_infra *in, bool del, json_t *doc, struct diag *d);
/* Checks that doc is what deploy_export wrote (and "format" is
 * DEPLOY_RECORD_FORMAT), before anything is written; file names it in d. */
int deploy_import_check(json_t *doc, const char *file, struct diag *d);
/* Loads doc (checked) into the store in one transaction, under its id
 * unless the store has it already (then a new one); owner and auth_path,
 * when not NULL, replace the exported ones. *id is the id it got (free). */
int deploy_import(struct state_store *st, json_t *doc, const char *owner, const char *auth_path, char **id,
		  struct diag *d);

#endif
