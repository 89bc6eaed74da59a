/* cloud.h: the cloud backend interface. A backend is one const table of
 * operations at the end of its own file (curl lib/vtls, libvirt's test
 * driver), registered in cloud_drivers[] (src/cloud/cloud.c). Operations a
 * backend cannot do are NULL (alter's refusal is vm_alter == NULL). What a
 * caller must know about a backend without calling it (does it need an
 * auth line, which image URLs go to it, its default login user, which auth
 * keys are secrets) is in its table too, asked through the cloud_*()
 * functions below, so that no caller tests a backend's name. Adding
 * backend foo: write src/cloud/foo.c ending with its table cloud_foo,
 * declare and register it in src/cloud/cloud.c (one line each, side by
 * side), and add its file to mk/ (mk/cloud-foo.mk, included by cloud.mk).
 *
 * Crash safety: the caller records its intent in the state store before
 * calling an operation, and every backend names what it creates
 * deterministically from (infrastructure id, network name, VM number) and
 * tags it with the infrastructure id where the cloud has tags, so that
 * cleanup_infra() can find leftovers even when the store lost a row.
 *
 * Ownership: the caller owns every struct passed in; the backend fills the
 * "set by the backend" fields with malloc'd strings that the caller frees
 * (cloud_vm_release / cloud_net_release). */
#ifndef IMC_CLOUD_H
#define IMC_CLOUD_H

#include <stdbool.h>
#include <stddef.h>

#include "cloud/auth.h"
#include "state/vmstate.h"
#include "util/diag.h"

struct cloud_session {
	const struct cloud_driver *drv;
	const char *infra_id;         /* e.g. "a1b2c3d4-..." (uuid) */
	const char *home;             /* $IMC_HOME (exists, 0700) */
	const struct auth_cred *cred; /* this cloud's auth line; NULL for local/dummy */
	const char *pubkey;           /* the infrastructure's public key (OpenSSH line) */
	void *priv;                   /* the backend's own per-session data */
};

struct cloud_net {
	const char *name;      /* RADL network id */
	bool public;           /* outbound = 'yes' */
	const char *outports;  /* RADL outports value, or NULL */
	const char *cidr;      /* requested subnet (RADL 'cidr'), or NULL */
	/* set by the backend */
	char *cloud_id;        /* bridge name, security group id, ... */
	char *cidr_assigned;   /* the subnet actually used, or NULL */
};

struct cloud_nic {
	int index;             /* net_interface.N */
	const char *net;       /* RADL network id */
	const char *hostname;  /* dns_name host part, #N# expanded */
	const char *domain;
	char *ip;              /* set by the backend */
};

struct cloud_disk {
	int index;             /* disk.N (0 = the image) */
	long long size_bytes;  /* 0 = default */
	const char *device;
	const char *mount_path;
};

struct cloud_vm {
	const char *infra_id;
	int num;               /* VM number in the infrastructure, never reused */
	const char *system;    /* RADL system id */
	const char *hostname;  /* of net_interface.0 */
	const char *domain;
	const char *image;     /* disk.0.image.url, or NULL */
	const char *instance_type;
	int cpus;              /* 0 = unspecified */
	long long memory_bytes;
	int gpus;
	struct cloud_disk *disks;
	size_t ndisks;
	struct cloud_nic *nics;
	size_t nnics;
	const char *user;      /* login user (disk.0.os.credentials.username) */
	/* set by the backend */
	char *cloud_id;        /* backend's id of the VM (instance id, netns name) */
	enum vm_state state;
	char *public_ip;
	char *private_ip;
	int ssh_port;          /* 0 = 22 */
	char *note;            /* human remark (e.g. "rootless mode: no cgroup") */
	char *data;            /* backend-private JSON kept in the store, or NULL */
};

enum cloud_caps {
	CLOUD_CAP_SSH = 1 << 0,      /* VMs are reachable over SSH (not dummy) */
	CLOUD_CAP_STOP = 1 << 1,     /* stop/start supported */
	CLOUD_CAP_NETWORKS = 1 << 2, /* creates networks of its own */
	/* Works without an auth line (no account to log in to): local, dummy. */
	CLOUD_CAP_NO_CREDENTIALS = 1 << 3,
	/* The embedded cloud: a system whose image has no URL scheme (or no
	 * image) goes to it. One registered backend has it. */
	CLOUD_CAP_EMBEDDED = 1 << 4,
};

struct cloud_driver {
	const char *name;  /* the auth 'type', lowercase: "local", "dummy", "ec2" */
	unsigned caps;     /* enum cloud_caps */
	/* Image URL schemes routed to this backend ("aws" for aws://...),
	 * NULL-terminated; NULL: none. */
	const char *const *schemes;
	/* The login user of a system whose RADL names none; NULL: "root". */
	const char *default_user;
	/* Auth keys whose values are secrets for this type beyond the keys
	 * every type treats as secret (password, token, ...: auth.c), e.g. EC2's
	 * 'username', which holds the access key id. NULL-terminated; NULL:
	 * none. */
	const char *const *secret_keys;
	/* Per-session setup from the credential (endpoint, keys); may be NULL. */
	int (*open)(struct cloud_session *s, struct diag *d);
	void (*close)(struct cloud_session *s);
	int (*net_create)(struct cloud_session *s, struct cloud_net *net, struct diag *d);
	int (*net_destroy)(struct cloud_session *s, struct cloud_net *net, struct diag *d);
	/* Creates n VMs (in parallel where the backend can); each VM's state is
	 * set (VM_RUNNING when reachable, VM_FAILED with a diag on failure).
	 * Returns -1 only when nothing could be attempted. */
	int (*vm_create)(struct cloud_session *s, struct cloud_vm *vms, size_t n, struct diag *d);
	/* Refreshes state and addresses from the cloud. */
	int (*vm_update)(struct cloud_session *s, struct cloud_vm *vm, struct diag *d);
	int (*vm_stop)(struct cloud_session *s, struct cloud_vm *vm, struct diag *d);
	int (*vm_start)(struct cloud_session *s, struct cloud_vm *vm, struct diag *d);
	int (*vm_reboot)(struct cloud_session *s, struct cloud_vm *vm, struct diag *d);
	/* Changes a VM's size in place (IM's alter): vm->cpus, memory_bytes and
	 * instance_type hold the wanted values (0/NULL = keep). The backend
	 * applies them to the real VM, sets vm->instance_type where it chose one
	 * (a malloc'd string is not allowed there: it points into the caller's
	 * spec or to a const table entry) and returns 0 only once the change is
	 * in effect. NULL: the backend cannot resize, and alter is refused. */
	int (*vm_alter)(struct cloud_session *s, struct cloud_vm *vm, struct diag *d);
	/* Destroying what does not exist succeeds (destroy is idempotent). */
	int (*vm_destroy)(struct cloud_session *s, struct cloud_vm *vm, struct diag *d);
	/* Removes everything of the infrastructure still there, found by naming
	 * scheme or tag (orphans the store lost). Idempotent. */
	int (*cleanup_infra)(struct cloud_session *s, struct diag *d);
};

/* The registered backends, NULL-terminated (each backend's table is
 * declared where it is registered, in cloud.c: no caller names one). */
extern const struct cloud_driver *const cloud_drivers[];
/* Backend by auth type (case-insensitive), or NULL. */
const struct cloud_driver *cloud_driver_find(const char *type);

/* What callers ask instead of testing names. 'type' is an auth type,
 * case-insensitive; besides the registered backends these also know IM's
 * connectors that imc does not implement (OpenStack, OpenNebula, ...: their
 * schemes, default users and secret keys), so that a plan names them and
 * their auth lines' secrets are registered; cloud_driver_find() still
 * returns NULL for those. */

/* The embedded backend (CLOUD_CAP_EMBEDDED): where a system without an
 * image URL scheme goes. Never NULL. */
const struct cloud_driver *cloud_embedded(void);
/* The cloud type an image URL scheme routes to (scheme: the n characters
 * before "://", case-insensitive), or NULL when no cloud has it. */
const char *cloud_type_of_scheme(const char *scheme, size_t n);
/* Whether a session of type needs an auth line: false only for a
 * registered backend with CLOUD_CAP_NO_CREDENTIALS. */
bool cloud_needs_credentials(const char *type);
/* The login user of a system of type whose RADL names none. */
const char *cloud_default_user(const char *type);
/* Whether the value of auth key 'key' is a secret on a line of type
 * (beyond the keys auth.c treats as secret on every line). */
bool cloud_auth_key_is_secret(const char *type, const char *key);
void cloud_vm_release(struct cloud_vm *vm);
void cloud_net_release(struct cloud_net *net);

#endif
