/* teardown.c: removing an infrastructure from its clouds (see deploy.h).
 * Each VM is marked 'deleting' before its cloud is asked, and its row goes
 * only once the cloud confirmed (or --force said to forget it), so a
 * destroy that fails halfway can be run again and finds what is left. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Moves the errors of src into dst, as warnings when soft. */
static void move_diag(struct diag *dst, struct diag *src, bool soft)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct diag_item *it = &src->items[i];
		if (soft || it->level != DIAG_ERROR)
			diag_warning(dst, NULL, "%s", it->msg);
		else
			diag_error(dst, src->code ? src->code : IMC_EXIT_UNAVAILABLE, NULL, "%s", it->msg);
	}
	diag_release(src);
}

/* deploy_session with the reason it could not be opened as an error in d. */
static struct cloud_session *teardown_session(struct deploy_sessions *c, struct state_store *st,
					      const struct state_infra *in, const char *cloud,
					      const char *cred_id, const struct auth_file *af,
					      struct diag *d)
{
	const char *err;
	enum imc_exit code;
	struct cloud_session *s = deploy_session(c, st, in, cloud, cred_id, af, &err, &code);
	if (!s)
		diag_error(d, code, NULL, "%s", err);
	return s;
}

int deploy_teardown(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		    bool force, struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct state_net *nets = NULL;
	size_t nn = 0;
	struct deploy_sessions cache = { 0 };
	int rc = 0;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0 || state_net_list(st, in->id, &nets, &nn, d) < 0) {
		state_vm_list_free(vms, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct state_vm *vm = &vms[i];
		struct diag local = DIAG_INIT;
		enum vm_state before = vm->state;
		/* intent first: the VM is being deleted */
		if (state_vm_set_state(st, in->id, vm->num, VM_DELETING, d) < 0) {
			rc = -1;
			break;
		}
		struct cloud_session *s = teardown_session(&cache, st, in, vm->cloud, vm->cloud_cred,
							   af, &local);
		int ok = 0;
		if (s && s->drv->vm_destroy) {
			json_t *spec;
			struct cloud_vm cv;
			deploy_cloud_vm(vm, &spec, &cv);
			ok = s->drv->vm_destroy(s, &cv, &local);
			deploy_cloud_vm_release(&cv);
			json_decref(spec);
		} else if (!s)
			ok = -1;
		if (ok < 0 && !force) {
			state_vm_set_state(st, in->id, vm->num, before, d);
			diag_error(&local, IMC_EXIT_UNAVAILABLE, NULL, "VM %d was not destroyed; retry, or use"
				   " 'imc destroy --force' to forget it", vm->num);
			move_diag(d, &local, false);
			rc = -1;
			continue;
		}
		if (ok < 0)
			diag_warning(&local, NULL, "forgetting VM %d (cloud id '%s') although the cloud did not"
				     " confirm its deletion", vm->num, vm->cloud_id ? vm->cloud_id : "none");
		move_diag(d, &local, true);
		if (state_vm_delete(st, in->id, vm->num, d) < 0) {
			rc = -1;
			break;
		}
	}
	for (size_t i = 0; rc == 0 && i < nn; i++) {
		struct state_net *net = &nets[i];
		struct diag local = DIAG_INIT;
		struct cloud_session *s = teardown_session(&cache, st, in, net->cloud, NULL, af, &local);
		int ok = 0;
		if (s && s->drv->net_destroy && net->cloud_id) {
			struct cloud_net cn = { .name = net->name, .public = net->public, .outports = net->outports,
						.cidr = net->cidr, .cloud_id = xstrdup(net->cloud_id) };
			ok = s->drv->net_destroy(s, &cn, &local);
			cloud_net_release(&cn);
		} else if (!s)
			ok = -1;
		if (ok < 0 && !force) {
			move_diag(d, &local, false);
			rc = -1;
			continue;
		}
		move_diag(d, &local, true);
	}
	/* orphans the store lost (crash between a cloud call and its record) */
	for (size_t i = 0; rc == 0 && i < cache.n; i++) {
		if (cache.err[i] || !cache.s[i].drv->cleanup_infra)
			continue;
		struct diag local = DIAG_INIT;
		if (cache.s[i].drv->cleanup_infra(&cache.s[i], &local) < 0 && !force) {
			move_diag(d, &local, false);
			rc = -1;
		} else
			move_diag(d, &local, true);
	}
	/* The network rows go last: while one is left, a later destroy opens
	 * its cloud again and the cleanup above gets another chance. */
	for (size_t i = 0; rc == 0 && i < nn; i++)
		if (state_net_delete(st, in->id, nets[i].name, d) < 0)
			rc = -1;
	deploy_sessions_free(&cache);
	state_vm_list_free(vms, n);
	state_net_list_free(nets, nn);
	return rc;
}

static void rm_tree(const char *path)
{
	DIR *dir = opendir(path);
	if (dir) {
		struct dirent *e;
		while ((e = readdir(dir))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *p = xasprintf("%s/%s", path, e->d_name);
			struct stat sb;
			if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
				rm_tree(p);
			else
				unlink(p);
			free(p);
		}
		closedir(dir);
	}
	rmdir(path);
}

void deploy_remove_dir(const char *home, const char *id)
{
	char *p = xasprintf("%s/infra/%s", home, id);
	rm_tree(p);
	free(p);
}
