/* cloud-drive.c: drives any registered cloud backend through its cloud.h
 * table directly (no state store, no planner, no CLI), so that tests and
 * benches can create, inspect and destroy a backend's VMs on their own, and
 * tests/cli/t3006 can run every backend through the same operations. The
 * networks and VMs are described on the command line, then operations run
 * in order:
 *
 *   cloud-drive --list
 *   cloud-drive [-c TYPE] [-a AUTHLINE] -i INFRA [-H HOME] [-k PUBKEY] ITEM... OP...
 *
 *   -c TYPE      the backend (an auth type); default: the auth line's type,
 *                else the embedded cloud
 *   -a AUTHLINE  the session's credential, read by the real auth file reader,
 *                so its secrets are registered as imc registers them
 *   -H HOME      the session's $IMC_HOME (default "."); HOME/infra/INFRA is made
 *   -k PUBKEY    the infrastructure's public key (an OpenSSH line); default:
 *                the one of HOME/infra/INFRA/id_ed25519 when it exists
 *   ITEM: net:NAME:public|private[:OUTPORTS]
 *         vm:NUM:SYSTEM[:IMAGE|-[:TYPE|-[:CPUS[:MEMORY[:GPUS[:DISK1_GB[@MOUNT]]]]]]]
 *             (hostname SYSTEM-NUM, one NIC on the first network, disk.1
 *             of DISK1_GB mounted at MOUNT when given; the
 *             items below change VM NUM and come after its vm item)
 *         host:NUM:NAME    (hostname of VM NUM)
 *         nics:NUM:NET[,NET...]  (its NICs' networks; NIC k > 0 is NAME-NET)
 *         user:NUM:NAME    (login user of VM NUM)
 *   OP:   keygen (makes HOME/infra/INFRA/id_ed25519 and uses its public key)
 *         create          (net_create of every network, then vm_create)
 *         create:NUM      (vm_create of VM NUM alone, on the networks made
 *                          before in this run: a VM added later)
 *         update[:NUM]  stop[:NUM]  start[:NUM]  reboot[:NUM]
 *         alter:NUM:CPUS:MEMORY   (0 = keep)
 *         destroy[:NUM]   (without NUM: every VM, then every network)
 *         forget:NUM      (drop NUM's cloud id, as a store that lost the row)
 *         cleanup         (cleanup_infra)
 *   An op without NUM acts on every VM described; an op naming a VM not
 *   described acts on a bare one (its number only), as a later process that
 *   knows a VM by its number. MEMORY is decimal megabytes, as in RADL, or
 *   mebibytes with the suffix Mi (256Mi).
 *
 * After each op it prints "# after OP" and one line per VM described:
 *   vm NUM STATE CLOUD_ID PUBLIC_IP PRIVATE_IP PORT NIC0_IP [NIC1_IP...]
 * ("-" for an absent value), "note NUM TEXT" for a VM with a note; create
 * also prints "net NAME CLOUD_ID CIDR" per network and ends with
 * "created N/M in S s". --list prints one registered backend a line: its
 * name and capabilities. Errors are printed (redacted) as imc prints them.
 * Exit status: 64 for a usage error, else the first error's code, else 1
 * when an op failed or a created VM is not running, else 0. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cloud/auth.h"
#include "cloud/cloud.h"
#include "util/diag.h"
#include "util/log.h"
#include "util/mkdir.h"
#include "util/sshkey.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A VM described on the command line and the strings it owns (cloud_vm's
 * inputs are const). */
struct dvm {
	struct cloud_vm vm;
	char *system, *hostname, *image, *type, *user, *mount;
	char **nic_nets;
	struct cloud_disk disk;
};

static struct cloud_net *nets;
static size_t nnets;
/* pointers: a VM's disks point into its own struct dvm, which must not
 * move when the list grows */
static struct dvm **vms;
static size_t nvms;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

static int usage(void)
{
	fprintf(stderr, "usage: cloud-drive --list\n"
			"       cloud-drive [-c TYPE] [-a AUTHLINE] -i INFRA [-H HOME] [-k PUBKEY] ITEM... OP...\n");
	return 64;
}

static void list_backends(void)
{
	static const struct { unsigned bit; const char *name; } caps[] = {
		{ CLOUD_CAP_SSH, "ssh" }, { CLOUD_CAP_STOP, "stop" }, { CLOUD_CAP_NETWORKS, "networks" },
		{ CLOUD_CAP_NO_CREDENTIALS, "no-credentials" }, { CLOUD_CAP_EMBEDDED, "embedded" },
	};
	for (size_t i = 0; cloud_drivers[i]; i++) {
		const struct cloud_driver *drv = cloud_drivers[i];
		printf("%s", drv->name);
		for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++)
			if (drv->caps & caps[k].bit)
				printf(" %s", caps[k].name);
		if (drv->vm_alter)
			printf(" alter");
		printf("\n");
	}
}

static void print_vms(const char *op)
{
	printf("# after %s\n", op);
	for (size_t i = 0; i < nvms; i++) {
		const struct cloud_vm *vm = &vms[i]->vm;
		printf("vm %d %s %s %s %s %d", vm->num, vm_state_name(vm->state), dash(vm->cloud_id),
		       dash(vm->public_ip), dash(vm->private_ip), vm->ssh_port ? vm->ssh_port : 22);
		for (size_t k = 0; k < vm->nnics; k++)
			printf(" %s", dash(vm->nics[k].ip));
		printf("\n");
		if (vm->note)
			printf("note %d %s\n", vm->num, vm->note);
	}
	fflush(stdout);
}

/* The next ':'-separated field of *p (NULL past the end); an image URL's
 * "://" does not end a field. */
static char *field(char **p)
{
	char *s = *p, *c;
	if (!s)
		return NULL;
	c = strchr(s, ':');
	if (c && strncmp(c, "://", 3) == 0)
		c = strchr(c + 3, ':');
	if (c) {
		*c = '\0';
		*p = c + 1;
	} else {
		*p = NULL;
	}
	return s;
}

/* MEMORY: decimal megabytes, or mebibytes with the suffix Mi; 0 for NULL. */
static long long memory_bytes(const char *s)
{
	if (!s)
		return 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	return strcmp(end, "Mi") == 0 ? v * 1048576LL : v * 1000000LL;
}

static struct dvm *vm_find(int num)
{
	for (size_t i = 0; i < nvms; i++)
		if (vms[i]->vm.num == num)
			return vms[i];
	return NULL;
}

/* VM num, described now as a bare one when it was not. */
static struct dvm *vm_get(const char *infra, int num)
{
	struct dvm *v = vm_find(num);
	if (v)
		return v;
	vms = xreallocarray(vms, nvms + 1, sizeof(*vms));
	v = vms[nvms++] = xcalloc(1, sizeof(*v));
	v->vm.infra_id = infra;
	v->vm.num = num;
	v->vm.state = VM_UNKNOWN;
	return v;
}

/* Gives v one NIC per network of the comma list (hostname of NIC 0 is the
 * VM's, of NIC k > 0 HOST-NET). */
static void set_nics(struct dvm *v, const char *list)
{
	for (size_t k = 0; k < v->vm.nnics; k++) {
		free(v->nic_nets[k]);
		free((void *)(uintptr_t)v->vm.nics[k].hostname);
	}
	v->vm.nnics = 0;
	char *copy = xstrdup(list);
	for (char *n = copy, *comma; n; n = comma ? comma + 1 : NULL) {
		comma = strchr(n, ',');
		if (comma)
			*comma = '\0';
		size_t k = v->vm.nnics++;
		v->vm.nics = xreallocarray(v->vm.nics, k + 1, sizeof(*v->vm.nics));
		v->nic_nets = xreallocarray(v->nic_nets, k + 1, sizeof(*v->nic_nets));
		memset(&v->vm.nics[k], 0, sizeof(v->vm.nics[k]));
		v->nic_nets[k] = xstrdup(n);
		v->vm.nics[k].index = (int)k;
		v->vm.nics[k].net = v->nic_nets[k];
		v->vm.nics[k].hostname = k == 0 ? xstrdup(dash(v->hostname))
						: xasprintf("%s-%s", dash(v->hostname), n);
		v->vm.nics[k].domain = "localdomain";
	}
	free(copy);
}

static void set_hostname(struct dvm *v, char *name)
{
	free(v->hostname);
	v->hostname = name;
	v->vm.hostname = name;
	if (v->vm.nnics) {
		char *list = NULL;
		for (size_t k = 0; k < v->vm.nnics; k++) {
			char *l = xasprintf("%s%s%s", list ? list : "", list ? "," : "", v->nic_nets[k]);
			free(list);
			list = l;
		}
		set_nics(v, list);
		free(list);
	}
}

static void vm_free(struct dvm *v)
{
	cloud_vm_release(&v->vm);
	for (size_t k = 0; k < v->vm.nnics; k++) {
		free(v->nic_nets[k]);
		free((void *)(uintptr_t)v->vm.nics[k].hostname);
	}
	free(v->vm.nics);
	free(v->nic_nets);
	free(v->system);
	free(v->hostname);
	free(v->image);
	free(v->type);
	free(v->user);
	free(v->mount);
	free(v);
}

/* vm:NUM:SYSTEM[:IMAGE|-[:TYPE|-[:CPUS[:MEMORY[:GPUS[:DISK1_GB[@MOUNT]]]]]]] */
static int describe_vm(const char *infra, char *p)
{
	const char *num = field(&p), *system = field(&p);
	if (!num || !system)
		return -1;
	struct dvm *v = vm_get(infra, (int)strtol(num, NULL, 10));
	const char *img = field(&p), *type = field(&p), *c = field(&p), *m = field(&p),
		   *g = field(&p), *dk = field(&p);
	free(v->system);
	v->system = xstrdup(system);
	v->vm.system = v->system;
	v->vm.domain = "localdomain";
	free(v->image);
	v->image = img && strcmp(img, "-") ? xstrdup(img) : NULL;
	v->vm.image = v->image;
	free(v->type);
	v->type = type && strcmp(type, "-") ? xstrdup(type) : NULL;
	v->vm.instance_type = v->type;
	v->vm.cpus = c ? (int)strtol(c, NULL, 10) : 0;
	v->vm.memory_bytes = memory_bytes(m);
	v->vm.gpus = g ? (int)strtol(g, NULL, 10) : 0;
	if (dk) {
		const char *at = strchr(dk, '@');
		v->disk.index = 1;
		v->disk.size_bytes = strtoll(dk, NULL, 10) * 1000000000LL;
		free(v->mount);
		v->mount = at ? xstrdup(at + 1) : NULL;
		v->disk.mount_path = v->mount;
		v->vm.disks = &v->disk;
		v->vm.ndisks = 1;
	}
	free(v->hostname);
	v->hostname = xasprintf("%s-%d", system, v->vm.num);
	v->vm.hostname = v->hostname;
	set_nics(v, nnets ? nets[0].name : "default");
	return 0;
}

/* One VM operation on VM num, or on every VM described when num is NULL. */
static int vm_op(struct cloud_session *s, const char *infra, const char *num,
		 int (*op)(struct cloud_session *, struct cloud_vm *, struct diag *), struct diag *d)
{
	int rc = 0;
	if (num)
		return op(s, &vm_get(infra, (int)strtol(num, NULL, 10))->vm, d);
	for (size_t k = 0; k < nvms; k++)
		if (op(s, &vms[k]->vm, d) < 0)
			rc = -1;
	return rc;
}

static int create(struct cloud_session *s, bool *all_running, struct diag *d)
{
	const struct cloud_driver *drv = s->drv;
	int rc = 0;
	for (size_t k = 0; k < nnets && rc == 0 && drv->net_create; k++) {
		rc = drv->net_create(s, &nets[k], d);
		if (rc == 0)
			printf("net %s %s %s\n", nets[k].name, dash(nets[k].cloud_id), dash(nets[k].cidr_assigned));
	}
	if (rc < 0)
		return -1;
	struct cloud_vm *list = xcalloc(nvms + 1, sizeof(*list));
	for (size_t k = 0; k < nvms; k++)
		list[k] = vms[k]->vm;
	double t0 = now();
	rc = drv->vm_create(s, list, nvms, d);
	double t1 = now();
	size_t ok = 0;
	for (size_t k = 0; k < nvms; k++) {
		vms[k]->vm = list[k];
		if (list[k].state == VM_RUNNING)
			ok++;
		else
			*all_running = false;
	}
	free(list);
	printf("created %zu/%zu in %.3f s\n", ok, nvms, t1 - t0);
	return rc;
}

/* create:NUM, a VM added to an infrastructure whose networks this process
 * made: vm_create of that VM alone, as imc's addresource does. */
static int add_vm(struct cloud_session *s, const char *num, bool *all_running, struct diag *d)
{
	struct dvm *v = vm_get(s->infra_id, (int)strtol(num, NULL, 10));
	int rc = s->drv->vm_create(s, &v->vm, 1, d);
	if (v->vm.state != VM_RUNNING)
		*all_running = false;
	printf("added %d %s\n", v->vm.num, v->vm.state == VM_RUNNING ? "running" : "not running");
	return rc;
}

static int destroy_all(struct cloud_session *s, struct diag *d)
{
	int rc = 0;
	for (size_t k = 0; k < nvms; k++)
		if (s->drv->vm_destroy(s, &vms[k]->vm, d) < 0)
			rc = -1;
	for (size_t k = 0; k < nnets; k++)
		if (s->drv->net_destroy && s->drv->net_destroy(s, &nets[k], d) < 0)
			rc = -1;
	return rc;
}

/* Runs op arg (its text after the op's name in p). Returns 0, -1 when the
 * op failed, or 64 when it is not an op or the backend lacks it (NULL). */
static int run_op(struct cloud_session *s, const char *kind, char *p, bool *all_running, struct diag *d)
{
	const struct cloud_driver *drv = s->drv;
	const char *infra = s->infra_id;
	if (strcmp(kind, "create") == 0 && drv->vm_create)
		return p ? add_vm(s, p, all_running, d) : create(s, all_running, d);
	if (strcmp(kind, "update") == 0 && drv->vm_update)
		return vm_op(s, infra, p, drv->vm_update, d);
	if (strcmp(kind, "stop") == 0 && drv->vm_stop)
		return vm_op(s, infra, p, drv->vm_stop, d);
	if (strcmp(kind, "start") == 0 && drv->vm_start)
		return vm_op(s, infra, p, drv->vm_start, d);
	if (strcmp(kind, "reboot") == 0 && drv->vm_reboot)
		return vm_op(s, infra, p, drv->vm_reboot, d);
	if (strcmp(kind, "destroy") == 0 && drv->vm_destroy)
		return p ? vm_op(s, infra, p, drv->vm_destroy, d) : destroy_all(s, d);
	if (strcmp(kind, "cleanup") == 0 && drv->cleanup_infra)
		return drv->cleanup_infra(s, d);
	if (strcmp(kind, "forget") == 0 && p) {
		struct dvm *v = vm_get(infra, (int)strtol(p, NULL, 10));
		free(v->vm.cloud_id);
		v->vm.cloud_id = NULL;
		return 0;
	}
	if (strcmp(kind, "alter") == 0 && drv->vm_alter) {
		const char *num = field(&p), *cpus = field(&p), *mem = field(&p);
		if (!num || !cpus || !mem)
			return 64;
		struct dvm *v = vm_get(infra, (int)strtol(num, NULL, 10));
		if (v->vm.state == VM_UNKNOWN)
			v->vm.state = VM_RUNNING;
		v->vm.cpus = (int)strtol(cpus, NULL, 10);
		v->vm.memory_bytes = memory_bytes(mem);
		return drv->vm_alter(s, &v->vm, d);
	}
	return 64;
}

int main(int argc, char **argv)
{
	const char *authline = NULL, *type = NULL, *infra = NULL, *pubkey = NULL, *home = ".";
	struct auth_file *af = NULL;
	struct diag d = DIAG_INIT;
	char *idir = NULL, *keypath = NULL, *pub = NULL;
	bool opened = false, failed = false, all_running = true;
	int i = 1, status = 0;

	log_init(0);
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list_backends();
		return 0;
	}
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "-a") == 0)
			authline = argv[i + 1];
		else if (strcmp(argv[i], "-c") == 0)
			type = argv[i + 1];
		else if (strcmp(argv[i], "-i") == 0)
			infra = argv[i + 1];
		else if (strcmp(argv[i], "-k") == 0)
			pubkey = argv[i + 1];
		else if (strcmp(argv[i], "-H") == 0)
			home = argv[i + 1];
		else
			return usage();
	}
	if (!infra)
		return usage();
	const struct auth_cred *cred = NULL;
	if (authline) {
		af = auth_file_parse("(auth line)", authline, strlen(authline), &d);
		if (!af) {
			status = d.code;
			goto out;
		}
		cred = type ? auth_find(af, NULL, type) : af->n ? &af->creds[0] : NULL;
		if (!type)
			type = auth_get(cred, "type");
	}
	const struct cloud_driver *drv = type ? cloud_driver_find(type) : cloud_embedded();
	if (!drv) {
		fprintf(stderr, "cloud-drive: no registered backend '%s' (cloud-drive --list)\n", type);
		status = 64;
		goto out;
	}
	idir = xasprintf("%s/infra/%s", home, infra);
	keypath = xasprintf("%s/id_ed25519", idir);
	if (mkdir_p(idir, 0700, &d) < 0) {
		status = d.code;
		goto out;
	}
	if (!pubkey && access(keypath, F_OK) == 0) {
		pub = sshkey_read_public(keypath, &d);
		if (!pub) {
			status = 1;
			goto out;
		}
	}
	struct cloud_session s = { .drv = drv, .infra_id = infra, .home = home, .cred = cred,
				   .pubkey = pubkey ? pubkey : pub };

	for (; i < argc; i++) {
		char *arg = xstrdup(argv[i]), *p = arg;
		char *kind = field(&p);
		int rc = 0;
		if (strcmp(kind, "net") == 0 && p) {
			nets = xreallocarray(nets, nnets + 1, sizeof(*nets));
			struct cloud_net *n = &nets[nnets++];
			memset(n, 0, sizeof(*n));
			n->name = xstrdup(field(&p));
			const char *pubnet = field(&p);
			n->public = pubnet && strcmp(pubnet, "public") == 0;
			n->outports = p ? xstrdup(p) : NULL;
		} else if (strcmp(kind, "vm") == 0) {
			rc = describe_vm(infra, p) < 0 ? 64 : 0;
		} else if (strcmp(kind, "host") == 0 || strcmp(kind, "nics") == 0 ||
			   strcmp(kind, "user") == 0) {
			const char *num = field(&p);
			if (!num || !p) {
				rc = 64;
			} else {
				struct dvm *v = vm_get(infra, (int)strtol(num, NULL, 10));
				if (kind[0] == 'h') {
					set_hostname(v, xstrdup(p));
				} else if (kind[0] == 'n') {
					set_nics(v, p);
				} else {
					free(v->user);
					v->user = xstrdup(p);
					v->vm.user = v->user;
				}
			}
		} else if (strcmp(kind, "keygen") == 0) {
			free(pub);
			pub = NULL;
			if (sshkey_generate(keypath, "cloud-drive", &d) == 0)
				pub = sshkey_read_public(keypath, &d);
			s.pubkey = pubkey ? pubkey : pub;
			rc = pub ? 0 : -1;
		} else {
			if (!opened && drv->open && drv->open(&s, &d) < 0) {
				free(arg);
				failed = true;
				break;
			}
			opened = true;
			rc = run_op(&s, kind, p, &all_running, &d);
			if (rc != 64)
				print_vms(argv[i]);
			if (rc < 0)
				printf("# %s returned -1\n", argv[i]);
		}
		free(arg);
		if (rc == 64) {
			fprintf(stderr, "cloud-drive: '%s' is not an item or op of backend '%s'\n", argv[i],
				drv->name);
			status = 64;
			break;
		}
		if (rc < 0)
			failed = true;
	}
	if (opened && drv->close)
		drv->close(&s);
	if (!status && diag_has_errors(&d))
		status = d.code ? (int)d.code : 1;
	if (!status && (failed || !all_running))
		status = 1;
out:
	if (d.n)
		diag_print(&d, stderr);
	for (size_t k = 0; k < nvms; k++)
		vm_free(vms[k]);
	free(vms);
	for (size_t k = 0; k < nnets; k++) {
		cloud_net_release(&nets[k]);
		free((void *)(uintptr_t)nets[k].name);
		free((void *)(uintptr_t)nets[k].outports);
	}
	free(nets);
	auth_file_free(af);
	diag_release(&d);
	free(pub);
	free(keypath);
	free(idir);
	return status;
}
