/* ec2-driver.c: drives the ec2 backend through the cloud_ec2 table directly
 * (no state store, no CLI), for tests/cli/t7*.sh against the local test
 * endpoint tests/ec2/ec2-endpoint.py. The VMs are described on the command
 * line, then operations run in order:
 *
 *   ec2-driver -a AUTHLINE -i INFRA [-k PUBKEY] [-H HOME] ITEM... OP...
 *   ITEM: net:NAME:public|private[:OUTPORTS]
 *         user:NUM:NAME (login user of VM NUM)
 *         vm:NUM:SYSTEM:IMAGE[:TYPE|-[:CPUS:MEMORY_MB:GPUS[:DISK1_GB]]]
 *               (one NIC on the first network; MB and GB are decimal, as in RADL)
 *   OP:   create  update  stop:NUM  start:NUM  reboot:NUM  destroy  cleanup
 *         forget:NUM (drop NUM's cloud id, as a store that lost the row)
 *
 * After each op it prints one line per VM: "vm NUM SYSTEM STATE CLOUD_ID
 * PRIVATE PUBLIC". Errors are printed (redacted) like imc does, and the
 * exit status is the first error's code. AUTHLINE is parsed by the real
 * auth file reader, so its secrets are registered as imc registers them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/auth.h"
#include "cloud/cloud.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAXN 32

static struct cloud_net nets[MAXN];
static size_t nnets;
static struct cloud_vm vms[MAXN];
static struct cloud_nic nics[MAXN];
static struct cloud_disk disks[MAXN][2];
static size_t nvms;

static void print_vms(const char *op)
{
	printf("# after %s\n", op);
	for (size_t i = 0; i < nvms; i++)
		printf("vm %d %s %s %s %s %s\n", vms[i].num, vms[i].system,
		       vm_state_name(vms[i].state), vms[i].cloud_id ? vms[i].cloud_id : "-",
		       vms[i].private_ip ? vms[i].private_ip : "-",
		       vms[i].public_ip ? vms[i].public_ip : "-");
	fflush(stdout);
}

static struct cloud_vm *vm_by_num(const char *s)
{
	int n = (int)strtol(s, NULL, 10);
	for (size_t i = 0; i < nvms; i++)
		if (vms[i].num == n)
			return &vms[i];
	return NULL;
}

static char *field(char **p)
{
	char *s = *p, *c;
	if (!s)
		return NULL;
	c = strchr(s, ':');
	/* image URLs contain "://": keep "aws://region/ami" whole */
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

int main(int argc, char **argv)
{
	const char *authline = NULL, *infra = NULL, *pubkey = NULL, *home = NULL;
	struct diag d = DIAG_INIT;
	int i = 1, status = 0;

	log_init(0);
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "-a") == 0)
			authline = argv[i + 1];
		else if (strcmp(argv[i], "-i") == 0)
			infra = argv[i + 1];
		else if (strcmp(argv[i], "-k") == 0)
			pubkey = argv[i + 1];
		else if (strcmp(argv[i], "-H") == 0)
			home = argv[i + 1];
	}
	if (!authline || !infra) {
		fprintf(stderr, "usage: ec2-driver -a AUTHLINE -i INFRA [-k PUBKEY] [-H HOME] ITEM... OP...\n");
		return 64;
	}
	struct auth_file *af = auth_file_parse("(auth line)", authline, strlen(authline), &d);
	if (!af) {
		diag_print(&d, stderr);
		return d.code;
	}
	const struct auth_cred *cred = auth_find(af, NULL, "EC2");
	const struct cloud_driver *drv = cloud_driver_find(cred ? auth_get(cred, "type") : NULL);
	if (!drv || drv != &cloud_ec2) {
		fprintf(stderr, "ec2-driver: the auth line is not of type EC2\n");
		auth_file_free(af);
		return 65;
	}
	struct cloud_session s = { .drv = drv, .infra_id = infra, .home = home ? home : ".",
				   .cred = cred, .pubkey = pubkey };

	for (; i < argc; i++) {
		char *arg = xstrdup(argv[i]), *p = arg;
		char *kind = field(&p);
		if (strcmp(kind, "net") == 0 && nnets < MAXN) {
			struct cloud_net *n = &nets[nnets++];
			n->name = xstrdup(field(&p));
			const char *pub = field(&p);
			n->public = pub && strcmp(pub, "public") == 0;
			n->outports = p ? xstrdup(p) : NULL;
		} else if (strcmp(kind, "vm") == 0 && nvms < MAXN) {
			struct cloud_vm *v = &vms[nvms];
			v->infra_id = infra;
			v->num = (int)strtol(field(&p), NULL, 10);
			v->system = xstrdup(field(&p));
			v->image = xstrdup(field(&p));
			const char *type = field(&p);
			v->instance_type = type && strcmp(type, "-") ? xstrdup(type) : NULL;
			const char *c = field(&p), *m = field(&p), *g = field(&p), *dk = field(&p);
			v->cpus = c ? (int)strtol(c, NULL, 10) : 0;
			v->memory_bytes = m ? strtoll(m, NULL, 10) * 1000000LL : 0;
			v->gpus = g ? (int)strtol(g, NULL, 10) : 0;
			v->hostname = xasprintf("%s-%d", v->system, v->num);
			nics[nvms].index = 0;
			nics[nvms].net = nnets ? nets[0].name : "default";
			nics[nvms].hostname = v->hostname;
			v->nics = &nics[nvms];
			v->nnics = 1;
			if (dk) {
				disks[nvms][0].index = 1;
				disks[nvms][0].size_bytes = strtoll(dk, NULL, 10) * 1000000000LL;
				v->disks = disks[nvms];
				v->ndisks = 1;
			}
			nvms++;
		} else if (strcmp(kind, "user") == 0) {
			struct cloud_vm *v = vm_by_num(field(&p));
			if (v && p)
				v->user = xstrdup(p);
		} else {
			if (!s.priv && drv->open(&s, &d) < 0) {
				free(arg);
				break;
			}
			int rc = 0;
			struct cloud_vm *v = p ? vm_by_num(p) : NULL;
			if (strcmp(kind, "create") == 0) {
				for (size_t k = 0; k < nnets && rc == 0; k++)
					rc = drv->net_create(&s, &nets[k], &d);
				if (rc == 0)
					rc = drv->vm_create(&s, vms, nvms, &d);
			} else if (strcmp(kind, "update") == 0) {
				for (size_t k = 0; k < nvms; k++)
					if (drv->vm_update(&s, &vms[k], &d) < 0)
						rc = -1;
			} else if (strcmp(kind, "stop") == 0 && v) {
				rc = drv->vm_stop(&s, v, &d);
			} else if (strcmp(kind, "start") == 0 && v) {
				rc = drv->vm_start(&s, v, &d);
			} else if (strcmp(kind, "reboot") == 0 && v) {
				rc = drv->vm_reboot(&s, v, &d);
			} else if (strcmp(kind, "forget") == 0 && v) {
				free(v->cloud_id);
				v->cloud_id = NULL;
			} else if (strcmp(kind, "destroy") == 0) {
				for (size_t k = 0; k < nvms; k++)
					if (drv->vm_destroy(&s, &vms[k], &d) < 0)
						rc = -1;
				for (size_t k = 0; k < nnets; k++)
					if (drv->net_destroy(&s, &nets[k], &d) < 0)
						rc = -1;
			} else if (strcmp(kind, "cleanup") == 0) {
				rc = drv->cleanup_infra(&s, &d);
			} else {
				fprintf(stderr, "ec2-driver: unknown item '%s'\n", argv[i]);
				rc = -1;
				status = 64;
			}
			print_vms(argv[i]);
			if (rc < 0)
				printf("# %s returned -1\n", argv[i]);
		}
		free(arg);
	}
	if (diag_has_errors(&d)) {
		diag_print(&d, stderr);
		if (!status)
			status = d.code ? (int)d.code : 1;
	}
	if (s.priv)
		drv->close(&s);
	for (size_t k = 0; k < nvms; k++) {
		cloud_vm_release(&vms[k]);
	}
	auth_file_free(af);
	diag_release(&d);
	return status;
}
