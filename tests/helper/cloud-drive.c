/* local-drive.c: test driver of the local cloud backend. Exercises the
 * cloud_local table directly (no state store, no planner), so that tests
 * and benches can create, inspect and destroy local VMs on their own:
 *
 *   local-drive keygen HOME ID
 *   local-drive create HOME ID [--net NAME[:public]]... [--user NAME]
 *                      NUM:HOST[:NET[,NET...][:CPUS[:MEM]]]...
 *   (--user: the login user of the VMs after it)
 *   local-drive update|stop|start|reboot|destroy HOME ID NUM...
 *   local-drive alter HOME ID NUM CPUS MEMORY_BYTES   (0 = keep)
 *   local-drive cleanup HOME ID
 *
 * VMs print one line each:
 *   vm NUM STATE CLOUD_ID PUBLIC_IP PRIVATE_IP PORT NIC0_IP [NIC1_IP...]
 * ("-" for an absent value) and create ends with "created N/M in S s".
 * The infrastructure key is HOME/infra/ID/id_ed25519 (made by keygen).
 * Exit status: 0 when every operation succeeded, 1 otherwise. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cloud/cloud.h"
#include "util/diag.h"
#include "util/log.h"
#include "util/sshkey.h"
#include "util/xalloc.h"

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

static void print_vm(const struct cloud_vm *vm)
{
	printf("vm %d %s %s %s %s %d", vm->num, vm_state_name(vm->state), dash(vm->cloud_id),
	       dash(vm->public_ip), dash(vm->private_ip), vm->ssh_port ? vm->ssh_port : 22);
	for (size_t k = 0; k < vm->nnics; k++)
		printf(" %s", dash(vm->nics[k].ip));
	printf("\n");
	if (vm->note)
		printf("note %d %s\n", vm->num, vm->note);
	fflush(stdout);
}

static int usage(void)
{
	fprintf(stderr, "usage: local-drive keygen|create|update|stop|start|reboot|destroy|alter|cleanup "
			"HOME ID [ARGS...]\n");
	return 64;
}

static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q)
			continue;
		char c = *q;
		*q = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*q = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

/* NUM:HOST[:NET[,NET...][:CPUS[:MEMORY_BYTES]]] */
static int parse_vm(const char *spec, const char *id, struct cloud_vm *vm)
{
	char *s = xstrdup(spec);
	char *c1 = strchr(s, ':');
	if (!c1) {
		free(s);
		return -1;
	}
	*c1 = '\0';
	char *host = c1 + 1;
	char *c2 = strchr(host, ':');
	char *nets = NULL;
	int cpus = 0;
	long long mem = 0;
	if (c2) {
		*c2 = '\0';
		nets = c2 + 1;
		char *c3 = strchr(nets, ':');
		if (c3) {
			*c3 = '\0';
			cpus = (int)strtol(c3 + 1, NULL, 10);
			char *c4 = strchr(c3 + 1, ':');
			if (c4)
				mem = strtoll(c4 + 1, NULL, 10);
		}
	}
	memset(vm, 0, sizeof(*vm));
	vm->cpus = cpus;
	vm->memory_bytes = mem;
	vm->infra_id = id;
	vm->num = (int)strtol(s, NULL, 10);
	vm->system = "node";
	vm->hostname = xstrdup(host);
	vm->domain = "localdomain";
	if (nets && *nets) {
		for (char *n = nets; n;) {
			char *comma = strchr(n, ',');
			if (comma)
				*comma = '\0';
			vm->nics = xreallocarray(vm->nics, vm->nnics + 1, sizeof(*vm->nics));
			struct cloud_nic *nic = &vm->nics[vm->nnics];
			memset(nic, 0, sizeof(*nic));
			nic->index = (int)vm->nnics;
			nic->net = xstrdup(n);
			nic->hostname = vm->nnics == 0 ? xstrdup(host)
							: xasprintf("%s-%s", host, n);
			nic->domain = "localdomain";
			vm->nnics++;
			n = comma ? comma + 1 : NULL;
		}
	}
	free(s);
	return 0;
}

static void free_vm(struct cloud_vm *vm)
{
	cloud_vm_release(vm);
	for (size_t k = 0; k < vm->nnics; k++) {
		free((void *)(uintptr_t)vm->nics[k].net);
		free((void *)(uintptr_t)vm->nics[k].hostname);
	}
	free(vm->nics);
	free((void *)(uintptr_t)vm->hostname);
}

int main(int argc, char **argv)
{
	log_init(0);
	if (argc < 4)
		return usage();
	const char *cmd = argv[1], *home = argv[2], *id = argv[3];
	char *idir = xasprintf("%s/infra/%s", home, id);
	char *keypath = xasprintf("%s/id_ed25519", idir);
	struct diag d = DIAG_INIT;
	int rc = 0;
	char *pub = NULL;
	const struct cloud_driver *drv = cloud_driver_find("local");
	struct cloud_session s = { drv, id, home, NULL, NULL, NULL };

	if (mkdirs(idir) < 0) {
		fprintf(stderr, "local-drive: cannot create %s\n", idir);
		return 1;
	}
	if (!strcmp(cmd, "keygen")) {
		rc = sshkey_generate(keypath, "local-drive", &d) < 0;
		goto out;
	}
	if (strcmp(cmd, "cleanup")) {
		pub = sshkey_read_public(keypath, &d);
		if (!pub) {
			rc = 1;
			goto out;
		}
	}
	s.pubkey = pub;
	if (drv->open && drv->open(&s, &d) < 0) {
		rc = 1;
		goto out;
	}
	if (!strcmp(cmd, "cleanup")) {
		rc = drv->cleanup_infra(&s, &d) < 0;
	} else if (!strcmp(cmd, "create")) {
		struct cloud_vm *vms = NULL;
		size_t n = 0;
		const char *user = NULL;
		for (int i = 4; i < argc; i++) {
			if (!strcmp(argv[i], "--user") && i + 1 < argc) {
				user = argv[++i];
				continue;
			}
			if (!strcmp(argv[i], "--net") && i + 1 < argc) {
				char *name = xstrdup(argv[++i]);
				char *colon = strchr(name, ':');
				struct cloud_net net = { 0 };
				if (colon) {
					*colon = '\0';
					net.public = !strcmp(colon + 1, "public");
				}
				net.name = name;
				if (drv->net_create(&s, &net, &d) < 0)
					rc = 1;
				else
					printf("net %s %s %s\n", name, dash(net.cloud_id),
					       dash(net.cidr_assigned));
				cloud_net_release(&net);
				free(name);
				continue;
			}
			vms = xreallocarray(vms, n + 1, sizeof(*vms));
			if (parse_vm(argv[i], id, &vms[n]) < 0) {
				fprintf(stderr, "local-drive: bad VM spec '%s'\n", argv[i]);
				rc = 64;
				goto out;
			}
			vms[n].user = user;
			n++;
		}
		double t0 = now();
		if (drv->vm_create(&s, vms, n, &d) < 0)
			rc = 1;
		double t1 = now();
		size_t ok = 0;
		for (size_t i = 0; i < n; i++) {
			print_vm(&vms[i]);
			if (vms[i].state == VM_RUNNING)
				ok++;
			else
				rc = 1;
			free_vm(&vms[i]);
		}
		printf("created %zu/%zu in %.3f s\n", ok, n, t1 - t0);
		free(vms);
	} else if (!strcmp(cmd, "alter")) {
		if (argc != 7 || !drv->vm_alter) {
			rc = usage();
			goto out;
		}
		struct cloud_vm vm = { 0 };
		vm.infra_id = id;
		vm.num = (int)strtol(argv[4], NULL, 10);
		vm.cpus = (int)strtol(argv[5], NULL, 10);
		vm.memory_bytes = strtoll(argv[6], NULL, 10);
		vm.state = VM_RUNNING;
		if (drv->vm_alter(&s, &vm, &d) < 0)
			rc = 1;
		print_vm(&vm);
		cloud_vm_release(&vm);
	} else {
		int (*op)(struct cloud_session *, struct cloud_vm *, struct diag *) = NULL;
		if (!strcmp(cmd, "update"))
			op = drv->vm_update;
		else if (!strcmp(cmd, "stop"))
			op = drv->vm_stop;
		else if (!strcmp(cmd, "start"))
			op = drv->vm_start;
		else if (!strcmp(cmd, "reboot"))
			op = drv->vm_reboot;
		else if (!strcmp(cmd, "destroy"))
			op = drv->vm_destroy;
		if (!op) {
			rc = usage();
			goto out;
		}
		for (int i = 4; i < argc; i++) {
			struct cloud_vm vm = { 0 };
			vm.infra_id = id;
			vm.num = (int)strtol(argv[i], NULL, 10);
			vm.state = VM_UNKNOWN;
			if (op(&s, &vm, &d) < 0)
				rc = 1;
			print_vm(&vm);
			cloud_vm_release(&vm);
		}
	}
	if (drv->close)
		drv->close(&s);
out:
	if (diag_has_errors(&d) || d.n)
		diag_print(&d, stderr);
	diag_release(&d);
	free(pub);
	free(keypath);
	free(idir);
	return rc;
}
