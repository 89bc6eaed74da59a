/* docker.c: the 'docker' cloud backend (docs/docker.md): a VM is a
 * container of the image of its docker://IMAGE[:TAG] URL, running the
 * image's OpenSSH server with the infrastructure's public key for the login
 * user (root unless the RADL names one), on one user-defined bridge network
 * per RADL network (docker-net.c), with the RADL's cpu count and memory as
 * the container's limits and a named volume per extra disk that has a
 * mount path. The daemon is the auth line's 'host' (IM's Docker line:
 * "type = Docker; host = unix:///var/run/docker.sock" or tcp://HOST:PORT),
 * else $DOCKER_HOST, else the default socket: a local daemon has no account,
 * so the backend works without an auth line, as the docker client does.
 *
 * Names and labels: container "imc-INFRA-NUM", volume
 * "imc-INFRA-NUM-diskK", network "imc-INFRA-NET", each labelled with the
 * infrastructure id (and the VM number), so that every operation finds a
 * VM by its number alone and destroy/cleanup_infra sweep by label what a
 * crash left (docker-sweep.c).
 *
 * What the daemon says in an error reply is reported with its status
 * (docker-api.c); a missing image is pulled first. The container's command
 * is a short shell script (below) that needs /bin/sh and /usr/sbin/sshd in
 * the image: an image without sshd fails the VM with that reason (IM
 * installs openssh-server in the container, which needs network access
 * imc does not assume). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cloud/docker.h"
#include "util/log.h"
#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* How long a started container's sshd may take to accept the key. */
#define READY_TIMEOUT 120.0
/* Seconds a stopped container gets before it is killed. */
#define STOP_GRACE "10"

/* The container's command: the login user with the key in its
 * authorized_keys (the user made when the image lacks it), a host key made
 * once, then sshd in the foreground as the container's main process. */
static const char boot_script[] =
	"set -e\n"
	"[ -x /usr/sbin/sshd ] || { echo 'imc: the image has no /usr/sbin/sshd' >&2; exit 127; }\n"
	"u=\"$IMC_USER\"\n"
	"id \"$u\" >/dev/null 2>&1 || useradd -m -s /bin/sh \"$u\"\n"
	"h=$(getent passwd \"$u\" | cut -d: -f6)\n"
	"mkdir -p \"$h/.ssh\"\n"
	"printf '%s\\n' \"$IMC_AUTHORIZED_KEY\" >\"$h/.ssh/authorized_keys\"\n"
	"chown -R \"$u\" \"$h/.ssh\"\n"
	"chmod 700 \"$h/.ssh\"\n"
	"chmod 600 \"$h/.ssh/authorized_keys\"\n"
	/* one ed25519 host key when the image has none: RSA's takes seconds */
	"ls /etc/ssh/ssh_host_*_key >/dev/null 2>&1 ||\n"
	"  ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key\n"
	"mkdir -p /run/sshd\n"
	"exec /usr/sbin/sshd -D -e\n";

static struct docker_conn *conn(struct cloud_session *s)
{
	return s->priv;
}

static const char *login_user(const struct cloud_vm *vm)
{
	return vm->user && *vm->user ? vm->user : "root";
}

/* "docker://IMAGE" -> IMAGE (borrowed); a VM of a recipe written for
 * another cloud (run with --cloud docker) gets $IMC_DOCKER_IMAGE; else
 * NULL. */
static const char *image_of(const struct cloud_vm *vm)
{
	if (vm->image && strncmp(vm->image, "docker://", 9) == 0)
		return vm->image[9] ? vm->image + 9 : NULL;
	const char *env = getenv("IMC_DOCKER_IMAGE");
	if (env && strncmp(env, "docker://", 9) == 0)
		env += 9;
	return env && *env ? env : NULL;
}

static int docker_open(struct cloud_session *s, struct diag *d)
{
	const char *host = s->cred ? auth_get(s->cred, "host") : NULL;
	if (!s->infra_id || !*s->infra_id || strlen(s->infra_id) > 64 ||
	    strspn(s->infra_id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") !=
		    strlen(s->infra_id)) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "docker: bad infrastructure id");
		return -1;
	}
	struct docker_conn *c = xcalloc(1, sizeof(*c));
	if (docker_conn_init(c, host, d) < 0) {
		free(c);
		return -1;
	}
	s->priv = c;
	return 0;
}

static void docker_close(struct cloud_session *s)
{
	if (s->priv) {
		docker_conn_release(s->priv);
		free(s->priv);
		s->priv = NULL;
	}
}

static int docker_net_create_op(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	return docker_net_create(conn(s), s->infra_id, net, d);
}

static int docker_net_destroy_op(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	char *name = cloud_name_net(s->infra_id, net->name);
	int r = docker_net_remove(conn(s), name, d);
	free(name);
	return r;
}

/* A simple call on container name: 0 when the status is one of ok. */
static int container_call(struct docker_conn *c, const char *method, const char *name,
			  const char *suffix, json_t *body, const long *ok, const char *what,
			  long *status, struct diag *d)
{
	char *path = xasprintf("/containers/%s%s", name, suffix);
	struct docker_reply r;
	int ret = -1;
	if (docker_call(c, method, path, body, &r, d) == 0) {
		if (status)
			*status = r.status;
		for (size_t i = 0; ok[i]; i++)
			if (r.status == ok[i])
				ret = 0;
		if (ret < 0)
			docker_reply_diag(c, &r, what, d);
		docker_reply_release(&r);
	}
	free(path);
	return ret;
}

/* Reads state and addresses of vm's container into vm. Returns 0, -1 on
 * error; a container that does not exist is VM_OFF. */
static int inspect(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct docker_conn *c = conn(s);
	char *name = cloud_name_vm(s->infra_id, vm->num);
	char *path = xasprintf("/containers/%s/json", name);
	struct docker_reply r;
	int ret = -1;
	if (docker_call(c, "GET", path, NULL, &r, d) < 0)
		goto out;
	if (r.status == 404) {
		vm->state = VM_OFF;
		ret = 0;
		goto done;
	}
	if (r.status != 200) {
		docker_reply_diag(c, &r, "inspect the container", d);
		goto done;
	}
	json_t *st = json_object_get(r.json, "State");
	/* IM's mapping: running is running, anything else stopped */
	vm->state = json_is_true(json_object_get(st, "Running")) &&
				    !json_is_true(json_object_get(st, "Paused"))
			    ? VM_RUNNING
			    : VM_STOPPED;
	const char *id = json_string_value(json_object_get(r.json, "Id"));
	if (id) {
		free(vm->cloud_id);
		vm->cloud_id = xstrdup(id);
	}
	json_t *nets = json_object_get(json_object_get(r.json, "NetworkSettings"), "Networks");
	free(vm->public_ip);
	free(vm->private_ip);
	vm->public_ip = vm->private_ip = NULL;
	for (size_t k = 0; k < vm->nnics; k++) {
		char *nn = cloud_name_net(s->infra_id, vm->nics[k].net);
		const char *ip = json_string_value(json_object_get(json_object_get(nets, nn), "IPAddress"));
		free(vm->nics[k].ip);
		vm->nics[k].ip = ip && *ip ? xstrdup(ip) : NULL;
		free(nn);
		if (!vm->nics[k].ip)
			continue;
		/* the network's label says whether the RADL made it public */
		char *np = xasprintf("/networks/imc-%s-%s", s->infra_id, vm->nics[k].net);
		struct docker_reply nr;
		bool pub = false;
		if (docker_call(c, "GET", np, NULL, &nr, d) == 0) {
			const char *v = json_string_value(json_object_get(json_object_get(nr.json, "Labels"),
									  "org.imc.public"));
			pub = v && strcmp(v, "yes") == 0;
			docker_reply_release(&nr);
		}
		free(np);
		if (pub && !vm->public_ip)
			vm->public_ip = xstrdup(vm->nics[k].ip);
		if (!pub && !vm->private_ip)
			vm->private_ip = xstrdup(vm->nics[k].ip);
	}
	/* a container on a network imc did not make: the daemon's first
	 * address (the top-level one is "" on user-defined networks) */
	if (!vm->public_ip && !vm->private_ip) {
		const char *key;
		json_t *n;
		json_object_foreach(nets, key, n) {
			const char *ip = json_string_value(json_object_get(n, "IPAddress"));
			if (ip && *ip) {
				vm->private_ip = xstrdup(ip);
				break;
			}
		}
	}
	ret = 0;
done:
	docker_reply_release(&r);
out:
	free(path);
	free(name);
	return ret;
}

/* The address imc reaches the VM's sshd at. */
static const char *ssh_address(const struct cloud_vm *vm)
{
	return vm->public_ip ? vm->public_ip : vm->private_ip;
}

static int wait_ready(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	if (inspect(s, vm, d) < 0)
		return -1;
	if (!ssh_address(vm)) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "VM %d: the container has no address", vm->num);
		return -1;
	}
	char *name = cloud_name_vm(s->infra_id, vm->num);
	int r = docker_wait_ready(conn(s), name, vm->num, ssh_address(vm), login_user(vm), s->pubkey,
				  READY_TIMEOUT, d);
	free(name);
	return r;
}

static json_t *labels(const struct cloud_session *s, int num)
{
	char n[24];
	snprintf(n, sizeof(n), "%d", num);
	return json_pack("{s:s, s:s}", DOCKER_LABEL_INFRA, s->infra_id, DOCKER_LABEL_VM, n);
}

/* Volumes for the extra disks with a mount path (IM makes none for a disk
 * without one; a note says so), as HostConfig.Mounts entries. */
static int make_volumes(struct cloud_session *s, struct cloud_vm *vm, json_t *mounts, struct diag *d)
{
	for (size_t k = 0; k < vm->ndisks; k++) {
		const struct cloud_disk *dk = &vm->disks[k];
		if (dk->index == 0)
			continue;
		if (!dk->mount_path || dk->mount_path[0] != '/') {
			char *n = xasprintf("%s%sdisk.%d has no mount_path: no volume was made for it",
					    vm->note ? vm->note : "", vm->note ? "; " : "", dk->index);
			free(vm->note);
			vm->note = n;
			continue;
		}
		char *vname = xasprintf("imc-%s-%d-disk%d", s->infra_id, vm->num, dk->index);
		json_t *body = json_pack("{s:s, s:s, s:o}", "Name", vname, "Driver", "local", "Labels",
					 labels(s, vm->num));
		struct docker_reply r;
		int rc = docker_call(conn(s), "POST", "/volumes/create", body, &r, d);
		json_decref(body);
		if (rc == 0 && r.status != 201 && r.status != 200) {
			docker_reply_diag(conn(s), &r, "create a volume", d);
			rc = -1;
		}
		if (rc == 0)
			json_array_append_new(mounts, json_pack("{s:s, s:s, s:s}", "Type", "volume", "Source",
								vname, "Target", dk->mount_path));
		docker_reply_release(&r);
		free(vname);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Creates, connects and starts one VM's container. */
static int create_one(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct docker_conn *c = conn(s);
	const char *image = image_of(vm);
	char *name = cloud_name_vm(s->infra_id, vm->num);
	json_t *body = NULL, *mounts = json_array();
	struct docker_reply r = { 0 };
	int ret = -1;
	static const long gone_ok[] = { 204, 404, 0 };
	static const long start_ok[] = { 204, 304, 0 };

	if (!image) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "VM %d: image URL '%s' is not docker://IMAGE[:TAG] (for a recipe of another cloud, set IMC_DOCKER_IMAGE)",
			   vm->num, vm->image ? vm->image : "");
		goto out;
	}
	if (vm->nnics == 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "VM %d: a Docker VM needs a network interface",
			   vm->num);
		goto out;
	}
	if (vm->gpus > 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "VM %d: the docker backend does not attach GPUs",
			   vm->num);
		goto out;
	}
	if (docker_image_ensure(c, image, d) < 0)
		goto out;
	/* a container of this name is a crashed create's: replace it */
	if (container_call(c, "DELETE", name, "?force=1&v=1", NULL, gone_ok, "remove a stale container",
			   NULL, d) < 0)
		goto out;
	if (make_volumes(s, vm, mounts, d) < 0)
		goto out;
	char *net0 = cloud_name_net(s->infra_id, vm->nics[0].net);
	char *key = xasprintf("IMC_AUTHORIZED_KEY=%s", s->pubkey ? s->pubkey : "");
	char *user = xasprintf("IMC_USER=%s", login_user(vm));
	const char *host0 = vm->nics[0].hostname ? vm->nics[0].hostname : vm->hostname;
	json_t *host = json_pack("{s:o, s:s, s:{}}", "Mounts", mounts, "NetworkMode", net0,
				 "RestartPolicy");
	mounts = NULL;
	if (vm->cpus > 0)
		json_object_set_new(host, "NanoCpus", json_integer((json_int_t)vm->cpus * 1000000000LL));
	if (vm->memory_bytes > 0)
		json_object_set_new(host, "Memory", json_integer(vm->memory_bytes));
	json_t *eps = json_object();
	json_t *ep = json_object();
	if (host0)
		json_object_set_new(ep, "Aliases", json_pack("[s]", host0));
	json_object_set_new(eps, net0, ep);
	body = json_pack("{s:s, s:s?, s:s?, s:[s,s,s], s:[s,s], s:o, s:{s:{}}, s:o, s:{s:o}}",
			 "Image", image, "Hostname", vm->hostname, "Domainname", vm->domain,
			 "Cmd", "/bin/sh", "-c", boot_script, "Env", key, user,
			 "Labels", labels(s, vm->num), "ExposedPorts", "22/tcp",
			 "HostConfig", host, "NetworkingConfig", "EndpointsConfig", eps);
	free(key);
	free(user);
	free(net0);
	char *path = xasprintf("/containers/create?name=%s", name);
	int rc = docker_call(c, "POST", path, body, &r, d);
	free(path);
	if (rc < 0)
		goto out;
	if (r.status != 201) {
		docker_reply_diag(c, &r, "create the container", d);
		goto out;
	}
	free(vm->cloud_id);
	vm->cloud_id = xstrdup(json_string_value(json_object_get(r.json, "Id")) ?
			       json_string_value(json_object_get(r.json, "Id")) : name);
	json_t *w = json_object_get(r.json, "Warnings");
	size_t i;
	json_t *wi;
	json_array_foreach(w, i, wi)
		if (json_string_value(wi))
			log_info(DOCKER_LOG, "VM %d: the daemon warns: %s", vm->num, json_string_value(wi));
	/* the other NICs: one network each, connected before the start */
	for (size_t k = 1; k < vm->nnics; k++) {
		char *nn = cloud_name_net(s->infra_id, vm->nics[k].net);
		char *np = xasprintf("/networks/%s/connect", nn);
		json_t *cb = json_pack("{s:s, s:{s:[s]}}", "Container", name, "EndpointConfig", "Aliases",
				       vm->nics[k].hostname ? vm->nics[k].hostname : name);
		struct docker_reply cr;
		rc = docker_call(c, "POST", np, cb, &cr, d);
		if (rc == 0 && cr.status != 200) {
			docker_reply_diag(c, &cr, "connect the container to a network", d);
			rc = -1;
		}
		docker_reply_release(&cr);
		json_decref(cb);
		free(np);
		free(nn);
		if (rc < 0)
			goto out;
	}
	if (container_call(c, "POST", name, "/start", NULL, start_ok, "start the container", NULL, d) < 0)
		goto out;
	if (wait_ready(s, vm, d) < 0)
		goto out;
	vm->state = VM_RUNNING;
	ret = 0;
out:
	docker_reply_release(&r);
	json_decref(body);
	json_decref(mounts);
	free(name);
	return ret;
}

static int docker_vm_create(struct cloud_session *s, struct cloud_vm *vms, size_t n, struct diag *d)
{
	for (size_t i = 0; i < n; i++) {
		if (create_one(s, &vms[i], d) == 0)
			continue;
		vms[i].state = VM_FAILED;
		/* nothing of a failed VM stays behind (its number is not reused) */
		struct diag tmp = DIAG_INIT;
		if (docker_sweep(conn(s), s->infra_id, vms[i].num, &tmp) < 0)
			log_warn(DOCKER_LOG, "VM %d: %s", vms[i].num, diag_first_message(&tmp));
		diag_release(&tmp);
	}
	return 0;
}

static int docker_vm_update(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	return inspect(s, vm, d);
}

static int docker_vm_stop(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	static const long ok[] = { 204, 304, 0 };
	char *name = cloud_name_vm(s->infra_id, vm->num);
	int r = container_call(conn(s), "POST", name, "/stop?t=" STOP_GRACE, NULL, ok,
			       "stop the container", NULL, d);
	free(name);
	if (r == 0)
		vm->state = VM_STOPPED;
	return r;
}

static int docker_vm_start(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	static const long ok[] = { 204, 304, 0 };
	char *name = cloud_name_vm(s->infra_id, vm->num);
	int r = container_call(conn(s), "POST", name, "/start", NULL, ok, "start the container", NULL, d);
	free(name);
	/* a restarted container may have new addresses */
	if (r == 0 && wait_ready(s, vm, d) == 0) {
		vm->state = VM_RUNNING;
		return 0;
	}
	return -1;
}

static int docker_vm_reboot(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	static const long ok[] = { 204, 0 };
	char *name = cloud_name_vm(s->infra_id, vm->num);
	int r = container_call(conn(s), "POST", name, "/restart?t=" STOP_GRACE, NULL, ok,
			       "restart the container", NULL, d);
	free(name);
	if (r == 0 && wait_ready(s, vm, d) == 0) {
		vm->state = VM_RUNNING;
		return 0;
	}
	return -1;
}

/* The container by name (whatever the store knows), then whatever still
 * carries the VM's labels; returns when the daemon lists none of them. */
static int docker_vm_destroy(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	static const long ok[] = { 204, 404, 0 };
	char *name = cloud_name_vm(s->infra_id, vm->num);
	int r = container_call(conn(s), "DELETE", name, "?force=1&v=1", NULL, ok,
			       "remove the container", NULL, d);
	free(name);
	if (r == 0)
		r = docker_sweep(conn(s), s->infra_id, vm->num, d);
	if (r == 0)
		vm->state = VM_OFF;
	return r;
}

static int docker_cleanup_infra(struct cloud_session *s, struct diag *d)
{
	return docker_sweep(conn(s), s->infra_id, -1, d);
}

const struct cloud_driver cloud_docker = {
	.name = "docker",
	.caps = CLOUD_CAP_SSH | CLOUD_CAP_STOP | CLOUD_CAP_NETWORKS | CLOUD_CAP_NO_CREDENTIALS,
	.schemes = (const char *const[]){ "docker", NULL },
	.open = docker_open,
	.close = docker_close,
	.net_create = docker_net_create_op,
	.net_destroy = docker_net_destroy_op,
	.vm_create = docker_vm_create,
	.vm_update = docker_vm_update,
	.vm_stop = docker_vm_stop,
	.vm_start = docker_vm_start,
	.vm_reboot = docker_vm_reboot,
	.vm_destroy = docker_vm_destroy,
	.cleanup_infra = docker_cleanup_infra,
};
