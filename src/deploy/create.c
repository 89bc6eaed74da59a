/* create.c: the deployment worker's creation of networks and VMs (see
 * worker.h). Each VM row is 'pending' before the cloud is called (the
 * intent, written by the command that planned it) and gets the cloud's
 * answer right after, so a crash in between leaves a row deploy_recover
 * marks failed and destroy cleans up. VMs go to the cloud in one batch
 * per (cloud, credential), so backends can create them in parallel. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cloud/cloud.h"
#include "deploy/deploy.h"
#include "deploy/worker.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void log_diag(struct state_store *st, const char *id, int vm, struct diag *ld, struct diag *d)
{
	for (size_t i = 0; i < ld->n; i++)
		state_log_add(st, id, vm, ld->items[i].msg, d);
}

int deploy_create_networks(struct state_store *st, struct state_infra *in, const struct auth_file *af,
			   struct deploy_sessions *ss, struct diag *d)
{
	struct state_net *nets = NULL;
	size_t nn = 0;
	if (state_net_list(st, in->id, &nets, &nn, d) < 0)
		return -1;
	for (size_t i = 0; i < nn; i++) {
		struct state_net *net = &nets[i];
		if (net->cloud_id)
			continue;
		const char *err = NULL;
		struct cloud_session *s = deploy_session(ss, st, in, net->cloud, NULL, af, &err, NULL);
		if (!s) {
			char *msg = xasprintf("network '%s' not created: %s", net->name, err ? err : "no cloud");
			state_log_add(st, in->id, -1, msg, d);
			free(msg);
			continue;
		}
		if (!s->drv->net_create || !(s->drv->caps & CLOUD_CAP_NETWORKS))
			continue;
		struct cloud_net cn = { .name = net->name, .public = net->public, .outports = net->outports,
					.cidr = net->cidr };
		struct diag ld = DIAG_INIT;
		if (s->drv->net_create(s, &cn, &ld) < 0) {
			char *msg = xasprintf("network '%s' not created: %s", net->name, diag_first_message(&ld));
			state_log_add(st, in->id, -1, msg, d);
			free(msg);
		} else {
			free(net->cloud_id);
			net->cloud_id = cn.cloud_id ? xstrdup(cn.cloud_id) : xstrdup(net->name);
			if (cn.cidr_assigned) {
				free(net->cidr);
				net->cidr = xstrdup(cn.cidr_assigned);
			}
			state_net_upsert(st, net, d);
		}
		cloud_net_release(&cn);
		diag_release(&ld);
	}
	state_net_list_free(nets, nn);
	return 0;
}

int deploy_create_vms(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		      struct deploy_sessions *ss, struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0)
		return -1;
	bool *done = xcalloc(n + 1, sizeof(*done));
	for (size_t i = 0; i < n; i++) {
		if (done[i] || vms[i].state != VM_PENDING || vms[i].cloud_id) {
			done[i] = true;
			continue;
		}
		/* one batch per (cloud, credential), so backends can parallelise */
		size_t *batch = xcalloc(n + 1, sizeof(*batch));
		size_t nb = 0;
		for (size_t k = i; k < n; k++)
			if (!done[k] && vms[k].state == VM_PENDING && !vms[k].cloud_id &&
			    strcmp(vms[k].cloud, vms[i].cloud) == 0 &&
			    strcmp(vms[k].cloud_cred ? vms[k].cloud_cred : "", vms[i].cloud_cred ? vms[i].cloud_cred : "") == 0) {
				batch[nb++] = k;
				done[k] = true;
			}
		const char *err = NULL;
		struct cloud_session *s = deploy_session(ss, st, in, vms[i].cloud, vms[i].cloud_cred, af, &err, NULL);
		struct cloud_vm *cvs = xcalloc(nb + 1, sizeof(*cvs));
		json_t **specs = xcalloc(nb + 1, sizeof(*specs));
		for (size_t b = 0; b < nb; b++)
			deploy_cloud_vm(&vms[batch[b]], &specs[b], &cvs[b]);
		struct diag ld = DIAG_INIT;
		int rc = -1;
		if (s && s->drv->vm_create) {
			deploy_pause_at("vms-intent");
			rc = s->drv->vm_create(s, cvs, nb, &ld);
		} else if (s)
			diag_error(&ld, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' cannot create VMs in this build",
				   vms[i].cloud);
		else
			diag_error(&ld, IMC_EXIT_UNAVAILABLE, NULL, "%s", err ? err : "cloud unavailable");
		if (state_begin(st, d) < 0) {
			diag_release(&ld);
			free(batch);
			free(cvs);
			free(specs);
			break;
		}
		for (size_t b = 0; b < nb; b++) {
			struct state_vm *vm = &vms[batch[b]];
			if (rc < 0 || cvs[b].state == VM_PENDING) {
				if (rc < 0 || !cvs[b].cloud_id)
					cvs[b].state = VM_FAILED;
			}
			deploy_vm_take(vm, &cvs[b]);
			if (vm->state == VM_FAILED) {
				log_diag(st, in->id, vm->num, &ld, d);
				if (!ld.n)
					state_log_add(st, in->id, vm->num, "the cloud could not create this VM", d);
			} else {
				char *msg = xasprintf("VM created on cloud '%s' (id %s)", vm->cloud,
						      vm->cloud_id ? vm->cloud_id : "?");
				state_log_add(st, in->id, vm->num, msg, d);
				free(msg);
				if (cvs[b].note)
					state_log_add(st, in->id, vm->num, cvs[b].note, d);
			}
			state_vm_update(st, vm, d);
			deploy_cloud_vm_release(&cvs[b]);
			json_decref(specs[b]);
		}
		state_commit(st, d);
		diag_release(&ld);
		free(batch);
		free(cvs);
		free(specs);
	}
	free(done);
	state_vm_list_free(vms, n);
	return 0;
}
