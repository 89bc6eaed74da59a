/* plan.h: from a checked RADL document to what a deployment will do: the VM
 * instances (each `deploy S N [cloud]` expanded, numbered across the
 * infrastructure in IM's order), their names (#N# expanded, host and domain
 * split from net_interface.i.dns_name), the cloud of each VM, the networks
 * per cloud, and the contextualization schedule with IM's semantics
 * (plan_schedule). plan-vars.c adds the variables IM gives recipes, and
 * plan-input.c IM's @input.KEY@ substitution.
 *
 * Ownership: the plan borrows from the RADL document (system ids, network
 * names, recipes) and never frees it; the document must outlive the plan.
 * Everything else in the plan is owned by it; plan_free() accepts NULL. */
#ifndef IMC_PLAN_H
#define IMC_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cloud/auth.h"
#include "parser/radl.h"
#include "util/diag.h"
#include "util/strbuf.h"

struct plan_nic {
	int index;            /* net_interface.N */
	const char *net;      /* network id (borrowed) */
	char *hostname;       /* NULL when the interface has no dns_name (except 0) */
	char *domain;
	char *ip;             /* requested fixed address (net_interface.N.ip), or NULL */
};

struct plan_disk {
	int index;
	long long size_bytes;
	char *device, *mount_path, *fstype;
};

struct plan_vm {
	int num;              /* VM number, never reused in an infrastructure */
	const char *system;   /* borrowed */
	const struct radl_aspect *sys;
	char *hostname, *domain; /* of interface 0: defaults vnode-N / localdomain */
	char *cloud;          /* backend name ("local", "dummy", "ec2", "openstack", ...) */
	char *cloud_cred;     /* auth line id (or NULL: none, the embedded cloud) */
	char *image;          /* disk.0.image.url or NULL */
	char *instance_type;
	int cpus;
	long long memory_bytes;
	int gpus;
	char *user;           /* disk.0.os.credentials.username or the cloud's default */
	struct plan_nic *nics;
	size_t nnics;
	struct plan_disk *disks;
	size_t ndisks;
	bool ctxt;            /* false for `configure S ()` systems and `contextualize ()` */
};

struct plan_net {
	const char *name;     /* borrowed */
	char *cloud;          /* NULL when no VM uses it (not created) */
	bool public;          /* outbound = 'yes' */
	const char *outports;
	const char *cidr;
};

struct plan_item {
	size_t vm;            /* index into the VM array the schedule was built for */
	const struct radl_configure *conf;
	const char *tool;     /* NULL = Ansible */
};

struct plan_step {
	int step;
	struct plan_item *items;
	size_t nitems;
};

struct plan_schedule {
	struct plan_step *steps; /* ascending step order */
	size_t nsteps;
	int max_time;         /* contextualize MAX seconds, 0 = none */
	bool disabled;        /* `contextualize ()` or nothing to run */
	char **notes;         /* why items were left out (no VMs, cloud_init, ...) and
	                       * what a lenient plan let through */
	size_t nnotes;
};

struct plan {
	const struct radl_doc *doc;
	struct plan_vm *vms;
	size_t nvms;
	struct plan_net *nets;
	size_t nnets;
	struct plan_schedule sched;
};

struct plan_opts {
	int first_num;                 /* number of the first new VM */
	const char *cloud_override;    /* --cloud ID: auth id or backend name */
	const struct auth_file *auth;  /* NULL: no auth file (the embedded local cloud) */
	/* For addresource: systems, networks and configures that the document
	 * references without a body are looked up here. May be NULL. */
	const struct radl_doc *base;
	/* For `imc plan`: a deploy naming a cloud id no auth line has, or a
	 * system known only by a reference, is planned anyway (cloud
	 * "unknown", no features) with a note instead of an error. */
	bool lenient;
};

/* Expands the deploys of doc into VMs and schedules them. Returns NULL with
 * errors (file:line:col of the offending deploy or feature) in d. */
struct plan *plan_build(const struct radl_doc *doc, const struct plan_opts *o, struct diag *d);
void plan_free(struct plan *p);

/* The contextualization schedule of doc for VMs of the given systems
 * (systems[i] is the system of VM i), with IM's semantics:
 *   - no contextualize sentence: each system with a configure of its own
 *     name runs it at step 1;
 *   - `contextualize ()`: nothing runs (disabled);
 *   - `configure S ()`: the VMs of S are not contextualized;
 *   - items ordered by step, items of one step run in parallel.
 * ctxt_out (may be NULL) gets, per VM, whether it is contextualized. */
int plan_schedule_build(const struct radl_doc *doc, const char *const *systems, size_t nvms,
			struct plan_schedule *out, bool *ctxt_out, struct diag *d);
void plan_schedule_release(struct plan_schedule *s);

/* The cloud type an image URL routes to by its scheme: the embedded cloud
 * (local) for NULL or a URL without a scheme, NULL for a scheme no cloud
 * has. */
const char *plan_cloud_of_url(const char *url);

/* JSON of one VM (stored with it in the state store as its 'spec'). */
json_t *plan_vm_to_json(const struct plan_vm *vm);
/* The whole plan, as `imc plan --json` prints it (without the format field). */
json_t *plan_to_json(const struct plan *p);
/* The human-readable plan. */
void plan_print(struct strbuf *sb, const struct plan *p);
void plan_schedule_print(struct strbuf *sb, const struct plan_schedule *s, const char *const *vm_names);

/* ---- plan-vars.c: the variables IM gives recipes ---- */

/* vms: a JSON array of VM specs (plan_vm_to_json) each completed with the
 * runtime fields "public_ip", "private_ip" and "nic_ips" (array by NIC
 * index) when known. */
/* Host variables of vms[i]: IM_NODE_HOSTNAME, _DOMAIN, _FQDN, _NUM,
 * _PRIVATE_IP, _PUBLIC_IP, _NET_<i>_IP (+ _HOSTNAME/_DOMAIN/_FQDN),
 * IM_NODE_CLOUD_TYPE, IM_NODE_VMID; and the launch variables of the job
 * the VMs of vms[i]'s system form (ranked by VM number, rank 0 the
 * rendezvous at its interface-0 address): IMC_RANK, IMC_WORLD_SIZE,
 * IMC_LOCAL_RANK (0), IMC_MASTER_ADDR, IMC_MASTER_PORT (PLAN_MASTER_PORT),
 * IMC_TORCH_ENV (torchrun's MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
 * LOCAL_RANK, LOCAL_WORLD_SIZE as strings, a task's 'environment') and
 * IMC_MPI_HOSTFILE (Open MPI's "ADDRESS slots=CPUS" lines). New
 * reference. */
#define PLAN_MASTER_PORT 29500
json_t *plan_host_vars(const json_t *vms, size_t i, const char *infra_id);
/* Infrastructure variables: IM_<SYSTEM>_NUM_VMS, IM_MASTER_HOSTNAME/_FQDN/
 * _DOMAIN, IM_INFRASTRUCTURE_ID, IM_INFRASTRUCTURE_RADL. New reference. */
json_t *plan_infra_vars(const json_t *vms, size_t master, const char *infra_id, const struct radl_doc *doc);
/* {"SYSTEM": [fqdn, ...], ..., "all": [...]}. New reference. */
json_t *plan_groups(const json_t *vms);
/* The cluster's /etc/hosts lines (IM's format: "IP fqdn short\r\n" per named
 * interface). Malloc'd. */
char *plan_etc_hosts(const json_t *vms);
/* IM's master: among contextualized VMs, the one with a public network,
 * then the most interfaces; ties go to the first. */
size_t plan_master(const json_t *vms);

/* ---- plan-input.c: @input.KEY@ and -e KEY=VALUE ---- */

/* Adds "KEY=VALUE" to the object vars (created when *vars is NULL); a usage
 * error in d when there is no '='. */
int plan_parse_extra_var(json_t **vars, const char *arg, struct diag *d);
/* Replaces each @input.KEY@ of text by vars[KEY]; missing keys are asked on
 * the terminal when interactive (and added to vars), else an error at the
 * placeholder's file:line:col. Returns a malloc'd text or NULL. */
char *plan_substitute_inputs(const char *file, const char *text, json_t *vars, bool interactive,
			     struct diag *d);

#endif
